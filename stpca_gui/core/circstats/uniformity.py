"""Tests of circular uniformity: Watson U², Giné's F_n and the Projected Anderson–Darling.

The statistics of the paper's uniformity table (``table:uniformity``), as defined by the R
package ``sphunif`` (``cir_stat_Watson``, ``cir_stat_Gine_Fn``, ``cir_stat_PAD``), with
p-values from their asymptotic null laws (Watson's closed form; Imhof's inversion of the
weighted χ²₂ sums, as ``sphunif::unif_test``) or from a Monte Carlo calibration. The O(n²)
pair sums are compiled in :mod:`stpca_gui.core.circstats._uniformity_kernel`. Definitions, the
Sobolev weights, the numerics, ties and references are in ``docs/uniformity.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.integrate import quad
from scipy.special import sici

from .._base.progress import FitCancelled, ProgressEvent
from .._base.random import RandomStateLike, check_random_state
from ..geometry.torus import TWO_PI
from ._uniformity_kernel import (
    pair_sums_parallel,
    pair_sums_serial,
    replicate_statistics,
    statistics_from_sums,
    watson_sorted,
)

Calibration = Literal["asymptotic", "monte_carlo"]
TestName = Literal["Watson", "Gine_Fn", "PAD"]
#: How PAD treats tied pairs (ψ_ij = 0): ``"limit"``, the continuous limit 0 log 0 = 0 (the
#: statistic's definition); ``"sphunif"``, as R ``sphunif`` 1.x computes it (docs/uniformity.md).
PadTies = Literal["limit", "sphunif"]
PAD_TIES: tuple[PadTies, ...] = ("limit", "sphunif")
#: Pairs closer than this are candidates for sphunif's exact zero: cos δ rounds to 1 only for
#: δ below about 1.5e-8, so every pair it can drop is found, and few others are looked at.
_NEAR_TIE = 1e-7
TEST_NAMES: tuple[TestName, ...] = ("Watson", "Gine_Fn", "PAD")

#: Number of exact weights of the asymptotic series (sphunif's unif_test default K_max).
SERIES_TERMS = 10_000
#: Null means Σ_k 2 w_k of the statistics.
_NULL_MEANS = {"Watson": 1.0 / 12.0, "Gine_Fn": 1.5, "PAD": 1.0}
#: The stage of the Monte Carlo calibration's progress reports.
MONTE_CARLO_STAGE = "monte-carlo"
#: Replicates simulated at once in Monte Carlo calibration (memory: chunk × n doubles).
_MC_CHUNK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class UniformityTest:
    """Result of a test of circular uniformity.

    Attributes
    ----------
    name : str
        ``"Watson"``, ``"Gine_Fn"`` or ``"PAD"``.
    statistic : float
        The test statistic (large values reject uniformity).
    p_value : float
        In [0, 1].
    method : str
        ``"asymptotic"`` or ``"Monte Carlo"``.
    n_replicates : int or None
        Number of Monte Carlo replicates (``None`` for asymptotic p-values).
    details : str
        What else the reader needs, e.g. how many tied pairs PAD's sphunif convention
        dropped; empty when there is nothing to add.
    """

    name: str
    statistic: float
    p_value: float
    method: str
    n_replicates: int | None
    details: str = ""


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------


def _check_angles(angles: ArrayLike) -> NDArray[np.float64]:
    theta = np.asarray(angles, dtype=np.float64).ravel()
    if theta.size < 2:
        raise ValueError("uniformity tests need at least two angles")
    if not np.all(np.isfinite(theta)):
        raise ValueError("the angles contain NaN or infinite values")
    theta = np.mod(theta, TWO_PI)
    return np.where(theta >= TWO_PI, 0.0, theta)  # np.mod can round up to 2π


def _pair_sums(theta: NDArray[np.float64]) -> tuple[float, float, float]:
    if theta.size < 256:
        return pair_sums_serial(theta)
    return pair_sums_parallel(theta)


def watson_statistic(angles: ArrayLike) -> float:
    """Watson's U² (ECDF form, O(n log n)); see docs/uniformity.md.

    Parameters
    ----------
    angles : array_like, shape (n,)
        Angles in radians (any real values).

    Returns
    -------
    float
    """
    theta = _check_angles(angles)
    return float(watson_sorted(np.sort(theta) / TWO_PI))


def gine_fn_statistic(angles: ArrayLike) -> float:
    """Giné's F_n on the circle (``sphunif::cir_stat_Gine_Fn``) of ``angles`` (radians).

    F_n = 3/2 − (4/(π n)) Σ_{i<j} (ψ_ij − π/2) − (π/(2n)) Σ_{i<j} (sin ψ_ij − 2/π), ψ_ij the
    shortest angle between θ_i and θ_j: an O(n²) pair sum (see docs/uniformity.md).
    """
    return _pair_statistics(_check_angles(angles))[0]


def pad_statistic(angles: ArrayLike, ties: PadTies = "limit") -> float:
    """Projected Anderson–Darling statistic (``sphunif::cir_stat_PAD``) of ``angles``.

    PAD_n = 1 + (2/(π n)) Σ_{i<j} [ψ_ij log ψ_ij + (2π − ψ_ij) log(2π − ψ_ij) − (2π log 2π
    − π)], computed in the same pass over the pairs as Giné's F_n (see docs/uniformity.md).
    ``ties`` says how a tied pair counts (:data:`PAD_TIES`; see :func:`sphunif_dropped_pairs`).
    """
    theta = _check_angles(angles)
    statistic = _pair_statistics(theta)[1]
    return statistic - _sphunif_pad_correction(angles, theta.size, ties)


def sphunif_dropped_pairs(angles: ArrayLike) -> NDArray[np.intp]:
    """The pairs whose PAD term R ``sphunif`` (1.x) sets to zero.

    sphunif computes ψ_ij = arccos(cos θ_i cos θ_j + sin θ_i sin θ_j) and the pair term
    ψ log ψ + (2π − ψ) log(2π − ψ); when the dot product rounds to 1, ψ is exactly 0, the
    term is NaN (0 · log 0), and sphunif replaces it by 0 — instead of its limit 2π log 2π.
    Which tied pairs round to 1 depends on the last bits of the angles *as given* (sphunif
    sees them as given, so they are not reduced modulo 2π here).

    Parameters
    ----------
    angles : array_like, shape (n,)
        Angles in radians, exactly as they would be passed to sphunif.

    Returns
    -------
    ndarray of intp, shape (k, 2)
        Index pairs (i < j) of the pairs dropped by sphunif; usually exactly tied angles.
    """
    raw = np.asarray(angles, dtype=np.float64).ravel()
    dropped = [
        pair for run in _near_tie_runs(_check_angles(raw)) for pair in combinations(run, 2)
        # libm's cos and sin, as R calls them, and the dot product without FMA, as
        # sphunif's compiled loop computes it.
        if math.cos(raw[pair[0]]) * math.cos(raw[pair[1]])
        + math.sin(raw[pair[0]]) * math.sin(raw[pair[1]]) >= 1.0
    ]
    return np.asarray(dropped, dtype=np.intp).reshape(-1, 2)


def tied_pair_count(angles: ArrayLike) -> int:
    """Number of pairs i < j with θ_i = θ_j modulo 2π (exactly)."""
    _, counts = np.unique(_check_angles(angles), return_counts=True)
    return int(np.sum(counts * (counts - 1) // 2))


def _near_tie_runs(theta: NDArray[np.float64]) -> list[list[int]]:
    """Indices (ascending) of each maximal run of at least two angles in [0, 2π) whose
    circular neighbours are closer than :data:`_NEAR_TIE`."""
    n = theta.size
    order = np.argsort(theta, kind="stable")
    gaps = np.diff(theta[order], append=theta[order[0]] + TWO_PI)  # the last one wraps
    breaks = np.flatnonzero(gaps >= _NEAR_TIE)
    if breaks.size == 0:
        return [sorted(order.tolist())]
    # Start right after the last break, so that no run is cut at 2π.
    shift = int(breaks[-1]) + 1
    splits = np.sort((breaks[:-1] - shift) % n + 1)
    runs = np.split(np.roll(order, -shift), splits)
    return [sorted(run.tolist()) for run in runs if run.size > 1]


def _sphunif_pad_correction(angles: ArrayLike, n: int, ties: PadTies) -> float:
    """What sphunif's tie handling subtracts from PAD: (2/(π n)) Σ over its dropped pairs of
    the pair terms counted by the continuous limit."""
    if ties == "limit":
        return 0.0
    if ties != "sphunif":
        raise ValueError(f"unknown PAD tie convention {ties!r}; use one of {PAD_TIES}")
    pairs = sphunif_dropped_pairs(angles)
    if pairs.size == 0:
        return 0.0
    theta = _check_angles(angles)
    psi = np.abs(theta[pairs[:, 0]] - theta[pairs[:, 1]])
    psi = np.minimum(psi, TWO_PI - psi)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(psi > 0, psi * np.log(psi), 0.0) + (TWO_PI - psi) * np.log(TWO_PI - psi)
    return float(2.0 / (np.pi * n) * np.sum(terms))


def _pair_statistics(theta: NDArray[np.float64]) -> tuple[float, float]:
    """Giné's F_n and PAD, from one pass over the pairs."""
    gine, pad = statistics_from_sums(theta.size, *_pair_sums(theta))
    return float(gine), float(pad)


