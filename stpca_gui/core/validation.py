"""Input checks that turn bad data into messages naming the offending row and column."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .torus import wrap_angles


def first_nonfinite(values: NDArray[np.float64]) -> tuple[int, int] | None:
    """Return the (row, column) of the first NaN or infinite entry of a 2-D array, if any."""
    bad = ~np.isfinite(values)
    if not bad.any():
        return None
    row, col = np.argwhere(bad)[0]
    return int(row), int(col)


def as_float_matrix(data: ArrayLike, *, what: str) -> NDArray[np.float64]:
    """Convert to a 2-D float64 array, rejecting other ranks and non-finite entries."""
    try:
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
        ``min_samples`` rows, no angle columns, or all points identical on the torus.
    """
    values = as_float_matrix(data, what="angle data")
    n, d = values.shape
    if d < 1:
        raise ValueError("angle data has no columns: at least one angle per sample is needed")
    if n < min_samples:
        raise ValueError(f"angle data has {n} sample(s); at least {min_samples} are needed")
    angles = np.ascontiguousarray(wrap_angles(values))
    if np.all(angles == angles[0]):
        raise ValueError(
            "all samples are the same point on the torus; there is no variation to analyse"
        )
    return angles
