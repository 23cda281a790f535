"""Reading a data set from a table with the user's (or the suggested) import choices.

The import dialog shows a :class:`~stpca_gui.io.preview.TablePreview` and lets the user
change its suggestions; what it then reads is :func:`import_table` of an
:class:`ImportChoices`. Opening a file without the dialog (the command line) reads it with
the preview's suggestions: :func:`import_with_suggestions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..io.preview import TablePreview, preview_table
from ..io.tables import PROVENANCE_COLUMNS, TableError, carried_column_role, read_angle_table
from .dataset import Dataset

__all__ = ["ImportChoices", "import_table", "import_with_suggestions"]

#: Preview notes repeated in the message of a file with no angle column (the first say most).
_NOTES_IN_MESSAGE = 3


@dataclass(frozen=True)
class ImportChoices:
    """What to read from a table.

    Attributes
    ----------
    columns : tuple of str
        Angle columns (at least one).
    label_column : str or None
        Optional column of group labels (not an angle column).
    degrees : bool
        The angles are in degrees.
    row_filter : (column, value) or None
        Keep only the rows whose ``column`` holds ``value``.
    lags : int or None
        Build the lag-``lags`` embedding of the single angle column (file order).
    """

    columns: tuple[str, ...]
    label_column: str | None = None
    degrees: bool = False
    row_filter: tuple[str, str] | None = None
    lags: int | None = None

    @classmethod
    def suggested(cls, preview: TablePreview) -> ImportChoices:
        """The preview's suggestions: angle columns, label column and unit."""
        return cls(columns=tuple(preview.suggested_angle_columns),
                   label_column=preview.suggested_label_column,
                   degrees=preview.suggested_unit == "degrees")

    def validate(self) -> None:
        """Raise ValueError (with a message for the user) for contradictory choices."""
        if not self.columns:
            raise ValueError("Choose at least one angle column.")
        carried = [name for name in self.columns if name in PROVENANCE_COLUMNS]
        if carried:
            raise ValueError(f"{carried[0]!r} {carried_column_role(carried[0])}, carried "
                             "into the results, not an angle.")
        if self.label_column in self.columns:
            raise ValueError(f"{self.label_column!r} cannot be both an angle and the label "
                             "column.")
        if self.row_filter is not None and not self.row_filter[1].strip():
            raise ValueError("Give the value to keep, or choose no filter column.")
        if self.lags is not None and len(self.columns) != 1:
            raise ValueError("A lagged embedding is built from exactly one angle column.")


def import_table(path: str | Path, choices: ImportChoices) -> Dataset:
    """Read a data set from ``path`` as ``choices`` say; rows with invalid angles are
    skipped (listed in ``Dataset.dropped``). Provenance columns (``trajectory``, ``frame``,
    ``time`` … of a ``stpca dihedrals`` table) are carried, never angles, and the table's
    structure record (its sidecar) comes along.

    Raises
    ------
    ValueError
        Contradictory choices or a table they cannot be read from
        (:class:`~stpca_gui.io.TableError` is a ValueError).
    OSError
        The file cannot be read.
    """
    choices.validate()
    options = {"columns": list(choices.columns), "degrees": choices.degrees,
               "label_column": choices.label_column, "drop_invalid": True,
               "row_filter": choices.row_filter}
    table = read_angle_table(path, **options)
    dataset = Dataset.from_table(table, degrees=choices.degrees, options=options)
    if choices.lags is not None:
        dataset = dataset.lagged(0, choices.lags)
    return dataset


def import_with_suggestions(path: str | Path) -> Dataset:
    """Read a data set with the choices the import preview suggests for the file.

    Raises
    ------
    TableError
        The file cannot be read, or no column is suggested as angles (the message names the
        file and repeats the preview's notes, which say why).
    """
    preview = preview_table(path)
    if not preview.suggested_angle_columns:
        why = "".join(f"; {note}" for note in preview.notes[:_NOTES_IN_MESSAGE])
        raise TableError(f"{preview.path}: no column holds numbers that could be angles "
                         f"(columns {', '.join(map(repr, preview.column_names))}){why}")
    return import_table(path, ImportChoices.suggested(preview))
