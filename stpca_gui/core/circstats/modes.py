"""Clustering of a periodic sample (e.g. the PNS1 score) by the modes of its density (paper, §5).

Two rules. The default, ``method="tested"``, keeps only the modes the data support: the
number of modes k̂ comes from Silverman's critical-bandwidth test
(:mod:`~stpca_gui.core.circstats.mode_test`) and the clusters' boundaries are the antimodes of
the paper's plug-in KDE below, its least prominent modes merged away down to k̂ (the
domains of attraction of the modes of the KDE at the critical bandwidth for k̂ modes when
the plug-in KDE has fewer than k̂: :func:`clusters_for_test`); k̂ = 1 means no cluster
structure (``docs/mode_test.md``). :func:`pns1_mode_clusters`, the product's rule
for PNS1, first tests the data for uniformity on the torus. ``method="paper"`` is the
paper's rule, described below: every local maximum of the KDE with the plug-in bandwidth.

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

import dataclasses
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq

from .._base.progress import CancelCheck
from .._base.random import RandomStateLike
from ..geometry.torus import wrap_angles
from ._modes_kernel import windowed_log_kde_terms
from .bandwidth import (
    check_period,
    check_periodic_sample,
    hpi_derivative,
    unwrapped_at_largest_gap,
)
from .mode_test import (
    DEFAULT_ALPHA,
    DEFAULT_K_MAX,
    DEFAULT_N_BOOT,
    Calibration,
    ModeTest,
    attraction_domains,
    silverman_mode_test,
)
from .prominence import align_antimodes, merge_shallowest_antimodes
from .rates import best_matching_rate

TWO_PI = 2.0 * np.pi

BandwidthChoice = Literal["hpi", "hpi_tripled"]
#: ``"tested"``: the modes the test supports (default); ``"paper"``: every mode of the KDE
#: with the plug-in bandwidth, as in the paper.
ModeRule = Literal["tested", "paper"]
MODE_RULES: tuple[ModeRule, ...] = ("tested", "paper")

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
class _TripledKde:
    """Gaussian KDE of a tripled periodic sample, normalised per period (see module doc)."""

    sample: NDArray[np.float64]  # the 3n points
    n: int
    h: float

    @classmethod
    def of(cls, angles: NDArray[np.float64], period: float, h: float) -> _TripledKde:
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
# Results
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfusionTable:
    """Cross-tabulation of clusters (rows) against true labels (columns).

    Attributes
    ----------
    counts : ndarray of int, shape (K, L)
        ``counts[k, l]`` = number of points of cluster ``row_labels[k]`` whose true label is
        ``column_labels[l]``.
    row_labels : ndarray of int, shape (K,)
        Cluster ids ``0 … K−1``.
    column_labels : ndarray, shape (L,)
        The distinct true label values, sorted.
    matching : tuple of (int, object) pairs
        The best one-to-one assignment (cluster id, label value) found by the Hungarian
        algorithm; clusters or labels left out are unmatched.
    """

    counts: NDArray[np.int64]
    row_labels: NDArray[np.int64]
    column_labels: NDArray
    matching: tuple[tuple[int, object], ...]


@dataclass(frozen=True)
class ModeClustering:
    """Result of :func:`periodic_mode_clusters`.

    Attributes
    ----------
    labels : ndarray of int, shape (n,)
        Cluster id of every point, ``0 … K−1`` in circular order (cluster k contains
        ``modes[k]``).
    modes : ndarray, shape (K,)
        The modes (local maxima of the density), increasing, in [−P/2, P/2).
    antimodes : ndarray, shape (K,)
        ``antimodes[k]`` is the antimode that starts the arc of cluster k (going in the
        increasing direction): cluster k is the arc from ``antimodes[k]`` to
        ``antimodes[(k + 1) % K]``, in [−P/2, P/2). With one cluster, the single antimode.
    bandwidth : float
        Gaussian kernel standard deviation, in data units, of the density whose antimodes
        bound the clusters (the tested rule: the plug-in bandwidth, or the critical one for
        k̂ modes when the plug-in density has fewer, :func:`clusters_for_test`).
    grid : ndarray, shape (m,)
        Equispaced evaluation points covering [−P/2, P/2).
    density : ndarray, shape (m,)
        That density on ``grid`` (integrates to about one over a period).
    period : float
        The period P.
    classification_rate : float or None
        With true labels: the fraction of points correctly classified under the best
        one-to-one matching of clusters to labels (Hungarian algorithm); points in unmatched
        clusters count as errors.
    confusion : ConfusionTable or None
        With true labels: clusters × labels table.
    method : {"tested", "paper"}
        The rule that made the clusters (``"paper"`` for results saved before the test).
    mode_test : ModeTest or None
        With the tested rule: the test behind k̂ (p-value of every step).
    stability : ndarray of float, shape (K,), or None
        When asked for: each cluster's mean bootstrap Jaccard similarity
        (:func:`~stpca_gui.core.circstats.cluster_stability.cluster_stability`).
    """

    labels: NDArray[np.int64]
    modes: NDArray[np.float64]
    antimodes: NDArray[np.float64]
    bandwidth: float
    grid: NDArray[np.float64]
    density: NDArray[np.float64]
    period: float
    classification_rate: float | None = None
    confusion: ConfusionTable | None = None
    method: str = "paper"
    mode_test: ModeTest | None = None
    stability: NDArray[np.float64] | None = None

    @property
    def n_clusters(self) -> int:
        """Number of clusters K."""
        return int(self.modes.size)

    @property
    def has_structure(self) -> bool:
        """Whether the clustering finds more than one cluster."""
        return self.n_clusters > 1

    def describe(self) -> str:
        """One line for people: the rule, the number of clusters and, for the tested rule,
        the p-value of every step (e.g. "3 clusters (tested, α = 0.05; k=1: p<0.004, …)")."""
        if self.mode_test is not None:
            verdict = self.mode_test.verdict()
            if not self.has_structure:
                return f"1 cluster — {verdict}"
            return f"{self.n_clusters} clusters — {verdict}"
        count = f"{self.n_clusters} cluster{'s' if self.n_clusters != 1 else ''}"
        return f"{count} (paper rule: every mode, bandwidth {self.bandwidth:.3g}, untested)"

    @property
    def sizes(self) -> NDArray[np.int64]:
        """Number of points in each cluster, shape (K,)."""
        return np.bincount(self.labels, minlength=self.n_clusters)


# ---------------------------------------------------------------------------------------------
# Extrema and clustering
# ---------------------------------------------------------------------------------------------


def _locate_extrema(
    kde: _TripledKde, grid: NDArray[np.float64], log_derivative: NDArray[np.float64],
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


def periodic_mode_clusters(
    angles: ArrayLike,
    period: float = TWO_PI,
    bandwidth: float | BandwidthChoice | None = None,
    labels: ArrayLike | None = None,
    *,
    method: ModeRule = "tested",
    alpha: float = DEFAULT_ALPHA,
    k_max: int = DEFAULT_K_MAX,
    n_boot: int = DEFAULT_N_BOOT,
    calibration: Calibration = "silverman",
    random_state: RandomStateLike = 0,
    grid_size: int | None = None,
    min_density: float = 1e-3,
    min_prominence: float = 1e-6,
    check: CancelCheck | None = None,
) -> ModeClustering:
    """Cluster a periodic sample by the modes of its density: the tested modes (default) or
    every mode of the KDE (``method="paper"``).

    ``method="tested"``: k̂ from :func:`~stpca_gui.core.circstats.mode_test.silverman_mode_test`
    (``alpha``, ``k_max``, ``n_boot``, ``calibration``, ``random_state``), the clusters
    from :func:`clusters_for_test` (the paper rule's antimodes merged down to k̂, or the
    critical-bandwidth domains); ``bandwidth``, ``grid_size``, ``min_density`` and
    ``min_prominence`` belong to the paper's rule and must be left at their defaults.
    ``method="paper"``: the paper's rule, as described below.
    """
    if method == "tested":
        if bandwidth is not None or grid_size is not None:
            raise ValueError("the tested rule chooses its own bandwidth and grid; "
                             "use method='paper' to give them")
        return _tested_clusters(angles, period, labels, alpha=alpha, k_max=k_max,
                                n_boot=n_boot, calibration=calibration,
                                random_state=random_state, check=check)
    if method != "paper":
        raise ValueError(f"unknown method {method!r}; use 'tested' or 'paper'")
    return _paper_clusters(angles, period, bandwidth, labels, grid_size=grid_size,
                           min_density=min_density, min_prominence=min_prominence,
                           check=check)


def _paper_clusters(
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

    true_labels = _checked_labels(labels, n)

    if grid_size is None:
        m = int(np.clip(2 ** math.ceil(math.log2(_POINTS_PER_BANDWIDTH * period / h)),
                        _MIN_GRID, _MAX_GRID))
    else:
        m = int(grid_size)
        if m < 8:
            raise ValueError(f"grid_size must be at least 8, got {grid_size}")
    grid = -0.5 * period + period * np.arange(m) / m
    kde = _TripledKde(sample=tripled, n=n, h=h)
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
        cluster = _arc_labels(wrapped, antimodes, period)

    rate = None
    confusion = None
    if true_labels is not None:
        rate, confusion = _classification(cluster, modes.size, true_labels)

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


def _checked_labels(labels: ArrayLike | None, n: int) -> NDArray | None:
    if labels is None:
        return None
    true_labels = np.asarray(labels).ravel()
    if true_labels.shape != (n,):
        raise ValueError(f"labels must have shape ({n},), got {true_labels.shape}")
    return true_labels


def _arc_labels(wrapped: NDArray[np.float64], antimodes: NDArray[np.float64],
                period: float) -> NDArray[np.int64]:
    """Cluster k = the arc from ``antimodes[k]`` to ``antimodes[k + 1]`` (circularly)."""
    if antimodes.size <= 1:
        return np.zeros(wrapped.size, dtype=np.int64)
    start = antimodes[0]
    bounds = np.mod(antimodes - start, period)
    rel = np.mod(wrapped - start, period)
    cluster = (np.searchsorted(bounds, rel, side="right") - 1).astype(np.int64)
    return np.clip(cluster, 0, antimodes.size - 1)


def _modes_and_preceding_antimodes(
    maxima: NDArray[np.float64], minima: NDArray[np.float64], period: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Modes increasing in [−P/2, P/2), each with the antimode just before it (circularly)."""
    order, preceding = align_antimodes(maxima, minima, period)
    return wrap_angles(maxima, period)[order], wrap_angles(minima, period)[preceding]


