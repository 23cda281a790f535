"""Per-frame weights of a data set (e.g. from enhanced sampling), checked before use.

Weights come from a column carried with the rows (a table's ``weight`` column, see
:data:`~stpca_gui.io.tables.PROVENANCE_COLUMNS`). The free-energy landscape of the app, of
the library and of ``stpca plot … --weights COLUMN`` reads them here, so all refuse the same
bad values with the same message: naming the column and the first bad row.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .dataset import Dataset

__all__ = ["check_weights", "frame_weights", "weight_columns"]

#: Carried columns that say where a row comes from: never offered as weights.
_IDENTITY_COLUMNS = ("trajectory", "frame", "time", "segid", "resid", "resname")


def weight_columns(dataset: Dataset | None) -> list[str]:
    """The carried columns of ``dataset`` that may hold weights, in their order."""
    if dataset is None or not dataset.provenance:
        return []
    return [name for name in dataset.provenance if name not in _IDENTITY_COLUMNS]


def frame_weights(dataset: Dataset, column: str) -> NDArray[np.float64]:
    """The weights in ``column`` of ``dataset``, checked by :func:`check_weights`.

    Raises
    ------
    ValueError
        When the data set has no such column (naming those it has), or a bad weight.
    """
    columns = weight_columns(dataset)
    if column not in columns:
        have = ", ".join(columns) if columns else "none (a table's 'weight' column is kept)"
        raise ValueError(f"no weights column {column!r} in the data; columns that can hold "
                         f"weights: {have}")
    return check_weights(dataset.provenance[column], dataset.n_samples, column,
                         dataset.row_ids)


def check_weights(values: ArrayLike, n: int, column: str = "weights",
                  row_ids: ArrayLike | None = None) -> NDArray[np.float64]:
    """Per-frame weights as floats, refusing what a probability cannot be made of.

    Parameters
    ----------
    values : array_like, shape (n,)
        Numbers, or text of numbers (a table column).
    n : int
        Number of frames.
    column : str
        The column's name, for the messages.
    row_ids : array_like of int, optional
        The rows' identifiers (lines of the file) named in the messages; default 1..n.

    Raises
    ------
    ValueError
        Naming the column and the first bad row: not a number, not finite, negative, or all
        zero; or the wrong length.
    """
    raw = np.asarray(values).ravel()
    if raw.shape != (n,):
        raise ValueError(f"weights column {column!r} has {raw.size} values for {n} frames")
    ids = np.arange(1, n + 1) if row_ids is None else np.asarray(row_ids)
    try:
        weights = raw.astype(np.float64)
    except ValueError:
        for k, value in enumerate(raw):
            try:
                float(value)
            except ValueError:
                raise ValueError(f"weights column {column!r}, row {ids[k]}: {str(value)!r} is not "
                                 "a number") from None
        raise
    bad = np.flatnonzero(~np.isfinite(weights))
    if bad.size:
        raise ValueError(f"weights column {column!r}, row {ids[bad[0]]}: {raw[bad[0]]} is not "
                         f"finite ({bad.size} such rows); weights must be finite and ≥ 0")
    bad = np.flatnonzero(weights < 0)
    if bad.size:
        raise ValueError(f"weights column {column!r}, row {ids[bad[0]]}: {raw[bad[0]]} is "
                         f"negative ({bad.size} such rows); weights must be finite and ≥ 0")
    if n and not weights.sum() > 0:
        raise ValueError(f"weights column {column!r}: every weight is 0")
    return weights
