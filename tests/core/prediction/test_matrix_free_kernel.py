"""T̂ and T̃ of high dimension (``_block_placing``, ``_matrix_free_kernel``): the minimisers of
an extended-precision reference (``tests/core/prediction/interpolation_reference.py``) to
1e-10, the same answers as the dense kernels where both run, and the same stopping
rules."""

from __future__ import annotations

import numpy as np
import pytest
from interpolation_reference import reference_placement

from stpca_gui.core.geometry.torus import torus_cdist, wrap_angles
from stpca_gui.core.prediction import SMDSMatch
from stpca_gui.core.prediction import _block_placing as block_placing
from stpca_gui.core.prediction import _matrix_free_kernel as matrix_free
from stpca_gui.core.prediction import _prediction_kernel as dense
from stpca_gui.core.prediction.prediction import MATRIX_FREE_MIN_D
from stpca_gui.core.smds.smds import SphericalMDS
from stpca_gui.core.torsion_states import make_torsion_states


@pytest.fixture(scope="module", params=[24, 66])
def high_d_case(request) -> tuple[SMDSMatch, np.ndarray]:
    """An SMDS fit of 200 frames of the 3-state peptide-like data on T^d (a start and 60
    iterations: any configuration is a valid match) and 12 new frames. The torsions are
    spread wide (κ = 2), so that the torus distances are far from Euclidean and T̂'s
    stress stays well above 0 (median 0.09 at d = 24)."""
    d = request.param
    frames = make_torsion_states(212, d, kappa=2.0, random_state=1).angles
    smds = SphericalMDS(random_state=0, max_iter=60).fit(frames[:200])
    return SMDSMatch(smds.angles_, smds.embedding_, smds.radius_), frames[200:]


def test_placements_equal_an_extended_precision_reference_at_high_d(high_d_case):
    match, queries = high_d_case
    assert match.angles.shape[1] >= MATRIX_FREE_MIN_D  # the matrix-free kernel runs
    units, stress = match.interpolate(queries)
    placements = [reference_placement(match, query, n_starts=2) for query in queries]
    reference_units = np.array([placement.unit for placement in placements])
    reference_stress = np.array([placement.stress for placement in placements])
    distance = np.abs(units - reference_units).max(axis=1)
    same = distance < 1e-3
    # The kernel starts from the linear placement, the reference from the nearest
    # landmarks: where they found different minima the kernel's is never the higher.
    assert np.count_nonzero(same) >= 0.9 * len(queries)
    assert np.all(reference_stress[~same] >= stress[~same] * (1 - 1e-12))
    assert distance[same].max() < 1e-10
    np.testing.assert_allclose(stress[same], reference_stress[same], rtol=1e-12, atol=0.0)


def test_matrix_free_and_dense_interpolation_agree(high_d_case):
    match, queries = high_d_case
    points = np.ascontiguousarray(wrap_angles(queries))
    args = (points, match.angles, match.embedding, match.radius, 200, 1e-16)
    dense_units, dense_stress = dense.interpolate_sphere(*args)
    units, stress = block_placing.interpolate_sphere_blocks(*args)
    same = np.abs(units - dense_units).max(axis=1) < 1e-3
    assert np.count_nonzero(same) >= 0.9 * len(points)
    assert np.abs(units - dense_units)[same].max() < 1e-10
    assert np.all(stress[~same] <= dense_stress[~same])


