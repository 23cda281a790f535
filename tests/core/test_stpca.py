"""ScaledTorusPCA end to end, prediction/interpolation maps and the principal curve."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from stpca_gui.core import (
    FitCancelled,
    ScaledTorusPCA,
    SMDSMatch,
    SphericalMDS,
    make_demo,
    torus_distance,
    wrap_angles,
)
from stpca_gui.core.prediction.principal_curve import closed_curve_breaks


def circular_means(angles: np.ndarray, labels: np.ndarray) -> np.ndarray:
    return np.array([np.angle(np.mean(np.exp(1j * angles[labels == k]), axis=0))
                     for k in np.unique(labels)])


@pytest.fixture(scope="module")
def fitted_t3(clusters_t3):
    return ScaledTorusPCA(random_state=0).fit(clusters_t3.angles)


@pytest.mark.parametrize("name", ["clusters-t2", "clusters-t3"])
def test_first_component_separates_the_clusters(name):
    data = make_demo(name, random_state=1)
    model = ScaledTorusPCA(random_state=0).fit(data.angles)
    pc1 = model.scores_[:, 0]
    intervals = sorted((pc1[data.labels == k].min(), pc1[data.labels == k].max())
                       for k in range(3))
    for (_, upper), (lower, _) in itertools.pairwise(intervals):
        assert upper < lower, intervals
    assert model.explained_variance_ratio_[0] > 0.9
    assert model.torus_explained_variance_ratio_[0] > 0.9
    # The principal curve passes near every cluster centre and has no break.
    curve = model.principal_curve_
    for centre in circular_means(data.angles, data.labels):
        assert torus_distance(curve.angles, centre).min() < 0.15
    assert not curve.breaks.any()


def test_fitted_attributes(fitted_t3, clusters_t3):
    n, d = clusters_t3.angles.shape
    model = fitted_t3
    assert model.scores_.shape == (n, d)
    assert model.embedding_.shape == (n, d + 1)
    np.testing.assert_allclose(model.explained_variance_ratio_.sum(), 1.0)
    np.testing.assert_allclose(model.torus_explained_variance_ratio_.sum(), 1.0)
    assert model.projections_.shape == (d + 1, n, d)
    assert model.principal_curve_.angles.shape == (100, d)
    assert np.all(np.abs(model.principal_curve_.angles) <= np.pi)
    assert set(model.timings_) == {"smds", "pns", "curve", "torus-variance"}
    # The sphere variance ratios are those of PNS on the embedding.
    np.testing.assert_allclose(model.explained_variance_ratio_,
                               model.pns_.explained_variance_ratio_)


def test_torus_variance_follows_its_definition(fitted_t3):
    proj = fitted_t3.projections_
    manual = [np.sum(torus_distance(proj[k - 1], proj[k]) ** 2) for k in range(1, 4)]
    np.testing.assert_allclose(fitted_t3.torus_explained_variance_, manual)
    # x̂^(0) is the prediction of the backwards mean: one point for every sample.
    assert np.ptp(proj[0], axis=0).max() == 0.0


def test_transform_of_training_data_matches_scores(fitted_t3, clusters_t3):
    scores = fitted_t3.transform(clusters_t3.angles)
    assert np.median(np.abs(scores - fitted_t3.scores_)) < 1e-3


def test_new_points_are_scored_into_their_cluster(fitted_t3, clusters_t3):
    fresh = make_demo("clusters-t3", random_state=7)
    pc1_new = fitted_t3.transform(fresh.angles)[:, 0]
    pc1 = fitted_t3.scores_[:, 0]
    for k in range(3):
        lo, hi = pc1[clusters_t3.labels == k].min(), pc1[clusters_t3.labels == k].max()
        inside = np.mean((pc1_new[fresh.labels == k] >= lo - 0.1)
                         & (pc1_new[fresh.labels == k] <= hi + 0.1))
        assert inside > 0.95


def test_inverse_transform_lands_on_the_predictions(fitted_t3):
    angles = fitted_t3.inverse_transform(fitted_t3.scores_[:20])
    np.testing.assert_allclose(
        torus_distance(angles, fitted_t3.projections_[-1][:20]), 0.0, atol=1e-4)


def test_invariance_under_torus_rotation(clusters_t3, fitted_t3):
    shift = np.array([1.0, -2.0, 0.5])
    moved = ScaledTorusPCA(random_state=0).fit(clusters_t3.angles + shift)
    np.testing.assert_allclose(moved.explained_variance_ratio_,
                               fitted_t3.explained_variance_ratio_, atol=1e-4)
    np.testing.assert_allclose(np.abs(moved.scores_[:, 0]), np.abs(fitted_t3.scores_[:, 0]),
                               atol=1e-3)
    # The principal curve moves with the data.
    back = wrap_angles(moved.principal_curve_.angles - shift)
    gaps = [torus_distance(back, p).min() for p in fitted_t3.principal_curve_.angles]
    assert np.max(gaps) < 0.05


def test_progress_reports_every_stage(clusters_t3):
    events = []
    ScaledTorusPCA(random_state=0).fit(clusters_t3.angles, callback=events.append)
    stages = [e.stage for e in events]
    order = ["smds-start", "smds", "pns", "curve", "torus-variance", "done"]
    assert [s for i, s in enumerate(stages) if i == 0 or stages[i - 1] != s] == order
    smds_events = [e for e in events if e.stage == "smds" and e.iteration > 0]
    assert smds_events and all(np.isfinite(e.stress) for e in smds_events)
    fractions = [e.fraction for e in events if e.stage == "torus-variance"]
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0, abs=0.01)


@pytest.mark.parametrize("stage", ["smds", "pns", "torus-variance"])
def test_cancel_raises_and_leaves_no_fitted_state(clusters_t3, stage):
    model = ScaledTorusPCA(random_state=0)
    with pytest.raises(FitCancelled):
        model.fit(clusters_t3.angles,
                  callback=lambda e: e.stage == stage and (stage != "smds" or e.iteration >= 2))
    assert not hasattr(model, "scores_")


def test_prediction_inverts_an_isometric_fit():
    # On T¹ the SMDS fit is an isometry, so T̃ recovers the angles and T̂ the unit vectors.
    angles = np.random.default_rng(0).uniform(-np.pi, np.pi, (120, 1))
    smds = SphericalMDS(random_state=0).fit(angles)
    match = SMDSMatch(smds.angles_, smds.embedding_, smds.radius_)
    predicted, stress = match.predict(smds.embedding_)
    np.testing.assert_allclose(torus_distance(predicted, angles), 0.0, atol=1e-6)
    assert stress.max() < 1e-10
    units, _ = match.interpolate(angles + 2 * np.pi)
    np.testing.assert_allclose(np.sum(units * smds.embedding_, axis=1), 1.0, atol=1e-10)
    # New points in between are placed consistently: a point at angle a maps back to a.
    new = np.array([[0.123], [-2.5], [3.0]])
    there, _ = match.interpolate(new)
    back, _ = match.predict(there)
    np.testing.assert_allclose(torus_distance(back, new), 0.0, atol=1e-6)


def test_prediction_rejects_bad_queries(fitted_t3):
    match = fitted_t3.match_
    with pytest.raises(ValueError, match="coordinates"):
        match.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="zero vector"):
        match.predict(np.zeros((1, 4)))
    with pytest.raises(ValueError, match="angles"):
        match.interpolate(np.ones((2, 2)))
    with pytest.raises(ValueError, match="row 1, column 0"):
        match.interpolate(np.array([[0.0, 0.0, 0.0], [np.nan, 0.0, 0.0]]))


def test_curve_breaks_flag_jumps_only():
    t = np.linspace(-np.pi, np.pi, 50, endpoint=False)
    diagonal = wrap_angles(np.column_stack([t, t + 0.3]))  # closed curve crossing the seam
    assert not closed_curve_breaks(diagonal, 2 * np.pi * np.sqrt(2) / 50).any()
    jumped = diagonal.copy()
    jumped[20:, 1] = wrap_angles(jumped[20:, 1] + 2.0)  # a jump between points 19 and 20
    breaks = closed_curve_breaks(jumped, 2 * np.pi * np.sqrt(2) / 50)
    assert breaks[19] and breaks[49] and breaks.sum() == 2


@pytest.mark.parametrize("params, data, message", [
    ({}, np.array([[0.0, np.nan], [1.0, 2.0], [0.5, 0.1]]), "row 0, column 1"),
    ({"n_curve_points": 2}, None, "n_curve_points"),
    ({"pns_mode": "huge"}, None, "mode"),
])
def test_bad_input(params, data, message, clusters_t3):
    with pytest.raises(ValueError, match=message):
        ScaledTorusPCA(**params).fit(clusters_t3.angles if data is None else data)


def test_not_fitted():
    with pytest.raises(RuntimeError, match="not fitted"):
        ScaledTorusPCA().transform(np.zeros((3, 2)))
