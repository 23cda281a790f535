"""The nested projections (core/prediction/projections.py) and the explained-variance
conventions of the report (reproduce/variance_conventions.py, reproduce/variance_gap.py)."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.core import ScaledTorusPCA, make_demo
from stpca_gui.core.geometry.torus import torus_distance, wrap_angles
from stpca_gui.core.prediction.projections import (
    level_scores,
    nested_variance,
    predict_projections,
    sphere_projections,
)
from stpca_gui.reproduce.fits import SUBSAMPLE_SEED, SUBSAMPLE_SIZE, ReportFits, subsample_rows
from stpca_gui.reproduce.sunspots import load_sunspots_data
from stpca_gui.reproduce.variance_conventions import (
    CONVENTIONS,
    FitLevels,
    curve_projection,
    evaluate,
)
from stpca_gui.reproduce.variance_gap import Fits, implied_sd


@pytest.fixture(scope="module")
def paper_t3() -> ScaledTorusPCA:
    """The paper's optimiser leaves a large SMDS misfit: T̃(ŷ_i) is far from x_i."""
    return ScaledTorusPCA(optimizer="paper", random_state=0).fit(
        make_demo("clusters-t3", random_state=1).angles)


@pytest.fixture(scope="module")
def small_t2() -> ScaledTorusPCA:
    """Converged, with a small principal circle (sphere_types_ == ["small"])."""
    model = ScaledTorusPCA(pns_mode="small", random_state=0).fit(
        make_demo("clusters-t2", random_state=0, cluster_sd=0.5).angles)
    assert model.pns_.sphere_types_ == ["small"] and model.pns_.circle_radius_ < 0.99
    return model


# ------------------------------------------------------------------ core.prediction.projections
def test_level_scores_keep_the_chosen_columns():
    scores = np.arange(1.0, 7.0).reshape(2, 3)
    np.testing.assert_array_equal(level_scores(scores, 3), scores)
    np.testing.assert_array_equal(level_scores(scores, 0), 0.0)
    np.testing.assert_array_equal(level_scores(scores, 1), [[1, 0, 0], [4, 0, 0]])
    np.testing.assert_array_equal(level_scores(scores, 1, (2, 1, 0)), [[0, 0, 3], [0, 0, 6]])
    with pytest.raises(ValueError, match=r"permutation of 0\.\.2"):
        level_scores(scores, 1, (0, 0, 1))


def test_sphere_projections_run_from_the_mean_to_the_points(paper_t3):
    pns = paper_t3.pns_
    for order in (None, (2, 0, 1)):
        levels = sphere_projections(pns, paper_t3.scores_, order)
        assert levels.shape == (4, 300, 4)
        np.testing.assert_allclose(levels[-1], paper_t3.embedding_, atol=1e-12)
        np.testing.assert_allclose(levels[0], np.broadcast_to(pns.mean_, (300, 4)), atol=1e-15)


def test_the_fit_uses_the_public_projections(paper_t3):
    again = predict_projections(paper_t3.pns_, paper_t3.match_, paper_t3.scores_,
                                paper_t3.angles_)
    assert again.tobytes() == paper_t3.projections_.tobytes()
    np.testing.assert_array_equal(nested_variance(again), paper_t3.torus_explained_variance_)


def test_projections_in_another_order_share_the_ends(paper_t3):
    other = predict_projections(paper_t3.pns_, paper_t3.match_, paper_t3.scores_,
                                paper_t3.angles_, order=(2, 1, 0))
    np.testing.assert_array_equal(other[0], paper_t3.projections_[0])  # the mean
    assert np.max(torus_distance(other[-1], paper_t3.projections_[-1])) < 1e-6
    assert np.max(torus_distance(other[1], paper_t3.projections_[1])) > 0.1


# ------------------------------------------------------------------ the conventions
def test_every_convention_gives_ratios_that_sum_to_one_except_the_residuals(paper_t3):
    ratios = evaluate(FitLevels(paper_t3))
    assert set(ratios) == {c.key for c in CONVENTIONS}
    for key, values in ratios.items():
        assert values.shape == (3,) and np.all(values >= 0), key
        if key != "T-g":
            assert values.sum() == pytest.approx(1.0, abs=1e-12), key
    # The residual shares leave out what the top prediction misses: Σδ(x_i, T̃(ŷ_i))².
    residual = [np.sum(torus_distance(paper_t3.angles_, level) ** 2)
                for level in paper_t3.projections_[[0, -1]]]
    assert ratios["T-g"].sum() == pytest.approx(1 - residual[1] / residual[0], rel=1e-12)


