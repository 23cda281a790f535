"""Running ST-PCA fits in the background: a fit is one task of a :class:`TaskRunner`."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QObject, Signal

from ..model import AnalysisResult, Dataset, FitParameters, run_analysis
from ..model.tasks import TaskProgress, TaskState
from .tasks import TaskRunner


def fit_task(dataset: Dataset, params: FitParameters, state: TaskState) -> AnalysisResult:
    """The task of one fit (Qt-free): progress and cancel through the core's callback."""
    return run_analysis(dataset, params, callback=state.callback)


class FitController(QObject):
    """Owns at most one running fit; a new request cancels the running one and waits for it.

    Only one fit computes at a time: the compiled kernels use all cores, and a cancelled
    fit stops within one optimiser iteration, so queueing costs little and keeps the
    machine responsive.

    Signals carry the core's types: ``progress(ProgressEvent)``,
    ``succeeded(AnalysisResult)``, ``failed(message, details)``, ``cancelled()``,
    ``busy_changed(bool)``.
    """

    progress = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = TaskRunner(self)
        self.runner.progress.connect(self._relay_progress)
        self.runner.succeeded.connect(self.succeeded)
        self.runner.failed.connect(self.failed)
        self.runner.cancelled.connect(self.cancelled)
        self.runner.busy_changed.connect(self.busy_changed)

    @property
    def busy(self) -> bool:
        return self.runner.busy

    def start(self, dataset: Dataset, params: FitParameters) -> None:
        """Fit ``dataset``; a running fit is cancelled first."""
        self.runner.start(partial(fit_task, dataset, params))

    def cancel(self) -> None:
        """Cancel the running fit and drop any queued one."""
        self.runner.cancel()

    def wait(self, timeout_ms: int = 30_000) -> bool:
        """Block until no fit runs (for shutdown and tests)."""
        return self.runner.wait(timeout_ms)

    def _relay_progress(self, report: TaskProgress) -> None:
        if report.event is not None:
            self.progress.emit(report.event)
