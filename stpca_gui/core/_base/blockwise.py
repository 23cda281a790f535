"""Applying a row-wise map to a chunked (dask) array, block by block, without importing dask.

:meth:`~stpca_gui.core.stpca.ScaledTorusPCA.transform` and ``inverse_transform`` accept a
``dask.array.Array``: the result is another dask array whose every block is the map of one
row block of the input. The core stays free of dask (it is an optional extra): a dask array
is recognised by what it can do, and its own methods build the graph.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

RowMap = Callable[[NDArray[np.float64]], NDArray[np.float64]]


def is_chunked_array(X: object) -> bool:
    """Whether ``X`` is a lazily evaluated chunked array (``dask.array.Array`` or alike)."""
    return all(hasattr(X, name) for name in ("map_blocks", "chunks", "rechunk"))


def map_row_blocks(function: RowMap, X: Any, n_columns_in: int, n_columns_out: int,
                   what: str = "X") -> Any:
    """``function`` applied to each row block of the chunked array ``X`` (n, n_columns_in).

    The columns are first gathered into one chunk, so each block holds whole rows. The
    function travels to the workers with each task: it should carry only what the map needs
    (kilobytes), not a training set.

    Returns
    -------
    chunked array, shape (n, n_columns_out), float64
        Lazy: nothing is computed until the caller computes it.
    """
    if X.ndim != 2 or X.shape[1] != n_columns_in:
        raise ValueError(f"{what} must have shape (n, {n_columns_in}); got {X.shape}")
    rows = X.rechunk({1: -1})
    return rows.map_blocks(partial(_map_rows, function, n_columns_out), dtype=np.float64,
                           chunks=(rows.chunks[0], (n_columns_out,)),
                           meta=np.empty((0, n_columns_out), dtype=np.float64))


def _map_rows(function: RowMap, n_columns_out: int, block: NDArray) -> NDArray[np.float64]:
    if block.shape[0] == 0:
        return np.empty((0, n_columns_out))
    return function(block)
