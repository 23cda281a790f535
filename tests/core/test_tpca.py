"""T-PCA (Eltzner, Huckemann & Mardia 2018): the deformation, the cuts, the ordering, the fit."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from stpca_gui.core import TorusGapWarning, TorusPCA, make_demo, torus_distance, wrap_angles
from stpca_gui.core.baselines import BASELINES, torus_pca
from stpca_gui.core.circstats.circular import circular_frechet_mean
from stpca_gui.core.tpca import (
    circular_spread,
    largest_gap_cuts,
    sphere_to_torus,
    spread_order,
    structural_gap_threshold,
    torus_to_sphere,
)

TWO_PI = 2 * np.pi


@pytest.fixture(scope="module")
def cloud() -> np.ndarray:
    """A correlated cloud on T³ with a different spread per angle and a gap in each."""
    rng = np.random.default_rng(11)
    raw = rng.normal(size=(300, 3)) @ np.array([[0.9, 0.0, 0.0], [0.5, 0.4, 0.0],
                                                [-0.2, 0.3, 0.25]])
    return wrap_angles(raw + np.array([2.8, -1.0, 0.4]))


def fit(angles: np.ndarray, ordering: str = "SI") -> TorusPCA:
    return TorusPCA(ordering=ordering, random_state=0).fit(angles)


# ------------------------------------------------------------------ the deformation P


@pytest.mark.parametrize("d", [1, 2, 3, 5])
def test_inverse_deformation_undoes_the_deformation(d):
    rng = np.random.default_rng(d)
    psi = rng.uniform(0.05, TWO_PI - 0.05, size=(2000, d))  # polar angles away from the poles
    psi[:, -1] = rng.uniform(0.0, TWO_PI, size=2000)  # the azimuth anywhere
    x = torus_to_sphere(psi)
    np.testing.assert_allclose(np.linalg.norm(x, axis=1), 1.0, atol=1e-14)
    back = sphere_to_torus(x)
    np.testing.assert_allclose(wrap_angles(back - psi), 0.0, atol=1e-12)
    # And P ∘ P⁻¹ is the identity on the sphere.
    y = rng.normal(size=(500, d + 1))
    y /= np.linalg.norm(y, axis=1, keepdims=True)
    np.testing.assert_allclose(torus_to_sphere(sphere_to_torus(y)), y, atol=1e-12)


def test_deformation_formulas_for_d3():
    psi = np.array([[1.0, 2.0, 3.0]])
    h1, h2, az = 0.5, 1.0, 3.0
    expected = [np.cos(h1), np.sin(h1) * np.cos(h2), np.sin(h1) * np.sin(h2) * np.cos(az),
                np.sin(h1) * np.sin(h2) * np.sin(az)]
    np.testing.assert_allclose(torus_to_sphere(psi)[0], expected, atol=1e-15)
    np.testing.assert_allclose(torus_to_sphere(np.array([[0.7]]))[0], [np.cos(0.7),
                                                                       np.sin(0.7)])


def test_inverse_is_precise_near_a_pole():
    # 1e-9 rad from the pole ψ_1 = 0: arccos would lose about half the digits here.
    psi = np.array([[2e-9, 1.0]])
    np.testing.assert_allclose(sphere_to_torus(torus_to_sphere(psi)), psi, rtol=1e-9)


# ------------------------------------------------------------------ cuts and ordering


def test_cut_is_the_midpoint_of_the_largest_gap():
    col0 = np.array([-3.0, -2.9, 0.0, 0.1, 0.2, 2.5])  # largest gap (-2.9, 0): cut -1.45
    col1 = np.array([3.0, -3.1, 2.5, 2.9, -3.0, -2.8])  # largest gap (-2.8, 2.5): cut -0.15
    cuts, gaps = largest_gap_cuts(np.column_stack([col0, col1]))
    np.testing.assert_allclose(cuts, [-1.45, -0.15], atol=1e-12)
    np.testing.assert_allclose(gaps, [2.9, 5.3], atol=1e-12)
    # The gap across ±π: the cut lands near π, on either side.
    across = largest_gap_cuts(np.array([[-2.0], [0.0], [2.0]]))
    np.testing.assert_allclose(np.cos(across[0]), -1.0, atol=1e-12)
    np.testing.assert_allclose(across[1], TWO_PI - 4.0, atol=1e-12)
    one_point = largest_gap_cuts(np.array([[1.0], [1.0], [1.0]]))
    np.testing.assert_allclose(one_point, [[1.0 - np.pi], [TWO_PI]], atol=1e-12)


def test_gap_threshold_is_the_uniform_largest_spacing_quantile():
    rng = np.random.default_rng(5)
    n = 1000
    sample = np.sort(rng.uniform(-np.pi, np.pi, size=(400, n)), axis=1)
    largest = np.max(np.diff(np.hstack([sample, sample[:, :1] + TWO_PI]), axis=1), axis=1)
    exceed = np.mean(largest > structural_gap_threshold(n))
    assert 0.02 <= exceed <= 0.09  # 0.05 in the limit; binomial sd 0.011
    with pytest.raises(ValueError, match="at least 2"):
        structural_gap_threshold(1)


def test_si_and_so_order_by_circular_spread_from_opposite_ends(cloud):
    spreads = circular_spread(cloud)
    assert len(set(np.round(spreads, 6))) == 3
    si, so = spread_order(spreads, "SI"), spread_order(spreads, "SO")
    assert np.all(np.diff(spreads[si]) > 0)  # SI: the largest spread innermost (ψ_d)
    np.testing.assert_array_equal(so, si[::-1])
    fitted_si, fitted_so = fit(cloud, "SI"), fit(cloud, "SO")
    np.testing.assert_array_equal(fitted_si.order_, si)
    np.testing.assert_array_equal(fitted_so.order_, fitted_si.order_[::-1])
    # The two orderings are different deformations: different fits.
    assert not np.allclose(fitted_si.explained_variance_ratio_,
                           fitted_so.explained_variance_ratio_)


# ------------------------------------------------------------------ known answers


def circle_data(n: int = 200) -> np.ndarray:
    """θ1 fixed, θ2 over an arc: one circle of the deformed sphere."""
    theta2 = np.linspace(-1.0, 1.5, n)
    return np.column_stack([np.full(n, 0.8), theta2])


@pytest.mark.parametrize(("ordering", "scale"), [("SI", 1.0), ("SO", 0.5)])
def test_data_on_one_circle_are_explained_by_pc1(ordering, scale):
    # SI: θ2 (the larger spread) is the azimuth ψ_2, so PNS1 is θ2 itself up to sign and
    # offset. SO: θ2 is the outer angle ψ_1, halved into a polar angle, so PNS1 is θ2 / 2.
    data = circle_data()
    model = fit(data, ordering)
    np.testing.assert_allclose(model.explained_variance_ratio_, [1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(model.torus_explained_variance_ratio_, [1.0, 0.0], atol=1e-12)
    slope, offset = np.polyfit(data[:, 1], model.scores_[:, 0], 1)
    assert abs(slope) == pytest.approx(scale, abs=1e-10)
    np.testing.assert_allclose(model.scores_[:, 0], slope * data[:, 1] + offset, atol=1e-10)
    np.testing.assert_allclose(model.scores_[:, 1], 0.0, atol=1e-10)


def test_one_angle_is_the_circle_itself():
    theta = wrap_angles(np.random.default_rng(3).vonmises(2.5, 2.0, size=200))[:, None]
    model = fit(theta)
    mean = circular_frechet_mean(theta[:, 0])
    np.testing.assert_allclose(model.scores_[:, 0], wrap_angles(theta[:, 0] - mean), atol=1e-10)
    np.testing.assert_allclose(model.torus_explained_variance_ratio_, [1.0])


# ------------------------------------------------------------------ invariances


def test_rotating_any_column_changes_nothing(cloud):
    reference = fit(cloud)
    shifts = np.array([3.0, -2.2, 1.3])  # every column's data cross ±π after the shift
    for k, shift in enumerate(shifts):
        moved = cloud.copy()
        moved[:, k] = wrap_angles(moved[:, k] + shift)
        model = fit(moved)
        np.testing.assert_allclose(model.scores_, reference.scores_, atol=1e-8)
        np.testing.assert_allclose(model.explained_variance_ratio_,
                                   reference.explained_variance_ratio_, atol=1e-10)
        np.testing.assert_allclose(model.torus_explained_variance_ratio_,
                                   reference.torus_explained_variance_ratio_, atol=1e-10)
        assert model.cuts_[k] == pytest.approx(wrap_angles(reference.cuts_[k] + shift))


@pytest.mark.parametrize("ordering", ["SI", "SO"])
def test_permuting_the_columns_changes_nothing(cloud, ordering):
    reference = fit(cloud, ordering)
    for permutation in ([2, 0, 1], [1, 0, 2]):
        model = fit(cloud[:, permutation], ordering)
        np.testing.assert_allclose(model.scores_, reference.scores_, atol=1e-12)
        np.testing.assert_allclose(model.torus_explained_variance_ratio_,
                                   reference.torus_explained_variance_ratio_, atol=1e-12)
        np.testing.assert_array_equal(np.asarray(permutation)[model.order_], reference.order_)


# ------------------------------------------------------------------ maps and ratios


def test_transform_and_inverse_transform_round_trip(cloud):
    model = fit(cloud)
    np.testing.assert_allclose(model.transform(cloud), model.scores_, atol=1e-12)
    back = model.inverse_transform(model.scores_)
    assert np.max(torus_distance(back, cloud)) < 1e-9
    new = wrap_angles(cloud[:20] + 0.05)
    assert np.max(torus_distance(model.inverse_transform(model.transform(new)), new)) < 1e-9
    assert np.all((back >= -np.pi) & (back < np.pi))


@pytest.mark.parametrize("ordering", ["SI", "SO"])
def test_ratios_sum_to_one_and_the_mean_is_on_the_torus(cloud, ordering):
    model = fit(cloud, ordering)
    for ratio in (model.torus_explained_variance_ratio_, model.explained_variance_ratio_):
        assert ratio.shape == (3,) and ratio.sum() == pytest.approx(1.0)
        assert np.all(ratio >= 0)
    assert model.torus_explained_variance_ratio_[0] > 0.8  # an elongated cloud
    # var^(1) is the spread of the PNS1 projections about the backwards mean.
    kept = np.zeros_like(model.scores_)
    kept[:, 0] = model.scores_[:, 0]
    on_circle = model.inverse_transform(kept)
    assert model.torus_explained_variance_[0] == pytest.approx(
        np.sum(torus_distance(on_circle, model.mean_) ** 2))


def test_three_clusters_are_separated_by_pc1():
    demo = make_demo("clusters-t2", random_state=0)
    model = fit(demo.angles)
    pns1 = model.scores_[:, 0]
    ranges = [(pns1[demo.labels == g].min(), pns1[demo.labels == g].max())
              for g in np.unique(demo.labels)]
    ranges.sort()
    assert all(a[1] < b[0] for a, b in itertools.pairwise(ranges))


# ------------------------------------------------------------------ gaps


def test_angles_without_a_gap_warn_and_are_recorded():
    uniform = np.random.default_rng(2).uniform(-np.pi, np.pi, size=(3000, 3))
    with pytest.warns(TorusGapWarning, match="3 angles have no data gap"):
        model = fit(uniform)
    assert not model.has_gap_.any() and "Remark 2.3" in model.gap_message_
    assert np.all(model.gaps_ < model.gap_threshold_)
    assert np.isfinite(model.torus_explained_variance_ratio_).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TorusPCA(random_state=0).fit(uniform, warn=False)  # recorded, not warned


def test_two_angles_without_a_gap_are_allowed(cloud):
    data = cloud.copy()
    data[:, :2] = np.random.default_rng(4).uniform(-np.pi, np.pi, size=(len(data), 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = fit(data)
    np.testing.assert_array_equal(model.has_gap_, [False, False, True])
    assert model.gap_message_ == ""


# ------------------------------------------------------------------ the comparison method


def test_registered_as_a_comparison_method_reporting_the_torus_variance(cloud):
    for ordering in ("SI", "SO"):
        result = BASELINES[f"T-PCA ({ordering})"](cloud)
        model = fit(cloud, ordering)
        assert result.name == f"T-PCA ({ordering})" and result.convention == "torus"
        np.testing.assert_array_equal(result.reported_ratio,
                                      model.torus_explained_variance_ratio_)
        np.testing.assert_array_equal(result.explained_variance_ratio,
                                      model.explained_variance_ratio_)
        np.testing.assert_array_equal(result.scores, model.scores_)
        assert result.components is None and result.notes == ()
    uniform = np.random.default_rng(2).uniform(-np.pi, np.pi, size=(500, 3))
    assert "no data gap" in torus_pca(uniform).notes[0]


# ------------------------------------------------------------------ bad input


def test_bad_input_is_refused_with_a_clear_message(cloud):
    data = cloud[:10].copy()
    data[4, 2] = np.nan
    with pytest.raises(ValueError, match="row 4, column 2"):
        fit(data)
    with pytest.raises(ValueError, match="2-D"):
        fit(np.zeros(5))
    with pytest.raises(ValueError, match="at least 3"):
        fit(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="same point"):
        fit(np.full((6, 3), 0.3))
    with pytest.raises(ValueError, match=r"ordering .*'SI', 'SO'.*got 'SX'"):
        TorusPCA(ordering="SX").fit(cloud)
    with pytest.raises(ValueError, match="pns_mode"):
        TorusPCA(pns_mode="medium").fit(cloud)
    with pytest.raises(RuntimeError, match="not fitted"):
        TorusPCA().transform(cloud)
    model = fit(cloud)
    with pytest.raises(ValueError, match="2 columns, the model was fitted on 3"):
        model.transform(cloud[:, :2])
    with pytest.raises(ValueError, match="scores must have shape"):
        model.inverse_transform(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="non-finite"):
        model.transform(np.full((1, 3), np.inf))
    # A refit that fails leaves the previous fit as it was.
    scores = model.scores_.copy()
    with pytest.raises(ValueError, match="same point"):
        model.fit(np.full((6, 3), 0.3))
    np.testing.assert_array_equal(model.scores_, scores)
    assert model.n_features_in_ == 3
