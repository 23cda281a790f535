"""Tests of circular uniformity: Watson U², Giné's F_n and the Projected Anderson–Darling.

The statistics follow the definitions of García-Portugués & Verdebout's R package
``sphunif`` (``cir_stat_Watson``, ``cir_stat_Gine_Fn``, ``cir_stat_PAD``; García-Portugués
and Verdebout 2018), on angles θ_1, …, θ_n (radians). With the shortest angles
ψ_ij = min(|θ_i − θ_j|, 2π − |θ_i − θ_j|) ∈ [0, π]:

Watson U²
    The classical ECDF form with u_(1) ≤ … ≤ u_(n) the sorted θ/(2π) ∈ [0, 1),

        U² = Σ_i (u_(i) − (2i − 1)/(2n))² − n (ū − 1/2)² + 1/(12 n),

    which equals the pair sum
    ``U² = 1/12 + (2/n) Σ_{i<j} [1/12 − ψ_ij (2π − ψ_ij)/(8π²)]``
    (= ``(1/n) Σ_{i,j} (1/(2π²)) Σ_{k≥1} cos(k θ_ij)/k²``).

Giné's F_n (Giné 1975), ``sphunif``'s ``4 A_n + G_n`` at p = 2:

        F_n = 3n/2 − (4/(π n)) Σ_{i<j} ψ_ij − (π/(2n)) Σ_{i<j} sin ψ_ij
            = 3/2 − (4/(π n)) Σ_{i<j} (ψ_ij − π/2) − (π/(2n)) Σ_{i<j} (sin ψ_ij − 2/π).

Projected Anderson–Darling (García-Portugués, Navarro-Esteban & Cuesta-Albertos 2023), p = 2:

        PAD_n = n − 2 (n − 1) log(2π)
                + (2/(π n)) Σ_{i<j} [ψ_ij log ψ_ij + (2π − ψ_ij) log(2π − ψ_ij)]
              = 1 + (2/(π n)) Σ_{i<j} [ψ_ij log ψ_ij + (2π − ψ_ij) log(2π − ψ_ij)
                                       − (2π log 2π − π)],

    with 0·log 0 = 0. (The second lines subtract the null mean of each pair term; they are
    algebraically identical and keep the O(n²) sums small.)

All three are rotation- and reflection-invariant, and V-statistics
``T = Σ_{k≥1} w_k · (2/n) |Σ_j e^{i k θ_j}|²`` (Sobolev statistics), so under uniformity
``T → Σ_k w_k χ²_2`` (independent χ²_2's; every finite-n mean is exactly Σ 2 w_k):

* Watson: ``w_k = 1/(4π² k²)``; the limit law has the closed form
  ``P(U² > x) = 2 Σ_{k≥1} (−1)^{k−1} exp(−2 k² π² x)`` (Watson 1961);
* Giné F_n: ``w_k = 4/(π² k²)`` for odd k and ``1/(2 (k² − 1))`` for even k (mean 3/2),
  the cosine coefficients of the pair kernel, equal to ``sphunif``'s Sobolev weights
  (``weights_dfs_Sobolev(p = 2, type = "Gine_Fn")``);
* PAD: ``w_k = Cin(2πk) / (π² k²)`` with ``Cin(x) = γ + log x − Ci(x) = ∫_0^x (1 − cos t)/t
  dt`` (mean 1), obtained by integrating ``∫_0^{2π} t log t cos(kt) dt = Cin(2πk)/k²`` by parts.

Asymptotic p-values of F_n and PAD are tail probabilities of the weighted sum of χ²_2's
computed by Imhof's (1961) inversion formula

    P(Q > x) = 1/2 + (1/π) ∫_0^∞ sin θ(u) / (u ρ(u)) du,
    θ(u) = Σ_k arctan(w_k u) − x u / 2,   ρ(u) = Π_k (1 + w_k² u²)^{1/2},

with the first ``K = 10⁴`` weights, as ``sphunif``'s ``unif_test`` does by default
(``p_value = "asymp"``, ``K_max = 1e4``, ``method = "I"``), which reproduces its p-values;
``tail_correction=True`` adds the mean of the neglected remainder, ``Σ_{k>K} 2 w_k`` (known
since the total mean is; the remainder's variance is below 10⁻¹⁰), which moves p-values by
less than 10⁻⁴. Numerically, weights small over the whole integration range enter through
Taylor series of arctan and log1p in power sums, so one p-value costs a few milliseconds,
and the integral agrees with Watson's closed form to 10⁻¹³ when given Watson's weights. The
Watson p-value uses the closed-form series.

Ties: a tied pair (ψ_ij = 0) contributes its continuous limit (0 log 0 = 0, i.e. 2π log 2π
to the PAD pair term). ``sphunif`` (1.x) instead sets the whole PAD pair term to 0 when
``ψ log ψ`` evaluates to NaN, and whether a tie gives ψ = 0 exactly there depends on the
rounding of ``cos² + sin²``; on data with many ties (e.g. longitudes recorded to 0.01°) its
PAD statistic and p-value therefore differ from the ones computed here.

Alternatively, ``calibration="monte_carlo"`` calibrates all three statistics by simulation
under uniformity (``n_replicates`` samples of the same size, seeded by ``random_state``),
with p-value ``(1 + #{T_b ≥ T}) / (B + 1)``.

Computation: the pair sums are exact O(n²) loops compiled with numba (O(n) memory,
parallel over rows, ≈ 0.1 s for n = 5000); Monte Carlo replicates run in parallel over
replicates (≈ 2 s for 1000 replicates of n = 1000 on two cores).

References
----------
García-Portugués, E. and Verdebout, T. (2018). An overview of uniformity tests on the
hypersphere. arXiv:1804.00286. (R package ``sphunif``.)
García-Portugués, E., Navarro-Esteban, P. and Cuesta-Albertos, J. A. (2023). On a
projection-based class of uniformity tests on the hypersphere. *Bernoulli* 29(1), 181–204.
Giné, E. (1975). Invariant tests for uniformity on compact Riemannian manifolds based on
Sobolev norms. *Annals of Statistics* 3(6), 1243–1266.
Watson, G. S. (1961). Goodness-of-fit tests on a circle. *Biometrika* 48, 109–114.
Imhof, J. P. (1961). Computing the distribution of quadratic forms in normal variables.
*Biometrika* 48, 419–426.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.integrate import quad
from scipy.special import sici

from ._random import RandomStateLike, check_random_state

TWO_PI = 2.0 * np.pi
_PI = math.pi
_TWO_PI = 2.0 * math.pi
_HALF_PI = 0.5 * math.pi
_TWO_OVER_PI = 2.0 / math.pi
#: Null mean of the PAD pair term t log t + (2π − t) log(2π − t), t ~ U(0, π).
_PAD_PAIR_MEAN = _TWO_PI * math.log(_TWO_PI) - _PI

Calibration = Literal["asymptotic", "monte_carlo"]
TestName = Literal["Watson", "Gine_Fn", "PAD"]
TEST_NAMES: tuple[TestName, ...] = ("Watson", "Gine_Fn", "PAD")

#: Number of exact weights of the asymptotic series (sphunif's unif_test default K_max).
SERIES_TERMS = 10_000
#: Null means Σ_k 2 w_k of the statistics.
_NULL_MEANS = {"Watson": 1.0 / 12.0, "Gine_Fn": 1.5, "PAD": 1.0}
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
    """

    name: str
    statistic: float
    p_value: float
    method: str
    n_replicates: int | None


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------


