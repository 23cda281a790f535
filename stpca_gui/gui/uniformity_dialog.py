"""Analysis → Uniformity tests: Watson, Giné F_n and PAD tests of a score or an angle."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFormLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.uniformity import UniformityTest, uniformity_tests
from ..model import AppState

CALIBRATIONS = (("asymptotic", "asymptotic (exact limit laws)"),
                ("monte_carlo", "Monte Carlo under uniformity"))
DISPLAY_NAMES = {"Watson": "Watson U²", "Gine_Fn": "Giné F_n", "PAD": "Projected Anderson–Darling"}


def test_columns(state: AppState) -> list[tuple[str, np.ndarray]]:
    """(name, angles) of everything that can be tested: PNS1 (as an angle on the principal
    circle), the other scores, and the data's angle columns."""
    columns: list[tuple[str, np.ndarray]] = []
    result = state.result
    if result is not None:
        radius = float(result.model.pns_.circle_radius_)
        columns.append(("PNS1 (angle on the principal circle)", result.pns1 / radius))
        for k in range(1, result.scores.shape[1]):
            columns.append((f"PNS{k + 1}", result.scores[:, k]))
    if state.dataset is not None:
        for k, name in enumerate(state.dataset.column_names):
            columns.append((f"angle {name}", state.dataset.angles[:, k]))
    return columns


class UniformityDialog(QDialog):
    """Choose a column and a calibration, run the three tests, read the table."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Uniformity tests")
        self.resize(640, 320)
        self.columns = test_columns(state)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.column = QComboBox()
        self.column.addItems([name for name, _ in self.columns])
        form.addRow("Test", self.column)
        self.calibration = QComboBox()
        for key, text in CALIBRATIONS:
            self.calibration.addItem(text, key)
        form.addRow("p-values", self.calibration)
        self.replicates = QSpinBox()
        self.replicates.setRange(100, 100_000)
        self.replicates.setSingleStep(500)
        self.replicates.setValue(1000)
        form.addRow("Monte Carlo replicates", self.replicates)
        layout.addLayout(form)
        self.run_button = QPushButton("Run")
        self.run_button.clicked.connect(self.run)
        layout.addWidget(self.run_button)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["test", "statistic", "p-value", "calibration"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table)
        self.note = QLabel("Small p-values reject uniformity on the circle.")
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        self.results: dict[str, UniformityTest] = {}

    def run(self) -> dict[str, UniformityTest]:
        """Run the tests on the chosen column and show them."""
        name, values = self.columns[self.column.currentIndex()]
        calibration = str(self.calibration.currentData())
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self.results = uniformity_tests(values, n_replicates=self.replicates.value(),
                                            random_state=0, calibration=calibration)
        except ValueError as exc:
            self.note.setText(f"Cannot test {name}: {exc}")
            return {}
        finally:
            QGuiApplication.restoreOverrideCursor()
        self.table.setRowCount(len(self.results))
        for row, test in enumerate(self.results.values()):
            method = (f"{test.method}, {test.n_replicates} replicates" if test.n_replicates
                      else test.method)
            for col, text in enumerate((DISPLAY_NAMES.get(test.name, test.name),
                                        f"{test.statistic:.5g}", f"{test.p_value:.4f}",
                                        method)):
                self.table.setItem(row, col, QTableWidgetItem(text))
        self.note.setText(f"{name}, n = {len(values)}. Small p-values reject uniformity.")
        return self.results
