"""Compiled torus helpers: one angle's wrapping, and distance matrices (row-parallel, no
temporaries beyond the output)."""

from __future__ import annotations

import math

import numba
from numpy.typing import NDArray

_TWO_PI = 2.0 * math.pi


@numba.njit(cache=True, nogil=True)
def wrap_angle(value: float) -> float:
    """Wrap one angle to [-π, π): the compiled twin of :func:`torus.wrap_angles` for kernels."""
    wrapped = (value + math.pi) % _TWO_PI - math.pi
    return wrapped - _TWO_PI if wrapped >= math.pi else wrapped


@numba.njit(cache=True, nogil=True, fastmath={"contract"}, inline="always")
def torus_distance_rows(x: NDArray, i: int, y: NDArray, j: int) -> float:
    """Torus geodesic distance between row i of ``x`` and row j of ``y`` (wrapped angles)."""
    total = 0.0
    for k in range(x.shape[1]):
        a = abs(x[i, k] - y[j, k])
        a = min(a, _TWO_PI - a)
        total += a * a
    return math.sqrt(total)


@numba.njit(cache=True, nogil=True, parallel=True, fastmath={"contract"})
def fill_torus_cdist(x: NDArray, y: NDArray, out: NDArray) -> None:
    """Write the torus geodesic distances between rows of ``x`` (n, d) and ``y`` (m, d).

    Both inputs must already be wrapped to [-π, π); ``out`` has shape (n, m).
    """
    n = x.shape[0]
    m = y.shape[0]
    for i in numba.prange(n):
        row = out[i]
        for j in range(m):
            row[j] = torus_distance_rows(x, i, y, j)
