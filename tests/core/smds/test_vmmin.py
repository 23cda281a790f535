"""Tests for the port of R's ``optim(method = "BFGS")`` minimiser (``vmmin``)."""

from __future__ import annotations

import itertools
import math
from typing import ClassVar

import numpy as np
import pytest

from stpca_gui.core.smds import vmmin as vmmin_module
from stpca_gui.core.smds.vmmin import (
    DEFAULT_RELTOL,
    ImplicitInverseHessian,
    OptimizationCancelled,
    VmminResult,
    vmmin,
)

# ---------------------------------------------------------------------------------------
# Test problems
# ---------------------------------------------------------------------------------------


def fr(x: np.ndarray) -> float:
    """Rosenbrock banana function, as in R's ``?optim`` example."""
    return 100.0 * (x[1] - x[0] ** 2) ** 2 + (1.0 - x[0]) ** 2


def grr(x: np.ndarray) -> np.ndarray:
    """Analytic gradient of :func:`fr`, as in R's ``?optim`` example."""
    return np.array(
        [-400.0 * x[0] * (x[1] - x[0] ** 2) - 2.0 * (1.0 - x[0]), 200.0 * (x[1] - x[0] ** 2)]
    )


def ext_rosenbrock(x: np.ndarray) -> float:
    """Chained (extended) Rosenbrock function of any dimension >= 2."""
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2))


def ext_rosenbrock_grad(x: np.ndarray) -> np.ndarray:
    g = np.zeros_like(x)
    d = x[1:] - x[:-1] ** 2
    g[:-1] += -400.0 * x[:-1] * d - 2.0 * (1.0 - x[:-1])
    g[1:] += 200.0 * d
    return g


class Quadratic:
    """``f(x) = ½ (x - x*)ᵀ A (x - x*) + f*`` with a random SPD ``A``."""

    def __init__(self, n: int, seed: int, f_star: float = 0.0) -> None:
        rng = np.random.default_rng(seed)
        q, _ = np.linalg.qr(rng.standard_normal((n, n)))
        eig = np.geomspace(0.5, 20.0, n)
        self.a = (q * eig) @ q.T
        self.x_star = rng.standard_normal(n)
        self.f_star = f_star

    def fun(self, x: np.ndarray) -> float:
        d = x - self.x_star
        return 0.5 * float(d @ self.a @ d) + self.f_star

    def grad(self, x: np.ndarray) -> np.ndarray:
        return self.a @ (x - self.x_star)


#: 50-dimensional quadratic with a non-zero optimum value (like a negative log-likelihood).
_QUAD10 = Quadratic(50, seed=12345, f_star=10.0)


# ---------------------------------------------------------------------------------------
# Literal dense reference: a line-by-line transcription of R's C code (dense lower
# triangle B, sequential sums), used to check that the vectorised, low-rank port takes
# the same path.  Only for small n.
# ---------------------------------------------------------------------------------------