def _tested_clusters(
    angles: ArrayLike, period: float, labels: ArrayLike | None, *, alpha: float,
    k_max: int, n_boot: int, calibration: Calibration, random_state: RandomStateLike,
    check: CancelCheck | None, test: ModeTest | None = None,
) -> ModeClustering:
    """The test's k̂ and :func:`clusters_for_test`'s boundaries."""
    period = check_period(period)
    x = check_periodic_sample(angles)
    true_labels = _checked_labels(labels, x.size)
    if test is None:
        test = silverman_mode_test(x, period, alpha=alpha, k_max=k_max, n_boot=n_boot,
                                   calibration=calibration, random_state=random_state,
                                   check=check)
    return clusters_for_test(x, period, test, true_labels, check=check)


def clusters_for_test(
    angles: ArrayLike, period: float, test: ModeTest, labels: ArrayLike | None = None,
    *, paper: ModeClustering | None = None, check: CancelCheck | None = None,
) -> ModeClustering:
    """The clusters of a finished :class:`ModeTest`: ``test.n_modes`` (k̂) clusters.

    The test decides how many clusters there are; their boundaries come from the best
    density estimate at hand for locating features, the paper's KDE with the plug-in
    bandwidth for the density derivative (:func:`plug_in_bandwidth`):

    * if it has exactly k̂ modes, its antimodes (the clusters are then the paper rule's);
    * if it has more, its modes merged across their shallowest antimodes down to k̂
      (:func:`~stpca_gui.core.circstats.prominence.merge_shallowest_antimodes`);
    * if it has fewer (the plug-in bandwidth oversmooths), the domains of attraction of the
      modes of the wrapped-normal KDE at the critical bandwidth for k̂ modes.

    One cluster when k̂ is 1. The critical-bandwidth KDE has k̂ modes by construction but,
    being the least smoothed density with that many, it places the antimodes where the
    smallest of the k̂ bumps just survives rather than where the density is lowest; on the
    small RNA data its boundaries cost 3 points of 190 against the plug-in's
    (``docs/mode_test.md``).

    Parameters
    ----------
    angles : array_like, shape (n,)
        The sample the test was run on.
    period : float
        Its period.
    test : ModeTest
        The finished test (k̂ = ``test.n_modes``; its critical bandwidths for the fallback).
    labels : array_like, shape (n,), optional
        True labels, for the classification rate and the confusion table.
    paper : ModeClustering, optional
        The paper rule's clusters of the same sample with the default (plug-in) bandwidth,
        when the caller has them already (the app shows both rules): not computed again.
    check : callable, optional
        Cancel check, passed to the density scan.

    Returns
    -------
    ModeClustering
        ``method="tested"``, with ``test`` attached.

    Raises
    ------
    ValueError
        When ``paper`` is not the paper rule's clustering of a sample of this size.
    """
    period = check_period(period)
    x = check_periodic_sample(angles)
    true_labels = _checked_labels(labels, x.size)
    k = max(int(test.n_modes), 1)
    if paper is not None and (paper.method != "paper" or paper.labels.size != x.size):
        raise ValueError("paper must be the paper rule's clusters of the same sample")
    if k > 1:
        if paper is None:
            paper = _paper_clusters(x, period, check=check)
        if paper.n_clusters >= k:
            return _merged_plug_in_clusters(x, paper, test, true_labels)
    return _critical_clusters(x, period, test, true_labels)


