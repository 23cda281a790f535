"""The window's fit controller: ST-PCA fits in the background, each one task (the Qt-free
:func:`~stpca_gui.model.analysis.fit_task`) of a :class:`TaskRunner`."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QObject, Signal

from ..model import Dataset, FitParameters
from ..model.analysis import fit_task
from ..model.live_fit import LIVE_INTERVAL, SMDSSnapshot
from ..model.tasks import TaskProgress
from .head_start import HeadStart
from .tasks import TaskRunner


class FitController(QObject):
    """Owns at most one running fit; a new request cancels the running one and waits for it.

    Only one fit computes at a time: the compiled kernels use all cores, and a cancelled
    fit stops within one optimiser iteration, so queueing costs little and keeps the
    machine responsive.

    Signals carry the core's types: ``progress(ProgressEvent)``,
    ``succeeded(AnalysisResult)``, ``failed(message, details)``, ``cancelled()``,
    ``busy_changed(bool)``, and ``smds_snapshot(SMDSSnapshot, Dataset)``: the SMDS
    configuration as it converges, a few times a second, with the data set being fitted
    (never for a superseded fit).

    Attributes
    ----------
    live_interval : float or None
        Seconds between two ``smds_snapshot`` signals of a fit (None: no snapshots), for
        the fits started afterwards.
    """

    progress = Signal(object)
    smds_snapshot = Signal(object, object)
    succeeded = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = TaskRunner(self)
        self.live_interval: float | None = LIVE_INTERVAL
        #: The launch's fit running in a child process (``gui/head_start.py``), if any:
        #: the first fit takes its result when it is that fit.
        self.head_start: HeadStart | None = None
        self._dataset: Dataset | None = None
        self.runner.progress.connect(self._relay_progress)
        self.runner.partial.connect(self._relay_partial)
        self.runner.succeeded.connect(self.succeeded)
        self.runner.failed.connect(self.failed)
        self.runner.cancelled.connect(self.cancelled)
        self.runner.busy_changed.connect(self.busy_changed)

    @property
    def busy(self) -> bool:
        return self.runner.busy

    def start(self, dataset: Dataset, params: FitParameters) -> None:
        """Fit ``dataset``; a running fit is cancelled first."""
        # Only the latest fit's partial results are relayed (the runner drops those of a
        # superseded fit), so they belong to this data set.
        self._dataset = dataset
        task = partial(fit_task, dataset, params, live_interval=self.live_interval)
        if self.head_start is not None:
            task = self.head_start.take(dataset, params, task) or task
            self.head_start = None
        self.runner.start(task)

    def cancel(self) -> None:
        """Cancel the running fit and drop any queued one."""
        self.runner.cancel()

    def wait(self, timeout_ms: int = 30_000) -> bool:
        """Block until no fit runs (for shutdown and tests)."""
        return self.runner.wait(timeout_ms)

    def _relay_progress(self, report: TaskProgress) -> None:
        if report.event is not None:
            self.progress.emit(report.event)

    def _relay_partial(self, value: object) -> None:
        if isinstance(value, SMDSSnapshot):
            self.smds_snapshot.emit(value, self._dataset)