def r_vmmin_dense(fn, gr, x0, reltol=DEFAULT_RELTOL, abstol=-math.inf, maxit=100):
    stepredn, acctol, reltest = 0.2, 1e-4, 10.0
    b = [float(v) for v in x0]
    n = len(b)
    bmat = [[0.0] * n for _ in range(n)]
    f = fn(np.array(b))
    fmin = f
    funcount = gradcount = 1
    g = list(gr(np.array(b)))
    it = 1
    ilast = gradcount
    while True:
        if ilast == gradcount:
            for i in range(n):
                for j in range(i):
                    bmat[i][j] = 0.0
                bmat[i][i] = 1.0
        xv = list(b)
        c = list(g)
        t = [0.0] * n
        gradproj = 0.0
        for i in range(n):
            s = 0.0
            for j in range(i + 1):
                s -= bmat[i][j] * g[j]
            for j in range(i + 1, n):
                s -= bmat[j][i] * g[j]
            t[i] = s
            gradproj += s * g[i]
        if gradproj < 0.0:
            steplength = 1.0
            accpoint = False
            while True:
                count = 0
                for i in range(n):
                    b[i] = xv[i] + steplength * t[i]
                    if reltest + xv[i] == reltest + b[i]:
                        count += 1
                if count < n:
                    f = fn(np.array(b))
                    funcount += 1
                    accpoint = math.isfinite(f) and f <= fmin + gradproj * steplength * acctol
                    if not accpoint:
                        steplength *= stepredn
                if count == n or accpoint:
                    break
            enough = (f > abstol) and abs(f - fmin) > reltol * (abs(fmin) + reltol)
            if not enough:
                count = n
                fmin = f
            if count < n:
                fmin = f
                g = list(gr(np.array(b)))
                gradcount += 1
                it += 1
                d1 = 0.0
                for i in range(n):
                    t[i] = steplength * t[i]
                    c[i] = g[i] - c[i]
                    d1 += t[i] * c[i]
                if d1 > 0:
                    d2 = 0.0
                    for i in range(n):
                        s = 0.0
                        for j in range(i + 1):
                            s += bmat[i][j] * c[j]
                        for j in range(i + 1, n):
                            s += bmat[j][i] * c[j]
                        xv[i] = s
                        d2 += s * c[i]
                    d2 = 1.0 + d2 / d1
                    for i in range(n):
                        for j in range(i + 1):
                            bmat[i][j] += (d2 * t[i] * t[j] - xv[i] * t[j] - t[i] * xv[j]) / d1
                else:
                    ilast = gradcount
            elif ilast < gradcount:
                count = 0
                ilast = gradcount
        else:
            count = 0
            if ilast == gradcount:
                count = n
            else:
                ilast = gradcount
        if it >= maxit:
            break
        if gradcount - ilast > 2 * n:
            ilast = gradcount
        if count == n and ilast == gradcount:
            break
    return np.array(b), fmin, funcount, gradcount, it < maxit


# ---------------------------------------------------------------------------------------
# R's documented example
# ---------------------------------------------------------------------------------------


def test_rosenbrock_matches_r_documented_example() -> None:
    # R: optim(c(-1.2, 1), fr, grr, method = "BFGS")
    #    $value 9.594956e-18, $par 1 1, $counts 110 43, $convergence 0
    res = vmmin(fr, grr, [-1.2, 1.0])
    assert isinstance(res, VmminResult)
    assert (res.n_fev, res.n_gev) == (110, 43)
    assert res.converged is True
    assert res.message == "converged"
    assert res.fun == pytest.approx(9.594956e-18, rel=1e-3)
    np.testing.assert_allclose(res.x, [1.0, 1.0], atol=1e-6)
    assert res.fun == pytest.approx(fr(res.x), rel=1e-12, abs=0.0)


def test_rosenbrock_combined_callable_same_path_and_no_extra_gradient_calls() -> None:
    calls = {"n": 0}

    def both(x: np.ndarray) -> tuple[float, np.ndarray]:
        calls["n"] += 1
        return fr(x), grr(x)

    res = vmmin(both, True, [-1.2, 1.0])
    ref = vmmin(fr, grr, [-1.2, 1.0])
    assert (res.n_fev, res.n_gev) == (110, 43)
    np.testing.assert_array_equal(res.x, ref.x)
    assert res.fun == ref.fun
    # The gradient at an accepted point comes from the evaluation that accepted it.
    assert calls["n"] == res.n_fev


@pytest.mark.parametrize(
    ("fn", "gr", "x0", "reltol", "maxit"),
    [
        (fr, grr, [-1.2, 1.0], DEFAULT_RELTOL, 100),
        (fr, grr, [-1.2, 1.0], 5e-2, 100),
        (fr, grr, [2.0, -1.5], DEFAULT_RELTOL, 100),
        (ext_rosenbrock, ext_rosenbrock_grad, [-1.2, 1.0, -1.2, 1.0, 0.5], DEFAULT_RELTOL, 30),
        (ext_rosenbrock, ext_rosenbrock_grad, [-1.2, 1.0, -1.2, 1.0, 0.5], 5e-2, 100),
        (_QUAD10.fun, _QUAD10.grad, np.zeros(50), 5e-2, 100),
        (ext_rosenbrock, ext_rosenbrock_grad, [0.0, 0.0, 0.0, 0.0], DEFAULT_RELTOL, 7),
    ],
)
def test_same_path_as_literal_dense_transcription(fn, gr, x0, reltol, maxit) -> None:
    # The port differs from the transcription only in the rounding of inner products and
    # of B·v, so on these (fixed) problems it must take the same decisions.  Long runs on
    # ill-conditioned problems can legitimately drift apart at rounding level, and the
    # length of a final "no change" line search (the 10 + x == 10 + x' test) is
    # rounding-sensitive, so the cases are chosen not to sit on such boundaries.
    res = vmmin(fn, gr, x0, reltol=reltol, maxit=maxit)
    x_ref, f_ref, nf_ref, ng_ref, conv_ref = r_vmmin_dense(fn, gr, x0, reltol=reltol, maxit=maxit)
    assert (res.n_fev, res.n_gev, res.converged) == (nf_ref, ng_ref, conv_ref)
    np.testing.assert_allclose(res.x, x_ref, rtol=1e-8, atol=1e-10)
    assert res.fun == pytest.approx(f_ref, rel=1e-6, abs=1e-14)


