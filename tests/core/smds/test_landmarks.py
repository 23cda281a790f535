"""Landmark ST-PCA: choosing landmarks, placing the others by T̂, and what the fit reports."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.core import ScaledTorusPCA
from stpca_gui.core._base.progress import FitCancelled
from stpca_gui.core.demos import make_clusters
from stpca_gui.core.geometry.torus import torus_distance, wrap_angles
from stpca_gui.core.smds import landmarks as lm
from stpca_gui.core.smds.pair_stress import sampled_pair_stress
from stpca_gui.core.stpca import LANDMARK_AGREEMENT_MIN_D, LANDMARK_SINGLE_SET_MIN_D
from stpca_gui.core.torsion_states import make_torsion_states


def _circular_agreement(a: np.ndarray, b: np.ndarray, scale_a: float, scale_b: float) -> float:
    """Mean resultant length of the differences of two circle scores, up to reflection."""
    phi_a, phi_b = a / scale_a, b / scale_b
    return max(abs(np.mean(np.exp(1j * (phi_a - phi_b)))),
               abs(np.mean(np.exp(1j * (phi_a + phi_b)))))


@pytest.fixture(scope="module")
def t4_clusters() -> np.ndarray:
    means = [[-1.0, -2.0, 0.0, 1.0], [1.0, 1.0, -1.0, 2.5], [0.0, -1.0, 3.0, -2.0]]
    return make_clusters(means, n_per_cluster=[300, 200, 100], sd=0.25, random_state=4).angles


@pytest.fixture(scope="module")
def exact_and_landmark(t4_clusters):
    exact = ScaledTorusPCA(random_state=0, n_landmarks="exact").fit(t4_clusters)
    landmark = ScaledTorusPCA(random_state=0, n_landmarks=150).fit(t4_clusters)
    return exact, landmark


# ------------------------------------------------------------------ how many, which


@pytest.mark.parametrize(("asked", "n", "d", "expected"), [
    ("auto", lm.AUTO_EXACT_MAX_N, 2, None),
    ("auto", lm.AUTO_EXACT_MAX_N, 7, None),  # the paper's dimensions: as before
    ("auto", lm.AUTO_EXACT_MAX_N + 1, 4, lm.AUTO_LANDMARKS),
    ("auto", 1954, 66, None),  # n² · d within 6000² · 7
    ("auto", 1955, 66, lm.AUTO_LANDMARKS),
    ("auto", 2509, 40, None),
    ("auto", 2510, 40, lm.AUTO_LANDMARKS),
    ("auto", lm.AUTO_LANDMARKS, 426, None),  # never fewer samples than landmarks
    ("auto", lm.AUTO_LANDMARKS + 1, 426, lm.AUTO_LANDMARKS),
    ("exact", 10**6, 66, None),
    (None, 10**6, 4, None),
    (500, 10**6, 4, 500),
    (500, 500, 66, None),  # as many landmarks as samples is the exact fit
])
def test_number_of_landmarks(asked, n, d, expected):
    assert lm.resolve_n_landmarks(asked, n, d) == expected


def test_the_exact_limit_keeps_pairs_times_dimension(monkeypatch):
    """Above T⁷ an exact fit of "auto" costs no more n² · d than 6,000 points on T⁷."""
    budget = lm.AUTO_EXACT_MAX_N ** 2 * lm.AUTO_EXACT_REFERENCE_D
    for d in (8, 20, 66, 200):
        limit = lm.auto_exact_max_n(d)
        assert limit**2 * d <= budget < (limit + 1) ** 2 * d


def test_a_fit_past_the_limit_of_its_dimension_uses_landmarks(monkeypatch):
    """The estimator asks with its data's d: 96 points on T⁸ are past the limit when 100
    is the limit on T⁷ (so 93 on T⁸)."""
    monkeypatch.setattr(lm, "AUTO_EXACT_MAX_N", 100)
    monkeypatch.setattr(lm, "AUTO_LANDMARKS", 50)
    angles = np.random.default_rng(3).uniform(-np.pi, np.pi, (96, 8))
    model = ScaledTorusPCA(random_state=0, torus_variance=False, n_init=1).fit(angles)
    assert model.n_landmarks_ == 50


@pytest.mark.parametrize("method", list(lm.LANDMARK_METHODS))
def test_landmarks_are_distinct_sorted_and_reproducible(t4_clusters, method):
    first = lm.choose_landmarks(t4_clusters, 80, np.random.default_rng(1), method)
    again = lm.choose_landmarks(t4_clusters, 80, np.random.default_rng(1), method)
    other = lm.choose_landmarks(t4_clusters, 80, np.random.default_rng(2), method)
    assert first.shape == (80,) and np.unique(first).size == 80
    assert np.all(np.diff(first) > 0)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_farthest_points_reach_an_isolated_group():
    # 995 points in one tight cluster and 5 far away: random landmarks almost surely miss
    # the five, farthest-point seeding cannot.
    rng = np.random.default_rng(0)
    angles = np.vstack([rng.normal(0.0, 0.05, (995, 2)), rng.normal(3.0, 0.05, (5, 2))])
    far = np.arange(995, 1000)
    for method in ("maxmin", "mixed"):
        chosen = lm.choose_landmarks(angles, 20, np.random.default_rng(0), method)
        assert np.intersect1d(chosen, far).size >= 1, method
    maxmin = lm.choose_landmarks(angles, 20, np.random.default_rng(0), "maxmin")
    nearest = np.min(torus_distance(angles[:, None, :], angles[maxmin][None, :, :]), axis=1)
    random = lm.choose_landmarks(angles, 20, np.random.default_rng(0), "random")
    nearest_random = np.min(torus_distance(angles[:, None, :], angles[random][None, :, :]),
                            axis=1)
    assert nearest.max() < nearest_random.max()  # maxmin covers better


def test_repeated_points_still_give_distinct_landmarks():
    angles = np.repeat(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, -1.0]]), 100, axis=0)
    chosen = lm.choose_landmarks(angles, 10, np.random.default_rng(0), "maxmin")
    assert np.unique(chosen).size == 10


def test_bad_landmark_requests_name_the_problem(t4_clusters):
    with pytest.raises(ValueError, match="between 1 and n = 600"):
        lm.choose_landmarks(t4_clusters, 601, np.random.default_rng(0))
    with pytest.raises(ValueError, match="unknown landmark method"):
        lm.choose_landmarks(t4_clusters, 10, np.random.default_rng(0), "kmeans")
    with pytest.raises(ValueError, match="n_landmarks"):
        ScaledTorusPCA(n_landmarks=10).fit(t4_clusters)  # below MIN_LANDMARKS


# ------------------------------------------------------------------ the fit


def test_landmark_fit_reports_what_it_did(exact_and_landmark, t4_clusters):
    exact, landmark = exact_and_landmark
    n = len(t4_clusters)
    assert exact.landmark_indices_ is None and exact.n_landmarks_ == n
    assert exact.all_pairs_stress_ == exact.stress_
    indices = landmark.landmark_indices_
    assert landmark.n_landmarks_ == 150 and indices.shape == (150,)
    # The landmarks keep their SMDS configuration; every point lies on the unit sphere.
    np.testing.assert_array_equal(landmark.embedding_[indices], landmark.smds_.embedding_)
    np.testing.assert_allclose(np.linalg.norm(landmark.embedding_, axis=1), 1.0, atol=1e-12)
    assert landmark.interpolation_stress_.shape == (n,)
    assert np.all(landmark.interpolation_stress_[indices] == 0.0)
    assert landmark.scores_.shape == exact.scores_.shape
    assert {"landmarks", "interpolation", "stress"} <= set(landmark.timings_)
    # Three landmark sets were tried (at d = 4, below LANDMARK_AGREEMENT_MIN_D); the kept
    # one had the lowest validation stress.
    assert exact.landmark_trial_stress_ is None
    trials = landmark.landmark_trial_stress_
    assert trials.shape == (3,) and np.all(np.isfinite(trials))
    single = ScaledTorusPCA(random_state=0, n_landmarks=150, landmark_trials=1,
                            torus_variance=False).fit(t4_clusters)
    assert np.isnan(single.landmark_trial_stress_).all()
    if np.argmin(trials) == 0:  # the first set is the one a single-set fit uses
        np.testing.assert_array_equal(single.landmark_indices_, indices)
    else:
        assert not np.array_equal(single.landmark_indices_, indices)


def test_landmark_fit_agrees_with_the_exact_fit(exact_and_landmark):
    exact, landmark = exact_and_landmark
    agreement = _circular_agreement(exact.scores_[:, 0], landmark.scores_[:, 0],
                                    exact.pns_.circle_radius_, landmark.pns_.circle_radius_)
    assert agreement >= 0.99
    assert abs(landmark.explained_variance_ratio_[0]
               - exact.explained_variance_ratio_[0]) <= 0.02
    assert landmark.all_pairs_stress_ <= 1.10 * exact.stress_
    # Fitted to fewer pairs, the landmark configuration is no better on all pairs.
    assert landmark.all_pairs_stress_ >= exact.stress_ * (1 - 1e-9)


def test_all_pairs_stress_is_the_smds_stress():
    # With few samples every pair is used: the value must equal the SMDS stress exactly.
    angles = np.random.default_rng(1).uniform(-np.pi, np.pi, (80, 3))
    model = ScaledTorusPCA(random_state=0, n_landmarks="exact",
                           torus_variance=False).fit(angles)
    value = sampled_pair_stress(angles, model.embedding_, model.radius_,
                                np.random.default_rng(0))
    assert value == pytest.approx(model.stress_, rel=1e-10)
    # Sampled pairs estimate it (80 samples, 3,160 pairs; 2,000 sampled).
    estimate = sampled_pair_stress(angles, model.embedding_, model.radius_,
                                   np.random.default_rng(0), n_pairs=2_000)
    assert estimate == pytest.approx(model.stress_, rel=0.1)


def test_landmark_fit_is_invariant_to_rotations_of_the_torus(t4_clusters):
    shift = np.array([0.7, -2.0, 1.1, 3.0])
    base = ScaledTorusPCA(random_state=0, n_landmarks=100, torus_variance=False)
    fitted = base.fit(t4_clusters)
    moved = ScaledTorusPCA(**base.get_params()).fit(wrap_angles(t4_clusters + shift))
    np.testing.assert_array_equal(fitted.landmark_indices_, moved.landmark_indices_)
    agreement = _circular_agreement(fitted.scores_[:, 0], moved.scores_[:, 0],
                                    fitted.pns_.circle_radius_, moved.pns_.circle_radius_)
    assert agreement >= 0.999


def test_placing_points_can_be_cancelled(t4_clusters):
    stages = []

    def callback(event):
        stages.append(event.stage)
        return event.stage == "interpolation"

    model = ScaledTorusPCA(random_state=0, n_landmarks=100)
    with pytest.raises(FitCancelled):
        model.fit(t4_clusters, callback=callback)
    assert stages[0] == "landmarks" and stages[-1] == "interpolation"
    assert not hasattr(model, "scores_")


def test_interpolated_points_are_local_minima_of_the_stress(exact_and_landmark, t4_clusters):
    _, model = exact_and_landmark
    match = model.match_
    queries = t4_clusters[:25]
    units, stress = match.interpolate(queries)
    targets = torus_distance(queries[:, None, :], match.angles[None, :, :])
    rng = np.random.default_rng(3)
    for q in range(len(queries)):
        for _ in range(5):
            moved = units[q] + 1e-4 * rng.standard_normal(units.shape[1])
            moved /= np.linalg.norm(moved)
            theta = np.arccos(np.clip(match.embedding @ moved, -1.0, 1.0))
            assert np.mean((targets[q] - match.radius * theta) ** 2) >= stress[q] - 1e-13


def test_transform_of_placed_samples_gives_their_scores(exact_and_landmark, t4_clusters):
    # A placed sample and the same point given to transform go through the same T̂
    # against the same landmarks: the scores must be the fit's.
    _, model = exact_and_landmark
    placed = np.setdiff1d(np.arange(len(t4_clusters)), model.landmark_indices_)[::7]
    np.testing.assert_allclose(model.transform(t4_clusters[placed]), model.scores_[placed],
                               rtol=0, atol=1e-12)


def test_a_set_that_confirms_the_best_ends_the_search_from_d_8(t4_clusters, monkeypatch):
    # Three sets with stresses 1.000, 1.005, (not tried): at d ≥ 8 the second confirms the
    # first within 1 %; with 1.000, 1.050, 0.990 all three run and the third wins. At d = 4
    # every set runs whatever the stresses (low-d fits as before the rule).
    from stpca_gui.core import stpca

    def fitted(stresses, angles):
        values = iter(stresses)
        monkeypatch.setattr(stpca, "all_pairs_stress", lambda *args: next(values))
        return ScaledTorusPCA(random_state=0, n_landmarks=60, torus_variance=False,
                              landmark_trials=3).fit(angles)

    high_d = make_torsion_states(240, LANDMARK_AGREEMENT_MIN_D, random_state=0).angles
    confirmed = fitted([1.0, 1.005, 0.5], high_d)
    np.testing.assert_array_equal(np.isnan(confirmed.landmark_trial_stress_),
                                  [False, False, True])
    all_three = fitted([1.0, 1.05, 0.99], high_d)
    np.testing.assert_array_equal(all_three.landmark_trial_stress_, [1.0, 1.05, 0.99])
    assert not np.array_equal(all_three.landmark_indices_, confirmed.landmark_indices_)
    low_d = fitted([1.0, 1.005, 0.5], t4_clusters)
    np.testing.assert_array_equal(low_d.landmark_trial_stress_, [1.0, 1.005, 0.5])


def test_one_landmark_set_from_d_60(monkeypatch):
    # From LANDMARK_SINGLE_SET_MIN_D angles one set is solved, without validation
    # placements, and it is the first set the three-set search would have tried.
    from stpca_gui.core import stpca

    solved = []
    original = ScaledTorusPCA._fit_smds

    def counting(self, angles, *args):
        solved.append(angles.shape[0])
        return original(self, angles, *args)

    monkeypatch.setattr(ScaledTorusPCA, "_fit_smds", counting)
    monkeypatch.setattr(stpca, "all_pairs_stress", lambda *args: float(len(solved)))
    angles = make_torsion_states(240, LANDMARK_SINGLE_SET_MIN_D, random_state=0).angles
    model = ScaledTorusPCA(random_state=0, n_landmarks=60, torus_variance=False,
                           landmark_trials=3).fit(angles)
    assert solved == [60]
    assert np.isnan(model.landmark_trial_stress_).all()
    below = make_torsion_states(240, LANDMARK_SINGLE_SET_MIN_D - 1, random_state=0).angles
    solved.clear()
    ScaledTorusPCA(random_state=0, n_landmarks=60, torus_variance=False,
                   landmark_trials=3).fit(below)
    assert solved == [60, 60, 60]


def test_sampled_pair_stress_of_unwrapped_angles_is_that_of_the_wrapped():
    # The compiled loop over the pairs measures wrapped angles: angles given whole turns
    # away give the same estimate (to rounding), the same pairs drawn.
    rng = np.random.default_rng(2)
    angles = rng.uniform(-np.pi, np.pi, (500, 30))
    units = rng.normal(size=(500, 31))
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    turns = 2.0 * np.pi * rng.integers(-3, 4, angles.shape)
    wrapped = sampled_pair_stress(angles, units, 1.1, np.random.default_rng(4), 50_000)
    shifted = sampled_pair_stress(angles + turns, units, 1.1, np.random.default_rng(4),
                                  50_000)
    assert wrapped > 0.0
    assert shifted == pytest.approx(wrapped, rel=1e-12)


def test_sampled_pair_stress_gathers_rows_in_bounded_memory():
    # 2²⁰ + 10 random pairs on T⁶⁶: the estimate equals the direct sum over the same pairs,
    # and the gathered rows never hold more than a few small blocks (whole blocks of 2²⁰
    # pairs took 3 GB at this d).
    import tracemalloc

    from stpca_gui.core.geometry.torus import torus_distance
    from stpca_gui.core.smds.pair_stress import random_distinct_pairs, sampled_pair_stress

    rng = np.random.default_rng(0)
    angles = rng.uniform(-np.pi, np.pi, (3000, 66))
    units = rng.normal(size=(3000, 67))
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    n_pairs = (1 << 20) + 10
    tracemalloc.start()
    estimate = sampled_pair_stress(angles, units, 1.3, np.random.default_rng(1), n_pairs)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 120e6
    first, second = random_distinct_pairs(3000, n_pairs, np.random.default_rng(1))
    direct = 0.0
    for begin in range(0, n_pairs, 1 << 16):
        i, j = first[begin:begin + (1 << 16)], second[begin:begin + (1 << 16)]
        cosine = np.clip(np.sum(units[i] * units[j], axis=1), -1.0, 1.0)
        direct += np.sum((torus_distance(angles[i], angles[j]) - 1.3 * np.arccos(cosine)) ** 2)
    assert estimate == pytest.approx(direct / n_pairs, rel=1e-12)
