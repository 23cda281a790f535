"""How the table a model was fitted on was read, remembered in the model file.

``stpca fit --save-model`` records the angle columns, their unit and the table options
(:class:`TableReading`, the model file's ``input_table``); ``stpca transform`` reads a new
table the same way by default and refuses one whose columns or unit differ unless told to
(:func:`reading_for_model`). A model file without the record (written by the library, or
by stpca-gui before it kept one) is read with the options given, as before, with a warning.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..core.persistence import INPUT_TABLE_KEY, ModelFileError

__all__ = ["ChosenReading", "TableReading", "reading_for_model"]

#: The units a record may name.
_UNITS = {"degrees": True, "radians": False}
#: Longest column list and name a record may hold (a model has at most this many angles).
_MAX_COLUMNS = 10_000
_MAX_NAME = 1_000
#: The command line flag that scores a table read otherwise than the model was fitted.
OVERRIDE_FLAG = "--override"


@dataclass(frozen=True)
class TableReading:
    """How a table of angles was read.

    Attributes
    ----------
    columns : tuple of str
        The angle columns, in the order of the model's angles.
    degrees : bool
        The values were degrees (else radians).
    label_column : str or None
        The label column, if one was read.
    drop_invalid : bool
        Rows with missing or non-numeric angles were skipped.
    """

    columns: tuple[str, ...]
    degrees: bool
    label_column: str | None = None
    drop_invalid: bool = False

    @property
    def unit(self) -> str:
        """"degrees" or "radians"."""
        return "degrees" if self.degrees else "radians"

    def record(self) -> dict[str, Any]:
        """The JSON object written into the model file."""
        return {"columns": list(self.columns), "unit": self.unit,
                "label_column": self.label_column, "drop_invalid": self.drop_invalid}

    @classmethod
    def from_record(cls, record: Any, source: str | os.PathLike[str]) -> TableReading:
        """The reading of a model file's record, checked (the file is untrusted).

        Raises
        ------
        ModelFileError
            The record is not one :meth:`record` writes; the message names ``source``.
        """
        def fail(problem: str) -> ModelFileError:
            return ModelFileError(f"{source}: damaged model file ({INPUT_TABLE_KEY}: "
                                  f"{problem})")

        if not isinstance(record, dict):
            raise fail("not a JSON object")
        columns = record.get("columns")
        if (not isinstance(columns, list) or not 0 < len(columns) <= _MAX_COLUMNS
                or not all(isinstance(c, str) and 0 < len(c) <= _MAX_NAME for c in columns)):
            raise fail("columns must be a list of names")
        unit = record.get("unit")
        if unit not in _UNITS:
            raise fail(f"unit must be one of {', '.join(_UNITS)}, not {str(unit)[:40]!r}")
        label = record.get("label_column")
        if label is not None and not (isinstance(label, str) and 0 < len(label) <= _MAX_NAME):
            raise fail("label_column must be a name or null")
        drop = record.get("drop_invalid", False)
        if not isinstance(drop, bool):
            raise fail("drop_invalid must be true or false")
        return cls(tuple(columns), _UNITS[unit], label, drop)


@dataclass(frozen=True)
class ChosenReading:
    """How ``stpca transform`` reads a table for a model, and what the user is told.

    Attributes
    ----------
    columns : list of str or None
        The angle columns (None: every column but the label and provenance columns).
    degrees, label_column, drop_invalid
        As :class:`TableReading`.
    recorded : TableReading or None
        What the model file recorded, if anything.
    notes : list of str
        Lines for the user (how the table is read, or why the model's record is missing).
    """

    columns: list[str] | None
    degrees: bool
    label_column: str | None
    drop_invalid: bool
    recorded: TableReading | None
    notes: list[str] = field(default_factory=list)


def reading_for_model(recorded: TableReading | None, header: tuple[str, ...], *,
                      columns: list[str] | None, degrees: bool | None,
                      label_column: str | None, drop_invalid: bool, override: bool,
                      model: str, table: str) -> ChosenReading:
    """How to read the table ``table`` (whose header is ``header``) for the model file
    ``model``: what the model recorded, unless the options given say otherwise.

    ``columns``, ``degrees`` (None: not given), ``label_column`` and ``drop_invalid`` are
    the options given; with ``override`` they are used even where they differ from the
    record.

    Raises
    ------
    ValueError
        The options given or the table differ from the record and ``override`` is off;
        the message names both and what to do.
    """
    if recorded is None:
        unit = "degrees" if degrees else "radians"
        which = f"columns {','.join(columns)}" if columns else "every column"
        return ChosenReading(columns, bool(degrees), label_column, drop_invalid, None, [
            f"warning: {model} does not record the columns and unit it was fitted on "
            "(written by the library, or by an stpca-gui before it kept them): "
            f"{table} is read as given ({which}, "
            f"{unit}); refit with `stpca fit --save-model` to have them checked"])
    if degrees is not None and degrees != recorded.degrees and not override:
        given = "--degrees" if degrees else "--radians"
        raise ValueError(f"{model} was fitted on angles in {recorded.unit}, and {given} reads "
                         f"{table} in {'degrees' if degrees else 'radians'}: drop {given}, "
                         f"or pass {OVERRIDE_FLAG} to score it so anyway")
    if columns is not None and list(columns) != list(recorded.columns) and not override:
        raise ValueError(f"{model} was fitted on the columns {','.join(recorded.columns)}, not "
                         f"{','.join(columns)}: drop --columns, or pass {OVERRIDE_FLAG} to "
                         f"score {','.join(columns)} as {','.join(recorded.columns)}")
    if columns is None:
        missing = [name for name in recorded.columns if name not in header]
        if missing:
            raise ValueError(
                f"{table} has no column(s) {', '.join(missing)}, which {model} was fitted on "
                f"(columns {','.join(recorded.columns)}); its columns are {', '.join(header)}. "
                f"Choose the ones to score as {','.join(recorded.columns)} with --columns "
                f"and {OVERRIDE_FLAG}")
        columns = list(recorded.columns)
    chosen_degrees = recorded.degrees if degrees is None else degrees
    if label_column is None and recorded.label_column in header:
        label_column = recorded.label_column
    reading = ChosenReading(columns, chosen_degrees, label_column,
                            drop_invalid or recorded.drop_invalid, recorded)
    reading.notes.append(
        f"reading {table} as {model} was fitted: columns {','.join(columns)} in "
        f"{'degrees' if chosen_degrees else 'radians'}"
        + (f", labels from {label_column}" if label_column else ""))
    return reading
