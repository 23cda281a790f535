"""Spherical MDS: known truths, invariances, gradients, numerics and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.core import FitCancelled, SphericalMDS, make_demo, torus_pdist, wrap_angles
from stpca_gui.core.geometry.angle_math import atan2_nonneg
from stpca_gui.core.smds.classical import classical_mds, normalize_rows
from stpca_gui.core.smds.stress import PairStress


def reference_stress(angles: np.ndarray, units: np.ndarray, radius: float) -> float:
    """Eq. (smds3) by brute force over the full n×n matrices, independent of the kernel."""
    n = len(angles)
    torus = torus_pdist(angles)
    sphere = np.arccos(np.clip(units @ units.T, -1.0, 1.0))
    off_diagonal = ~np.eye(n, dtype=bool)
    return float(np.sum((torus - radius * sphere)[off_diagonal] ** 2) / (n * (n - 1)))


def random_units(n: int, p: int, seed: int) -> np.ndarray:
    return normalize_rows(np.random.default_rng(seed).standard_normal((n, p)),
                          np.random.default_rng(0))


@pytest.fixture(scope="module")
def fitted_t3(clusters_t3):
    return SphericalMDS(random_state=0).fit(clusters_t3.angles)


def test_circle_is_mapped_isometrically():
    # T¹ and S¹ are the same circle: the optimum is an isometry with radius 1.
    angles = np.random.default_rng(3).uniform(-np.pi, np.pi, (150, 1))
    for init in ("auto", "cmds", "random"):
        smds = SphericalMDS(init=init, random_state=1).fit(angles)
        assert smds.stress_ < 1e-10, init
        assert smds.radius_ == pytest.approx(1.0, abs=1e-6), init
        assert smds.converged_, init


def test_reported_stress_matches_brute_force(fitted_t3, clusters_t3):
    expected = reference_stress(clusters_t3.angles, fitted_t3.embedding_, fitted_t3.radius_)
    assert fitted_t3.stress_ == pytest.approx(expected, rel=1e-9)


def test_fitted_attributes_are_consistent(fitted_t3, clusters_t3):
    n, d = clusters_t3.angles.shape
    assert fitted_t3.embedding_.shape == (n, d + 1)
    np.testing.assert_allclose(np.linalg.norm(fitted_t3.embedding_, axis=1), 1.0, atol=1e-12)
    assert fitted_t3.stress_ < fitted_t3.initial_stress_
    assert fitted_t3.n_iter_ > 0 and fitted_t3.converged_ and not fitted_t3.cancelled_
    assert fitted_t3.initial_radius_ == pytest.approx(1.887, abs=0.01)  # r* for d = 3


def test_radius_is_the_closed_form_optimum(fitted_t3, clusters_t3):
    # For a fixed configuration the stress is a parabola in r with vertex Σδθ / Σθ².
    angles, units, r = clusters_t3.angles, fitted_t3.embedding_, fitted_t3.radius_
    at_optimum = reference_stress(angles, units, r)
    assert at_optimum < reference_stress(angles, units, r * 1.001)
    assert at_optimum < reference_stress(angles, units, r * 0.999)


@pytest.mark.parametrize("name, bound", [("clusters-t2", 0.0065), ("clusters-t3", 0.018),
                                          ("wrapped-normal-t2", 0.078)])
def test_converged_stress_beats_paper_by_far(name, bound):
    smds = SphericalMDS(random_state=0).fit(make_demo(name, random_state=0).angles)
    assert smds.stress_ <= bound


@pytest.mark.parametrize("name, paper_stress, paper_radius", [
    ("clusters-t2", 0.068, 1.35), ("clusters-t3", 0.064, 1.63), ("wrapped-normal-t2", 0.159, 1.39),
])
def test_paper_optimizer_reproduces_published_values(name, paper_stress, paper_radius):
    # The paper averaged 50 simulations; three seeds already land within ~15 %.
    fits = [SphericalMDS(optimizer="paper").fit(make_demo(name, random_state=s).angles)
            for s in range(3)]
    stress = np.mean([f.stress_ for f in fits])
    radius = np.mean([f.radius_ for f in fits])
    assert stress == pytest.approx(paper_stress, rel=0.15)
    assert radius == pytest.approx(paper_radius, abs=0.05)
    assert all(1 <= f.n_iter_ <= 4 for f in fits)  # reltol 5e-2 stops after a few steps
    converged = SphericalMDS().fit(make_demo(name, random_state=0).angles)
    assert converged.stress_ < 0.5 * fits[0].stress_


def test_initial_radius_sets_the_start_of_the_estimate(clusters_t3):
    paper = SphericalMDS(optimizer="paper", initial_radius="paper").fit(clusters_t3.angles)
    assert round(paper.initial_radius_, 2) == 1.79  # the paper's r* on T³
    exact = SphericalMDS(optimizer="paper").fit(clusters_t3.angles)
    assert exact.initial_radius_ > paper.initial_radius_ + 0.05
    given = SphericalMDS(optimizer="paper", initial_radius=1.7).fit(clusters_t3.angles)
    assert given.initial_radius_ == 1.7
    fixed = SphericalMDS(radius=2.0, initial_radius=1.7).fit(clusters_t3.angles)
    assert fixed.initial_radius_ == fixed.radius_ == 2.0  # a fixed radius ignores it
    with pytest.raises(ValueError, match="initial_radius"):
        SphericalMDS(initial_radius="wasser").fit(clusters_t3.angles)


def test_stress_invariant_under_torus_rotation(clusters_t3):
    base = SphericalMDS(random_state=0).fit(clusters_t3.angles)
    shifted = SphericalMDS(random_state=0).fit(clusters_t3.angles + np.array([2.5, -1.0, 4.0]))
    assert shifted.stress_ == pytest.approx(base.stress_, rel=1e-6)
    assert shifted.radius_ == pytest.approx(base.radius_, rel=1e-6)


def test_stress_invariant_under_column_permutation(clusters_t3):
    base = SphericalMDS(random_state=0).fit(clusters_t3.angles)
    permuted = SphericalMDS(random_state=0).fit(clusters_t3.angles[:, [2, 0, 1]])
    assert permuted.stress_ == pytest.approx(base.stress_, rel=1e-6)


def test_sphere_distances_invariant_under_torus_reflection(clusters_t3):
    # x -> -x is an isometry of the torus: the fitted pairwise sphere geometry is the same.
    base = SphericalMDS(random_state=0).fit(clusters_t3.angles)
    mirrored = SphericalMDS(random_state=0).fit(-clusters_t3.angles)
    assert mirrored.stress_ == pytest.approx(base.stress_, rel=1e-5)


@pytest.mark.parametrize("radius", [None, 1.7])
@pytest.mark.parametrize("d", [1, 3, 8, 20])
def test_gradient_matches_finite_differences(radius, d):
    # d = 20 runs the Gram-block path (stress.GRAM_MIN_DIMS), the others the scalar kernel.
    rng = np.random.default_rng(d)
    angles = wrap_angles(rng.uniform(-4, 4, (40, d)))
    objective = PairStress(angles)
    free = rng.standard_normal((40, d + 1)) * rng.uniform(0.5, 2.0, (40, 1))
    value, grad, _, _ = objective.value_and_gradient(free, radius)
    direction = rng.standard_normal(free.shape)
    step = 1e-6
    plus, _, _, _ = objective.value_and_gradient(free + step * direction, radius)
    minus, _, _, _ = objective.value_and_gradient(free - step * direction, radius)
    numeric = (plus - minus) / (2 * step)
    assert np.sum(grad * direction) == pytest.approx(numeric, rel=1e-6)
    # The stress only depends on directions, so the gradient is orthogonal to each z_i.
    np.testing.assert_allclose(np.sum(grad * free, axis=1), 0.0, atol=1e-12)
    assert value == pytest.approx(
        reference_stress(angles, normalize_rows(free, rng), objective.parts(
            normalize_rows(free, rng), gradient=False).optimal_radius()
            if radius is None else radius), rel=1e-10)


@pytest.mark.parametrize("d", [20, 66])
def test_gram_path_matches_the_scalar_kernel(monkeypatch, d):
    from stpca_gui.core.smds import stress

    assert d >= stress.GRAM_MIN_DIMS
    rng = np.random.default_rng(d)
    angles = wrap_angles(rng.uniform(-4, 4, (150, d)))
    angles[7] = angles[3]  # a coincident pair: no direction, zero gradient on both paths
    free = rng.standard_normal((150, d + 1))
    free[7] = free[3]
    units = normalize_rows(free, rng)
    gram = PairStress(angles)
    monkeypatch.setattr(stress, "GRAM_MIN_DIMS", 10**9)
    scalar = PairStress(angles)
    assert gram._gram is not None and scalar._gram is None
    a, b = gram.parts(units), scalar.parts(units)
    for name in ("sum_dd", "sum_dt", "sum_tt"):
        assert getattr(a, name) == pytest.approx(getattr(b, name), rel=1e-13)
    for name in ("grad_dt", "grad_tt"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=0,
                                   atol=1e-12 * np.max(np.abs(getattr(b, name))))
    for radius in (None, 2.5):
        va, ga, ra, _ = gram.value_and_gradient(free, radius)
        vb, gb, rb, _ = scalar.value_and_gradient(free, radius)
        assert va == pytest.approx(vb, rel=1e-12) and ra == pytest.approx(rb, rel=1e-13)
        np.testing.assert_allclose(ga, gb, rtol=0, atol=1e-12 * np.max(np.abs(gb)))
    assert np.all(np.isfinite(ga))


def test_kernel_angle_is_accurate_near_zero_and_pi():
    for theta in (1e-12, 1e-7, 0.3, np.pi / 2, np.pi - 1e-7, np.pi - 1e-12):
        a, b = 2 * np.sin(theta / 2), 2 * np.cos(theta / 2)
        assert 2 * atan2_nonneg(a, b) == pytest.approx(theta, rel=1e-14, abs=1e-15)
    angles = np.zeros((2, 1))
    angles[1, 0] = 1.0
    for theta in (1e-9, np.pi - 1e-9):
        units = np.array([[1.0, 0.0], [np.cos(theta), np.sin(theta)]])
        parts = PairStress(angles).parts(units)
        assert np.sqrt(parts.sum_tt) == pytest.approx(theta, rel=1e-12)
        assert np.all(np.isfinite(parts.grad_dt)) and np.all(np.isfinite(parts.grad_tt))


def test_duplicate_points_give_finite_results():
    rng = np.random.default_rng(5)
    distinct = rng.uniform(-np.pi, np.pi, (30, 3))
    angles = np.repeat(distinct, 4, axis=0)  # every point four times, like the sunspots data
    smds = SphericalMDS(random_state=0).fit(angles)
    assert np.isfinite(smds.stress_) and np.all(np.isfinite(smds.embedding_))
    groups = smds.embedding_.reshape(30, 4, 4)
    spread = np.max(np.linalg.norm(groups - groups[:, :1], axis=2))
    assert spread < 1e-8  # duplicates stay on one sphere point
    assert smds.stress_ == pytest.approx(
        reference_stress(angles, smds.embedding_, smds.radius_), rel=1e-8)


def test_clusters_stay_separated_on_the_sphere(fitted_t3, clusters_t3):
    labels = clusters_t3.labels
    centres = np.array([fitted_t3.embedding_[labels == k].mean(axis=0) for k in range(3)])
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    nearest = np.argmax(fitted_t3.embedding_ @ centres.T, axis=1)
    assert np.all(nearest == labels)
    within = max(np.max(np.arccos(np.clip(fitted_t3.embedding_[labels == k] @ centres[k], -1, 1)))
                 for k in range(3))
    between = np.min(np.arccos(np.clip(centres @ centres.T, -1, 1))[~np.eye(3, dtype=bool)])
    assert between > 2 * within


def test_fixed_radius_is_kept(clusters_t3):
    smds = SphericalMDS(radius=1.2, random_state=0).fit(clusters_t3.angles)
    assert smds.radius_ == 1.2 and smds.initial_radius_ == 1.2
    assert smds.stress_ == pytest.approx(
        reference_stress(clusters_t3.angles, smds.embedding_, 1.2), rel=1e-9)
    free = SphericalMDS(random_state=0).fit(clusters_t3.angles)
    assert free.stress_ < smds.stress_


def test_restarts_keep_the_lowest_stress():
    angles = make_demo("clusters-t2", random_state=0).angles
    single = SphericalMDS(init="cmds", random_state=0).fit(angles)
    several = SphericalMDS(init="cmds", n_init=4, random_state=0).fit(angles)
    assert several.stress_ <= single.stress_ + 1e-12


def test_spherical_start_beats_euclidean_start_on_clusters_t2():
    angles = make_demo("clusters-t2", random_state=0).angles
    rng = np.random.default_rng(0)
    objective = PairStress(wrap_angles(angles))
    euclidean = objective.stress(classical_mds(wrap_angles(angles), 3, rng))
    spherical = objective.stress(classical_mds(wrap_angles(angles), 3, rng, sphere_radius=1.5))
    assert spherical < euclidean


def test_array_init_is_used(clusters_t3):
    start = SphericalMDS(random_state=0).fit(clusters_t3.angles).embedding_
    again = SphericalMDS(init=start * 3.0, random_state=0).fit(clusters_t3.angles)
    assert again.n_iter_ <= 10  # already at an optimum


@pytest.mark.parametrize("stop", ["return", "raise"])
def test_callback_cancels_and_keeps_best_state(clusters_t3, stop):
    seen: list[tuple[int, float]] = []

    def callback(iteration: int, stress: float) -> bool:
        seen.append((iteration, stress))
        if iteration >= 3:
            if stop == "raise":
                raise FitCancelled
            return True
        return False

    smds = SphericalMDS(random_state=0).fit(clusters_t3.angles, callback=callback)
    assert smds.cancelled_ and not smds.converged_
    assert [i for i, _ in seen] == [1, 2, 3]
    assert smds.n_iter_ == 3
    assert smds.stress_ <= seen[-1][1] + 1e-12
    assert smds.stress_ < smds.initial_stress_
    assert np.all(np.isfinite(smds.embedding_))


def test_paper_optimizer_can_be_cancelled(clusters_t3):
    smds = SphericalMDS(optimizer="paper").fit(clusters_t3.angles, callback=lambda i, s: True)
    assert smds.cancelled_ and smds.n_iter_ == 1


@pytest.mark.parametrize("data, message", [
    (np.array([[0.1, np.nan], [0.2, 0.3], [1.0, 2.0]]), "row 0, column 1"),
    (np.array([[0.1, 0.2], [0.2, 0.3], [1.0, np.inf]]), "row 2, column 1"),
    (np.ones((2, 2)), "at least 3"),
    (np.ones((5, 0)), "no columns"),
    (np.ones(5), "2-D"),
    (np.ones((4, 2, 2)), "2-D"),
    (np.full((6, 2), 1.0) + np.array([0.0, 2 * np.pi]), "same point"),
    ([["a", "b"], ["c", "d"], ["e", "f"]], "numeric"),
])
def test_bad_input_is_reported_clearly(data, message):
    with pytest.raises(ValueError, match=message):
        SphericalMDS().fit(data)


@pytest.mark.parametrize("params, message", [
    ({"radius": -1.0}, "radius"), ({"radius": "big"}, "radius"),
    ({"optimizer": "adam"}, "optimizer"), ({"n_init": 0}, "n_init"),
    ({"max_iter": 0}, "max_iter"), ({"tol": 0.0}, "tol"), ({"init": "pca"}, "init"),
    ({"init": np.ones((3, 3))}, "shape"),
])
def test_bad_parameters_are_reported_clearly(params, message):
    angles = make_demo("clusters-t2", random_state=0).angles
    with pytest.raises(ValueError, match=message):
        SphericalMDS(**params).fit(angles)


def test_high_dimensional_torus():
    # Torsion-angle data routinely have d = 7 or more.
    rng = np.random.default_rng(2)
    centres = rng.uniform(-np.pi, np.pi, (2, 9))
    angles = np.vstack([c + 0.2 * rng.standard_normal((40, 9)) for c in centres])
    smds = SphericalMDS(random_state=0).fit(angles)
    assert smds.embedding_.shape == (80, 10)
    assert smds.stress_ < smds.initial_stress_
    assert smds.stress_ == pytest.approx(
        reference_stress(wrap_angles(angles), smds.embedding_, smds.radius_), rel=1e-9)


def test_leading_eigenpairs_match_a_dense_solver():
    from stpca_gui.core.smds.classical import leading_eigenpairs

    rng = np.random.default_rng(4)
    angles = wrap_angles(rng.uniform(-np.pi, np.pi, (400, 3)))
    gram = np.cos(np.minimum(torus_pdist(angles) / 1.9, np.pi))
    values, vectors = leading_eigenpairs(gram, 4, np.random.default_rng(0), n_iter=30)
    exact = np.linalg.eigvalsh(gram)[::-1][:4]
    np.testing.assert_allclose(values, exact, rtol=1e-6)
    residual = gram @ vectors - vectors * values
    assert np.max(np.abs(residual)) < 1e-3 * values[0]
