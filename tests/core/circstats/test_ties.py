"""Ties and duplicates in the tested mode clusters (issue 29, item 3): no mode from ties, no
empty cluster, no NaN, no warning, and a note saying what the test did."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from stpca_gui.core.circstats.cluster_stability import cluster_stability
from stpca_gui.core.circstats.modes import periodic_mode_clusters, pns1_mode_clusters
from stpca_gui.core.circstats.ties import continuous_sample, distinct_rows, distinct_sample
from stpca_gui.core.summary import mode_cluster_items

TWO_PI = 2.0 * np.pi


def test_distinct_values_tie_across_the_ends_of_the_period():
    x = np.array([0.5, -np.pi, np.pi - 1e-13, 0.5, 2.0, 0.5 + 1e-6])
    found = distinct_sample(x, TWO_PI)
    assert found.n_distinct == 4 and found.has_ties
    gaps = np.mod(found.values[found.inverse] - x + np.pi, TWO_PI) - np.pi
    assert np.all(np.abs(gaps) < 1e-12)  # every point's value, modulo the period
    assert found.inverse[1] == found.inverse[2] and found.inverse[0] == found.inverse[3]


def test_distinct_rows_number_them_in_order_and_wrap():
    rows = np.array([[0.1, 3.0], [0.2, 0.0], [0.1, 3.0 - TWO_PI], [0.2, 0.0], [1.0, 1.0]])
    first, inverse = distinct_rows(rows)
    np.testing.assert_array_equal(first, [0, 1, 4])
    np.testing.assert_array_equal(inverse, [0, 1, 0, 1, 2])


def _quiet(call, *args, **kwargs):
    """Run ``call`` with every warning an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return call(*args, **kwargs)


def test_data_on_two_points_are_one_cluster_with_a_note():
    """Before: 8 clusters (6 empty), stability NaN and numpy's "invalid value" warning."""
    rng = np.random.default_rng(0)
    rows = np.repeat([[0.3, -1.0], [2.0, 1.5]], 500, axis=0)
    pns1 = np.repeat([-1.0, 1.2], 500) + 1e-9 * rng.standard_normal(1000)  # the fit's jitter
    clusters = _quiet(pns1_mode_clusters, pns1, TWO_PI, torus_angles=rows, stability=True)
    assert clusters.n_clusters == 1 and np.all(clusters.sizes == 1000)
    assert np.all(np.isfinite(clusters.stability))
    assert "only 2 distinct rows among 1000" in clusters.mode_test.note
    assert clusters.describe().startswith("1 cluster — one cluster: the test for the number")
    # the sample alone, without its rows: the same, for its 2 distinct values
    alone = _quiet(periodic_mode_clusters, np.repeat([-1.0, 1.2], 500))
    assert alone.n_clusters == 1 and "only 2 distinct values" in alone.mode_test.note
    items = {item.key: item for item in mode_cluster_items(clusters)}
    assert items["mode_test_note"].shown and "distinct rows" in items["mode_test_note"].text
    assert items["mode_clusters"].value["n_distinct"] == 2