def test_data_at_the_top_changes_only_the_last_component(paper_t3):
    levels = paper_t3.projections_.copy()
    printed = nested_variance(levels)
    levels[-1] = paper_t3.angles_
    topped = nested_variance(levels)
    np.testing.assert_array_equal(topped[:-1], printed[:-1])
    misfit = torus_distance(paper_t3.angles_, paper_t3.projections_[-1])
    assert np.median(misfit) > 0.05  # the paper's optimiser: predictions far from the data
    assert topped[-1] > 1.3 * printed[-1]
    ratios = evaluate(FitLevels(paper_t3))
    np.testing.assert_allclose(ratios["T-a"], printed / printed.sum(), rtol=1e-14)
    np.testing.assert_allclose(ratios["T-b"], topped / topped.sum(), rtol=1e-14)


def test_data_at_the_top_equals_the_printed_definition_when_predictions_are_exact(paper_t3):
    exact = ScaledTorusPCA(optimizer="paper", random_state=0).fit(paper_t3.angles_)
    exact.projections_ = exact.projections_.copy()
    exact.projections_[-1] = exact.angles_  # as if T̃(ŷ_i) = x_i
    ratios = evaluate(FitLevels(exact))
    np.testing.assert_allclose(ratios["T-b"], ratios["T-a"], rtol=0, atol=1e-15)
    np.testing.assert_allclose(ratios["T-fb"], ratios["T-f"], rtol=0, atol=1e-15)


def test_swapped_labels_exchange_pc2_and_pc3(paper_t3):
    ratios = evaluate(FitLevels(paper_t3))
    np.testing.assert_array_equal(ratios["T-a′"], ratios["T-a"][[0, 2, 1]])
    np.testing.assert_array_equal(ratios["T-b′"], ratios["T-b"][[0, 2, 1]])


def test_shapes_percent_recomputed_from_the_scores_is_ours(small_t2, paper_t3):
    for model in (small_t2, paper_t3):
        ratios = evaluate(FitLevels(model))
        np.testing.assert_allclose(ratios["S-d"], model.explained_variance_ratio_, rtol=1e-12)
        np.testing.assert_allclose(ratios["S-cr"], ratios["S-c"], rtol=1e-12)


def test_totalvar_equals_shapes_percent_on_great_spheres(paper_t3):
    """Two computations: geodesic distances between projected points, and scores."""
    assert paper_t3.pns_.sphere_types_ == ["great", "great"]
    ratios = evaluate(FitLevels(paper_t3))
    np.testing.assert_allclose(ratios["S-c"], ratios["S-d"], rtol=1e-9)


def test_totalvar_on_a_small_circle_is_the_chord_not_the_arc(small_t2):
    """On a small principal circle of Euclidean radius ρ, the geodesic from the mean to a
    point at angle φ along it is 2 arcsin(ρ sin(|φ|/2)), shorter than the arc ρ|φ| that
    shapes' scaled PNS1 measures."""
    pns = small_t2.pns_
    rho = pns.circle_radius_
    phi = small_t2.scores_[:, 0] / rho
    expected_pc1 = np.sum((2 * np.arcsin(rho * np.sin(np.abs(phi) / 2))) ** 2)
    sphere = FitLevels(small_t2).levels()[0]
    geodesic = 2 * np.arctan2(np.linalg.norm(sphere[1] - sphere[0], axis=1),
                              np.linalg.norm(sphere[1] + sphere[0], axis=1))
    assert np.sum(geodesic**2) == pytest.approx(expected_pc1, rel=1e-10)
    assert expected_pc1 < np.sum(small_t2.scores_[:, 0] ** 2)


def test_fit_levels_need_every_sample_projected():
    angles = make_demo("clusters-t2").angles
    with pytest.raises(ValueError, match="torus variance of every sample"):
        FitLevels(ScaledTorusPCA(torus_variance=False, random_state=0).fit(angles))


