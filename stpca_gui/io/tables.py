"""Reading tables of angles from CSV, TSV or whitespace-separated text.

The delimiter and the presence of a header row are detected; every problem is reported
with the file name, the 1-based line number and the column, because a user has to find it
in a spreadsheet.
"""

from __future__ import annotations

import csv
import itertools
import math
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, TypedDict, Unpack

import numpy as np
from numpy.typing import NDArray

from ..core.geometry.torus import wrap_angles

SNIFF_BYTES = 64 * 1024
#: Longest line a table may have (a row of 10⁴ angles is ~0.2 MiB); longer ones are refused
#: before they are held in memory.
MAX_LINE_BYTES = 8 * 2**20
#: Most columns a table may have.
MAX_COLUMNS = 10_000
#: Largest magnitude an angle may have, in degrees or radians (far beyond any unwrapped
#: angle; at 10²⁰ nothing of the angle is left after wrapping).
MAX_ANGLE_MAGNITUDE = 1e9
_CANDIDATE_DELIMITERS = ",;\t| "
#: Values beyond this magnitude cannot be radians of a sensible table: suggest degrees.
DEGREE_HINT_THRESHOLD = 2.0 * math.pi + 1e-9
#: Provenance columns: where a row comes from (the tables of ``stpca dihedrals`` have
#: them), and ``weight``, a per-frame weight (e.g. from enhanced sampling) for the
#: free-energy landscape. Never read as angles unless chosen by name; carried into the
#: scores tables.
PROVENANCE_COLUMNS = ("trajectory", "frame", "time", "segid", "resid", "resname", "weight")
#: The carried column that holds frame weights rather than where a row comes from.
WEIGHT_COLUMN = "weight"


def carried_column_role(name: str) -> str:
    """What a carried column of :data:`PROVENANCE_COLUMNS` is, in a person's words (to
    follow its name): frame weights for ``weight``, where the rows come from for the
    others."""
    if name == WEIGHT_COLUMN:
        return "holds frame weights (for the free-energy landscape)"
    return "says where the rows come from (provenance)"


class TableError(ValueError):
    """A table cannot be read; the message names the file, line and column."""


@dataclass(frozen=True)
class AngleTable:
    """Angles read from a file.

    Attributes
    ----------
    path : Path
    column_names : tuple of str
        Names of the angle columns used.
    angles : ndarray, shape (n, d)
        Radians wrapped to [-π, π).
    labels : ndarray or None
        Values of the label column (strings), when one was chosen.
    line_numbers : ndarray of int, shape (n,)
        1-based line in the file of each kept row.
    dropped : list of (int, str)
        Lines skipped with ``drop_invalid=True`` and why.
    degrees_suspected : bool
        True when the values were read as radians but some exceed 2π in magnitude.
    provenance : dict of str to ndarray
        The ``provenance_columns`` the file has, as text per kept row (e.g. ``frame``,
        ``resid`` of a ``stpca dihedrals`` table); empty when none was asked for or found.
    """

    path: Path
    column_names: tuple[str, ...]
    angles: NDArray[np.float64]
    labels: NDArray[np.str_] | None
    line_numbers: NDArray[np.int64]
    dropped: list[tuple[int, str]] = field(default_factory=list)
    degrees_suspected: bool = False
    provenance: dict[str, NDArray[np.str_]] = field(default_factory=dict)


def sniff(sample: str) -> tuple[str | None, bool]:
    """Return (delimiter or None for whitespace, has_header)."""
    lines = [ln for ln in sample.splitlines() if ln.strip()][:50]
    if not lines:
        return ",", False
    delimiter: str | None
    try:
        dialect = csv.Sniffer().sniff("\n".join(lines), delimiters=_CANDIDATE_DELIMITERS)
        delimiter = dialect.delimiter
    except csv.Error:
        delimiter = _most_common_delimiter(lines)
    if delimiter == " ":
        delimiter = None
    first = _split_or_whole(lines[0], delimiter or "")
    body = [_split_or_whole(line, delimiter or "") for line in lines[1:21]]
    # A header row has text where the body has numbers; a text column that is text in
    # every row (labels) says nothing.
    has_header = False
    for k, cell in enumerate(first):
        column = [row[k] for row in body if k < len(row)]
        numeric_body = bool(column) and sum(map(is_number, column)) > len(column) / 2
        if numeric_body and not is_number(cell):
            has_header = True
    if not body:
        has_header = not all(map(is_number, first))
    return delimiter, has_header


