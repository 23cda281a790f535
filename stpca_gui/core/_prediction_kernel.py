"""Compiled least-squares solvers of the MDS prediction and interpolation problems.

Both problems fit one new point against the n matched pairs (x_i on the torus, ŷ_i on the
sphere) by the stress (1/n) Σ_i (δ_T(x, x_i) − r θ(y, ŷ_i))² (paper, eqs. invmds2 and
interp); they differ in which side is free. Each query is solved by Levenberg–Marquardt:
the Jacobian of a residual is a unit vector (the direction of the geodesic to the partner
point), so the normal matrix is a d×d sum of outer products. Prediction (torus side free)
uses the Gauss–Newton model. Interpolation (sphere side free), which places every
non-landmark point of a landmark fit and so runs up to 10⁶ times, adds the curvature of
the sphere's distance and converges quadratically: four to five passes over the partners
per point instead of fifteen to thirty.
Queries are independent and solved in parallel.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numpy.typing import NDArray

from ._smds_kernel import atan2_nonneg
from ._torus_kernel import wrap_angle

_TWO_PI = 2.0 * math.pi
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


@numba.njit(cache=True, nogil=True)
def _sphere_angle(a: NDArray, b: NDArray) -> float:
    dd = 0.0
    ss = 0.0
    for k in range(a.shape[0]):
        dk = a[k] - b[k]
        sk = a[k] + b[k]
        dd += dk * dk
        ss += sk * sk
    return 2.0 * atan2_nonneg(math.sqrt(dd), math.sqrt(ss))


@numba.njit(cache=True, nogil=True, fastmath={"contract", "arcp", "reassoc"})
def _torus_model(
    x: NDArray, angles_t: NDArray, targets: NDArray, scratch: NDArray,
    grad: NDArray, hess: NDArray,
) -> float:
    """Mean stress at x with its Gauss–Newton model, in one pass over the samples.

    ``angles_t`` is (d, n) so that every loop runs over the samples contiguously and
    vectorises; ``scratch`` is (d + 2, n). On return ``grad`` = Σ res_i u_i and
    ``hess`` = Σ u_i u_iᵀ, with u_i the unit direction from x_i to x (the residual's
    gradient; 0 where x = x_i, a valid subgradient). x must lie in [-π, π), so one ±2π
    correction wraps each difference.
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
        acc = 0.0
        for i in range(n):
            row[i] *= inverse[i]
            acc += residual[i] * row[i]
        grad[k] = acc
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


@numba.njit(cache=True, nogil=True)
def _solve_damped(hess: NDArray, grad: NDArray, lam: float) -> NDArray:
    d = grad.shape[0]
    system = hess.copy()
    for k in range(d):
        system[k, k] += lam * (hess[k, k] + 1e-12)
    return -np.linalg.solve(system, grad)


@numba.njit(cache=True, nogil=True)
def _predict_one(
    angles_t: NDArray, targets: NDArray, start: NDArray, max_iter: int, tol: float,
    scratch: NDArray,
) -> tuple[NDArray, float]:
    d = angles_t.shape[0]
    x = np.empty(d)
    for k in range(d):
        x[k] = wrap_angle(start[k])
    grad = np.empty(d)
    hess = np.empty((d, d))
    value = _torus_model(x, angles_t, targets, scratch, grad, hess)
    trial = np.empty(d)
    trial_grad = np.empty(d)
    trial_hess = np.empty((d, d))
    lam = _LAMBDA_START
    for _ in range(max_iter):
        improved = False
        trial_value = value
        while lam < _LAMBDA_MAX:
            step = _solve_damped(hess, grad, lam)
            for k in range(d):
                trial[k] = wrap_angle(x[k] + step[k])
            trial_value = _torus_model(trial, angles_t, targets, scratch, trial_grad,
                                       trial_hess)
            if trial_value < value:
                improved = True
                break
            lam *= 10.0
        if not improved:
            break
        decrease = value - trial_value
        x[:] = trial
        grad[:] = trial_grad
        hess[:, :] = trial_hess
        value = trial_value
        lam = max(lam * 0.1, 1e-9)
        if decrease <= tol * max(value, 1e-300):
            break
    return x, value


@numba.njit(cache=True, nogil=True)
def _targets_for(query: NDArray, embedding: NDArray, radius: float, out: NDArray) -> None:
    for i in range(embedding.shape[0]):
        out[i] = radius * _sphere_angle(query, embedding[i])


