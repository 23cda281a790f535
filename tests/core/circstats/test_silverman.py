"""The test for the number of modes, the tested clusters, their stability, and the paper's rule
kept exactly (issue 22)."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from stpca_gui.core import FitCancelled
from stpca_gui.core.circstats.cluster_stability import cluster_stability
from stpca_gui.core.circstats.modes import (
    clusters_for_test,
    periodic_mode_clusters,
    plug_in_bandwidth,
    pns1_mode_clusters,
)
from stpca_gui.core.circstats.prominence import merge_shallowest_antimodes
from stpca_gui.core.circstats.silverman import (
    ModeTest,
    critical_bandwidth,
    hall_york_factor,
    mode_count,
    silverman_mode_test,
)
from stpca_gui.core.circstats.torus_uniformity import torus_frequencies, torus_uniformity_test
from stpca_gui.core.clusters import model_mode_clusters
from stpca_gui.core.demos import make_demo
from stpca_gui.core.geometry.torus import wrap_angles

TWO_PI = 2.0 * np.pi


# ------------------------------------------------------------------ an independent slow version
def _slow_density(sample: np.ndarray, h: float, grid: np.ndarray) -> np.ndarray:
    """Wrapped-normal KDE by the direct O(n·m) sum over the images θ_i + 2πm, |m| ≤ 2
    (enough for h ≤ 2)."""
    diff = grid[:, None] - sample[None, :]
    total = np.zeros_like(diff)
    for m in range(-2, 3):
        total += np.exp(-0.5 * ((diff - TWO_PI * m) / h) ** 2)
    return total.sum(axis=1) / (sample.size * h * np.sqrt(TWO_PI))


def _slow_modes(sample: np.ndarray, h: float, points: int = 1024) -> int:
    """Local maxima of the directly summed KDE on a grid, counted around the circle."""
    grid = TWO_PI * np.arange(points) / points
    f = _slow_density(sample, h, grid)
    return int(np.count_nonzero((f > np.roll(f, 1)) & (f >= np.roll(f, -1))))


def _slow_critical(sample: np.ndarray, k: int) -> float:
    """Smallest h with at most k modes, by a brute-force scan down from h = 2 (ratio 1.005)."""
    h = 2.0
    assert _slow_modes(sample, h) <= k
    while h > 0.01 and _slow_modes(sample, h / 1.005) <= k:
        h /= 1.005
    return h


def _three_clusters(rng: np.random.Generator, n: int = 150) -> np.ndarray:
    return np.mod(np.concatenate([rng.vonmises(c, 12.0, n // 3) for c in (-2.0, 0.2, 2.3)]),
                  TWO_PI)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_critical_bandwidth_matches_a_brute_force_scan_of_the_direct_kde(k):
    sample = _three_clusters(np.random.default_rng(3))
    fast = critical_bandwidth(sample, k)
    slow = _slow_critical(sample, k)
    assert fast == pytest.approx(slow, rel=0.015)
    # Just below h_k the binned KDE has more than k modes, at h_k at most k.
    assert mode_count(sample, 0.98 * fast) > k
    assert mode_count(sample, fast) <= k


def test_mode_count_never_increases_with_the_bandwidth():
    sample = np.random.default_rng(0).uniform(0, TWO_PI, 400)
    counts = [mode_count(sample, h) for h in np.geomspace(0.01, 2.0, 80)]
    assert all(a >= b for a, b in itertools.pairwise(counts))
    assert counts[0] > 10 and counts[-1] == 1


def test_p_value_matches_a_slow_smoothed_bootstrap():
    """p₁ of Silverman's test (λ = 1) against a direct implementation: resample, add
    wrapped-normal noise of sd h₁, count the direct KDE's modes at h₁."""
    rng = np.random.default_rng(11)
    sample = np.mod(np.concatenate([rng.vonmises(-0.8, 6.0, 60), rng.vonmises(0.9, 6.0, 60)]),
                    TWO_PI)
    h1 = _slow_critical(sample, 1)
    draws = 300
    exceed = 0
    for _ in range(draws):
        boot = sample[rng.integers(0, sample.size, sample.size)] + h1 * rng.standard_normal(
            sample.size)
        exceed += _slow_modes(np.mod(boot, TWO_PI), h1, points=1024) > 1
    slow_p = exceed / draws
    fast = silverman_mode_test(sample, k_max=1, n_boot=2000)
    fast_p1 = fast.raw_p_values[0]
    se = np.sqrt(slow_p * (1 - slow_p) / draws + fast_p1 * (1 - fast_p1) / 2000) + 1e-3
    assert abs(fast_p1 - slow_p) < 4 * se
    assert fast.critical_bandwidths[0] == pytest.approx(h1, rel=0.015)


