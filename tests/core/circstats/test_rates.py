"""Classification rates and their bootstrap intervals (core/rates.py)."""

from itertools import permutations

import numpy as np
import pytest

from stpca_gui.core.circstats.rates import (
    classification_rate_interval,
    contingency_table,
    rate_difference_interval,
)


def brute_force_rate(clusters: np.ndarray, labels: np.ndarray) -> float:
    """Best matching by trying every injective map of clusters to labels (or back)."""
    cluster_values, label_values = np.unique(clusters), np.unique(labels)
    best = 0
    if cluster_values.size <= label_values.size:
        for image in permutations(label_values, cluster_values.size):
            mapping = dict(zip(cluster_values, image, strict=True))
            best = max(best, sum(mapping[c] == t for c, t in zip(clusters, labels, strict=True)))
    else:
        for image in permutations(cluster_values, label_values.size):
            mapping = dict(zip(image, label_values, strict=True))
            best = max(best, sum(mapping.get(c) == t for c, t in zip(clusters, labels,
                                                                      strict=True)))
    return best / clusters.size


def paper_like_clustering(seed: int, n: int = 190, n_wrong: int = 16):
    """Three labels I/II/V of sizes like the RNA data, clusters 0..2 with n_wrong errors."""
    rng = np.random.default_rng(seed)
    truth = np.repeat(np.array(["I", "II", "V"]), [59, 88, 43])[:n]
    clusters = np.searchsorted(["I", "II", "V"], truth).astype(np.int64)
    wrong = rng.choice(n, n_wrong, replace=False)
    clusters[wrong] = (clusters[wrong] + rng.integers(1, 3, n_wrong)) % 3
    return clusters, truth


@pytest.mark.parametrize("seed", range(5))
def test_rate_equals_brute_force_matching(seed):
    rng = np.random.default_rng(seed)
    clusters = rng.integers(0, 4, 60)
    labels = rng.choice(np.array(["a", "b", "c"]), 60)
    result = classification_rate_interval(clusters, labels, n_boot=10)
    assert result.rate == pytest.approx(brute_force_rate(clusters, labels))
    assert result.n == 60
    assert result.n_correct == round(result.rate * 60)


def test_rate_invariant_to_renaming_clusters():
    clusters, truth = paper_like_clustering(0)
    renamed = np.array([7, 3, 11])[clusters]
    a = classification_rate_interval(clusters, truth, n_boot=200, random_state=1)
    b = classification_rate_interval(renamed, truth, n_boot=200, random_state=1)
    assert a.rate == b.rate and a.n_misclassified == b.n_misclassified == 16
    # The cells are drawn in another order, so the two intervals are two Monte Carlo
    # estimates of the same quantiles.
    assert a.low == pytest.approx(b.low, abs=0.011)
    assert a.high == pytest.approx(b.high, abs=0.011)


def test_interval_brackets_the_rate_and_matches_row_resampling():
    """The multinomial shortcut has the distribution of resampling rows with replacement."""
    clusters, truth = paper_like_clustering(2)
    shortcut = classification_rate_interval(clusters, truth, n_boot=4000, random_state=3)
    assert shortcut.low <= shortcut.rate <= shortcut.high
    rng = np.random.default_rng(4)
    rows = rng.integers(0, truth.size, size=(4000, truth.size))
    by_rows = [brute_force_rate_fast(clusters[r], truth[r]) for r in rows]
    low, high = np.quantile(by_rows, [0.025, 0.975])
    # Two Monte Carlo estimates of the same quantiles: agree to about a point out of 190.
    assert shortcut.low == pytest.approx(low, abs=0.011)
    assert shortcut.high == pytest.approx(high, abs=0.011)
    # Binomial intuition: 174/190 has a standard error of about 2 points.
    assert 0.03 < shortcut.high - shortcut.low < 0.12


def brute_force_rate_fast(clusters, labels):
    counts, _, _ = contingency_table(clusters, labels)
    return max(sum(counts[i, p[i]] for i in range(3)) for p in permutations(range(3))) / labels.size


def test_difference_of_identical_methods_is_exactly_zero():
    clusters, truth = paper_like_clustering(5)
    result = rate_difference_interval(clusters, clusters, truth, n_boot=300)
    assert (result.difference, result.low, result.high) == (0.0, 0.0, 0.0)
    assert not result.significant


def test_whether_seven_points_of_190_is_noise_depends_on_the_pairing():
    """0.916 against 0.879 (16 against 23 misclassified): a paired question."""
    clusters_a, truth = paper_like_clustering(6, n_wrong=16)
    truth_index = np.searchsorted(["I", "II", "V"], truth)
    correct = np.flatnonzero(clusters_a == truth_index)
    # b makes a's 16 errors and 7 more: b is never right where a is wrong (sign test 7:0).
    nested = clusters_a.copy()
    nested[correct[:7]] = (nested[correct[:7]] + 1) % 3
    result = rate_difference_interval(clusters_a, nested, truth, n_boot=2000)
    assert result.difference == pytest.approx(7 / 190)
    assert result.significant and result.low > 0.0
    # b's 23 errors on other rows than a's 16: 39 discordant rows split 23:16, noise.
    disjoint = truth_index.copy()
    disjoint[correct[:23]] = (disjoint[correct[:23]] + 1) % 3
    result = rate_difference_interval(clusters_a, disjoint, truth, n_boot=2000)
    assert result.difference == pytest.approx(7 / 190)
    assert result.low < 0.0 < result.high and not result.significant


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="level"):
        classification_rate_interval([0, 1], [0, 1], level=1.5)
    with pytest.raises(ValueError, match="n_boot"):
        classification_rate_interval([0, 1], [0, 1], n_boot=0)
    with pytest.raises(ValueError, match="true labels"):
        classification_rate_interval([0, 1, 1], [0, 1])