#: Floating-point flags of the pair loops: reassociation lets LLVM vectorise the sums.
_FAST = {"contract", "reassoc", "nsz"}
#: ln 2 split in a high part (exact in k·ln2_hi for |k| < 2^11) and a low part, and the
#: minimax coefficients of log(1 + f) = f − f²/2 + s (f²/2 + R(s²)), s = f/(2 + f), on
#: √2/2 ≤ 1 + f < √2, all from fdlibm's e_log.c (Sun Microsystems, freely redistributable).
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01


@numba.njit(cache=True, nogil=True, fastmath=_FAST, error_model="numpy")
def _xlogx_sum(x: NDArray, count: int, mantissa_bits: NDArray, exponents: NDArray) -> float:
    """Σ x log x over x[:count] (x ≥ 0 and not subnormal; 0 log 0 = 0).

    A branch-free version of fdlibm's logarithm (measured relative error below 6e-16), so
    that the loops vectorise: libm's log is called one element at a time and costs about
    three times as much here.
    """
    bits = x.view(np.int64)
    for t in range(count):
        b = bits[t]
        high = b >> 32
        k = (high >> 20) - 1023
        high = high & 0xFFFFF
        half = (high + 0x95F64) & 0x100000  # normalise the mantissa to [√2/2, √2)
        mantissa_bits[t] = ((high | (half ^ 0x3FF00000)) << 32) | (b & 0xFFFFFFFF)
        exponents[t] = k + (half >> 20)
    mantissa = mantissa_bits.view(np.float64)
    total = 0.0
    for t in range(count):
        f = mantissa[t] - 1.0
        s = f / (2.0 + f)
        dk = exponents[t]
        z = s * s
        w = z * z
        r = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7))) + w * (_LG2 + w * (_LG4 + w * _LG6))
        hfsq = 0.5 * f * f
        total += x[t] * (dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f))
    return total


