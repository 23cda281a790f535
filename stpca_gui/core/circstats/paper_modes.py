"""The paper's rule (§5): clusters of a periodic sample bounded by every antimode of its KDE.

The sample ``x_1, …, x_n`` of a quantity with period ``P`` is wrapped to [−P/2, P/2) and
*tripled*, ``{x_i − P, x_i, x_i + P}``, and the ordinary Gaussian kernel density estimate of
the tripled sample is evaluated on one period:

    f(x) = 1/(n h) · Σ_i Σ_{m = −1}^{1} φ((x − x_i − m P) / h),     x ∈ [−P/2, P/2),

with φ the standard normal density. (``ks::kde`` on the tripled sample, the R reference,
divides by 3n instead of n; the modes are the same, and the normalisation used here makes
``f`` integrate to one over a period up to the negligible mass of the kernels beyond one
period.) The *modes* and *antimodes* are the local maxima and minima of ``f`` on the circle;
each cluster is the arc between two consecutive antimodes and contains exactly one mode.

The extrema are bracketed on a fine grid by the sign of the logarithmic derivative (which
never underflows) and refined by Brent's method; spurious extrema (noise, sparse tails) are
discarded (``docs/modes.md``). The default bandwidth is the plug-in selector for the first
derivative, :func:`~stpca_gui.core.circstats.bandwidth.hpi_derivative`
(``ks::hpi(deriv.order = 1)``) of the one-period sample (``docs/bandwidth.md``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq

from .._base.progress import CancelCheck
from ..geometry.torus import TWO_PI, wrap_angles
from ._modes_kernel import windowed_log_kde_terms
from .bandwidth import (
    check_period,
    check_periodic_sample,
    hpi_derivative,
    unwrapped_at_largest_gap,
)
from .mode_clustering import ModeClustering, arc_labels, checked_labels, classification

BandwidthChoice = Literal["hpi", "hpi_tripled"]

#: Grid points evaluated between two cancel checks when scanning the density.
_BLOCK_POINTS = 1024
#: Terms below e^{−_TAIL}/n of the largest are left out of the kernel sums (their total is
#: below 1e-21 of the sum; see :mod:`~stpca_gui.core.circstats._modes_kernel`).
_TAIL = 50.0
#: Grid points per bandwidth, and bounds on the grid size, used to bracket the extrema.
_POINTS_PER_BANDWIDTH = 8
_MIN_GRID = 512
_MAX_GRID = 1 << 16


# ---------------------------------------------------------------------------------------------
# Periodic KDE of the tripled sample
# ---------------------------------------------------------------------------------------------


def _log_kde_terms(
    points: NDArray[np.float64], sample: NDArray[np.float64], h: float,
    check: CancelCheck | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """For each point: log of Σ_j exp(−z_j²/2) and the log-derivative Σ w_j (−z_j)/(h Σ w_j).

    ``sample`` is sorted; only the samples whose terms matter are summed (within
    ~10 bandwidths, :mod:`~stpca_gui.core.circstats._modes_kernel`). ``check`` (optional) is called
    before each block of points.
    """
    points = np.ascontiguousarray(points, dtype=np.float64)
    m = points.size
    log_sum = np.empty(m)
    log_derivative = np.empty(m)
    tail = _TAIL + math.log(max(sample.size, 1))
    for start in range(0, m, _BLOCK_POINTS):
        if check is not None:
            check()
        stop = min(m, start + _BLOCK_POINTS)
        windowed_log_kde_terms(points[start:stop], sample, h, tail, log_sum[start:stop],
                               log_derivative[start:stop])
    return log_sum, log_derivative


@dataclass(frozen=True)
class TripledKde:
    """Gaussian KDE of a tripled periodic sample, normalised per period (see module doc)."""

    sample: NDArray[np.float64]  # the 3n points
    n: int
    h: float

    @classmethod
    def of(cls, angles: NDArray[np.float64], period: float, h: float) -> TripledKde:
        """The KDE with bandwidth ``h`` of a periodic sample (wrapped, sorted, tripled)."""
        ordered = np.sort(wrap_angles(angles, period))
        return cls(sample=np.concatenate([ordered - period, ordered, ordered + period]),
                   n=ordered.size, h=float(h))

    def log_density(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        log_sum, _ = _log_kde_terms(points, self.sample, self.h)
        return log_sum - math.log(self.n * self.h * math.sqrt(TWO_PI))

    def density(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.exp(self.log_density(points))

    def log_derivative(self, point: float) -> float:
        _, value = _log_kde_terms(np.array([point]), self.sample, self.h)
        return float(value[0])



# ---------------------------------------------------------------------------------------------
# Extrema and clustering
# ---------------------------------------------------------------------------------------------


def _locate_extrema(
    kde: TripledKde, grid: NDArray[np.float64], log_derivative: NDArray[np.float64],
    period: float,
) -> list[tuple[float, bool]]:
    """(position, is_maximum) of every sign change of f' around the circle, refined."""
    rising = log_derivative > 0.0
    m = grid.size
    nxt = np.roll(rising, -1)
    changes = np.flatnonzero(rising != nxt)
    step = period / m
    extrema: list[tuple[float, bool]] = []
    for k in changes:
        a = float(grid[k])
        b = a + step  # the next grid point, unwrapped across ±P/2 for the last interval
        fa = float(log_derivative[k])
        fb = float(log_derivative[(k + 1) % m])
        if fa == 0.0:
            root = a
        elif fb == 0.0:
            root = b
        else:
            root = brentq(kde.log_derivative, a, b, xtol=1e-12 * period, rtol=1e-15,
                          maxiter=200)
        extrema.append((float(wrap_angles(np.array([root]), period)[0]), bool(rising[k])))
    extrema.sort(key=lambda e: e[0])
    return extrema


