"""PNS at high dimension: the reduction of the levels far from PNS1, measured against fitting
every level; the sequential isotropy test against the full one; rank-2 rotations.

The issue's tolerances for an approximation (issue 32): PNS1 scores correlate ≥ 0.9999 with
the exact computation's, explained variances within 0.1 point, the same clusters.
"""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.core import ScaledTorusPCA
from stpca_gui.core.circstats.modes import pns1_mode_clusters
from stpca_gui.core.circstats.rates import best_matching_rate
from stpca_gui.core.demos import sphere_clusters
from stpca_gui.core.pns import isotropy, reduction
from stpca_gui.core.pns.pns import PrincipalNestedSpheres
from stpca_gui.core.pns.subsphere import (
    HALF_PI,
    HIGH_DIM,
    rotate_rows,
    rotation_to_north_pole,
)
from stpca_gui.core.summary import fit_summary
from stpca_gui.core.torsion_states import make_torsion_states


def _clusters(pns, labels):
    period = 2.0 * np.pi * float(pns.circle_radius_)
    return pns1_mode_clusters(pns.scores_[:, 0], period, method="paper", labels=labels)


def _agreement(first, second) -> float:
    """Share of the points the two partitions put together (best matching of labels)."""
    k = max(first.n_clusters, second.n_clusters)
    table = np.zeros((k, k), dtype=np.int64)
    np.add.at(table, (first.labels, second.labels), 1)
    return best_matching_rate(table)[0] / first.labels.size


@pytest.fixture(scope="module")
def torsion_fit():
    """A default fit of 3-state torsion data on T^20 (its PNS reduces levels 2–7 of 19)."""
    data = make_torsion_states(400, 20, random_state=2)
    model = ScaledTorusPCA(random_state=0, torus_variance=False, n_curve_points=20)
    return model.fit(data.angles), data.labels


def test_reduced_fit_agrees_with_every_level_fitted(torsion_fit):
    model, labels = torsion_fit
    reduced = PrincipalNestedSpheres(random_state=5).fit(model.embedding_)
    exact = PrincipalNestedSpheres(random_state=5, exact_levels="all").fit(model.embedding_)
    np.testing.assert_array_equal(reduced.reduced_levels_, np.arange(1, 7))
    assert exact.reduced_levels_.size == 0 and exact.reduced_variance_ratio_ == 0.0
    d = reduced.n_components_
    np.testing.assert_allclose(reduced.reduced_variance_ratio_, np.sum(
        reduced.explained_variance_ratio_[d - 1 - reduced.reduced_levels_]), rtol=1e-12)
    pns1 = np.corrcoef(reduced.scores_[:, 0], exact.scores_[:, 0])[0, 1]
    assert abs(pns1) >= 0.9999
    ratio_gap = np.abs(reduced.explained_variance_ratio_ - exact.explained_variance_ratio_)
    assert ratio_gap.max() <= 0.001  # 0.1 point
    clusters, exact_clusters = _clusters(reduced, labels), _clusters(exact, labels)
    assert clusters.n_clusters == exact_clusters.n_clusters >= 2
    assert _agreement(clusters, exact_clusters) == 1.0
    # The reduced levels are great spheres whose residuals are measured all the same.
    assert all(reduced.sphere_types_[k] == "great" for k in reduced.reduced_levels_)
    assert np.all(np.isnan(reduced.p_values_[reduced.reduced_levels_]))
    assert np.all(reduced.explained_variance_[d - 1 - reduced.reduced_levels_] > 0)


def test_reduction_is_exact_when_the_points_span_a_subspace():
    # Points of S^13 placed in a 14-dimensional subspace of R^31, 1e-9 off it: the fit
    # of every level and the reduced one (levels 2–17 of 29) find the same nested spheres.
    rng = np.random.default_rng(0)
    basis = np.linalg.qr(rng.standard_normal((31, 14)))[0]
    points = sphere_clusters(300, 13, sd=0.4, random_state=1) @ basis.T
    points += 1e-9 * rng.standard_normal(points.shape)
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    exact = PrincipalNestedSpheres(mode="great", exact_levels="all").fit(points)
    reduced = PrincipalNestedSpheres(mode="great").fit(points)
    assert reduced.reduced_levels_.size == 16
    np.testing.assert_allclose(reduced.explained_variance_ratio_,
                               exact.explained_variance_ratio_, atol=1e-8)
    signs = np.sign(np.sum(reduced.scores_[:, :13] * exact.scores_[:, :13], axis=0))
    np.testing.assert_allclose(reduced.scores_[:, :13] * signs, exact.scores_[:, :13],
                               atol=1e-6)


