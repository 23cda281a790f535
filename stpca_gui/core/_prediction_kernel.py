"""Compiled least-squares solvers of the MDS prediction and interpolation problems.

Both problems fit one new point against the n matched pairs (x_i on the torus, ŷ_i on the
sphere) by the stress (1/n) Σ_i (δ_T(x, x_i) − r θ(y, ŷ_i))² (paper, eqs. invmds2 and
interp); they differ in which side is free. Each query is solved by Levenberg–Marquardt
with the Gauss–Newton model: the Jacobian of a residual is a unit vector (the direction of
the geodesic to the partner point), so the normal matrix is a d×d sum of outer products.
Queries are independent and solved in parallel.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numpy.typing import NDArray

from ._smds_kernel import atan2_nonneg

_TWO_PI = 2.0 * math.pi
_LAMBDA_START = 1e-3
_LAMBDA_MAX = 1e12


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


@numba.njit(cache=True, nogil=True)
def _wrap(value: float) -> float:
    wrapped = (value + math.pi) % _TWO_PI - math.pi
    return wrapped - _TWO_PI if wrapped >= math.pi else wrapped


@numba.njit(cache=True, nogil=True)
def _torus_stress(x: NDArray, angles: NDArray, targets: NDArray) -> float:
    n, d = angles.shape
    total = 0.0
    for i in range(n):
        acc = 0.0
        for k in range(d):
            a = abs(x[k] - angles[i, k])
            a = min(a, _TWO_PI - a)
            acc += a * a
        res = math.sqrt(acc) - targets[i]
        total += res * res
    return total / n


@numba.njit(cache=True, nogil=True)
def _torus_normal_equations(
    x: NDArray, angles: NDArray, targets: NDArray, grad: NDArray, hess: NDArray
) -> None:
    n, d = angles.shape
    diff = np.empty(d)
    grad[:] = 0.0
    hess[:, :] = 0.0
    for i in range(n):
        acc = 0.0
        for k in range(d):
            w = _wrap(x[k] - angles[i, k])
            diff[k] = w
            acc += w * w
        dist = math.sqrt(acc)
        if dist == 0.0:
            continue  # the residual is not differentiable here; 0 is a subgradient
        res = dist - targets[i]
        for k in range(d):
            jk = diff[k] / dist
            grad[k] += res * jk
            for m in range(k + 1):
                hess[k, m] += jk * diff[m] / dist


@numba.njit(cache=True, nogil=True)
def _solve_damped(hess: NDArray, grad: NDArray, lam: float) -> NDArray:
    d = grad.shape[0]
    system = np.empty((d, d))
    for k in range(d):
        for m in range(k + 1):
            system[k, m] = hess[k, m]
            system[m, k] = hess[k, m]
        system[k, k] += lam * (hess[k, k] + 1e-12)
    return -np.linalg.solve(system, grad)


@numba.njit(cache=True, nogil=True)
def _predict_one(
    angles: NDArray, targets: NDArray, start: NDArray, max_iter: int, tol: float
) -> tuple[NDArray, float]:
    d = angles.shape[1]
    x = start.copy()
    value = _torus_stress(x, angles, targets)
    grad = np.empty(d)
    hess = np.empty((d, d))
    lam = _LAMBDA_START
    for _ in range(max_iter):
        _torus_normal_equations(x, angles, targets, grad, hess)
        improved = False
        trial = x
        trial_value = value
        while lam < _LAMBDA_MAX:
            step = _solve_damped(hess, grad, lam)
            trial = x + step
            trial_value = _torus_stress(trial, angles, targets)
            if trial_value < value:
                improved = True
                break
            lam *= 10.0
        if not improved:
            break
        decrease = value - trial_value
        x = trial
        value = trial_value
        lam = max(lam * 0.1, 1e-9)
        if decrease <= tol * max(value, 1e-300):
            break
    for k in range(d):
        x[k] = _wrap(x[k])
    return x, value


@numba.njit(cache=True, nogil=True, parallel=True)
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

    Returns the predicted angles (m, d), wrapped, and the attained stress per query.
    """
    m = queries.shape[0]
    n, d = angles.shape
    out = np.empty((m, d))
    stress = np.empty(m)
    for q in numba.prange(m):
        targets = np.empty(n)
        for i in range(n):
            targets[i] = radius * _sphere_angle(queries[q], embedding[i])
        x, value = _predict_one(angles, targets, starts[q], max_iter, tol)
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
    out = np.empty((m, d))
    stress = np.empty(m)
    start = first_start.copy()
    targets = np.empty(n)
    for q in range(m):
        for i in range(n):
            targets[i] = radius * _sphere_angle(queries[q], embedding[i])
        x, value = _predict_one(angles, targets, start, max_iter, tol)
        out[q] = x
        stress[q] = value
        start = x
    return out, stress


