"""Input checks that turn bad data into messages naming the offending row and column."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.row_slices import row_slices
from .torus import torus_distance, wrap_angles

#: Smallest spread (rad) of a torus sample that can be analysed: the largest torus distance
#: from the first sample must reach it. Angles themselves are exact to about 1e-15 rad (the
#: spacing of doubles near 2π), so the same point written in whole turns (10° and 370°)
#: differs by ~1e-15; but the sphere embedding compares cos(δ / r), whose resolution near 0
#: is √(2ε) ≈ 2e-8, so smaller distances vanish from its start. Measured (ST-PCA, seed 0, a
#: Gaussian cloud scaled down): at a largest distance of ~1e-7 rad the fitted radius is off
#: (0.04 instead of 1.9; 1.31 instead of 1.51 for another cloud), at 3.5e-8 the explained
#: variance ratios are wrong (0.56 instead of 0.47) and at 9e-9 they are NaN; from 1e-6 up
#: fits agree with wider copies of the same cloud. The torus has a fixed scale (period 2π),
#: so an absolute tolerance is the scale-aware one.
MIN_TORUS_SPREAD = 1e-6
#: Rows per block of :func:`torus_spread` (its temporaries: a few of this many rows, not
#: of n: at n = 10⁶, d = 66 each whole-data temporary is 528 MB).
_SPREAD_BLOCK = 16_384


def first_nonfinite(values: NDArray[np.float64]) -> tuple[int, int] | None:
    """Return the (row, column) of the first NaN or infinite entry of a 2-D array, if any."""
    bad = ~np.isfinite(values)
    if not bad.any():
        return None
    row, col = np.argwhere(bad)[0]
    return int(row), int(col)


def reject_complex(values: NDArray, *, what: str) -> None:
    """Raise ValueError for a complex array, naming its first non-real entry.

    Converting to float64 would silently drop the imaginary parts.
    """
    if not np.iscomplexobj(values):
        return
    imaginary = np.argwhere(values.imag != 0)
    if len(imaginary) == 0:
        raise ValueError(f"{what} must be real numbers, got a complex array (its imaginary "
                         "parts are all zero: pass its .real if that is what you mean)")
    position = tuple(int(k) for k in imaginary[0])
    where = (f"row {position[0]}, column {position[1]}" if len(position) == 2
             else f"index {position}")
    raise ValueError(f"{what} must be real numbers, got a complex value ({values[position]}) "
                     f"at {where} (0-based)")


def as_float_matrix(data: ArrayLike, *, what: str) -> NDArray[np.float64]:
    """Convert to a 2-D float64 array, rejecting other ranks, complex and non-finite entries."""
    try:
        raw = np.asarray(data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} must be numeric: {exc}") from None
    reject_complex(raw, what=what)
    try:
        # From the original data, as before, so that None in a list still becomes NaN and is
        # reported with its row and column.
        values = np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} must be numeric: {exc}") from None
    if values.ndim != 2:
        raise ValueError(
            f"{what} must be a 2-D array of shape (n_samples, n_features); "
            f"got an array with {values.ndim} dimension(s) and shape {values.shape}"
        )
    bad = first_nonfinite(values)
    if bad is not None:
        row, col = bad
        raise ValueError(
            f"{what} contains a non-finite value ({values[row, col]}) "
            f"at row {row}, column {col} (0-based)"
        )
    return values


def check_angles(data: ArrayLike, *, min_samples: int = 3) -> NDArray[np.float64]:
    """Validate toroidal data and return it wrapped to [-π, π).

    Parameters
    ----------
    data : array_like, shape (n, d)
        Angles in radians; any real values are accepted and wrapped.
    min_samples : int
        Smallest acceptable n.

    Returns
    -------
    ndarray, shape (n, d), C-contiguous float64

    Raises
    ------
    ValueError
        For non-2-D input, NaN or inf (naming the first bad row and column), fewer than
        ``min_samples`` rows, no angle columns, complex values, or all points (nearly) the
        same point on the torus: closer than :data:`MIN_TORUS_SPREAD` to the first one.
    """
    values = as_float_matrix(data, what="angle data")
    n, d = values.shape
    if d < 1:
        raise ValueError("angle data has no columns: at least one angle per sample is needed")
    if n < min_samples:
        raise ValueError(f"angle data has {n} sample(s); at least {min_samples} are needed")
    # Wrapped into one new array, without temporaries of the data's size (the same values).
    angles = wrap_angles(values, out=np.empty(values.shape))
    spread = torus_spread(angles)
    if spread < MIN_TORUS_SPREAD:
        raise ValueError(
            f"all samples are the same point on the torus: every sample lies within "
            f"{spread:.2g} rad of the first one, less than the {MIN_TORUS_SPREAD:g} rad "
            "needed to analyse variation (angles whole turns apart, such as 10° and 370°, "
            "are the same point)"
        )
    return angles


def torus_spread(angles: ArrayLike) -> float:
    """Largest torus (geodesic) distance from the first sample to any other, in radians.

    Zero exactly when every sample is the same torus point; never less than half the
    largest pairwise distance. Costs O(n d) time, and memory for :data:`_SPREAD_BLOCK` rows
    at a time.
    """
    points = np.atleast_2d(np.asarray(angles, dtype=np.float64))
    if points.shape[0] == 0:
        return 0.0
    return max(float(np.max(torus_distance(points[rows], points[0])))
               for rows in row_slices(points.shape[0], _SPREAD_BLOCK))
