"""Analysis → Compare methods: ST-PCA next to T-PCA and the classical PCA variants for angles."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.baselines import CONVENTIONS
from ..model import AppState
from ..model.comparison import VARIANCE_NAMES, MethodRow, baselines_task, method_rows
from ..model.tasks import TaskProgress
from ..plotting.scores import ScoresScatter
from .tasks import TaskRunner, show_task_error
from .views.base import current_colors
from .views.mpl_views import save_figure_atomically, selection_mode_from_keyboard

#: Components shown in the table.
TABLE_COMPONENTS = 3
#: The table's columns: the method, the variance its percentages are shares of, those
#: percentages per component and, for the methods through a sphere, the PNS shares.
TABLE_HEADER = ("method", "variance", *[f"PC{k + 1} %" for k in range(TABLE_COMPONENTS)],
                "sphere (PNS) %")
_SPHERE_TOOLTIP = "shares of the PNS variance on the sphere (sum of squared scores)"


def _percentages(ratio: np.ndarray) -> str:
    return " / ".join(f"{100 * v:.2f}" for v in ratio[:TABLE_COMPONENTS])


class CompareMethodsDialog(QDialog):
    """A table of % variance per component and each method's PC1–PC2 scatter.

    The baselines run in the background when the dialog opens (a progress bar and a
    Cancel button show meanwhile; closing the dialog cancels them); ``methods_shown`` is
    emitted when the table and the scatters show every method.

    The scatters share the app's selection: they show it, and a right-drag rectangle in any
    of them selects (Shift add, Ctrl subtract, Alt intersect).
    """

    methods_shown = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.setWindowTitle("Compare methods")
        self.resize(1100, 760)
        self.rows: list[MethodRow] = []
        self.scatters: list[ScoresScatter] = []
        layout = QVBoxLayout(self)
        intro = QLabel(
            f"{state.dataset.description} — % of variance explained per component, as the "
            "paper's Table 2 reports it: ST-PCA and T-PCA as shares of the torus variance "
            "(§3.5), with their sphere (PNS) shares beside; the PCA variants as covariance "
            "eigenvalue shares of their representation (dPCA on sin/cos, complex dPCA on "
            "e^{iθ}).")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        status = QHBoxLayout()
        self.status = QLabel("Running the baseline methods…")
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.cancel_button = QPushButton("Cancel")
        status.addWidget(self.status, 1)
        status.addWidget(self.progress)
        status.addWidget(self.cancel_button)
        layout.addLayout(status)
        splitter = QSplitter(Qt.Orientation.Vertical)
        self.table = QTableWidget(0, len(TABLE_HEADER))
        self.table.setHorizontalHeaderLabels(list(TABLE_HEADER))
        self.table.verticalHeader().setVisible(False)
        # Rows as tall as their text, so that all eight methods show without scrolling.
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        table_box = QWidget()
        table_layout = QVBoxLayout(table_box)
        table_layout.setContentsMargins(0, 0, 0, 0)
        table_layout.addWidget(self.table)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setVisible(False)
        table_layout.addWidget(self.notes)
        splitter.addWidget(table_box)
        self.figure = Figure(figsize=(10, 6), layout="constrained")
        self.canvas = FigureCanvasQTAgg(self.figure)
        splitter.addWidget(self.canvas)
        splitter.setSizes([260, 500])
        layout.addWidget(splitter)
        # matplotlib's RectangleSelector does not work on sub-figures, so the right-drag
        # rectangle is tracked from the raw mouse events.
        self._press: tuple[ScoresScatter, float, float] | None = None
        self._band: Rectangle | None = None
        self.canvas.mpl_connect("button_press_event", self._on_press)
        self.canvas.mpl_connect("motion_notify_event", self._on_motion)
        self.canvas.mpl_connect("button_release_event", self._on_release)
        self._show_rows(method_rows(state, {}), finished=False)
        state.selection.changed.connect(self.update_colors)
        state.color_mode_changed.connect(self.update_colors)

        self.runner = TaskRunner(self)
        self.cancel_button.clicked.connect(self.runner.cancel)
        self.runner.progress.connect(self._on_progress)
        self.runner.partial.connect(lambda baselines: self._show_rows(
            method_rows(self.state, baselines), finished=False))
        self.runner.succeeded.connect(lambda baselines: self._show_rows(
            method_rows(self.state, baselines)))
        self.runner.failed.connect(self._on_failure)
        self.runner.cancelled.connect(lambda: self._end_status(
            f"Cancelled: {', '.join(row.name for row in self.rows)} shown."))
        self.runner.start(partial(baselines_task, np.asarray(state.dataset.angles)))

    def _on_progress(self, report: TaskProgress) -> None:
        self.progress.setValue(round(100 * report.fraction))
        self.status.setText(report.message)

    def _on_failure(self, message: str, details: str) -> None:
        self._end_status(f"The baseline methods failed: {message}")
        show_task_error(self, "The method comparison failed", message, details)

    def _end_status(self, text: str) -> None:
        self.status.setText(text)
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)

    def _show_rows(self, rows: list[MethodRow], *, finished: bool = True) -> None:
        """Fill the table and draw one scatter per method (``finished``: all of them)."""
        self.rows = rows
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            self._fill_table_row(r, row)
        notes = [f"{row.name}: {note}" for row in rows for note in row.notes]
        self.notes.setText("\n".join(notes))
        self.notes.setVisible(bool(notes))
        self.figure.clear()
        columns = 4 if len(rows) > 6 else 3
        panels = self.figure.subfigures(int(np.ceil(len(rows) / columns)), columns)
        self.scatters = []
        colors, selected = current_colors(self.state)
        for panel, row in zip(np.ravel(panels), rows, strict=False):
            scatter = ScoresScatter(panel)
            scatter.draw(row.scores[:, :2], 0, 1, colors=colors, selected=selected,
                         title=f"{row.name} ({100 * row.ratio[0]:.1f} %)",
                         axis_names=row.axis_names)
            self.scatters.append(scatter)
        self.canvas.draw_idle()
        if finished and len(rows) > 1:
            self._end_status(f"{len(rows)} methods.")
            self.methods_shown.emit()

    def _fill_table_row(self, r: int, row: MethodRow) -> None:
        def cell(column: int, text: str, tooltip: str = "", numeric: bool = False) -> None:
            item = QTableWidgetItem(text)
            if numeric:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if tooltip:
                item.setToolTip(tooltip)
            self.table.setItem(r, column, item)

        cell(0, row.name, "\n".join(row.notes))
        cell(1, VARIANCE_NAMES[row.variance], CONVENTIONS.get(row.variance, _SPHERE_TOOLTIP))
        for k in range(TABLE_COMPONENTS):
            cell(2 + k, f"{100 * row.ratio[k]:.2f}" if k < len(row.ratio) else "—",
                 numeric=True)
        sphere = "—" if row.sphere_ratio is None else _percentages(row.sphere_ratio)
        cell(2 + TABLE_COMPONENTS, sphere, _SPHERE_TOOLTIP if row.sphere_ratio is not None
             else "", numeric=True)

    def _scatter_at(self, event) -> ScoresScatter | None:
        return next((s for s in self.scatters if s.axes is event.inaxes), None)

    def _on_press(self, event) -> None:
        scatter = self._scatter_at(event)
        if event.button != 3 or scatter is None or event.xdata is None:
            return
        self._press = (scatter, event.xdata, event.ydata)
        self._band = Rectangle((event.xdata, event.ydata), 0, 0, fill=False,
                               edgecolor="#0072B2", linewidth=1.0, linestyle="--")
        scatter.axes.add_patch(self._band)

    def _on_motion(self, event) -> None:
        if self._press is None or self._band is None or event.inaxes is not self._press[0].axes:
            return
        _, x0, y0 = self._press
        self._band.set_bounds(min(x0, event.xdata), min(y0, event.ydata),
                              abs(event.xdata - x0), abs(event.ydata - y0))
        self.canvas.draw_idle()

    def _on_release(self, event) -> None:
        if self._press is None:
            return
        scatter, x0, y0 = self._press
        self._press = None
        if self._band is not None:
            self._band.remove()
            self._band = None
        if event.inaxes is scatter.axes and event.xdata is not None:
            self.select_rectangle(scatter, x0, y0, event.xdata, event.ydata,
                                  selection_mode_from_keyboard())
        self.canvas.draw_idle()

    def select_rectangle(self, scatter: ScoresScatter, x0: float, y0: float, x1: float,
                         y1: float, mode: str = "replace") -> None:
        """Select the samples inside a rectangle of one method's PC1–PC2 plane."""
        mask = scatter.points_in_rectangle(x0, y0, x1, y1)
        self.state.selection.apply(mask, mode, source="compare")

    def update_colors(self, *_: object) -> None:
        colors, selected = current_colors(self.state)
        for scatter in self.scatters:
            scatter.update_colors(colors, selected)
        self.canvas.draw_idle()

    def export(self, path: Path, dpi: int = 150) -> None:
        save_figure_atomically(self.figure, path, dpi)

    def done(self, result: int) -> None:
        self.runner.shutdown()
        self.state.selection.changed.disconnect(self.update_colors)
        self.state.color_mode_changed.disconnect(self.update_colors)
        super().done(result)