@numba.njit(cache=True, nogil=True, parallel=True)
def predict_torus(
    queries: NDArray,
    angles: NDArray,
    embedding: NDArray,
    radius: float,
    starts: NDArray,
    max_iter: int,
    tol: float,
    n_chunks: int,
) -> tuple[NDArray, NDArray]:
    """T̃ (eq. invmds2) for every unit vector in ``queries`` (m, p), from given starts (m, d).

    Queries are dealt round-robin to ``n_chunks`` parallel work chunks. Returns the
    predicted angles (m, d), wrapped, and the attained stress per query.
    """
    m = queries.shape[0]
    n, d = angles.shape
    angles_t = np.ascontiguousarray(angles.T)
    out = np.empty((m, d))
    stress = np.empty(m)
    n_chunks = max(1, min(m, n_chunks))
    for c in numba.prange(n_chunks):
        targets = np.empty(n)
        scratch = np.empty((d + 2, n))
        for q in range(c, m, n_chunks):
            _targets_for(queries[q], embedding, radius, targets)
            x, value = _predict_one(angles_t, targets, starts[q], max_iter, tol, scratch)
            out[q] = x
            stress[q] = value
    return out, stress


@numba.njit(cache=True, nogil=True)
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
    m = queries.shape[0]
    n, d = angles.shape
    angles_t = np.ascontiguousarray(angles.T)
    out = np.empty((m, d))
    stress = np.empty(m)
    start = first_start.copy()
    targets = np.empty(n)
    scratch = np.empty((d + 2, n))
    for q in range(m):
        _targets_for(queries[q], embedding, radius, targets)
        x, value = _predict_one(angles_t, targets, start, max_iter, tol, scratch)
        out[q] = x
        stress[q] = value
        start = x
    return out, stress


@numba.njit(cache=True, nogil=True, fastmath=_VECTOR_MATH)
def _sphere_model(
    y: NDArray, embedding_t: NDArray, radius: float, targets: NDArray, grad: NDArray,
    outer: NDArray, cosine: NDArray, scale: NDArray, weight: NDArray,
) -> tuple[float, float, float]:
    """Stress of the unit vector ``y`` and its Newton model, in a few passes over the
    partners, each a plain loop over a contiguous array that the compiler vectorises.

    ``embedding_t`` holds the partners ŷ_i as columns (p, m). With θ_i the angle between
    y and ŷ_i, g_i the unit tangent at y pointing away from ŷ_i (the gradient of θ_i),
    res_i = r θ_i − t_i and c_i = res_i r cot θ_i, fills ``grad`` with E s and ``outer``
    with E diag(w) Eᵀ (E = ``embedding_t``, s_i = −r res_i / sin θ_i,
    w_i = (r² − c_i) / sin² θ_i) and returns (mean stress, Σ c_i, Σ r²). Restricted to
    the tangent space at y (which removes the y-components of ŷ_i − cos θ_i y), these are
    the gradient Σ res_i r g_i and the Gauss–Newton term Σ (r² − c_i) g_i g_iᵀ; the
    Riemannian Hessian of ½ Σ res_i² adds (Σ c_i) I, the curvature of the geodesic
    distance, cot θ (I − g gᵀ), which makes Newton's method converge quadratically even
    where the residuals are large.

    ``cosine``, ``scale`` and ``weight`` are work arrays of length m. θ comes from
    cos θ = y·ŷ_i and sin θ = √(1 − cos² θ), accurate to 1e-16 / θ (1e-12 at θ = 1e-4);
    partners closer than that have no trustworthy direction and no gradient.
    """
    p, m = embedding_t.shape
    for i in range(m):
        cosine[i] = 0.0
    for k in range(p):
        yk = y[k]
        row = embedding_t[k]
        for i in range(m):
            cosine[i] += yk * row[i]
    r2 = radius * radius
    total = 0.0
    curvature = 0.0
    gauss_newton = 0.0
    for i in range(m):
        c = min(max(cosine[i], -1.0), 1.0)
        sin_t = math.sqrt(max(1.0 - c * c, 0.0))
        angle = atan2_nonneg(sin_t, abs(c))
        theta = math.pi - angle if c < 0.0 else angle
        res = radius * theta - targets[i]
        total += res * res
        valid = 1.0 if sin_t > _MIN_SIN else 0.0
        inv_sin = valid / max(sin_t, _MIN_SIN)
        curv = valid * max(res * radius * c * inv_sin, -r2)  # coincident partners: capped
        curvature += curv
        gauss_newton += valid * r2
        scale[i] = -radius * res * inv_sin
        weight[i] = (r2 - curv) * inv_sin * inv_sin
    for k in range(p):
        row = embedding_t[k]
        acc = 0.0
        for i in range(m):
            acc += scale[i] * row[i]
        grad[k] = acc
        for j in range(k + 1):
            other = embedding_t[j]
            acc = 0.0
            for i in range(m):
                acc += weight[i] * row[i] * other[i]
            outer[k, j] = acc
    return total / m, curvature, gauss_newton