def test_high_dimensional_fit_says_what_was_reduced(torsion_fit, tmp_path):
    model, _ = torsion_fit
    item = next(i for i in fit_summary(model) if i.key == "pns_reduced_levels")
    assert item.shown and item.value["first"] == 2 and item.value["last"] == 7
    assert item.text.startswith("levels 2–7 of 19 reduced")
    assert item.value["variance_share"] == pytest.approx(model.pns_.reduced_variance_ratio_)
    assert 0.0 < item.value["variance_share"] < 0.5
    # 19 sphere types, shown as runs ("small, great × 18") rather than 19 words.
    types = next(i for i in fit_summary(model) if i.key == "sphere_types")
    runs = types.text.split(" (")[0].split(", ")
    assert len(runs) < 19 and any(" × " in run for run in runs)
    assert sum(int(run.split(" × ")[1]) if " × " in run else 1 for run in runs) == 19
    loaded = ScaledTorusPCA.load(model.save(tmp_path / "model.stpca"))
    np.testing.assert_array_equal(loaded.pns_.reduced_levels_, model.pns_.reduced_levels_)
    np.testing.assert_array_equal(loaded.transform(model.angles_[:50]),
                                  model.transform(model.angles_[:50]))


def test_low_dimensional_fits_reduce_nothing_and_test_in_full():
    x = sphere_clusters(200, 7, sd=0.3, random_state=3)
    pns = PrincipalNestedSpheres(random_state=0).fit(x)
    assert pns.reduced_levels_.size == 0
    tested = pns.isotropy_test_points_ > 0
    assert np.all(pns.isotropy_test_replicates_[tested] == pns.n_bootstrap)


@pytest.mark.parametrize("m", [5, 10])
@pytest.mark.parametrize("kappa_ring", [(50.0, 0.0), (50.0, 0.6)])
def test_sequential_isotropy_test_decides_as_the_full_test(kappa_ring, m):
    # vMF points on S^9 or S^4 (isotropic), or the same pushed out to a ring of radius
    # 0.6 rad about their mean direction (not isotropic). The quick test fits its
    # replicates from the mean direction (high_dim, as at every level of a fit above S^7);
    # the full one, on S^4, from shapes' three starts.
    kappa, ring = kappa_ring
    x = isotropy._replicate_draws(11, 0, 1, 400, m, kappa)[0]
    if ring:
        theta = np.arccos(np.clip(x[:, -1], -1, 1))
        tangent = x.copy()
        tangent[:, -1] = 0.0
        tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
        new = ring + 0.2 * theta
        x = np.column_stack([np.sin(new)[:, None] * tangent[:, :-1], np.cos(new)])
    full = isotropy.vmf_test_pvalue(x, None, 100, np.random.default_rng(3))
    quick = isotropy.vmf_test_pvalue(x, None, 100, np.random.default_rng(3), stop_above=0.1,
                                     high_dim=True)
    assert (quick.p_value > 0.1) == (full.p_value > 0.1) == (not ring)
    assert full.n_replicates == 100 and quick.n_replicates < 100
    if ring:  # rejected as soon as the rule may: at its least number of replicates
        assert quick.n_replicates == isotropy.SEQUENTIAL_MIN_REPLICATES