def test_hall_york_factor_is_their_published_value():
    assert hall_york_factor(0.05) == pytest.approx(1.1294, abs=1e-4)
    assert hall_york_factor(0.10) < hall_york_factor(0.05)


def test_three_clusters_are_found_and_unimodal_samples_are_not():
    rng = np.random.default_rng(1)
    three = silverman_mode_test(_three_clusters(rng, 600), n_boot=200)
    assert three.n_modes == 3
    assert three.p_values[0] < 0.05 and three.p_values[1] < 0.05 and three.p_values[2] >= 0.05
    assert len(three.raw_p_values) == 4 and len(three.critical_bandwidths) == 4
    one = silverman_mode_test(rng.vonmises(0.0, 2.0, 2000), n_boot=200)
    assert one.n_modes == 1 and not one.structure
    assert "no cluster structure" in one.verdict()


def test_k_max_bounds_the_test_and_says_so():
    rng = np.random.default_rng(2)
    sample = _three_clusters(rng, 900)
    capped = silverman_mode_test(sample, k_max=2, n_boot=200)
    assert capped.n_modes == 2 and capped.reached_max
    assert capped.verdict().startswith("at least 2 modes")


def test_the_test_is_reproducible_and_cancellable():
    sample = _three_clusters(np.random.default_rng(4), 300)
    assert silverman_mode_test(sample, n_boot=100) == silverman_mode_test(sample, n_boot=100)

    def stop() -> None:
        raise FitCancelled("stop")

    with pytest.raises(FitCancelled):
        silverman_mode_test(sample, check=stop)


@pytest.mark.parametrize("bad", [{"alpha": 0.0}, {"alpha": 1.0}, {"k_max": 0}, {"n_boot": 0},
                                 {"calibration": "other"}])
def test_bad_parameters_are_refused(bad):
    with pytest.raises(ValueError):
        silverman_mode_test(np.linspace(0, 6, 50), **bad)


def test_tested_rule_refuses_the_paper_rules_bandwidth():
    with pytest.raises(ValueError, match="method='paper'"):
        periodic_mode_clusters(np.linspace(0, 6, 50), bandwidth=0.3)
    with pytest.raises(ValueError, match="unknown method"):
        periodic_mode_clusters(np.linspace(0, 6, 50), method="other")  # type: ignore[arg-type]


# -------------------------------------------------------------------------- tested clusters
def test_tested_clusters_are_the_domains_of_attraction_of_the_tested_modes():
    rng = np.random.default_rng(5)
    centres = (-2.0, 0.2, 2.3)
    truth = np.repeat(np.arange(3), 200)
    sample = np.concatenate([rng.vonmises(c, 12.0, 200) for c in centres])
    clusters = periodic_mode_clusters(sample, labels=truth)
    assert clusters.method == "tested" and clusters.mode_test is not None
    assert clusters.n_clusters == 3
    np.testing.assert_allclose(clusters.modes, centres, atol=0.1)
    assert clusters.classification_rate > 0.99
    # Every antimode lies between two modes, and each cluster holds its mode.
    for k in range(3):
        start, mode = clusters.antimodes[k], clusters.modes[k]
        assert 0 < np.mod(mode - start, TWO_PI) < np.mod(clusters.antimodes[(k + 1) % 3] - start,
                                                         TWO_PI) or k == 2
    assert clusters.density.sum() * TWO_PI / clusters.grid.size == pytest.approx(1.0, rel=1e-6)
    assert "3 clusters" in clusters.describe()


def test_one_mode_gives_one_cluster_said_in_words():
    clusters = periodic_mode_clusters(np.random.default_rng(6).vonmises(1.0, 3.0, 3000))
    assert clusters.n_clusters == 1 and not clusters.has_structure
    assert np.all(clusters.labels == 0)
    assert clusters.describe().startswith("1 cluster — no cluster structure")


def test_tested_clusters_of_periodic_scores_use_the_period():
    rng = np.random.default_rng(7)
    period = 5.0
    sample = np.concatenate([rng.normal(-1.2, 0.2, 300), rng.normal(1.0, 0.2, 300)])
    clusters = periodic_mode_clusters(sample, period=period)
    assert clusters.n_clusters == 2
    np.testing.assert_allclose(clusters.modes, [-1.2, 1.0], atol=0.08)
    assert clusters.grid[0] == pytest.approx(-period / 2)