def _clean_extrema(
    positions: NDArray[np.float64],
    is_max: NDArray[np.bool_],
    dens: NDArray[np.float64],
    min_density: float,
    min_prominence: float,
) -> tuple[list[int], list[int]]:
    """Indices of the kept maxima and, for each, the antimode preceding it (circular order)."""
    top = float(dens.max())
    order = list(range(positions.size))
    keep = [i for i in order if not is_max[i] or dens[i] >= min_density * top]
    maxima = [i for i in keep if is_max[i]]
    if not maxima:
        return [], []
    minima = [i for i in keep if not is_max[i]]
    if not minima:
        return [maxima[int(np.argmax(dens[maxima]))]], []

    def lowest_between(left: int, right: int) -> int:
        """Lowest minimum strictly between two maxima positions (circular, left → right)."""
        lo, hi = positions[left], positions[right]
        if len(maxima) == 1:
            inside = minima
        elif lo < hi:
            inside = [i for i in minima if lo < positions[i] < hi]
        else:
            inside = [i for i in minima if positions[i] > lo or positions[i] < hi]
        return min(inside, key=lambda i: dens[i])

    while True:
        maxima.sort(key=lambda i: positions[i])
        k = len(maxima)
        preceding = [lowest_between(maxima[j - 1], maxima[j]) for j in range(k)]
        if k == 1:
            return maxima, preceding
        following = [preceding[(j + 1) % k] for j in range(k)]
        prominence = [dens[maxima[j]] - max(dens[preceding[j]], dens[following[j]])
                      for j in range(k)]
        weakest = int(np.argmin(prominence))
        if prominence[weakest] >= min_prominence * top:
            return maxima, preceding
        maxima.pop(weakest)