# ---------------------------------------------------------------------------------------
# Behaviour on a convex quadratic
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quad50() -> Quadratic:
    return Quadratic(50, seed=12345)


def test_quadratic_50d_converges_to_minimiser(quad50: Quadratic) -> None:
    x0 = np.zeros(50)
    res = vmmin(quad50.fun, quad50.grad, x0)
    assert res.converged
    np.testing.assert_allclose(res.x, quad50.x_star, atol=1e-5)
    assert res.fun < 1e-10
    assert res.n_iter == res.n_gev


def test_large_reltol_stops_early() -> None:
    # A non-zero optimum value, as for a negative log-likelihood, so that the relative
    # test can trigger well before the minimiser is reached.
    quad = _QUAD10
    x0 = np.zeros(50)
    full = vmmin(quad.fun, quad.grad, x0)
    loose = vmmin(quad.fun, quad.grad, x0, reltol=5e-2)
    assert full.converged
    np.testing.assert_allclose(full.x, quad.x_star, atol=1e-2)
    assert loose.converged
    assert loose.n_gev <= 12
    assert 2 * loose.n_gev < full.n_gev
    assert loose.n_gev < full.n_gev
    assert loose.n_fev < full.n_fev
    assert loose.fun >= full.fun
    assert loose.fun < quad.fun(x0)
    assert np.max(np.abs(loose.x - quad.x_star)) > 1e-2  # stopped well short
    # The reported value belongs to the reported point.
    assert loose.fun == pytest.approx(quad.fun(loose.x), rel=1e-12)


def test_maxit_reached_is_not_converged(quad50: Quadratic) -> None:
    res = vmmin(quad50.fun, quad50.grad, np.zeros(50), maxit=1)
    assert res.converged is False
    assert res.n_iter >= 1
    assert "iterations" in res.message
    res3 = vmmin(quad50.fun, quad50.grad, np.zeros(50), maxit=3)
    assert res3.converged is False
    assert res3.n_iter == 3


def test_maxit_zero_evaluates_only(quad50: Quadratic) -> None:
    x0 = np.ones(50)
    res = vmmin(quad50.fun, quad50.grad, x0, maxit=0)
    assert (res.n_fev, res.n_gev, res.n_iter, res.converged) == (0, 0, 0, True)
    np.testing.assert_array_equal(res.x, x0)
    assert res.fun == quad50.fun(x0)


def test_abstol_stops_once_below_target(quad50: Quadratic) -> None:
    x0 = np.zeros(50)
    f0 = quad50.fun(x0)
    full = vmmin(quad50.fun, quad50.grad, x0)
    res = vmmin(quad50.fun, quad50.grad, x0, abstol=0.01 * f0)
    assert res.converged
    assert res.fun <= 0.01 * f0
    assert res.n_gev < full.n_gev


# ---------------------------------------------------------------------------------------
# Callback and cancellation
# ---------------------------------------------------------------------------------------


def test_callback_returning_true_stops_with_best_point(quad50: Quadratic) -> None:
    seen: list[tuple[int, float, np.ndarray]] = []

    def cb(iteration: int, fmin: float, x: np.ndarray) -> bool:
        seen.append((iteration, fmin, x))
        return len(seen) == 3

    res = vmmin(quad50.fun, quad50.grad, np.zeros(50), callback=cb)
    assert len(seen) == 3
    assert res.converged is False
    assert "callback" in res.message
    it, fmin, x = seen[-1]
    np.testing.assert_array_equal(res.x, x)
    assert res.fun == fmin == pytest.approx(quad50.fun(x), rel=1e-14)
    assert res.n_iter == it
    # Accepted steps strictly decrease the objective.
    values = [s[1] for s in seen]
    assert all(b < a for a, b in itertools.pairwise(values))