# ------------------------------------------------------------------------ paper rule, exactly
CASES = [f"clusters-t{d}_{s}" for d in (2, 3) for s in (0, 1, 2)] + ["sunspots"]


@pytest.mark.parametrize("case", CASES)
def test_paper_rule_gives_exactly_the_clusters_of_before(test_data, case):
    """tests/data/paper_mode_clusters.npz: PNS1 of the demos and sunspots (default fits) and
    the clusters the rule gave before the tested rule existed."""
    stored = np.load(test_data / "paper_mode_clusters.npz")
    clusters = periodic_mode_clusters(stored[f"{case}/pns1"], float(stored[f"{case}/period"]),
                                      method="paper")
    np.testing.assert_array_equal(clusters.labels, stored[f"{case}/labels"])
    np.testing.assert_array_equal(clusters.modes, stored[f"{case}/modes"])
    np.testing.assert_array_equal(clusters.antimodes, stored[f"{case}/antimodes"])
    assert clusters.method == "paper" and clusters.mode_test is None


@pytest.mark.parametrize("case", ["clusters-t2_0", "clusters-t3_0", "clusters-t3_1"])
def test_tested_rule_finds_the_three_clusters_of_the_demos(test_data, case):
    """(Sunspots are left out: their one-mode p-value lies near 0.05, docs/mode_test.md.)"""
    stored = np.load(test_data / "paper_mode_clusters.npz")
    clusters = periodic_mode_clusters(stored[f"{case}/pns1"], float(stored[f"{case}/period"]),
                                      n_boot=200)
    assert clusters.n_clusters == 3


# ----------------------------------------------- boundaries: the plug-in KDE merged down to k̂
def _bumps(theta: np.ndarray) -> np.ndarray:
    """Three von Mises bumps: 3 at 0, 1 at 2.0 and 2 at 3.0 (the last two overlapping, so
    the valley between them is shallow; the third bump's arc crosses ±π)."""
    return sum(a * np.exp(8.0 * (np.cos(theta - mu) - 1.0))
               for a, mu in ((3.0, 0.0), (1.0, 2.0), (2.0, 3.0)))


def _extrema(f, points: int = 1 << 16) -> tuple[np.ndarray, np.ndarray]:
    """Maxima and minima of a periodic function, by the sign of its differences on a grid."""
    theta = -np.pi + TWO_PI * np.arange(points) / points
    values = f(theta)
    rising = np.roll(values, -1) > values
    top = rising[:-1] & ~rising[1:]
    bottom = ~rising[:-1] & rising[1:]
    return theta[1:][top], theta[1:][bottom]


def test_merging_removes_the_shallowest_antimode_around_the_circle():
    maxima, minima = _extrema(_bumps)
    assert maxima.size == minima.size == 3
    np.testing.assert_allclose(np.sort(maxima), [0.0, 2.0, 3.0], atol=0.1)
    shallow = int(np.argmin(np.abs(minima - 2.5)))  # the valley between 2.0 and 3.0
    for k, expected_modes in ((3, [0.0, 2.0, 3.0]), (2, [0.0, 3.0]), (1, [0.0])):
        rng = np.random.default_rng(k)  # the input order does not matter
        perm_max, perm_min = rng.permutation(3), rng.permutation(3)
        kept, starts = merge_shallowest_antimodes(
            maxima[perm_max], _bumps(maxima[perm_max]), minima[perm_min],
            _bumps(minima[perm_min]), k, TWO_PI)
        np.testing.assert_allclose(maxima[perm_max][kept], expected_modes, atol=0.1)
        kept_minima = minima[perm_min][starts]
        if k == 2:
            # The valley at 2.5 is gone; the mode at 3 starts after the one between 0 and 2
            # and its arc runs across ±π to the deep valley near −1.6.
            assert shallow not in perm_min[starts]
            assert 0.5 < kept_minima[1] < 2.0 and -2.5 < kept_minima[0] < -0.5
    with pytest.raises(ValueError, match="n_modes"):
        merge_shallowest_antimodes(maxima, _bumps(maxima), minima, _bumps(minima), 4, TWO_PI)