def paper_mode_clusters(
    angles: ArrayLike,
    period: float = TWO_PI,
    bandwidth: float | BandwidthChoice | None = None,
    labels: ArrayLike | None = None,
    *,
    grid_size: int | None = None,
    min_density: float = 1e-3,
    min_prominence: float = 1e-6,
    check: CancelCheck | None = None,
) -> ModeClustering:
    """Cluster a periodic sample by the modes of the KDE of its tripled sample (the paper).

    Parameters
    ----------
    angles : array_like, shape (n,)
        The sample (any real values; only their position modulo ``period`` matters), e.g.
        angles in radians or PNS1 scores.
    period : float, default 2π
        The period P (``2π·circle_radius`` for PNS1 scores).
    bandwidth : float or {"hpi", "hpi_tripled"}, optional
        Gaussian kernel standard deviation in data units. Default (``None`` or ``"hpi"``):
        :func:`hpi_derivative` with ``deriv_order=1`` of the one-period sample (unwrapped at
        its largest gap), as the R reference does; ``"hpi_tripled"``: the same selector on the
        tripled sample (see docs/bandwidth.md).
    labels : array_like, shape (n,), optional
        True labels; if given, the classification rate and confusion table are returned.
    grid_size : int, optional
        Number of grid points used to bracket the extrema and to report the density
        (default: at least 512 and at least 8 per bandwidth, capped at 65536).
    min_density : float, default 1e-3
        Maxima whose density is below ``min_density`` × the largest density are ignored.
    min_prominence : float, default 1e-6
        Maxima rising less than ``min_prominence`` × the largest density above their
        neighbouring antimodes are merged into a neighbour.
    check : callable, optional
        Called between blocks of the density scan (seconds for 10⁵ points) and before the
        extrema are refined; it raises :class:`~stpca_gui.core._base.progress.FitCancelled` to
        stop. The result does not depend on it.

    Returns
    -------
    ModeClustering

    Raises
    ------
    ValueError
        For an empty or non-finite sample, a non-positive period or bandwidth, or labels of
        the wrong length.
    """
    period = check_period(period)
    x = check_periodic_sample(angles)
    wrapped = wrap_angles(x, period)
    n = x.size
    ordered = np.sort(wrapped)
    tripled = np.concatenate([ordered - period, ordered, ordered + period])  # sorted
    if bandwidth is None or bandwidth == "hpi":
        h = plug_in_bandwidth(x, period)
    elif bandwidth == "hpi_tripled":
        h = hpi_derivative(tripled, deriv_order=1)
    elif isinstance(bandwidth, str):
        raise ValueError(f"unknown bandwidth {bandwidth!r}; use a number, 'hpi' or "
                         "'hpi_tripled'")
    else:
        h = float(bandwidth)
    if not np.isfinite(h) or h <= 0.0:
        raise ValueError(f"bandwidth must be positive and finite, got {h}")

    true_labels = checked_labels(labels, n)

    if grid_size is None:
        m = int(np.clip(2 ** math.ceil(math.log2(_POINTS_PER_BANDWIDTH * period / h)),
                        _MIN_GRID, _MAX_GRID))
    else:
        m = int(grid_size)
        if m < 8:
            raise ValueError(f"grid_size must be at least 8, got {grid_size}")
    grid = -0.5 * period + period * np.arange(m) / m
    kde = TripledKde(sample=tripled, n=n, h=h)
    log_sum, log_derivative = _log_kde_terms(grid, tripled, h, check)
    density = np.exp(log_sum - math.log(n * h * math.sqrt(TWO_PI)))
    if check is not None:
        check()

    extrema = _locate_extrema(kde, grid, log_derivative, period)
    if extrema:
        positions = np.array([e[0] for e in extrema])
        is_max = np.array([e[1] for e in extrema])
        ext_density = kde.density(positions)
        kept_max, preceding = _clean_extrema(positions, is_max, ext_density, min_density,
                                             min_prominence)
    else:
        kept_max, preceding = [], []

    if len(kept_max) == 0:  # flat density: one cluster around the grid maximum
        modes = np.array([grid[int(np.argmax(density))]])
        antimodes = np.array([grid[int(np.argmin(density))]])
        cluster = np.zeros(n, dtype=np.int64)
    elif not preceding:
        modes = positions[kept_max]
        antimodes = np.array([grid[int(np.argmin(density))]])
        cluster = np.zeros(n, dtype=np.int64)
    else:
        modes = positions[kept_max]
        antimodes = positions[preceding]
        cluster = arc_labels(wrapped, antimodes, period)

    rate = None
    confusion = None
    if true_labels is not None:
        rate, confusion = classification(cluster, modes.size, true_labels)

    return ModeClustering(
        labels=cluster,
        modes=modes,
        antimodes=antimodes,
        bandwidth=float(h),
        grid=grid,
        density=density,
        period=period,
        classification_rate=rate,
        confusion=confusion,
    )


def plug_in_bandwidth(angles: ArrayLike, period: float = TWO_PI) -> float:
    """The paper rule's bandwidth: :func:`hpi_derivative` (first derivative) of the sample
    cut at its largest circular gap.

    Parameters
    ----------
    angles : array_like, shape (n,)
        The periodic sample.
    period : float, default 2π
        Its period.

    Returns
    -------
    float
        The Gaussian kernel's standard deviation, in data units.
    """
    x = check_periodic_sample(angles)
    return float(hpi_derivative(unwrapped_at_largest_gap(x, check_period(period)),
                                deriv_order=1))

