"""Periodic splitting of torus curves and the colour helpers."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.plotting.colors import DIMMED_ALPHA, label_colors, point_colors
from stpca_gui.plotting.curves import periodic_pieces


def test_curve_inside_the_cube_is_one_piece():
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    circle = np.column_stack([np.cos(t), np.sin(t)])
    pieces = periodic_pieces(circle, closed=True)
    assert len(pieces) == 1
    assert len(pieces[0]) == 41  # closed: ends where it starts
    np.testing.assert_allclose(pieces[0][0], pieces[0][-1])


def test_diagonal_wraps_through_faces_without_crossing_the_cube():
    t = np.linspace(-np.pi, np.pi, 60, endpoint=False) + 0.01
    diagonal = np.column_stack([t, t + 1.0])
    pieces = periodic_pieces(diagonal, closed=True)
    assert len(pieces) == 2
    for piece in pieces:
        assert np.all(np.abs(piece) <= np.pi + 1e-12)
        steps = np.linalg.norm(np.diff(piece, axis=0), axis=1)
        assert steps.max() < 0.2  # no segment jumps across the cube
    # Each piece ends on a face and the next one starts on the glued opposite face.
    ends = np.vstack([p[[0, -1]] for p in pieces])
    assert np.sum(np.isclose(np.abs(ends), np.pi)) >= 4


def test_breaks_are_not_drawn():
    t = np.linspace(-1, 1, 21)
    line = np.column_stack([t, np.zeros_like(t)])
    breaks = np.zeros(21, dtype=bool)
    breaks[9] = True
    pieces = periodic_pieces(line, closed=False, breaks=breaks)
    assert [len(p) for p in pieces] == [10, 11]


def test_corner_crossing_in_three_dimensions():
    points = np.array([[3.1, 3.1, 0.0], [-3.1, -3.1, 0.0]])
    pieces = periodic_pieces(points, closed=False)
    assert len(pieces) == 3  # crosses two faces at the same time
    for piece in pieces:
        assert np.all(np.abs(piece) <= np.pi + 1e-12)


def test_colors_are_rgba_and_dim_the_unselected():
    labels = np.array(["a", "b", "a", "c"])
    rgba = label_colors(labels)
    assert rgba.shape == (4, 4)
    np.testing.assert_array_equal(rgba[0], rgba[2])
    assert not np.array_equal(rgba[0], rgba[1])
    groups = np.array([0, 1, 0, 2])
    for mode in ("label", "pns1", "selection"):
        colors = point_colors(mode, n=4, labels=labels, pns1=np.zeros(4), groups=groups)
        assert colors[0, 3] == pytest.approx(DIMMED_ALPHA)
        assert colors[1, 3] == 1.0
    selection = point_colors("selection", n=4, groups=groups)
    assert not np.array_equal(selection[1], selection[3])


def test_points_exactly_on_the_seam_do_not_cross_the_cube():
    points = np.array([[0.0, 0.0], [np.pi / 2, 0.0], [np.pi, 0.0], [-np.pi / 2, 0.0]])
    pieces = periodic_pieces(points, closed=False)
    for piece in pieces:
        assert np.max(np.linalg.norm(np.diff(piece, axis=0), axis=1)) < np.pi / 2 + 1e-9
    assert len(pieces) == 2
