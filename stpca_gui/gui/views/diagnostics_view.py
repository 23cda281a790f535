"""The Diagnostics view: Shepard diagram, stress over r and stress per point of the fit.

The diagnostics cost one pass over the pairs the fit was solved on (all n² of an exact fit,
the m² of a landmark fit's landmarks), one of the many passes the fit made; still up to
seconds for a large exact fit. They are computed by a task runner, off the GUI thread, as
soon as a result arrives (a newer result cancels the computation); the drawing is
:func:`stpca_gui.plotting.diagnostics.draw_diagnostics`.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QWidget

from ...core.diagnostics import FitDiagnostics
from ...model import AnalysisResult, AppState
from ...model.tasks import TaskState
from ...plotting.diagnostics import DIAGNOSTIC_PLOTS, draw_diagnostics
from ..tasks import TaskRunner
from .mpl_views import MplView


class DiagnosticsView(MplView):
    """One diagnostic of the current fit at a time, chosen in the title row."""

    title_text = "Diagnostics"
    export_stem = "diagnostics"

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(state, parent)
        self.canvas.setMinimumSize(200, 120)
        self.choice = QComboBox()
        for key, text in DIAGNOSTIC_PLOTS.items():
            self.choice.addItem(text, key)
        self.choice.setToolTip("Which diagnostic of the fit to show (docs/diagnostics.md)")
        self.choice.currentIndexChanged.connect(self.redraw)
        self.status = QLabel("")
        self.status.setStyleSheet("color: gray;")
        self.controls.addWidget(self.status)
        self.controls.addWidget(self.choice)
        self.runner = TaskRunner(self)
        self.runner.progress.connect(lambda report: self.status.setText(report.message))
        self.runner.succeeded.connect(self._on_computed)
        self.runner.failed.connect(lambda message, _details: self.status.setText(
            f"diagnostics failed: {message}"))
        self.runner.cancelled.connect(lambda: self.status.setText(""))
        state.result_changed.connect(self.redraw)

    def redraw(self, *_: object) -> None:
        result = self._result_or_blank()
        if result is None:
            self.runner.cancel()
            self.status.setText("")
            return
        diagnostics = self.state.diagnostics
        if diagnostics is None:
            if self._drawn:  # an older result's diagnostics: not this one's
                self.figure.clear()
                self.canvas.draw_idle()
                self._drawn = False
            self._start(result)
            return
        self.thaw_layout()
        draw_diagnostics(self.figure, diagnostics, self.choice.currentData())
        self.canvas.draw_idle()
        self._drawn = True
        self._drawn_result = result

    def _start(self, result: AnalysisResult) -> None:
        if self.runner.busy and self._pending_result is result:
            return
        self._pending_result = result
        self.status.setText("computing…")

        def task(task_state: TaskState) -> tuple[AnalysisResult, FitDiagnostics]:
            return result, result.compute_diagnostics(
                check=task_state.check,
                progress=lambda fraction, message: task_state.progress(fraction, message))

        self.runner.start(task)

    _pending_result: AnalysisResult | None = None

    def _on_computed(self, computed: tuple[AnalysisResult, FitDiagnostics]) -> None:
        self.status.setText("")
        self._pending_result = None
        if self.state.set_diagnostics(*computed):
            self.redraw()
