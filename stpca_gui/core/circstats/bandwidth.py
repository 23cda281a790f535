"""Bandwidth selection for the two density estimates of PNS1 scores.

* :func:`circular_bandwidth`: the von Mises KDE of :mod:`stpca_gui.core.circstats.kde` (the score
  histogram's curve): Silverman's robust wrapped-normal rule, Taylor's (2008) plug-in rule,
  or likelihood cross-validation; with the σ ↔ κ conversions that define what a bandwidth
  means for that kernel.
* :func:`hpi_derivative`: the Wand & Jones plug-in bandwidth for a density *derivative*,
  as ``ks::hpi(x, deriv.order = r)``, used by :mod:`stpca_gui.core.circstats.paper_modes` to
  cluster PNS1 by the modes of its density (paper, §5).

Both selectors see a periodic sample cut at its largest gap
(:func:`unwrapped_at_largest_gap`), so that no cluster is split by the cut. The rules, their
references and measured costs are described in ``docs/bandwidth.md``.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq, minimize_scalar
from scipy.special import eval_hermitenorm, i0e, i1e, ive

from ..geometry.torus import TWO_PI, wrap_angles
from ._circular_binning import (
    BINNED_POINTS,
    MIN_SIGMA_IN_BINS,
    kernel_on_nodes,
    linear_binning,
    smooth_binned,
)

BandwidthRule = Literal["silverman", "taylor", "lcv"]

#: Below this wrapped-normal σ (radians) the concentration is taken as 1/σ² (the exact
#: inversion loses precision there and the two agree to ~σ²).
_SMALL_SIGMA = 1e-4
#: Smallest σ (radians on the unit circle) returned by the rules (degenerate samples).
_MIN_SIGMA = 1e-3
#: Grid points of the binned kernel functional estimates (``ks``'s ``default.gridsize(1)``).
HPI_GRIDSIZE = 401
#: Sample pairs evaluated at once by the exact kernel functionals (float64: 8 MB).
_BLOCK_ELEMENTS = 1 << 20


def unwrapped_at_largest_gap(x: NDArray[np.float64], period: float) -> NDArray[np.float64]:
    """The sample on the real line, cut at its largest circular gap (sorted)."""
    s = np.sort(wrap_angles(x, period))
    if s.size < 2:
        return s
    gaps = np.diff(np.append(s, s[0] + period))
    cut = int(np.argmax(gaps))
    if cut == s.size - 1:  # the largest gap straddles ±P/2: keep the sample as it is
        return s
    return np.concatenate([s[cut + 1:], s[:cut + 1] + period])


# ---------------------------------------------------------------------------------------------
# The von Mises kernel's bandwidth: conventions and rules for the circular KDE
# ---------------------------------------------------------------------------------------------


def _mean_resultant_length(kappa: float) -> float:
    """A₁(κ) = I₁(κ) / I₀(κ)."""
    return float(i1e(kappa) / i0e(kappa))


def _inverse_mean_resultant_length(rho: float) -> float:
    """κ with A₁(κ) = ρ (0 for ρ ≤ 0)."""
    if rho <= 0.0:
        return 0.0
    if rho >= 1.0:
        return np.inf
    upper = max(10.0, 2.0 / (1.0 - rho))  # A₁(2/(1 − ρ)) ≈ 1 − (1 − ρ)/4 > ρ
    while _mean_resultant_length(upper) < rho:
        upper *= 2.0
    return float(brentq(lambda k: _mean_resultant_length(k) - rho, 0.0, upper,
                        xtol=1e-14, rtol=1e-13, maxiter=200))


def approximate_concentration(mean_resultant: NDArray[np.float64] | float
                              ) -> NDArray[np.float64]:
    """Fisher's (1993, p. 88) approximation of κ = A₁⁻¹(R̄), elementwise (R̄ clipped to
    [10⁻⁸, 0.999])."""
    r = np.clip(np.asarray(mean_resultant, dtype=np.float64), 1e-8, 0.999)
    return np.where(r < 0.53, 2 * r + r**3 + 5 * r**5 / 6,
                    np.where(r < 0.85, -0.4 + 1.39 * r + 0.43 / (1 - r),
                             1 / (r**3 - 4 * r**2 + 3 * r)))


def sigma_to_concentration(sigma: float) -> float:
    """Von Mises concentration matching a wrapped normal of standard deviation ``sigma``.

    Parameters
    ----------
    sigma : float
        Standard deviation on the unit circle, radians (> 0).

    Returns
    -------
    float
        ``κ = A₁⁻¹(exp(−σ²/2))``: the von Mises with the same mean resultant length.
    """
    sigma = float(sigma)
    if not np.isfinite(sigma) or sigma <= 0.0:
        raise ValueError(f"sigma must be positive and finite, got {sigma}")
    if sigma < _SMALL_SIGMA:
        return 1.0 / sigma**2
    return _inverse_mean_resultant_length(float(np.exp(-0.5 * sigma**2)))


def concentration_to_sigma(kappa: float) -> float:
    """Inverse of :func:`sigma_to_concentration`: ``σ = sqrt(−2 ln A₁(κ))``."""
    kappa = float(kappa)
    if kappa <= 0.0:
        return np.inf
    if kappa > 1.0 / _SMALL_SIGMA**2:
        return 1.0 / np.sqrt(kappa)
    return float(np.sqrt(-2.0 * np.log(_mean_resultant_length(kappa))))


def bandwidth_to_concentration(bandwidth: float, period: float = TWO_PI) -> float:
    """Von Mises kernel concentration κ (on the unit circle) for a bandwidth in data units.

    Parameters
    ----------
    bandwidth : float
        Kernel standard deviation in the units of the data (> 0).
    period : float
        Period of the data.

    Returns
    -------
    float
    """
    period = check_period(period)
    return sigma_to_concentration(TWO_PI * float(bandwidth) / period)


def check_period(period: float) -> float:
    """``period`` as a float, or ValueError when it is not positive and finite."""
    period = float(period)
    if not np.isfinite(period) or period <= 0.0:
        raise ValueError(f"period must be positive and finite, got {period}")
    return period


def check_periodic_sample(angles: ArrayLike) -> NDArray[np.float64]:
    """The sample as a flat float array, or ValueError when it is empty or not finite."""
    values = np.asarray(angles, dtype=np.float64).ravel()
    if values.size == 0:
        raise ValueError("the sample is empty")
    if not np.all(np.isfinite(values)):
        raise ValueError("the sample contains NaN or infinite values")
    return values


def circular_bandwidth(
    angles: ArrayLike, period: float = TWO_PI, rule: BandwidthRule = "silverman"
) -> float:
    """Rule-of-thumb bandwidth for :func:`circular_kde`, in the units of the data.

    Parameters
    ----------
    angles : array_like, shape (n,)
        The sample (any real values; only their position modulo ``period`` matters).
    period : float, default 2π
        Period of the data (``2π·circle_radius_`` for PNS1).
    rule : {"silverman", "taylor", "lcv"}, default "silverman"
        ``"silverman"``: robust wrapped-normal Silverman rule
        ``0.9 · min(s, IQR/1.34) · n^(−1/5)``; ``"taylor"``: Taylor's (2008) von Mises
        plug-in rule; ``"lcv"``: likelihood cross-validation, which follows clustered
        (multimodal) samples where both rules of thumb oversmooth (see
        ``docs/bandwidth.md``).

    Returns
    -------
    float
        Kernel standard deviation in data units (> 0), to pass as ``bandwidth``.
    """
    period = check_period(period)
    theta = TWO_PI * check_periodic_sample(angles) / period
    n = theta.size
    r_bar = float(np.hypot(np.mean(np.cos(theta)), np.mean(np.sin(theta))))
    if rule in ("silverman", "lcv"):
        sd = np.sqrt(-2.0 * np.log(r_bar)) if r_bar > 0.0 else np.inf
        unwrapped = unwrapped_at_largest_gap(theta, TWO_PI)
        q25, q75 = np.percentile(unwrapped, [25.0, 75.0])
        iqr = (q75 - q25) / 1.34
        spread = min(sd, iqr) if iqr > 0.0 else sd
        if not np.isfinite(spread) or spread <= 0.0:
            spread = sd if np.isfinite(sd) and sd > 0 else 0.0
        sigma = 0.9 * spread * n ** (-0.2)
        if rule == "lcv" and sigma > 0.0:
            sigma = _lcv_sigma(theta, sigma)
    elif rule == "taylor":
        kappa_hat = _inverse_mean_resultant_length(min(r_bar, 1.0 - 1e-15))
        if kappa_hat <= 0.0:
            return np.inf
        # I₂(2κ) / I₀(κ)² with exponentially scaled Bessel functions (the e^{2κ} cancel).
        ratio = float(ive(2, 2.0 * kappa_hat) / i0e(kappa_hat) ** 2)
        nu = (3.0 * n * kappa_hat**2 * ratio / (4.0 * np.sqrt(np.pi))) ** 0.4
        sigma = concentration_to_sigma(nu)
    else:
        raise ValueError(f"unknown bandwidth rule {rule!r}; use 'silverman', 'taylor' or "
                         "'lcv'")
    sigma = max(float(sigma), _MIN_SIGMA)
    return sigma * period / TWO_PI


def _lcv_sigma(theta: NDArray[np.float64], start: float) -> float:
    """Wrapped-normal σ maximising the leave-one-out log-likelihood of the binned KDE.

    The search runs over a log grid from ``start / 50`` to ``2 · start`` (``start`` being
    the Silverman σ, which oversmooths clustered data), never below
    ``MIN_SIGMA_IN_BINS`` bins, and is refined by a bounded scalar search.
    """
    size = BINNED_POINTS
    n = theta.size
    if n < 3:
        return start
    w = np.full(n, 1.0 / n)
    lower, frac, counts = linear_binning(theta, w, size)
    upper = (lower + 1) % size
    # Weight of a sample's own (binned) contribution at its own position: its two bin
    # weights convolved with the kernel and interpolated back, (1-t)² + t² at offset 0 and
    # 2t(1-t) at offset one bin.
    self_at_0 = (1.0 - frac) ** 2 + frac**2
    self_at_1 = 2.0 * frac * (1.0 - frac)

    def negative_loo_loglik(log_sigma: float) -> float:
        kappa = sigma_to_concentration(float(np.exp(log_sigma)))
        kernel = kernel_on_nodes(kappa, size)
        smooth = smooth_binned(counts, kernel)
        # Linear interpolation between each sample's two nodes (what np.interp does, O(n)
        # without its search: the nodes are known from the binning).
        f = smooth[lower] * (1.0 - frac) + smooth[upper] * frac
        own = (self_at_0 * kernel[0] + self_at_1 * kernel[1]) / n
        loo = (f - own) * (n / (n - 1.0))
        return -float(np.sum(np.log(np.maximum(loo, 1e-300))))

    lowest = np.log(max(MIN_SIGMA_IN_BINS * TWO_PI / size, start / 50.0))
    highest = np.log(max(2.0 * start, np.exp(lowest) * 1.01))
    candidates = np.linspace(lowest, highest, 25)
    values = np.array([negative_loo_loglik(c) for c in candidates])
    best = int(np.argmin(values))
    lo = candidates[max(best - 1, 0)]
    hi = candidates[min(best + 1, candidates.size - 1)]
    refined = minimize_scalar(negative_loo_loglik, bounds=(lo, hi), method="bounded",
                              options={"xatol": 1e-3})
    best_log = refined.x if refined.fun <= values[best] else candidates[best]
    return float(np.exp(best_log))


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


def _line_binning(x: NDArray[np.float64], lo: float, hi: float, size: int) -> NDArray[np.float64]:
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
    counts = _line_binning(values, lo, hi, gridsize)
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
