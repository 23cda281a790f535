"""Compiled per-point pair sums of the SMDS stress (paper, eq. smds3) for the fit diagnostics.

For query points (torus angles ``x_i``, unit vectors ``y_i``) and reference points
(``x_k``, ``y_k``), one pass accumulates per query

    a_i = Σ_k δ_ik²,   b_i = Σ_k δ_ik θ_ik,   c_i = Σ_k θ_ik²,

with δ the torus geodesic distance and θ = 2 atan2(|y_k − y_i|, |y_k + y_i|) the angle on
the unit sphere (accurate near 0 and π; the shared atan2 of geometry.angle_math).
Σ_k (δ_ik − r θ_ik)² = a_i − 2 r b_i + r² c_i for every r, so one pass gives each point's
stress at any radius. A point paired with itself
adds exactly 0 to all three sums.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .._base.jit import kernel, kernel_array
from .._base.parallel import map_parallel, row_blocks
from ..geometry.angle_math import atan2_nonneg
from ._pair_squares import FAST_LOOPS, add_pair_squares


@kernel(fastmath=FAST_LOOPS)
def _accumulate(xq_t: NDArray, yq_t: NDArray, lo: int, hi: int, xr_t: NDArray,
                yr_t: NDArray, out: NDArray) -> None:
    # Queries lo … hi − 1 and references as columns (feature, point): every inner loop runs
    # over contiguous memory, which the compiler turns into SIMD code, as in the SMDS pair
    # kernel.
    nr = yr_t.shape[1]
    dd = np.empty(nr)
    minus = np.empty(nr)
    plus = np.empty(nr)
    for i in range(lo, hi):
        dd[:] = 0.0
        minus[:] = 0.0
        plus[:] = 0.0
        add_pair_squares(xq_t, yq_t, i, xr_t, yr_t, 0, nr, dd, minus, plus)
        a = 0.0
        b = 0.0
        c = 0.0
        for k in range(nr):
            theta = 2.0 * atan2_nonneg(math.sqrt(minus[k]), math.sqrt(plus[k]))
            a += dd[k]
            b += math.sqrt(dd[k]) * theta
            c += theta * theta
        out[i, 0] = a
        out[i, 1] = b
        out[i, 2] = c


def point_pair_sums(query_angles: NDArray, query_units: NDArray, reference_angles: NDArray,
                    reference_units: NDArray) -> NDArray[np.float64]:
    """(a, b, c) per query row against every reference row, shape (n_query, 3).

    Blocks of queries run on the kernel threads. Angles must be wrapped to [-π, π).
    """
    xq_t, yq_t = kernel_array(query_angles.T), kernel_array(query_units.T)
    xr_t, yr_t = kernel_array(reference_angles.T), kernel_array(reference_units.T)
    out = np.empty((xq_t.shape[1], 3))

    def run(block: tuple[int, int]) -> None:
        _accumulate(xq_t, yq_t, *block, xr_t, yr_t, out)

    map_parallel(run, row_blocks(xq_t.shape[1]))
    return out