def split_fields(line: str, delimiter: str) -> list[str]:
    """Cells of one line: runs of whitespace for an empty delimiter, else CSV rules.

    Raises ``csv.Error`` for a field beyond the csv module's size limit (128 KiB).
    """
    if not delimiter:
        return line.split()
    return [cell.strip() for cell in next(csv.reader([line], delimiter=delimiter))]


def split_line(file: Path, line_no: int, line: str, delimiter: str | None) -> list[str]:
    """:func:`split_fields` of line ``line_no`` of ``file``, a TableError naming both when
    the csv module refuses it."""
    try:
        return split_fields(line, delimiter or "")
    except csv.Error as exc:
        raise TableError(f"{file}: line {line_no}: {exc}") from None


def _split_or_whole(line: str, delimiter: str) -> list[str]:
    """Cells for layout detection: a line csv refuses counts as one cell (reading it later
    reports the problem with its line number)."""
    try:
        return split_fields(line, delimiter)
    except csv.Error:
        return [line]


def _most_common_delimiter(lines: list[str]) -> str | None:
    """The explicit delimiter found on most lines (the sniffer gives up on ragged rows);
    None (whitespace) when no line has one."""
    best, best_lines = None, 0
    for candidate in _CANDIDATE_DELIMITERS.strip():
        present = sum(candidate in line for line in lines)
        if present > best_lines:
            best, best_lines = candidate, present
    return best


def _same_value(cell: str, wanted: str) -> bool:
    if is_number(cell) and is_number(wanted):
        return float(cell) == float(wanted)
    return cell == wanted


def is_number(text: str) -> bool:
    """A finite decimal number (not "nan", "inf" or "1_000", which float() accepts)."""
    if "_" in text:
        return False
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


@dataclass(frozen=True)
class AngleChunk:
    """Consecutive rows of a table read by :func:`iter_angle_chunks`.

    Attributes
    ----------
    angles : ndarray, shape (k, d)
        Radians wrapped to [-π, π).
    labels : ndarray or None
        Values of the label column, when one was chosen.
    line_numbers : ndarray of int, shape (k,)
        1-based line in the file of each row.
    dropped : list of (int, str)
        Lines of this stretch skipped with ``drop_invalid=True`` and why.
    degrees_suspected : bool
        Values were read as radians but some exceed 2π in magnitude.
    bytes_read : int
        Bytes of the file read so far (for progress against the file size).
    provenance : dict of str to ndarray
        The file's provenance columns (:data:`PROVENANCE_COLUMNS`), as text per row.
    """

    angles: NDArray[np.float64]
    labels: NDArray[np.str_] | None
    line_numbers: NDArray[np.int64]
    dropped: list[tuple[int, str]]
    degrees_suspected: bool
    bytes_read: int
    provenance: dict[str, NDArray[np.str_]] = field(default_factory=dict)


