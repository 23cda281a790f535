"""T̂ placed in blocks (``_block_placing``, every placement from d = 20 on): the answers of
the per-point matrix-free kernel it replaced to rounding (recorded with their inputs in
``tests/data/placing``), of the extended-precision reference (``interpolation_reference.py``)
to T̂'s 1e-10 and of the dense kernel where both find the same minimum, at d = 66 with few
partners; whatever the block size and the number of threads."""

from __future__ import annotations

import numpy as np
import pytest
from interpolation_reference import reference_placement

from stpca_gui.core._base import parallel
from stpca_gui.core.prediction import SMDSMatch
from stpca_gui.core.prediction import _block_placing as block_placing


@pytest.fixture(scope="module")
def recorded(test_data) -> dict[str, np.ndarray]:
    """The per-point kernel's answers and their inputs (``tests/data/placing``)."""
    with np.load(test_data / "placing" / "per_point_placing_d66.npz") as data:
        return dict(data)


@pytest.fixture(scope="module")
def case_66(recorded) -> tuple[SMDSMatch, np.ndarray]:
    """An SMDS match of 150 frames of the 3-state peptide-like data on T⁶⁶ and 40 new
    frames, wrapped (as recorded)."""
    match = SMDSMatch(recorded["angles"], recorded["embedding"], float(recorded["radius"]))
    return match, recorded["queries"]


def _place(match: SMDSMatch, queries: np.ndarray, max_iter: int, tol: float):
    return block_placing.interpolate_sphere_blocks(queries, match.angles, match.embedding,
                                                   match.radius, max_iter, tol)


def test_blocks_place_points_where_the_per_point_kernel_did(case_66, recorded,
                                                           monkeypatch):
    # Blocks of 8: several blocks, each with points that finish at different rounds.
    monkeypatch.setattr(block_placing, "PLACE_BLOCK", 8)
    match, queries = case_66
    units, stress = _place(match, queries, 200, float(recorded["tol"]))
    np.testing.assert_allclose(np.linalg.norm(units, axis=1), 1.0, rtol=0, atol=1e-15)
    assert np.abs(units - recorded["units_200"]).max() < 1e-12
    np.testing.assert_allclose(stress, recorded["stress_200"], rtol=1e-12, atol=0.0)


@pytest.mark.parametrize("max_iter", [0, 1, 3])
def test_blocks_stop_after_max_iter_accepted_steps_as_the_per_point_kernel(
        case_66, recorded, max_iter):
    match, queries = case_66
    units, stress = _place(match, queries[:12], max_iter, float(recorded["tol"]))
    assert np.abs(units - recorded[f"units_{max_iter}"]).max() < 1e-12
    np.testing.assert_allclose(stress, recorded[f"stress_{max_iter}"], rtol=1e-12, atol=0.0)
    if max_iter < 3:  # stopped early: short of the minimum
        full, full_stress = _place(match, queries[:12], 200, 1e-16)
        assert np.all(stress >= full_stress)
        assert np.abs(units - full).max() > 1e-6


def test_blocks_reach_the_extended_precision_reference(case_66):
    match, queries = case_66
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


def test_a_query_alone_is_placed_where_it_is_placed_among_others(case_66, recorded):
    # Single queries (a hover, a new frame) go through the blocks too.
    match, queries = case_66
    alone = [match.interpolate(query[None]) for query in queries[:5]]
    units = np.vstack([placed for placed, _ in alone])
    stress = np.concatenate([placed_stress for _, placed_stress in alone])
    assert np.abs(units - recorded["units_200"][:5]).max() < 1e-12
    np.testing.assert_allclose(stress, recorded["stress_200"][:5], rtol=1e-12, atol=0.0)


def test_blocks_use_the_exact_hessian_where_the_per_point_kernel_did(case_66, recorded):
    # Landmarks 8–15 given the unit vectors of landmarks 0–7, 8–11 rad away on the torus:
    # a point placed near landmark j < 8 lies far closer to ŷ_{j+8} than its target
    # distance, that partner's curvature is capped in the Newton model, and near the
    # minimum the exact Hessian (weights plus cap shifts) takes over.
    match, _ = case_66
    embedding = match.embedding.copy()
    embedding[8:16] = embedding[:8]
    units, stress = _place(SMDSMatch(match.angles, embedding, match.radius),
                           recorded["capped_queries"], 200, float(recorded["tol"]))
    # Without the cap shifts in the products the answers differ by 2e-9.
    assert np.abs(units - recorded["capped_units"]).max() < 1e-10
    np.testing.assert_allclose(stress, recorded["capped_stress"], rtol=1e-12, atol=0.0)
