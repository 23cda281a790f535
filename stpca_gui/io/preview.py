"""A first look at a table before importing it: layout, statistics and suggestions.

:func:`preview_table` reads a delimited text file the way
:func:`~stpca_gui.io.tables.read_angle_table` will (same delimiter and header detection)
and returns what an import dialog shows: the first rows as text, per-column statistics
over the whole file, and suggestions for the angle columns, the label column, the unit and
the range convention, each with a reason a user can check.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .tables import (
    DEGREE_HINT_THRESHOLD,
    PROVENANCE_COLUMNS,
    TableError,
    carried_column_role,
    is_number,
    read_table_lines,
    sniff,
    split_fields,
    split_line,
)

__all__ = [
    "DELIMITER_NAMES",
    "LABEL_COLUMN_NAMES",
    "RANGE_CONVENTIONS",
    "TablePreview",
    "angle_column_rule",
    "delimiter_name",
    "preview_table",
    "sniff_format",
    "split_cells",
]

#: Names of the delimiters :func:`sniff_format` can report (None = runs of whitespace).
DELIMITER_NAMES: dict[str | None, str] = {
    ",": "comma",
    "\t": "tab",
    ";": "semicolon",
    "|": "pipe",
    None: "whitespace",
}
#: Column names taken as the label column before any other (compared case-insensitively).
LABEL_COLUMN_NAMES: tuple[str, ...] = (
    "label", "labels", "cluster", "clusters", "group", "groups", "class", "classes",
    "category", "species", "resname",
)
#: Integer columns with these names are row identifiers, not angles.
_ID_COLUMN_NAMES = ("id", "index", "idx", "row", "rownum", "frame", "step", "time", "n",
                    "resid")
#: A numeric column with at most this many distinct values, each repeated, holds levels.
_MAX_ANGLE_LEVELS = 6
#: Rows below which a column's values are too few to call them row numbers or levels.
_MIN_ROWS_TO_JUDGE = 10
#: Turns an angle column may span (unwrapped angles go past one turn; counts and
#: measurements of other kinds go far beyond).
_MAX_TURNS = 10
#: The default of :func:`preview_table`'s ``label_column``: suggest one.
_SUGGEST = object()
#: Range conventions that :func:`preview_table` may suggest.
RANGE_CONVENTIONS: tuple[str, ...] = ("[0, 2π)", "[−π, π)", "[0, 360)", "[−180, 180)")
#: Largest number of distinct integer values of a column suggested as labels.
_MAX_LABEL_LEVELS = 12
#: A column whose cells are at least this fraction numbers is numeric.
_NUMERIC_MAJORITY = 0.5
_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")
_MAX_NOTES = 10


def sniff_format(sample: str) -> tuple[str | None, bool]:
    """Delimiter (None for whitespace) and header flag of a text sample.

    The same detection as :func:`~stpca_gui.io.tables.read_angle_table`.
    """
    return sniff(sample)


def split_cells(line: str, delimiter: str | None) -> list[str]:
    """Cells of one line, split as :func:`~stpca_gui.io.tables.read_angle_table` does."""
    return split_fields(line, delimiter or "")


def delimiter_name(delimiter: str | None) -> str:
    """Human-readable name of a delimiter ("comma", "tab", …, "whitespace")."""
    return DELIMITER_NAMES.get(delimiter, repr(delimiter))


@dataclass(frozen=True)
class TablePreview:
    """What an import dialog needs to know about a table file.

    Attributes
    ----------
    path : Path
    delimiter : str or None
        Delimiter character; None means runs of whitespace.
    delimiter_name : str
        "comma", "tab", "semicolon", "pipe" or "whitespace".
    has_header : bool
        Whether the first non-blank line holds column names.
    column_names : tuple of str
        Header names, or "1", "2", … without a header (the names
        :func:`~stpca_gui.io.tables.read_angle_table` accepts).
    rows : tuple of tuple of str
        The first data rows (at most ``max_rows``), one cell per column ("" when missing).
    row_lines : tuple of int
        1-based line number of each row of ``rows``.
    n_rows : int
        Number of non-blank data rows in the whole file.
    numeric_fraction : tuple of float
        Per column, the fraction of data rows whose cell is a finite number.
    minimum, maximum : tuple of float
        Per column, over the numeric cells of the whole file (NaN when there are none).
    suggested_unit : {"radians", "degrees"}
    unit_reason : str
    suggested_range : str or None
        One of :data:`RANGE_CONVENTIONS`, or None when the values fit none of them.
    range_reason : str
    suggested_angle_columns : tuple of str
        The numeric columns, except the label column, row identifiers and provenance
        columns (:data:`~stpca_gui.io.tables.PROVENANCE_COLUMNS`).
    suggested_label_column : str or None
        A column named like labels ("label", "cluster", "group", "class", …), else the first
        text column, else an integer column with few distinct values.
    label_reason : str
    notes : tuple of str
        Things the user should know (short rows, cells that are not numbers, …).
    skipped_columns : tuple of (str, str)
        The columns not proposed as angles, each with why (:func:`angle_column_rule`).
    """

    path: Path
    delimiter: str | None
    delimiter_name: str
    has_header: bool
    column_names: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    row_lines: tuple[int, ...]
    n_rows: int
    numeric_fraction: tuple[float, ...]
    minimum: tuple[float, ...]
    maximum: tuple[float, ...]
    suggested_unit: Literal["radians", "degrees"]
    unit_reason: str
    suggested_range: str | None
    range_reason: str
    suggested_angle_columns: tuple[str, ...]
    suggested_label_column: str | None
    label_reason: str
    notes: tuple[str, ...] = field(default=())
    skipped_columns: tuple[tuple[str, str], ...] = field(default=())

    @property
    def n_columns(self) -> int:
        """Number of columns."""
        return len(self.column_names)


@dataclass
class _ColumnStats:
    numeric: int = 0
    filled: int = 0
    minimum: float = math.inf
    maximum: float = -math.inf
    integer_valued: bool = True
    levels: set[float] = field(default_factory=set)  # distinct values, capped
    first_bad: tuple[int, str] | None = None
    decimal_commas: int = 0
    increasing: bool = True  # every number larger than the one before
    last: float = -math.inf

    def add(self, cell: str, line: int) -> None:
        if cell:
            self.filled += 1
        value = float(cell) if is_number(cell) else math.nan
        if not math.isfinite(value):
            if self.first_bad is None and cell != "":
                self.first_bad = (line, cell)
            if _DECIMAL_COMMA.match(cell):
                self.decimal_commas += 1
            return
        self.numeric += 1
        self.minimum = min(self.minimum, value)
        self.maximum = max(self.maximum, value)
        if value != int(value):
            self.integer_valued = False
        if value <= self.last:
            self.increasing = False
        self.last = value
        if len(self.levels) <= _MAX_LABEL_LEVELS:
            self.levels.add(value)


def preview_table(path: str | Path, max_rows: int = 200, *,
                  label_column: str | object | None = _SUGGEST,
                  unit: Literal["radians", "degrees"] | None = None) -> TablePreview:
    """Look at a table file for the import dialog (and ``stpca fit`` without ``--columns``:
    one rule, :func:`angle_column_rule`, proposes the angle columns of both).

    Parameters
    ----------
    path : str or Path
    max_rows : int, default 200
        Number of data rows returned as text; statistics always cover the whole file.
    label_column : str or None, optional
        The label column (None: none); by default one is suggested.
    unit : {"radians", "degrees"}, optional
        The unit of the angles, when known; by default one is suggested.

    Returns
    -------
    TablePreview

    Raises
    ------
    TableError
        Missing, unreadable or empty file, or no data rows (the message names the file).
        Cells that are not numbers do not raise: they lower the column's
        ``numeric_fraction`` and are mentioned in ``notes``.
    """
    file = Path(path)
    if int(max_rows) < 0:
        raise ValueError(f"max_rows must be >= 0, got {max_rows}")
    sample, numbered = read_table_lines(file)  # bounded lines, regular files only
    delimiter, has_header = sniff_format(sample)
    if not numbered:
        raise TableError(f"{file}: the file is empty")
    if has_header:
        names = split_line(file, *numbered[0], delimiter)
        body = numbered[1:]
    else:
        names = [str(k + 1) for k in range(len(split_line(file, *numbered[0], delimiter)))]
        body = numbered
    if not body:
        raise TableError(f"{file}: only a header line, no data rows")
    width = len(names)
    notes: list[str] = []
    if delimiter is None and width == 1:
        notes.extend(_delimiter_doubt(numbered))
    # A repeated name cannot be chosen by name (the reader refuses it): suggest neither copy.
    repeated = _repeated_names(names)
    for name, columns in list(repeated.items())[:_MAX_NOTES - len(notes)]:
        where = " and ".join(str(k + 1) for k in columns)
        notes.append(f"column name {name!r} appears more than once in the header (columns "
                     f"{where}); rename the columns to use them")
    stats = [_ColumnStats() for _ in range(width)]
    rows: list[tuple[str, ...]] = []
    lines: list[int] = []
    for line_no, line in body:
        cells = split_line(file, line_no, line, delimiter)
        if len(cells) != width and len(notes) < _MAX_NOTES:
            notes.append(f"line {line_no}: {len(cells)} cells where {width} were expected")
        cells = (cells + [""] * width)[:width]
        for column, cell in zip(stats, cells, strict=True):
            column.add(cell, line_no)
        if len(rows) < max_rows:
            rows.append(tuple(cells))
            lines.append(line_no)

    n_rows = len(body)
    fraction = tuple(s.numeric / n_rows for s in stats)
    numeric = [f >= _NUMERIC_MAJORITY for f in fraction]
    for name, column, is_numeric in zip(names, stats, numeric, strict=True):
        if is_numeric and column.numeric < n_rows and len(notes) < _MAX_NOTES:
            missing = n_rows - column.numeric
            where = (f", first at line {column.first_bad[0]} ({column.first_bad[1]!r})"
                     if column.first_bad else "")
            notes.append(f"column {name!r}: {missing} cell(s) missing or not a number{where}")
        if column.decimal_commas > n_rows / 2 and len(notes) < _MAX_NOTES:
            notes.append(f"column {name!r} seems to use decimal commas (e.g. "
                         f"{column.first_bad[1] if column.first_bad else '1,5'!r}); only "
                         "decimal points are read as numbers")

    if label_column is _SUGGEST:
        label, label_reason = _suggest_label(names, stats, numeric, n_rows, set(repeated))
    else:
        label, label_reason = label_column, "the label column given"
    angle_indices = []
    skipped: list[tuple[str, str]] = []
    for k, (name, column, is_numeric) in enumerate(zip(names, stats, numeric, strict=True)):
        reason = (_not_an_angle(name, column, n_rows, unit) if is_numeric
                  else "holds text, not numbers")
        if name in repeated:
            reason = "its name appears more than once in the header"
        elif name == label:
            reason = "the label column" if label_column is not _SUGGEST else (
                f"looks like labels: {label_reason}")
        if reason is None:
            angle_indices.append(k)
            continue
        skipped.append((name, reason))
        if is_numeric and name != label and name not in repeated and len(notes) < _MAX_NOTES:
            notes.append(f"column {name!r} {reason}: not proposed as an angle")
    angles = [names[k] for k in angle_indices]
    angle_stats = [stats[k] for k in angle_indices]
    if unit is None:
        unit, unit_reason = _suggest_unit(angles, angle_stats)
    else:
        unit_reason = "the unit given"
    range_text, range_reason = _suggest_range(unit, angle_stats)
    return TablePreview(
        path=file,
        delimiter=delimiter,
        delimiter_name=delimiter_name(delimiter),
        has_header=has_header,
        column_names=tuple(names),
        rows=tuple(rows),
        row_lines=tuple(lines),
        n_rows=n_rows,
        numeric_fraction=fraction,
        minimum=tuple(s.minimum if s.numeric else math.nan for s in stats),
        maximum=tuple(s.maximum if s.numeric else math.nan for s in stats),
        suggested_unit=unit,
        unit_reason=unit_reason,
        suggested_range=range_text,
        range_reason=range_reason,
        suggested_angle_columns=tuple(angles),
        suggested_label_column=label,
        label_reason=label_reason,
        notes=tuple(notes),
        skipped_columns=tuple(skipped),
    )


def angle_column_rule() -> str:
    """The rule that proposes angle columns, in words (for the docs and the CLI's help)."""
    return ("numeric columns are angles unless they are the label column, provenance "
            f"({', '.join(PROVENANCE_COLUMNS)}), integers named like row identifiers "
            f"({', '.join(_ID_COLUMN_NAMES)}), integers counting up, at most "
            f"{_MAX_ANGLE_LEVELS} distinct values, or values beyond {_MAX_TURNS} turns")


def _not_an_angle(name: str, column: _ColumnStats, n_rows: int,
                  unit: str | None) -> str | None:
    """Why the numeric column ``name`` holds no plausible angles, or None when it may."""
    if name in PROVENANCE_COLUMNS:
        return carried_column_role(name)
    if column.integer_valued and name.strip().lower() in _ID_COLUMN_NAMES:
        return "looks like a row identifier"
    judged = n_rows >= _MIN_ROWS_TO_JUDGE
    if judged and column.integer_valued and column.increasing:
        return (f"holds integers counting up ({column.minimum:g} to {column.maximum:g}), "
                "like row numbers")
    if judged and len(column.levels) <= _MAX_ANGLE_LEVELS and n_rows >= 4 * len(column.levels):
        shown = ", ".join(f"{v:g}" for v in sorted(column.levels))
        return (f"holds only {len(column.levels)} distinct value(s) ({shown}), like levels "
                "or settings")
    largest = max(abs(column.minimum), abs(column.maximum))
    radians = unit == "radians"
    if largest > _MAX_TURNS * (2 * math.pi if radians else 360.0):
        what = f"{2 * _MAX_TURNS}π" if radians else f"{360 * _MAX_TURNS:g}"
        return (f"has values up to {largest:g} in magnitude, beyond ±{what} "
                f"({_MAX_TURNS} turns)")
    return None


def _delimiter_doubt(numbered: list[tuple[int, str]]) -> list[str]:
    """Explain a one-column result when the lines do contain a delimiter character."""
    sample = [line for _, line in numbered[:50]]
    for char, name in DELIMITER_NAMES.items():
        if char is not None and sum(char in line for line in sample) > len(sample) / 2:
            return [f"no consistent delimiter: most lines contain a {name} but the lines "
                    "have different numbers of cells, so each line is read as one cell"]
    return []


def _repeated_names(names: list[str]) -> dict[str, list[int]]:
    """Header names that occur more than once, with their 0-based column indices."""
    where: dict[str, list[int]] = {}
    for k, name in enumerate(names):
        where.setdefault(name, []).append(k)
    return {name: columns for name, columns in where.items() if len(columns) > 1}


def _is_level_column(column: _ColumnStats, n_rows: int) -> bool:
    """Integer values with few distinct levels, each repeated: group numbers."""
    levels = len(column.levels)
    return (column.numeric > 0 and column.integer_valued and levels <= _MAX_LABEL_LEVELS
            and levels * 3 <= n_rows)


def _suggest_label(
    names: list[str], stats: list[_ColumnStats], numeric: list[bool], n_rows: int,
    excluded: set[str],
) -> tuple[str | None, str]:
    candidates = [(name, column, is_numeric) for name, column, is_numeric
                  in zip(names, stats, numeric, strict=True) if name not in excluded]
    for name, column, is_numeric in candidates:
        if name.strip().lower() in LABEL_COLUMN_NAMES and (
                not is_numeric or _is_level_column(column, n_rows)):
            return name, f"column {name!r} is named like a label column"
    for name, column, is_numeric in candidates:
        if not is_numeric and column.filled > 0:
            return name, f"column {name!r} holds text, not numbers"
    for name, column, _ in candidates:
        if _is_level_column(column, n_rows):
            return name, (f"column {name!r} holds only {len(column.levels)} distinct integers, "
                          "like group numbers")
    return None, "no column looks like labels"


def _suggest_unit(
    angles: list[str], stats: list[_ColumnStats]
) -> tuple[Literal["radians", "degrees"], str]:
    if not stats:
        return "radians", "no numeric angle columns to judge from"
    magnitudes = [max(abs(s.minimum), abs(s.maximum)) for s in stats]
    k = max(range(len(stats)), key=magnitudes.__getitem__)
    largest = magnitudes[k]
    if largest > DEGREE_HINT_THRESHOLD:
        return "degrees", (f"column {angles[k]!r} has values up to {largest:g} in magnitude, "
                           f"more than 2π ≈ {2 * math.pi:.4f}; radians cannot be that large")
    return "radians", (f"every angle lies within ±2π (largest magnitude {largest:g}); "
                       "degrees would be suspiciously small")


def _suggest_range(unit: str, stats: list[_ColumnStats]) -> tuple[str | None, str]:
    if not stats:
        return None, "no numeric angle columns"
    low = min(s.minimum for s in stats)
    high = max(s.maximum for s in stats)
    full = 360.0 if unit == "degrees" else 2.0 * math.pi
    eps = 1e-6 * full
    positive, signed = (("[0, 360)", "[−180, 180)") if unit == "degrees"
                        else ("[0, 2π)", "[−π, π)"))
    span = f"values from {low:g} to {high:g}"
    if low >= -eps and high <= full + eps:
        return positive, f"{span}: none negative"
    if low >= -full / 2 - eps and high <= full / 2 + eps:
        return signed, f"{span}: centred on 0"
    return None, f"{span} fit no usual convention; they are wrapped on import"
