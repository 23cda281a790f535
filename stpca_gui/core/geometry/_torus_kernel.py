"""Compiled torus helpers: one angle's wrapping, and distance matrices (row blocks on the
kernel threads, no temporaries beyond the output)."""

from __future__ import annotations

import math

from numpy.typing import NDArray

from .._base.jit import kernel
from .._base.parallel import map_parallel, row_blocks

_TWO_PI = 2.0 * math.pi


@kernel(fastmath={"contract"}, inline=True)
def torus_distance_rows(x: NDArray, i: int, y: NDArray, j: int) -> float:
    """Torus geodesic distance between row i of ``x`` and row j of ``y`` (wrapped angles)."""
    total = 0.0
    for k in range(x.shape[1]):
        a = abs(x[i, k] - y[j, k])
        a = min(a, _TWO_PI - a)
        total += a * a
    return math.sqrt(total)


@kernel(fastmath={"contract", "arcp", "reassoc"}, inline=True)
def add_squared_distances_to_point(xt: NDArray, i: int, start: int, stop: int,
                                   out: NDArray) -> None:
    """``out[t] += δ²(x_{start + t}, x_i)`` for t < stop − start, the points as columns of
    ``xt`` (d, n), wrapped: the inner loop runs over contiguous points (SIMD), angle by
    angle. For the samplers and SMDS kernels that compare one point with many."""
    for k in range(xt.shape[0]):
        xik = xt[k, i]
        xk = xt[k, start:stop]
        for t in range(stop - start):
            a = abs(xk[t] - xik)
            a = min(a, _TWO_PI - a)
            out[t] += a * a


@kernel(fastmath={"contract"})
def _fill_rows(x: NDArray, y: NDArray, out: NDArray) -> None:
    for i in range(x.shape[0]):
        row = out[i]
        for j in range(y.shape[0]):
            row[j] = torus_distance_rows(x, i, y, j)


def fill_torus_cdist(x: NDArray, y: NDArray, out: NDArray) -> None:
    """Write the torus geodesic distances between rows of ``x`` (n, d) and ``y`` (m, d).

    Both inputs must already be wrapped to [-π, π) and C-contiguous; ``out`` has shape
    (n, m). Blocks of rows run on the kernel threads.
    """

    def run(block: tuple[int, int]) -> None:
        lo, hi = block
        _fill_rows(x[lo:hi], y, out[lo:hi])

    map_parallel(run, row_blocks(x.shape[0], blocks_per_thread=1))