def _merged_plug_in_clusters(
    x: NDArray[np.float64], plug_in: ModeClustering, test: ModeTest,
    true_labels: NDArray | None,
) -> ModeClustering:
    """The paper rule's clusters with their least prominent modes merged down to k̂."""
    period = plug_in.period
    k = int(test.n_modes)
    modes, antimodes = plug_in.modes, plug_in.antimodes
    if plug_in.n_clusters > k:
        # The depths need the exact KDE at the extrema (the grid's would round them).
        kde = _TripledKde.of(x, period, plug_in.bandwidth)
        kept_modes, kept_antimodes = merge_shallowest_antimodes(
            modes, kde.density(modes), antimodes, kde.density(antimodes), k, period)
        modes, antimodes = modes[kept_modes], antimodes[kept_antimodes]
    cluster = _arc_labels(wrap_angles(x, period), antimodes, period)
    rate = confusion = None
    if true_labels is not None:
        rate, confusion = _classification(cluster, k, true_labels)
    return dataclasses.replace(plug_in, labels=cluster, modes=modes, antimodes=antimodes,
                               classification_rate=rate, confusion=confusion,
                               method="tested", mode_test=test)


def _critical_clusters(
    x: NDArray[np.float64], period: float, test: ModeTest, true_labels: NDArray | None,
) -> ModeClustering:
    """Domains of attraction of the modes of the KDE at the critical bandwidth for k̂."""
    from .mode_test import _BinnedSample, _critical, _unit_angles

    wrapped = wrap_angles(x, period)
    sample = _BinnedSample(_unit_angles(x, period))
    k = max(int(test.n_modes), 1)
    if len(test.critical_bandwidths) >= k:
        h = test.critical_bandwidths[k - 1] * TWO_PI / period
    else:  # the uniformity test stood in for the mode test: show the one-mode density
        h = _critical(sample, 1)
    node = period / sample.size
    grid = -0.5 * period + node * np.arange(sample.size)
    density = sample.density(h) * (TWO_PI / period)
    if k == 1:
        top = int(np.argmax(density))
        modes = np.array([grid[top]])
        antimodes = np.array([grid[int(np.argmin(density))]])
        cluster = np.zeros(x.size, dtype=np.int64)
    else:
        maxima, minima = attraction_domains(sample.derivative(h))
        modes, antimodes = _modes_and_preceding_antimodes(
            -0.5 * period + node * maxima, -0.5 * period + node * minima, period)
        cluster = _arc_labels(wrapped, antimodes, period)
    rate = confusion = None
    if true_labels is not None:
        rate, confusion = _classification(cluster, modes.size, true_labels)
    return ModeClustering(labels=cluster, modes=modes, antimodes=antimodes,
                          bandwidth=float(h * period / TWO_PI), grid=grid, density=density,
                          period=period, classification_rate=rate, confusion=confusion,
                          method="tested", mode_test=test)


