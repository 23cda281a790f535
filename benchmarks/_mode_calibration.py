"""Candidate calibrations of the product's mode-test step, measured by
``bench_modetest.py --part calibration`` (issue 34; none is in the product, see
docs/mode_test.md, "Calibration: what was tried and what holds").

* **Other weights** of the step's Bonferroni split between Silverman's p_k and the
  excess-mass p-value: computed from the same two p-values.
* **Fast double bootstrap** (Davidson & MacKinnon 2007) of the step's combined statistic
  m = min(s₁/w₁, s₂/w₂), where s₁ and s₂ are the shares of the B first-level resamples (drawn
  from f_{h_k}, as in the product) whose critical bandwidth h*_k, resp. excess mass Δ*_{k+1},
  is at least the value in hand. Each first-level resample b also gets its own critical
  bandwidth h*_b and one second-level resample from its KDE f*_{h*_b}; the second-level
  statistics m** show how the bootstrap p-value p̂ is distributed when the truth is f_{h_k},
  and the calibrated p-value is the share of first-level m*_b at or below the p̂-quantile of
  the m**. The double bootstrap adapts to the null's shape when the bootstrap's error is
  similar one level down; it costs two critical-bandwidth searches (batched over the
  resamples) and a second excess mass per resample.
* **Rescaled smoothed bootstrap** (Silverman 1981; Efron 1979): the resamples from f_{h_k}
  carry the data's spread plus the kernel's variance h_k². Each resample is shrunk towards
  the sample's circular mean direction μ by s = (1 + h_k²/σ²)^(−1/2), with σ² = −2 ln R̄
  (the circular variance of a wrapped normal; R̄ the mean resultant length), so that its
  spread is the sample's again: a point at μ + δ (δ ∈ (−π, π]) moves to μ + s·δ (the
  resample's points placed within their cells, moved, counted at their nearest nodes).
  Shrinking an arc keeps the number of modes,
  so the resamples still come from a density with k modes. Both statistics are computed on
  the same resamples, shrunk.
* **Parametric bootstrap from a fitted Jones–Pewsey density, min-p** (issue 34, fourth
  attempt): the null "one mode" is resampled from the maximum-likelihood Jones–Pewsey density
  of the sample (:mod:`stpca_gui.core.circstats.jones_pewsey`; unimodal for every parameter)
  instead of f_{h_1}, drawn on the same coarse grid as the product's resamples. The sample
  and its B resamples are treated alike: each gets its own critical bandwidth (batched
  bisection) and excess mass Δ₂, its p-value for each statistic among all B + 1, and the
  smaller of the two; the step's p-value is the share of the B + 1 whose smaller p-value is at
  most the sample's (Westfall & Young's min-p: no Bonferroni split).
"""

from __future__ import annotations

import numpy as np

from stpca_gui.core.circstats import silverman as mt
from stpca_gui.core.circstats._excess_mass_kernel import excess_mass_statistic
from stpca_gui.core.circstats.excess_mass import (
    COARSE_LEVELS,
    FINE_LEVELS,
    binned_excess_mass,
    nearest_node_counts,
)
from stpca_gui.core.circstats.jones_pewsey import fit_jones_pewsey

#: Bisection steps on log h for the resamples' critical bandwidths (over h_k/16 … 16·h_k:
#: a relative precision of 0.14 %), and that search range.
_STEPS = 12
_SPAN = 16.0


