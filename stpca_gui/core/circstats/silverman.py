"""How many modes does a periodic sample have? Silverman's critical-bandwidth test on the circle.

The sample (e.g. PNS1 scores of period ``P``) is mapped to angles on the unit circle and
binned linearly onto ``GRID_POINTS`` equispaced nodes. Its kernel density estimate with the
*wrapped normal* kernel of standard deviation ``h`` (radians) is the binned measure smoothed
by the heat kernel, computed exactly in Fourier space,

    f_h(θ) = 1/(2π) · Σ_j ĉ_j · exp(−h² j² / 2) · e^{ijθ},     ĉ_j = (1/n) Σ_i e^{−ijθ_i},

by one FFT per bandwidth, and so is its derivative. The wrapped normal kernel is the heat
kernel of the circle, so the number of modes of ``f_h`` never increases with ``h`` (the
number of sign changes of a solution of the heat equation does not increase; this fails for
the von Mises kernel): the *critical bandwidth* ``h_k``, the smallest ``h`` for which ``f_h``
has at most ``k`` modes, is found by bisection.

Silverman's (1981) test of "at most k modes" compares ``h_k`` with its smoothed-bootstrap law:
samples of size n are drawn from ``f_{h_k}`` (one multinomial draw over the grid nodes per
resample: O(grid) whatever n) and the p-value is the share of resamples whose KDE at
``λ·h_k`` still has more than ``k`` modes, i.e. whose own critical bandwidth exceeds
``λ·h_k``. ``calibration="silverman"`` (the default) takes ``λ = 1``; Hall & York (2001)
derived a factor ``λ_α`` (≈ 1.14 at α = 0.025) that makes the "one mode" test exact
asymptotically *on the line* (``calibration="hall_york"``). On the circle our size
simulations (``benchmarks/bench_modetest.py``, ``docs/mode_test.md``) found it
anti-conservative (13–17 % rejections at α = 0.05 under a von Mises κ = 2, n = 500), while
``λ = 1`` stays at or below the level: hence the default.

The number of modes ``k̂`` is the first ``k = 1, 2, …, k_max`` whose step is not rejected at
level α; the p-value of every step is kept. A step combines two Silverman tests: "at most k
modes" is rejected when p_k < 0.8·α or p_{k+1} < 0.2·α (a density with more than k + 1
modes has more than k; weighted Bonferroni). On the circle the first test alone is weak
against modes spread evenly round the circle, where the data's first Fourier coefficient is
at noise level and f_{h_1} nearly uniform; the second catches them (``docs/mode_test.md``).

The test decides how many clusters there are; where their boundaries lie is decided by
:func:`~stpca_gui.core.circstats.tested_modes.clusters_for_test` (the paper rule's plug-in KDE, its
least prominent modes merged down to k̂, or the domains of attraction of the modes of
``f_{h_k̂}`` when the plug-in KDE has fewer than k̂ modes).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.progress import CancelCheck
from .._base.random import RandomStateLike, check_random_state
from ..geometry.torus import TWO_PI
from ._circular_binning import linear_binning
from ._mode_test_kernel import count_maxima_rows
from .bandwidth import check_period, check_periodic_sample

__all__ = [
    "DEFAULT_ALPHA",
    "GRID_POINTS",
    "BinnedSample",
    "Calibration",
    "ModeTest",
    "attraction_domains",
    "binned_critical_bandwidth",
    "coarse_probabilities",
    "critical_bandwidth",
    "hall_york_factor",
    "mode_count",
    "resample_counts",
    "resamples_with_more_modes",
    "sequential_mode_count",
    "silverman_mode_test",
    "step_p_value",
    "unit_angles",
]


Calibration = Literal["hall_york", "silverman"]
#: Nodes of the binned density per period (bin width 2π/4096 ≈ 0.0015 rad).
GRID_POINTS = 4096
#: Default level of every step of the test.
DEFAULT_ALPHA = 0.05
#: Default largest number of modes tested.
DEFAULT_K_MAX = 8
#: Default bootstrap resamples per step (p-values in steps of 1/(B + 1)).
DEFAULT_N_BOOT = 500
#: Derivative values below this share of the largest are treated as zero when counting sign
#: changes (round-off of the FFT in empty arcs would otherwise count as modes).
_FLAT = 1e-9
#: Relative precision of the bisection for the critical bandwidth.
_BISECTION_RTOL = 1e-4
#: Weights of the two Silverman tests of a step (weighted Bonferroni, summing to one): most
#: of α on "at most k modes" itself, the rest on "at most k + 1" (docs/mode_test.md).
STEP_WEIGHTS = (0.8, 0.2)
#: Bootstrap resamples are drawn on a grid with at least this many nodes per bandwidth …
_NODES_PER_BANDWIDTH = 16
#: … and at least this many nodes.
_MIN_COARSE = 256
#: Bootstrap resamples handled at once (memory: chunk × grid doubles).
_BOOT_CHUNK = 100


# ---------------------------------------------------------------------------------------------
# The binned wrapped-normal KDE and its modes
# ---------------------------------------------------------------------------------------------


def _spectrum(counts: NDArray[np.float64]) -> NDArray[np.complex128]:
    """Fourier coefficients ĉ_j of the binned measure (weights summing to one), last axis."""
    total = counts.sum(axis=-1, keepdims=True)
    return np.fft.rfft(counts, axis=-1) / total


def _heat(h: float | NDArray[np.float64], size: int) -> NDArray[np.float64]:
    """exp(−h² j² / 2) for the rfft frequencies j of ``size`` nodes."""
    j = np.arange(size // 2 + 1, dtype=np.float64)
    return np.exp(-0.5 * np.square(np.multiply.outer(h, j)))


def _density(spectrum: NDArray[np.complex128], h: float, size: int) -> NDArray[np.float64]:
    """f_h on the nodes, per radian."""
    return np.fft.irfft(spectrum * _heat(h, size), n=size, axis=-1) * (size / TWO_PI)


def _derivative(spectrum: NDArray[np.complex128], h: float | NDArray[np.float64],
                size: int) -> NDArray[np.float64]:
    """f_h' on the nodes (up to a positive factor)."""
    j = np.arange(size // 2 + 1, dtype=np.float64)
    return np.fft.irfft(spectrum * (1j * j) * _heat(h, size), n=size, axis=-1)


def _signs(derivative: NDArray[np.float64]) -> NDArray[np.int8]:
    """Sign of f' at each node, 0 where it is below round-off of the largest."""
    scale = np.max(np.abs(derivative), axis=-1, keepdims=True)
    signs = np.sign(derivative).astype(np.int8)
    signs[np.abs(derivative) <= _FLAT * scale] = 0
    return signs


def _count_maxima(signs: NDArray[np.int8]) -> int:
    """Number of + → − changes around the circle, zeros skipped."""
    nonzero = signs[signs != 0]
    if nonzero.size == 0:
        return 0
    return int(np.count_nonzero((nonzero > 0) & (np.roll(nonzero, -1) < 0)))


def _count_maxima_rows(derivatives: NDArray[np.float64]) -> NDArray[np.int64]:
    """:func:`_count_maxima` of every row (resample) at once (compiled)."""
    derivatives = np.ascontiguousarray(derivatives, dtype=np.float64)
    out = np.empty(derivatives.shape[0], dtype=np.int64)
    count_maxima_rows(derivatives, _FLAT, out)
    return out


def resample_counts(probabilities: NDArray[np.float64], n: int, rows: int,
                     rng: np.random.Generator) -> NDArray[np.float64]:
    """``rows`` bootstrap samples from the nodes' probabilities, as counts per node.

    For n below the grid size: n draws by inverse CDF (an exact multinomial sample,
    O(n log grid)). Above it: the Poisson bootstrap, independent Poisson(n·p_j) counts per
    node (Hanley & MacGibbon 2006; asymptotically the same law, and O(grid) per resample
    where numpy's multinomial over 4096 cells cost 20 times more); the KDE is normalised
    by each resample's own total.
    """
    size = probabilities.size
    if n >= size:
        return rng.poisson(n * probabilities, size=(rows, size)).astype(np.float64)
    cdf = np.cumsum(probabilities)
    cdf /= cdf[-1]
    nodes = np.minimum(np.searchsorted(cdf, rng.random((rows, n))), size - 1)
    nodes += (np.arange(rows) * size)[:, None]
    return np.bincount(nodes.ravel(), minlength=rows * size).reshape(rows, size).astype(
        np.float64)


class BinnedSample:
    """A periodic sample binned on the grid, with its Fourier coefficients."""

    def __init__(self, theta: NDArray[np.float64], size: int = GRID_POINTS) -> None:
        _, _, counts = linear_binning(theta, np.ones(theta.size), size)
        self._set(counts, theta.size)

    @classmethod
    def from_counts(cls, counts: NDArray[np.float64], n: int) -> BinnedSample:
        """A sample given by its weights on the nodes (e.g. a bootstrap draw)."""
        sample = cls.__new__(cls)
        sample._set(np.asarray(counts, dtype=np.float64), n)
        return sample

    def _set(self, counts: NDArray[np.float64], n: int) -> None:
        self.size = counts.size
        self.n = int(n)
        self.counts = counts
        self.spectrum = _spectrum(counts)

    def modes(self, h: float) -> int:
        return _count_maxima(_signs(_derivative(self.spectrum, h, self.size)))

    def density(self, h: float) -> NDArray[np.float64]:
        return np.maximum(_density(self.spectrum, h, self.size), 0.0)

    def derivative(self, h: float) -> NDArray[np.float64]:
        return _derivative(self.spectrum, h, self.size)


def attraction_domains(
    derivative: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Modes and antimodes of a density from its derivative on the nodes, in node units.

    A sign change between two neighbouring nodes is placed by linear interpolation of the
    derivative; one across a flat run (a gap with no data) at the middle of the run. Both
    arrays are sorted; they alternate around the circle and have the same length (one mode
    and one antimode, at the lowest node, for a density without sign changes).
    """
    size = derivative.size
    signs = _signs(derivative[None, :])[0]
    nonzero = np.flatnonzero(signs)
    if nonzero.size == 0:
        return np.array([0.0]), np.array([0.0])
    following = np.roll(nonzero, -1)
    changes = np.flatnonzero(signs[nonzero] != signs[following])
    if changes.size == 0:  # monotone all round cannot happen; keep one mode at the top
        top = float(np.argmax(np.cumsum(derivative)))
        return np.array([top]), np.array([float(np.argmin(np.cumsum(derivative)))])
    left = nonzero[changes]
    right = following[changes]
    gap = np.mod(right - left, size)
    fa, fb = derivative[left], derivative[right]
    step = np.where(gap == 1, fa / (fa - fb), 0.5 * gap)
    positions = np.mod(left + step, size)
    is_max = signs[left] > 0
    return np.sort(positions[is_max]), np.sort(positions[~is_max])


def binned_critical_bandwidth(sample: BinnedSample, k: int,
                              check: CancelCheck | None = None) -> float:
    """Smallest h (radians) with at most k modes, by bisection on log h."""
    low = 0.25 * TWO_PI / sample.size
    if sample.modes(low) <= k:
        return low
    high = 1.0
    while sample.modes(high) > k:  # a density of one harmonic has one mode: this stops
        low, high = high, 2.0 * high
    while high / low > 1.0 + _BISECTION_RTOL:
        if check is not None:
            check()
        middle = math.sqrt(low * high)
        if sample.modes(middle) > k:
            low = middle
        else:
            high = middle
    return high


def unit_angles(angles: ArrayLike, period: float) -> NDArray[np.float64]:
    """The sample as angles of the unit circle; node 0 of the grid is −P/2."""
    period = check_period(period)
    x = check_periodic_sample(angles)
    return np.mod((x + 0.5 * period) * (TWO_PI / period), TWO_PI)


def mode_count(angles: ArrayLike, bandwidth: float, period: float = TWO_PI) -> int:
    """Number of modes of the binned wrapped-normal KDE with the given bandwidth.

    ``bandwidth`` is the kernel's standard deviation in data units (the wrapped normal's
    σ before wrapping).
    """
    theta = unit_angles(angles, period)
    return BinnedSample(theta).modes(float(bandwidth) * TWO_PI / period)


def critical_bandwidth(angles: ArrayLike, k: int, period: float = TWO_PI) -> float:
    """Smallest bandwidth (data units) for which the binned wrapped-normal KDE of the sample
    has at most ``k`` modes (to a relative 1e-4)."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    theta = unit_angles(angles, period)
    return binned_critical_bandwidth(BinnedSample(theta), int(k)) * period / TWO_PI


def calibration_factor(alpha: float, calibration: str) -> float:
    """The factor λ of the bootstrap comparison for a step of the test at level ``alpha``
    (its main Silverman test runs at 0.8·α): 1 for ``"silverman"``, Hall & York's
    λ_{0.8α} for ``"hall_york"``."""
    return hall_york_factor(STEP_WEIGHTS[0] * alpha) if calibration == "hall_york" else 1.0


def hall_york_factor(alpha: float) -> float:
    """Hall & York's (2001) factor λ_α: Silverman's test at level α compares the bootstrap
    critical bandwidths with λ_α·h₁ (their rational approximation, valid for α in
    [0.005, 0.3] or so; λ_0.05 ≈ 1.13)."""
    a = float(alpha)
    return ((0.94029 * a**3 - 1.59914 * a**2 + 0.17695 * a + 0.48971)
            / (a**3 - 1.77793 * a**2 + 0.36162 * a + 0.42423))


# ---------------------------------------------------------------------------------------------
# The test
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModeTest:
    """Result of a test for the number of modes (:func:`silverman_mode_test`,
    :func:`~stpca_gui.core.circstats.mode_test.mode_test`).

    Attributes
    ----------
    n_modes : int
        k̂: the first k whose "at most k modes" was not rejected at ``alpha`` (``k_max``
        when every step was rejected, see ``reached_max``; 1 when a uniformity test of the
        data came first and did not reject, see ``uniformity_p_value``).
    p_values : tuple of float
        p-value of the step "at most k modes" for k = 1, 2, … (as far as the test went):
        the weighted Bonferroni combination of the step's two p-values (``step_weights``;
        :func:`step_p_value` for this module's test).
    critical_bandwidths : tuple of float
        h_k for k = 1, 2, … (as many as ``raw_p_values``), in data units.
    alpha : float
        Level of every step.
    calibration : str
        How the bootstrap was calibrated: ``"hall_york"`` or ``"silverman"``
        (:func:`silverman_mode_test`); the density resampled, ``"critical_kde"`` or
        ``"mixture"`` (:func:`~stpca_gui.core.circstats.mode_test.mode_test`).
    n_boot : int
        Bootstrap resamples per step.
    k_max : int
        Largest k tested.
    period : float
        Period of the sample.
    n : int
        Sample size.
    raw_p_values : tuple of float
        Silverman's p_k for k = 1, 2, … (one more than the steps with
        ``method="silverman"``, one per step with ``"excess_mass"``).
    uniformity_p_value : float or None
        When the data were first tested for uniformity on the torus
        (:func:`~stpca_gui.core.circstats.torus_uniformity.torus_uniformity_test`): its
        p-value. When it is ≥ alpha the mode test was not run and ``n_modes`` is 1.
    method : str
        ``"silverman"`` (this module's test: a step combines Silverman's p_k and p_{k+1})
        or ``"excess_mass"`` (:func:`~stpca_gui.core.circstats.mode_test.mode_test`: a step
        combines Silverman's p_k and the excess-mass p-value).
    excess_mass_p_values : tuple of float
        With ``method="excess_mass"``: the excess-mass p-value of every step.
    step_weights : tuple of float
        The weighted Bonferroni split of a step's level between its two p-values.
    n_distinct : int or None
        The number of distinct values the test used, when the sample had ties
        (:mod:`~stpca_gui.core.circstats.ties`).
    note : str
        What people should know about how the test was run ("" when nothing), e.g. that
        ties were counted once.
    """

    n_modes: int
    p_values: tuple[float, ...]
    critical_bandwidths: tuple[float, ...]
    alpha: float
    calibration: str
    n_boot: int
    k_max: int
    period: float
    n: int
    uniformity_p_value: float | None = None
    raw_p_values: tuple[float, ...] = ()
    method: str = "silverman"
    excess_mass_p_values: tuple[float, ...] = ()
    step_weights: tuple[float, float] = STEP_WEIGHTS
    n_distinct: int | None = None
    note: str = ""

    @property
    def reached_max(self) -> bool:
        """Whether every step up to k_max was rejected (k̂ is then only a lower bound)."""
        return (len(self.p_values) == self.k_max
                and all(p < self.alpha for p in self.p_values))

    @property
    def uniform(self) -> bool:
        """Whether the data passed as uniform on the torus (no mode test was run)."""
        return self.uniformity_p_value is not None and self.uniformity_p_value >= self.alpha

    @property
    def structure(self) -> bool:
        """Whether there is cluster structure (k̂ > 1)."""
        return self.n_modes > 1

    def _step_parts(self, k: int) -> tuple[float, float] | None:
        """The two p-values step k combines (weighted by ``step_weights``), or None when
        the result does not hold them."""
        second = (self.excess_mass_p_values if self.method == "excess_mass"
                  else self.raw_p_values[1:])
        if k > min(len(self.raw_p_values), len(second)):
            return None
        return self.raw_p_values[k - 1], second[k - 1]

    def is_bound(self, k: int) -> bool:
        """Whether step k's p-value is only an upper bound: the p-value that decides it
        is the smallest that ``n_boot`` resamples can give (1 / (B + 1)), so the true one
        may be smaller."""
        p = self.p_values[k - 1]
        smallest = 1.0 / (self.n_boot + 1)
        components = self._step_parts(k)
        if components is None:  # a result without its parts: the smallest combination
            return p <= smallest / max(self.step_weights) * (1 + 1e-9)
        return any(part <= smallest * (1 + 1e-9) and part / weight <= p * (1 + 1e-9)
                   for part, weight in zip(components, self.step_weights, strict=True))

    def steps_text(self) -> str:
        """The p-value of every step, e.g. "k=1: p≤0.0067, k=2: p=0.41" (≤ where it is
        the smallest the resamples can give, :meth:`is_bound`)."""
        return ", ".join(f"k={k}: p≤{p:.2g}" if self.is_bound(k) else f"k={k}: p={p:.3g}"
                         for k, p in enumerate(self.p_values, start=1))

    def verdict(self) -> str:
        """One line for people, e.g. "3 modes (α = 0.05; k=1: p<0.004, …)"."""
        if self.uniform:
            return (f"no cluster structure: data consistent with uniform on the torus "
                    f"(p = {self.uniformity_p_value:.3g}, α = {self.alpha:g})")
        if not self.p_values:
            return f"one cluster: the test for the number of modes was not run ({self.note})"
        steps = self.steps_text()
        # The default null goes unsaid, as it did before the mixture existed.
        level = f"α = {self.alpha:g}" + (", von Mises mixture null"
                                         if self.calibration == "mixture" else "")
        if self.n_modes <= 1:
            return f"no cluster structure: one mode not rejected ({level}; {steps})"
        bound = "at least " if self.reached_max else ""
        return f"{bound}{self.n_modes} modes ({level}; {steps})"


def step_p_value(p_k: float, p_next: float) -> float:
    """p-value of the step "at most k modes" from Silverman's p_k and p_{k+1}:
    min(1, p_k / 0.8, p_{k+1} / 0.2) (weighted Bonferroni, :data:`STEP_WEIGHTS`)."""
    return min(1.0, p_k / STEP_WEIGHTS[0], p_next / STEP_WEIGHTS[1])


#: numpydoc entries of the parameters that every sequential mode test takes, filled into
#: their docstrings by :func:`with_test_parameters`.
_TEST_PARAMETERS = """angles : array_like, shape (n,)
        The sample, e.g. the PNS1 scores, read modulo ``period``.
    period : float, default 2π
        The period (``2π·circle_radius`` for PNS1 scores).
    alpha : float, default 0.05
        Level of every step.
    k_max : int, default 8
        Largest number of modes tested.
    n_boot : int, default 500
        Smoothed-bootstrap resamples per step.
    random_state : int, Generator or None, default 0
        Seed of the bootstrap (the default makes the result reproducible).
    check : callable, optional
        Called between blocks of work; raises
        :class:`~stpca_gui.core._base.progress.FitCancelled` to stop."""


def with_test_parameters(function: Callable[..., Any]) -> Callable[..., Any]:
    """Put the parameters every sequential mode test takes (:data:`_TEST_PARAMETERS`)
    into ``function``'s docstring at the line ``<test parameters>``."""
    function.__doc__ = (function.__doc__ or "").replace("<test parameters>", _TEST_PARAMETERS)
    return function


def sequential_mode_count(step_p_value_of: Callable[[int], float], alpha: float,
                          k_max: int) -> tuple[int, tuple[float, ...]]:
    """The sequential rule of every mode test: test "at most k modes" for k = 1, 2, …
    (``step_p_value_of(k)``, called in that order) until a step is not rejected at level
    ``alpha``. Returns that k (``k_max`` when every step is rejected) and the steps'
    p-values."""
    steps: list[float] = []
    for k in range(1, int(k_max) + 1):
        steps.append(step_p_value_of(k))
        if steps[-1] >= alpha:
            return k, tuple(steps)
    return int(k_max), tuple(steps)


def check_test_parameters(alpha: float, k_max: int, n_boot: int) -> None:
    """Raise ValueError for a level outside (0, 1), k_max < 1 or n_boot < 1."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    if int(k_max) < 1:
        raise ValueError(f"k_max must be at least 1, got {k_max}")
    if int(n_boot) < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")


def _check_test_parameters(alpha: float, k_max: int, n_boot: int, calibration: str) -> None:
    check_test_parameters(alpha, k_max, n_boot)
    if calibration not in ("hall_york", "silverman"):
        raise ValueError(f"unknown calibration {calibration!r}; use 'hall_york' or 'silverman'")


def coarse_probabilities(density: NDArray[np.float64], h: float) -> NDArray[np.float64]:
    """The density's probabilities on the coarsest grid with at least
    :data:`_NODES_PER_BANDWIDTH` nodes per bandwidth ``h`` (a power of two ≥ 256, at most
    the fine grid): each fine node's mass goes to its nearest coarse node. Resamples are
    drawn and smoothed on that grid (the atoms' spacing then adds a relative error of about
    (spacing/h)²/12 < 0.05 % to the kernel's variance), 4–16 times cheaper for the usual
    bandwidths."""
    size = density.size
    wanted = _NODES_PER_BANDWIDTH * TWO_PI / max(h, 1e-12)
    coarse = int(min(size, max(_MIN_COARSE, 2 ** math.ceil(math.log2(wanted)))))
    probabilities = density / density.sum()
    if coarse == size:
        return probabilities
    ratio = size // coarse
    nearest = ((np.arange(size) + ratio // 2) // ratio) % coarse
    return np.bincount(nearest, weights=probabilities, minlength=coarse)


def _bootstrap_p_values(
    sample: BinnedSample, h_k: float, k: int, factors: NDArray[np.float64], n_boot: int,
    rng: np.random.Generator, check: CancelCheck | None,
) -> NDArray[np.float64]:
    """For each factor λ: the share of smoothed-bootstrap samples from f_{h_k} with more
    than k modes at λ·h_k (the same resamples for every factor), as (1 + count)/(1 + B)."""
    factors = np.atleast_1d(np.asarray(factors, dtype=np.float64))
    probabilities = coarse_probabilities(sample.density(h_k), float(factors.min()) * h_k)
    exceed = np.zeros(factors.size)
    for start in range(0, n_boot, _BOOT_CHUNK):
        if check is not None:
            check()
        rows = min(_BOOT_CHUNK, n_boot - start)
        counts = resample_counts(probabilities, sample.n, rows, rng)
        for i, factor in enumerate(factors):
            exceed[i] += resamples_with_more_modes(counts, factor * h_k, k)
    return (exceed + 1.0) / (n_boot + 1.0)


def resamples_with_more_modes(counts: NDArray[np.float64], h: float, k: int) -> int:
    """How many resamples (rows of counts on a grid) have more than k modes at bandwidth h."""
    derivative = _derivative(_spectrum(counts), h, counts.shape[-1])
    return int(np.count_nonzero(_count_maxima_rows(derivative) > k))


@with_test_parameters
def silverman_mode_test(
    angles: ArrayLike,
    period: float = TWO_PI,
    *,
    alpha: float = DEFAULT_ALPHA,
    k_max: int = DEFAULT_K_MAX,
    n_boot: int = DEFAULT_N_BOOT,
    random_state: RandomStateLike = 0,
    check: CancelCheck | None = None,
    calibration: Calibration = "silverman",
) -> ModeTest:
    """Sequential test for the number of modes of a periodic sample (module docstring).

    Parameters
    ----------
    <test parameters>
    calibration : {"silverman", "hall_york"}, default "silverman"
        Compare resampled critical bandwidths with h_k (Silverman) or λ_{0.8α}·h_k (Hall &
        York's factor for the line; anti-conservative on the circle, see the module doc).

    Returns
    -------
    ModeTest
    """
    _check_test_parameters(alpha, k_max, n_boot, calibration)
    period = check_period(period)
    sample = BinnedSample(unit_angles(angles, period))
    rng = check_random_state(random_state)
    factor = np.array([calibration_factor(alpha, calibration)])
    raw: list[float] = []
    bandwidths: list[float] = []

    def test_at_most(k: int) -> None:
        h_k = binned_critical_bandwidth(sample, k, check)
        raw.append(float(_bootstrap_p_values(sample, h_k, k, factor, int(n_boot), rng,
                                             check)[0]))
        bandwidths.append(h_k * period / TWO_PI)

    def step(k: int) -> float:
        test_at_most(k + 1)
        return step_p_value(raw[k - 1], raw[k])

    test_at_most(1)
    n_modes, steps = sequential_mode_count(step, alpha, k_max)
    return ModeTest(n_modes=n_modes, p_values=steps, critical_bandwidths=tuple(bandwidths),
                    alpha=float(alpha), calibration=str(calibration), n_boot=int(n_boot),
                    k_max=int(k_max), period=period, n=sample.n, raw_p_values=tuple(raw))
