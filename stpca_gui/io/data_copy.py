"""An exact copy of a data set's angles as CSV, for scripts that must refit the same data.

Floats are written as Python's ``repr``, the shortest text that reads back to the same
double (at most 17 significant digits), so :func:`read_data_copy` returns the very angles
that were written, bit for bit. The columns are ``row`` (the sample's identifier), then
``label`` when the data have labels, then one column per angle (radians).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .export import _csv_text
from .tables import TableError

__all__ = ["DataCopy", "data_copy_text", "read_data_copy"]


@dataclass(frozen=True)
class DataCopy:
    """The contents of a data copy.

    Attributes
    ----------
    angles : ndarray, shape (n, d)
        Radians, exactly as written.
    column_names : tuple of str
    row_ids : ndarray of int, shape (n,)
    labels : ndarray of str or None
    """

    angles: NDArray[np.float64]
    column_names: tuple[str, ...]
    row_ids: NDArray[np.int64]
    labels: NDArray[np.str_] | None


def data_copy_text(angles: ArrayLike, column_names: Sequence[str], row_ids: ArrayLike,
                   labels: ArrayLike | None = None) -> str:
    """The CSV text of a data copy (see the module docstring)."""
    values = np.asarray(angles, dtype=np.float64)
    header = ["row", *(["label"] if labels is not None else []), *column_names]
    columns = [np.asarray(row_ids, dtype=np.int64),
               *([np.asarray(labels).astype(str)] if labels is not None else []),
               *values.T]
    return _csv_text(header, columns)


def read_data_copy(path: str | Path, *, labelled: bool) -> DataCopy:
    """Read a data copy written from :func:`data_copy_text`.

    Parameters
    ----------
    path : str or path-like
    labelled : bool
        Whether the copy has a ``label`` column (after ``row``).

    Raises
    ------
    TableError
        A missing file, or one that is not a data copy (naming the file and line).
    """
    file = Path(path)
    try:
        with open(file, encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
    except FileNotFoundError:
        raise TableError(f"{file}: no such file (the copy of the data written with the "
                         "script)") from None
    first = 2 if labelled else 1
    if not rows or rows[0][:first] != ["row", "label"][:first] or len(rows[0]) <= first:
        raise TableError(f"{file}: line 1: not a data copy (expected the columns row, "
                         f"{'label, ' if labelled else ''}then the angles)")
    body = rows[1:]
    try:
        row_ids = np.array([int(row[0]) for row in body], dtype=np.int64)
        angles = np.array([[float(cell) for cell in row[first:]] for row in body],
                          dtype=np.float64).reshape(len(body), len(rows[0]) - first)
    except (ValueError, IndexError) as exc:
        raise TableError(f"{file}: not a data copy ({exc})") from None
    labels = np.array([row[1] for row in body]).astype(str) if labelled else None
    return DataCopy(angles=angles, column_names=tuple(rows[0][first:]), row_ids=row_ids,
                    labels=labels)
