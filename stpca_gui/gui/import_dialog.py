"""The file import dialog: preview, angle and label columns, unit."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QRadioButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..io.preview import TablePreview, preview_table
from ..io.tables import PROVENANCE_COLUMNS, carried_column_role
from ..model import Dataset
from ..model.table_import import ImportChoices, import_table

_NO_LABEL = "(none)"


class ImportDialog(QDialog):
    """Choose what to read from a table; ``dataset()`` reads it after acceptance."""

    def __init__(self, path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = Path(path)
        self.preview: TablePreview = preview_table(self.path)
        self.setWindowTitle(f"Import {self.path.name}")
        self.resize(820, 560)
        layout = QVBoxLayout(self)
        info = QLabel(
            f"<b>{self.path}</b><br>{self.preview.delimiter_name} separated, "
            f"{'with' if self.preview.has_header else 'without'} a header row, "
            f"{self.preview.n_rows} data rows"
        )
        info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(info)

        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        names = list(self.preview.column_names)
        self.table.setColumnCount(len(names))
        self.table.setHorizontalHeaderLabels(names)
        self.table.setRowCount(len(self.preview.rows))
        for r, row in enumerate(self.preview.rows):
            for c, cell in enumerate(row[: len(names)]):
                self.table.setItem(r, c, QTableWidgetItem(cell))
        layout.addWidget(self.table, 1)

        form = QFormLayout()
        self.columns = QListWidget()
        self.columns.setMaximumHeight(110)
        suggested = set(self.preview.suggested_angle_columns)
        for name in names:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in suggested
                               else Qt.CheckState.Unchecked)
            if name in PROVENANCE_COLUMNS:  # carried, never angles
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
                item.setToolTip(f"{name!r} {carried_column_role(name)}: carried into the "
                                "results, not an angle")
            self.columns.addItem(item)
        form.addRow("Angle columns", self.columns)
        self.label = QComboBox()
        self.label.addItem(_NO_LABEL)
        self.label.addItems(names)
        if self.preview.suggested_label_column:
            self.label.setCurrentText(self.preview.suggested_label_column)
        self.label.setToolTip("Optional column of group labels, used for colours")
        form.addRow("Label column", self.label)
        unit_row = QHBoxLayout()
        self.radians = QRadioButton("radians")
        self.degrees = QRadioButton("degrees")
        group = QButtonGroup(self)
        group.addButton(self.radians)
        group.addButton(self.degrees)
        suggested = self.degrees if self.preview.suggested_unit == "degrees" else self.radians
        suggested.setChecked(True)
        unit_row.addWidget(self.radians)
        unit_row.addWidget(self.degrees)
        unit_row.addStretch(1)
        form.addRow("Unit", unit_row)
        self.unit_note = QLabel(self.preview.unit_reason)
        self.unit_note.setWordWrap(True)
        if self.preview.suggested_unit == "degrees":
            self.unit_note.setStyleSheet("color: #D55E00;")
        form.addRow("", self.unit_note)
        form.addRow("Range", QLabel(
            f"{self.preview.range_reason}; every range is wrapped to [−π, π) for the analysis"))
        filter_row = QHBoxLayout()
        self.filter_column = QComboBox()
        self.filter_column.addItem(_NO_LABEL)
        self.filter_column.addItems(names)
        self.filter_value = QLineEdit()
        self.filter_value.setPlaceholderText("value, e.g. 23")
        filter_row.addWidget(self.filter_column)
        filter_row.addWidget(QLabel("="))
        filter_row.addWidget(self.filter_value)
        form.addRow("Keep rows where", filter_row)
        lag_row = QHBoxLayout()
        self.lagged = QCheckBox("lagged embedding of the single angle column, k =")
        self.lags = QSpinBox()
        self.lags.setRange(1, 50)
        self.lags.setValue(3)
        self.lagged.setToolTip("Θ_i = (θ_i, θ_{i+1}, …, θ_{i+k−1}) from one angle series in "
                               "file order (time order), as the paper does with sunspots")
        lag_row.addWidget(self.lagged)
        lag_row.addWidget(self.lags)
        lag_row.addStretch(1)
        form.addRow("Series", lag_row)
        layout.addLayout(form)
        self.error = QLabel("")
        self.error.setStyleSheet("color: #D55E00;")
        layout.addWidget(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.try_accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._dataset: Dataset | None = None

    def chosen_columns(self) -> list[str]:
        return [self.columns.item(k).text() for k in range(self.columns.count())
                if self.columns.item(k).checkState() == Qt.CheckState.Checked]

    def chosen_label(self) -> str | None:
        text = self.label.currentText()
        return None if text == _NO_LABEL else text

    def choices(self) -> ImportChoices:
        """What the dialog's controls say to read."""
        row_filter = None
        if self.filter_column.currentText() != _NO_LABEL:
            row_filter = (self.filter_column.currentText(), self.filter_value.text())
        return ImportChoices(columns=tuple(self.chosen_columns()),
                             label_column=self.chosen_label(),
                             degrees=self.degrees.isChecked(), row_filter=row_filter,
                             lags=self.lags.value() if self.lagged.isChecked() else None)

    def try_accept(self) -> None:
        """Read the table as chosen and accept; on a problem, say it and stay open."""
        try:
            dataset = import_table(self.path, self.choices())
        except (ValueError, OSError) as exc:
            self.error.setText(str(exc))
            return
        self._dataset = dataset
        self.accept()

    def dataset(self) -> Dataset | None:
        """The dataset read on acceptance (None when cancelled)."""
        return self._dataset