class _TableLayout:
    """Where the wanted columns are in the rows of one file, and the reading of a row.

    Built from the sniffed delimiter and header and the first non-empty line; shared by the
    whole-file reader and the chunked one, so both accept and refuse the same rows with the
    same messages.
    """

    def __init__(self, file: Path, first_line: tuple[int, str], delimiter: str | None,
                 has_header: bool, columns: list[str] | None, label_column: str | None,
                 row_filter: tuple[str, str] | None,
                 provenance_columns: tuple[str, ...] = ()) -> None:
        self.file = file
        self.delimiter = delimiter
        self.has_header = has_header
        if has_header:
            header = split_line(file, *first_line, delimiter)
        else:
            width = len(split_line(file, *first_line, delimiter))
            header = [str(k + 1) for k in range(width)]
        if len(header) > MAX_COLUMNS:
            raise TableError(f"{file}: {len(header):,} columns; a table of angles may have at "
                             f"most {MAX_COLUMNS:,}")
        self.header = header
        index: dict[str, int] = {}
        duplicated: set[str] = set()
        for k, name in enumerate(header):
            if name in index:
                duplicated.add(name)
            index.setdefault(name, k)

        def column_index(name: str) -> int:
            if name not in index:
                raise TableError(
                    f"{file}: no column named {name!r}; columns are {', '.join(header)}")
            if name in duplicated:
                raise TableError(f"{file}: the header has more than one column named {name!r}")
            return index[name]

        self.label_index = column_index(label_column) if label_column else None
        self.filter_index = column_index(row_filter[0]) if row_filter else None
        self.wanted_value = row_filter[1].strip() if row_filter else ""
        # Provenance columns the file has are carried, never read as angles.
        self.carried = [name for name in provenance_columns
                        if name in index and name not in (columns or ())]
        self.carried_index = [column_index(name) for name in self.carried]
        self.wanted = columns if columns else [h for h in header if h != label_column
                                               and h not in self.carried]
        self.angle_index = [column_index(name) for name in self.wanted]

    def carried_cells(self, line_no: int, line: str) -> list[str]:
        """The provenance cells of a body line (checked by :meth:`parse` before)."""
        cells = split_line(self.file, line_no, line, self.delimiter)
        return [cells[k] if k < len(cells) else "" for k in self.carried_index]

    def parse(self, line_no: int, line: str) -> tuple[list[float] | None, str, str | None]:
        """(values, label, problem) of one body line; values is None for a row the filter
        leaves out or one with a problem (then named in ``problem``)."""
        cells = split_line(self.file, line_no, line, self.delimiter)
        if len(cells) > len(self.header) and any(cells[len(self.header):]):
            return None, "", (f"{self.file}: line {line_no} has {len(cells)} fields, the "
                              f"header {len(self.header)}")
        if self.filter_index is not None:
            cell = cells[self.filter_index] if self.filter_index < len(cells) else ""
            if not _same_value(cell, self.wanted_value):
                return None, "", None
        values: list[float] = []
        for name, k in zip(self.wanted, self.angle_index, strict=True):
            cell = cells[k] if k < len(cells) else ""
            try:
                value = float(cell) if "_" not in cell else math.nan  # "1_000": not a table's
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                what = "missing value" if cell == "" else f"non-numeric value {cell[:40]!r}"
                return None, "", f"{self.file}: line {line_no}, column {name!r}: {what}"
            if abs(value) > MAX_ANGLE_MAGNITUDE:
                return None, "", (f"{self.file}: line {line_no}, column {name!r}: {cell[:40]} "
                                  f"is not a plausible angle (magnitude above "
                                  f"{MAX_ANGLE_MAGNITUDE:.0e})")
            values.append(value)
        label = ""
        if self.label_index is not None:
            label = cells[self.label_index] if self.label_index < len(cells) else ""
        return values, label, None

    def parse_plain_numbers(self, lines: list[str]) -> NDArray[np.float64] | None:
        """The angle columns of body ``lines`` (n, angles) read by numpy's C reader, or None
        unless every wanted cell of every line is a finite number in a plain layout (no
        quotes, label or filter), for :meth:`parse` to read them line by line."""
        if self.label_index is not None or self.filter_index is not None:
            return None
        if any('"' in line for line in lines):
            return None
        width = len(self.header)
        if any((line.count(self.delimiter) + 1 if self.delimiter else len(line.split()))
               > width for line in lines):
            return None  # more fields than the header: :meth:`parse` refuses the row
        try:
            values = np.loadtxt(lines, dtype=np.float64, delimiter=self.delimiter,
                                comments=None, usecols=self.angle_index, ndmin=2)
        except ValueError:
            return None
        if values.shape != (len(lines), len(self.angle_index)) or not np.isfinite(values).all():
            return None
        if np.abs(values).max(initial=0.0) > MAX_ANGLE_MAGNITUDE:
            return None  # read line by line, which names the row and column
        return values


def _radians(raw: NDArray[np.float64], degrees: bool) -> tuple[NDArray[np.float64], bool]:
    """Angles wrapped to [-π, π) and whether radians beyond 2π suggest degrees."""
    suspected = not degrees and bool(np.any(np.abs(raw) > DEGREE_HINT_THRESHOLD))
    return wrap_angles(np.deg2rad(raw) if degrees else raw), suspected


