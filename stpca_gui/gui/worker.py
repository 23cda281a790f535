"""Running ST-PCA fits in a background thread, with progress, cancel and job queueing."""

from __future__ import annotations

import time
import traceback

from PySide6.QtCore import QObject, QThread, Signal, Slot

from ..core import FitCancelled, ProgressEvent
from ..model import AnalysisResult, Dataset, FitParameters, run_analysis

#: Minimum seconds between two progress signals: enough for a live status line, and each
#: update repaints part of the window.
_PROGRESS_INTERVAL = 0.1


class FitWorker(QObject):
    """Runs one analysis; lives in its own QThread."""

    progress = Signal(object)  # ProgressEvent
    succeeded = Signal(object)  # AnalysisResult
    failed = Signal(str, str)  # message, traceback text
    cancelled = Signal()
    done = Signal()

    def __init__(self, dataset: Dataset, params: FitParameters) -> None:
        super().__init__()
        self.dataset = dataset
        self.params = params
        self._cancel_requested = False
        self._last_report = 0.0

    def request_cancel(self) -> None:
        """Ask the fit to stop at its next progress report (thread-safe: a plain flag)."""
        self._cancel_requested = True

    def _on_progress(self, event: ProgressEvent) -> bool:
        now = time.monotonic()
        if event.stage != "smds" or now - self._last_report >= _PROGRESS_INTERVAL:
            self._last_report = now
            self.progress.emit(event)
        return self._cancel_requested

    @Slot()
    def run(self) -> None:
        try:
            result = run_analysis(self.dataset, self.params, callback=self._on_progress)
        except FitCancelled:
            self.cancelled.emit()
        except Exception as exc:  # any failure becomes a message, never a crash
            self.failed.emit(f"{type(exc).__name__}: {exc}", traceback.format_exc())
        else:
            if self._cancel_requested:
                self.cancelled.emit()
            else:
                self.succeeded.emit(result)
        finally:
            self.done.emit()


class FitController(QObject):
    """Owns at most one running fit; a new request cancels the running one and waits for it.

    Only one fit computes at a time: the compiled kernels use all cores, and a cancelled
    fit stops within one optimiser iteration, so queueing costs little and keeps the
    machine responsive.
    """

    progress = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None
        self._worker: FitWorker | None = None
        self._pending: tuple[Dataset, FitParameters] | None = None

    @property
    def busy(self) -> bool:
        return self._thread is not None

    def start(self, dataset: Dataset, params: FitParameters) -> None:
        """Fit ``dataset``; a running fit is cancelled first."""
        self._pending = (dataset, params)
        if self._worker is not None:
            self._worker.request_cancel()
            return
        self._launch()

    def cancel(self) -> None:
        """Cancel the running fit and drop any queued one."""
        self._pending = None
        if self._worker is not None:
            self._worker.request_cancel()

    def wait(self, timeout_ms: int = 30_000) -> bool:
        """Block until no fit runs (for shutdown and tests)."""
        thread = self._thread
        return True if thread is None else thread.wait(timeout_ms)

    def _launch(self) -> None:
        assert self._pending is not None
        dataset, params = self._pending
        self._pending = None
        thread = QThread()
        worker = FitWorker(dataset, params)
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.progress.connect(self.progress)
        worker.succeeded.connect(self._relay_success)
        worker.failed.connect(self._relay_failure)
        worker.cancelled.connect(self._relay_cancel)
        worker.done.connect(thread.quit)
        thread.finished.connect(self._on_thread_finished)
        self._thread, self._worker = thread, worker
        self.busy_changed.emit(True)
        thread.start()

    # Results of a fit that was superseded by a newer request are dropped.
    def _relay_success(self, result: AnalysisResult) -> None:
        if self._pending is None:
            self.succeeded.emit(result)

    def _relay_failure(self, message: str, details: str) -> None:
        if self._pending is None:
            self.failed.emit(message, details)

    def _relay_cancel(self) -> None:
        if self._pending is None:
            self.cancelled.emit()

    def _on_thread_finished(self) -> None:
        if self._thread is not None:
            self._thread.deleteLater()
        if self._worker is not None:
            self._worker.deleteLater()
        self._thread, self._worker = None, None
        if self._pending is not None:
            self._launch()
        else:
            self.busy_changed.emit(False)