@numba.njit(cache=True, nogil=True)
def _tangent_basis(y: NDArray) -> NDArray:
    """Columns orthonormal to the unit vector ``y`` (a Householder completion)."""
    p = y.shape[0]
    basis = np.eye(p)
    v = y.copy()
    v[0] -= 1.0 if y[0] < 0 else -1.0
    vv = np.sum(v * v)
    if vv > 0.0:
        basis = basis - 2.0 * np.outer(v, v) / vv
    return np.ascontiguousarray(basis[:, 1:])


@numba.njit(cache=True, nogil=True)
def _interpolate_one(
    embedding_t: NDArray, radius: float, targets: NDArray, start: NDArray, max_iter: int,
    tol: float,
) -> tuple[NDArray, float]:
    # Damped Newton in an orthonormal basis of the tangent space at the current point,
    # followed by the retraction y <- (y + step) / |y + step| (second order, so Newton's
    # quadratic convergence is kept). A trial point's model is computed in the same pass
    # as its stress and reused when the step is accepted.
    p, m = embedding_t.shape
    y = start / math.sqrt(np.sum(start * start))
    grad = np.empty(p)
    outer = np.empty((p, p))
    cosine = np.empty(m)
    scale = np.empty(m)
    weight = np.empty(m)
    trial_grad = np.empty(p)
    trial_outer = np.empty((p, p))
    value, curvature, gauss_newton = _sphere_model(y, embedding_t, radius, targets, grad,
                                                   outer, cosine, scale, weight)
    lam = _LAMBDA_START
    for _ in range(max_iter):
        for k in range(p):
            for m in range(k):
                outer[m, k] = outer[k, m]
        tangent = _tangent_basis(y)
        tangent_t = np.ascontiguousarray(tangent.T)
        g = tangent_t @ grad
        hess = tangent_t @ outer @ tangent
        for k in range(p - 1):
            hess[k, k] += curvature
        damping = gauss_newton / (p - 1) + 1e-300
        improved = False
        trial = y
        trial_value = value
        trial_curvature = curvature
        trial_gn = gauss_newton
        while lam < _LAMBDA_MAX:
            system = hess.copy()
            for k in range(p - 1):
                system[k, k] += lam * damping
            step = -np.linalg.solve(system, g)
            if np.sum(step * g) < 0.0:  # a descent direction (the Hessian may be indefinite)
                trial = y + tangent @ step
                trial /= math.sqrt(np.sum(trial * trial))
                trial_value, trial_curvature, trial_gn = _sphere_model(
                    trial, embedding_t, radius, targets, trial_grad, trial_outer, cosine,
                    scale, weight)
                if trial_value < value:
                    improved = True
                    break
            lam *= 10.0
        if not improved:
            break
        decrease = value - trial_value
        y = trial
        value = trial_value
        curvature = trial_curvature
        gauss_newton = trial_gn
        grad[:] = trial_grad
        outer[:, :] = trial_outer
        lam = max(lam * 0.1, 1e-9)
        if decrease <= tol * max(value, 1e-300) or np.sum(step * step) <= _STEP_TOL**2:
            break
    return y, value


@numba.njit(cache=True, nogil=True, fastmath=_VECTOR_MATH)
def _torus_targets(query: NDArray, angles_t: NDArray, out: NDArray) -> None:
    """Torus distances from one wrapped point to every column of ``angles_t`` (d, n)."""
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
    for i in range(n):
        out[i] = math.sqrt(out[i])


@numba.njit(cache=True, nogil=True, parallel=True)
def interpolate_sphere(
    queries: NDArray,
    angles: NDArray,
    embedding: NDArray,
    radius: float,
    starts: NDArray,
    max_iter: int,
    tol: float,
) -> tuple[NDArray, NDArray]:
    """T̂ (eq. interp) for every torus point in ``queries`` (m, d), from unit-vector starts."""
    m = queries.shape[0]
    n = angles.shape[0]
    p = embedding.shape[1]
    # Partners as columns: every pass over them is then a loop over contiguous memory.
    angles_t = np.ascontiguousarray(angles.T)
    embedding_t = np.ascontiguousarray(embedding.T)
    out = np.empty((m, p))
    stress = np.empty(m)
    for q in numba.prange(m):
        targets = np.empty(n)
        _torus_targets(queries[q], angles_t, targets)
        y, value = _interpolate_one(embedding_t, radius, targets, starts[q], max_iter, tol)
        out[q] = y
        stress[q] = value
    return out, stress
