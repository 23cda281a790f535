"""Compiled pair kernel of spherical MDS (paper, eq. smds3): torus distances against sphere
angles.

For angles ``x`` (n, d) on the torus and unit vectors ``y`` (n, p) on the sphere, one pass
over the n(n-1)/2 unordered pairs accumulates

* ``A = Σ δ²``, ``B = Σ δ θ`` and ``C = Σ θ²``, with δ the torus geodesic distance and θ the
  angle between the sphere points, and
* the gradients ``∇B = Σ δ ∇θ`` and ``∇C = Σ 2 θ ∇θ`` with respect to the unit vectors.

Every stress of the form Σ (δ − r θ)² — fixed r, or r profiled out at its optimum B / C —
and its gradient follow from these five quantities, so a single kernel serves both.
Nothing of size n² is allocated: distances are recomputed per pair.

θ and its gradient are computed without ``arccos``: θ = 2 atan2(|y_j − y_i|, |y_j + y_i|)
keeps full relative accuracy near 0 and π, and the unit tangent at y_i pointing to y_j is
built from whichever of the difference or the sum is smaller, so it stays accurate at both
ends too. Coincident or antipodal points contribute no gradient (the direction is undefined
there; the subgradient 0 is a valid choice and keeps duplicates NaN-free).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .._base.jit import kernel
from .._base.parallel import map_parallel
from ..geometry.angle_math import atan2_nonneg
from ._pair_squares import FAST_LOOPS, add_pair_squares

_BLOCK = 256  # columns handled per vector sweep; the scratch rows stay in L1


@kernel(fastmath=FAST_LOOPS)
def accumulate_rows(
    xt: NDArray,
    yt: NDArray,
    row_start: int,
    row_stop: int,
    with_gradient: bool,
    grad_t: NDArray,
    scratch: NDArray,
) -> tuple[float, float, float]:
    # Column-major (feature, sample) layout: for a fixed row i every inner loop runs over a
    # contiguous block of partners j, which the compiler turns into SIMD code.
    # grad_t[:p] accumulates ∇B and grad_t[p:] accumulates ∇C.
    n = xt.shape[1]
    p = yt.shape[0]
    delta, dd, ss, theta = scratch[0], scratch[1], scratch[2], scratch[3]
    half, coef_b, coef_c, sign_j = scratch[4], scratch[5], scratch[6], scratch[7]
    sum_dd = 0.0
    sum_dt = 0.0
    sum_tt = 0.0
    for i in range(row_start, row_stop):
        for j0 in range(i + 1, n, _BLOCK):
            m = min(_BLOCK, n - j0)
            for t in range(m):
                delta[t] = 0.0
                dd[t] = 0.0
                ss[t] = 0.0
            add_pair_squares(xt, yt, i, xt, yt, j0, m, delta, dd, ss)
            for t in range(m):
                dist = math.sqrt(delta[t])
                norm_d = math.sqrt(dd[t])
                norm_s = math.sqrt(ss[t])
                angle = 2.0 * atan2_nonneg(norm_d, norm_s)
                delta[t] = dist
                theta[t] = angle
                sum_dd += dist * dist
                sum_dt += dist * angle
                sum_tt += angle * angle
                # |y_j - y_i| = 2 sin(θ/2) and |y_j + y_i| = 2 cos(θ/2), so sin θ = |d||s|/2.
                sin_t = 0.5 * norm_d * norm_s
                inv_sin = 1.0 / sin_t if sin_t > 0.0 else 0.0
                coef_b[t] = dist * inv_sin
                coef_c[t] = 2.0 * angle * inv_sin
                near = dd[t] <= ss[t]
                half[t] = 0.5 * dd[t] if near else -0.5 * ss[t]
                sign_j[t] = -1.0 if near else 1.0
            if not with_gradient:
                continue
            # Tangents of norm sin θ at y_i towards y_j and at y_j towards y_i, from the
            # smaller of d = y_j - y_i and s = y_j + y_i so they stay accurate at θ ≈ 0, π:
            # u_i = d + |d|²/2 y_i = s - |s|²/2 y_i,  u_j = -d + |d|²/2 y_j = s - |s|²/2 y_j.
            for k in range(p):
                yik = yt[k, i]
                yk = yt[k, j0:j0 + m]
                gbk = grad_t[k, j0:j0 + m]
                gck = grad_t[p + k, j0:j0 + m]
                acc_b = 0.0
                acc_c = 0.0
                for t in range(m):
                    w = yk[t] + sign_j[t] * yik
                    ui = w + half[t] * yik
                    uj = sign_j[t] * w + half[t] * yk[t]
                    acc_b -= coef_b[t] * ui
                    acc_c -= coef_c[t] * ui
                    gbk[t] -= coef_b[t] * uj
                    gck[t] -= coef_c[t] * uj
                grad_t[k, i] += acc_b
                grad_t[p + k, i] += acc_c
    return sum_dd, sum_dt, sum_tt


def pair_sums(
    xt: NDArray, yt: NDArray, chunk_starts: NDArray, with_gradient: bool
) -> tuple[float, float, float, NDArray, NDArray]:
    """Accumulate A, B, C and (optionally) ∇B, ∇C over all unordered pairs.

    Parameters
    ----------
    xt : ndarray, shape (d, n), C-contiguous
        Angles wrapped to [-π, π), one row per angle (transposed data).
    yt : ndarray, shape (p, n), C-contiguous
        Unit vectors as columns.
    chunk_starts : ndarray of int64, shape (n_chunks + 1,)
        Row boundaries of the work chunks (see :func:`balanced_chunks`); each chunk
        accumulates into its own gradient buffer, so chunks run on the kernel threads
        safely, and the chunk results are added in chunk order (deterministic).
    with_gradient : bool
        When False only the three sums are computed.

    Returns
    -------
    sum_dd, sum_dt, sum_tt : float
    grad_b, grad_c : ndarray, shape (p, n)
        Gradients of B and C with respect to the unit vectors (tangent to the sphere),
        transposed like ``yt``; zero when ``with_gradient`` is False.
    """
    p, n = yt.shape
    n_chunks = chunk_starts.shape[0] - 1
    grad_parts = np.zeros((n_chunks, 2 * p, n if with_gradient else 0))

    def run(chunk: int) -> tuple[float, float, float]:
        return accumulate_rows(xt, yt, int(chunk_starts[chunk]), int(chunk_starts[chunk + 1]),
                               with_gradient, grad_parts[chunk], np.empty((8, _BLOCK)))

    sums = map_parallel(run, range(n_chunks))
    grad = np.zeros((2 * p, n))
    if with_gradient:
        for part in grad_parts:
            grad += part
    totals = [0.0, 0.0, 0.0]
    for chunk_sums in sums:
        for k in range(3):
            totals[k] += chunk_sums[k]
    return totals[0], totals[1], totals[2], grad[:p], grad[p:]


def pair_sums_serial(
    xt: NDArray, yt: NDArray, with_gradient: bool
) -> tuple[float, float, float, NDArray, NDArray]:
    """Single-threaded :func:`pair_sums`, for problems too small to amortise threading.

    Handing work to other threads costs a synchronisation per call, and when the cores are
    busy (a GUI thread, other processes) a descheduled thread stalls the whole call, which
    costs far more than the work itself at n of a few hundred.
    """
    p, n = yt.shape
    grad = np.zeros((2 * p, n))
    buffer = grad if with_gradient else np.zeros((2 * p, 0))
    a, b, c = accumulate_rows(xt, yt, 0, n, with_gradient, buffer, np.empty((8, _BLOCK)))
    return a, b, c, grad[:p], grad[p:]


def balanced_chunks(n: int, n_chunks: int) -> NDArray[np.int64]:
    """Row boundaries splitting the upper-triangle pairs of n rows into equal-work chunks.

    Row i owns n - 1 - i pairs, so equal row counts would leave the first chunk with most
    of the work; boundaries are placed at equal quantiles of the cumulative pair count.
    """
    n_chunks = max(1, min(n_chunks, n))
    pairs_per_row = np.arange(n - 1, -1, -1, dtype=np.float64)
    cumulative = np.concatenate(([0.0], np.cumsum(pairs_per_row)))
    targets = np.linspace(0.0, cumulative[-1], n_chunks + 1)
    starts = np.searchsorted(cumulative, targets, side="left").astype(np.int64)
    starts[0], starts[-1] = 0, n
    return np.unique(starts)