def test_callback_receives_copies(quad50: Quadratic) -> None:
    def cb(iteration: int, fmin: float, x: np.ndarray) -> None:
        x[:] = 1e6  # must not disturb the optimiser

    ref = vmmin(quad50.fun, quad50.grad, np.zeros(50))
    res = vmmin(quad50.fun, quad50.grad, np.zeros(50), callback=cb)
    np.testing.assert_array_equal(res.x, ref.x)
    assert (res.n_fev, res.n_gev) == (ref.n_fev, ref.n_gev)


def test_callback_cancel_exception_returns_best_point(quad50: Quadratic) -> None:
    seen: list[tuple[float, np.ndarray]] = []

    def cb(iteration: int, fmin: float, x: np.ndarray) -> None:
        if len(seen) == 2:
            raise OptimizationCancelled
        seen.append((fmin, x))

    res = vmmin(quad50.fun, quad50.grad, np.zeros(50), callback=cb)
    assert res.converged is False
    assert res.message == "cancelled"
    # The step whose callback raised was accepted: it is the best point so far.
    assert res.fun < seen[-1][0]
    assert res.fun == pytest.approx(quad50.fun(res.x), rel=1e-14)


def test_cancel_raised_inside_objective_returns_last_accepted_point(quad50: Quadratic) -> None:
    accepted: list[tuple[float, np.ndarray]] = []
    n_calls = {"n": 0}

    def fun(x: np.ndarray) -> float:
        n_calls["n"] += 1
        if n_calls["n"] == 6:
            raise OptimizationCancelled
        return quad50.fun(x)

    def cb(iteration: int, fmin: float, x: np.ndarray) -> None:
        accepted.append((fmin, x))

    res = vmmin(fun, quad50.grad, np.zeros(50), callback=cb)
    assert res.message == "cancelled"
    assert res.converged is False
    assert res.n_fev == 5
    assert accepted, "expected at least one accepted step before cancellation"
    fmin, x = accepted[-1]
    np.testing.assert_array_equal(res.x, x)
    assert res.fun == fmin


# ---------------------------------------------------------------------------------------
# Non-finite objective values and argument checks
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [math.inf, math.nan])
def test_non_finite_trial_value_is_a_rejected_step(bad: float) -> None:
    w = np.array([1.0, 3.0, 0.5])
    rejected = {"n": 0}

    def fun(x: np.ndarray) -> float:
        if np.any(x > 1.5):
            rejected["n"] += 1
            return bad
        return float(np.sum(w * (x - 1.0) ** 2))

    def grad(x: np.ndarray) -> np.ndarray:
        return 2.0 * w * (x - 1.0)

    x0 = [-5.0, -5.0, -5.0]
    # The first trial (step length 1) lands at (7, 31, 1), outside the region.
    res = vmmin(fun, grad, x0)
    assert rejected["n"] >= 2
    assert res.converged
    assert math.isfinite(res.fun)
    np.testing.assert_allclose(res.x, [1.0, 1.0, 1.0], atol=1e-6)
    _, _, nf_ref, ng_ref, _ = r_vmmin_dense(fun, grad, x0)
    assert (res.n_fev, res.n_gev) == (nf_ref, ng_ref)


def test_non_finite_initial_value_raises() -> None:
    with pytest.raises(ValueError, match="not finite"):
        vmmin(lambda x: math.inf, lambda x: np.zeros(2), [0.0, 0.0])


def test_wrong_gradient_length_raises() -> None:
    with pytest.raises(ValueError, match="gradient"):
        vmmin(fr, lambda x: np.zeros(3), [-1.2, 1.0])


def test_grad_required() -> None:
    with pytest.raises(TypeError):
        vmmin(fr, None, [-1.2, 1.0])  # type: ignore[arg-type]


