"""Tests for the seeded simulated data sets of the paper (section 4)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest

from stpca_gui.core.demos import (
    CLUSTER_DEMOS,
    CLUSTERS_T2_MEANS,
    CLUSTERS_T3_MEANS,
    DEFAULT_CLUSTER_SD,
    SIMULATED_DEMO_NAMES,
    DemoDataset,
    list_simulated_demos,
    make_clusters,
    make_clusters_t2,
    make_clusters_t3,
    make_demo,
    make_wrapped_normal,
    make_wrapped_normal_t2,
)
from stpca_gui.core.geometry.torus import wrap_angles

EXPECTED = {
    "clusters-t2": ((300, 2), [100, 100, 100]),
    "clusters-t3": ((300, 3), [100, 100, 100]),
    "wrapped-normal-t2": ((500, 2), [500]),
}


def circular_mean(a: np.ndarray) -> np.ndarray:
    """Column-wise circular mean direction."""
    return np.arctan2(np.sin(a).mean(axis=0), np.cos(a).mean(axis=0))


def mean_resultant_length(a: np.ndarray) -> np.ndarray:
    return np.hypot(np.sin(a).mean(axis=0), np.cos(a).mean(axis=0))


def angular_gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(wrap_angles(np.asarray(a) - np.asarray(b)))


def test_names_and_listing_agree() -> None:
    assert SIMULATED_DEMO_NAMES == ("clusters-t2", "clusters-t3", "wrapped-normal-t2")
    listed = list_simulated_demos()
    assert [name for name, _ in listed] == list(SIMULATED_DEMO_NAMES)
    assert all(isinstance(desc, str) and desc for _, desc in listed)


@pytest.mark.parametrize("name", SIMULATED_DEMO_NAMES)
def test_shapes_labels_and_range(name: str) -> None:
    ds = make_demo(name)
    shape, counts = EXPECTED[name]
    assert isinstance(ds, DemoDataset)
    assert ds.name == name
    assert ds.angles.shape == shape and ds.angles.dtype == np.float64
    assert ds.n_samples == shape[0] and ds.dim == shape[1]
    assert ds.labels.shape == (shape[0],) and np.issubdtype(ds.labels.dtype, np.integer)
    assert np.bincount(ds.labels).tolist() == counts
    assert np.all(ds.angles >= -np.pi) and np.all(ds.angles < np.pi)
    assert len(ds.column_names) == shape[1]
    assert ds.description


@pytest.mark.parametrize("name", SIMULATED_DEMO_NAMES)
def test_reproducible_and_seed_dependent(name: str) -> None:
    a, b = make_demo(name, random_state=5), make_demo(name, random_state=5)
    np.testing.assert_array_equal(a.angles, b.angles)
    np.testing.assert_array_equal(a.labels, b.labels)
    c = make_demo(name, random_state=6)
    assert not np.allclose(a.angles, c.angles)
    # Default seed is 0, and a Generator is accepted.
    np.testing.assert_array_equal(make_demo(name).angles, make_demo(name, 0).angles)
    g = make_demo(name, random_state=np.random.default_rng(5))
    np.testing.assert_array_equal(g.angles, a.angles)


def test_individual_generators_match_named_demos() -> None:
    np.testing.assert_array_equal(
        make_clusters_t2(random_state=3).angles, make_demo("clusters-t2", 3).angles
    )
    np.testing.assert_array_equal(
        make_clusters_t3(random_state=3).angles, make_demo("clusters-t3", 3).angles
    )
    np.testing.assert_array_equal(
        make_wrapped_normal_t2(random_state=3).angles, make_demo("wrapped-normal-t2", 3).angles
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    ("name", "means"), [("clusters-t2", CLUSTERS_T2_MEANS), ("clusters-t3", CLUSTERS_T3_MEANS)]
)
def test_cluster_means_and_spread(name: str, means: tuple, seed: int) -> None:
    ds = make_demo(name, random_state=seed)
    for k, mu in enumerate(means):
        pts = ds.angles[ds.labels == k]
        # Standard error of each circular mean is about 0.3 / sqrt(100) = 0.03.
        assert np.all(angular_gap(circular_mean(pts), mu) < 0.1)
        # Wrapped normal: mean resultant length exp(-sd²/2) → sd = sqrt(-2 log R).
        sd_hat = np.sqrt(-2.0 * np.log(mean_resultant_length(pts)))
        assert np.all(np.abs(sd_hat - 0.3) < 0.06)


@pytest.mark.parametrize("name", CLUSTER_DEMOS)
@pytest.mark.parametrize("sd", [0.15, 0.6])
def test_cluster_sd_sets_the_spread_it_states(name: str, sd: float) -> None:
    ds = make_demo(name, random_state=2, cluster_sd=sd)
    # The same normal draws, scaled: the unwrapped offsets from the centres are in ratio.
    default = make_demo(name, random_state=2)
    means = np.asarray(CLUSTERS_T2_MEANS if name == "clusters-t2" else CLUSTERS_T3_MEANS)
    offsets = wrap_angles(ds.angles - means[ds.labels])
    default_offsets = wrap_angles(default.angles - means[default.labels])
    np.testing.assert_allclose(offsets, default_offsets * sd / DEFAULT_CLUSTER_SD, atol=1e-12)
    for k in range(len(means)):
        sd_hat = np.sqrt(-2.0 * np.log(mean_resultant_length(ds.angles[ds.labels == k])))
        assert np.all(np.abs(sd_hat - sd) < 0.25 * sd)  # 100 points: se ≈ 7 % of sd
    assert f"cluster sd {sd:g}" in ds.description


def test_default_cluster_sd_is_stated_and_explicit_default_is_the_same_data() -> None:
    for name in CLUSTER_DEMOS:
        ds = make_demo(name, random_state=3)
        assert f"cluster sd {DEFAULT_CLUSTER_SD:g}" in ds.description
        assert "does not state" in ds.description
        explicit = make_demo(name, random_state=3, cluster_sd=DEFAULT_CLUSTER_SD)
        assert explicit.angles.tobytes() == ds.angles.tobytes()
    assert all(f"sd {DEFAULT_CLUSTER_SD:g}" in text for name, text in list_simulated_demos()
               if name in CLUSTER_DEMOS)


@pytest.mark.parametrize("value", [0, -0.3, float("nan"), float("inf"), True, "0.3", None])
def test_bad_cluster_sd_is_refused_with_a_clear_message(value: object) -> None:
    if value is None:
        assert make_demo("clusters-t2", cluster_sd=None).n_samples == 300  # the default
        return
    with pytest.raises(ValueError, match=r"cluster_sd \(the clusters' standard deviation, "
                                         r"radians\) must be a positive finite number"):
        make_demo("clusters-t2", cluster_sd=value)  # type: ignore[arg-type]


def test_cluster_sd_is_refused_for_a_demo_without_clusters() -> None:
    with pytest.raises(ValueError, match="'wrapped-normal-t2' has no clusters, so cluster_sd "
                                         "does not apply"):
        make_demo("wrapped-normal-t2", cluster_sd=0.3)
    assert make_demo("wrapped-normal-t2").n_samples == 500


def test_cluster_near_the_boundary_is_wrapped() -> None:
    # Cluster 2 of clusters-t2 is centred at θ1 = 3, 0.47 sd from π: about a third of its
    # points cross the boundary and must reappear near -π.
    ds = make_demo("clusters-t2")
    theta1 = ds.angles[ds.labels == 1, 0]
    wrapped = theta1 < 0
    assert 10 <= wrapped.sum() <= 60
    assert np.all(theta1[wrapped] < -np.pi + 1.5)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_wrapped_normal_t2_circular_statistics(seed: int) -> None:
    x = make_demo("wrapped-normal-t2", random_state=seed).angles
    # Marginals: θ1 ~ WN(-1, 2), θ2 ~ WN(0, 3); R_k = exp(-σ_kk / 2).
    rbar = mean_resultant_length(x)
    assert rbar[0] == pytest.approx(np.exp(-1.0), abs=0.08)
    assert rbar[1] == pytest.approx(np.exp(-1.5), abs=0.08)
    assert angular_gap(circular_mean(x[:, :1]), -1.0)[0] < 0.3  # SE ≈ 0.07
    # Difference θ2 - θ1 ~ WN(1, 2 + 3 - 2·2 = 1): checks the covariance, incl. its sign.
    diff = wrap_angles(x[:, 1] - x[:, 0])[:, None]
    assert angular_gap(circular_mean(diff), 1.0)[0] < 0.15
    assert mean_resultant_length(diff)[0] == pytest.approx(np.exp(-0.5), abs=0.07)
    # Sum θ1 + θ2 ~ WN(-1, 9): nearly uniform (R = exp(-4.5) ≈ 0.01).
    assert mean_resultant_length(wrap_angles(x.sum(axis=1))[:, None])[0] < 0.12


def test_custom_parameters() -> None:
    ds = make_clusters_t2(n_per_cluster=(10, 20, 30), sd=0.05, random_state=1)
    assert np.bincount(ds.labels).tolist() == [10, 20, 30]
    assert np.all(angular_gap(ds.angles[ds.labels == 2], CLUSTERS_T2_MEANS[2]) < 0.3)
    ds3 = make_clusters_t3(n_per_cluster=7, means=[(0, 0, 0), (1, 1, 1)], random_state=1)
    assert ds3.angles.shape == (14, 3) and np.bincount(ds3.labels).tolist() == [7, 7]
    wn = make_wrapped_normal_t2(n=50, mean=(0.5, 0.5), cov=[[1, 1], [1, 1]], random_state=2)
    # Singular covariance: θ1 = θ2 exactly (mod 2π).
    assert wn.angles.shape == (50, 2)
    assert np.all(angular_gap(wn.angles[:, 0], wn.angles[:, 1]) < 1e-9)
    gen = make_clusters([(0.0,)], 5, 0.1, random_state=0)
    assert gen.angles.shape == (5, 1) and gen.column_names == ("theta1",)


def test_dataset_is_immutable() -> None:
    ds = make_demo("clusters-t2")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ds.name = "other"  # type: ignore[misc]
    with pytest.raises(ValueError):
        ds.angles[0, 0] = 0.0
    with pytest.raises(ValueError):
        ds.labels[0] = 5


def test_dataset_validation_and_wrapping() -> None:
    ds = DemoDataset("x", np.array([[4.0, -4.0]]), np.array([0]), "d")
    assert np.all(ds.angles >= -np.pi) and np.all(ds.angles < np.pi)
    assert ds.column_names == ("theta1", "theta2")
    with pytest.raises(ValueError):
        DemoDataset("x", np.zeros((3, 2)), np.zeros(2, dtype=int), "d")
    with pytest.raises(ValueError):
        DemoDataset("x", np.zeros(3), np.zeros(3, dtype=int), "d")
    with pytest.raises(ValueError):
        DemoDataset("x", np.zeros((3, 2)), np.zeros(3), "d")
    with pytest.raises(ValueError):
        DemoDataset("x", np.zeros((3, 2)), np.zeros(3, dtype=int), "d", ("a",))


def test_unknown_demo_lists_valid_names() -> None:
    with pytest.raises(ValueError) as excinfo:
        make_demo("clusters-t4")
    for name in SIMULATED_DEMO_NAMES:
        assert name in str(excinfo.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda: make_clusters_t2(sd=0.0),
        lambda: make_clusters_t2(sd=float("nan")),
        lambda: make_clusters_t2(n_per_cluster=0),
        lambda: make_clusters_t2(n_per_cluster=(10, 10)),
        lambda: make_clusters_t2(means=[(0.0, 0.0, 0.0)]),
        lambda: make_clusters_t3(means=[(0.0, 0.0)]),
        lambda: make_clusters(np.zeros(3)),
        lambda: make_wrapped_normal_t2(n=0),
        lambda: make_wrapped_normal_t2(cov=[[1.0, 2.0], [2.0, 1.0]]),  # not PSD
        lambda: make_wrapped_normal_t2(cov=[[1.0, 0.5], [0.0, 1.0]]),  # not symmetric
        lambda: make_wrapped_normal_t2(mean=(0.0, 0.0, 0.0)),
        lambda: make_wrapped_normal([0.0, 0.0], np.eye(3)),
    ],
)
def test_invalid_parameters(call: Callable[[], object]) -> None:
    with pytest.raises(ValueError):
        call()