@numba.njit(cache=True, nogil=True)
def _sphere_stress(y: NDArray, embedding: NDArray, radius: float, targets: NDArray) -> float:
    n = embedding.shape[0]
    total = 0.0
    for i in range(n):
        res = targets[i] - radius * _sphere_angle(y, embedding[i])
        total += res * res
    return total / n


@numba.njit(cache=True, nogil=True)
def _interpolate_one(
    embedding: NDArray, radius: float, targets: NDArray, start: NDArray, max_iter: int,
    tol: float,
) -> tuple[NDArray, float]:
    # Gauss–Newton in an orthonormal basis of the tangent space at the current point,
    # followed by the retraction y <- (y + step) / |y + step|.
    n, p = embedding.shape
    y = start / math.sqrt(np.sum(start * start))
    value = _sphere_stress(y, embedding, radius, targets)
    lam = _LAMBDA_START
    for _ in range(max_iter):
        # Tangent basis: complete y to an orthonormal basis with a Householder reflection.
        basis = np.eye(p)
        v = y.copy()
        v[0] -= 1.0 if y[0] < 0 else -1.0
        vv = np.sum(v * v)
        if vv > 0.0:
            basis = basis - 2.0 * np.outer(v, v) / vv
        tangent = np.ascontiguousarray(basis[:, 1:])  # columns orthogonal to y
        # Accumulate the Gauss–Newton model in ambient coordinates, then restrict it.
        grad_amb = np.zeros(p)
        hess_amb = np.zeros((p, p))
        u = np.empty(p)
        trial = y
        trial_value = value
        for i in range(n):
            yi = embedding[i]
            cos_t = 0.0
            for k in range(p):
                cos_t += y[k] * yi[k]
            sin2 = 0.0
            for k in range(p):
                u[k] = yi[k] - cos_t * y[k]
                sin2 += u[k] * u[k]
            if sin2 == 0.0:
                continue
            scale = -radius / math.sqrt(sin2)  # ∂(rθ)/∂y = -r u / sin θ
            res = radius * _sphere_angle(y, yi) - targets[i]
            for k in range(p):
                jk = scale * u[k]
                grad_amb[k] += res * jk
                for m in range(k + 1):
                    hess_amb[k, m] += jk * scale * u[m]
        for k in range(p):
            for m in range(k):
                hess_amb[m, k] = hess_amb[k, m]
        grad = np.ascontiguousarray(tangent.T) @ grad_amb
        hess = np.ascontiguousarray(tangent.T) @ hess_amb @ np.ascontiguousarray(tangent)
        improved = False
        while lam < _LAMBDA_MAX:
            system = hess.copy()
            for k in range(p - 1):
                system[k, k] += lam * (hess[k, k] + 1e-12)
            step = -np.linalg.solve(system, grad)
            trial = y + tangent @ step
            trial /= math.sqrt(np.sum(trial * trial))
            trial_value = _sphere_stress(trial, embedding, radius, targets)
            if trial_value < value:
                improved = True
                break
            lam *= 10.0
        if not improved:
            break
        decrease = value - trial_value
        y = trial
        value = trial_value
        lam = max(lam * 0.1, 1e-9)
        if decrease <= tol * max(value, 1e-300):
            break
    return y, value


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
    n, d = angles.shape
    p = embedding.shape[1]
    out = np.empty((m, p))
    stress = np.empty(m)
    for q in numba.prange(m):
        targets = np.empty(n)
        for i in range(n):
            acc = 0.0
            for k in range(d):
                a = abs(queries[q, k] - angles[i, k])
                a = min(a, _TWO_PI - a)
                acc += a * a
            targets[i] = math.sqrt(acc)
        y, value = _interpolate_one(embedding, radius, targets, starts[q], max_iter, tol)
        out[q] = y
        stress[q] = value
    return out, stress
