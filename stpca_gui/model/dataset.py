"""The data set the application works on: angles plus everything needed to explain them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..core.demos import make_demo
from ..core.geometry.series import lagged_embedding
from ..core.geometry.torus import wrap_angles
from ..io.coded import CodedColumn, factorize
from ..io.tables import AngleTable
from .demos import DATA_DEMOS, data_demo

__all__ = ["DEMO_SOURCE_PREFIX", "Dataset"]

#: ``source`` of a demo data set is this prefix followed by the demo name.
DEMO_SOURCE_PREFIX = "demo:"


def _handed_over(values: Any) -> bool:
    """Whether an array was handed over: read-only, and so is the array owning its memory
    (nobody can write it without setting that flag back), so it needs no copy."""
    if not isinstance(values, np.ndarray) or values.flags.writeable:
        return False
    root = values
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root.base is None and root.flags.owndata and not root.flags.writeable


def _readonly(values: Any, dtype: Any = None) -> NDArray | CodedColumn:
    """A read-only array of ``values``: a copy, unless ``values`` was handed over (a
    :class:`~stpca_gui.io.coded.CodedColumn` is read-only already)."""
    if isinstance(values, CodedColumn) and dtype is None:
        return values
    if _handed_over(values) and (dtype is None or values.dtype == np.dtype(dtype)):
        return values
    values = np.array(values, dtype=dtype, copy=True)
    values.setflags(write=False)
    return values


def _wrapped(angles: NDArray[np.float64]) -> NDArray[np.float64]:
    """Read-only angles in [-π, π): those handed over in that range are taken as they are
    (their giver wrapped them with ``wrap_angles(..., out=...)``), others are wrapped into
    a new array (no copy beyond that, whatever their size)."""
    if (_handed_over(angles) and angles.size and -np.pi <= angles.min()
            and angles.max() < np.pi):
        return angles
    wrapped = wrap_angles(angles)
    wrapped.setflags(write=False)
    return wrapped


# Cluster numerals up to 39 only: with L, C, D and M, letter labels such as amino-acid
# codes ("C", "D", "L", "M") would be taken for numbers and leave alphabetical order.
_ROMAN = {"I": 1, "V": 5, "X": 10}
_ROMAN_NUMERAL = re.compile(r"X{0,3}(IX|IV|V?I{0,3})")


def _roman_value(name: str) -> int | None:
    """The value of a Roman numeral ("II" → 2, "IV" → 4), None for anything else."""
    if not name or not _ROMAN_NUMERAL.fullmatch(name):
        return None
    values = [_ROMAN[c] for c in name]
    return sum(-v if v < w else v for v, w in zip(values, [*values[1:], 0], strict=True))


def _natural_key(name: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key reading runs of digits as numbers ("site 2" before "site 10")."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.casefold())
                 for part in re.split(r"(\d+)", name) if part)


def label_order(names: Sequence[str]) -> list[int]:
    """Positions of ``names`` in the order people expect in a legend: by value when every
    name is a Roman numeral (the small RNA's clusters I, II, V), else in natural order
    (numbers inside names by value, letters ignoring case)."""
    romans = [_roman_value(name) for name in names]
    if names and all(value is not None for value in romans):
        return sorted(range(len(names)), key=lambda k: romans[k])
    keys = [_natural_key(name) for name in names]
    return sorted(range(len(names)), key=lambda k: (keys[k], names[k]))


def encode_labels(labels: ArrayLike | CodedColumn) -> tuple[NDArray[np.int64], list[str]]:
    """An integer code per sample and the label names, in natural order (:func:`label_order`:
    legends then read I, II, V or site 1, site 2, site 10).

    Returns
    -------
    codes : ndarray of int, shape (n,)
        Position of each sample's label in ``names``.
    names : list of str
    """
    codes, names = factorize(labels)  # a CodedColumn from its codes: no sort of n rows
    order = label_order(names)
    rank = np.empty(len(names), dtype=np.int64)
    rank[order] = np.arange(len(names))
    return rank[codes], [names[k] for k in order]


def _table_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``read_angle_table`` keyword arguments with the types it takes (also after a round
    trip through JSON, which turns tuples into lists)."""
    known = {"columns", "degrees", "label_column", "drop_invalid", "row_filter"}
    unknown = set(options) - known
    if unknown:
        raise ValueError(f"unknown table options: {', '.join(sorted(unknown))}")
    columns, row_filter = options.get("columns"), options.get("row_filter")
    label = options.get("label_column")
    return {
        "columns": None if columns is None else [str(c) for c in columns],
        "degrees": bool(options.get("degrees", False)),
        "label_column": None if label is None else str(label),
        "drop_invalid": bool(options.get("drop_invalid", False)),
        "row_filter": None if row_filter is None else (str(row_filter[0]), str(row_filter[1])),
    }


def _table_structure(table: AngleTable) -> dict[str, Any] | None:
    """The structure record beside a table with frame provenance, if any."""
    if "frame" not in table.provenance:
        return None
    from ..io.structures.record import read_sidecar

    return read_sidecar(table.path)


def _demo_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``make_demo`` keyword arguments with the types it takes (also after a round trip
    through JSON)."""
    known = {"cluster_sd"}
    unknown = set(options) - known
    if unknown:
        raise ValueError(f"unknown demo options: {', '.join(sorted(unknown))}")
    return {name: float(value) for name, value in options.items()}


@dataclass(frozen=True, eq=False)
class Dataset:
    """Angles loaded into the application, with their provenance.

    Arrays are copied and made read-only on construction, so a ``Dataset`` can be shared
    by every view and by a worker thread without defensive copies. An array that is
    already read-only and owns its memory is taken over without a copy (a reader of a
    large data set hands its arrays over this way).

    Attributes
    ----------
    angles : ndarray, shape (n, d)
        Radians wrapped to [-π, π).
    column_names : tuple of str
        One name per angle column (default ``theta1..thetad``).
    labels : ndarray of str or CodedColumn, shape (n,), or None
        A label per sample (cluster, class, …), when the source has one. Data read from
        structures hold it as a :class:`~stpca_gui.io.coded.CodedColumn` (codes into the
        distinct labels; ``numpy.asarray`` gives the text).
    source : str
        The file path, or ``"demo:NAME"`` for a built-in demo.
    description : str
        Human-readable description.
    row_ids : ndarray of int, shape (n,)
        Identifier of each sample: its 1-based line in the source file, or 1..n.
    dropped : tuple of (int, str)
        Lines of the source that were skipped and why.
    unit_note : str
        How the values were interpreted, e.g. ``"converted from degrees"``.
    demo_seed : int or None
        The ``random_state`` of a built-in demo (``make_demo(name, random_state=...)``).
    demo_options : dict
        The other keyword arguments the built-in demo was made with, e.g.
        ``{"cluster_sd": 0.5}`` (empty for the demo's defaults).
    table_options : dict or None
        The keyword arguments of :func:`~stpca_gui.io.tables.read_angle_table` that read
        the angles from the file ``source`` (``columns``, ``degrees``, ``label_column``,
        ``drop_invalid``, ``row_filter``), when it was read that way; None when unknown.
    lagged_embeddings : tuple of (int, int)
        The lagged embeddings (column, lags) applied after reading, in order (see
        :meth:`lagged`).
    structure : dict or None
        Angles read from a structure or trajectory: ``topology``, ``trajectories`` (paths),
        ``sha256`` (path → digest) and ``settings``
        (:meth:`~stpca_gui.io.structures.DihedralSettings.to_dict`); see
        :mod:`stpca_gui.model.structures`.
    provenance : dict of str to ndarray or CodedColumn, or None
        Where each row comes from, e.g. ``frame`` (and ``segid``, ``resid``, ``resname`` of
        pooled torsions), carried into the scores table. Read from structures, the text
        columns are :class:`~stpca_gui.io.coded.CodedColumn` and the integers of the
        smallest dtype holding them (a pooled row takes about 14 bytes of provenance).

    The last six say how to rebuild the data from their source (a reproducible script).
    """

    angles: NDArray[np.float64]
    column_names: tuple[str, ...] = ()
    labels: NDArray[np.str_] | CodedColumn | None = None
    source: str = ""
    description: str = ""
    row_ids: NDArray[np.int64] | None = None
    dropped: tuple[tuple[int, str], ...] = field(default=())
    unit_note: str = ""
    demo_seed: int | None = None
    demo_options: Mapping[str, Any] = field(default_factory=dict)
    table_options: Mapping[str, Any] | None = None
    lagged_embeddings: tuple[tuple[int, int], ...] = ()
    structure: Mapping[str, Any] | None = None
    provenance: Mapping[str, NDArray | CodedColumn] | None = None

    def __post_init__(self) -> None:
        angles = np.asarray(self.angles, dtype=np.float64)
        if angles.ndim != 2 or angles.shape[1] < 1:
            raise ValueError(f"angles must be a 2-D array (n, d) with d >= 1, got shape "
                             f"{angles.shape}")
        # min and max propagate NaN and show ±inf: no n × d temporary.
        if angles.size and not (np.isfinite(angles.min()) and np.isfinite(angles.max())):
            raise ValueError("angles must be finite")
        n, d = angles.shape
        names = tuple(str(c) for c in self.column_names) or tuple(
            f"theta{k + 1}" for k in range(d))
        if len(names) != d:
            raise ValueError(f"{len(names)} column names given for {d} angle columns")
        if self.labels is not None:
            labels = self.labels
            if not (isinstance(labels, CodedColumn)
                    or (isinstance(labels, np.ndarray) and labels.dtype.kind == "U")):
                labels = np.asarray(labels).astype(str)
            if labels.shape != (n,):
                raise ValueError(f"labels must have shape ({n},), got {labels.shape}")
            object.__setattr__(self, "labels", _readonly(labels))
        if self.row_ids is None:
            row_ids = np.arange(1, n + 1, dtype=np.int64)
            row_ids.setflags(write=False)  # handed over: no second copy
        else:
            row_ids = np.asarray(self.row_ids, dtype=np.int64)
            if row_ids.shape != (n,):
                raise ValueError(f"row_ids must have shape ({n},), got {row_ids.shape}")
        object.__setattr__(self, "angles", _wrapped(angles))
        object.__setattr__(self, "column_names", names)
        object.__setattr__(self, "row_ids", _readonly(row_ids))
        object.__setattr__(self, "dropped",
                           tuple((int(line), str(why)) for line, why in self.dropped))
        if self.demo_seed is not None:
            object.__setattr__(self, "demo_seed", int(self.demo_seed))
        object.__setattr__(self, "demo_options", _demo_options(self.demo_options))
        if self.table_options is not None:
            object.__setattr__(self, "table_options", _table_options(self.table_options))
        object.__setattr__(self, "lagged_embeddings", tuple(
            (int(column), int(lags)) for column, lags in self.lagged_embeddings))
        if self.provenance is not None:
            provenance = {str(k): _readonly(v) for k, v in self.provenance.items()}
            if any(v.shape != (n,) for v in provenance.values()):
                raise ValueError(f"provenance columns must have shape ({n},)")
            object.__setattr__(self, "provenance", provenance)
        if self.structure is not None:
            object.__setattr__(self, "structure", dict(self.structure))

    # ------------------------------------------------------------ constructors
    @classmethod
    def from_demo(cls, name: str, random_state: int = 0, *,
                  cluster_sd: float | None = None) -> Dataset:
        """A built-in demo: a simulation (see :func:`stpca_gui.core.demos.make_demo`) or a
        bundled data set (:data:`stpca_gui.model.demos.DATA_DEMOS`, e.g. ``"small-rna"``).
        A structure demo (:data:`~stpca_gui.model.demos.STRUCTURE_DEMOS`) is read as any
        structure: :func:`~stpca_gui.model.structures.structure_demo_dataset`.

        Labels are the demo's cluster numbers as text (``"0"``, ``"1"``, …), or a data set's
        own labels (the small RNA clusters ``"I"``, ``"II"``, ``"V"``). A
        ``cluster_sd`` other than None is recorded in ``demo_options``, so that sessions
        and exported scripts rebuild the same data.

        Raises
        ------
        ValueError
            For an unknown demo name (the message lists the valid ones), or a
            ``cluster_sd`` that ``make_demo`` refuses.
        """
        options = {} if cluster_sd is None else {"cluster_sd": cluster_sd}
        if name in DATA_DEMOS:
            if options:
                raise ValueError(f"the demo {name!r} is real data: cluster_sd does not apply")
            demo = data_demo(name)
            return cls(angles=demo.angles, column_names=demo.column_names,
                       labels=demo.labels, source=f"{DEMO_SOURCE_PREFIX}{name}",
                       description=demo.description, unit_note="radians",
                       demo_seed=random_state)
        demo = make_demo(name, random_state=random_state, **options)
        return cls(
            angles=demo.angles,
            column_names=demo.column_names,
            labels=demo.labels.astype(str),
            source=f"{DEMO_SOURCE_PREFIX}{demo.name}",
            description=f"{demo.description} (data seed {random_state})",
            unit_note="radians",
            demo_seed=random_state,
            demo_options=options,
        )

    @classmethod
    def from_table(cls, table: AngleTable, *, degrees: bool = False,
                   options: Mapping[str, Any] | None = None) -> Dataset:
        """A table read by :func:`stpca_gui.io.tables.read_angle_table`.

        Parameters
        ----------
        table : AngleTable
        degrees : bool, keyword-only
            Whether the table was read with ``degrees=True`` (only recorded in
            ``unit_note``; the table's angles are already radians).
        options : mapping, optional
            The keyword arguments the table was read with, recorded as ``table_options``.

        A table of ``stpca dihedrals`` (with provenance columns) brings the structure
        record of its sidecar ``TABLE.structure.json`` when it has one, so that the
        structure files' fingerprints reach the session
        (:func:`~stpca_gui.io.structures.read_sidecar`).

        Raises
        ------
        StructureError
            A sidecar that is not a valid structure record (naming it).
        """
        if degrees:
            note = "converted from degrees"
        elif table.degrees_suspected:
            note = "read as radians, but some values exceed 2π in magnitude (degrees?)"
        else:
            note = "radians"
        kept = len(table.line_numbers)
        description = f"{kept} rows × {len(table.column_names)} angles from {table.path.name}"
        if table.dropped:
            description += f" ({len(table.dropped)} rows skipped)"
        return cls(
            angles=table.angles,
            column_names=table.column_names,
            labels=table.labels,
            source=str(table.path),
            description=description,
            row_ids=table.line_numbers,
            dropped=tuple(table.dropped),
            unit_note=note,
            table_options=options,
            provenance=table.provenance or None,
            structure=_table_structure(table),
        )

    def lagged(self, column: int, n_lags: int) -> Dataset:
        """The delay embedding Θ_i = (θ_i, …, θ_{i+k-1}) ∈ T^k of one angle column.

        The rows are taken in their current order, which must be time order (e.g. the
        sunspots births of one cycle, as in the paper). Row identifiers and labels follow
        the first row of each window.

        Raises
        ------
        ValueError
            For a column index out of range, k < 1 or fewer than k + 2 rows.
        """
        if not 0 <= int(column) < self.n_angles:
            raise ValueError(f"column must be in 0..{self.n_angles - 1}, got {column}")
        k = int(n_lags)
        if k < 1 or k != n_lags:
            raise ValueError(f"the number of lags must be a positive integer, got {n_lags!r}")
        if self.n_samples < k + 2:
            raise ValueError(f"{self.n_samples} rows are too few for {k} lags")
        name = self.column_names[column]
        angles = lagged_embedding(self.angles[:, column], k)
        m = angles.shape[0]
        return Dataset(
            angles=angles,
            column_names=tuple(f"{name}[t+{j}]" if j else f"{name}[t]" for j in range(k)),
            labels=None if self.labels is None else self.labels[:m],
            source=self.source,
            description=f"lag-{k} embedding of {name}: {m} points on T^{k} "
                        f"({self.description})",
            row_ids=None if self.row_ids is None else self.row_ids[:m],
            dropped=self.dropped,
            unit_note=self.unit_note,
            demo_seed=self.demo_seed,
            demo_options=self.demo_options,
            table_options=self.table_options,
            lagged_embeddings=(*self.lagged_embeddings, (int(column), k)),
        )

    # ---------------------------------------------------------------- queries
    @property
    def n_samples(self) -> int:
        """Number of samples ``n``."""
        return int(self.angles.shape[0])

    @property
    def n_angles(self) -> int:
        """Number of angles per sample ``d`` (the torus is T^d)."""
        return int(self.angles.shape[1])

    @property
    def has_labels(self) -> bool:
        """Whether the samples carry labels."""
        return self.labels is not None

    @property
    def is_demo(self) -> bool:
        """Whether the data set is a built-in demo."""
        return self.source.startswith(DEMO_SOURCE_PREFIX)

    @property
    def name(self) -> str:
        """Short name for titles: the demo name or the file name."""
        if self.is_demo:
            return self.source[len(DEMO_SOURCE_PREFIX):]
        return Path(self.source).name if self.source else "untitled"

    @cached_property
    def _label_encoding(self) -> tuple[NDArray[np.int64], tuple[str, ...]]:
        # Encoding sorts all n labels (about half a second at 10⁶); the views ask often.
        if self.labels is None:
            return _readonly(np.zeros(self.n_samples, dtype=np.int64)), ()
        codes, names = encode_labels(self.labels)
        return _readonly(codes), tuple(names)

    def label_names(self) -> tuple[str, ...]:
        """Distinct labels in natural order (:func:`label_order`; empty without labels)."""
        return self._label_encoding[1]

    def label_codes(self) -> NDArray[np.int64]:
        """An integer per sample: the position of its label in :meth:`label_names`.

        Codes follow the natural order of the label names (:func:`encode_labels`), the
        order of the legends. All zeros when there are no labels.
        """
        return self._label_encoding[0]
