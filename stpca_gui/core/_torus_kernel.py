"""Compiled torus distance matrices (row-parallel, no temporaries beyond the output)."""

from __future__ import annotations

import math

import numba
from numpy.typing import NDArray

_TWO_PI = 2.0 * math.pi


@numba.njit(cache=True, nogil=True, parallel=True, fastmath={"contract"})
def fill_torus_cdist(x: NDArray, y: NDArray, out: NDArray) -> None:
    """Write the torus geodesic distances between rows of ``x`` (n, d) and ``y`` (m, d).

    Both inputs must already be wrapped to [-π, π); ``out`` has shape (n, m).
    """
    n, d = x.shape
    m = y.shape[0]
    for i in numba.prange(n):
        row = out[i]
        for j in range(m):
            total = 0.0
            for k in range(d):
                a = abs(x[i, k] - y[j, k])
                a = min(a, _TWO_PI - a)
                total += a * a
            row[j] = math.sqrt(total)
