"""Delay (lagged) embeddings of an angle series into a torus (paper, section 5: the sunspots
longitudes lagged into T³)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .torus import wrap_angles
from .validation import as_float_matrix


def lagged_embedding(series: ArrayLike, n_lags: int) -> NDArray[np.float64]:
    """Embed an angle series θ_1..θ_N as Θ_i = (θ_i, θ_{i+1}, …, θ_{i+k-1}) ∈ T^k.

    Parameters
    ----------
    series : array_like, shape (N,)
        Angles in radians, in time order; wrapped to [-π, π).
    n_lags : int
        The torus dimension k ≥ 1.

    Returns
    -------
    ndarray, shape (N - k + 1, k)
    """
    values = as_float_matrix(np.asarray(series, dtype=np.float64).reshape(-1, 1),
                             what="angle series")[:, 0]
    k = int(n_lags)
    if k != n_lags or k < 1:
        raise ValueError(f"n_lags must be a positive integer, got {n_lags!r}")
    if values.size < k:
        raise ValueError(f"the series has {values.size} values; at least n_lags={k} are needed")
    windows = np.lib.stride_tricks.sliding_window_view(wrap_angles(values), k)
    return np.ascontiguousarray(windows)


def diagonal_fit(curve: ArrayLike) -> list[tuple[float, float, float]]:
    """How close a closed torus curve is to a periodic diagonal θ_k = θ_1 + c_k (mod 2π).

    The principal curve of a lagged series of a periodic signal lies near such a diagonal
    (the paper, section 5, reports a linear fit with R² = 1 − 3·10⁻⁵ for the sunspots).
    Every coordinate is unwrapped along the curve, then coordinates 2..d are regressed on
    coordinate 1 by least squares.

    Parameters
    ----------
    curve : array_like, shape (m, d)
        Points of the curve in curve order, radians.

    Returns
    -------
    list of (slope, intercept, r2)
        One per coordinate k ≥ 2: a periodic diagonal gives slope 1 and R² = 1, the
        intercept is c_k wrapped to [-π, π) (R² is NaN for a constant coordinate).
    """
    unwrapped = np.unwrap(as_float_matrix(curve, what="curve"), axis=0)
    x = unwrapped[:, 0]
    fits = []
    for k in range(1, unwrapped.shape[1]):
        y = unwrapped[:, k]
        slope, intercept = np.polyfit(x, y, 1)
        total = float(np.sum((y - y.mean()) ** 2))
        residual = float(np.sum((y - (slope * x + intercept)) ** 2))
        r2 = 1.0 - residual / total if total > 0 else float("nan")
        fits.append((float(slope), float(wrap_angles(intercept)), r2))
    return fits