def _all_statistics(angles: ArrayLike, pad_ties: PadTies) -> dict[str, float]:
    theta = _check_angles(angles)
    watson = float(watson_sorted(np.sort(theta) / TWO_PI))
    gine, pad = _pair_statistics(theta)
    pad -= _sphunif_pad_correction(angles, theta.size, pad_ties)
    return {"Watson": watson, "Gine_Fn": gine, "PAD": pad}


# ---------------------------------------------------------------------------------------------
# Asymptotic null distributions
# ---------------------------------------------------------------------------------------------


def sobolev_weights(name: TestName, n_terms: int = SERIES_TERMS) -> NDArray[np.float64]:
    """Weights w_k, k = 1 … n_terms, of the limit law Σ_k w_k χ²_2 of a statistic.

    Parameters
    ----------
    name : {"Watson", "Gine_Fn", "PAD"}
    n_terms : int, default 10000

    Returns
    -------
    ndarray, shape (n_terms,)
        See docs/uniformity.md for the formulas.
    """
    k = np.arange(1, int(n_terms) + 1, dtype=np.float64)
    if name == "Watson":
        return 1.0 / (4.0 * np.pi**2 * k**2)
    if name == "Gine_Fn":
        odd = k % 2 == 1
        return np.where(odd, 4.0 / (np.pi**2 * k**2), 0.5 / np.maximum(k**2 - 1.0, 1.0))
    if name == "PAD":
        x = TWO_PI * k
        cin = np.euler_gamma + np.log(x) - sici(x)[1]
        return cin / (np.pi**2 * k**2)
    raise ValueError(f"unknown test {name!r}; use one of {TEST_NAMES}")