class TableOptions(TypedDict, total=False):
    """How :func:`read_angle_table` and :func:`iter_angle_chunks` read the rows (their
    keyword arguments besides the columns; each is optional).

    Attributes
    ----------
    degrees : bool, default False
        Values are degrees (converted to radians).
    label_column : str or None, default None
        A column of labels (any text) kept alongside the angles.
    drop_invalid : bool, default False
        Skip rows with missing or non-numeric angles (listed in ``dropped``) instead of
        raising.
    row_filter : (column, value) or None, default None
        Keep only the rows whose ``column`` equals ``value`` (compared as numbers when both
        are numeric, so "23" matches "23.0", else as text), e.g. ("cycle", "23").
    """

    degrees: bool
    label_column: str | None
    drop_invalid: bool
    row_filter: tuple[str, str] | None


_OPTION_DEFAULTS: dict[str, Any] = {"degrees": False, "label_column": None,
                                    "drop_invalid": False, "row_filter": None}


def _with_defaults(options: TableOptions) -> dict[str, Any]:
    """``options`` with every option present, refusing a name that is not one."""
    unknown = set(options) - set(_OPTION_DEFAULTS)
    if unknown:
        raise TypeError(f"unknown table option(s): {', '.join(sorted(unknown))}")
    return {**_OPTION_DEFAULTS, **options}


def read_angle_table(
    path: str | Path,
    columns: list[str] | None = None,
    *,
    provenance_columns: tuple[str, ...] = PROVENANCE_COLUMNS,
    **options: Unpack[TableOptions],
) -> AngleTable:
    """Read angle columns from a delimited text file.

    Parameters
    ----------
    path : str or Path
    columns : list of str, optional
        Angle columns by header name (or 1-based number as text when there is no header).
        Default: every column except ``label_column``.
    provenance_columns : tuple of str
        Columns kept as text in ``provenance`` when the file has them, and never read as
        angles unless named in ``columns`` (default :data:`PROVENANCE_COLUMNS`: ``frame``,
        ``trajectory``, ``time``, ``segid``, ``resid``, ``resname``).
    **options : TableOptions
        ``degrees``, ``label_column``, ``drop_invalid``, ``row_filter``.

    Raises
    ------
    TableError
        Missing/unreadable file, unknown column, non-numeric or missing value (naming the
        file, line and column), too few rows.
    """
    file = Path(path)
    chosen = _with_defaults(options)
    label_column, row_filter = chosen["label_column"], chosen["row_filter"]
    sample, numbered = read_table_lines(file)
    delimiter, has_header = sniff(sample)
    if not numbered:
        raise TableError(f"{file}: the file is empty")
    layout = _TableLayout(file, numbered[0], delimiter, has_header, columns, label_column,
                          row_filter, tuple(provenance_columns))
    body = numbered[1:] if has_header else numbered
    carried: list[list[str]] = []

    rows: list[list[float]] = []
    labels: list[str] = []
    lines: list[int] = []
    dropped: list[tuple[int, str]] = []
    for line_no, line in body:
        values, label, problem = layout.parse(line_no, line)
        if problem is not None:
            if not chosen["drop_invalid"]:
                raise TableError(problem)
            dropped.append((line_no, problem))
            continue
        if values is None:
            continue
        rows.append(values)
        lines.append(line_no)
        labels.append(label)
        if layout.carried:
            carried.append(layout.carried_cells(line_no, line))
    if len(rows) < 3:
        where = (f" with {row_filter[0]} = {row_filter[1]}" if row_filter else "")
        raise TableError(f"{file}: {len(rows)} usable row(s){where}; at least 3 are needed")
    angles, suspected = _radians(np.asarray(rows, dtype=np.float64), chosen["degrees"])
    return AngleTable(
        path=file,
        column_names=tuple(layout.wanted),
        angles=angles,
        labels=np.asarray(labels) if layout.label_index is not None else None,
        line_numbers=np.asarray(lines, dtype=np.int64),
        dropped=dropped,
        degrees_suspected=suspected,
        provenance={name: np.asarray([row[k] for row in carried])
                    for k, name in enumerate(layout.carried)},
    )


#: Rows per chunk of :func:`iter_angle_chunks` (about 4 MB of angles at d = 10).
CHUNK_ROWS = 50_000


