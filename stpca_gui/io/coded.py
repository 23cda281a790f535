"""Columns of repeated text held as small integer codes and their distinct values.

A pooled structure data set has a row per frame and residue: 2·10⁷ rows for 10⁵ frames of
200 residues. Its text columns (trajectory, segid, resname, the residue class of the
labels) take a handful of values each; held as numpy text they took 2.6 GB, and writing
that fresh memory cost more time than reading the trajectories
(``benchmarks/bench_dihedrals.py``). :class:`CodedColumn` holds a byte per row instead and
decodes on demand: ``numpy.asarray(column)`` (and indexing, ``tolist``, ``astype``) gives
the same text array as before, so readers that take any array-like keep working, while
:func:`factorize` and ``==`` work on the codes without decoding.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["CodedColumn", "factorize", "smallest_integer_type"]


def smallest_integer_type(low: int, high: int) -> np.dtype:
    """The smallest integer dtype holding every value of ``low … high`` (unsigned when
    ``low >= 0``)."""
    return np.result_type(np.min_scalar_type(int(low)), np.min_scalar_type(int(high)))


def _readonly(values: NDArray) -> NDArray:
    if values.flags.writeable:
        values = values.copy() if values.base is not None else values
        values.setflags(write=False)
    return values


@dataclass(frozen=True, eq=False)
class CodedColumn:
    """A text column as codes into its distinct values: row ``i`` is
    ``categories[codes[i]]``.

    Attributes
    ----------
    codes : ndarray of unsigned int, shape (n,)
        The smallest unsigned dtype holding ``len(categories) - 1``; read-only.
    categories : ndarray of str, shape (k,)
        The distinct values, in the order the codes number them (not necessarily sorted);
        read-only.

    Raises
    ------
    ValueError
        Codes that are not whole numbers below ``k`` (a damaged session), repeated or
        non-text categories.
    """

    codes: NDArray[np.unsignedinteger]
    categories: NDArray[np.str_]

    def __post_init__(self) -> None:
        categories = np.asarray(self.categories)
        if categories.ndim != 1 or (categories.size and categories.dtype.kind != "U"):
            raise ValueError("the categories of a coded column must be a list of text")
        categories = categories.astype(str)
        if len(np.unique(categories)) != len(categories):
            raise ValueError("the categories of a coded column repeat a value")
        codes = np.asarray(self.codes)
        if codes.ndim != 1 or (codes.size and codes.dtype.kind not in "iu"):
            raise ValueError("the codes of a coded column must be a list of whole numbers")
        if codes.size and (int(codes.min()) < 0 or int(codes.max()) >= len(categories)):
            raise ValueError(f"the codes of a coded column run from {int(codes.min())} to "
                             f"{int(codes.max())}, but there are {len(categories)} values")
        dtype = smallest_integer_type(0, max(len(categories) - 1, 0))
        if codes.dtype != dtype:
            codes = codes.astype(dtype)
        object.__setattr__(self, "codes", _readonly(codes))
        object.__setattr__(self, "categories", _readonly(categories))

    @classmethod
    def of_values(cls, values: ArrayLike) -> CodedColumn:
        """The coded column of text values (categories sorted)."""
        if isinstance(values, CodedColumn):
            return values
        categories, codes = np.unique(np.asarray(values).astype(str), return_inverse=True)
        return cls(codes.ravel(), categories)

    # -------------------------------------------------- what numpy readers ask of an array
    @property
    def shape(self) -> tuple[int]:
        return (len(self.codes),)

    @property
    def ndim(self) -> int:
        return 1

    @property
    def size(self) -> int:
        return len(self.codes)

    @property
    def dtype(self) -> np.dtype:
        """The dtype of the decoded values."""
        return self.categories.dtype

    @property
    def nbytes(self) -> int:
        """Bytes held: the codes and the categories."""
        return self.codes.nbytes + self.categories.nbytes

    def __len__(self) -> int:
        return len(self.codes)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> NDArray:
        values = self.categories[self.codes]
        return values if dtype is None else values.astype(dtype)

    def __getitem__(self, key: Any) -> Any:
        """A row's value (str), or the decoded values of a slice, mask or index array."""
        picked = self.codes[key]
        if np.ndim(picked) == 0:
            return str(self.categories[picked])
        return self.categories[picked]

    def __iter__(self) -> Iterator[str]:
        return iter(self.tolist())

    def astype(self, dtype: Any) -> NDArray:
        return np.asarray(self).astype(dtype)

    def tolist(self) -> list[str]:
        names = self.categories.tolist()
        return [names[code] for code in self.codes.tolist()]

    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        if isinstance(other, str | np.str_):
            return (self.categories == other)[self.codes]
        if isinstance(other, CodedColumn):
            other = np.asarray(other)
        return np.asarray(self) == other

    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        return ~np.asarray(self == other, dtype=bool)

    __hash__ = None  # type: ignore[assignment]  (mutable-looking, compared elementwise)

    def __repr__(self) -> str:
        return (f"CodedColumn({len(self):,} rows of {len(self.categories)} values: "
                f"{', '.join(self.categories[:5].tolist())}"
                f"{' …' if len(self.categories) > 5 else ''})")


def factorize(values: ArrayLike | CodedColumn) -> tuple[NDArray[np.intp], list[str]]:
    """An integer per row and the distinct values (sorted; only those present): row ``i``
    holds ``names[codes[i]]``. A :class:`CodedColumn` is factorized from its codes, without
    decoding or sorting its rows."""
    if isinstance(values, CodedColumn):
        present = np.flatnonzero(np.bincount(values.codes, minlength=len(values.categories)))
        order = present[np.argsort(values.categories[present], kind="stable")]
        rank = np.zeros(len(values.categories), dtype=np.intp)
        rank[order] = np.arange(len(order))
        return rank[values.codes], values.categories[order].tolist()
    unique, inverse = np.unique(np.asarray(values).ravel(), return_inverse=True)
    return inverse.ravel().astype(np.intp, copy=False), [str(value) for value in unique]
