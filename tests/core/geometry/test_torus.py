"""Torus geometry: wrapping, conversions and geodesic distances."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from stpca_gui.core import circular_difference, degrees_to_radians, wrap_angles
from stpca_gui.core.geometry.angle_math import wrap_angle
from stpca_gui.core.geometry.torus import torus_cdist, torus_distance, torus_pdist

finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False)


def test_wrap_known_values():
    values = wrap_angles([0.0, np.pi, -np.pi, 3 * np.pi, 2 * np.pi, -1e-12, 7.0])
    np.testing.assert_allclose(values, [0.0, -np.pi, -np.pi, -np.pi, 0.0, -1e-12, 7.0 - 2 * np.pi],
                               atol=1e-15)


def test_wrap_boundaries_are_half_open():
    below_minus_pi = np.nextafter(-np.pi, -4.0)  # np.mod rounds this one up to exactly +π
    values = wrap_angles([np.pi, -np.pi, 3 * np.pi, -3 * np.pi, below_minus_pi, -1e-300, -1e-17])
    np.testing.assert_array_equal(values[:5], -np.pi)
    assert np.all(values[5:] <= 0.0) and np.all(values[5:] > -1e-16)


def test_compiled_wrap_matches_wrap_angles():
    values = [np.pi, -np.pi, 3 * np.pi, -3 * np.pi, np.nextafter(-np.pi, -4.0), -1e-17, 7.0]
    compiled = [wrap_angle(v) for v in values]
    np.testing.assert_array_equal(compiled, wrap_angles(values))


def test_wrap_other_period_is_half_open():
    below_half = np.nextafter(-0.5, -1.0)
    values = wrap_angles([0.5, -0.5, 1.5, -1.25, below_half], period=1.0)
    np.testing.assert_allclose(values, [-0.5, -0.5, -0.5, -0.25, below_half + 1.0], atol=1e-15)
    assert np.all(values >= -0.5) and np.all(values < 0.5)


@given(arrays(np.float64, 20, elements=finite))
def test_wrap_range_and_periodicity(values):
    wrapped = wrap_angles(values)
    assert np.all(wrapped >= -np.pi) and np.all(wrapped < np.pi)
    np.testing.assert_allclose(np.cos(wrapped), np.cos(values), atol=1e-9)
    np.testing.assert_allclose(np.sin(wrapped), np.sin(values), atol=1e-9)


def test_degrees_to_radians():
    np.testing.assert_allclose(degrees_to_radians([0, 90, 180, 270, 360, -90]),
                               [0, np.pi / 2, -np.pi, -np.pi / 2, 0, -np.pi / 2], atol=1e-15)


def test_circular_difference_is_shortest_arc():
    np.testing.assert_allclose(circular_difference([3.0, -3.0, 0.0], [-3.0, 3.0, np.pi]),
                               [2 * np.pi - 6.0, 2 * np.pi - 6.0, np.pi])


def test_distance_formula():
    x = np.array([3.0, 0.0])
    y = np.array([-3.0, 1.0])
    assert torus_distance(x, y) == pytest.approx(np.hypot(2 * np.pi - 6.0, 1.0))
    # The largest distance on T^d is sqrt(d)·π.
    assert torus_distance(np.zeros(3), np.full(3, np.pi)) == pytest.approx(np.sqrt(3) * np.pi)


points = arrays(np.float64, (3, 4), elements=finite)


@settings(max_examples=60)
@given(points)
def test_distance_is_a_metric(p):
    a, b, c = p
    assert torus_distance(a, b) == pytest.approx(torus_distance(b, a))
    assert torus_distance(a, a) == pytest.approx(0.0, abs=1e-9)
    assert torus_distance(a, c) <= torus_distance(a, b) + torus_distance(b, c) + 1e-9
    assert torus_distance(a, b) <= 2 * np.pi + 1e-9  # sqrt(4)·π
    shift = np.array([2 * np.pi, -4 * np.pi, 0.0, 6 * np.pi])
    assert torus_distance(a + shift, b) == pytest.approx(torus_distance(a, b), abs=1e-9)


def test_distance_matrices_equal_direct_ones():
    rng = np.random.default_rng(0)
    x = rng.uniform(-10, 10, (37, 3))
    y = rng.uniform(-10, 10, (23, 3))
    direct = torus_distance(x[:, None, :], y[None, :, :])
    np.testing.assert_allclose(torus_cdist(x, y), direct, atol=1e-13)
    square = torus_pdist(x)
    assert np.all(np.diag(square) == 0.0)
    np.testing.assert_allclose(square, square.T, atol=1e-13)


def test_cdist_rejects_mismatched_dimensions():
    with pytest.raises(ValueError, match="dimensions"):
        torus_cdist(np.zeros((2, 2)), np.zeros((2, 3)))