def test_matrix_free_prediction_reaches_a_stationary_point(high_d_case):
    # T̃ has many nearby local minima at high d (the torus distance has a ridge wherever an
    # angle difference crosses ±π), so the dense and matrix-free paths may stop in
    # different ones; each answer must be a minimum the other kernel stays at.
    match, _ = high_d_case
    rng = np.random.default_rng(2)
    pairs = rng.integers(0, match.embedding.shape[0], (20, 2))
    sphere = match.embedding[pairs[:, 0]] + 0.3 * match.embedding[pairs[:, 1]]
    angles, stress = match.predict(sphere)
    d = match.angles.shape[1]
    units = sphere / np.linalg.norm(sphere, axis=1, keepdims=True)
    again, again_stress = dense.predict_torus(units, match.angles, match.embedding,
                                              match.radius, angles, 200, 1e-12)
    moved = np.abs(wrap_angles(again - angles)).max(axis=1)
    assert np.median(moved) < 1e-6
    assert np.all(again_stress >= stress * (1 - 1e-6))
    # The stress reported is the stress at the answer.
    targets = match.radius * np.arccos(np.clip(units @ match.embedding.T, -1, 1))
    recomputed = np.mean((torus_cdist(angles, match.angles) - targets) ** 2, axis=1)
    np.testing.assert_allclose(stress, recomputed, rtol=1e-9)
    assert angles.shape == (20, d)


def test_chained_prediction_starts_each_query_at_the_previous_answer(high_d_case):
    match, _ = high_d_case
    circle = match.embedding[:6]
    start = match.angles[0]
    chained, _ = match.predict(circle, start=start, chain=True)
    one_by_one = [match.predict(circle[:1], start=start)[0][0]]
    for row in circle[1:]:
        one_by_one.append(match.predict(row[None], start=one_by_one[-1])[0][0])
    np.testing.assert_array_equal(chained, np.array(one_by_one))


def test_linear_start_lies_near_the_minimiser(high_d_case):
    match, queries = high_d_case
    units, _ = match.interpolate(queries)
    values, vectors = matrix_free.partner_spectrum(match.embedding)
    starts = block_placing._linear_starts(torus_cdist(queries, match.angles), match.embedding,
                                          match.radius, values, vectors)
    starts /= np.linalg.norm(starts, axis=1, keepdims=True)
    start_angle = np.arccos(np.clip(np.sum(starts * units, axis=1), -1, 1))
    nearest = match.embedding[np.argmin(torus_cdist(queries, match.angles), axis=1)]
    nearest_angle = np.arccos(np.clip(np.sum(nearest * units, axis=1), -1, 1))
    assert np.median(start_angle) < 0.5 * np.median(nearest_angle)


def test_long_steps_are_shortened_to_the_cap_in_their_direction():
    long_step = np.array([3.0, -4.0, 0.0])  # length 5
    short_step = np.array([0.5, -0.2, 0.1]) * matrix_free._MAX_STEP
    capped, kept = long_step.copy(), short_step.copy()
    matrix_free._cap_step(capped)
    matrix_free._cap_step(kept)
    assert np.linalg.norm(capped) == pytest.approx(matrix_free._MAX_STEP, rel=1e-15)
    assert np.allclose(capped / np.linalg.norm(capped), long_step / 5.0, atol=1e-15)
    assert np.array_equal(kept, short_step)


@pytest.mark.parametrize("fill", [np.nan, np.inf])
def test_prediction_ignores_what_its_work_arrays_held(high_d_case, fill):
    # The work arrays come from np.empty: whatever they held must not reach the answer
    # (an unused row multiplied by 0 once turned inf/NaN garbage into NaN, and the chained
    # prediction's answers then varied from run to run).
    match, _ = high_d_case
    n, d = match.angles.shape
    queries = match.embedding[:3]
    answers = []
    for value in (0.0, fill):
        out, stress = np.empty((3, d)), np.empty(3)
        work = [np.full_like(array, value)
                for array in matrix_free._prediction_work_arrays(n, d)]
        matrix_free._predict_rows_cg(queries, np.ascontiguousarray(match.angles.T),
                                     match.embedding, match.radius,
                                     np.ascontiguousarray(match.angles[:3]), 100, 1e-12,
                                     False, out, stress, *work)
        answers.append(out)
    assert np.isfinite(answers[0]).all()
    np.testing.assert_array_equal(answers[1], answers[0])
