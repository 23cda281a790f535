"""The compact L-BFGS of SMDS at high d: the direction against the two-loop recursion, the
minimum against scipy's L-BFGS-B, and SMDS fits against the optimiser it replaces."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize

from stpca_gui.core import SphericalMDS
from stpca_gui.core._base import parallel
from stpca_gui.core.smds import lbfgs, smds
from stpca_gui.core.smds.lbfgs import CompactInverseHessian, minimize_lbfgs
from stpca_gui.core.torsion_states import make_torsion_states


def two_loop_direction(gradient, steps, changes):
    """−H g by Nocedal's two-loop recursion (Nocedal & Wright, Algorithm 7.4)."""
    q = gradient.copy()
    alphas = []
    for s, y in zip(reversed(steps), reversed(changes), strict=True):
        alpha = (s @ q) / (s @ y)
        alphas.append(alpha)
        q -= alpha * y
    q *= (steps[-1] @ changes[-1]) / (changes[-1] @ changes[-1])
    for s, y, alpha in zip(steps, changes, reversed(alphas), strict=True):
        q += s * (alpha - (y @ q) / (s @ y))
    return -q


@pytest.mark.parametrize("n", [40, 20_000])  # one column block, and several
def test_direction_equals_the_two_loop_recursion(n, monkeypatch):
    monkeypatch.setattr(lbfgs, "_COLUMN_BLOCK", 4096)
    rng = np.random.default_rng(1)
    scales = rng.uniform(0.5, 20.0, n)  # a diagonal SPD Hessian
    memory = 5
    hessian = CompactInverseHessian(n, memory)
    steps, changes = [], []
    for _ in range(8):  # wraps around the ring of 5 slots
        s = rng.standard_normal(n)
        y = scales * s
        hessian.add(s, y, hessian.products(y)[:, 0], float(s @ y))
        steps.append(s)
        changes.append(y)
    g = rng.standard_normal(n)
    got = hessian.direction(g, hessian.products(g)[:, 0])
    expected = two_loop_direction(g, steps[-memory:], changes[-memory:])
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12 * np.abs(expected).max())


def test_reaches_the_minimum_scipy_reaches():
    def rosenbrock(x):
        return scipy.optimize.rosen(x), scipy.optimize.rosen_der(x)

    x0 = np.tile([-1.2, 1.0], 50)
    ours = minimize_lbfgs(rosenbrock, x0, max_iter=5000)
    theirs = scipy.optimize.minimize(rosenbrock, x0, jac=True, method="L-BFGS-B",
                                     options={"maxcor": 20, "maxiter": 5000, "ftol": 0.0,
                                              "gtol": 1e-10})
    assert ours.success and ours.message == "gradient below gtol"
    np.testing.assert_allclose(ours.x, 1.0, atol=1e-8)
    assert ours.fun <= max(theirs.fun, 1e-18)
    assert ours.n_evaluations <= 1.3 * theirs.nfev


def test_callback_stops_the_run():
    calls = []

    def quadratic(x):
        return float(x @ x), 2.0 * x

    result = minimize_lbfgs(quadratic, np.ones(10) * 3.0,
                            callback=lambda it, x, f: calls.append(it) or it == 1)
    assert calls == [1] and result.n_iter == 1 and result.message == "stopped by the callback"


def test_smds_at_high_d_reaches_the_stress_of_l_bfgs_b(monkeypatch):
    angles = make_torsion_states(300, 24, random_state=0).angles
    assert angles.shape[1] >= smds.COMPACT_LBFGS_MIN_DIMS
    compact = SphericalMDS(random_state=0).fit(angles)
    monkeypatch.setattr(smds, "COMPACT_LBFGS_MIN_DIMS", 10**9)
    fortran = SphericalMDS(random_state=0).fit(angles)
    assert compact.converged_ and fortran.converged_
    assert compact.message_ == fortran.message_ == "relative stress decrease below tol=1e-05"
    # The same minimum to the stopping rule's tolerance (tol 1e-5 a step, 5 steps).
    assert compact.stress_ <= fortran.stress_ * (1.0 + 5e-5)
    assert abs(compact.radius_ - fortran.radius_) <= 1e-3 * fortran.radius_


def test_below_the_cut_off_scipy_runs(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the compact L-BFGS ran below its cut-off")

    monkeypatch.setattr(smds, "minimize_lbfgs", refuse)
    angles = make_torsion_states(120, smds.COMPACT_LBFGS_MIN_DIMS - 1, random_state=0).angles
    assert SphericalMDS(random_state=0).fit(angles).converged_


def test_result_does_not_depend_on_the_thread_count(monkeypatch):
    # The products run over fixed column blocks whose partial sums are added in block
    # order: one thread or several give the same iterates to the bit.
    monkeypatch.setattr(lbfgs, "_COLUMN_BLOCK", 256)
    rng = np.random.default_rng(4)
    scales = rng.uniform(0.1, 50.0, 3000)
    center = rng.standard_normal(3000)

    def quartic(x):
        u = x - center
        return float(scales @ u**2 + 0.01 * np.sum(u**4)), 2.0 * scales * u + 0.04 * u**3

    threaded = minimize_lbfgs(quartic, np.zeros(3000), max_iter=60)
    monkeypatch.setattr(parallel, "worker_count", lambda: 1)
    serial = minimize_lbfgs(quartic, np.zeros(3000), max_iter=60)
    assert threaded.n_iter == serial.n_iter > 10
    np.testing.assert_array_equal(threaded.x, serial.x)
