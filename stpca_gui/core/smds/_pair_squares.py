"""The squared distances both SMDS pair kernels start from, inlined into their hot loops.

For one point (angles x_i, unit vector y_i) against a run of partners, all stored as
columns (angles (d, n), unit vectors (p, n)), :func:`add_pair_squares` adds per
partner j the squared torus geodesic distance δ_ij² and the squared chords |y_j − y_i|² and
|y_j + y_i|², from which the kernels take θ_ij = 2 atan2(|y_j − y_i|, |y_j + y_i|). It lives
here, beside neither caller (the stress kernel :mod:`._smds_kernel` and the per-point
diagnostics :mod:`._diagnostics_kernel`), and is inlined with their fast-math flags.
"""

from __future__ import annotations

import math

from numpy.typing import NDArray

from .._base.jit import kernel

_TWO_PI = 2.0 * math.pi
#: The callers' flags (inlined code is compiled with the caller's): contraction, reciprocal
#: approximations and reassociated sums; IEEE NaN/inf semantics kept.
FAST_LOOPS = {"contract", "arcp", "reassoc"}


@kernel(fastmath=FAST_LOOPS, inline=True)
def add_pair_squares(points_xt: NDArray, points_yt: NDArray, i: int, xt: NDArray, yt: NDArray,
                     start: int, count: int, delta: NDArray, minus: NDArray, plus: NDArray
                     ) -> None:
    """Add δ², |y − y_i|² and |y + y_i|² between point ``i`` (column i of ``points_xt``,
    ``points_yt``) and the partners ``start`` … ``start + count − 1`` into ``delta``,
    ``minus`` and ``plus`` [0, count) (angles wrapped to [-π, π))."""
    # Each inner loop runs over contiguous partners, which the compiler turns into SIMD code.
    for k in range(xt.shape[0]):
        xik = points_xt[k, i]
        xk = xt[k, start:start + count]
        for t in range(count):
            a = abs(xk[t] - xik)
            a = min(a, _TWO_PI - a)
            delta[t] += a * a
    for k in range(yt.shape[0]):
        yik = points_yt[k, i]
        yk = yt[k, start:start + count]
        for t in range(count):
            difference = yk[t] - yik
            total = yk[t] + yik
            minus[t] += difference * difference
            plus[t] += total * total