def _separated_clusters() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(21)
    sample = np.concatenate([rng.vonmises(c, k, 300) for c, k in ((-2.0, 10.0), (0.3, 10.0),
                                                                  (2.0, 25.0))])
    return sample, np.repeat(np.arange(3), 300)


def test_tested_clusters_are_the_paper_rules_when_both_have_k_hat_modes(test_data):
    stored = np.load(test_data / "paper_mode_clusters.npz")
    for case in ("clusters-t2_0", "clusters-t3_1"):
        pns1, period = stored[f"{case}/pns1"], float(stored[f"{case}/period"])
        tested = periodic_mode_clusters(pns1, period, n_boot=200)
        assert tested.n_clusters == 3 and tested.method == "tested"
        np.testing.assert_array_equal(tested.labels, stored[f"{case}/labels"])
        np.testing.assert_array_equal(tested.antimodes, stored[f"{case}/antimodes"])
        np.testing.assert_array_equal(tested.modes, stored[f"{case}/modes"])
        assert tested.bandwidth == periodic_mode_clusters(pns1, period, method="paper").bandwidth


def test_fewer_tested_modes_merge_the_plug_in_clusters_and_more_fall_back():
    sample, _ = _separated_clusters()
    paper = periodic_mode_clusters(sample, method="paper")
    assert paper.n_clusters == 3
    test = silverman_mode_test(sample, n_boot=50)
    assert test.n_modes == 3
    two = clusters_for_test(sample, TWO_PI, dataclasses.replace(test, n_modes=2))
    # Two of the paper's antimodes are kept: the shallowest one (depth: the lower of its two
    # neighbouring modes' heights above it) is gone, and its two clusters are one.
    assert two.n_clusters == 2 and set(two.antimodes) < set(paper.antimodes)

    def height(points: np.ndarray) -> np.ndarray:
        return np.interp(points, paper.grid, paper.density, period=TWO_PI)

    depth = [min(height(paper.modes[j - 1:j] if j else paper.modes[-1:])[0],
                 height(paper.modes[j:j + 1])[0]) - height(paper.antimodes[j:j + 1])[0]
             for j in range(3)]
    gone = int(np.argmin(depth))
    assert paper.antimodes[gone] not in two.antimodes
    joined = [(gone - 1) % 3, gone]  # the paper's clusters on either side of it
    assert np.unique(two.labels[np.isin(paper.labels, joined)]).size == 1
    other = np.setdiff1d(np.arange(3), joined)
    np.testing.assert_array_equal(np.isin(paper.labels, other),
                                  two.labels != two.labels[np.isin(paper.labels, joined)][0])
    # More modes than the plug-in KDE has: the critical-bandwidth domains for k̂ = 4.
    h4 = critical_bandwidth(sample, 4)
    four = clusters_for_test(sample, TWO_PI, dataclasses.replace(
        test, n_modes=4, critical_bandwidths=(*test.critical_bandwidths[:3], h4)))
    assert four.n_clusters == 4 and four.bandwidth == pytest.approx(h4)


def test_given_paper_clusters_give_the_same_tested_clusters_and_stability():
    sample, labels = _separated_clusters()
    paper = periodic_mode_clusters(sample, method="paper", labels=labels)
    test = silverman_mode_test(sample, n_boot=50)
    for k in (2, 3):  # merged and as they are
        k_test = dataclasses.replace(test, n_modes=k)
        given = clusters_for_test(sample, TWO_PI, k_test, labels, paper=paper)
        computed = clusters_for_test(sample, TWO_PI, k_test, labels)
        assert given.n_clusters == k and given.bandwidth == computed.bandwidth
        assert given.classification_rate == computed.classification_rate
        for field in ("labels", "modes", "antimodes", "density"):
            np.testing.assert_array_equal(getattr(given, field), getattr(computed, field))
    given = pns1_mode_clusters(sample, TWO_PI, stability=True, labels=labels, paper=paper)
    computed = pns1_mode_clusters(sample, TWO_PI, stability=True, labels=labels)
    np.testing.assert_array_equal(given.labels, computed.labels)
    np.testing.assert_array_equal(given.stability, computed.stability)
    with pytest.raises(ValueError, match="paper rule's clusters of the same sample"):
        clusters_for_test(sample, TWO_PI, test, paper=computed)  # the tested rule's
    with pytest.raises(ValueError, match="paper rule's clusters of the same sample"):
        clusters_for_test(sample[:-1], TWO_PI, test, paper=paper)


