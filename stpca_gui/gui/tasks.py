"""One way to run long computations off the GUI thread: progress, cancel, errors, results.

A task is a plain callable ``task(state: TaskState)`` (:mod:`stpca_gui.model.tasks`). A
:class:`TaskRunner` runs one task at a time in its own :class:`QThread` and reports through
Qt signals, delivered on the GUI thread:

* ``progress(TaskProgress)``, throttled to about ten a second (a new stage always passes);
* ``partial(value)`` for the task's partial results;
* then exactly one of ``succeeded(result)``, ``failed(message, details)`` or
  ``cancelled()``, followed by ``finished(outcome)``.

Starting a task while one runs supersedes it: the running task is asked to stop, and the
new one starts when it has (the compiled kernels use every core, so two tasks at once
would only slow each other down); the superseded task's outcome is not reported.

Why a QThread per task and not ``superqt.utils.create_worker``: superqt's function workers
cannot be stopped from outside (only its generator workers can, between yields), and the
core's estimators report through callbacks from compiled loops, not by yielding; the
runner also has to *wait* for a superseded task before starting the next, and to join its
own threads on shutdown without waiting for unrelated work in a shared thread pool.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QDeadlineTimer, QObject, Qt, QThread, Signal, Slot
from PySide6.QtWidgets import QMessageBox, QWidget

from ..core import FitCancelled
from ..model.tasks import TaskProgress, TaskState

__all__ = ["TaskRunner", "show_task_error", "stop_tasks", "wait_for_retired_tasks"]

#: Minimum seconds between two progress signals of the same stage: enough for a live
#: status line, and each update repaints part of a window.
PROGRESS_INTERVAL = 0.1

#: Threads of runners that were shut down while their task still ran. Kept referenced
#: until they end: Qt aborts when a running QThread object is destroyed.
_retired: set[QThread] = set()


class _TaskWorker(QObject):
    """Runs one task; lives in the runner's worker thread."""

    progress = Signal(object)
    partial = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()
    done = Signal()

    def __init__(self, task: Callable[[TaskState], Any]) -> None:
        super().__init__()
        self.task = task
        self.state = TaskState(self._on_progress, self.partial.emit)
        self._last_time = -float("inf")
        self._last_stage: str | None = None

    def _on_progress(self, report: TaskProgress) -> None:
        now = time.monotonic()
        if (report.stage != self._last_stage or report.fraction >= 1.0
                or now - self._last_time >= PROGRESS_INTERVAL):
            self._last_time, self._last_stage = now, report.stage
            self.progress.emit(report)

    @Slot()
    def run(self) -> None:
        try:
            result = self.task(self.state)
        except FitCancelled:
            self.cancelled.emit()
        except Exception as exc:  # any failure becomes a message, never a crash
            self.failed.emit(f"{type(exc).__name__}: {exc}", traceback.format_exc())
        else:
            if self.state.cancelled:
                self.cancelled.emit()
            else:
                self.succeeded.emit(result)
        finally:
            self.done.emit()


