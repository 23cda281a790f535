"""Analysis → Uniformity tests: Watson, Giné F_n and PAD tests of a score or an angle."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core import UniformityTest
from ..model import AppState
from ..model.tasks import TaskProgress
from ..model.uniformity import testable_columns, uniformity_task
from .tasks import TaskRunner, show_task_error

CALIBRATIONS = (("asymptotic", "asymptotic (exact limit laws)"),
                ("monte_carlo", "Monte Carlo under uniformity"))
PAD_TIE_CHOICES = (("limit", "continuous limit (the definition)"),
                   ("sphunif", "as R sphunif (drops tied pairs whose ψ rounds to 0)"))
DISPLAY_NAMES = {"Watson": "Watson U²", "Gine_Fn": "Giné F_n", "PAD": "Projected Anderson–Darling"}


class UniformityDialog(QDialog):
    """Choose a column and a calibration, run the three tests, read the table.

    The tests run in the background (a Monte Carlo calibration can take a while): a
    progress bar and a Cancel button show while they run, and closing the dialog cancels
    them. ``results_shown`` is emitted when the table shows a finished run.
    """

    results_shown = Signal(dict)

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Uniformity tests")
        self.resize(640, 320)
        self.columns = testable_columns(state)
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
        self.pad_ties = QComboBox()
        for key, text in PAD_TIE_CHOICES:
            self.pad_ties.addItem(text, key)
        self.pad_ties.setToolTip(
            "How PAD counts tied angles. The continuous limit is the statistic's definition. "
            "R sphunif 1.x sets the term of a tied pair to 0 when its angle rounds to exactly "
            "0, which depends on the last bits of the data; choose it to compare with "
            "published sphunif p-values (docs/uniformity.md).")
        form.addRow("PAD ties", self.pad_ties)
        layout.addLayout(form)
        run_row = QHBoxLayout()
        self.run_button = QPushButton("Run")
        self.run_button.clicked.connect(self.run)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.progress, 1)
        run_row.addWidget(self.cancel_button)
        layout.addLayout(run_row)
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
        self.runner = TaskRunner(self)
        self.cancel_button.clicked.connect(self.runner.cancel)
        self.runner.started.connect(lambda: self._show_running(True))
        self.runner.finished.connect(lambda _outcome: self._show_running(False))
        self.runner.progress.connect(self._on_progress)
        self.runner.succeeded.connect(self._show_results)
        self.runner.failed.connect(self._on_failure)
        self.runner.cancelled.connect(lambda: self.note.setText("Cancelled."))
        self._running_name = ""
        self._running_n = 0

    def run(self) -> None:
        """Start the tests of the chosen column (a running test is superseded)."""
        name, values = self.columns[self.column.currentIndex()]
        self._running_name, self._running_n = name, len(values)
        self.note.setText(f"Testing {name}…")
        self.runner.start(partial(uniformity_task, values, str(self.calibration.currentData()),
                                  self.replicates.value(), str(self.pad_ties.currentData())))

    def _show_running(self, running: bool) -> None:
        self.progress.setVisible(running)
        self.cancel_button.setVisible(running)
        self.progress.setValue(0)

    def _on_progress(self, report: TaskProgress) -> None:
        self.progress.setValue(round(100 * report.fraction))
        if report.message:
            self.note.setText(report.message)

    def _on_failure(self, message: str, details: str) -> None:
        self.note.setText(f"Cannot test {self._running_name}: {message}")
        show_task_error(self, "The uniformity tests failed", message, details)

    def _show_results(self, results: dict[str, UniformityTest]) -> None:
        self.results = results
        self.table.setRowCount(len(results))
        for row, test in enumerate(results.values()):
            method = (f"{test.method}, {test.n_replicates} replicates" if test.n_replicates
                      else test.method)
            for col, text in enumerate((DISPLAY_NAMES.get(test.name, test.name),
                                        f"{test.statistic:.5g}", f"{test.p_value:.4f}",
                                        method)):
                self.table.setItem(row, col, QTableWidgetItem(text))
        details = "".join(f" {test.details}." for test in results.values() if test.details)
        self.note.setText(f"{self._running_name}, n = {self._running_n}. Small p-values "
                          f"reject uniformity.{details}")
        self.results_shown.emit(results)

    def done(self, result: int) -> None:
        self.runner.shutdown()
        super().done(result)