def test_stability_resamples_use_the_same_boundaries_as_the_clusters():
    """cluster_stability's rule, applied to the sample itself, puts the boundaries where
    clusters_for_test does (within the binned KDE's accuracy), merged or not."""
    from stpca_gui.core.circstats.cluster_stability import _boundaries
    from stpca_gui.core.circstats.silverman import GRID_POINTS, BinnedSample, unit_angles

    sample, _ = _separated_clusters()
    test = silverman_mode_test(sample, n_boot=50)
    binned = BinnedSample(unit_angles(sample, TWO_PI))
    for k in (3, 2):
        clusters = clusters_for_test(sample, TWO_PI, dataclasses.replace(test, n_modes=k))
        nodes = _boundaries(binned, k, plug_in_bandwidth(sample))
        found = np.sort(-np.pi + nodes * TWO_PI / GRID_POINTS)
        gaps = np.abs(wrap_angles(found - np.sort(clusters.antimodes)))
        assert found.size == k and np.all(gaps < 0.02)


def test_small_rna_tested_rate_is_no_worse_than_the_paper_rules():
    """Issue 22's target: 3 clusters, rate ≥ the paper rule's (the critical-bandwidth
    boundaries gave 0.868 against 0.884)."""
    from stpca_gui.datasets import load_small_rna
    from stpca_gui.model import FitParameters

    rna = load_small_rna()
    model = FitParameters().to_estimator().fit(rna.fitted_angles)
    tested = model_mode_clusters(model, labels=rna.cluster, stability=False)
    paper = model_mode_clusters(model, labels=rna.cluster, method="paper")
    assert tested.n_clusters == paper.n_clusters == 3
    assert tested.classification_rate >= paper.classification_rate > 0.85


# --------------------------------------------------------------------- torus uniformity gate
def test_torus_frequencies_are_the_low_frequencies_once_each():
    freqs = torus_frequencies(4)
    assert freqs.shape == (20, 4)
    assert np.all(np.abs(freqs).sum(axis=1) <= 2)
    assert len({tuple(f) for f in freqs} | {tuple(-f) for f in freqs}) == 40


def test_torus_uniformity_statistic_is_its_definition_over_the_frequencies(monkeypatch):
    """T = 2n Σ_k |ĉ_k|² over torus_frequencies, computed from the definition, equals the
    test's sums of real products, also when the rows come in several chunks."""
    from stpca_gui.core.circstats import torus_uniformity

    rng = np.random.default_rng(12)
    angles = np.concatenate([rng.vonmises(1.0, 2.0, (150, 5)),
                             rng.uniform(-np.pi, np.pi, (151, 5))])
    coefficients = np.exp(1j * angles @ torus_frequencies(5).T.astype(float)).mean(axis=0)
    expected = 2.0 * angles.shape[0] * np.sum(np.abs(coefficients) ** 2)
    assert torus_uniformity_test(angles).statistic == pytest.approx(expected, rel=1e-12)
    monkeypatch.setattr(torus_uniformity, "_CHUNK_ROWS", 64)
    assert torus_uniformity_test(angles).statistic == pytest.approx(expected, rel=1e-12)
    assert torus_uniformity_test(angles).degrees_of_freedom == 2 * 5 * 6


def test_torus_uniformity_test_holds_its_level_and_sees_clusters():
    rng = np.random.default_rng(8)
    p_values = [torus_uniformity_test(rng.uniform(-np.pi, np.pi, (400, 3))).p_value
                for _ in range(200)]
    assert 0.01 <= np.mean(np.array(p_values) < 0.05) <= 0.10
    assert np.mean(p_values) == pytest.approx(0.5, abs=0.07)
    demo = make_demo("clusters-t3", random_state=0)
    assert torus_uniformity_test(demo.angles).p_value < 1e-10


def test_noise_on_the_torus_is_one_cluster_and_the_demo_three():
    from stpca_gui.model import FitParameters

    rng = np.random.default_rng(9)
    noise = rng.uniform(-np.pi, np.pi, (3000, 4))
    model = FitParameters().to_estimator().fit(noise)
    clusters = model_mode_clusters(model)
    assert clusters.n_clusters == 1 and clusters.mode_test.uniform
    assert "consistent with uniform on the torus" in clusters.describe()
    demo = make_demo("clusters-t3", random_state=0)
    model = FitParameters().to_estimator().fit(demo.angles)
    clusters = model_mode_clusters(model, labels=demo.labels)
    assert clusters.n_clusters == 3 and clusters.classification_rate == 1.0
    assert clusters.mode_test.uniformity_p_value < 1e-10
    assert clusters.stability is not None and np.all(clusters.stability > 0.9)