def test_input_not_modified_and_scalar_start() -> None:
    x0 = np.array([-1.2, 1.0])
    vmmin(fr, grr, x0)
    np.testing.assert_array_equal(x0, [-1.2, 1.0])
    res = vmmin(lambda x: float((x[0] - 3.0) ** 2), lambda x: 2.0 * (x - 3.0), 0.0)
    assert res.x.shape == (1,)
    assert res.x[0] == pytest.approx(3.0, abs=1e-6)


# ---------------------------------------------------------------------------------------
# Implicit inverse Hessian versus a dense replay
# ---------------------------------------------------------------------------------------


class _DenseShadow(ImplicitInverseHessian):
    """Keeps a dense copy of B updated exactly as R does and checks every product."""

    instances: ClassVar[list[_DenseShadow]] = []

    def __init__(self, n: int, initial_capacity: int = 8) -> None:
        super().__init__(n, initial_capacity=1)  # force buffer growth too
        self.dense = np.eye(n)
        self.max_err = 0.0
        self.n_products = 0
        self.n_resets = 0
        self.max_updates = 0
        _DenseShadow.instances.append(self)

    def reset(self) -> None:
        super().reset()
        self.dense = np.eye(self.n)
        self.n_resets += 1

    def matvec(self, v):
        out = super().matvec(v)
        expected = self.dense @ np.asarray(v)
        scale = max(1.0, float(np.max(np.abs(expected))))
        self.max_err = max(self.max_err, float(np.max(np.abs(out - expected))) / scale)
        self.n_products += 1
        return out

    def update(self, t, c, d1):
        bx, d2 = super().update(t, c, d1)
        # Dense update, R style: X = B c with the old B, then B += (...)/D1.
        x_dense = self.dense @ c
        d2_dense = 1.0 + float(x_dense @ c) / d1
        np.testing.assert_allclose(bx, x_dense, rtol=1e-12, atol=1e-12)
        assert d2 == pytest.approx(d2_dense, rel=1e-12)
        self.dense = (
            self.dense
            + (d2_dense * np.outer(t, t) - np.outer(x_dense, t) - np.outer(t, x_dense)) / d1
        )
        self.max_updates = max(self.max_updates, self.n_updates)
        np.testing.assert_allclose(self.to_dense(), self.dense, rtol=1e-12, atol=1e-12)
        return bx, d2


def test_implicit_products_match_dense_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    _DenseShadow.instances.clear()
    monkeypatch.setattr(vmmin_module, "ImplicitInverseHessian", _DenseShadow)
    x0 = np.array([-1.2, 1.0, -0.5, 0.8, 1.3, -1.0])
    res = vmmin(ext_rosenbrock, ext_rosenbrock_grad, x0, maxit=60)
    (shadow,) = _DenseShadow.instances
    assert shadow.n_products > 20
    assert shadow.max_updates >= 5
    assert shadow.n_resets >= 1
    assert shadow.max_err <= 1e-12
    # Same run without the shadow gives the same result.
    monkeypatch.undo()
    plain = vmmin(ext_rosenbrock, ext_rosenbrock_grad, x0, maxit=60)
    np.testing.assert_array_equal(res.x, plain.x)


def test_implicit_inverse_hessian_random_updates() -> None:
    rng = np.random.default_rng(7)
    n = 8
    h = ImplicitInverseHessian(n, initial_capacity=2)
    dense = np.eye(n)
    for _ in range(12):
        t = rng.standard_normal(n)
        c = t + 0.3 * rng.standard_normal(n)
        d1 = float(t @ c)
        if d1 <= 0:
            continue
        x = dense @ c
        d2 = 1.0 + float(x @ c) / d1
        dense = dense + (d2 * np.outer(t, t) - np.outer(x, t) - np.outer(t, x)) / d1
        h.update(t, c, d1)
        last_t, last_c = t, c
        v = rng.standard_normal(n)
        np.testing.assert_allclose(h.matvec(v), dense @ v, rtol=1e-12, atol=1e-12)
    assert h.n_updates >= 6
    # The BFGS secant condition holds for the last update: B c = t.
    np.testing.assert_allclose(h.matvec(last_c), last_t, rtol=1e-10)
    h.reset()
    v = rng.standard_normal(n)
    np.testing.assert_array_equal(h.matvec(v), v)
    with pytest.raises(ValueError):
        h.update(t, -t, -1.0)