def test_sequential_chunks_reach_the_reject_rule_in_whole_waves():
    # A sequential test may reject at SEQUENTIAL_MIN_REPLICATES: its chunks are sized so
    # that whole waves of chunks (run at once on the kernel threads) reach it exactly, at
    # every sample size the test runs on (up to N_TEST), with about as many points a chunk
    # as the full test's.
    least = isotropy.SEQUENTIAL_MIN_REPLICATES
    for n in [*range(3, 200), *range(200, isotropy.N_TEST + 1, 37), isotropy.N_TEST]:
        chunk = isotropy._chunk_replicates(n, sequential=True)
        assert least % (chunk * isotropy._CHUNKS_PER_WAVE) == 0, n
        full = isotropy._chunk_replicates(n, sequential=False)
        assert full == max(1, isotropy._BOOTSTRAP_CHUNK_POINTS // n)
        assert chunk <= max(full, least // isotropy._CHUNKS_PER_WAVE) * 2, n


@pytest.mark.parametrize("axis", ["random", "north", "south"])
def test_rank_two_rotation_is_the_rotation_matrix(axis):
    m = HIGH_DIM + 5
    rng = np.random.default_rng(4)
    v = {"random": rng.standard_normal(m), "north": np.eye(m)[-1],
         "south": -np.eye(m)[-1]}[axis]
    rotation = rotation_to_north_pole(v)
    x = rng.standard_normal((9, m))
    np.testing.assert_allclose(rotate_rows(x, rotation), x @ rotation.T, atol=1e-14)
    np.testing.assert_allclose(rotate_rows(x, rotation, inverse=True), x @ rotation,
                               atol=1e-14)


def _level_by_level(x, rotations):
    """Geodesic angles to each level's axis and the points after the levels, one level at a
    time (rotate, drop the axis coordinate, renormalise): what PNS did before runs."""
    angles = []
    for rotation in rotations:
        z = rotate_rows(x, rotation)
        head = z[:, :-1]
        h = np.linalg.norm(head, axis=1)
        angles.append(np.arctan2(h, z[:, -1]))
        x = head / np.where(h > 0, h, 1.0)[:, None]
    return np.column_stack(angles), x


def test_great_runs_in_one_step_match_level_by_level():
    rng = np.random.default_rng(11)
    y = rng.normal(size=(3000, 31)) * np.linspace(0.1, 1.0, 31)[::-1]
    y[:, 0] += 3.0
    y /= np.linalg.norm(y, axis=1)[:, None]
    y[0] = 0.0
    y[0, 5] = 1.0  # a point that ends on an axis has no projection after it
    pns = PrincipalNestedSpheres(mode="great").fit(y[1:])
    runs = reduction.great_runs(pns.rotations_, pns.sphere_types_)
    # One run of all 29 levels (it starts above HIGH_DIM coordinates).
    assert list(runs) == [0] and runs[0][0] == 29
    stop, run = runs[0]
    angles, after = reduction.great_run_angles(y, run)
    expected_angles, expected_after = _level_by_level(y, pns.rotations_[:stop])
    np.testing.assert_allclose(angles, expected_angles, rtol=0, atol=1e-13)
    np.testing.assert_allclose(after, expected_after, rtol=0, atol=1e-13)
    # transform uses the run: the scores of the level-by-level maps.
    scores = pns.transform(y)
    np.testing.assert_allclose(scores[:, -stop:][:, ::-1], expected_angles - HALF_PI,
                               rtol=0, atol=1e-13)


def test_reduced_block_matches_level_by_level_principal_directions():
    # The reduced levels in one step against the levels taken one by one along the
    # principal directions (the code before): the same axes, objectives and points after.
    data = make_torsion_states(1500, 20, random_state=5)
    y = ScaledTorusPCA(random_state=0, torus_variance=False).fit(data.angles).embedding_
    count = 8
    centers, _, objectives, after = reduction.reduce_to_principal_subsphere(y, count)
    axes = reduction.principal_axes(y, count)
    cur, to_start = y, np.eye(y.shape[1])
    for j in range(count):
        v = to_start.T @ axes[j]
        v /= np.linalg.norm(v)
        theta = np.arccos(np.clip(cur @ v, -1.0, 1.0))
        if np.mean(theta) > HALF_PI:
            v, theta = -v, np.pi - theta
        np.testing.assert_allclose(centers[j], v, rtol=0, atol=1e-12)
        assert objectives[j] == pytest.approx(np.mean((theta - HALF_PI) ** 2), rel=1e-9)
        rotation = rotation_to_north_pole(v)
        _, cur = _level_by_level(cur, [rotation])
        to_start = rotate_rows(to_start, rotation)[:, :-1]
    np.testing.assert_allclose(after, cur, rtol=0, atol=1e-12)
