"""The principal curve's grid and data range (issue 32, item 4): the whole circle as the paper
traces it at low d; at high d, where the data's PNS1 leave most of the circle empty, the
data's arc, densely; and the per-angle ranges that say which angles the curve moves."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.core import ScaledTorusPCA
from stpca_gui.core.prediction.principal_curve import (
    CURVE_ARC_MARGIN,
    CURVE_DATA_ARC_MIN_D,
    circular_ranges,
    curve_grid,
    data_range_mask,
)
from stpca_gui.core.torsion_states import make_torsion_states


def test_low_d_and_well_covered_circles_are_traced_whole():
    scores = np.random.default_rng(0).uniform(-0.3, 0.4, 200)  # a narrow arc
    grid, closed = curve_grid(scores, 1.0, 100, CURVE_DATA_ARC_MIN_D - 1)
    assert closed
    np.testing.assert_array_equal(grid, np.linspace(-np.pi, np.pi, 100, endpoint=False))
    spread = np.random.default_rng(1).uniform(-np.pi, np.pi, 500)
    assert curve_grid(spread, 1.0, 100, 50)[1]


def test_high_d_traces_the_data_arc_with_margins():
    scale = 0.8
    scores = scale * np.random.default_rng(0).uniform(2.5, 3.6, 300)  # across +π ρ
    scores = np.mod(scores + np.pi * scale, 2 * np.pi * scale) - np.pi * scale
    grid, closed = curve_grid(scores, scale, 60, CURVE_DATA_ARC_MIN_D)
    assert not closed and grid.size == 60
    circumference = 2 * np.pi * scale
    steps = np.mod(np.diff(grid), circumference)
    np.testing.assert_allclose(steps, steps[0], rtol=1e-9)  # equispaced along the arc
    length = steps.sum()
    values = np.sort(scores)  # the data wrap around ±π ρ: their arc is the circle minus a gap
    gaps = np.diff(values, append=values[0] + circumference)
    covered = circumference - gaps.max()
    assert length == pytest.approx(covered + 2 * CURVE_ARC_MARGIN * circumference, rel=1e-9)
    inside = data_range_mask(grid, scores, circumference)
    assert inside.mean() == pytest.approx(covered / length, abs=2 / grid.size)
    assert not inside[0] and not inside[-1]


def test_data_range_mask_and_circular_ranges():
    scores = np.array([-0.5, -0.2, 0.1, 0.4])
    grid = np.array([-3.0, -0.4, 0.0, 0.39, 0.45, 3.0])
    np.testing.assert_array_equal(data_range_mask(grid, scores, 2 * np.pi),
                                  [False, True, True, True, False, False])
    angles = np.array([[3.0, 0.1, -0.2], [-3.0, 0.3, 0.2], [3.1, 0.2, 0.0]])
    np.testing.assert_allclose(circular_ranges(angles),
                               [2 * np.pi - 6.0, 0.2, 0.4], rtol=1e-12)


def test_high_d_fit_traces_an_open_arc_through_the_data():
    frames = make_torsion_states(300, 24, random_state=2).angles
    model = ScaledTorusPCA(random_state=0, pns_mode="great", torus_variance=False,
                           n_curve_points=60).fit(frames)
    curve = model.principal_curve_
    assert curve.breaks[-1]  # open: no segment from the last point back to the first
    assert curve.in_data_range.mean() > 0.6
    pns1 = model.scores_[:, 0]
    inside = curve.parameter[curve.in_data_range]
    assert inside.min() <= np.quantile(pns1, 0.05) and inside.max() >= np.quantile(pns1, 0.95)
    # Along the data the stress stays at the level of the samples' placements.
    assert np.median(curve.stress[curve.in_data_range]) < 3 * np.median(model.stress_ + 0.05)


def test_an_arcs_two_chains_side_by_side_give_the_chains_one_after_the_other(monkeypatch):
    # The forward and backward chains of an arc run on two threads, in pieces of 3 points
    # (several pieces each); each must predict what it predicts alone, to the bit.
    from stpca_gui.core._base import parallel
    from stpca_gui.core.prediction import principal_curve

    frames = make_torsion_states(300, 24, random_state=2).angles
    model = ScaledTorusPCA(random_state=0, pns_mode="great", torus_variance=False,
                           n_curve_points=40).fit(frames)
    monkeypatch.setattr(principal_curve, "_CURVE_CHUNK_WORK", 3 * frames.shape[0])
    events = []
    threaded = principal_curve.trace_principal_curve(model.pns_, model.match_, 40,
                                                     report=events.append)
    assert not threaded.breaks[:-1].all() and threaded.breaks[-1]  # an arc
    monkeypatch.setattr(parallel, "worker_count", lambda: 1)
    serial = principal_curve.trace_principal_curve(model.pns_, model.match_, 40)
    np.testing.assert_array_equal(threaded.angles, serial.angles)
    np.testing.assert_array_equal(threaded.stress, serial.stress)
    fractions = [event.fraction for event in events]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) > 5