@numba.njit(cache=True, nogil=True, fastmath=_FAST, error_model="numpy")
def _row_sums(
    theta: NDArray, cosines: NDArray, sines: NDArray, i: int, buffer: NDArray,
    mantissa_bits: NDArray, exponents: NDArray,
) -> tuple:
    """Centred pair terms of row i against j > i: (ψ − π/2, sin ψ − 2/π, PAD term − mean).

    ``buffer``, ``mantissa_bits`` and ``exponents`` are scratch arrays of length ≥ 2n.
    """
    n = theta.size
    count = n - 1 - i
    ti = theta[i]
    ci = cosines[i]
    si = sines[i]
    acc_psi = 0.0
    acc_sin = 0.0
    for c in range(count):
        j = i + 1 + c
        d = abs(ti - theta[j])
        e = _TWO_PI - d
        buffer[c] = d
        buffer[count + c] = e
        acc_psi += min(d, e)
        acc_sin += abs(si * cosines[j] - ci * sines[j])
    acc_pad = _xlogx_sum(buffer, 2 * count, mantissa_bits, exponents)
    return (acc_psi - count * _HALF_PI, acc_sin - count * _TWO_OVER_PI,
            acc_pad - count * _PAD_PAIR_MEAN)


@numba.njit(cache=True, nogil=True)
def _pair_sums_serial(theta: NDArray) -> tuple:
    n = theta.size
    cosines = np.cos(theta)
    sines = np.sin(theta)
    buffer = np.empty(2 * n)
    mantissa_bits = np.empty(2 * n, dtype=np.int64)
    exponents = np.empty(2 * n)
    s_psi = 0.0
    s_sin = 0.0
    s_pad = 0.0
    for i in range(n - 1):
        a, b, c = _row_sums(theta, cosines, sines, i, buffer, mantissa_bits, exponents)
        s_psi += a
        s_sin += b
        s_pad += c
    return s_psi, s_sin, s_pad


