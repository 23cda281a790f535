"""T̂ placed in blocks (``_block_placing``): the answers of the per-point matrix-free kernel
(``_matrix_free_kernel.interpolate_sphere_cg``) to rounding, and of the extended-precision
reference (``interpolation_reference.py``) to T̂'s 1e-10, at d = 66 with few partners;
whatever the block size and the number of threads."""

from __future__ import annotations

import numpy as np
import pytest
from interpolation_reference import reference_placement

from stpca_gui.core._base import parallel
from stpca_gui.core.geometry.torus import wrap_angles
from stpca_gui.core.prediction import SMDSMatch, prediction
from stpca_gui.core.prediction import _block_placing as block_placing
from stpca_gui.core.prediction import _matrix_free_kernel as matrix_free
from stpca_gui.core.smds.smds import SphericalMDS
from stpca_gui.core.torsion_states import make_torsion_states


@pytest.fixture(scope="module")
def case_66() -> tuple[SMDSMatch, np.ndarray]:
    """An SMDS fit of 150 frames of the 3-state peptide-like data on T⁶⁶ (60 iterations:
    any configuration is a valid match) and 40 new frames, wrapped."""
    frames = make_torsion_states(190, 66, kappa=2.0, random_state=3).angles
    smds = SphericalMDS(random_state=0, max_iter=60).fit(frames[:150])
    match = SMDSMatch(smds.angles_, smds.embedding_, smds.radius_)
    return match, np.ascontiguousarray(wrap_angles(frames[150:]))


def _both(match: SMDSMatch, queries: np.ndarray, max_iter: int = 200):
    args = (queries, match.angles, match.embedding, match.radius, max_iter,
            prediction.INTERPOLATION_TOL)
    return (block_placing.interpolate_sphere_blocks(*args),
            matrix_free.interpolate_sphere_cg(*args))


def test_blocks_place_points_where_the_per_point_kernel_does(case_66, monkeypatch):
    # Blocks of 8: several blocks, each with points that finish at different rounds.
    monkeypatch.setattr(block_placing, "PLACE_BLOCK", 8)
    match, queries = case_66
    (units, stress), (one_by_one, one_by_one_stress) = _both(match, queries)
    np.testing.assert_allclose(np.linalg.norm(units, axis=1), 1.0, rtol=0, atol=1e-15)
    assert np.abs(units - one_by_one).max() < 1e-12
    np.testing.assert_allclose(stress, one_by_one_stress, rtol=1e-12, atol=0.0)


@pytest.mark.parametrize("max_iter", [0, 1, 3])
def test_blocks_stop_after_max_iter_accepted_steps_as_the_per_point_kernel(case_66,
                                                                            max_iter):
    match, queries = case_66
    (units, stress), (one_by_one, one_by_one_stress) = _both(match, queries[:12], max_iter)
    assert np.abs(units - one_by_one).max() < 1e-12
    np.testing.assert_allclose(stress, one_by_one_stress, rtol=1e-12, atol=0.0)
    if max_iter < 3:  # stopped early: short of the minimum
        full, full_stress = block_placing.interpolate_sphere_blocks(
            queries[:12], match.angles, match.embedding, match.radius, 200, 1e-16)
        assert np.all(stress >= full_stress)
        assert np.abs(units - full).max() > 1e-6


def test_blocks_reach_the_extended_precision_reference(case_66):
    match, queries = case_66
    assert queries.shape[0] >= prediction.BLOCK_MIN_QUERIES  # interpolate places in blocks
    units, stress = match.interpolate(queries[:8])
    placements = [reference_placement(match, query, n_starts=2) for query in queries[:8]]
    reference_units = np.array([placement.unit for placement in placements])
    distance = np.abs(units - reference_units).max(axis=1)
    same = distance < 1e-3
    # The kernel starts from the linear placement, the reference from the nearest
    # landmarks: where they found different minima the kernel's is never the higher.
    assert np.count_nonzero(same) >= 7
    assert distance[same].max() < 1e-10
    reference_stress = np.array([placement.stress for placement in placements])
    assert np.all(reference_stress[~same] >= stress[~same] * (1 - 1e-12))


def test_answers_do_not_depend_on_the_number_of_threads(case_66, monkeypatch):
    match, queries = case_66
    monkeypatch.setattr(block_placing, "PLACE_BLOCK", 8)
    args = (queries, match.angles, match.embedding, match.radius, 200, 1e-16)
    threaded = block_placing.interpolate_sphere_blocks(*args)
    monkeypatch.setattr(parallel, "worker_count", lambda: 1)
    serial = block_placing.interpolate_sphere_blocks(*args)
    np.testing.assert_array_equal(threaded[0], serial[0])
    np.testing.assert_array_equal(threaded[1], serial[1])


def test_few_queries_are_placed_one_by_one(case_66, monkeypatch):
    match, queries = case_66
    calls = []
    monkeypatch.setattr(block_placing, "interpolate_sphere_blocks",
                        lambda *args: calls.append(len(args[0])) or (None, None))
    match.interpolate(queries[:prediction.BLOCK_MIN_QUERIES - 1])
    assert calls == []
    match.interpolate(queries[:prediction.BLOCK_MIN_QUERIES])
    assert calls == [prediction.BLOCK_MIN_QUERIES]


def test_blocks_use_the_exact_hessian_where_the_per_point_kernel_does(case_66):
    # Landmarks 8–15 given the unit vectors of landmarks 0–7, 8–11 rad away on the torus:
    # a point placed near landmark j < 8 lies far closer to ŷ_{j+8} than its target
    # distance, that partner's curvature is capped in the Newton model, and near the
    # minimum the exact Hessian (weights plus cap shifts) takes over.
    match, _ = case_66
    embedding = match.embedding.copy()
    embedding[8:16] = embedding[:8]
    queries = np.ascontiguousarray(wrap_angles(
        match.angles[:8] + np.random.default_rng(1).normal(0.0, 0.01, (8, 66))))
    (units, stress), (one_by_one, one_by_one_stress) = _both(
        SMDSMatch(match.angles, embedding, match.radius), queries)
    # Without the cap shifts in the products the answers differ by 2e-9.
    assert np.abs(units - one_by_one).max() < 1e-10
    np.testing.assert_allclose(stress, one_by_one_stress, rtol=1e-12, atol=0.0)