def watson_sf(x: float, terms: int = 200) -> float:
    """Asymptotic null survival function of Watson's U²: 2 Σ (−1)^{k−1} exp(−2k²π²x).

    Parameters
    ----------
    x : float
        Value of the statistic.
    terms : int, default 200
        Terms of the alternating series (ample for x ≥ 10⁻³; below, the p-value is 1 to
        double precision).

    Returns
    -------
    float
        In [0, 1].
    """
    x = float(x)
    if x <= 0.005:
        return 1.0
    k = np.arange(1, terms + 1, dtype=np.float64)
    value = 2.0 * np.sum((-1.0) ** (k - 1) * np.exp(-2.0 * k**2 * np.pi**2 * x))
    return float(np.clip(value, 0.0, 1.0))


#: Weights below this fraction of 1/U (U the integration limit) use Taylor series.
_SMALL_WEIGHT = 0.01
#: Relative size of the Imhof integrand envelope at the upper integration limit.
_ENVELOPE_TOL = 1e-13


@dataclass(frozen=True)
class _ImhofSeries:
    """Precomputed pieces of the Imhof integrand for fixed weights (see _imhof_sf)."""

    head: NDArray[np.float64]  # weights treated exactly
    power_sums: NDArray[np.float64]  # Σ w^p, p = 1 … 6, of the small weights
    shift: float  # mean of the neglected series tail (added to Q)
    upper: float  # integration limit


