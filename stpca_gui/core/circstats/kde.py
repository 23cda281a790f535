"""Kernel density estimation for periodic (circular) data, e.g. the PNS1 score.

The kernel is the von Mises density. A sample ``x`` of a quantity with period ``P`` (PNS1
has period ``2π·circle_radius_``) is mapped to angles ``θ = 2π·x / P`` on the unit circle,
and the estimate

    f(x) = (1 / P) · Σ_i w_i · exp(κ (cos(θ(x) − θ_i) − 1)) / I₀ₑ(κ),

with ``I₀ₑ(κ) = e^{−κ} I₀(κ)`` and weights ``w_i`` summing to one, integrates to 1 over one
period in the units of ``x`` (per radian when ``x`` is in radians of that period).

``bandwidth`` is a standard deviation in the units of the data; its meaning for the von
Mises kernel and the rules that choose it are in :mod:`stpca_gui.core.circstats.bandwidth` (see
``docs/bandwidth.md``).

By default the sum is evaluated exactly, in blocks of samples × grid points so that
memory stays bounded (about 8 MB per block) for n up to 10⁵ and more (about 0.2 s for
n = 10⁵, m = 512). ``method="binned"`` instead bins the sample linearly onto
``BINNED_POINTS`` equispaced points of the period, convolves circularly with the kernel by
FFT and interpolates linearly onto the grid: O(n + M log M + m), with a relative error of
order (Δ/σ)² for bin width Δ; ``method="auto"`` picks it for large n·m when the kernel is
wide enough for that error to be negligible.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import i0e

from ..geometry.torus import TWO_PI
from ._circular_binning import (
    BINNED_POINTS,
    MIN_SIGMA_IN_BINS,
    kernel_on_nodes,
    linear_binning,
    smooth_binned,
)
from .bandwidth import (
    BandwidthRule,
    bandwidth_to_concentration,
    check_period,
    check_periodic_sample,
    circular_bandwidth,
)

__all__ = [
    "BINNED_POINTS",
    "BandwidthRule",
    "KdeMethod",
    "binned_is_accurate",
    "circular_bandwidth",
    "circular_kde",
]


KdeMethod = Literal["exact", "binned", "auto"]

#: Samples × grid points evaluated at once (float64: 8 MB).
_BLOCK_ELEMENTS = 1 << 20
#: Above this concentration the kernel is evaluated from sin² of the half difference, which
#: keeps full relative precision; below it cos(θ − θᵢ) comes from a (fast) matrix product.
_LARGE_KAPPA = 1e6
#: ``method="auto"`` bins only kernels at least MIN_SIGMA_IN_BINS bins wide, and only when
#: the exact sum would take more kernel evaluations than this.
_AUTO_EXACT_LIMIT = 4_000_000


def circular_kde(
    angles: ArrayLike,
    grid: ArrayLike,
    bandwidth: float | None = None,
    period: float = TWO_PI,
    weights: ArrayLike | None = None,
    method: KdeMethod = "exact",
) -> NDArray[np.float64]:
    """Von Mises kernel density estimate of a periodic sample, evaluated on ``grid``.

    Parameters
    ----------
    angles : array_like, shape (n,)
        The sample, in data units (radians for angles; PNS1 values for PNS1).
    grid : array_like, any shape
        Where to evaluate the density (any real values; periodic).
    bandwidth : float, optional
        Kernel standard deviation in data units (see the module docstring); default
        :func:`circular_bandwidth` (``rule="silverman"``) of the sample.
    period : float, default 2π
        Period of the data. Angles are rescaled by ``2π / period`` internally.
    weights : array_like, shape (n,), optional
        Non-negative sample weights (normalised to sum to one).
    method : {"exact", "binned", "auto"}, default "exact"
        ``"exact"``: the O(n·m) kernel sum; ``"binned"``: linear binning + FFT (see the
        module docstring); ``"auto"``: binned when n·m is large and the kernel spans at
        least a few bins, exact otherwise.

    Returns
    -------
    ndarray, same shape as ``grid``
        Density in 1/(data unit): it integrates to 1 over any interval of length
        ``period``.

    Notes
    -----
    The exact sum is evaluated in blocks of at most about 10⁶ kernel values.
    """
    period = check_period(period)
    x = check_periodic_sample(angles)
    g = np.asarray(grid, dtype=np.float64)
    if weights is None:
        w = np.full(x.size, 1.0 / x.size)
    else:
        w = np.asarray(weights, dtype=np.float64).ravel()
        if w.shape != x.shape:
            raise ValueError(f"weights must have shape {x.shape}, got {w.shape}")
        if np.any(~np.isfinite(w)) or np.any(w < 0.0) or w.sum() <= 0.0:
            raise ValueError("weights must be finite, non-negative and not all zero")
        w = w / w.sum()
    if bandwidth is None:
        bandwidth = circular_bandwidth(x, period)
    kappa = bandwidth_to_concentration(bandwidth, period)

    theta = TWO_PI * np.mod(x, period) / period
    theta_grid = TWO_PI * np.mod(g.ravel(), period) / period
    m = theta_grid.size
    if method not in ("exact", "binned", "auto"):
        raise ValueError(f"unknown method {method!r}; use 'exact', 'binned' or 'auto'")
    if method == "auto":
        wide = binned_is_accurate(bandwidth, period)
        method = "binned" if wide and x.size * m > _AUTO_EXACT_LIMIT else "exact"
    if method == "binned":
        return _binned_kde(theta, w, kappa, theta_grid, period).reshape(g.shape)
    out = np.zeros(m)
    if kappa == 0.0:
        out[:] = 1.0
    else:
        grid_step = max(1, min(m, _BLOCK_ELEMENTS))
        sample_step = max(1, _BLOCK_ELEMENTS // grid_step)
        for g0 in range(0, m, grid_step):
            tg = theta_grid[g0:g0 + grid_step]
            acc = out[g0:g0 + grid_step]
            trig_grid = np.column_stack([np.cos(tg), np.sin(tg)])
            for s0 in range(0, x.size, sample_step):
                ts = theta[s0:s0 + sample_step]
                if kappa > _LARGE_KAPPA:
                    half = np.sin(0.5 * (tg[:, None] - ts[None, :]))
                    arg = -2.0 * kappa * half * half
                else:
                    arg = trig_grid @ np.vstack([np.cos(ts), np.sin(ts)])
                    arg -= 1.0
                    arg *= kappa
                np.exp(arg, out=arg)
                acc += arg @ w[s0:s0 + sample_step]
        out /= float(i0e(kappa))
    out /= period
    return out.reshape(g.shape)


def binned_is_accurate(bandwidth: float, period: float = TWO_PI) -> bool:
    """Whether ``method="binned"`` is accurate to about 3e-4 of the peak density here:
    the kernel spans at least a few of the ``BINNED_POINTS`` bins of one period."""
    return TWO_PI * float(bandwidth) / float(period) >= MIN_SIGMA_IN_BINS * TWO_PI / BINNED_POINTS


def _binned_kde(
    theta: NDArray[np.float64],
    w: NDArray[np.float64],
    kappa: float,
    theta_grid: NDArray[np.float64],
    period: float,
) -> NDArray[np.float64]:
    """Linear binning onto BINNED_POINTS, FFT circular convolution, linear interpolation."""
    size = BINNED_POINTS
    _, _, counts = linear_binning(theta, w, size)
    smooth = smooth_binned(counts, kernel_on_nodes(kappa, size))
    nodes = TWO_PI * np.arange(size) / size
    return np.interp(theta_grid, nodes, smooth, period=TWO_PI) * (TWO_PI / period)