def test_paper_method_of_pns1_clusters_is_the_paper_rule():
    rng = np.random.default_rng(10)
    sample = _three_clusters(rng, 300)
    paper = pns1_mode_clusters(sample, TWO_PI, method="paper")
    same = periodic_mode_clusters(sample, method="paper")
    np.testing.assert_array_equal(paper.labels, same.labels)
    assert paper.stability is None and paper.mode_test is None


# ------------------------------------------------------------------------------ stability
def test_stability_is_high_for_separated_clusters_and_lower_for_overlapping_ones():
    rng = np.random.default_rng(12)
    separated = _three_clusters(rng, 600)
    clusters = periodic_mode_clusters(separated)
    stable = cluster_stability(separated, TWO_PI, clusters.antimodes, clusters.n_clusters,
                               n_boot=40)
    assert stable.shape == (3,) and np.all(stable > 0.95)
    # The product's rule (plug-in boundaries on every resample) is as stable here.
    plug_in = cluster_stability(separated, TWO_PI, clusters.antimodes, clusters.n_clusters,
                                n_boot=40, bandwidth=plug_in_bandwidth(separated))
    assert np.all(plug_in > 0.95)
    # A small cluster overlapping a big one: its boundary moves from resample to resample.
    close = np.concatenate([rng.vonmises(0.0, 8.0, 900), rng.vonmises(1.5, 8.0, 250)])
    found = periodic_mode_clusters(close)
    assert found.n_clusters == 2
    shaky = cluster_stability(close, TWO_PI, found.antimodes, 2, n_boot=40)
    assert shaky.min() < stable.min()
    small = int(np.argmin(found.sizes))
    assert shaky[small] < shaky[1 - small]
    ones = cluster_stability(close, TWO_PI, found.antimodes[:1], 1, n_boot=5)
    np.testing.assert_array_equal(ones, [1.0])


def test_mode_test_records_are_frozen_and_compare_equal():
    test = ModeTest(n_modes=2, p_values=(0.001, 0.3), critical_bandwidths=(0.5, 0.2, 0.1),
                    alpha=0.05, calibration="hall_york", n_boot=500, k_max=8,
                    period=TWO_PI, n=100)
    assert test.structure and not test.reached_max and not test.uniform
    assert "k=1: p≤0.001" in test.steps_text() or "k=1: p=0.001" in test.steps_text()


def test_a_step_decided_by_a_p_value_at_the_resamples_floor_is_shown_as_a_bound():
    """With B = 500 the smallest p-value of one part is 1/501; a step it decides is
    p = (1/501) / weight — a bound, however large the weight makes it look. Both demos
    showed "k=1: p=0.00665" (= (1/501) / 0.3) as if it were exact."""
    floor = 1 / 501
    test = ModeTest(n_modes=3, p_values=(floor / 0.3, floor / 0.7, 0.4 / 0.7),
                    critical_bandwidths=(0.9, 0.8, 0.1), alpha=0.05, calibration="silverman",
                    n_boot=500, k_max=8, period=TWO_PI, n=300,
                    raw_p_values=(0.13, floor, 0.4), method="excess_mass",
                    excess_mass_p_values=(floor, floor, 0.5), step_weights=(0.7, 0.3))
    assert [test.is_bound(k) for k in (1, 2, 3)] == [True, True, False]
    assert test.steps_text() == "k=1: p≤0.0067, k=2: p≤0.0029, k=3: p=0.571"
    # A part near but above the floor decides an exact p-value (2/501 over 0.3).
    exact = dataclasses.replace(test, p_values=(2 * floor / 0.3, floor / 0.7, 0.4 / 0.7),
                                excess_mass_p_values=(2 * floor, floor, 0.5))
    assert exact.steps_text().startswith("k=1: p=0.0133,")
    # Silverman's own test combines p_k and p_{k+1} (weights 0.8, 0.2).
    own = ModeTest(n_modes=2, p_values=(floor / 0.8, 0.3 / 0.8),
                   critical_bandwidths=(0.5, 0.2, 0.1), alpha=0.05, calibration="silverman",
                   n_boot=500, k_max=8, period=TWO_PI, n=100,
                   raw_p_values=(floor, 0.3, 0.9), step_weights=(0.8, 0.2))
    assert own.is_bound(1) and not own.is_bound(2)
