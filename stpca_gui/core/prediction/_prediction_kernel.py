"""Compiled least-squares solvers of the MDS prediction and interpolation problems.

Both problems fit one new point against the n matched pairs (x_i on the torus, ŷ_i on the
sphere) by the stress (1/n) Σ_i (δ_T(x, x_i) − r θ(y, ŷ_i))² (paper, eqs. invmds2 and
interp); they differ in which side is free. Each query is solved by Levenberg–Marquardt:
the Jacobian of a residual is a unit vector (the direction of the geodesic to the partner
point), so the normal matrix is a d×d sum of outer products. Prediction (torus side free)
uses the Gauss–Newton model. Interpolation (sphere side free), which places every
non-landmark point of a landmark fit and so runs up to 10⁶ times, adds the curvature of
the sphere's distance (exact where that keeps the model positive definite), converges
quadratically and spends about four passes over the partners per point (docs/landmarks.md).
Queries are independent; blocks of them run on the kernel threads (:mod:`.parallel`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from .._base.jit import kernel, kernel_array
from .._base.parallel import map_parallel, row_blocks
from ..geometry.angle_math import _ATAN_P, _ATAN_Q, _PI_2, _PI_4, atan2_nonneg, wrap_angle

_TWO_PI = 2.0 * math.pi
_P0, _P1, _P2, _P3, _P4 = _ATAN_P  # the rational atan of atan2_nonneg
_Q0, _Q1, _Q2, _Q3, _Q4 = _ATAN_Q
_LAMBDA_START = 1e-3
_LAMBDA_MAX = 1e12
#: Floating-point freedoms that let the compiler vectorise the sums over the partners
#: (reassociated); on AMD EPYC it vectorises the gradient and outer-product sums but keeps
#: the pass with divisions and square roots scalar. Results stay deterministic for a
#: given machine.
_VECTOR_MATH = {"contract", "arcp", "reassoc"}
#: sin θ below which a partner is treated as coincident (no gradient direction).
_MIN_SIN = 1e-12
#: A Newton step shorter than this (radians) ends the interpolation of a point: the
#: convergence is quadratic, so the next step would be far below rounding of the stress.
_STEP_TOL = 1e-9
#: A Newton step (damping at most _NEWTON_LAMBDA) shorter than this (radians) from an
#: accepted point is the interpolation's last: the error after it is of order its square.
_LAST_STEP = 1e-6
_NEWTON_LAMBDA = 1.5e-6  # 1e-6 after three accepted steps from 1e-3, whatever the rounding
#: Relative change below which a damped step is the one just rejected (see _interpolate_one).
_SAME_STEP_RTOL = 1e-6
#: Relative stress change within which a step no longer than _LAST_STEP is taken even if
#: the stress did not drop: the stress is computed to about 1e-15 of itself, which hides
#: the decrease ½ sᵀ H s of Newton steps below ~2e-8 rad, while the gradient that chose
#: the step is exact to ~1e-16. Rejecting such a step left T̂ up to 2e-8 rad short of
#: the minimiser (measured against an extended-precision reference); taking it ends
#: within ~1e-13.
_STRESS_ROUNDING = 1e-12
#: The exact Hessian is tried only after an accepted step shorter than this (radians):
#: near the minimum, where it converges quadratically; farther out the capped model
#: alone chooses the path, as it always did, so the same minimum is reached.
_EXACT_NEAR = 1e-2


@kernel()
def _sphere_angle(a: NDArray, b: NDArray) -> float:
    dd = 0.0
    ss = 0.0
    for k in range(a.shape[0]):
        dk = a[k] - b[k]
        sk = a[k] + b[k]
        dd += dk * dk
        ss += sk * sk
    return 2.0 * atan2_nonneg(math.sqrt(dd), math.sqrt(ss))


@kernel(fastmath=_VECTOR_MATH)
def _torus_directions(x: NDArray, angles_t: NDArray, targets: NDArray, scratch: NDArray
                      ) -> float:
    """Sum of squared residuals at x, with the unit directions u_i from x_i to x in
    ``scratch[:d]``, the residuals in ``scratch[d]`` and 1 / δ_i in ``scratch[d + 1]``
    (0 where x = x_i).

    ``angles_t`` is (d, n) so that every loop runs over the samples contiguously and
    vectorises; ``scratch`` is (d + 2, n). x must lie in [-π, π), so one ±2π correction
    wraps each difference.
    """
    d, n = angles_t.shape
    residual = scratch[d]
    inverse = scratch[d + 1]
    for i in range(n):
        inverse[i] = 0.0
    for k in range(d):
        xk = x[k]
        row = angles_t[k]
        out = scratch[k]
        for i in range(n):
            w = xk - row[i]
            w = w - _TWO_PI if w >= math.pi else (w + _TWO_PI if w < -math.pi else w)
            out[i] = w
            inverse[i] += w * w
    total = 0.0
    for i in range(n):
        r = math.sqrt(inverse[i])
        res = r - targets[i]
        total += res * res
        residual[i] = res
        inverse[i] = 1.0 / r if r > 0.0 else 0.0
    for k in range(d):
        row = scratch[k]
        for i in range(n):
            row[i] *= inverse[i]
    return total


@kernel(fastmath=_VECTOR_MATH)
def _torus_gradient_pass(x: NDArray, angles_t: NDArray, targets: NDArray, scratch: NDArray,
                         grad: NDArray) -> float:
    """Sum of squared residuals at x, with ``scratch`` filled as by
    :func:`_torus_directions` and the gradient Σ res_i u_i in ``grad`` (d,); the pass both
    T̃ kernels make (this module's Gauss–Newton model and the matrix-free one's)."""
    d, n = angles_t.shape
    total = _torus_directions(x, angles_t, targets, scratch)
    residual = scratch[d]
    for k in range(d):
        row = scratch[k]
        acc = 0.0
        for i in range(n):
            acc += residual[i] * row[i]
        grad[k] = acc
    return total


@kernel(fastmath=_VECTOR_MATH)
def _torus_model(
    x: NDArray, angles_t: NDArray, targets: NDArray, scratch: NDArray,
    grad: NDArray, hess: NDArray,
) -> float:
    """Mean stress at x with its Gauss–Newton model, in one pass over the samples.

    On return ``grad`` = Σ res_i u_i and ``hess`` = Σ u_i u_iᵀ, with u_i the unit direction
    from x_i to x (the residual's gradient; 0 where x = x_i, a valid subgradient); see
    :func:`_torus_directions` for ``scratch`` (d + 2, n).
    """
    d, n = angles_t.shape
    total = _torus_gradient_pass(x, angles_t, targets, scratch, grad)
    for k in range(d):
        row = scratch[k]
        for m in range(k + 1):
            other = scratch[m]
            acc = 0.0
            for i in range(n):
                acc += row[i] * other[i]
            hess[k, m] = acc
            hess[m, k] = acc
    return total / n


@kernel()
def _solve_in_place(system: NDArray, rhs: NDArray) -> bool:
    """Solve the small square system ``system @ x = rhs`` into ``rhs`` (both overwritten).

    Gaussian elimination with partial pivoting, as LAPACK's ``gesv`` does for small
    matrices. Returns False, leaving ``rhs`` undefined, when a pivot is zero (or not
    finite): the callers then treat the step as failed and damp more. Written out rather
    than ``np.linalg.solve`` because numba's LAPACK binding took ~3 s of the first run's
    compile time for systems of at most a few unknowns.
    """
    size = rhs.shape[0]
    for col in range(size):
        pivot = col
        largest = abs(system[col, col])
        for row in range(col + 1, size):
            if abs(system[row, col]) > largest:
                largest = abs(system[row, col])
                pivot = row
        if not largest > 0.0 or not math.isfinite(largest):
            return False
        if pivot != col:
            for k in range(size):
                system[col, k], system[pivot, k] = system[pivot, k], system[col, k]
            rhs[col], rhs[pivot] = rhs[pivot], rhs[col]
        for row in range(col + 1, size):
            factor = system[row, col] / system[col, col]
            for k in range(col + 1, size):
                system[row, k] -= factor * system[col, k]
            rhs[row] -= factor * rhs[col]
    for col in range(size - 1, -1, -1):
        total = rhs[col]
        for k in range(col + 1, size):
            total -= system[col, k] * rhs[k]
        rhs[col] = total / system[col, col]
    return True


@kernel()
def _damped_step(hess: NDArray, grad: NDArray, lam: float, system: NDArray,
                 step: NDArray) -> bool:
    """Levenberg–Marquardt step −(H + λ diag H)⁻¹ g into ``step``; False if singular."""
    d = grad.shape[0]
    for k in range(d):
        for m in range(d):
            system[k, m] = hess[k, m]
        system[k, k] += lam * (hess[k, k] + 1e-12)
        step[k] = -grad[k]
    return _solve_in_place(system, step)


@kernel()
def _count_accepted(accepted: int, lam: float, decrease: float, value: float, tol: float
                    ) -> tuple[int, float, bool]:
    """Levenberg–Marquardt's bookkeeping after an accepted trial (not the start), the same
    in every kernel here and in :mod:`._matrix_free_kernel`: one more accepted step, a
    tenth of the damping (at least 1e-9), and whether the stress fell by at most ``tol``
    of itself (converged)."""
    return accepted + 1, max(lam * 0.1, 1e-9), decrease <= tol * max(value, 1e-300)


@kernel()
def _after_accepted(first: bool, accepted: int, lam: float, decrease: float, value: float,
                    tol: float, step_squared: float, max_iter: int) -> tuple[int, float, bool]:
    """T̂'s bookkeeping at an accepted point: :func:`_count_accepted` (the start is no
    step), and whether the iteration ends there (converged, reached by a step shorter than
    _STEP_TOL, or max_iter steps taken). Returns (accepted, damping, stop)."""
    if not first:
        accepted, lam, converged = _count_accepted(accepted, lam, decrease, value, tol)
        if converged or step_squared <= _STEP_TOL**2:
            return accepted, lam, True
    return accepted, lam, accepted >= max_iter


@kernel()
def _accepts(first: bool, trial_value: float, value: float, step_squared: float) -> bool:
    """Whether T̂'s kernels (dense and matrix-free) take a trial: the start, a lower
    stress, or a step no longer than :data:`_LAST_STEP` whose stress rose by rounding only
    (:data:`_STRESS_ROUNDING`)."""
    return first or trial_value < value or (
        step_squared <= _LAST_STEP**2 and trial_value - value <= _STRESS_ROUNDING * value)


@kernel()
def _at_rest(step_squared: float, rise: float, allowed: float) -> bool:
    """Whether a rejected trial ends the iteration: its step was no longer than
    :data:`_LAST_STEP` and the stress rose by at most ``allowed``."""
    return step_squared <= _LAST_STEP**2 and rise <= allowed


@kernel()
def _remember_rejected(step: NDArray, rejected_step: NDArray) -> float:
    """Copy a rejected ``step`` into ``rejected_step``; returns its squared length."""
    squared = 0.0
    for a in range(step.shape[0]):
        rejected_step[a] = step[a]
        squared += step[a] * step[a]
    return squared


@kernel()
def _new_trial(step: NDArray, rejected_step: NDArray, rejected: bool, step_squared: float
               ) -> bool:
    """Whether a damped ``step`` leads to a point not yet evaluated: after a rejection, a
    step within :data:`_SAME_STEP_RTOL` of the rejected one (``step_squared`` its squared
    length) is the same trial."""
    if not rejected:
        return True
    change = 0.0
    for a in range(step.shape[0]):
        change += (step[a] - rejected_step[a]) ** 2
    return change > _SAME_STEP_RTOL**2 * step_squared


@kernel()
def _predict_one(
    angles_t: NDArray, targets: NDArray, start: NDArray, max_iter: int, tol: float,
    scratch: NDArray, vectors: NDArray, matrices: NDArray,
) -> float:
    # Levenberg–Marquardt with one evaluation site of the model: the first point and every
    # trial go through the same call, so the compiler optimises _torus_model's vectorised
    # loops once here rather than once per call site. The answer goes to vectors[0];
    # ``vectors`` (5, d) and ``matrices`` (3, d, d) are work arrays (the kernels allocate
    # nothing, which spares the first run compiling numba's array constructors).
    d = angles_t.shape[0]
    x, grad, trial, trial_grad, step = vectors[0], vectors[1], vectors[2], vectors[3], vectors[4]
    hess, trial_hess, system = matrices[0], matrices[1], matrices[2]
    for k in range(d):
        trial[k] = wrap_angle(start[k])
    value = math.inf
    first = True
    accepted = 0
    lam = _LAMBDA_START
    while True:
        trial_value = _torus_model(trial, angles_t, targets, scratch, trial_grad, trial_hess)
        if first or trial_value < value:
            decrease = value - trial_value
            for k in range(d):
                x[k] = trial[k]
                grad[k] = trial_grad[k]
                for m in range(d):
                    hess[k, m] = trial_hess[k, m]
            value = trial_value
            if not first:
                accepted, lam, converged = _count_accepted(accepted, lam, decrease, value, tol)
                if converged:
                    break
            first = False
            if accepted >= max_iter:
                break
        else:
            lam *= 10.0
        proposed = False
        while lam < _LAMBDA_MAX:
            if _damped_step(hess, grad, lam, system, step):
                proposed = True
                break
            lam *= 10.0
        if not proposed:
            break
        for k in range(d):
            trial[k] = wrap_angle(x[k] + step[k])
    return value


@kernel()
def _targets_for(query: NDArray, embedding: NDArray, radius: float, out: NDArray) -> None:
    for i in range(embedding.shape[0]):
        out[i] = radius * _sphere_angle(query, embedding[i])


@kernel()
def _predict_rows(
    queries: NDArray, angles_t: NDArray, embedding: NDArray, radius: float, starts: NDArray,
    max_iter: int, tol: float, chain: bool, out: NDArray, stress: NDArray, targets: NDArray,
    scratch: NDArray, vectors: NDArray, matrices: NDArray,
) -> None:
    """T̃ of each query row into ``out``/``stress``; with ``chain`` each query after the
    first starts from the previous answer instead of its own row of ``starts``. The rest
    are work arrays (see :func:`_work_arrays`)."""
    d = angles_t.shape[0]
    for q in range(queries.shape[0]):
        start = out[q - 1] if chain and q > 0 else starts[q]
        _targets_for(queries[q], embedding, radius, targets)
        stress[q] = _predict_one(angles_t, targets, start, max_iter, tol, scratch, vectors,
                                 matrices)
        for k in range(d):
            out[q, k] = vectors[0, k]


def _work_arrays(n: int, d: int) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """Targets (n,), model scratch (d + 2, n), vectors (5, d) and matrices (3, d, d)."""
    return np.empty(n), np.empty((d + 2, n)), np.empty((5, d)), np.empty((3, d, d))


def predict_torus(
    queries: NDArray,
    angles: NDArray,
    embedding: NDArray,
    radius: float,
    starts: NDArray,
    max_iter: int,
    tol: float,
) -> tuple[NDArray, NDArray]:
    """T̃ (eq. invmds2) for every unit vector in ``queries`` (m, p), from given starts (m, d).

    Blocks of queries run on the kernel threads. Returns the predicted angles (m, d),
    wrapped, and the attained stress per query.
    """
    return run_prediction_rows(_predict_rows, _work_arrays, queries, angles, embedding,
                               radius, starts, max_iter, tol, chain=False)


def predict_torus_chain(
    queries: NDArray,
    angles: NDArray,
    embedding: NDArray,
    radius: float,
    first_start: NDArray,
    max_iter: int,
    tol: float,
) -> tuple[NDArray, NDArray]:
    """T̃ along an ordered chain of queries, each warm-started from the previous answer.

    This is how the paper traces the principal curve: continuity of the starts keeps the
    predictions on one branch of the (set-valued) prediction map.
    """
    first = np.reshape(first_start, (1, angles.shape[1]))
    return run_prediction_rows(_predict_rows, _work_arrays, queries, angles, embedding,
                               radius, first, max_iter, tol, chain=True)


def run_prediction_rows(
    rows_kernel: Callable[..., None], work_arrays: Callable[[int, int], tuple[NDArray, ...]],
    queries: NDArray, angles: NDArray, embedding: NDArray, radius: float, starts: NDArray,
    max_iter: int, tol: float, *, chain: bool,
) -> tuple[NDArray, NDArray]:
    """Run a T̃ rows kernel (this module's ``_predict_rows`` or the matrix-free one) over
    ``queries``: blocks of rows on the kernel threads, or with ``chain`` all of them in
    order on one thread, each query after the first started from the previous answer
    (only ``starts[0]`` is used). ``work_arrays(n, d)`` makes the kernel's work arrays."""
    queries, embedding, starts = (kernel_array(a) for a in (queries, embedding, starts))
    m = queries.shape[0]
    n, d = angles.shape
    angles_t = kernel_array(angles.T)
    out = np.empty((m, d))
    stress = np.empty(m)

    def run(block: tuple[int, int]) -> None:
        lo, hi = block
        rows_kernel(queries[lo:hi], angles_t, embedding, radius, starts[lo:hi], max_iter,
                    tol, chain, out[lo:hi], stress[lo:hi], *work_arrays(n, d))

    map_parallel(run, [(0, m)] if chain and m else row_blocks(m))
    return out, stress


#: Partners handled per sweep of :func:`_sphere_model`: its work rows (a few KB each) and
#: the block of the partners' columns stay in the L1 cache through all of its loops.
_BLOCK = 256


@kernel(fastmath=_VECTOR_MATH)
def _partner_block(
    y: NDArray, embedding_t: NDArray, j0: int, size: int, radius: float, targets: NDArray,
    work: NDArray,
) -> tuple[float, float, float, float, float]:
    """The per-partner terms of the stress at the unit vector ``y`` for the partners
    ``j0 … j0 + size − 1`` (one block): fills ``work[0:4, :size]`` with cos θ_i, the gradient
    scale s_i, the weight w_i and the cap's weight shift (see :func:`_sphere_model`, the
    terms' definitions), and returns the block's (Σ res_i², Σ c_i, Σ cap shifts, number of
    capped partners, Σ r² over partners with a direction)."""
    p = embedding_t.shape[0]
    cosine = work[0]
    y0 = y[0]
    first_row = embedding_t[0, j0:j0 + size]
    for i in range(size):
        cosine[i] = y0 * first_row[i]
    for k in range(1, p):
        yk = y[k]
        row = embedding_t[k, j0:j0 + size]
        for i in range(size):
            cosine[i] += yk * row[i]
    return partner_terms(cosine[:size], targets[j0:j0 + size], radius, work[1], work[2],
                         work[3])


@kernel(fastmath=_VECTOR_MATH)
def partner_terms(
    cosine: NDArray, targets: NDArray, radius: float, scale: NDArray, weight: NDArray,
    weight_shift: NDArray,
) -> tuple[float, float, float, float, float]:
    """The per-partner terms of T̂'s stress from the cosines cos θ_i = y · ŷ_i of the
    partners ``0 … len(cosine) − 1`` (distances ``targets``): fills ``scale``, ``weight``
    and ``weight_shift`` with the gradient scale s_i, the weight w_i and the cap's weight
    shift (see :func:`_sphere_model`) and returns (Σ res_i², Σ c_i, Σ cap shifts, number
    of capped partners, Σ r² over partners with a direction). Shared by the per-point
    kernels and the block placing of :mod:`._block_placing`."""
    size = cosine.shape[0]
    r2 = radius * radius
    total = 0.0
    curvature = 0.0
    gauss_newton = 0.0
    cap_shift = 0.0
    capped = 0.0
    block_targets = targets
    for i in range(size):
        c = min(max(cosine[i], -1.0), 1.0)
        abs_c = abs(c)
        sin_t = math.sqrt(max(1.0 - c * c, 0.0))
        # atan2(sin_t, |c|) as in atan2_nonneg, with x = numer / denom kept as a ratio.
        hi = max(sin_t, abs_c)
        lo = min(sin_t, abs_c)
        reduced = lo > 0.66 * hi
        numer = lo - hi if reduced else lo
        denom = lo + hi if reduced else hi
        u = numer * numer
        v = denom * denom
        v2 = v * v
        v3 = v2 * v
        v4 = v2 * v2
        ph = (((_P0 * u + _P1 * v) * u + _P2 * v2) * u + _P3 * v3) * u + _P4 * v4
        qh = ((((u + _Q0 * v) * u + _Q1 * v2) * u + _Q2 * v3) * u + _Q3 * v4) * u \
            + _Q4 * v4 * v
        safe_sin = max(sin_t, _MIN_SIN)
        common = denom * qh
        inverse = 1.0 / (common * safe_sin)
        small = numer * (qh + u * ph) * safe_sin * inverse
        angle = (_PI_4 if reduced else 0.0) + small
        angle = _PI_2 - angle if sin_t > abs_c else angle
        theta = math.pi - angle if c < 0.0 else angle
        res = radius * theta - block_targets[i]
        total += res * res
        valid = 1.0 if sin_t > _MIN_SIN else 0.0
        inv_sin = valid * common * inverse
        exact = valid * res * radius * c * inv_sin
        curv = max(exact, -r2 * valid)  # near partners: capped
        shift = curv - exact
        curvature += curv
        cap_shift += shift
        capped += 1.0 if shift > 0.0 else 0.0
        gauss_newton += valid * r2
        scale[i] = -radius * res * inv_sin
        weight[i] = (r2 - curv) * inv_sin * inv_sin
        weight_shift[i] = shift * inv_sin * inv_sin
    return total, curvature, cap_shift, capped, gauss_newton


@kernel(fastmath=_VECTOR_MATH)
def _sphere_model(
    y: NDArray, embedding_t: NDArray, radius: float, targets: NDArray, grad: NDArray,
    outer: NDArray, correction: NDArray, work: NDArray,
) -> tuple[float, float, float, float]:
    """Stress of the unit vector ``y`` and its Newton model, in one sweep over the partners
    block by block, each step a plain loop over a contiguous block that the compiler
    vectorises (with no branch, and one division and one square root per partner).

    ``embedding_t`` holds the partners ŷ_i as columns (p, m). With θ_i the angle between
    y and ŷ_i, g_i the unit tangent at y pointing away from ŷ_i (the gradient of θ_i),
    res_i = r θ_i − t_i and c_i = res_i r cot θ_i capped below at −r² (c_i = ĉ_i + s_i
    with ĉ_i the uncapped value and s_i ≥ 0 the cap's shift), fills ``grad`` with E s and
    the lower triangles of ``outer`` with E diag(w) Eᵀ and of ``correction`` with
    E diag(s_i / sin² θ_i) Eᵀ (E = ``embedding_t``, s_i = −r res_i / sin θ_i,
    w_i = (r² − c_i) / sin² θ_i), and returns (mean stress, Σ c_i, Σ s_i, Σ r²).
    Restricted to the tangent space at y (which removes the y-components of
    ŷ_i − cos θ_i y), these are the gradient Σ res_i r g_i and the Gauss–Newton term
    Σ (r² − c_i) g_i g_iᵀ; the Riemannian Hessian of ½ Σ res_i² adds (Σ c_i) I, the
    curvature of the geodesic distance, cot θ (I − g gᵀ). With the uncapped ĉ_i
    (``outer`` + ``correction`` and Σ c_i − Σ s_i) this is the exact Hessian, which makes
    Newton's method converge quadratically; the cap keeps the model positive definite
    near partners that y is close to, where the exact one is not (far from a minimum).

    ``work`` is (p + 4, :data:`_BLOCK`). θ comes from cos θ = y·ŷ_i and
    sin θ = √(1 − cos² θ), accurate to 1e-16 / θ (1e-12 at θ = 1e-4); partners closer than
    that have no trustworthy direction and no gradient. The angle is the rational atan of
    :func:`..geometry.angle_math.atan2_nonneg` written over one common denominator, which is also
    that of 1 / sin θ: sin θ and cos θ have the larger of the two at least 1/√2, so the
    homogeneous polynomials in the numerator and the denominator of the ratio stay within
    [2⁻⁵, 2⁵] of their values at 1 and the one division serves both.
    """
    p, m = embedding_t.shape
    scale, weight, weight_shift = work[1], work[2], work[3]
    total = curvature = gauss_newton = cap_shift = 0.0
    for k in range(p):
        grad[k] = 0.0
        for j in range(k + 1):
            outer[k, j] = 0.0
            correction[k, j] = 0.0
    for j0 in range(0, m, _BLOCK):
        size = min(_BLOCK, m - j0)
        b_total, b_curvature, b_shift, b_capped, b_gn = _partner_block(
            y, embedding_t, j0, size, radius, targets, work)
        total += b_total
        curvature += b_curvature
        cap_shift += b_shift
        gauss_newton += b_gn
        for k in range(p):
            row = embedding_t[k, j0:j0 + size]
            weighted = work[4 + k]
            acc = 0.0
            for i in range(size):
                acc += scale[i] * row[i]
                weighted[i] = weight[i] * row[i]
            grad[k] += acc
            for j in range(k + 1):
                other = embedding_t[j, j0:j0 + size]
                acc = 0.0
                for i in range(size):
                    acc += weighted[i] * other[i]
                outer[k, j] += acc
        if b_capped > 0.0:  # few partners, near y: a scalar loop over the block finds them
            for i in range(size):
                if weight_shift[i] != 0.0:
                    for k in range(p):
                        wk = weight_shift[i] * embedding_t[k, j0 + i]
                        for j in range(k + 1):
                            correction[k, j] += wk * embedding_t[j, j0 + i]
    return total / m, curvature, cap_shift, gauss_newton


@kernel()
def _tangent_basis(y: NDArray, basis: NDArray) -> None:
    """Columns orthonormal to the unit vector ``y`` (p,) into ``basis`` (p, p − 1): columns
    1 … p − 1 of the Householder reflection that maps e₀ to ∓y."""
    p = y.shape[0]
    v0 = y[0] - 1.0 if y[0] < 0 else y[0] + 1.0
    vv = v0 * v0
    for i in range(1, p):
        vv += y[i] * y[i]
    scale = 2.0 / vv if vv > 0.0 else 0.0
    for i in range(p):
        vi = v0 if i == 0 else y[i]
        for j in range(1, p):
            basis[i, j - 1] = (1.0 if i == j else 0.0) - scale * vi * y[j]


@kernel()
def _product_into(left: NDArray, right: NDArray, out: NDArray) -> None:
    """``out`` = ``left`` ``right``, each entry summed in the order of the inner index."""
    rows, inner = left.shape
    for a in range(rows):
        for b in range(right.shape[1]):
            acc = 0.0
            for i in range(inner):
                acc += left[a, i] * right[i, b]
            out[a, b] = acc


@kernel()
def _project(matrix: NDArray, basis: NDArray, work: NDArray, out: NDArray) -> None:
    """``out`` = basisᵀ ``matrix`` basis for a symmetric (p, p) matrix and a (p, q) basis;
    ``work`` is (p, q)."""
    _product_into(matrix, basis, work)
    _product_into(basis.T, work, out)


@kernel()
def _positive_definite(matrix: NDArray, work: NDArray) -> bool:
    """Whether the symmetric ``matrix`` is positive definite (its Cholesky factorisation,
    into ``work``, has positive pivots)."""
    size = matrix.shape[0]
    for col in range(size):
        total = matrix[col, col]
        for k in range(col):
            total -= work[col, k] * work[col, k]
        if not total > 0.0:
            return False
        work[col, col] = math.sqrt(total)
        for row in range(col + 1, size):
            acc = matrix[row, col]
            for k in range(col):
                acc -= work[row, k] * work[col, k]
            work[row, col] = acc / work[col, col]
    return True


@kernel()
def _unit_vector_into(start: NDArray, out: NDArray) -> None:
    """``start`` / |``start``| into ``out``: where both T̂ kernels start."""
    norm = 0.0
    for k in range(start.shape[0]):
        norm += start[k] * start[k]
    norm = math.sqrt(norm)
    for k in range(start.shape[0]):
        out[k] = start[k] / norm


@kernel()
def _interpolate_one(
    embedding_t: NDArray, radius: float, targets: NDArray, start: NDArray, max_iter: int,
    tol: float, work: NDArray, vectors: NDArray, squares: NDArray, bases: NDArray,
    reduced: NDArray, systems: NDArray,
) -> float:
    # Damped Newton in an orthonormal basis of the tangent space at the current point,
    # followed by the retraction y <- (y + step) / |y + step| (second order, so Newton's
    # quadratic convergence is kept). A trial point's model is computed in the same pass
    # as its stress and reused when the step is accepted; the start and every trial go
    # through one call of _sphere_model (compiled once here, not once per call site). The
    # small matrix products are written out (p ≤ a few dozen), as numba's BLAS bindings
    # cost seconds to compile. The answer goes to vectors[0]; the other arguments after
    # ``tol`` are work arrays (see _interpolation_work_arrays).
    #
    # Two rules spare passes over the partners without changing where the iteration goes:
    # a damped step that differs from the step just rejected by less than
    # _SAME_STEP_RTOL is the same trial and is not evaluated again (damping grows
    # tenfold per rejection from as little as 1e-9, which took up to eight identical
    # rejected passes), and a Newton step shorter than _LAST_STEP from an accepted point
    # is taken without evaluating the point it leads to (quadratic convergence leaves it
    # within ~_LAST_STEP² of the minimum; the stress there is the model's).
    p = embedding_t.shape[0]
    q = p - 1
    y, grad, trial, trial_grad = vectors[0], vectors[1], vectors[2], vectors[3]
    outer, trial_outer, correction, trial_correction = (
        squares[0], squares[1], squares[2], squares[3])
    tangent, projected = bases[0], bases[1]
    g, step, rejected_step = reduced[0], reduced[1], reduced[2]
    hess, system, exact_hess = systems[0], systems[1], systems[2]
    _unit_vector_into(start, trial)
    value = math.inf
    curvature = 0.0
    cap_shift = 0.0
    damping = 0.0
    step_squared = math.inf  # of the step that led to the current point (none to the start)
    first = True
    accepted = 0
    rejected = False
    lam = _LAMBDA_START
    while True:
        trial_value, trial_curvature, trial_shift, trial_gn = _sphere_model(
            trial, embedding_t, radius, targets, trial_grad, trial_outer, trial_correction,
            work)
        if _accepts(first, trial_value, value, step_squared):
            decrease = value - trial_value
            for k in range(p):
                y[k] = trial[k]
                grad[k] = trial_grad[k]
                for j in range(k + 1):
                    outer[k, j] = trial_outer[k, j]
                    outer[j, k] = trial_outer[k, j]
                    correction[k, j] = trial_correction[k, j]
                    correction[j, k] = trial_correction[k, j]
            value = trial_value
            curvature = trial_curvature
            cap_shift = trial_shift
            rejected = False
            accepted, lam, stop = _after_accepted(first, accepted, lam, decrease, value, tol,
                                                  step_squared, max_iter)
            first = False
            if stop:
                break
            # The model in the tangent basis T at y: g = Tᵀ grad, H = Tᵀ outer T + (Σ c_i) I,
            # the Hessian itself where it is positive definite (so that Newton's method
            # converges quadratically near the minimum), else with the c_i of partners
            # close to y capped at −r² (far from the minimum; the old kernel's only model).
            _tangent_basis(y, tangent)
            for a in range(q):
                acc = 0.0
                for i in range(p):
                    acc += tangent[i, a] * grad[i]
                g[a] = acc
            _project(outer, tangent, projected, hess)
            for a in range(q):
                hess[a, a] += curvature
            if cap_shift > 0.0 and step_squared <= _EXACT_NEAR**2:
                _project(correction, tangent, projected, exact_hess)
                for a in range(q):
                    for b in range(q):
                        exact_hess[a, b] += hess[a, b]
                    exact_hess[a, a] -= cap_shift
                if _positive_definite(exact_hess, system):
                    for a in range(q):
                        for b in range(q):
                            hess[a, b] = exact_hess[a, b]
            damping = trial_gn / q + 1e-300
        else:
            if _at_rest(step_squared, trial_value - value, tol * max(value, 1e-300)):
                break  # a step this short no longer changes the stress beyond tol
            rejected = True
            step_squared = _remember_rejected(step, rejected_step)
            lam *= 10.0
        proposed = False
        while lam < _LAMBDA_MAX:
            for a in range(q):
                for b in range(q):
                    system[a, b] = hess[a, b]
                system[a, a] += lam * damping
                step[a] = -g[a]
            descent = 0.0
            if _solve_in_place(system, step):
                for a in range(q):
                    descent += step[a] * g[a]
            # A descent direction (the Hessian may be indefinite) to a point not yet tried.
            if descent < 0.0 and _new_trial(step, rejected_step, rejected, step_squared):
                proposed = True
                break
            lam *= 10.0
        if not proposed:
            break
        step_squared = 0.0
        norm = 0.0
        for i in range(p):
            acc = y[i]
            for a in range(q):
                acc += tangent[i, a] * step[a]
            trial[i] = acc
            norm += acc * acc
        for a in range(q):
            step_squared += step[a] * step[a]
        norm = math.sqrt(norm)
        for i in range(p):
            trial[i] /= norm
        if not rejected and lam <= _NEWTON_LAMBDA and step_squared <= _LAST_STEP**2:
            # ½ Σ res² changes by g·s + ½ sᵀ H s in the model; the mean stress by 2/m that.
            change = 0.0
            for a in range(q):
                acc = 0.0
                for b in range(q):
                    acc += hess[a, b] * step[b]
                change += step[a] * (g[a] + 0.5 * acc)
            for k in range(p):
                y[k] = trial[k]
            return max(value + 2.0 * change / targets.shape[0], 0.0)
    return value


@kernel(fastmath=_VECTOR_MATH)
def _torus_targets(query: NDArray, angles_t: NDArray, out: NDArray) -> int:
    """Torus distances from one wrapped point to every column of ``angles_t`` (d, n);
    returns the column nearest to it (the first of equals)."""
    d, n = angles_t.shape
    for i in range(n):
        out[i] = 0.0
    for k in range(d):
        a = query[k]
        row = angles_t[k]
        for i in range(n):
            diff = abs(a - row[i])
            diff = min(diff, _TWO_PI - diff)
            out[i] += diff * diff
    nearest = 0
    for i in range(1, n):
        if out[i] < out[nearest]:
            nearest = i
    for i in range(n):
        out[i] = math.sqrt(out[i])
    return nearest


@kernel()
def _interpolate_rows(
    queries: NDArray, angles_t: NDArray, embedding_t: NDArray, radius: float,
    max_iter: int, tol: float, out: NDArray, stress: NDArray, targets: NDArray,
    work: NDArray, vectors: NDArray, squares: NDArray, bases: NDArray, reduced: NDArray,
    systems: NDArray,
) -> None:
    """T̂ of each query row (wrapped angles) into ``out``/``stress``, each started at ŷ of
    the nearest partner (as the paper recommends)."""
    p = embedding_t.shape[0]
    start = vectors[4]
    for q in range(queries.shape[0]):
        nearest = _torus_targets(queries[q], angles_t, targets)
        for k in range(p):
            start[k] = embedding_t[k, nearest]
        stress[q] = _interpolate_one(embedding_t, radius, targets, start, max_iter, tol,
                                     work, vectors, squares, bases, reduced, systems)
        for k in range(p):
            out[q, k] = vectors[0, k]


def _interpolation_work_arrays(n: int, p: int) -> tuple[NDArray, ...]:
    """Work arrays of :func:`_interpolate_rows` for n partners on S^(p − 1)."""
    q = p - 1
    return (np.empty(n), np.empty((p + 4, _BLOCK)), np.empty((5, p)), np.empty((4, p, p)),
            np.empty((2, p, q)), np.empty((3, q)), np.empty((3, q, q)))


def interpolate_sphere(
    queries: NDArray,
    angles: NDArray,
    embedding: NDArray,
    radius: float,
    max_iter: int,
    tol: float,
) -> tuple[NDArray, NDArray]:
    """T̂ (eq. interp) for every wrapped torus point in ``queries`` (m, d), each started at
    the unit vector matched to the nearest sample.

    Blocks of queries run on the kernel threads.
    """
    queries = kernel_array(queries)
    m = queries.shape[0]
    # Partners as columns: every pass over them is then a loop over contiguous memory.
    angles_t = kernel_array(angles.T)
    embedding_t = kernel_array(embedding.T)
    out = np.empty((m, embedding.shape[1]))
    stress = np.empty(m)

    def run(block: tuple[int, int]) -> None:
        lo, hi = block
        _interpolate_rows(queries[lo:hi], angles_t, embedding_t, radius, max_iter, tol,
                          out[lo:hi], stress[lo:hi],
                          *_interpolation_work_arrays(angles.shape[0], embedding.shape[1]))

    map_parallel(run, row_blocks(m))
    return out, stress
