"""The torus variance of the first components (``prediction/torus_variance.py``): the same
numbers as the full computation where every component is computed, the reduction against
the full computation at high d, the sampling error, and the angles that carry a component
(``angle_contributions_``)."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.core import ScaledTorusPCA, make_demo
from stpca_gui.core.prediction.projections import nested_variance, predict_projections
from stpca_gui.core.prediction.torus_variance import (
    auxiliary_ratio_estimates,
    estimate_torus_variance,
    ratio_standard_errors,
    score_auxiliary,
    torus_variance_components,
    torus_variance_levels,
)
from stpca_gui.core.torsion_states import make_torsion_states


def test_components_cover_the_sphere_variance_up_to_the_cap():
    ratio = np.array([0.9, 0.05, 0.03, 0.015, 0.004, 0.001])
    assert torus_variance_components(ratio, max_components=10) == 6  # d ≤ cap: all
    assert torus_variance_components(ratio, max_components=5) == 4  # 99 % after 4
    assert torus_variance_components(ratio, max_components=2) == 2
    assert torus_variance_components(np.array([1.0, 0, 0, 0]), max_components=3) == 1
    assert list(torus_variance_levels(6, 4)) == [0, 1, 2, 3, 4, 6]
    assert list(torus_variance_levels(4, 4)) == [0, 1, 2, 3, 4]


def test_every_component_is_the_paper_computation():
    demo = make_demo("clusters-t3", random_state=0)
    model = ScaledTorusPCA(random_state=0).fit(demo.angles)
    full = predict_projections(model.pns_, model.match_, model.scores_, model.angles_)
    expected = nested_variance(full)
    np.testing.assert_array_equal(model.projections_, full)
    np.testing.assert_array_equal(model.torus_explained_variance_, expected)
    np.testing.assert_array_equal(model.torus_explained_variance_ratio_,
                                  expected / expected.sum())
    assert model.torus_variance_components_ == 3
    assert model.torus_remaining_variance_ratio_ == 0.0
    np.testing.assert_array_equal(model.torus_explained_variance_ratio_se_, 0.0)
    assert model.torus_variance_indices_ is None
    np.testing.assert_allclose(model.angle_contributions_.sum(axis=1), 1.0, rtol=1e-12)


@pytest.fixture(scope="module")
def moving_fit() -> tuple[ScaledTorusPCA, np.ndarray]:
    """T²⁰ frames where 2 of 10 residues change basin between the states; the moving
    torsions are those whose state means differ by more than 30° (a residue moving
    between the α and PPII basins keeps its φ within 12°)."""
    data = make_torsion_states(400, 20, moving_fraction=0.2, random_state=3)
    means = np.array([np.angle(np.exp(1j * data.angles[data.labels == s]).mean(axis=0))
                      for s in range(3)])
    spread = np.abs(np.angle(np.exp(1j * (means - means[0])))).max(axis=0)
    # Every one of the 400 samples (as for n up to the first sample), so that the first
    # components can be compared with the paper's computation on the same samples.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("stpca_gui.core.stpca.TORUS_VARIANCE_FIRST_SAMPLE", 400)
        model = ScaledTorusPCA(random_state=0, pns_mode="great",
                               max_torus_components=4).fit(data.angles)
    return model, np.flatnonzero(spread > np.radians(30))


def test_angle_contributions_name_the_moving_torsions(moving_fit):
    model, moving = moving_fit
    assert 2 <= moving.size <= 4
    shares = model.angle_contributions_
    assert shares.shape == (model.torus_variance_components_, 20)
    np.testing.assert_allclose(shares.sum(axis=1), 1.0, rtol=1e-12)
    first = np.argsort(-shares[0])[:moving.size]
    assert sorted(first) == sorted(moving)
    # The principal curve's range in each angle (the cheap view) finds them too.
    ranges = model.principal_curve_.angle_ranges()
    assert sorted(np.argsort(-ranges)[:moving.size]) == sorted(moving)


def test_first_components_against_every_component(moving_fit):
    # K < d: the first K ratios and the remaining one against the paper's computation of
    # all d components on the same (all) samples.
    model, _ = moving_fit
    k = model.torus_variance_components_
    assert 1 <= k < 20 and model.torus_variance_indices_ is None
    assert not hasattr(model, "projections_")
    full = nested_variance(predict_projections(model.pns_, model.match_, model.scores_,
                                               model.angles_))
    # Level K starts from each point's own prediction rather than from level K + 1, and T̃
    # has many nearby local minima at high d: the same variances to within 1 % (measured:
    # 0 for the first two, 0.01 % and 0.6 % for the next).
    np.testing.assert_allclose(model.torus_explained_variance_[:k], full[:k], rtol=0.01)
    assert np.all(np.isnan(model.torus_explained_variance_[k:]))
    # The remaining term is the residual, one jump from the projection onto S^K to the
    # point's own prediction, not the sum of the 16 steps between (each step adds the
    # jitter of T̃'s nearby minima): measured here 10 % below their sum, which puts PNS1's
    # share at 61.9 % instead of the paper decomposition's 60.0 %.
    assert model.torus_remaining_variance_ == pytest.approx(full[k:].sum(), rel=0.15)
    assert model.torus_explained_variance_ratio_[0] == pytest.approx(
        full[0] / full.sum(), abs=0.03)
    total = model.torus_explained_variance_[:k].sum() + model.torus_remaining_variance_
    np.testing.assert_allclose(model.torus_explained_variance_ratio_[:k],
                               model.torus_explained_variance_[:k] / total, rtol=1e-12)


def test_ratio_standard_error_matches_repeated_sampling():
    rng = np.random.default_rng(0)
    population = np.column_stack([rng.gamma(2.0, 1.0, 5000), rng.gamma(0.5, 0.2, 5000),
                                  rng.gamma(0.3, 0.1, 5000)])
    truth = population.sum(axis=0) / population.sum()
    ratios, errors = [], []
    for _ in range(400):
        rows = rng.choice(5000, size=500, replace=False)
        ratio, se = ratio_standard_errors(population[rows], 5000)
        ratios.append(ratio)
        errors.append(se)
    spread = np.std(ratios, axis=0)
    np.testing.assert_allclose(np.mean(errors, axis=0), spread, rtol=0.15)
    # Unbiased to within the error of the mean of 400 replicates (3 standard errors).
    assert np.all(np.abs(np.mean(ratios, axis=0) - truth) <= 3 * spread / np.sqrt(400))
    # Every unit in the sample: no sampling error.
    assert np.all(ratio_standard_errors(population, 5000)[1] == 0.0)


def test_auxiliary_ratio_estimates_match_repeated_sampling():
    # Terms nearly proportional to an auxiliary known for every unit (as torus steps follow
    # the squared PNS scores): the stated errors match the spread of 400 repeated samples,
    # the estimates are unbiased, the errors are far below those without the auxiliary,
    # and with every unit sampled the totals are the sums.
    rng = np.random.default_rng(1)
    auxiliary = np.column_stack([rng.gamma(2.0, 1.0, 5000), rng.gamma(0.5, 0.2, 5000),
                                 rng.gamma(0.3, 0.1, 5000)])
    population = auxiliary * rng.uniform(0.8, 1.2, auxiliary.shape) * [1.0, 2.0, 0.5]
    totals = auxiliary.sum(axis=0)
    truth = population.sum(axis=0) / population.sum()
    ratios, errors, plain = [], [], []
    for _ in range(400):
        rows = rng.choice(5000, size=300, replace=False)
        _, ratio, se = auxiliary_ratio_estimates(population[rows], auxiliary[rows], totals,
                                                 5000)
        ratios.append(ratio)
        errors.append(se)
        plain.append(ratio_standard_errors(population[rows], 5000)[1])
    spread = np.std(ratios, axis=0)
    np.testing.assert_allclose(np.mean(errors, axis=0), spread, rtol=0.15)
    assert np.all(np.abs(np.mean(ratios, axis=0) - truth) <= 3 * spread / np.sqrt(400))
    assert np.all(np.mean(errors, axis=0) < 0.3 * np.mean(plain, axis=0))
    whole, ratio, se = auxiliary_ratio_estimates(population, auxiliary, totals, 5000)
    np.testing.assert_allclose(whole, population.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(ratio, truth, rtol=1e-12)
    assert np.all(se == 0.0)


def test_sampled_estimate_stops_at_the_target_and_states_its_error(moving_fit):
    model, _ = moving_fit
    k = model.torus_variance_components_
    order = np.random.default_rng(5).permutation(400)
    args = (model.pns_, model.match_, model.angles_, model.scores_, k)
    everyone = estimate_torus_variance(*args)
    sampled = estimate_torus_variance(*args, sample_order=order, sample_sizes=[100, 200, 400],
                                      target_se=0.02)
    assert sampled.sample is not None and sampled.sample.size in (100, 200)
    assert np.all(sampled.ratio_se <= 0.02) and np.all(sampled.ratio_se > 0)
    assert np.all(np.abs(sampled.ratio - everyone.ratio) <= 4 * sampled.ratio_se + 1e-9)
    complete = estimate_torus_variance(*args, sample_order=order, sample_sizes=[100, 400],
                                       target_se=1e-9)
    assert complete.sample.size == 400 and np.all(complete.ratio_se == 0.0)
    np.testing.assert_allclose(complete.ratio, everyone.ratio, rtol=1e-9)
    # With the squared scores as auxiliary: within the stated error of every sample's
    # ratios, the same ratios when every sample is used.
    auxiliary = score_auxiliary(model.scores_, k)
    assisted = estimate_torus_variance(*args, sample_order=order, sample_sizes=[100, 200, 400],
                                       target_se=0.02, auxiliary=auxiliary)
    assert assisted.sample.size in (100, 200) and np.all(assisted.ratio_se > 0)
    assert np.all(np.abs(assisted.ratio - everyone.ratio) <= 4 * assisted.ratio_se + 1e-9)
    assisted_all = estimate_torus_variance(*args, sample_order=order, sample_sizes=[400],
                                           auxiliary=auxiliary)
    np.testing.assert_allclose(assisted_all.ratio, everyone.ratio, rtol=1e-9)
    assert np.all(assisted_all.ratio_se == 0.0)


def test_loose_prediction_tolerance_agrees_with_the_default(moving_fit):
    # The fit's looser T̃ tolerance for the first components' torus variance moves no
    # ratio by more than 0.01 point against T̃'s default tolerance, on every sample.
    from stpca_gui.core.prediction.torus_variance import TORUS_VARIANCE_PREDICTION_TOL

    model, _ = moving_fit
    k = model.torus_variance_components_
    args = (model.pns_, model.match_, model.angles_, model.scores_, k)
    default = estimate_torus_variance(*args)
    loose = estimate_torus_variance(*args, tol=TORUS_VARIANCE_PREDICTION_TOL)
    assert k < model.n_features_in_
    np.testing.assert_allclose(loose.ratio, default.ratio, rtol=0, atol=1e-4)
    assert abs(loose.remaining_ratio - default.remaining_ratio) <= 1e-4
