"""Tests of the periodic mode clustering and the derivative plug-in bandwidth."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from stpca_gui.core.circstats.bandwidth import hpi_derivative, kernel_functional
from stpca_gui.core.circstats.modes import ModeClustering, periodic_mode_clusters

TWO_PI = 2.0 * np.pi


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


def circular_gap(a: np.ndarray, b: np.ndarray, period: float = TWO_PI) -> np.ndarray:
    d = np.abs(np.mod(np.asarray(a) - np.asarray(b) + period / 2, period) - period / 2)
    return d


def von_mises_clusters(
    centres: list[float], kappa: float, size: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    angles = np.concatenate([rng.vonmises(c, kappa, size) for c in centres])
    labels = np.repeat(np.arange(len(centres)), size)
    return angles, labels


@pytest.fixture(scope="module")
def oracle(test_data: Path) -> tuple[dict, np.ndarray]:
    clusters = test_data / "oracle" / "pns" / "b_small_clusters.json"
    scores = test_data / "oracle" / "pns" / "b_small_scores.csv"
    reference = json.loads(clusters.read_text())
    pns1 = np.loadtxt(scores, delimiter=",")[:, 0]
    return reference, pns1


# --- R reference (ks::hpi(deriv.order = 1) + ks::kde of the tripled sample) -------------------


def test_fixture_bandwidth_matches_ks_hpi(oracle: tuple[dict, np.ndarray]) -> None:
    reference, pns1 = oracle
    theta = pns1 / reference["scale"]
    assert hpi_derivative(theta, deriv_order=1) == pytest.approx(
        reference["h_hpi_deriv1"], rel=1e-10)
    assert hpi_derivative(pns1, deriv_order=1) == pytest.approx(
        reference["h_in_score_units"], rel=1e-10)
    # The exact (unbinned) functionals differ from ks's binned ones by ~0.1 %.
    assert hpi_derivative(theta, binned=False) == pytest.approx(
        reference["h_hpi_deriv1"], rel=5e-3)


def test_fixture_three_clusters(oracle: tuple[dict, np.ndarray]) -> None:
    reference, pns1 = oracle
    theta = pns1 / reference["scale"]
    result = periodic_mode_clusters(theta, labels=reference["labels"], method="paper")
    assert isinstance(result, ModeClustering)
    assert result.bandwidth == pytest.approx(reference["h_hpi_deriv1"], rel=1e-10)
    assert result.n_clusters == reference["nclust"] == 3
    assert sorted(result.sizes.tolist()) == sorted(reference["cluster_sizes"])
    assert np.all(circular_gap(result.modes, reference["modes"]) < 0.01)
    assert np.all(circular_gap(result.antimodes, reference["antimodes"]) < 0.01)
    assert result.classification_rate == 1.0
    assert result.confusion is not None
    assert np.count_nonzero(result.confusion.counts) == 3


def test_fixture_in_score_units(oracle: tuple[dict, np.ndarray]) -> None:
    reference, pns1 = oracle
    scale = reference["scale"]
    result = periodic_mode_clusters(pns1, period=TWO_PI * scale, method="paper")
    assert result.bandwidth == pytest.approx(reference["h_in_score_units"], rel=1e-10)
    assert np.all(circular_gap(result.modes / scale, reference["modes"]) < 0.01)
    assert result.sizes.tolist() == [100, 100, 100]


def test_tripled_sample_bandwidth_oversmooths(oracle: tuple[dict, np.ndarray]) -> None:
    reference, pns1 = oracle
    result = periodic_mode_clusters(pns1 / reference["scale"], bandwidth="hpi_tripled",
                                    method="paper")
    assert result.bandwidth > 1.0
    assert result.n_clusters == 1


# --- Bandwidth selector -----------------------------------------------------------------------


def test_hpi_close_to_normal_reference_for_normal_data() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(1.0, 2.0, 20_000)
    expected = normal_reference_derivative_bandwidth(2.0, x.size, deriv_order=1)
    assert expected == pytest.approx(2.0 * 0.8 ** (1 / 7) * x.size ** (-1 / 7))
    assert hpi_derivative(x) == pytest.approx(expected, rel=0.05)
    assert hpi_derivative(x, nstage=1) == pytest.approx(expected, rel=0.05)


def test_hpi_binned_agrees_with_exact_and_is_equivariant() -> None:
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.normal(0, 1, 600), rng.normal(4, 0.5, 400)])
    exact = hpi_derivative(x, binned=False)
    assert hpi_derivative(x) == pytest.approx(exact, rel=0.01)
    assert hpi_derivative(3.0 * x + 7.0) == pytest.approx(3.0 * hpi_derivative(x), rel=1e-9)
    assert hpi_derivative(x, deriv_order=2) > hpi_derivative(x, deriv_order=1)


def test_kernel_functional_of_normal_sample() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(0.0, 1.0, 200_000)
    g = 0.3
    value = kernel_functional(x, g, 4)
    # Off-diagonal terms estimate ψ_4 of N(0, 1) smoothed by the kernel, 3/(√(2π)(2+g²)^{5/2})
    # (= 3/(8√π) at g = 0); the included diagonal adds φ_g^{(4)}(0)/n = 3/(√(2π) n g⁵).
    diagonal = 3 / (np.sqrt(2 * np.pi) * x.size * g**5)
    expected = 3 / (np.sqrt(2 * np.pi) * (2 + g**2) ** 2.5)
    assert value - diagonal == pytest.approx(expected, rel=0.05)
    small = x[:3000]
    assert kernel_functional(small, g, 4) == pytest.approx(
        kernel_functional(small, g, 4, binned=False), rel=1e-2)


def test_hpi_rejects_degenerate_samples() -> None:
    with pytest.raises(ValueError):
        hpi_derivative([1.0])
    with pytest.raises(ValueError):
        hpi_derivative([2.0, 2.0, 2.0])
    with pytest.raises(ValueError):
        hpi_derivative([0.0, 1.0], nstage=3)


# --- Clustering -------------------------------------------------------------------------------


def test_three_well_separated_von_mises_clusters() -> None:
    angles, truth = von_mises_clusters([-2.0, 0.1, 2.2], kappa=30.0, size=120, seed=11)
    result = periodic_mode_clusters(angles, labels=truth, method="paper")
    assert result.n_clusters == 3
    assert result.classification_rate == 1.0
    counts = result.confusion.counts
    assert np.array_equal(counts, np.diag([120, 120, 120]))  # circular order = centre order
    assert result.confusion.column_labels.tolist() == [0, 1, 2]
    assert np.all(circular_gap(result.modes, [-2.0, 0.1, 2.2]) < 0.1)
    # Modes sorted, each antimode precedes its mode and follows the previous one.
    assert np.all(np.diff(result.modes) > 0)
    for k in range(3):
        start = result.antimodes[k]
        arc = np.mod(result.antimodes[(k + 1) % 3] - start, TWO_PI)
        assert 0 < np.mod(result.modes[k] - start, TWO_PI) < arc
        inside = np.mod(angles[result.labels == k] - start, TWO_PI)
        assert np.all(inside < arc)
    # Density integrates to one over the period.
    step = result.grid[1] - result.grid[0]
    assert np.sum(result.density) * step == pytest.approx(1.0, abs=1e-6)


def test_cluster_split_by_the_cut_is_one_cluster() -> None:
    angles, truth = von_mises_clusters([np.pi, 0.3], kappa=20.0, size=150, seed=12)
    result = periodic_mode_clusters(angles, labels=truth, method="paper")
    assert result.n_clusters == 2
    assert result.classification_rate == 1.0
    split = result.labels[truth == 0]
    assert np.unique(split).size == 1
    assert np.any(angles[truth == 0] > np.pi) or np.any(
        np.mod(angles[truth == 0] + np.pi, TWO_PI) - np.pi < 0)
    assert np.min(circular_gap(result.modes, np.pi)) < 0.1


def test_rotation_moves_modes_and_keeps_partition() -> None:
    angles, truth = von_mises_clusters([-1.5, 1.0, 2.6], kappa=25.0, size=80, seed=13)
    base = periodic_mode_clusters(angles, labels=truth, method="paper")
    shifted = periodic_mode_clusters(angles + 2.0, labels=truth, method="paper")
    assert shifted.bandwidth == pytest.approx(base.bandwidth, rel=1e-6)
    assert shifted.n_clusters == base.n_clusters == 3
    assert shifted.classification_rate == base.classification_rate == 1.0
    gaps = circular_gap(np.sort(np.mod(shifted.modes, TWO_PI)),
                        np.sort(np.mod(base.modes + 2.0, TWO_PI)))
    assert np.all(gaps < 1e-6)


def test_half_circle_sample_has_no_modes_in_the_empty_half() -> None:
    rng = np.random.default_rng(14)
    angles = rng.uniform(0.0, np.pi, 400)
    result = periodic_mode_clusters(angles, method="paper")
    assert result.n_clusters >= 1
    assert np.all((result.modes > -0.1) & (result.modes < np.pi + 0.1))
    empty = (result.antimodes < -0.1) | (result.antimodes > np.pi + 0.1)
    assert np.count_nonzero(empty) <= 1
    assert np.sum(result.sizes) == angles.size


def test_sparse_points_in_an_empty_region_do_not_make_modes() -> None:
    rng = np.random.default_rng(15)
    angles = np.concatenate([rng.vonmises(0.0, 10.0, 5000), [2.5, 3.0]])
    result = periodic_mode_clusters(angles, method="paper")
    assert result.n_clusters == 1
    assert result.sizes.tolist() == [angles.size]
    # The two isolated points are genuine (negligible) bumps of the estimate.
    unguarded = periodic_mode_clusters(angles, min_density=0.0, method="paper")
    assert unguarded.n_clusters == 3


def test_unimodal_sample_is_one_cluster() -> None:
    rng = np.random.default_rng(16)
    angles = rng.vonmises(1.0, 4.0, 500)
    result = periodic_mode_clusters(angles, method="paper")
    assert result.n_clusters == 1
    assert np.all(result.labels == 0)
    assert result.antimodes.shape == (1,)
    assert circular_gap(result.modes, 1.0)[0] < 0.2
    assert circular_gap(result.antimodes, 1.0 - np.pi)[0] < 0.6


def test_unmatched_clusters_count_as_errors() -> None:
    angles, _ = von_mises_clusters([-2.0, 0.1, 2.2], kappa=30.0, size=100, seed=17)
    merged = np.repeat([0, 0, 1], 100)  # two true classes, three clusters
    result = periodic_mode_clusters(angles, labels=merged, method="paper")
    assert result.n_clusters == 3
    assert result.confusion.counts.shape == (3, 2)
    assert result.classification_rate == pytest.approx(2 / 3)
    named = np.repeat(np.array(["a", "b", "c"]), 100)
    result = periodic_mode_clusters(angles, labels=named, method="paper")
    assert result.confusion.column_labels.tolist() == ["a", "b", "c"]
    assert result.classification_rate == 1.0


def test_fixed_bandwidth_and_period_units() -> None:
    angles, truth = von_mises_clusters([-2.0, 1.0], kappa=30.0, size=100, seed=18)
    period = 10.0
    values = angles * period / TWO_PI
    result = periodic_mode_clusters(values, period=period, bandwidth=0.3, labels=truth,
                                    method="paper")
    assert result.bandwidth == 0.3
    assert result.n_clusters == 2
    assert result.classification_rate == 1.0
    assert np.all((result.grid >= -5.0) & (result.grid < 5.0))


def test_invalid_arguments() -> None:
    with pytest.raises(ValueError):
        periodic_mode_clusters([], method="paper")
    with pytest.raises(ValueError):
        periodic_mode_clusters([0.0, np.nan], method="paper")
    with pytest.raises(ValueError):
        periodic_mode_clusters([0.0, 1.0], period=-1.0, method="paper")
    with pytest.raises(ValueError):
        periodic_mode_clusters([0.0, 1.0, 2.0], bandwidth=-0.1, method="paper")
    with pytest.raises(ValueError):
        periodic_mode_clusters([0.0, 1.0, 2.0], bandwidth="silverman",  # type: ignore[arg-type]
                               method="paper")
    with pytest.raises(ValueError):
        periodic_mode_clusters([0.0, 1.0, 2.0], labels=[0, 1], method="paper")


def test_windowed_kernel_sums_equal_the_full_sums():
    """Only the samples within ~11 bandwidths are summed: the same values to rounding,
    also at points in an empty arc far from every sample."""
    from stpca_gui.core.circstats.paper_modes import _log_kde_terms

    rng = np.random.default_rng(5)
    sample = np.sort(np.concatenate([rng.normal(-1.0, 0.05, 3000), rng.normal(1.5, 0.3, 2000)]))
    points = np.linspace(-np.pi, np.pi, 997)
    h = 0.02
    z = (points[:, None] - sample[None, :]) / h
    exponent = -0.5 * z * z
    top = exponent.max(axis=1)
    weights = np.exp(exponent - top[:, None])
    expected_log_sum = top + np.log(weights.sum(axis=1))
    expected_derivative = -(weights * z).sum(axis=1) / (weights.sum(axis=1) * h)
    log_sum, log_derivative = _log_kde_terms(points, sample, h)
    np.testing.assert_allclose(log_sum, expected_log_sum, rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(log_derivative, expected_derivative, rtol=1e-11,
                               atol=1e-9 * np.abs(expected_derivative).max())
