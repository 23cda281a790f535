"""Input checks shared by every estimator: degenerate spread and complex values (issue 10)."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.core import ScaledTorusPCA
from stpca_gui.core.geometry.torus import wrap_angles
from stpca_gui.core.geometry.validation import (
    MIN_TORUS_SPREAD,
    as_float_matrix,
    check_angles,
    torus_spread,
)
from stpca_gui.core.pns.pns import PrincipalNestedSpheres
from stpca_gui.core.pns.subsphere import MIN_SPHERE_SPREAD, check_sphere_data
from stpca_gui.core.smds.smds import SphericalMDS

#: The same torus point written four ways (whole turns apart), with a second, constant angle.
SAME_POINT_DEGREES = np.array([[1.0, 20.0], [361.0, 20.0], [-359.0, 20.0], [721.0, 20.0]])


def tiny_spread(spread: float, n: int = 8, d: int = 3, seed: int = 0) -> np.ndarray:
    """n points around one torus point, the farthest ``spread`` rad from the first."""
    offsets = np.random.default_rng(seed).standard_normal((n, d))
    offsets -= offsets[0]
    offsets *= spread / np.max(np.linalg.norm(offsets, axis=1))
    return np.array([0.3, -1.2, 2.9])[:d] + offsets


def test_the_same_point_written_in_whole_turns_is_rejected():
    radians = np.deg2rad(SAME_POINT_DEGREES)
    # Whole turns do not cancel exactly in floating point: the wrapped angles differ, which
    # an exact comparison took for variation.
    assert np.ptp(wrap_angles(radians[:, 0])) > 0.0
    assert torus_spread(radians) < 1e-14
    for fit in (ScaledTorusPCA(random_state=0).fit, SphericalMDS(random_state=0).fit,
                check_angles):
        with pytest.raises(ValueError, match="same point on the torus"):
            fit(radians)


@pytest.mark.parametrize("spread", [0.0, 1e-9, 1e-8, 0.5 * MIN_TORUS_SPREAD])
def test_a_spread_below_the_tolerance_is_rejected(spread):
    with pytest.raises(ValueError, match="same point on the torus") as exc:
        ScaledTorusPCA(random_state=0).fit(tiny_spread(spread))
    assert f"{MIN_TORUS_SPREAD:g} rad" in str(exc.value)


@pytest.mark.parametrize("spread", [2 * MIN_TORUS_SPREAD, 1e-4])
def test_a_tiny_but_real_spread_still_fits_without_nan(spread):
    model = ScaledTorusPCA(random_state=0, n_curve_points=20).fit(tiny_spread(spread))
    assert np.all(np.isfinite(model.explained_variance_ratio_))
    assert np.all(np.isfinite(model.torus_explained_variance_ratio_))
    # The ratios of a small cloud do not depend on its size (the torus is locally flat).
    wide = ScaledTorusPCA(random_state=0, n_curve_points=20).fit(tiny_spread(1e-2))
    np.testing.assert_allclose(model.explained_variance_ratio_,
                               wide.explained_variance_ratio_, atol=1e-3)


def test_a_constant_column_is_not_degenerate():
    rng = np.random.default_rng(0)
    angles = rng.vonmises(0.0, 2.0, size=(30, 3))
    angles[:, 1] = 0.7
    model = ScaledTorusPCA(random_state=0, n_curve_points=20).fit(angles)
    assert np.all(np.isfinite(model.explained_variance_ratio_))
    assert np.all(np.isfinite(model.torus_explained_variance_ratio_))
    assert model.explained_variance_ratio_.sum() == pytest.approx(1.0)


def test_torus_spread_measures_across_the_seam():
    angles = np.array([[np.pi - 1e-3, 0.0], [-np.pi + 1e-3, 0.0], [np.pi, 0.0]])
    assert torus_spread(angles) == pytest.approx(2e-3)


@pytest.mark.parametrize("vector", [[0.0, 0.0, 1.0], [0.6, 0.8, 0.0], [0.0, 0.0, 0.0, 1.0],
                                    [0.5, 0.5, 0.5, 0.5]])
def test_pns_rejects_identical_unit_vectors(vector):
    points = np.tile(vector, (6, 1))
    with pytest.raises(ValueError, match="same point on the sphere"):
        PrincipalNestedSpheres(random_state=0).fit(points)


def test_pns_rejects_nearly_identical_unit_vectors_but_fits_a_small_real_spread():
    rng = np.random.default_rng(1)
    centre = np.full(4, 0.5)
    offsets = rng.standard_normal((12, 4))
    near = centre + 1e-9 * offsets
    with pytest.raises(ValueError, match=f"{MIN_SPHERE_SPREAD:g} rad"):
        PrincipalNestedSpheres(random_state=0).fit(near)
    small = centre + 1e-4 * offsets
    ratios = PrincipalNestedSpheres(random_state=0).fit(small).explained_variance_ratio_
    assert np.all(np.isfinite(ratios)) and ratios.sum() == pytest.approx(1.0)


def test_pns_transform_still_accepts_a_single_point():
    rng = np.random.default_rng(2)
    points = rng.standard_normal((20, 3))
    model = PrincipalNestedSpheres(random_state=0).fit(points)
    one = model.transform(np.tile(points[0], (3, 1)))
    assert np.all(np.isfinite(one)) and np.allclose(one, one[0])


@pytest.mark.parametrize("check", [
    lambda data: as_float_matrix(data, what="angle data"),
    check_angles,
    check_sphere_data,
    lambda data: ScaledTorusPCA(random_state=0).fit(data),
    lambda data: PrincipalNestedSpheres(random_state=0).fit(data),
])
def test_complex_input_is_rejected_not_truncated(check):
    data = np.array([[0.1, 0.2, 0.3], [0.5, -1.0, 2.0], [1.5, 0.25, -2.0],
                     [2.0, 1.0, 0.5]], dtype=complex)
    data[1, 2] += 0.5j
    with pytest.raises(ValueError, match=r"complex value .* row 1, column 2"):
        check(data)


def test_complex_dtype_with_zero_imaginary_parts_is_rejected_too():
    with pytest.raises(ValueError, match="complex"):
        check_angles(np.ones((4, 2), dtype=complex) * np.arange(4)[:, None])


def test_a_missing_value_in_a_list_is_reported_with_its_position():
    with pytest.raises(ValueError, match="row 1, column 0"):
        check_angles([[0.1, 0.2], [None, 0.3], [1.0, 2.0]])