def _frequencies(cells: int) -> np.ndarray:
    return np.arange(cells // 2 + 1, dtype=np.float64)


def critical_bandwidths(counts: np.ndarray, k: int, h_ref: float) -> np.ndarray:
    """Each row's critical bandwidth for k modes (rows of counts on the circle's nodes),
    searched together by bisection on log h within [h_ref/16, 16·h_ref]."""
    cells = counts.shape[1]
    spectrum = np.fft.rfft(counts, axis=1) / counts.sum(axis=1, keepdims=True)
    j = _frequencies(cells)
    low = np.full(counts.shape[0], np.log(h_ref / _SPAN))
    high = np.full(counts.shape[0], np.log(h_ref * _SPAN))
    for _ in range(_STEPS):
        middle = 0.5 * (low + high)
        heat = np.exp(-0.5 * np.square(np.exp(middle)[:, None] * j))
        derivative = np.fft.irfft(spectrum * (1j * j) * heat, n=cells, axis=1)
        more = np.asarray(mt._count_maxima_rows(derivative)) > k
        low = np.where(more, middle, low)
        high = np.where(more, high, middle)
    return np.exp(high)


def _kde_rows(counts: np.ndarray, bandwidths: np.ndarray) -> np.ndarray:
    """Each row's KDE at its own bandwidth, as probabilities on the nodes."""
    cells = counts.shape[1]
    spectrum = np.fft.rfft(counts, axis=1)
    heat = np.exp(-0.5 * np.square(bandwidths[:, None] * _frequencies(cells)))
    density = np.maximum(np.fft.irfft(spectrum * heat, n=cells, axis=1), 0.0)
    return density / density.sum(axis=1, keepdims=True)


def _draw_rows(probabilities: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """One sample of size n from each row's probabilities (as the product draws: n draws by
    inverse CDF below the grid size, Poisson counts above it)."""
    rows, cells = probabilities.shape
    if n >= cells:
        return rng.poisson(n * probabilities).astype(np.float64)
    offsets = np.arange(rows)[:, None]
    cdf = np.cumsum(probabilities, axis=1)
    cdf = cdf / cdf[:, -1:] + offsets  # one increasing array for every row at once
    draws = np.searchsorted(cdf.ravel(), (rng.random((rows, n)) + offsets).ravel())
    return np.bincount(np.minimum(draws, rows * cells - 1), minlength=rows * cells).reshape(
        rows, cells).astype(np.float64)


def shrink_counts(counts: np.ndarray, mean_direction: float, factor: float,
                  rng: np.random.Generator) -> np.ndarray:
    """Rows of counts on the circle's nodes, each point moved from μ + δ to μ + factor·δ
    (δ wrapped to (−π, π]) and counted again at its nearest node. A point of a node is
    placed uniformly within its cell first: moving the nodes themselves would crowd the
    counts onto some nodes and not others (a comb the excess mass would read as structure).
    """
    rows, cells = counts.shape
    whole = counts.astype(np.int64)
    row_of = np.repeat(np.arange(rows), whole.sum(axis=1))
    node = np.concatenate([np.repeat(np.arange(cells), row) for row in whole])
    position = (node + rng.random(node.size) - 0.5) * (2 * np.pi / cells)
    deviation = np.angle(np.exp(1j * (position - mean_direction)))
    moved = np.mod(mean_direction + factor * deviation, 2 * np.pi)
    target = np.rint(moved * cells / (2 * np.pi)).astype(np.int64) % cells
    return np.bincount(row_of * cells + target, minlength=rows * cells).reshape(
        rows, cells).astype(np.float64)


def rescaled(resamples: np.ndarray, theta: np.ndarray, h_k: float,
             rng: np.random.Generator) -> np.ndarray:
    """Resamples (rows of counts on the nodes) of f_{h_k} shrunk to the sample's spread
    (module docstring, "Rescaled smoothed bootstrap")."""
    resultant = np.exp(1j * theta).mean()
    variance = -2.0 * np.log(max(abs(resultant), 1e-12))
    factor = 1.0 / np.sqrt(1.0 + h_k * h_k / variance)
    return shrink_counts(resamples, float(np.angle(resultant)), factor, rng)


def _at_least_shares(values: np.ndarray) -> np.ndarray:
    """For every entry: the share of all entries at least as large (itself included)."""
    ordered = np.sort(values)
    return (values.size - np.searchsorted(ordered, values, side="left")) / values.size


def parametric_min_p(theta: np.ndarray, h_1: float, n_boot: int,
                     rng: np.random.Generator) -> tuple[float, float, float]:
    """The first step by the parametric Jones–Pewsey bootstrap (module docstring): the
    min-p step's p-value, and the critical bandwidth's and the excess mass's own p-values,
    each as a share of the B + 1 (the sample among them)."""
    null = fit_jones_pewsey(nearest_node_counts(theta, mt.GRID_POINTS))
    probabilities = mt.coarse_probabilities(null.node_probabilities(mt.GRID_POINTS), h_1)
    counts = np.vstack([nearest_node_counts(theta, probabilities.size),
                        mt.resample_counts(probabilities, theta.size, n_boot, rng)])
    p_bandwidth = _at_least_shares(critical_bandwidths(counts, 1, h_1))
    p_mass = _at_least_shares(binned_excess_mass(counts, 1))
    smallest = np.minimum(p_bandwidth, p_mass)
    return (float(np.mean(smallest <= smallest[0])), float(p_bandwidth[0]),
            float(p_mass[0]))


def first_step_candidates(x: np.ndarray, n_boot: int, seed: int,
                          weights: tuple[float, float], period: float = 2 * np.pi
                          ) -> tuple[float, ...]:
    """Silverman's p₁, the excess-mass p-value (both as the product computes them), the
    fast-double-bootstrap p-value of the combined step statistic with ``weights``,
    Silverman's p₁ and the excess-mass p-value from the same resamples rescaled, and the
    parametric Jones–Pewsey bootstrap's min-p step, critical-bandwidth and excess-mass
    p-values (its own resamples), for the first step ("at most one mode") of a sample
    without ties."""
    k = 1
    rng = np.random.default_rng(seed)
    theta = mt.unit_angles(x, period)
    sample = mt.BinnedSample(theta)
    h_k = mt.binned_critical_bandwidth(sample, k)
    probabilities = mt.coarse_probabilities(sample.density(h_k), h_k)
    cells, n = probabilities.size, theta.size
    counts = nearest_node_counts(theta, cells)
    observed_mass = excess_mass_statistic(counts / counts.sum(), k, COARSE_LEVELS, FINE_LEVELS)
    first = mt.resample_counts(probabilities, n, n_boot, rng)
    more_modes = mt.resamples_with_more_modes(first, h_k, k)
    first_h = critical_bandwidths(first, k, h_k)
    first_mass = binned_excess_mass(first, k)
    second = _draw_rows(_kde_rows(first, first_h), n, rng)
    second_h = critical_bandwidths(second, k, h_k)
    second_mass = binned_excess_mass(second, k)
    sorted_h, sorted_mass = np.sort(first_h), np.sort(first_mass)

    def at_least(sorted_values: np.ndarray, values: np.ndarray | float) -> np.ndarray:
        return n_boot - np.searchsorted(sorted_values, values, side="left")

    scale = 1.0 / (n_boot + 1.0)
    p_bandwidth = (1 + more_modes) * scale
    p_mass = float((1 + at_least(sorted_mass, observed_mass)) * scale)
    w1, w2 = weights
    observed = min(p_bandwidth / w1, p_mass / w2)
    # a first-level resample counts itself among the values at least its own
    first_m = np.minimum(at_least(sorted_h, first_h) * scale / w1,
                         at_least(sorted_mass, first_mass) * scale / w2)
    second_m = np.minimum((1 + at_least(sorted_h, second_h)) * scale / w1,
                          (1 + at_least(sorted_mass, second_mass)) * scale / w2)
    p_hat = (1 + np.count_nonzero(first_m <= observed)) * scale
    threshold = np.quantile(second_m, min(p_hat, 1.0), method="inverted_cdf")
    p_double = (1 + np.count_nonzero(first_m <= threshold)) * scale
    shrunk = rescaled(first, theta, h_k, rng)
    p_bandwidth_rescaled = (1 + mt.resamples_with_more_modes(shrunk, h_k, k)) * scale
    p_mass_rescaled = (1 + np.count_nonzero(binned_excess_mass(shrunk, k) >= observed_mass)
                       ) * scale
    return (p_bandwidth, p_mass, float(p_double), float(p_bandwidth_rescaled),
            float(p_mass_rescaled), *parametric_min_p(theta, h_k, n_boot, rng))


def weighted_step(p_bandwidth: np.ndarray, p_mass: np.ndarray,
                  weights: tuple[float, float]) -> np.ndarray:
    """The step's p-value min(1, p_k/w₁, p_EM/w₂) for other weights (a weight 0 drops its
    test)."""
    w1, w2 = weights
    with np.errstate(divide="ignore"):
        a = np.where(w1 > 0, p_bandwidth / max(w1, 1e-300), np.inf)
        b = np.where(w2 > 0, p_mass / max(w2, 1e-300), np.inf)
    return np.minimum(1.0, np.minimum(a, b))