# ------------------------------------------------------------------ curve projection
def test_curve_projection_onto_the_diagonal_geodesic_is_exact():
    """The closed diagonal θ2 = θ1 of T²: the distance of (a, b) to it is
    |wrap(b − a)| / √2, and the nearest point is on it."""
    t = np.linspace(-np.pi, np.pi, 40, endpoint=False) + 0.3
    curve = wrap_angles(np.column_stack([t, t]))
    points = np.random.default_rng(0).uniform(-np.pi, np.pi, (500, 2))
    nearest = curve_projection(curve, np.zeros(40, dtype=bool), points)
    assert np.max(np.abs(wrap_angles(nearest[:, 1] - nearest[:, 0]))) < 1e-12
    expected = np.abs(wrap_angles(points[:, 1] - points[:, 0])) / np.sqrt(2)
    np.testing.assert_allclose(torus_distance(points, nearest), expected, atol=1e-12)


def test_curve_projection_skips_breaks_and_beats_dense_sampling():
    rng = np.random.default_rng(1)
    curve = wrap_angles(np.cumsum(rng.normal(0.0, 0.3, (30, 3)), axis=0))
    breaks = np.zeros(30, dtype=bool)
    breaks[[4, 17]] = True
    points = rng.uniform(-np.pi, np.pi, (200, 3))
    nearest = curve_projection(curve, breaks, points)
    # Dense points of the kept segments (the shorter way round the torus).
    steps = wrap_angles(np.roll(curve, -1, axis=0) - curve)
    s = np.linspace(0.0, 1.0, 401)
    dense = np.concatenate([curve[j] + s[:, None] * steps[j] for j in np.flatnonzero(~breaks)])
    brute = np.array([np.min(torus_distance(p, dense)) for p in points])
    ours = torus_distance(points, nearest)
    assert np.all(ours <= brute + 1e-12)
    assert np.max(brute - ours) < 2e-3  # the grid's resolution
    on_curve = np.array([np.min(torus_distance(q, dense)) for q in nearest])
    assert np.max(on_curve) < 2e-3


# ------------------------------------------------------------------ the report's tools
def test_implied_sd_interpolates_the_first_crossing():
    sds = [0.1, 0.2, 0.3, 0.4]
    assert implied_sd(sds, [99.0, 97.0, 95.0, 93.0], 96.0) == pytest.approx(0.25)
    assert implied_sd(sds, [0.01, 0.03, 0.05, 0.07], 0.03) == pytest.approx(0.2)
    assert implied_sd(sds, [1.34, 1.35, 1.36, 1.37], 1.30) is None


def test_subsample_is_the_one_of_the_sunspots_section():
    data = load_sunspots_data()
    rows = np.sort(np.random.default_rng(0).choice(5371, 1000, replace=False))
    assert len(data.series) == 5371 and SUBSAMPLE_SIZE == 1000 and SUBSAMPLE_SEED == 0
    np.testing.assert_array_equal(data.subsample, rows)
    np.testing.assert_array_equal(subsample_rows(5371, SUBSAMPLE_SEED), rows)
    # Each section reads the same fit of it: fitted once per procedure.
    fit = data.fits.subsample(SUBSAMPLE_SEED, "paper's procedure")
    assert data.fits.subsample(SUBSAMPLE_SEED, "paper's procedure") is fit
    np.testing.assert_array_equal(fit.angles_, data.series[rows])
    assert fit.smds_.optimizer == "paper" and round(fit.smds_.initial_radius_, 2) == 1.79


def test_demo_fits_are_shared_and_the_default_sd_is_one_key():
    fits = ReportFits(np.zeros((3, 3)))
    first = fits.demo("clusters-t2", 1, "converged")
    assert fits.demo("clusters-t2", 1, "converged", cluster_sd=0.3) is first
    assert fits.demo("clusters-t2", 1, "converged", cluster_sd=0.4) is not first
    np.testing.assert_array_equal(first.angles_,
                                  make_demo("clusters-t2", random_state=1).angles)


def test_fits_summarise_several_data_sets():
    samples = [make_demo("clusters-t2", random_state=s, cluster_sd=0.4).angles for s in (0, 1)]
    models = [ScaledTorusPCA(optimizer="paper", random_state=0).fit(x) for x in samples]
    fits = Fits.of(models, [c for c in CONVENTIONS if c.key in ("T-a", "T-b")])
    assert set(fits.ratios) == {"T-a", "T-b"} and fits.ratios["T-a"].shape == (2, 2)
    assert fits.radius.shape == fits.stress.shape == (2,)
    np.testing.assert_allclose(fits.mean("T-b"), fits.ratios["T-b"].mean(axis=0))
    assert np.all(fits.sd("T-b") > 0)
    single = Fits.of(models[:1], [CONVENTIONS[0]])
    np.testing.assert_array_equal(single.sd("T-a"), 0.0)