def _log_envelope(u: float, weights: NDArray[np.float64]) -> float:
    return -math.log(u) - 0.5 * float(np.sum(np.log1p((weights * u) ** 2)))


@lru_cache(maxsize=8)
def _imhof_series(name: str, n_terms: int, tail_correction: bool) -> _ImhofSeries:
    weights = sobolev_weights(name, n_terms)  # type: ignore[arg-type]
    shift = _NULL_MEANS[name] - 2.0 * float(np.sum(weights)) if tail_correction else 0.0
    upper = 1.0
    while _log_envelope(upper, weights) > math.log(_ENVELOPE_TOL):
        upper *= 2.0
    small = weights * upper < _SMALL_WEIGHT
    tail = weights[small]
    power_sums = np.array([np.sum(tail**p) for p in range(1, 7)])
    return _ImhofSeries(head=weights[~small], power_sums=power_sums, shift=shift, upper=upper)


def _imhof_sf(x: float, series: _ImhofSeries) -> float:
    """P(Σ w_k χ²_2 + shift > x) by Imhof's formula.

    With A(u) = Σ arctan(w_k u) and ω = y/2, the integrand sin(A(u) − ωu)/(u ρ(u)) is
    integrated directly near 0 (where it is smooth and finite) and, beyond, as
    ∫ [sin A/(uρ)] cos(ωu) − ∫ [cos A/(uρ)] sin(ωu) with QUADPACK's QAWO rule for
    oscillatory weights, which stays accurate however fast sin(ωu) oscillates.
    """
    y = float(x) - series.shift
    if y <= 0.0:
        return 1.0
    head = series.head
    s1, s2, s3, s4, s5, s6 = series.power_sums
    omega = 0.5 * y

    def phase_and_envelope(u: float) -> tuple[float, float]:
        wu = head * u
        u2 = u * u
        phase = float(np.sum(np.arctan(wu))) + u * (s1 - u2 * (s3 / 3.0 - u2 * s5 / 5.0))
        log_rho = 0.5 * float(np.sum(np.log1p(wu * wu)))
        log_rho += 0.5 * u2 * (s2 - u2 * (0.5 * s4 - u2 * s6 / 3.0))
        return phase, math.exp(-log_rho) / u

    def integrand(u: float) -> float:
        if u == 0.0:
            return float(np.sum(head)) + s1 - omega
        phase, envelope = phase_and_envelope(u)
        return math.sin(phase - omega * u) * envelope

    def sin_part(u: float) -> float:
        phase, envelope = phase_and_envelope(u)
        return math.sin(phase) * envelope

    def cos_part(u: float) -> float:
        phase, envelope = phase_and_envelope(u)
        return math.cos(phase) * envelope

    split = min(1.0, 0.5 * math.pi / omega, series.upper)
    total, _ = quad(integrand, 0.0, split, limit=200, epsabs=1e-14, epsrel=1e-12)
    if split < series.upper:
        options = {"limit": 1000, "epsabs": 1e-14, "epsrel": 1e-12}
        first, _ = quad(sin_part, split, series.upper, weight="cos", wvar=omega, **options)
        second, _ = quad(cos_part, split, series.upper, weight="sin", wvar=omega, **options)
        total += first - second
    return float(np.clip(0.5 + total / math.pi, 0.0, 1.0))