def _three_groups(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Torus rows in three groups and a PNS1-like score of each."""
    group = rng.integers(0, 3, n)
    rows = np.column_stack([rng.vonmises(group * 2.0 - 2.0, 10.0), rng.vonmises(0.0, 4.0, n)])
    return rows, np.mod(rows[:, 0] + 0.1 * rows[:, 1] + np.pi, TWO_PI) - np.pi


def test_rows_read_ten_times_give_the_clusters_of_once():
    """Issue 29: a trajectory read ten times over gave 8 clusters where read once it gave 3.
    The copies' scores differ slightly (the spherical MDS places them independently)."""
    rng = np.random.default_rng(3)
    rows, score = _three_groups(rng, 150)
    once = _quiet(pns1_mode_clusters, score, TWO_PI, torus_angles=rows, stability=True)
    assert once.n_clusters == 3 and once.mode_test.note == ""
    copies = np.tile(rows, (10, 1))
    jittered = np.tile(score, 10) + 1e-7 * rng.standard_normal(copies.shape[0])
    tenfold = _quiet(pns1_mode_clusters, jittered, TWO_PI, torus_angles=copies, stability=True)
    assert tenfold.n_clusters == once.n_clusters
    assert tenfold.mode_test.p_values == once.mode_test.p_values
    np.testing.assert_array_equal(tenfold.labels, np.tile(once.labels, 10))
    np.testing.assert_array_equal(tenfold.stability, once.stability)
    assert "1350 of 1500 rows repeat another" in tenfold.mode_test.note
    assert tenfold.mode_test.n == 1500 and tenfold.mode_test.n_distinct == 150


def test_repeated_values_share_their_cluster_and_keep_the_rate():
    rng = np.random.default_rng(8)
    x = np.concatenate([rng.vonmises(c, 12.0, 100) for c in (-2.0, 0.2, 2.3)])
    truth = np.repeat(np.arange(3), 100)
    once = periodic_mode_clusters(x, labels=truth, n_boot=200)
    doubled = _quiet(periodic_mode_clusters, np.r_[x, x], labels=np.r_[truth, truth],
                     n_boot=200)
    assert doubled.n_clusters == once.n_clusters == 3
    np.testing.assert_array_equal(doubled.labels, np.r_[once.labels, once.labels])
    assert doubled.classification_rate == pytest.approx(once.classification_rate)
    assert np.all(doubled.sizes == 2 * once.sizes)


def test_stability_of_an_empty_cluster_is_zero_not_nan():
    x = np.random.default_rng(2).vonmises(0.0, 20.0, 200)
    # the arc from 2.0 to 2.5 holds no point
    figures = _quiet(cluster_stability, x, TWO_PI, np.array([-1.0, 2.0, 2.5]), 3, n_boot=5)
    assert np.all(np.isfinite(figures)) and figures[1] == 0.0


def test_copies_are_counted_once_and_rounded_values_spread_over_their_step():
    once = np.r_[0.25 * np.arange(12), 0.25]  # 0, 0.25, …, 2.75: a lattice, 0.25 twice
    tested = continuous_sample(distinct_sample(np.tile(once, 2), TWO_PI), TWO_PI)
    assert tested.copies == 2 and tested.n_distinct == 12 and tested.spread == 0.25
    expected = np.r_[0.0, 0.1875, 0.3125, 0.25 * np.arange(2, 12)]  # 0.25's copies spread
    np.testing.assert_allclose(np.sort(tested.values), expected)
    assert "multiple of 2 times" in tested.note and "lattice of step 0.25" in tested.note
    plain = continuous_sample(distinct_sample(np.tile([0.1, 0.7, 2.0], 5), TWO_PI), TWO_PI)
    assert plain.copies == 5 and plain.spread == 0.0 and plain.values.size == 3


def test_rounded_data_keep_their_modes_and_clusters():
    """Two modes, 20 000 points written to 1° (264 distinct values): counting each value once
    flattened them to one mode; spread over their rounding step they give the modes and
    clusters of the exact values."""
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.vonmises(-1.0, 8.0, 10000), rng.vonmises(1.0, 8.0, 10000)])
    rounded = np.radians(np.round(np.degrees(x)))
    exact = periodic_mode_clusters(x, n_boot=200, labels=np.repeat([0, 1], 10000))
    found = _quiet(periodic_mode_clusters, rounded, n_boot=200,
                   labels=np.repeat([0, 1], 10000))
    assert exact.n_clusters == found.n_clusters == 2
    assert found.mode_test.n_distinct < 300 and "spread evenly" in found.mode_test.note
    assert np.all(found.sizes > 0)
    assert found.classification_rate == pytest.approx(exact.classification_rate, abs=0.005)


def _distinct_rows_by_sorting_rows(angles):
    """distinct_rows as it was: np.unique of whole rows of keys."""
    from stpca_gui.core.circstats.ties import TIE_TOLERANCE
    from stpca_gui.core.geometry.torus import wrap_angles

    step = TIE_TOLERANCE * 2.0 * np.pi
    keys = np.ascontiguousarray(np.rint(wrap_angles(angles, 2.0 * np.pi) / step) % round(
        2.0 * np.pi / step))
    rows = keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order], rank[inverse.ravel()]


@pytest.mark.parametrize("collide", [False, True])
def test_distinct_rows_by_hash_match_sorting_whole_rows(monkeypatch, collide):
    # Rows grouped by a hash of their keys, checked against their group's first row; with
    # every hash equal (collide) the check fails and whole rows are sorted instead.
    from stpca_gui.core.circstats import ties

    monkeypatch.setattr(ties, "_KEY_BLOCK", 64)
    if collide:
        monkeypatch.setattr(ties, "_hash_weights", lambda d: np.zeros(d, dtype=np.uint64))
    rng = np.random.default_rng(8)
    angles = rng.uniform(-7.0, 7.0, size=(1000, 6))
    angles[:, 2] = np.round(angles[:, 2], 0)
    angles[500:600] = angles[:100]
    angles[700] = angles[3] + 2.0 * np.pi  # the same torus point
    angles[701] = -0.0
    angles[702] = 0.0
    first, inverse = distinct_rows(angles)
    expected_first, expected_inverse = _distinct_rows_by_sorting_rows(angles)
    np.testing.assert_array_equal(first, expected_first)
    np.testing.assert_array_equal(inverse, expected_inverse)
    assert first.size == 1000 - 100 - 1 - 1
