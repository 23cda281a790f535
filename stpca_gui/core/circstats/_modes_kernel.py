"""Compiled Gaussian kernel sums over a sorted sample, for the mode clusters' density scan.

For each evaluation point x the sum Σ_j exp(−z_j²/2), z_j = (x − s_j)/h, is taken relative
to its largest term (the nearest sample, z₀) and only over the samples with
z² ≤ z₀² + 2·``tail``: every term left out is below e^{−tail} of the largest, so with
``tail`` = 50 + ln(sample size) all of them together are below 1e-21 of the sum. The sample
being sorted, those samples form one window found by bisection: O(log n + window) per point
instead of O(n), with the sums of :mod:`stpca_gui.core.circstats.paper_modes` unchanged to rounding.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .._base.jit import kernel


@kernel(inline=True)
def _scan(
    x: float, sample: NDArray, h: float, top: float, limit: float, start: int, stop: int,
    step: int, s0: float, s1: float,
) -> tuple[float, float]:
    """Add the terms of samples start, start + step, … (before ``stop``) to (s0, s1) until
    a sample's z² exceeds ``limit``."""
    j = start
    while j != stop:
        z = (x - sample[j]) / h
        if z * z > limit:
            break
        w = math.exp(-0.5 * z * z - top)
        s0 += w
        s1 -= w * z
        j += step
    return s0, s1


@kernel()
def windowed_log_kde_terms(
    points: NDArray, sample: NDArray, h: float, tail: float,
    log_sum: NDArray, log_derivative: NDArray,
) -> None:
    """log Σ_j exp(−z_j²/2) and Σ_j w_j (−z_j) / (h Σ_j w_j) at each point, into the outputs.

    ``sample`` must be sorted increasingly.
    """
    size = sample.size
    for k in range(points.size):
        x = points[k]
        right = np.searchsorted(sample, x)
        nearest = right if right < size else size - 1
        if right > 0 and (right == size or x - sample[right - 1] <= sample[right] - x):
            nearest = right - 1
        z0 = (x - sample[nearest]) / h
        top = -0.5 * z0 * z0
        limit = z0 * z0 + 2.0 * tail
        # Outwards from the nearest sample: leftwards first, then rightwards.
        s0, s1 = _scan(x, sample, h, top, limit, nearest, -1, -1, 0.0, 0.0)
        s0, s1 = _scan(x, sample, h, top, limit, nearest + 1, size, 1, s0, s1)
        log_sum[k] = top + math.log(s0)
        log_derivative[k] = s1 / (s0 * h)