def asymptotic_sf(
    name: TestName, x: float, n_terms: int = SERIES_TERMS, tail_correction: bool = False
) -> float:
    """Asymptotic null survival function P(T > x) of a statistic.

    Parameters
    ----------
    name : {"Watson", "Gine_Fn", "PAD"}
    x : float
        Value of the statistic.
    n_terms : int, default 10000
        Terms of the weighted χ²_2 series (Giné F_n and PAD), as ``sphunif``'s ``K_max``.
    tail_correction : bool, default False
        Add the mean of the terms beyond ``n_terms`` (see docs/uniformity.md).

    Returns
    -------
    float
        In [0, 1]. Watson: closed-form series; Giné F_n and PAD: Imhof's formula.
    """
    if name == "Watson":
        return watson_sf(x)
    if name not in TEST_NAMES:
        raise ValueError(f"unknown test {name!r}; use one of {TEST_NAMES}")
    return _imhof_sf(x, _imhof_series(name, int(n_terms), bool(tail_correction)))


# ---------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------


def _monte_carlo_null(
    n: int,
    n_replicates: int,
    random_state: RandomStateLike,
    callback: Callable[..., bool | None] | None = None,
) -> NDArray[np.float64]:
    """Statistics (Watson, Giné F_n, PAD) of ``n_replicates`` uniform samples of size n.

    The replicates are drawn and tested in chunks (at most a hundred), and ``callback``
    receives a :class:`~stpca_gui.core._base.progress.ProgressEvent` after each; a truthy return
    raises :class:`~stpca_gui.core._base.progress.FitCancelled`. The chunks take consecutive
    draws of one generator, so the statistics do not depend on the chunking or on the
    callback.
    """
    rng = check_random_state(random_state)
    out = np.empty((n_replicates, 3))
    # A hundred chunks give a smooth progress bar and a prompt cancel; the memory bound
    # keeps a chunk's samples small for large n.
    chunk = max(1, min(_MC_CHUNK_ELEMENTS // n, -(-n_replicates // 100)))
    for start in range(0, n_replicates, chunk):
        stop = min(start + chunk, n_replicates)
        samples = rng.uniform(0.0, TWO_PI, size=(stop - start, n))
        replicate_statistics(samples, out[start:stop])
        if callback is not None and callback(ProgressEvent(
                MONTE_CARLO_STAGE, stop / n_replicates,
                message=f"Monte Carlo: {stop:,} of {n_replicates:,} replicates")):
            raise FitCancelled(f"cancelled after {stop} of {n_replicates} replicates")
    return out


def uniformity_tests(
    angles: ArrayLike,
    n_replicates: int = 1000,
    random_state: RandomStateLike = None,
    calibration: Calibration = "asymptotic",
    callback: Callable[..., bool | None] | None = None,
    pad_ties: PadTies = "limit",
) -> dict[str, UniformityTest]:
    """Watson, Giné F_n and PAD tests of circular uniformity.

    Parameters
    ----------
    angles : array_like, shape (n,)
        Angles in radians (any real values), n ≥ 2.
    n_replicates : int, default 1000
        Monte Carlo replicates (used only with ``calibration="monte_carlo"``).
    random_state : None, int, SeedSequence or Generator
        Seed of the Monte Carlo replicates.
    calibration : {"asymptotic", "monte_carlo"}, default "asymptotic"
        ``"asymptotic"``: the exact limit laws (Watson's series; Imhof's formula for the
        weighted χ²_2 sums of Giné F_n and PAD). ``"monte_carlo"``: simulation of the three
        statistics under uniformity for the same n, p = (1 + #{T_b ≥ T}) / (B + 1).
    callback : callable, optional
        Monte Carlo only: receives a :class:`~stpca_gui.core._base.progress.ProgressEvent` after
        every chunk of replicates (``fraction`` = share done); returning True cancels.
        The results do not depend on it.
    pad_ties : {"limit", "sphunif"}, default "limit"
        How PAD counts tied pairs: ``"limit"`` by the continuous limit of its pair term
        (the statistic's definition); ``"sphunif"`` as R ``sphunif`` 1.x, which drops the
        tied pairs whose ψ rounds to exactly 0 (:func:`sphunif_dropped_pairs`), to
        reproduce published sphunif p-values on tied data. Watson and Giné are unaffected;
        so are Monte Carlo null samples, which have no ties.

    Returns
    -------
    dict
        ``{"Watson": UniformityTest, "Gine_Fn": ..., "PAD": ...}``.

    Raises
    ------
    FitCancelled
        When ``callback`` asked to stop.
    """
    if pad_ties not in PAD_TIES:
        raise ValueError(f"unknown PAD tie convention {pad_ties!r}; use one of {PAD_TIES}")
    stats = _all_statistics(angles, pad_ties)
    n = int(np.size(angles))
    details = dict.fromkeys(TEST_NAMES, "")
    if pad_ties == "sphunif":
        details["PAD"] = (f"sphunif ties: {len(sphunif_dropped_pairs(angles))} of "
                          f"{tied_pair_count(angles)} tied pairs dropped")
    if calibration == "asymptotic":
        return {
            name: UniformityTest(name=name, statistic=stats[name],
                                 p_value=asymptotic_sf(name, stats[name]),
                                 method="asymptotic", n_replicates=None,
                                 details=details[name])
            for name in TEST_NAMES
        }
    if calibration != "monte_carlo":
        raise ValueError(f"unknown calibration {calibration!r}; use 'asymptotic' or "
                         "'monte_carlo'")
    reps = int(n_replicates)
    if reps < 1:
        raise ValueError(f"n_replicates must be positive, got {n_replicates}")
    null = _monte_carlo_null(n, reps, random_state, callback)
    results = {}
    for column, name in enumerate(TEST_NAMES):
        exceed = int(np.count_nonzero(null[:, column] >= stats[name]))
        results[name] = UniformityTest(name=name, statistic=stats[name],
                                       p_value=(1.0 + exceed) / (reps + 1.0),
                                       method="Monte Carlo", n_replicates=reps,
                                       details=details[name])
    return results


def _single_test(
    name: TestName,
    angles: ArrayLike,
    n_replicates: int,
    random_state: RandomStateLike,
    calibration: Calibration,
) -> UniformityTest:
    if calibration == "asymptotic":
        statistic = _STATISTICS[name](angles)
        return UniformityTest(name, statistic, asymptotic_sf(name, statistic), "asymptotic",
                              None)
    return uniformity_tests(angles, n_replicates, random_state, calibration)[name]


def _named_test(name: TestName, function_name: str, title: str) -> Callable[..., UniformityTest]:
    """One public single-test function (they differ only in the statistic they run)."""

    def test(
        angles: ArrayLike,
        n_replicates: int = 1000,
        random_state: RandomStateLike = None,
        calibration: Calibration = "asymptotic",
    ) -> UniformityTest:
        return _single_test(name, angles, n_replicates, random_state, calibration)

    test.__name__ = test.__qualname__ = function_name
    test.__doc__ = f"""{title} of circular uniformity (see :func:`uniformity_tests`).

    Parameters
    ----------
    angles : array_like, shape (n,)
    n_replicates : int, default 1000
    random_state : None, int, SeedSequence or Generator
    calibration : {{"asymptotic", "monte_carlo"}}, default "asymptotic"

    Returns
    -------
    UniformityTest
    """
    return test


watson_test = _named_test("Watson", "watson_test", "Watson's U² test")
gine_fn_test = _named_test("Gine_Fn", "gine_fn_test", "Giné's F_n test")
pad_test = _named_test("PAD", "pad_test", "Projected Anderson–Darling test")

_STATISTICS = {"Watson": watson_statistic, "Gine_Fn": gine_fn_statistic, "PAD": pad_statistic}
