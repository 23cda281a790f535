"""The T̂ kernel (``_prediction_kernel.interpolate_sphere``): the same minima as the kernel it
replaced (``tests/data/interpolation``, made by that kernel), reached more precisely, and
the minimisers themselves to 1e-10 against a slow extended-precision reference
(``tests/core/prediction/interpolation_reference.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from interpolation_reference import reference_placement, stationary_point_near

from stpca_gui.core.geometry.torus import torus_cdist
from stpca_gui.core.prediction import SMDSMatch
from stpca_gui.core.prediction import _prediction_kernel as kernel


@pytest.fixture(scope="module")
def reference(test_data):
    with np.load(test_data / "interpolation" / "reference.npz") as stored:
        return {key: stored[key] for key in stored.files}


def _case(reference: dict, d: int) -> tuple[SMDSMatch, np.ndarray, np.ndarray, np.ndarray]:
    match = SMDSMatch(reference[f"t{d}_angles"], reference[f"t{d}_embedding"],
                      float(reference[f"t{d}_radius"]))
    return (match, reference[f"t{d}_queries"], reference[f"t{d}_units"],
            reference[f"t{d}_stress"])


def _stress_and_gradient(match: SMDSMatch, query: np.ndarray, y: np.ndarray
                         ) -> tuple[float, np.ndarray]:
    """Mean stress of eq. (interp) at the unit vector y and its tangent gradient, in numpy
    (arccos, no rational atan), for one torus point."""
    targets = torus_cdist(query[None], match.angles)[0]
    cosine = np.clip(match.embedding @ y, -1.0, 1.0)
    theta = np.arccos(cosine)
    residual = match.radius * theta - targets
    sine = np.sqrt(1.0 - cosine**2)
    # ∇θ_i = −(ŷ_i − cos θ_i y) / sin θ_i on the tangent space at y.
    directions = -(match.embedding - cosine[:, None] * y) / sine[:, None]
    gradient = 2.0 * match.radius * (residual[:, None] * directions).mean(axis=0)
    return float(np.mean(residual**2)), gradient


@pytest.mark.parametrize("d", [4, 2])
def test_same_minima_as_the_previous_kernel(reference, d):
    match, queries, old_units, old_stress = _case(reference, d)
    units, stress = match.interpolate(queries)
    # Never a higher stress (up to rounding of a mean of m terms), and the same point: the
    # old kernel stopped within a few 1e-6 of the minimum where the stress is flat.
    assert np.all(stress <= old_stress * (1.0 + 1e-13) + 1e-15)
    same = np.isclose(stress, old_stress, rtol=1e-11, atol=0.0)
    moved = np.linalg.norm(units - old_units, axis=1)[same]
    assert moved.max() < 1e-5
    assert np.median(moved) < 1e-8
    np.testing.assert_allclose(np.linalg.norm(units, axis=1), 1.0, atol=1e-14)
    # Elsewhere (one T⁴ query of 500) the old kernel stopped at a saddle point, which the
    # kernel now leaves for a minimum: the old answer, polished by Newton's method in
    # extended precision, is a stationary point with a negative Hessian eigenvalue.
    assert np.count_nonzero(~same) <= 1
    for query, old in zip(queries[~same], old_units[~same], strict=True):
        stationary = stationary_point_near(match, query, old)
        assert stationary.gradient_norm < 1e-15
        assert stationary.hessian_eigenvalues[0] < -0.1


@pytest.mark.parametrize("d", [4, 2])
def test_answers_are_stationary_points(reference, d):
    match, queries, old_units, _ = _case(reference, d)
    units, stress = match.interpolate(queries)
    new_norms, old_norms = [], []
    for query, y, y_old, value in zip(queries, units, old_units, stress, strict=True):
        recomputed, gradient = _stress_and_gradient(match, query, y)
        assert recomputed == pytest.approx(value, rel=1e-10)
        new_norms.append(np.linalg.norm(gradient))
        old_norms.append(np.linalg.norm(_stress_and_gradient(match, query, y_old)[1]))
    # Newton's method with the exact Hessian near the minimum: gradients far below the
    # old kernel's (linear convergence where its Hessian was capped).
    # (measured: medians 9e-15 against 1e-10, 99 % 1.3e-9 against 6.7e-8 on T⁴.)
    assert np.quantile(new_norms, 0.99) < 1e-8
    assert max(new_norms) <= max(old_norms)
    assert np.median(new_norms) < 0.01 * np.median(old_norms)


def test_sphere_model_matches_numpy(reference):
    match, queries, units, _ = _case(reference, 4)
    rng = np.random.default_rng(3)
    embedding_t = np.ascontiguousarray(match.embedding.T)
    p, m = embedding_t.shape
    targets = torus_cdist(queries[:1], match.angles)[0]
    grad, outer, correction = np.empty(p), np.empty((p, p)), np.empty((p, p))
    work = np.empty((p + 4, kernel._BLOCK))
    for y in [units[0], *rng.normal(size=(5, p))]:
        y = y / np.linalg.norm(y)
        value, _, _, _ = kernel._sphere_model(y, embedding_t, match.radius, targets, grad,
                                              outer, correction, work)
        expected, gradient = _stress_and_gradient(match, queries[0], y)
        assert value == pytest.approx(expected, rel=1e-13)
        tangent = grad - (grad @ y) * y
        np.testing.assert_allclose(2.0 * tangent / m, gradient, rtol=1e-10, atol=1e-14)


def test_empty_and_single_queries(reference):
    match, queries, _, _ = _case(reference, 2)
    units, stress = match.interpolate(np.empty((0, 2)))
    assert units.shape == (0, 3) and stress.shape == (0,)
    one, _ = match.interpolate(queries[0])
    many, _ = match.interpolate(queries[:5])
    np.testing.assert_array_equal(one[0], many[0])


@pytest.mark.parametrize(("d", "count"), [(4, 200), (2, 100)])
def test_placements_equal_an_extended_precision_reference(reference, d, count):
    # The reference (scipy's Levenberg–Marquardt from the 5 nearest landmarks, the lowest
    # minimum polished by Newton's method in long double) is a stationary point to
    # ~1e-19; the kernel must reach the same minimiser to 1e-10 (measured: at most 9e-12
    # on T⁴, 5e-12 on T²; before issue 25's polish it stopped up to 1.4e-8 short where
    # rounding hid the stress decrease of its last Newton step).
    match, queries, _, _ = _case(reference, d)
    queries = queries[:count]
    units, stress = match.interpolate(queries)
    placements = [reference_placement(match, query) for query in queries]
    reference_units = np.array([placement.unit for placement in placements])
    reference_stress = np.array([placement.stress for placement in placements])
    assert max(placement.gradient_norm for placement in placements) < 1e-17
    distance = np.abs(units - reference_units).max(axis=1)
    same = distance < 1e-3
    # Another start found a lower minimum for a few points (the paper's rule starts at the
    # nearest landmark only); the kernel's is then a minimum too, never a higher stress
    # at the reference's own minimiser.
    assert np.count_nonzero(~same) <= 0.02 * count
    assert np.all(reference_stress[~same] < stress[~same])
    assert distance[same].max() < 1e-10
    np.testing.assert_allclose(stress[same], reference_stress[same], rtol=1e-13, atol=0.0)
