"""Compiled loops of the subsphere solver: objective, gradient and Hessian terms in two passes.

For a batch of subsphere problems (an axis v_p and a data set ``x[which[p]]`` each), one call
computes the angles θ_i = atan2(|x_i − (x_i·v)v|, x_i·v), their mean (the profiled radius
of a small sphere) and the sums that :func:`stpca_gui.core.pns.subsphere._lm_fit` builds its
Newton step from, without the (problems × points × coordinates) temporaries of the same
sums in numpy: memory O(problems × points) for the angles, whatever the dimension.
The work is split into (problem, block of points) tasks, each summed on its own and the
block sums added in order, so that large problems keep their accuracy.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .._base.jit import kernel
from .._base.parallel import map_parallel, worker_count

_HALF_PI = 0.5 * math.pi
#: Points per block of the sums: small enough for cache, large enough to sum accurately.
BLOCK_POINTS = 8192
#: Lower bound of |x − (x·v)v| in the gradient (a point on the axis has none).
_TINY = 1e-150
#: Problems × points × coordinates² above which the problems are shared among the kernel
#: threads (below, a thread's dispatch costs more than it saves).
PARALLEL_WORK = 2_000_000
#: Above this many coordinates the m × m sums of a block are matrix products (BLAS) of the
#: block's gradients, 256 rows at a time, instead of scalar loops over the lower triangles:
#: 1.7× faster at m = 67, 2.8× at m = 14 (CPU, one thread). Up to it (every level of a fit
#: on S^d with d ≤ 7, subsphere.HIGH_DIM) the scalar loops stay, bit for bit as before.
MATRIX_SUMS_MIN_DIM = 8
#: Rows of the gradient matrices of one product.
_PRODUCT_ROWS = 256


def objective_terms(
    x: NDArray, which: NDArray, v: NDArray, great: bool | NDArray, derivatives: bool,
    parallel: bool = True,
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
    great : bool or ndarray of bool, shape (P,)
        Residuals θ − π/2 (great spheres) instead of θ − mean θ (small spheres), for every
        problem or per problem.
    derivatives : bool
        Also accumulate the gradient and Hessian sums (else they are returned as zeros).
    parallel : bool
        Share large batches among the kernel threads (False: all on the calling thread,
        for callers that already run several batches at once).

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
    m = x.shape[2]
    # A copy, always writable: a read-only flag array (a broadcast view that is already
    # contiguous, e.g. of one problem) would be a second compiled signature of the kernel.
    great = np.array(np.broadcast_to(np.asarray(great, dtype=np.bool_), (n_problems,)))
    width = m if derivatives else 0
    f = np.empty(n_problems)
    gram = np.zeros((n_problems, width, width))
    weighted = np.zeros((n_problems, width, width))
    weight_sum = np.zeros(n_problems)
    grad_sum = np.zeros((n_problems, width))

    matrix_sums = derivatives and m > MATRIX_SUMS_MIN_DIM

    def run(bounds: tuple[int, int]) -> None:
        lo, hi = bounds
        rows = np.empty((3, _PRODUCT_ROWS if matrix_sums else 0, m))
        # The kernel allocates nothing: every array it needs comes from here, which spares
        # the first run the compilation of numba's array constructors for each shape.
        _objective_terms(x, which[lo:hi], v[lo:hi], great[lo:hi], derivatives,
                         np.empty(x.shape[1]), np.empty((5, m)), np.empty((2, m, m)), rows,
                         f[lo:hi], gram[lo:hi], weighted[lo:hi], weight_sum[lo:hi],
                         grad_sum[lo:hi])

    # Problems are independent: several at a time on the kernel threads, each summed
    # exactly as alone (the results do not depend on the split).
    work = n_problems * x.shape[1] * max(width, 1) ** 2
    parts = min(n_problems, worker_count()) if parallel and work >= PARALLEL_WORK else 1
    map_parallel(run, [(n_problems * k // parts, n_problems * (k + 1) // parts)
                       for k in range(parts)])
    return f, gram, weighted, weight_sum, grad_sum


@kernel()
def _objective_terms(
    x: NDArray, which: NDArray, v: NDArray, great: NDArray, derivatives: bool, theta: NDArray,
    vectors: NDArray, blocks: NDArray, rows: NDArray, f: NDArray, gram: NDArray,
    weighted: NDArray, weight_sum: NDArray, grad_sum: NDArray,
) -> None:
    n_problems = which.size
    n = x.shape[1]
    m = x.shape[2]
    shift, block_shift, block_grad = vectors[0], vectors[1], vectors[2]
    block_gram, block_weighted = blocks[0], blocks[1]
    for p in range(n_problems):
        data = x[which[p]]
        axis = v[p]
        great_sphere = great[p]
        # Sums are taken per block of points and the block sums added in order, which
        # keeps them accurate for 10⁶ points.
        angle_total = 0.0
        for lo in range(0, n, BLOCK_POINTS):
            total = 0.0
            for i in range(lo, min(n, lo + BLOCK_POINTS)):
                c = 0.0
                for j in range(m):
                    c += data[i, j] * axis[j]
                ss = 0.0
                for j in range(m):
                    q = data[i, j] - c * axis[j]
                    ss += q * q
                angle = math.atan2(math.sqrt(ss), c)
                theta[i] = angle
                total += angle
            angle_total += total
        center = _HALF_PI if great_sphere else angle_total / n

        square_total = 0.0
        for j in range(m):
            shift[j] = 0.0
        for lo in range(0, n, BLOCK_POINTS):
            hi = min(n, lo + BLOCK_POINTS)
            if derivatives:
                for j in range(m):
                    block_shift[j] = 0.0
                    block_grad[j] = 0.0
                    for k in range(m):
                        block_gram[j, k] = 0.0
                        block_weighted[j, k] = 0.0
                if rows.shape[1] > 0:
                    square, weight = _derivative_block_products(
                        data, axis, theta, center, lo, hi, great_sphere, block_gram,
                        block_weighted, block_shift, block_grad, vectors[3], vectors[4], rows)
                else:
                    square, weight = _derivative_block(data, axis, theta, center, lo, hi,
                                                       great_sphere, block_gram,
                                                       block_weighted, block_shift,
                                                       block_grad, vectors[3], vectors[4])
                square_total += square
                weight_sum[p] += weight
                for j in range(m):
                    shift[j] += block_shift[j]
                    grad_sum[p, j] += block_grad[j]
                    for k in range(j + 1):
                        gram[p, j, k] += block_gram[j, k]
                        weighted[p, j, k] += block_weighted[j, k]
            else:
                total = 0.0
                for i in range(lo, hi):
                    e = theta[i] - center
                    total += e * e
                square_total += total
        f[p] = square_total / n
        if derivatives:
            for j in range(m):
                for k in range(j + 1):
                    if not great_sphere:
                        gram[p, j, k] -= shift[j] * shift[k] / n
                    gram[p, k, j] = gram[p, j, k]
                    weighted[p, k, j] = weighted[p, j, k]


@kernel()
def _derivative_block(
    data: NDArray, axis: NDArray, theta: NDArray, mean_angle: float, lo: int, hi: int,
    great: bool, gram: NDArray, weighted: NDArray, shift: NDArray, grad: NDArray,
    g: NDArray, ref: NDArray,
) -> tuple[float, float]:
    """Add the derivative sums of points lo … hi − 1 of one problem (lower triangles only);
    returns their Σ e_i² and Σ w_i. ``g`` and ``ref`` are work vectors of length m."""
    m = axis.size
    _reference_gradient(data, axis, great, ref)
    total = 0.0
    weight_total = 0.0
    for i in range(lo, hi):
        e = theta[i] - mean_angle
        total += e * e
        w = _add_point(data[i], axis, e, ref, g, shift, grad)
        weight_total += w
        for j in range(m):
            dj = g[j] - ref[j]
            wg = w * g[j]
            for k in range(j + 1):
                gram[j, k] += dj * (g[k] - ref[k])
                weighted[j, k] += wg * g[k]
    return total, weight_total


@kernel()
def _derivative_block_products(
    data: NDArray, axis: NDArray, theta: NDArray, mean_angle: float, lo: int, hi: int,
    great: bool, gram: NDArray, weighted: NDArray, shift: NDArray, grad: NDArray,
    g: NDArray, ref: NDArray, rows: NDArray,
) -> tuple[float, float]:
    """:func:`_derivative_block` with the m × m sums as matrix products: the centred
    gradients, the weighted gradients and the gradients of up to ``rows.shape[1]`` points
    are written to ``rows`` and multiplied (full matrices; the caller reads the lower
    triangles)."""
    m = axis.size
    _reference_gradient(data, axis, great, ref)
    centred = rows[0]
    scaled = rows[1]
    plain = rows[2]
    size = rows.shape[1]
    total = 0.0
    weight_total = 0.0
    for start in range(lo, hi, size):
        stop = min(hi, start + size)
        for i in range(start, stop):
            r = i - start
            e = theta[i] - mean_angle
            total += e * e
            w = _add_point(data[i], axis, e, ref, g, shift, grad)
            weight_total += w
            for j in range(m):
                centred[r, j] = g[j] - ref[j]
                scaled[r, j] = w * g[j]
                plain[r, j] = g[j]
        count = stop - start
        gram += centred[:count].T @ centred[:count]
        weighted += scaled[:count].T @ plain[:count]
    return total, weight_total


@kernel(inline=True)
def _reference_gradient(data: NDArray, axis: NDArray, great: bool, ref: NDArray) -> None:
    """The gradient the derivative sums are centred on: 0 for a great sphere, else the
    first point's (Σ (g − ref)(g − ref)ᵀ keeps the centred Gram accurate)."""
    if great:
        for j in range(axis.size):
            ref[j] = 0.0
    else:
        _gradient(data[0], axis, ref)


@kernel(inline=True)
def _point_weight(point: NDArray, axis: NDArray, e: float, g: NDArray) -> float:
    """A point's gradient into ``g`` and its Newton-model weight e·(x·v)/|x − (x·v)v|."""
    c, s_safe = _gradient(point, axis, g)
    return e * c / s_safe


@kernel(inline=True)
def _add_point(point: NDArray, axis: NDArray, e: float, ref: NDArray, g: NDArray,
               shift: NDArray, grad: NDArray) -> float:
    """A point's gradient into ``g``, its terms of Σ (g − ref) and Σ e·g added; returns its
    weight (:func:`_point_weight`)."""
    w = _point_weight(point, axis, e, g)
    for j in range(axis.size):
        shift[j] += g[j] - ref[j]
        grad[j] += e * g[j]
    return w


@kernel(inline=True)
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
