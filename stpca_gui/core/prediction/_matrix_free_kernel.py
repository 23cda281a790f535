"""Matrix-free T̂ (eq. interp) and T̃ (eq. invmds2) for high dimension: Newton's method
with conjugate-gradient steps.

The dense kernels of :mod:`._prediction_kernel` form the d × d Newton model of every query
at every iteration, a sum of m outer products over the partners, which costs O(m·d²) per
pass plus O(d³) for the solve: 4.5 ms per point at d = 66 (issue 32), most of a landmark
fit. Here the model is never formed. A pass over the partners gives the stress, the
gradient and the m weights w_i of the model (O(m·d)); the Newton step (H + λ D) s = −g is
solved by conjugate gradients (CG), each iteration one product with the model,
v ↦ B (w ⊙ Bᵀ v) + (Σ c_i) v (O(m·d)), B the partners' columns (for T̂ the unit vectors
ŷ_i, projected onto the tangent space at y; for T̃ the unit directions from the x_i).

T̂'s preconditioner is its model with every weight replaced by their mean w̄,
w̄ P_y E Eᵀ P_y + (Σ c_i) I: E Eᵀ is the same for every query, so its eigenvectors are
computed once per call (O(d³) once, then O(d²) per application). The weights vary mostly
with the partners' distance to y, which E Eᵀ does not see, yet on the peptide-like data of
:mod:`~stpca_gui.core.torsion_states` (d = 66, m = 1000) it takes the model's condition
number from 60–105 to 2.0–2.6. T̂ also starts closer: at the linear placement of the
partners' cosines (``_block_placing._linear_starts``, about 3° from the minimiser on T⁶⁶
where the nearest partner is 30°). T̃'s model has one outlying eigenvalue and the rest within a
factor of about 10 on the same data, and runs without a preconditioner.

The Newton iterations, damping and stopping rules are those of the dense kernels (but
T̃'s damping after a rejected trial, :data:`_TORUS_REJECTED_LAMBDA`), so both stop at the
same minimiser to rounding where the problem has one minimum near the start (T̂: within
1e-10 of an extended-precision reference, tests/core/prediction/test_matrix_free_kernel.py).
CG runs to a relative residual proportional to the gradient (inexact Newton, Eisenstat &
Walker), between :data:`_CG_FAR_TOL` and :data:`_CG_NEAR_TOL` (T̂:
:data:`_CG_PLACE_NEAR_TOL`), and stops early at rounding.

T̂ runs in :mod:`._block_placing` (blocks of points, the passes over the partners as matrix
products), with this module's constants, step cap and retraction; T̃ runs here, one query
at a time.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .._base.jit import kernel, kernel_array
from ..geometry.angle_math import wrap_angle
from ._prediction_kernel import (
    _LAMBDA_MAX,
    _LAMBDA_START,
    _STEP_TOL,
    _STRESS_ROUNDING,
    _VECTOR_MATH,
    _at_rest,
    _count_accepted,
    _targets_for,
    _torus_gradient_pass,
    run_prediction_rows,
)

#: Relative CG residual of a Newton step far from the minimum (the step only has to lead
#: downhill) and near it (the step must be Newton's to the rounding of the stopping rules).
_CG_FAR_TOL = 1e-2
#: T̃'s far tolerance: its objective has ridges (the torus distance's), across which a
#: precise Newton step is no better than a rough one.
_CG_TORUS_FAR_TOL = 1e-1
_CG_NEAR_TOL = 1e-12
#: T̂'s near tolerance. Its last step is shorter than _LAST_STEP_UNCHECKED (1e-7 rad), so a
#: relative residual of 1e-8 errs by at most κ × 1e-8 × 1e-7 = 5e-13 rad at the model's
#: condition number κ ≈ 500 (T²⁴), far inside T̂'s 1e-10. Against 1e-12 (T⁶⁶ / T⁴²⁶,
#: m = 1000, 60 points): passes per point 42.9 → 39.1 / 57.5 → 53.2, answers moved ≤ 1e-15.
_CG_PLACE_NEAR_TOL = 1e-8
#: A Newton step (damping at most _NEWTON_LAMBDA) shorter than this (radians) is the last,
#: taken without evaluating the point it leads to. The dense kernel's _LAST_STEP (1e-6)
#: assumes an error of order its square after it; at high d the model's second
#: derivatives are larger (an error of 2e-10 after a step of 9e-7 on T²⁴), so this one is
#: shorter.
_LAST_STEP_UNCHECKED = 1e-7
#: CG iterations without the squared residual shrinking fourfold after which CG stops
#: (rounding reached).
_CG_STALL = 3
#: T̃'s minima often lie on a ridge of the torus distance (where an angle's difference to
#: some sample crosses ±π), where no Newton model fits: the damping then swings between
#: rejected and accepted steps that each gain ~1e-10 of the stress. An accepted step that
#: needed damping and gained less than this share of the stress ends the iteration there
#: (T⁶⁶, m = 1000, 60 points × 5 levels of the torus variance: passes per prediction mean
#: 25.6 → 20.2, 90 % quantile 56 → 41; the answers moved by 5e-7 rad at the median, at
#: most 0.05 rad where two minima on a ridge are equally deep; the variance between
#: levels 10 and 9 summed over the points by 4e-4 of itself, far below its sample's
#: standard error).
_RIDGE_TOL = 1e-9
#: T̃'s relative damping after a rejected trial is at least this. Multiplied by 10 from its
#: floor of 1e-9, the trials below about 1e-2 repeat the rejected step to within 1 % (a
#: pass and a CG solve each); jumping there skips them. T⁶⁶, n = 10⁴, K = 10, the
#: torus variance's 12 levels (one thread, CPU s for 300 points at T̃'s tolerance 1e-5,
#: two runs): ×10 only 7.5 / 7.5; 1e-3 6.3 / 5.4; **1e-2 5.0 / 5.2**; 1e-1 5.9 / 5.3; 1 5.0 /
#: 5.2 (PC1's ratio moved 5e-3 point). Against ×10 only on 500 points × 12 levels: at 1e-5
#: the answers moved ≤ 8e-5 rad, the ratios ≤ 1e-7 point; at 1e-12 (a prediction's
#: default) 99 % of the answers ≤ 1e-13 rad, the largest 2.3e-3 rad (a point whose
#: minimum lies on a ridge), the ratios ≤ 2e-5 point, CPU 29.2 → 24.7 s (two threads).
_TORUS_REJECTED_LAMBDA = 1e-2
#: A preconditioner eigenvalue is kept at least this fraction of (w̄ λ_j + |Σ c_i|): where
#: E Eᵀ is singular (fewer partners than dimensions) or Σ c_i < 0 the preconditioner
#: stays positive definite.
_PRECONDITIONER_FLOOR = 0.1
#: Longest tangent step of T̂ (radians, before the retraction). The start lies within
#: about 9° (0.15 rad) of the minimiser (T²⁰–T⁴²⁶, m = 1000), but far from it the capped
#: model's first Newton steps can be 0.8 long and are then rejected and damped. Capped at
#: 0.1, they are taken (T⁶⁶, 200 points: model products and stress passes per point
#: 48.1 → 42.4, rejected trials 1.3 → 0, the answers within 3e-13 rad).
_MAX_STEP = 0.1
#: Eigenvalues of E Eᵀ below this fraction of the largest count as zero in the start.
_PSEUDOINVERSE_RCOND = 1e-10


@kernel(fastmath=_VECTOR_MATH)
def _model_product(
    v: NDArray, y: NDArray, project: bool, basis_t: NDArray, weights: NDArray,
    shifts: NDArray, exact: bool, diagonal: float, partner_work: NDArray, out: NDArray,
) -> None:
    """``out`` = B diag(w) Bᵀ v + ``diagonal`` v, B the columns of ``basis_t`` (one per
    partner); with ``exact`` the weights are w_i plus the cap shifts (the exact Hessian's),
    with ``project`` the product is projected onto the tangent space at the unit vector
    y (v must be tangent there). Only the first len(v) rows of ``basis_t`` are used."""
    p = v.shape[0]
    m = basis_t.shape[1]
    first = basis_t[0]
    v0 = v[0]
    for i in range(m):
        partner_work[i] = v0 * first[i]
    for k in range(1, p):
        vk = v[k]
        row = basis_t[k]
        for i in range(m):
            partner_work[i] += vk * row[i]
    if exact:
        for i in range(m):
            partner_work[i] *= weights[i] + shifts[i]
    else:
        for i in range(m):
            partner_work[i] *= weights[i]
    along = 0.0
    for k in range(p):
        row = basis_t[k]
        acc = 0.0
        for i in range(m):
            acc += row[i] * partner_work[i]
        out[k] = acc
        along += acc * y[k]
    if not project:
        along = 0.0
    for k in range(p):
        out[k] += diagonal * v[k] - along * y[k]


@kernel()
def _dot(a: NDArray, b: NDArray) -> float:
    total = 0.0
    for k in range(a.shape[0]):
        total += a[k] * b[k]
    return total


@kernel()
def _cap_step(step: NDArray) -> None:
    """Shorten ``step`` to :data:`_MAX_STEP` if it is longer (a descent direction stays
    one)."""
    squared = _dot(step, step)
    if squared > _MAX_STEP * _MAX_STEP:
        shrink = _MAX_STEP / math.sqrt(squared)
        for k in range(step.shape[0]):
            step[k] *= shrink


@kernel()
def _retract(y: NDArray, step: NDArray, out: NDArray) -> None:
    """``out`` = (y + step) / |y + step|: T̂'s retraction of a tangent step at the unit
    vector y (second order, so Newton's quadratic convergence is kept)."""
    norm = 0.0
    for k in range(y.shape[0]):
        out[k] = y[k] + step[k]
        norm += out[k] * out[k]
    norm = math.sqrt(norm)
    for k in range(y.shape[0]):
        out[k] /= norm


@kernel(inline=True)
def _cg_move(rz: float, curvature_along: float, direction: NDArray, product: NDArray,
             step: NDArray, residual: NDArray) -> float:
    """One CG move along ``direction`` (``product`` its model product): ``step`` and
    ``residual`` updated in place; returns the squared residual."""
    alpha = rz / curvature_along
    for k in range(step.shape[0]):
        step[k] += alpha * direction[k]
        residual[k] -= alpha * product[k]
    return _dot(residual, residual)


@kernel(inline=True)
def _cg_progress(squared: float, best: float, stalled: int) -> tuple[float, int, bool]:
    """(best, stalled, stop) after a CG move: near the minimum the goal can lie below the
    rounding of the products, so CG stops once the squared residual has not shrunk
    fourfold in :data:`_CG_STALL` moves."""
    if squared < 0.25 * best:
        return squared, 0, False
    return best, stalled + 1, stalled + 1 >= _CG_STALL


@kernel(inline=True)
def _cg_next_direction(rz: float, residual: NDArray, conditioned: NDArray,
                       direction: NDArray) -> float:
    """The next CG direction from the preconditioned residual, in place; returns its
    rᵀ z."""
    rz_next = _dot(residual, conditioned)
    beta = rz_next / rz
    for k in range(direction.shape[0]):
        direction[k] = conditioned[k] + beta * direction[k]
    return rz_next


@kernel()
def _newton_step(
    g: NDArray, zero: NDArray, basis_t: NDArray, weights: NDArray, curvature: float,
    damping: float, tolerance: float, partner_work: NDArray, vectors: NDArray, step: NDArray,
) -> bool:
    """Solve (H + damping I) s = −g by conjugate gradients from 0 into ``step``, H the
    model B diag(w) Bᵀ + (Σ c_i) I of :func:`_model_product` (``curvature`` = Σ c_i;
    ``zero``, a vector of zeros, stands in for its tangent point, unused unprojected). CG
    stops at the relative residual ``tolerance`` or when rounding stops it from
    decreasing. Returns False when the very first direction has non-positive curvature
    (the damping is too small); later negative curvature ends CG at the last iterate, a
    descent direction. ``vectors`` is (4, p)."""
    p = g.shape[0]
    residual, direction, product = vectors[0], vectors[1], vectors[2]
    diagonal = curvature + damping
    for k in range(p):
        step[k] = 0.0
        residual[k] = -g[k]
        direction[k] = residual[k]
    goal = tolerance * tolerance * _dot(g, g)
    rz = _dot(residual, residual)
    best = rz
    stalled = 0
    for iteration in range(p + 10):
        _model_product(direction, zero, False, basis_t, weights, weights, False, diagonal,
                       partner_work, product)
        curvature_along = _dot(direction, product)
        if not curvature_along > 0.0:
            if iteration == 0:
                return False
            break
        squared = _cg_move(rz, curvature_along, direction, product, step, residual)
        best, stalled, stop = _cg_progress(squared, best, stalled)
        if squared <= goal or stop:
            break
        rz = _cg_next_direction(rz, residual, residual, direction)
    return True


def partner_spectrum(embedding: NDArray) -> tuple[NDArray, NDArray]:
    """Eigenvalues and eigenvectors (as rows) of E Eᵀ = Σ ŷ_i ŷ_iᵀ, the fixed part of the
    preconditioner (computed once per set of partners)."""
    values, vectors = np.linalg.eigh(embedding.T @ embedding)
    return kernel_array(np.maximum(values, 0.0)), kernel_array(vectors.T)


# ------------------------------------------------------------------ T̃, the torus side
@kernel(fastmath=_VECTOR_MATH)
def _torus_gradient(
    x: NDArray, angles_t: NDArray, targets: NDArray, scratch: NDArray, grad: NDArray,
    weights: NDArray,
) -> tuple[float, float, float]:
    """Mean stress of eq. (invmds2) at x, its gradient Σ res_i u_i into ``grad`` and the
    weights w_i = 1 − c_i of its Newton model Σ w_i u_i u_iᵀ + (Σ c_i) I into ``weights``,
    with c_i = res_i / δ_i capped below at −1 (the Hessian of ½ Σ res_i², exact unless
    x is closer than half its target distance to some x_i); ``scratch`` as in
    ``_torus_directions``. Returns (mean stress, Σ c_i, Σ w_i)."""
    d, n = angles_t.shape
    total = _torus_gradient_pass(x, angles_t, targets, scratch, grad)
    residual = scratch[d]
    inverse = scratch[d + 1]
    curvature = 0.0
    weight_sum = 0.0
    for i in range(n):
        c = max(residual[i] * inverse[i], -1.0)
        curvature += c
        weights[i] = 1.0 - c
        weight_sum += 1.0 - c
    return total / n, curvature, weight_sum


@kernel()
def _predict_one_cg(
    angles_t: NDArray, targets: NDArray, start: NDArray, max_iter: int, tol: float,
    scratch: NDArray, partners: NDArray, vectors: NDArray,
) -> float:
    # Damped Newton with CG steps (no preconditioner: the model's eigenvalues are one
    # outlier and a bulk within a factor of about 10 on T⁶⁶), with the acceptance and
    # stopping rules of ``_prediction_kernel._predict_one``. ``scratch`` is (2, d + 2, n),
    # the accepted and the trial point's directions; ``partners`` (3, n) their weights
    # and CG's work row; ``vectors`` (10, d). The answer goes to vectors[0].
    d = angles_t.shape[0]
    x, grad, trial, trial_grad, step = vectors[0], vectors[1], vectors[2], vectors[3], vectors[4]
    cg_vectors = vectors[5:9]
    # Stands in for the tangent point that the unprojected CG does not use; zero, as
    # _model_product still multiplies the point by 0 (0 × the inf or NaN that
    # uninitialised memory may hold is NaN: answers varied from run to run). The product
    # is kept as it is: without it fast-math contraction rounds the model product
    # otherwise, and T̃ can end in another minimum on a ridge (a T²⁰ curve point moved
    # 0.4 rad).
    unused = vectors[9]
    for k in range(d):
        trial[k] = wrap_angle(start[k])
        unused[k] = 0.0
    current = 0
    damped = False  # a trial was rejected since the last accepted point
    value = math.inf
    curvature = 0.0
    damping = 0.0
    first_gradient_squared = 1.0
    step_squared = math.inf
    first = True
    accepted = 0
    lam = _LAMBDA_START
    while True:
        slot = 1 - current
        trial_value, trial_curvature, trial_weight = _torus_gradient(
            trial, angles_t, targets, scratch[slot], trial_grad, partners[slot])
        if first or trial_value < value:
            decrease = value - trial_value
            current = slot
            for k in range(d):
                x[k] = trial[k]
                grad[k] = trial_grad[k]
            value = trial_value
            curvature = trial_curvature
            damping = trial_weight / d + 1e-300
            if not first:
                accepted, lam, converged = _count_accepted(accepted, lam, decrease, value, tol)
                on_ridge = damped and decrease <= _RIDGE_TOL * value
                if converged or step_squared <= _STEP_TOL**2 or on_ridge:
                    break
            else:
                first_gradient_squared = max(_dot(grad, grad), 1e-300)
            first = False
            damped = False
            if accepted >= max_iter:
                break
        else:
            if _at_rest(step_squared, trial_value - value, _STRESS_ROUNDING * value):
                break  # a step this short changes the stress by rounding only
            damped = True
            # Straight to a damping that changes the step (see _TORUS_REJECTED_LAMBDA).
            lam = max(lam * 10.0, _TORUS_REJECTED_LAMBDA)
        tolerance = min(_CG_TORUS_FAR_TOL, max(
            math.sqrt(_dot(grad, grad) / first_gradient_squared), _CG_NEAR_TOL))
        proposed = False
        while lam < _LAMBDA_MAX:
            solved = _newton_step(grad, unused, scratch[current], partners[current],
                                  curvature, lam * damping, tolerance, partners[2],
                                  cg_vectors, step)
            if solved and _dot(step, grad) < 0.0:
                proposed = True
                break
            lam *= 10.0
        if not proposed:
            break
        step_squared = _dot(step, step)
        for k in range(d):
            trial[k] = wrap_angle(x[k] + step[k])
    return value


@kernel()
def _predict_rows_cg(
    queries: NDArray, angles_t: NDArray, embedding: NDArray, radius: float, starts: NDArray,
    max_iter: int, tol: float, chain: bool, out: NDArray, stress: NDArray, targets: NDArray,
    scratch: NDArray, partners: NDArray, vectors: NDArray,
) -> None:
    """T̃ of each query row into ``out``/``stress`` (as ``_prediction_kernel._predict_rows``)."""
    d = angles_t.shape[0]
    for q in range(queries.shape[0]):
        start = out[q - 1] if chain and q > 0 else starts[q]
        _targets_for(queries[q], embedding, radius, targets)
        stress[q] = _predict_one_cg(angles_t, targets, start, max_iter, tol, scratch,
                                    partners, vectors)
        for k in range(d):
            out[q, k] = vectors[0, k]


def _prediction_work_arrays(n: int, d: int) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """Targets (n,), directions (2, d + 2, n), weights (3, n) and vectors (10, d)."""
    return np.empty(n), np.empty((2, d + 2, n)), np.empty((3, n)), np.empty((10, d))


def predict_torus_cg(
    queries: NDArray, angles: NDArray, embedding: NDArray, radius: float, starts: NDArray,
    max_iter: int, tol: float, *, chain: bool = False,
) -> tuple[NDArray, NDArray]:
    """T̃ (eq. invmds2) for every unit vector in ``queries`` (m, p) from ``starts`` (m, d)
    (with ``chain``, only the first start is used and each later query starts from the
    previous answer, on one thread), as ``_prediction_kernel.predict_torus`` but with
    O(n·d) work per pass."""
    return run_prediction_rows(_predict_rows_cg, _prediction_work_arrays, queries, angles,
                               embedding, radius, starts, max_iter, tol, chain=chain)