@numba.njit(cache=True, nogil=True, parallel=True)
def _pair_sums_parallel(theta: NDArray) -> tuple:
    """Rows i and n − 1 − i are processed together so that the threads get equal work."""
    n = theta.size
    cosines = np.cos(theta)
    sines = np.sin(theta)
    s_psi = 0.0
    s_sin = 0.0
    s_pad = 0.0
    for i in numba.prange((n + 1) // 2):
        buffer = np.empty(2 * n)
        mantissa_bits = np.empty(2 * n, dtype=np.int64)
        exponents = np.empty(2 * n)
        a, b, c = _row_sums(theta, cosines, sines, i, buffer, mantissa_bits, exponents)
        partner = n - 1 - i
        if partner != i:
            a2, b2, c2 = _row_sums(theta, cosines, sines, partner, buffer, mantissa_bits,
                                   exponents)
            a += a2
            b += b2
            c += c2
        s_psi += a
        s_sin += b
        s_pad += c
    return s_psi, s_sin, s_pad


@numba.njit(cache=True, nogil=True)
def _watson_sorted(u: NDArray) -> float:
    """Watson U² of sorted values u in [0, 1)."""
    n = u.size
    total = 0.0
    mean = 0.0
    for i in range(n):
        dev = u[i] - (2.0 * i + 1.0) / (2.0 * n)
        total += dev * dev
        mean += u[i]
    mean /= n
    return total - n * (mean - 0.5) ** 2 + 1.0 / (12.0 * n)


@numba.njit(cache=True, nogil=True)
def _statistics_from_sums(n: int, s_psi: float, s_sin: float, s_pad: float) -> tuple:
    gine = 1.5 - 4.0 / (_PI * n) * s_psi - _PI / (2.0 * n) * s_sin
    pad = 1.0 + 2.0 / (_PI * n) * s_pad
    return gine, pad


@numba.njit(cache=True, nogil=True, parallel=True)
def _replicate_statistics(samples: NDArray, out: NDArray) -> None:
    """Watson, Giné F_n and PAD of every row of ``samples`` (angles in [0, 2π))."""
    reps, n = samples.shape
    for b in numba.prange(reps):
        theta = samples[b]
        u = np.sort(theta) / _TWO_PI
        out[b, 0] = _watson_sorted(u)
        s_psi, s_sin, s_pad = _pair_sums_serial(theta)
        gine, pad = _statistics_from_sums(n, s_psi, s_sin, s_pad)
        out[b, 1] = gine
        out[b, 2] = pad


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
        return _pair_sums_serial(theta)
    return _pair_sums_parallel(theta)


def watson_statistic(angles: ArrayLike) -> float:
    """Watson's U² (ECDF form, O(n log n)); see the module docstring.

    Parameters
    ----------
    angles : array_like, shape (n,)
        Angles in radians (any real values).

    Returns
    -------
    float
    """
    theta = _check_angles(angles)
    return float(_watson_sorted(np.sort(theta) / TWO_PI))


def gine_fn_statistic(angles: ArrayLike) -> float:
    """Giné's F_n on the circle (``sphunif::cir_stat_Gine_Fn``); see the module docstring.

    Parameters
    ----------
    angles : array_like, shape (n,)
        Angles in radians.

    Returns
    -------
    float
    """
    theta = _check_angles(angles)
    s_psi, s_sin, s_pad = _pair_sums(theta)
    return float(_statistics_from_sums(theta.size, s_psi, s_sin, s_pad)[0])


def pad_statistic(angles: ArrayLike) -> float:
    """Projected Anderson–Darling statistic on the circle (``sphunif::cir_stat_PAD``).

    Parameters
    ----------
    angles : array_like, shape (n,)
        Angles in radians.

    Returns
    -------
    float
    """
    theta = _check_angles(angles)
    s_psi, s_sin, s_pad = _pair_sums(theta)
    return float(_statistics_from_sums(theta.size, s_psi, s_sin, s_pad)[1])


def _all_statistics(theta: NDArray[np.float64]) -> dict[str, float]:
    watson = float(_watson_sorted(np.sort(theta) / TWO_PI))
    gine, pad = _statistics_from_sums(theta.size, *_pair_sums(theta))
    return {"Watson": watson, "Gine_Fn": float(gine), "PAD": float(pad)}


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
        See the module docstring for the formulas.
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
        Add the mean of the terms beyond ``n_terms`` (see the module docstring).

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
    n: int, n_replicates: int, random_state: RandomStateLike
) -> NDArray[np.float64]:
    """Statistics (Watson, Giné F_n, PAD) of ``n_replicates`` uniform samples of size n."""
    rng = check_random_state(random_state)
    out = np.empty((n_replicates, 3))
    chunk = max(1, _MC_CHUNK_ELEMENTS // n)
    for start in range(0, n_replicates, chunk):
        stop = min(start + chunk, n_replicates)
        samples = rng.uniform(0.0, TWO_PI, size=(stop - start, n))
        _replicate_statistics(samples, out[start:stop])
    return out


def uniformity_tests(
    angles: ArrayLike,
    n_replicates: int = 1000,
    random_state: RandomStateLike = None,
    calibration: Calibration = "asymptotic",
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

    Returns
    -------
    dict
        ``{"Watson": UniformityTest, "Gine_Fn": ..., "PAD": ...}``.
    """
    theta = _check_angles(angles)
    stats = _all_statistics(theta)
    if calibration == "asymptotic":
        return {
            name: UniformityTest(name=name, statistic=stats[name],
                                 p_value=asymptotic_sf(name, stats[name]),
                                 method="asymptotic", n_replicates=None)
            for name in TEST_NAMES
        }
    if calibration != "monte_carlo":
        raise ValueError(f"unknown calibration {calibration!r}; use 'asymptotic' or "
                         "'monte_carlo'")
    reps = int(n_replicates)
    if reps < 1:
        raise ValueError(f"n_replicates must be positive, got {n_replicates}")
    null = _monte_carlo_null(theta.size, reps, random_state)
    results = {}
    for column, name in enumerate(TEST_NAMES):
        exceed = int(np.count_nonzero(null[:, column] >= stats[name]))
        results[name] = UniformityTest(name=name, statistic=stats[name],
                                       p_value=(1.0 + exceed) / (reps + 1.0),
                                       method="Monte Carlo", n_replicates=reps)
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