class TaskRunner(QObject):
    """Owns at most one running task; a new task supersedes the running one."""

    started = Signal()
    progress = Signal(object)  # TaskProgress
    partial = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str, str)  # message, traceback text
    cancelled = Signal()
    #: "succeeded", "failed" or "cancelled", after the matching signal.
    finished = Signal(str)
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None
        self._worker: _TaskWorker | None = None
        self._pending: Callable[[TaskState], Any] | None = None

    @property
    def busy(self) -> bool:
        """Whether a task runs (or a superseded one is still stopping)."""
        return self._thread is not None

    def start(self, task: Callable[[TaskState], Any]) -> None:
        """Run ``task``; a running task is cancelled first and this one queued after it."""
        self._pending = task
        if self._worker is not None:
            self._worker.state.cancel()
            return
        self._launch()

    def cancel(self) -> None:
        """Cancel the running task and drop a queued one."""
        self._pending = None
        if self._worker is not None:
            self._worker.state.cancel()

    def wait(self, timeout: int | QDeadlineTimer = 30_000) -> bool:
        """Block until no task runs (for shutdown and tests); False on timeout.

        ``timeout`` is in milliseconds, or a deadline shared by several waits.
        """
        thread = self._thread
        return True if thread is None else thread.wait(timeout)

    def shutdown(self) -> None:
        """Cancel everything and let go of the thread without waiting for it.

        For an owner that is closing (a dialog): the task stops at its next check, and its
        outcome is no longer reported.
        """
        self.cancel()
        if self._thread is not None and self._worker is not None:
            thread, worker = self._thread, self._worker
            for signal in (worker.progress, worker.partial, worker.succeeded, worker.failed,
                           worker.cancelled):
                signal.disconnect()
            thread.finished.disconnect()
            _retired.add(thread)
            thread.finished.connect(lambda: _retire(thread, worker))
            # The thread may have ended already, its finished signal still queued for the
            # slot just disconnected: then nothing would ever retire it.
            if thread.isFinished():
                _retire(thread, worker)
            self._thread, self._worker = None, None
            self.busy_changed.emit(False)

    def _launch(self) -> None:
        assert self._pending is not None
        task, self._pending = self._pending, None
        thread = QThread()
        worker = _TaskWorker(task)
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.progress.connect(self._relay_progress)
        worker.partial.connect(self._relay_partial)
        worker.succeeded.connect(self._relay_success)
        worker.failed.connect(self._relay_failure)
        worker.cancelled.connect(self._relay_cancel)
        # Direct: the worker thread ends its own event loop (QThread.quit is thread-safe),
        # so a GUI thread blocked in wait() does not have to deliver the quit.
        worker.done.connect(thread.quit, Qt.ConnectionType.DirectConnection)
        thread.finished.connect(self._on_thread_finished)
        self._thread, self._worker = thread, worker
        self.busy_changed.emit(True)
        self.started.emit()
        thread.start()

    # The outcome of a task superseded by a newer one is dropped.
    def _superseded(self) -> bool:
        return self._pending is not None

    def _relay_progress(self, report: TaskProgress) -> None:
        if not self._superseded():
            self.progress.emit(report)

    def _relay_partial(self, value: object) -> None:
        if not self._superseded():
            self.partial.emit(value)

    def _relay_success(self, result: object) -> None:
        if not self._superseded():
            self.succeeded.emit(result)
            self.finished.emit("succeeded")

    def _relay_failure(self, message: str, details: str) -> None:
        if not self._superseded():
            self.failed.emit(message, details)
            self.finished.emit("failed")

    def _relay_cancel(self) -> None:
        if not self._superseded():
            self.cancelled.emit()
            self.finished.emit("cancelled")

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


def _retire(thread: QThread, worker: QObject) -> None:
    _retired.discard(thread)
    worker.deleteLater()
    thread.deleteLater()


def wait_for_retired_tasks(timeout_ms: int | None = 10_000) -> bool:
    """Block until the tasks of shut-down runners have stopped (application exit).

    ``timeout_ms=None`` waits as long as it takes. Returns False on timeout.
    """
    if timeout_ms is None:
        return all(thread.wait() for thread in list(_retired))
    deadline = QDeadlineTimer(timeout_ms)
    return all(thread.wait(deadline) for thread in list(_retired))


def stop_tasks(runners: Iterable[TaskRunner], timeout_ms: int) -> bool:
    """Cancel every runner's tasks and wait for them at most ``timeout_ms`` in all.

    Tasks that stop in time report their outcome ("cancelled") as usual; the runners of
    those still running are shut down (:meth:`TaskRunner.shutdown`): their threads are kept
    until they end, for :func:`wait_for_retired_tasks`. Returns whether every task stopped.
    """
    runners = list(runners)
    for runner in runners:
        runner.cancel()
    deadline = QDeadlineTimer(timeout_ms)
    stopped = True
    for runner in runners:
        if not runner.wait(deadline):
            runner.shutdown()
            stopped = False
    return stopped and wait_for_retired_tasks(max(0, deadline.remainingTime()))


def show_task_error(parent: QWidget, title: str, message: str, details: str = "") -> QMessageBox:
    """A window-modal message box for a failed task: the message in front, the traceback
    only behind "Show Details…"."""
    box = QMessageBox(QMessageBox.Icon.Critical, title, message, QMessageBox.StandardButton.Ok,
                      parent)
    if details:
        box.setDetailedText(details)
    box.setWindowModality(Qt.WindowModality.WindowModal)
    box.open()
    return box