def _classification(
    cluster: NDArray[np.int64], k: int, true_labels: NDArray
) -> tuple[float, ConfusionTable]:
    """Best one-to-one matching rate and the confusion table."""
    values, inverse = np.unique(true_labels, return_inverse=True)
    counts = np.bincount(cluster * values.size + inverse.ravel(),
                         minlength=k * values.size).reshape(k, values.size).astype(np.int64)
    matched, rows, cols = best_matching_rate(counts)
    matching = tuple((int(r), values[c].item() if hasattr(values[c], "item") else values[c])
                     for r, c in zip(rows, cols, strict=True))
    table = ConfusionTable(counts=counts, row_labels=np.arange(k, dtype=np.int64),
                           column_labels=values, matching=matching)
    return matched / cluster.size, table


def pns1_mode_clusters(
    pns1: ArrayLike,
    period: float,
    *,
    torus_angles: ArrayLike | None = None,
    method: ModeRule = "tested",
    alpha: float = DEFAULT_ALPHA,
    labels: ArrayLike | None = None,
    stability: bool = False,
    random_state: RandomStateLike = 0,
    paper: ModeClustering | None = None,
    check: CancelCheck | None = None,
) -> ModeClustering:
    """The product's mode clusters of PNS1 (app, command line, sessions).

    With the tested rule and ``torus_angles`` (the data the PNS1 scores come from), the data
    are first tested for uniformity on the torus
    (:func:`~stpca_gui.core.circstats.torus_uniformity.torus_uniformity_test`): PNS1 of uniform data
    is not uniform on its circle (the ST-PCA map's geometry puts broad bumps on it), so a
    mode test of PNS1 alone would find "clusters" in noise at large n. When uniformity is
    not rejected at ``alpha`` the answer is one cluster, "no cluster structure"; otherwise
    the modes of PNS1 are tested (:func:`periodic_mode_clusters`). ``stability=True`` adds
    each cluster's bootstrap stability (:func:`~stpca_gui.core.circstats.cluster_stability.
    cluster_stability`). ``method="paper"`` gives the paper's clusters, untested. ``paper``:
    those clusters of the same PNS1 when the caller has them already
    (:func:`clusters_for_test`).
    """
    if method == "paper":
        clusters = periodic_mode_clusters(pns1, period, labels=labels, method="paper",
                                          check=check)
        return dataclasses.replace(clusters, stability=None)
    if method != "tested":
        raise ValueError(f"unknown method {method!r}; use 'tested' or 'paper'")
    from .cluster_stability import cluster_stability
    from .torus_uniformity import torus_uniformity_test

    period = check_period(period)
    x = check_periodic_sample(pns1)
    uniformity = None
    if torus_angles is not None:
        uniformity = torus_uniformity_test(torus_angles).p_value
    if uniformity is not None and uniformity >= alpha:
        test = ModeTest(n_modes=1, p_values=(), critical_bandwidths=(), alpha=float(alpha),
                        calibration="silverman", n_boot=DEFAULT_N_BOOT, k_max=DEFAULT_K_MAX,
                        period=period, n=x.size, uniformity_p_value=uniformity)
    else:
        test = silverman_mode_test(x, period, alpha=alpha, random_state=random_state,
                                   check=check)
        if uniformity is not None:
            test = dataclasses.replace(test, uniformity_p_value=uniformity)
    clusters = clusters_for_test(x, period, test, labels, paper=paper, check=check)
    if stability:
        plug_in = paper.bandwidth if paper is not None else plug_in_bandwidth(x, period)
        figures = cluster_stability(x, period, clusters.antimodes, clusters.n_clusters,
                                    bandwidth=plug_in,
                                    random_state=random_state, check=check)
        clusters = dataclasses.replace(clusters, stability=figures)
    return clusters


def model_mode_clusters(
    model: object,
    *,
    method: ModeRule = "tested",
    alpha: float = DEFAULT_ALPHA,
    labels: ArrayLike | None = None,
    stability: bool = True,
    paper: ModeClustering | None = None,
    check: CancelCheck | None = None,
) -> ModeClustering:
    """:func:`pns1_mode_clusters` of a fitted :class:`~stpca_gui.core.stpca.ScaledTorusPCA`:
    its PNS1 scores, their period and, for the uniformity test, the angles it was fitted on.
    """
    period = TWO_PI * float(model.pns_.circle_radius_)  # type: ignore[attr-defined]
    return pns1_mode_clusters(model.scores_[:, 0], period,  # type: ignore[attr-defined]
                              torus_angles=getattr(model, "angles_", None), method=method,
                              alpha=alpha, labels=labels, stability=stability, paper=paper,
                              check=check)
