"""The candidate calibrations measured by ``bench_modetest.py --part calibration``
(benchmarks/_mode_calibration.py, issue 34): the table compares them with the product's step
on the same samples and resamples, and their batched pieces must equal the product's one at a
time."""

from __future__ import annotations

import numpy as np
import pytest
from project_paths import load_benchmark

from stpca_gui.core.circstats.excess_mass import excess_mass, nearest_node_counts
from stpca_gui.core.circstats.jones_pewsey import fit_jones_pewsey
from stpca_gui.core.circstats.mode_test import TEST_WEIGHTS, step_p_values
from stpca_gui.core.circstats.silverman import (
    BinnedSample,
    binned_critical_bandwidth,
    coarse_probabilities,
    resample_counts,
    unit_angles,
)

TWO_PI = 2.0 * np.pi


calibration = load_benchmark("_mode_calibration")


def _two_bumps(n: int) -> np.ndarray:
    rng = np.random.default_rng(4)
    return np.concatenate([rng.vonmises(-0.5, 6.0, n - n // 4), rng.vonmises(0.9, 6.0, n // 4)])


@pytest.mark.parametrize("n", [300, 6000])
def test_the_first_two_p_values_are_the_products_on_the_same_resamples(n):
    x = _two_bumps(n)
    theta = unit_angles(x, TWO_PI)
    sample = BinnedSample(theta)
    h_1 = binned_critical_bandwidth(sample, 1)
    product = step_p_values(sample, theta, h_1, 1, 200, np.random.default_rng(9))
    p_bandwidth, p_mass, p_double, *others = calibration.first_step_candidates(
        x, 200, 9, TEST_WEIGHTS)
    assert (p_bandwidth, p_mass) == (product.bandwidth, product.excess_mass)
    assert 1 / 201 <= p_double <= 1.0
    assert len(others) == 5 and all(1 / 201 <= p <= 1.0 for p in others)


def test_rescaled_resamples_keep_their_mass_and_modes_and_get_the_samples_spread():
    """The shrink of the rescaled smoothed bootstrap: counts kept, the resamples' circular
    variance brought back from the sample's plus h² to about the sample's, the number of
    modes of a two-mode density unchanged."""
    rng = np.random.default_rng(5)
    x = rng.vonmises(0.3, 2.0, 3000)
    theta = unit_angles(x, TWO_PI)
    sample = BinnedSample(theta)
    h = 0.4
    probabilities = coarse_probabilities(sample.density(h), h)
    rows = resample_counts(probabilities, 3000, 50, np.random.default_rng(6))
    shrunk = calibration.rescaled(rows, theta, h, np.random.default_rng(7))
    assert np.array_equal(shrunk.sum(axis=1), rows.sum(axis=1))
    nodes = np.exp(1j * TWO_PI * np.arange(rows.shape[1]) / rows.shape[1])

    def circular_variance(counts):
        return -2 * np.log(np.abs(counts @ nodes) / counts.sum(axis=1))

    target = -2 * np.log(np.abs(np.exp(1j * theta).mean()))
    assert np.mean(circular_variance(rows)) > target + 0.8 * h * h
    assert np.mean(circular_variance(shrunk)) == pytest.approx(target, rel=0.05)
    cells = 512
    grid = TWO_PI * np.arange(cells) / cells
    two = np.exp(6 * np.cos(grid - 1.0)) + np.exp(6 * np.cos(grid + 1.0))
    counts = np.rint(2e5 * two / two.sum())[None]
    moved = calibration.shrink_counts(counts, 0.0, 0.7, np.random.default_rng(8))
    smooth = np.exp(-0.5 * (0.2 * np.arange(cells // 2 + 1)) ** 2)  # a KDE of sd 0.2

    def count_modes(values):
        values = np.fft.irfft(np.fft.rfft(values) * smooth, n=cells)
        return int(np.count_nonzero((values > np.roll(values, 1))
                                    & (values >= np.roll(values, -1))))

    assert count_modes(two) == count_modes(moved[0]) == 2
    # the comb of moving the nodes themselves is not there: neighbouring nodes alike
    inner = moved[0][np.abs(np.angle(np.exp(1j * grid))) < 2.0]
    assert np.abs(np.diff(inner)).max() < 6 * np.sqrt(inner.max())


def test_batched_critical_bandwidths_match_the_products_bisection_row_by_row():
    x = _two_bumps(400)
    sample = BinnedSample(unit_angles(x, TWO_PI))
    h_1 = binned_critical_bandwidth(sample, 1)
    probabilities = coarse_probabilities(sample.density(h_1), h_1)
    rows = resample_counts(probabilities, 400, 12, np.random.default_rng(3))
    batched = calibration.critical_bandwidths(rows, 1, h_1)
    for counts, h in zip(rows, batched, strict=True):
        one = binned_critical_bandwidth(BinnedSample.from_counts(counts, 400), 1)
        assert h == pytest.approx(one, rel=3e-3)


@pytest.mark.parametrize("n", [200, 5000])
def test_one_draw_per_row_follows_that_rows_probabilities(n):
    cells = 256
    grid = np.arange(cells)
    first = np.exp(4 * np.cos(TWO_PI * grid / cells))
    second = np.exp(4 * np.cos(TWO_PI * grid / cells - np.pi))
    probabilities = np.array([first / first.sum(), second / second.sum()] * 200)
    draws = calibration._draw_rows(probabilities, n, np.random.default_rng(1))
    if n < cells:
        assert np.all(draws.sum(axis=1) == n)
    mean = draws.reshape(200, 2, cells).mean(axis=0) / n
    # each row's draws sit on its own probabilities (the two rows' modes are half a turn apart)
    assert np.abs(mean - probabilities[:2]).max() < 6 * np.sqrt(probabilities[:2].max() / (n * 200))
    near_zero = np.abs(np.angle(np.exp(1j * TWO_PI * grid / cells))) < np.pi / 2
    assert mean[0][near_zero].sum() > 0.9 and mean[1][~near_zero].sum() > 0.9


def test_other_weights_drop_a_test_given_weight_zero():
    p_bandwidth = np.array([0.01, 0.5, 0.02])
    p_mass = np.array([0.5, 0.01, 0.03])
    assert calibration.weighted_step(p_bandwidth, p_mass, (0.0, 1.0)).tolist() == [0.5, 0.01, 0.03]
    assert calibration.weighted_step(p_bandwidth, p_mass, (0.5, 0.5)) == pytest.approx(
        [0.02, 0.02, 0.04])


def _slow_parametric_min_p(x: np.ndarray, draws: int, rng: np.random.Generator
                           ) -> tuple[float, float, float]:
    """The Jones–Pewsey candidate done plainly: continuous points drawn from the fitted
    density by rejection from the uniform (no grid, no Poisson counts), each sample's critical
    bandwidth by the product's one-at-a-time bisection on the fine grid and its excess mass on
    the candidate's coarse grid, then the same min-p ranking."""
    theta = unit_angles(x, TWO_PI)
    h_1 = binned_critical_bandwidth(BinnedSample(theta), 1)
    null = fit_jones_pewsey(nearest_node_counts(theta, 4096))
    cells = coarse_probabilities(null.node_probabilities(4096), h_1).size
    top = float(np.exp(null.log_density(np.array([null.mu]))[0]))
    samples = [theta]
    while len(samples) <= draws:
        y = rng.uniform(0.0, TWO_PI, 8 * x.size)
        y = y[rng.uniform(0.0, top, y.size) < np.exp(null.log_density(y))]
        samples.append(y[:x.size])
    bandwidths = np.array([binned_critical_bandwidth(BinnedSample(y), 1) for y in samples])
    masses = np.array([excess_mass(y, 1, cells=cells) for y in samples])
    p_bandwidth = np.array([np.mean(bandwidths >= b) for b in bandwidths])
    p_mass = np.array([np.mean(masses >= m) for m in masses])
    smallest = np.minimum(p_bandwidth, p_mass)
    return float(np.mean(smallest <= smallest[0])), float(p_bandwidth[0]), float(p_mass[0])


def test_the_jones_pewsey_candidate_matches_a_slow_parametric_bootstrap():
    """Same three p-values (min-p step, critical bandwidth, excess mass) as the plain
    implementation within Monte Carlo error, on a fixed sample where all lie inside (0, 1)."""
    x = np.random.default_rng(2).vonmises(0.5, 2.0, 300)
    theta = unit_angles(x, TWO_PI)
    h_1 = binned_critical_bandwidth(BinnedSample(theta), 1)
    fast = calibration.parametric_min_p(theta, h_1, 2000, np.random.default_rng(1))
    slow = _slow_parametric_min_p(x, 400, np.random.default_rng(2))
    for fast_p, slow_p in zip(fast, slow, strict=True):
        assert 0.03 < slow_p < 0.97  # an informative case
        se = np.sqrt(slow_p * (1 - slow_p) / 400 + fast_p * (1 - fast_p) / 2000)
        assert abs(fast_p - slow_p) < 4 * se
