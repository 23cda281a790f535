"""Compiled loops of the subsphere solver: objective, gradient and Hessian terms in two passes.

For a batch of subsphere problems (an axis v_p and a data set ``x[which[p]]`` each), one call
computes the angles θ_i = atan2(|x_i − (x_i·v)v|, x_i·v), their mean (the profiled radius
of a small sphere) and the sums that :func:`stpca_gui.core.subsphere._lm_fit` builds its
Newton step from, without the (problems × points × coordinates) temporaries of the same
sums in numpy: memory O(problems × points) for the angles, whatever the dimension.
The work is split into (problem, block of points) tasks run in parallel, so one problem
with 10⁶ points uses every core as well as 400 bootstrap problems of 5,000 points do.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numpy.typing import NDArray

_HALF_PI = 0.5 * math.pi
#: Points per task: large enough to amortise the task, small enough to share the work.
BLOCK_POINTS = 8192
#: Lower bound of |x − (x·v)v| in the gradient (a point on the axis has none).
_TINY = 1e-150


@numba.njit(cache=True, nogil=True)
def objective_terms(
    x: NDArray, which: NDArray, v: NDArray, great: bool, derivatives: bool
) -> tuple:
    """Objective and (optionally) derivative sums of subsphere problems.

    Parameters
    ----------
    x : ndarray, shape (B, n, m)
        Unit vectors, B data sets.
    which : ndarray of int64, shape (P,)
        Data set of each problem.
    v : ndarray, shape (P, m)
        Unit axes.
    great : bool
        Residuals θ − π/2 (great spheres) instead of θ − mean θ (small spheres).
    derivatives : bool
        Also accumulate the gradient and Hessian sums (else they are returned as zeros).

    Returns
    -------
    f : ndarray, shape (P,)
        Mean squared residual.
    gram : ndarray, shape (P, m, m)
        Σ G_i G_iᵀ with G_i = g_i − mean g (small) or g_i (great), g_i = ∇θ_i.
    weighted : ndarray, shape (P, m, m)
        Σ w_i g_i g_iᵀ with w_i = e_i cot θ_i.
    weight_sum : ndarray, shape (P,)
        Σ w_i.
    grad_sum : ndarray, shape (P, m)
        Σ e_i g_i.
    """
    n_problems = which.size
    n = x.shape[1]
    m = x.shape[2]
    n_blocks = (n + BLOCK_POINTS - 1) // BLOCK_POINTS
    n_tasks = n_problems * n_blocks
    theta = np.empty((n_problems, n))
    theta_sums = np.zeros((n_problems, n_blocks))
    for task in range(n_tasks):
        p = task // n_blocks
        lo = (task % n_blocks) * BLOCK_POINTS
        hi = min(n, lo + BLOCK_POINTS)
        data = x[which[p]]
        axis = v[p]
        total = 0.0
        for i in range(lo, hi):
            c = 0.0
            for j in range(m):
                c += data[i, j] * axis[j]
            ss = 0.0
            for j in range(m):
                q = data[i, j] - c * axis[j]
                ss += q * q
            angle = math.atan2(math.sqrt(ss), c)
            theta[p, i] = angle
            total += angle
        theta_sums[p, task % n_blocks] = total

    center = np.empty(n_problems)
    for p in range(n_problems):
        center[p] = _HALF_PI if great else theta_sums[p].sum() / n

    square_sums = np.zeros((n_problems, n_blocks))
    width = m if derivatives else 0
    gram_parts = np.zeros((n_problems, n_blocks, width, width))
    weighted_parts = np.zeros((n_problems, n_blocks, width, width))
    shift_parts = np.zeros((n_problems, n_blocks, width))
    grad_parts = np.zeros((n_problems, n_blocks, width))
    weight_parts = np.zeros((n_problems, n_blocks))
    for task in range(n_tasks):
        p = task // n_blocks
        block = task % n_blocks
        lo = block * BLOCK_POINTS
        hi = min(n, lo + BLOCK_POINTS)
        if derivatives:
            _derivative_block(x[which[p]], v[p], theta[p], center[p], lo, hi, great,
                              gram_parts[p, block], weighted_parts[p, block],
                              shift_parts[p, block], grad_parts[p, block],
                              square_sums[p], weight_parts[p], block)
        else:
            total = 0.0
            for i in range(lo, hi):
                e = theta[p, i] - center[p]
                total += e * e
            square_sums[p, block] = total

    f = np.empty(n_problems)
    gram = np.zeros((n_problems, width, width))
    weighted = np.zeros((n_problems, width, width))
    weight_sum = np.zeros(n_problems)
    grad_sum = np.zeros((n_problems, width))
    shift = np.zeros((n_problems, width))
    for p in range(n_problems):
        f[p] = square_sums[p].sum() / n
        if derivatives:
            for block in range(n_blocks):
                gram[p] += gram_parts[p, block]
                weighted[p] += weighted_parts[p, block]
                shift[p] += shift_parts[p, block]
                grad_sum[p] += grad_parts[p, block]
                weight_sum[p] += weight_parts[p, block]
            for j in range(m):
                for k in range(j + 1):
                    if not great:
                        gram[p, j, k] -= shift[p, j] * shift[p, k] / n
                    gram[p, k, j] = gram[p, j, k]
                    weighted[p, k, j] = weighted[p, j, k]
    return f, gram, weighted, weight_sum, grad_sum


@numba.njit(cache=True, nogil=True)
def _derivative_block(
    data: NDArray, axis: NDArray, theta: NDArray, mean_angle: float, lo: int, hi: int,
    great: bool, gram: NDArray, weighted: NDArray, shift: NDArray, grad: NDArray,
    square_sums: NDArray, weight_sums: NDArray, block: int,
) -> None:
    """The derivative sums of points lo … hi − 1 of one problem (lower triangles only)."""
    m = axis.size
    g = np.empty(m)
    ref = np.zeros(m)  # Σ (g − ref)(g − ref)ᵀ keeps the centred Gram accurate
    if not great:
        _gradient(data[0], axis, ref)
    total = 0.0
    weight_total = 0.0
    for i in range(lo, hi):
        e = theta[i] - mean_angle
        total += e * e
        c, s_safe = _gradient(data[i], axis, g)
        w = e * c / s_safe
        weight_total += w
        for j in range(m):
            dj = g[j] - ref[j]
            shift[j] += dj
            grad[j] += e * g[j]
            wg = w * g[j]
            for k in range(j + 1):
                gram[j, k] += dj * (g[k] - ref[k])
                weighted[j, k] += wg * g[k]
    square_sums[block] = total
    weight_sums[block] = weight_total


@numba.njit(cache=True, nogil=True)
def _gradient(point: NDArray, axis: NDArray, out: NDArray) -> tuple:
    """∇θ of the angle between ``point`` and the axis (tangent at the axis) into ``out``.

    Returns x·v and max(|x − (x·v)v|, tiny).
    """
    m = point.size
    c = 0.0
    for j in range(m):
        c += point[j] * axis[j]
    ss = 0.0
    for j in range(m):
        q = point[j] - c * axis[j]
        out[j] = q
        ss += q * q
    s_safe = max(math.sqrt(ss), _TINY)
    for j in range(m):
        out[j] /= -s_safe
    return c, s_safe
