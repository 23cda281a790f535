"""Periodic (von Mises) kernel density estimation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import vonmises

from stpca_gui.core.circstats import kde
from stpca_gui.core.circstats.bandwidth import (
    bandwidth_to_concentration,
    circular_bandwidth,
    concentration_to_sigma,
    sigma_to_concentration,
)
from stpca_gui.core.circstats.kde import binned_is_accurate, circular_kde

TWO_PI = 2.0 * np.pi


def bimodal(n: int = 400, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.vonmises(-1.0, 6.0, n // 2), rng.vonmises(2.4, 12.0, n - n // 2)])


def brute_force(x, grid, bandwidth, period):
    """Mean of von Mises pdfs (scipy) centred at each sample, converted to 1/data unit."""
    kappa = bandwidth_to_concentration(bandwidth, period)
    theta = TWO_PI * np.asarray(grid) / period
    total = np.zeros_like(theta)
    for xi in x:
        total += vonmises.pdf(theta, kappa, loc=TWO_PI * xi / period)
    return total / len(x) * TWO_PI / period


@pytest.mark.parametrize("period", [TWO_PI, TWO_PI * 0.9032788, 1.0, 50.0])
@pytest.mark.parametrize("method", ["exact", "binned"])
def test_integrates_to_one_over_a_period(period, method):
    x = bimodal() * period / TWO_PI
    grid = np.linspace(-period / 2, period / 2, 2049)
    for bandwidth in (None, 0.02 * period, 0.3 * period, 5.0 * period):
        f = circular_kde(x, grid, bandwidth, period, method=method)
        assert np.all(f >= 0)
        assert np.trapezoid(f, grid) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("period", [TWO_PI, 3.7])
def test_matches_brute_force_sum(period):
    x = bimodal(60, seed=3) * period / TWO_PI
    grid = np.linspace(-period, period, 301)  # two periods: also checks wrapping
    for bandwidth in (0.05 * period, 0.2 * period):
        expected = brute_force(x, grid, bandwidth, period)
        np.testing.assert_allclose(circular_kde(x, grid, bandwidth, period), expected,
                                   rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(circular_kde(x, grid, bandwidth, period, method="binned"),
                                   expected, rtol=1e-4, atol=1e-6 * expected.max())


def test_very_narrow_kernel_keeps_precision():
    x = np.array([0.1, 0.1003, -2.0])
    grid = np.linspace(0.098, 0.102, 81)
    bandwidth = 2e-4  # κ ≈ 2.5e7: exponent evaluated through sin² of the half difference
    expected = brute_force(x, grid, bandwidth, TWO_PI)
    np.testing.assert_allclose(circular_kde(x, grid, bandwidth), expected, rtol=1e-7)


def test_blocks_do_not_change_the_result(monkeypatch):
    x = bimodal(3000, seed=5)
    grid = np.linspace(-np.pi, np.pi, 700)
    whole = circular_kde(x, grid, 0.1)
    monkeypatch.setattr(kde, "_BLOCK_ELEMENTS", 997)  # grid and samples both split
    np.testing.assert_allclose(circular_kde(x, grid, 0.1), whole, rtol=1e-12)


def test_symmetric_sample_gives_symmetric_density():
    half = bimodal(150, seed=1)
    x = np.concatenate([half, -half])
    grid = np.linspace(-np.pi, np.pi, 513)
    f = circular_kde(x, grid)
    np.testing.assert_allclose(f, f[::-1], rtol=1e-10)


@pytest.mark.parametrize("mean", [-3.0, 0.0, 1.3, 3.1])
def test_single_cluster_peaks_near_its_mean(mean):
    rng = np.random.default_rng(7)
    x = np.mod(rng.vonmises(mean, 20.0, 2000) + np.pi, TWO_PI) - np.pi
    grid = np.linspace(-np.pi, np.pi, 1441)
    peak = grid[np.argmax(circular_kde(x, grid))]
    assert abs(np.angle(np.exp(1j * (peak - mean)))) < 0.05


@pytest.mark.parametrize("period", [TWO_PI, 5.6755])
def test_density_is_periodic(period):
    x = bimodal(300, seed=2) * period / TWO_PI
    half = period / 2
    ends = circular_kde(x, np.array([-half, half]), period=period)
    assert ends[0] == pytest.approx(ends[1], rel=1e-12)
    grid = np.linspace(-half, half, 101)
    np.testing.assert_allclose(circular_kde(x, grid + 3 * period, period=period),
                               circular_kde(x, grid, period=period), rtol=1e-10)


@pytest.mark.parametrize("shift", [0.4, -2.5, 7.0])
def test_rotating_the_sample_rotates_the_density(shift):
    period = 4.2
    x = bimodal(250, seed=4) * period / TWO_PI
    grid = np.linspace(-period / 2, period / 2, 257)
    bandwidth = circular_bandwidth(x, period)
    assert circular_bandwidth(x + shift, period) == pytest.approx(bandwidth, rel=1e-9)
    np.testing.assert_allclose(circular_kde(x + shift, grid + shift, period=period),
                               circular_kde(x, grid, period=period), rtol=1e-9)


def test_grid_shape_is_kept_and_weights_act_as_multiplicities():
    x = np.array([-1.0, 0.5, 2.0])
    grid = np.linspace(-np.pi, np.pi, 12).reshape(3, 4)
    f = circular_kde(x, grid, 0.3, weights=[1, 2, 1])
    assert f.shape == (3, 4)
    np.testing.assert_allclose(f, circular_kde([-1.0, 0.5, 0.5, 2.0], grid, 0.3), rtol=1e-12)


def test_bandwidth_scales_with_the_period():
    x = bimodal(500, seed=8)
    for rule in ("silverman", "taylor"):
        h = circular_bandwidth(x, TWO_PI, rule=rule)
        assert circular_bandwidth(x * 0.5, np.pi, rule=rule) == pytest.approx(h / 2, rel=1e-9)


def test_bandwidth_rules():
    rng = np.random.default_rng(11)
    n = 1000
    unimodal = rng.vonmises(0.3, 4.0, n)
    silverman = circular_bandwidth(unimodal)
    taylor = circular_bandwidth(unimodal, rule="taylor")
    # Both near the normal-reference size σ·n^(-1/5) of a von Mises(4) sample (σ ≈ 0.54).
    for h in (silverman, taylor):
        assert 0.5 * 0.54 * n**-0.2 < h < 2.0 * 0.54 * n**-0.2
    # Taylor's rule oversmooths separated clusters; the robust Silverman rule does not.
    clustered = bimodal(n, seed=9)
    assert circular_bandwidth(clustered) < circular_bandwidth(clustered, rule="taylor")
    # More data → smaller bandwidth.
    assert circular_bandwidth(rng.vonmises(0, 4.0, 10 * n)) < silverman
    with pytest.raises(ValueError, match="rule"):
        circular_bandwidth(unimodal, rule="scott")  # type: ignore[arg-type]


def exact_loo_loglik(x, sigma):
    kappa = sigma_to_concentration(sigma)
    diff = x[:, None] - x[None, :]
    k = np.exp(kappa * (np.cos(diff) - 1.0)) / (TWO_PI * float(kde.i0e(kappa)))
    np.fill_diagonal(k, 0.0)
    return float(np.sum(np.log(k.sum(axis=1) / (x.size - 1))))


def test_likelihood_cross_validation_follows_clusters():
    rng = np.random.default_rng(12)
    # Three separated clusters of sd ≈ 0.18 (κ = 30), like PNS1 of the clusters demo.
    x = np.concatenate([rng.vonmises(m, 30.0, 150) for m in (-2.0, 0.0, 2.0)])
    lcv = circular_bandwidth(x, rule="lcv")
    assert lcv < 0.5 * circular_bandwidth(x)  # the rules of thumb oversmooth here
    assert 0.02 < lcv < 0.15  # near the within-cluster optimum 1.06·0.18·150^(-1/5)
    # The binned search finds (nearly) the exact leave-one-out optimum.
    sigmas = np.geomspace(0.01, 1.0, 121)
    exact = np.array([exact_loo_loglik(x, s) for s in sigmas])
    assert exact_loo_loglik(x, lcv) > exact.max() - 0.5
    # Rescaling the period rescales the bandwidth.
    assert circular_bandwidth(x * 0.45, 0.9 * np.pi, rule="lcv") == pytest.approx(
        0.45 * lcv, rel=1e-6)


def test_degenerate_samples_get_a_positive_bandwidth():
    assert circular_bandwidth([1.0, 1.0, 1.0]) > 0
    assert circular_bandwidth([0.2]) > 0
    h = circular_bandwidth([1.0, 1.0])  # the floor: σ = 1e-3 rad
    assert h == pytest.approx(1e-3)
    near = np.linspace(1.0 - 20 * h, 1.0 + 20 * h, 4001)  # all the mass is this close
    f = circular_kde([1.0, 1.0], near)
    assert np.trapezoid(f, near) == pytest.approx(1.0, abs=1e-6)


def test_concentration_conversion_round_trips():
    for sigma in (1e-5, 1e-3, 0.1, 0.7, 2.0, 4.0):
        kappa = sigma_to_concentration(sigma)
        assert concentration_to_sigma(kappa) == pytest.approx(sigma, rel=1e-6)
    assert sigma_to_concentration(0.05) == pytest.approx(1 / 0.05**2, rel=0.01)
    assert sigma_to_concentration(50.0) < 1e-10  # tends to the uniform density


def test_huge_bandwidth_tends_to_uniform():
    f = circular_kde(bimodal(), np.linspace(-np.pi, np.pi, 9), bandwidth=100.0)
    np.testing.assert_allclose(f, 1 / TWO_PI, rtol=1e-6)


def test_large_sample_exact_and_binned_agree():
    rng = np.random.default_rng(0)
    x = rng.vonmises(1.0, 2.0, 100_000)
    grid = np.linspace(-np.pi, np.pi, 512)
    exact = circular_kde(x, grid)
    binned = circular_kde(x, grid, method="binned")
    np.testing.assert_allclose(binned, exact, atol=1e-4 * exact.max())
    auto = circular_kde(x, grid, method="auto")
    np.testing.assert_array_equal(auto, binned)


@pytest.mark.parametrize("bad", [[], [0.0, np.nan]])
def test_bad_samples_are_rejected(bad):
    with pytest.raises(ValueError):
        circular_kde(bad, [0.0])


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="period"):
        circular_kde([0.0, 1.0], [0.0], period=0.0)
    with pytest.raises(ValueError, match="sigma"):
        circular_kde([0.0, 1.0], [0.0], bandwidth=-1.0)
    with pytest.raises(ValueError, match="weights"):
        circular_kde([0.0, 1.0], [0.0], weights=[1.0, -1.0])
    with pytest.raises(ValueError, match="method"):
        circular_kde([0.0, 1.0], [0.0], method="fft")  # type: ignore[arg-type]


@pytest.mark.parametrize("period", [2 * np.pi, 5.0])
def test_binned_is_accurate_where_it_says_so(period):
    rng = np.random.default_rng(5)
    x = np.mod(rng.normal(1.0, 0.1 * period, 3000), period)
    grid = np.linspace(0.0, period, 257)
    step = period / 4096
    for bandwidth in (40 * step, 12 * step, 8.5 * step):
        assert binned_is_accurate(bandwidth, period)
        exact = circular_kde(x, grid, bandwidth, period, method="exact")
        binned = circular_kde(x, grid, bandwidth, period, method="binned")
        np.testing.assert_allclose(binned, exact, atol=3e-4 * exact.max())
    assert not binned_is_accurate(2 * step, period)