class AngleChunks(Iterator[AngleChunk]):
    """The chunks of :func:`iter_angle_chunks`, and the provenance columns they carry."""

    def __init__(self, chunks: Iterator[AngleChunk], provenance_columns: tuple[str, ...]
                 ) -> None:
        self._chunks = chunks
        #: The file's provenance columns, in the order of each chunk's ``provenance``.
        self.provenance_columns = provenance_columns

    def __next__(self) -> AngleChunk:
        return next(self._chunks)

    def close(self) -> None:
        """Stop reading and close the file."""
        self._chunks.close()  # type: ignore[attr-defined]


def iter_angle_chunks(
    path: str | Path,
    columns: list[str] | None = None,
    *,
    chunk_rows: int = CHUNK_ROWS,
    provenance_columns: tuple[str, ...] = PROVENANCE_COLUMNS,
    **options: Unpack[TableOptions],
) -> tuple[tuple[str, ...], AngleChunks]:
    """Read a table like :func:`read_angle_table`, ``chunk_rows`` rows at a time.

    The file is streamed: memory holds one chunk, whatever the file's length. The layout
    (delimiter, header, columns) is read at once, so an unknown column fails before the
    first chunk is asked for. Provenance columns are carried as for
    :func:`read_angle_table` (never read as angles unless named in ``columns``).

    Returns
    -------
    column_names : tuple of str
        The angle columns read.
    chunks : AngleChunks
        An iterator of AngleChunk: every chunk holds ``chunk_rows`` rows except the last; a
        file without data rows gives none. Reading a bad row raises TableError when it is
        reached (naming the file, line and column), unless ``drop_invalid``. Its
        ``provenance_columns`` names the provenance columns the chunks carry.
    """
    file = Path(path)
    chosen = _with_defaults(options)
    handle = open_table(file)  # closed by the generator of chunks, or below
    try:
        sample = handle.read(SNIFF_BYTES).decode("utf-8-sig", errors="replace")
        delimiter, has_header = sniff(sample)
        handle.seek(0)
        lines = _numbered_lines(file, handle)
        first = next(lines, None)
        if first is None:
            raise TableError(f"{file}: the file is empty")
        layout = _TableLayout(file, first[:2], delimiter, has_header, columns,
                              chosen["label_column"], chosen["row_filter"],
                              tuple(provenance_columns))
    except BaseException:
        handle.close()
        raise
    if has_header:
        body = lines
    else:
        body = itertools.chain([first], lines)
    chunks = _chunks(layout, handle, body, chosen["degrees"], chosen["drop_invalid"],
                     int(chunk_rows))
    return tuple(layout.wanted), AngleChunks(chunks, tuple(layout.carried))


def open_table(file: Path) -> BinaryIO:
    """``file`` opened for reading bytes; only a regular file (a FIFO without a writer
    would block forever, a device never end).

    Raises
    ------
    TableError
        Naming the file: missing, a folder or other non-regular file, unreadable.
    """
    try:
        descriptor = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise TableError(f"{file}: no such file") from None
    except OSError as exc:
        raise TableError(f"{file}: cannot be read ({exc.strerror or exc})") from None
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        os.close(descriptor)
        kind = "a folder" if stat.S_ISDIR(status.st_mode) else "not a regular file"
        raise TableError(f"{file}: {kind}, not a table file")
    if hasattr(os, "set_blocking"):
        os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


def read_table_lines(file: Path) -> tuple[str, list[tuple[int, str]]]:
    """The sniffing sample and the numbered non-blank lines of a whole table (lines end
    at ``\\n`` or ``\\r\\n`` only: a label's U+2028 or U+0085 stays in its row)."""
    with open_table(file) as handle:
        sample = handle.read(SNIFF_BYTES).decode("utf-8-sig", errors="replace")
        handle.seek(0)
        return sample, [(number, line) for number, line, _ in _numbered_lines(file, handle)]


