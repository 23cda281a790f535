"""Delay (lagged) embeddings of an angle series into a torus."""

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
