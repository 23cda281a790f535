"""Clustering of a periodic sample (e.g. the PNS1 score) by the modes of its density.

Method (paper, section 5)
-------------------------
The sample ``x_1, …, x_n`` of a quantity with period ``P`` is wrapped to [−P/2, P/2) and
*tripled*, ``{x_i − P, x_i, x_i + P}``, and the ordinary Gaussian kernel density estimate of
the tripled sample is evaluated on one period:

    f(x) = 1/(n h) · Σ_i Σ_{m = −1}^{1} φ((x − x_i − m P) / h),     x ∈ [−P/2, P/2),

with φ the standard normal density. (``ks::kde`` on the tripled sample, the R reference,
divides by 3n instead of n; the modes are the same, and the normalisation used here makes
``f`` integrate to one over a period up to the negligible mass of the kernels beyond one
period.) The *modes* and *antimodes* are the local maxima and minima of ``f`` on the circle;
each cluster is the arc between two consecutive antimodes and contains exactly one mode.

Locating the extrema
--------------------
The sign of ``f'`` is evaluated on a fine equispaced grid (at least 512 points and at least
8 per bandwidth), every sign change is bracketed and refined by Brent's method on the analytic
derivative. The sign is computed from the *logarithmic* derivative
``f'/f = Σ w_j (−z_j) / (h Σ w_j)`` with ``z_j = (x − y_j)/h`` and weights
``w_j = exp(−z_j²/2 − max_k(−z_k²/2))``, which never underflows: in an empty arc, where ``f``
itself is below the smallest double, the extrema are still located exactly.

Spurious extrema are discarded, so that floating-point noise and sparse tails do not create
clusters: a maximum whose density is below ``min_density`` times the largest density is
dropped (the default 10⁻³ also removes the isolated bumps of single points in an almost empty
arc), between two surviving maxima only the lowest minimum is kept, and maxima whose
prominence (height above the higher of the two neighbouring antimodes) is below
``min_prominence`` times the largest density are merged into their neighbour, least
prominent first. A unimodal sample gives one cluster holding every point, delimited by its
single antimode.

Bandwidth
---------
By default the bandwidth is the Wand & Jones plug-in selector for the *first derivative* of
the density, exactly as ``ks::hpi(x, deriv.order = 1)`` computes it for one-dimensional data
(see :func:`hpi_derivative`): a derivative-oriented bandwidth is larger than a
density-oriented one and is the natural choice when the goal is to locate the zeros of
``f'``. It is computed on the *single-period* sample, unwrapped at its largest gap (so the
result does not depend on where the period is cut, and equals the value for the sample taken
in [−P/2, P/2) whenever the largest gap straddles ±P/2). This is what the R reference for the
paper's PNS1 clustering does (``/work/shared/oracle/pns/b_small_clusters.json``:
``h_hpi_deriv1`` is ``ks::hpi`` of the one-period sample, reproduced here to 1e-15), while
the density is then estimated on the tripled sample. ``bandwidth="hpi_tripled"`` applies the
selector to the tripled sample instead; since the tripled sample is spread over three periods,
its normal-scale pilot stages then grossly oversmooth (h = 1.12 instead of 0.24 for the
three-cluster reference, which merges all clusters into one).

References
----------
Wand, M. P. and Jones, M. C. (1995). *Kernel Smoothing*. Chapman & Hall (sections 2.10 and
3.6: the AMISE-optimal bandwidth for the r-th derivative, the normal-scale functionals and
the bias-annihilating pilot bandwidths).
Duong, T. (2007). ks: Kernel density estimation and kernel discriminant analysis for
multivariate data in R. *Journal of Statistical Software* 21(7).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq, linear_sum_assignment
from scipy.special import eval_hermitenorm

TWO_PI = 2.0 * np.pi

BandwidthChoice = Literal["hpi", "hpi_tripled"]

#: Grid points of the binned kernel functional estimates (``ks``'s ``default.gridsize(1)``).
HPI_GRIDSIZE = 401
#: Samples × grid points evaluated at once when scanning the density (float64: 8 MB).
_BLOCK_ELEMENTS = 1 << 20
#: Grid points per bandwidth, and bounds on the grid size, used to bracket the extrema.
_POINTS_PER_BANDWIDTH = 8
_MIN_GRID = 512
_MAX_GRID = 1 << 16


# ---------------------------------------------------------------------------------------------
# Plug-in bandwidth for density derivatives (Wand & Jones; ks::hpi for d = 1)
# ---------------------------------------------------------------------------------------------


def _normal_derivative(u: ArrayLike, sigma: float, order: int) -> NDArray[np.float64]:
    """``d^order/du^order`` of the N(0, σ²) density at ``u``.

    Uses ``φ^{(s)}(z) = (−1)^s He_s(z) φ(z)`` with the probabilists' Hermite polynomials.
    """
    z = np.asarray(u, dtype=np.float64) / sigma
    values = eval_hermitenorm(order, z) * np.exp(-0.5 * z * z)
    return (-1.0) ** order * values / (math.sqrt(TWO_PI) * sigma ** (order + 1))


def _psi_normal_scale(order: int, sigma: float) -> float:
    """Normal-scale density functional ψ_s = ∫ f^{(s)} f for f = N(μ, σ²), s even.

    ``ψ_s = (−1)^{s/2} s! / ((2σ)^{s+1} (s/2)! √π)`` (Wand & Jones 1995, p. 69).
    """
    half = order // 2
    return (
        (-1.0) ** half
        * math.factorial(order)
        / ((2.0 * sigma) ** (order + 1) * math.factorial(half) * math.sqrt(math.pi))
    )


def _linear_binning(x: NDArray[np.float64], lo: float, hi: float, size: int) -> NDArray[np.float64]:
    """Linear-binning counts of ``x`` on ``size`` equispaced nodes from ``lo`` to ``hi``."""
    delta = (hi - lo) / (size - 1)
    position = (x - lo) / delta
    lower = np.clip(np.floor(position).astype(np.int64), 0, size - 2)
    frac = position - lower
    counts = np.bincount(lower, weights=1.0 - frac, minlength=size)
    counts += np.bincount(lower + 1, weights=frac, minlength=size)
    return counts


def kernel_functional(
    x: ArrayLike,
    g: float,
    order: int,
    binned: bool = True,
    gridsize: int = HPI_GRIDSIZE,
) -> float:
    """Kernel estimate of the density functional ψ_s = ∫ f^{(s)}(x) f(x) dx.

    Parameters
    ----------
    x : array_like, shape (n,)
        The sample.
    g : float
        Pilot (Gaussian) bandwidth, > 0.
    order : int
        The even derivative order ``s``.
    binned : bool, default True
        ``True``: the estimate of ``ks::kfe.1d`` with ``binned = TRUE`` — linear binning on
        ``gridsize`` nodes spanning ``[min x − (4+s) g, max x + (4+s) g]`` and the discrete
        kernel truncated at ``(4+s) g``. ``False``: the exact double sum (O(n²), blocked).
    gridsize : int, default 401
        Number of binning nodes.

    Returns
    -------
    float
        ``ψ̂_s(g) = n⁻² Σ_i Σ_j φ_g^{(s)}(x_i − x_j)`` (diagonal terms included, as in ks).
    """
    values = np.asarray(x, dtype=np.float64).ravel()
    n = values.size
    if not binned:
        total = 0.0
        step = max(1, _BLOCK_ELEMENTS // n)
        for start in range(0, n, step):
            diff = values[start:start + step, None] - values[None, :]
            total += float(np.sum(_normal_derivative(diff, g, order)))
        return total / n**2
    support = 4.0 + order
    lo = float(values.min()) - support * g
    hi = float(values.max()) + support * g
    counts = _linear_binning(values, lo, hi, gridsize)
    delta = (hi - lo) / (gridsize - 1)
    half_width = min(math.ceil(support * g / delta), gridsize - 1)
    offsets = np.arange(-(half_width - 1), half_width)
    kernel = _normal_derivative(delta * offsets, g, order)
    full = np.convolve(counts, kernel)
    estimate = full[half_width - 1:half_width - 1 + gridsize]
    return float(np.dot(counts, estimate)) / n**2


def hpi_derivative(
    x: ArrayLike,
    deriv_order: int = 1,
    nstage: int = 2,
    binned: bool = True,
    gridsize: int = HPI_GRIDSIZE,
) -> float:
    """Plug-in bandwidth for estimating the ``deriv_order``-th density derivative.

    The one-dimensional selector of ``ks::hpi(x, deriv.order = r)`` (r ≥ 1), after Wand &
    Jones (1995). The AMISE-optimal bandwidth for ``f^{(r)}`` with a Gaussian kernel K is

        h = [ (2r + 1) R(K^{(r)}) / (μ₂(K)² (−1)^r ψ_{2r+4} n) ]^{1/(2r+5)},

    with ``R(K^{(r)}) = (−1)^r ψ_{2r}(N(0, 1)) = (2r)! / (2^{2r+1} r! √π)``, ``μ₂(K) = 1``
    and ψ_s = ∫ f^{(s)} f. The unknown ψ_{2r+4} is estimated by a kernel functional
    (:func:`kernel_functional`) whose pilot bandwidth is the AMSE-optimal
    ("bias-annihilating") one,

        g_s = [ 2 K^{(s)}(0) / (−μ₂(K) ψ_{s+2} n) ]^{1/(s+3)},

    which needs ψ_{s+2}. With ``nstage=2`` (the default, as in ks) the chain is
    ψ_{2r+8} (normal scale, with the sample standard deviation) → g_{2r+6} → ψ̂_{2r+6}
    → g_{2r+4} → ψ̂_{2r+4} → h; with ``nstage=1``, ψ_{2r+6} is taken at normal scale.

    Parameters
    ----------
    x : array_like, shape (n,)
        The sample (n ≥ 2, not all equal).
    deriv_order : int, default 1
        The derivative order r ≥ 1. (For r = 0 the formulas above still give the
        Wand–Jones selector, but ``ks::hpi`` then calls ``KernSmooth::dpik``, whose scale
        estimate differs, so only r ≥ 1 reproduces ks.)
    nstage : {1, 2}, default 2
        Number of functional-estimation stages.
    binned : bool, default True
        Binned kernel functionals (as ``ks::hpi``'s default ``binned = TRUE``; reproduces ks
        to rounding) or exact O(n²) double sums.
    gridsize : int, default 401
        Binning nodes (ks's default).

    Returns
    -------
    float
        The bandwidth (a standard deviation of the Gaussian kernel), in the units of ``x``.

    Raises
    ------
    ValueError
        For fewer than two finite values, zero spread, or an invalid order/stage.

    Notes
    -----
    If an estimated functional has the wrong sign (possible for pathological samples), the
    normal-scale value of that functional is used instead.
    """
    values = np.asarray(x, dtype=np.float64).ravel()
    if values.size < 2 or not np.all(np.isfinite(values)):
        raise ValueError("hpi_derivative needs at least two finite values")
    r = int(deriv_order)
    if r < 0:
        raise ValueError(f"deriv_order must be non-negative, got {deriv_order}")
    if nstage not in (1, 2):
        raise ValueError(f"nstage must be 1 or 2, got {nstage}")
    n = values.size
    sd = float(np.std(values, ddof=1))
    if not sd > 0.0:
        raise ValueError("the sample has zero spread: no bandwidth can be selected")

    def estimate(order: int, pilot: float) -> float:
        value = kernel_functional(values, pilot, order, binned=binned, gridsize=gridsize)
        normal = _psi_normal_scale(order, sd)
        return value if value * normal > 0.0 else normal

    def pilot_bandwidth(order: int, psi_next: float) -> float:
        k0 = float(_normal_derivative(0.0, 1.0, order))
        return (2.0 * k0 / (-psi_next * n)) ** (1.0 / (order + 3))

    if nstage == 2:
        psi_2r8 = _psi_normal_scale(2 * r + 8, sd)
        psi_2r6 = estimate(2 * r + 6, pilot_bandwidth(2 * r + 6, psi_2r8))
    else:
        psi_2r6 = _psi_normal_scale(2 * r + 6, sd)
    psi_2r4 = estimate(2 * r + 4, pilot_bandwidth(2 * r + 4, psi_2r6))
    roughness = _psi_normal_scale(2 * r, 1.0)  # (−1)^r R(K^{(r)})
    return float(((2 * r + 1) * roughness / (psi_2r4 * n)) ** (1.0 / (2 * r + 5)))


def normal_reference_derivative_bandwidth(sigma: float, n: int, deriv_order: int = 1) -> float:
    """Normal-reference bandwidth for the r-th density derivative (d = 1).

    ``h_NS = σ (4 / (2r + 3))^{1/(2r+5)} n^{−1/(2r+5)}`` (Chacón, Duong & Wand 2011,
    *Statistica Sinica* 21, 807–840), i.e. the formula of :func:`hpi_derivative` with every
    functional replaced by its normal-scale value.

    Parameters
    ----------
    sigma : float
        Standard deviation of the normal reference.
    n : int
        Sample size.
    deriv_order : int, default 1
        The derivative order r.

    Returns
    -------
    float
    """
    r = int(deriv_order)
    return float(sigma * (4.0 / (2 * r + 3)) ** (1.0 / (2 * r + 5)) * n ** (-1.0 / (2 * r + 5)))


# ---------------------------------------------------------------------------------------------
# Periodic KDE of the tripled sample
# ---------------------------------------------------------------------------------------------


def _wrap_period(x: NDArray[np.float64], period: float) -> NDArray[np.float64]:
    """Wrap to [−P/2, P/2)."""
    half = 0.5 * period
    wrapped = np.mod(x + half, period) - half
    return np.where(wrapped >= half, wrapped - period, wrapped)


def _unwrapped_at_largest_gap(x: NDArray[np.float64], period: float) -> NDArray[np.float64]:
    """The sample on the real line, cut at its largest circular gap (sorted)."""
    s = np.sort(_wrap_period(x, period))
    if s.size < 2:
        return s
    gaps = np.diff(np.append(s, s[0] + period))
    cut = int(np.argmax(gaps))
    if cut == s.size - 1:  # the largest gap straddles ±P/2: keep the sample as it is
        return s
    return np.concatenate([s[cut + 1:], s[:cut + 1] + period])


def _log_kde_terms(
    points: NDArray[np.float64], sample: NDArray[np.float64], h: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """For each point: log of Σ_j exp(−z_j²/2) and the log-derivative Σ w_j (−z_j)/(h Σ w_j)."""
    m = points.size
    log_sum = np.empty(m)
    log_derivative = np.empty(m)
    step = max(1, _BLOCK_ELEMENTS // max(sample.size, 1))
    for start in range(0, m, step):
        z = (points[start:start + step, None] - sample[None, :]) / h
        exponent = -0.5 * z * z
        top = exponent.max(axis=1)
        weights = np.exp(exponent - top[:, None])
        s0 = weights.sum(axis=1)
        s1 = -(weights * z).sum(axis=1)
        log_sum[start:start + step] = top + np.log(s0)
        log_derivative[start:start + step] = s1 / (s0 * h)
    return log_sum, log_derivative


@dataclass(frozen=True)
class _TripledKde:
    """Gaussian KDE of a tripled periodic sample, normalised per period (see module doc)."""

    sample: NDArray[np.float64]  # the 3n points
    n: int
    h: float

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
        Gaussian kernel standard deviation, in data units.
    grid : ndarray, shape (m,)
        Equispaced evaluation points covering [−P/2, P/2).
    density : ndarray, shape (m,)
        The density on ``grid`` (integrates to about one over a period).
    period : float
        The period P.
    classification_rate : float or None
        With true labels: the fraction of points correctly classified under the best
        one-to-one matching of clusters to labels (Hungarian algorithm); points in unmatched
        clusters count as errors.
    confusion : ConfusionTable or None
        With true labels: clusters × labels table.
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

    @property
    def n_clusters(self) -> int:
        """Number of clusters K."""
        return int(self.modes.size)

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
        extrema.append((float(_wrap_period(np.array([root]), period)[0]), bool(rising[k])))
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
    grid_size: int | None = None,
    min_density: float = 1e-3,
    min_prominence: float = 1e-6,
) -> ModeClustering:
    """Cluster a periodic sample by the modes of the KDE of its tripled sample.

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
        tripled sample (see the module docstring).
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

    Returns
    -------
    ModeClustering

    Raises
    ------
    ValueError
        For an empty or non-finite sample, a non-positive period or bandwidth, or labels of
        the wrong length.
    """
    period = float(period)
    if not np.isfinite(period) or period <= 0.0:
        raise ValueError(f"period must be positive and finite, got {period}")
    x = np.asarray(angles, dtype=np.float64).ravel()
    if x.size == 0:
        raise ValueError("the sample is empty")
    if not np.all(np.isfinite(x)):
        raise ValueError("the sample contains NaN or infinite values")
    wrapped = _wrap_period(x, period)
    n = x.size
    tripled = np.concatenate([wrapped - period, wrapped, wrapped + period])
    if bandwidth is None or bandwidth == "hpi":
        h = hpi_derivative(_unwrapped_at_largest_gap(x, period), deriv_order=1)
    elif bandwidth == "hpi_tripled":
        h = hpi_derivative(tripled, deriv_order=1)
    elif isinstance(bandwidth, str):
        raise ValueError(f"unknown bandwidth {bandwidth!r}; use a number, 'hpi' or "
                         "'hpi_tripled'")
    else:
        h = float(bandwidth)
    if not np.isfinite(h) or h <= 0.0:
        raise ValueError(f"bandwidth must be positive and finite, got {h}")

    true_labels = None
    if labels is not None:
        true_labels = np.asarray(labels).ravel()
        if true_labels.shape != (n,):
            raise ValueError(f"labels must have shape ({n},), got {true_labels.shape}")

    if grid_size is None:
        m = int(np.clip(2 ** math.ceil(math.log2(_POINTS_PER_BANDWIDTH * period / h)),
                        _MIN_GRID, _MAX_GRID))
    else:
        m = int(grid_size)
        if m < 8:
            raise ValueError(f"grid_size must be at least 8, got {grid_size}")
    grid = -0.5 * period + period * np.arange(m) / m
    kde = _TripledKde(sample=tripled, n=n, h=h)
    log_sum, log_derivative = _log_kde_terms(grid, tripled, h)
    density = np.exp(log_sum - math.log(n * h * math.sqrt(TWO_PI)))

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
        if modes.size == 1:
            cluster = np.zeros(n, dtype=np.int64)
        else:
            start = antimodes[0]
            bounds = np.mod(antimodes - start, period)
            rel = np.mod(wrapped - start, period)
            cluster = (np.searchsorted(bounds, rel, side="right") - 1).astype(np.int64)
            cluster = np.clip(cluster, 0, modes.size - 1)

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


def _classification(
    cluster: NDArray[np.int64], k: int, true_labels: NDArray
) -> tuple[float, ConfusionTable]:
    """Best one-to-one matching rate and the confusion table."""
    values, inverse = np.unique(true_labels, return_inverse=True)
    counts = np.zeros((k, values.size), dtype=np.int64)
    np.add.at(counts, (cluster, inverse.ravel()), 1)
    rows, cols = linear_sum_assignment(counts, maximize=True)
    matched = int(counts[rows, cols].sum())
    matching = tuple((int(r), values[c].item() if hasattr(values[c], "item") else values[c])
                     for r, c in zip(rows, cols, strict=True))
    table = ConfusionTable(counts=counts, row_labels=np.arange(k, dtype=np.int64),
                           column_labels=values, matching=matching)
    return matched / cluster.size, table