def table_header(path: str | Path) -> tuple[str, ...]:
    """The column names of a table as the readers see them (the header's, or "1", "2", …
    without one), from its first 64 KiB only.

    Raises
    ------
    TableError
        Missing, unreadable, non-regular or empty file.
    """
    file = Path(path)
    with open_table(file) as handle:
        sample = handle.read(SNIFF_BYTES).decode("utf-8-sig", errors="replace")
    first = next(((k + 1, line) for k, line in enumerate(sample.split("\n"))
                  if line.strip()), None)
    if first is None:
        raise TableError(f"{file}: the file is empty")
    delimiter, has_header = sniff(sample)
    cells = split_line(file, first[0], first[1].rstrip("\r"), delimiter)
    return tuple(cells) if has_header else tuple(str(k + 1) for k in range(len(cells)))


def _numbered_lines(file: Path, handle: BinaryIO) -> Iterator[tuple[int, str, int]]:
    """(1-based line number, text, bytes read so far) of every non-blank line; a line
    longer than :data:`MAX_LINE_BYTES` is refused before it is read whole."""
    done = 0
    for number, raw in enumerate(iter(lambda: handle.readline(MAX_LINE_BYTES + 1), b""),
                                 start=1):
        if len(raw) > MAX_LINE_BYTES:
            raise TableError(f"{file}: line {number} is longer than "
                             f"{MAX_LINE_BYTES // 2**20} MiB; not a table of angles")
        done += len(raw)
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            raise TableError(f"{file}: line {number}: cannot be read as text ({exc})") from None
        if line.strip():
            yield number, line.rstrip("\r\n"), done


def _chunks(layout: _TableLayout, handle: BinaryIO, body: Iterator[tuple[int, str, int]],
            degrees: bool, drop_invalid: bool, chunk_rows: int) -> Iterator[AngleChunk]:
    # Lines are taken in batches of the rows the chunk still lacks; a batch of plain numbers
    # is parsed by numpy's C reader (most of `stpca transform`'s time was this loop in
    # Python), any other batch line by line, so that a bad row is reported (or dropped)
    # exactly as before and chunks end at the same lines.
    with handle:
        blocks: list[NDArray[np.float64]] = []
        count = 0
        labels: list[str] = []
        lines: list[int] = []
        carried: list[list[str]] = []
        dropped: list[tuple[int, str]] = []
        done = 0
        while True:
            batch = list(itertools.islice(body, chunk_rows - count))
            if not batch:
                break
            done = batch[-1][2]
            block = layout.parse_plain_numbers([line for _, line, _ in batch])
            if block is not None:
                labels.extend([""] * len(batch))
                lines.extend(line_no for line_no, _, _ in batch)
                if layout.carried:
                    carried.extend(layout.carried_cells(line_no, line)
                                   for line_no, line, _ in batch)
            else:
                rows: list[list[float]] = []
                for line_no, line, _ in batch:
                    values, label, problem = layout.parse(line_no, line)
                    if problem is not None:
                        if not drop_invalid:
                            raise TableError(problem)
                        dropped.append((line_no, problem))
                    elif values is not None:
                        rows.append(values)
                        labels.append(label)
                        lines.append(line_no)
                        if layout.carried:
                            carried.append(layout.carried_cells(line_no, line))
                block = np.asarray(rows, dtype=np.float64).reshape(len(rows),
                                                                    len(layout.wanted))
            blocks.append(block)
            count += len(block)
            if count == chunk_rows:
                yield _chunk(layout, blocks, labels, lines, carried, dropped, degrees, done)
                blocks, count, labels, lines, carried, dropped = [], 0, [], [], [], []
        if count or dropped:
            yield _chunk(layout, blocks, labels, lines, carried, dropped, degrees, done)


def _chunk(layout: _TableLayout, blocks: list[NDArray[np.float64]], labels: list[str],
           lines: list[int], carried: list[list[str]], dropped: list[tuple[int, str]],
           degrees: bool, bytes_read: int) -> AngleChunk:
    raw = (np.concatenate(blocks) if blocks
           else np.empty((0, len(layout.wanted)))).reshape(-1, len(layout.wanted))
    angles, suspected = _radians(raw, degrees)
    return AngleChunk(
        angles=angles,
        labels=np.asarray(labels) if layout.label_index is not None else None,
        line_numbers=np.asarray(lines, dtype=np.int64),
        dropped=dropped,
        degrees_suspected=suspected,
        bytes_read=bytes_read,
        provenance={name: np.asarray([row[k] for row in carried], dtype=str)
                    for k, name in enumerate(layout.carried)},
    )
