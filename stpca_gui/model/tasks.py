"""What a long computation sees of the app that runs it: progress, cancel, partial results.

A background task is a plain callable ``task(state: TaskState) -> result``. It knows nothing
of threads or Qt: it reports through ``state.progress(...)`` / ``state.partial(...)`` and
stops when ``state.check()`` raises (or when a core estimator given ``state.callback``
raises :class:`~stpca_gui.core.FitCancelled`). The GUI's task runner
(:mod:`stpca_gui.gui.tasks`) runs tasks in a worker thread and turns these calls into Qt
signals; tests can run a task directly with a ``TaskState()`` of their own.
(Orange's ``TaskState`` is the model.)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..core import FitCancelled, ProgressEvent

__all__ = ["Task", "TaskCancelled", "TaskProgress", "TaskState"]

T = TypeVar("T")


class TaskCancelled(FitCancelled):
    """Raised by :meth:`TaskState.check` once the task was asked to stop.

    A subclass of the core's :class:`~stpca_gui.core.FitCancelled`, so one ``except``
    catches a stop wherever it was noticed.
    """


@dataclass(frozen=True)
class TaskProgress:
    """One progress report.

    Attributes
    ----------
    fraction : float
        Share of the work done, in [0, 1] (NaN when the end is unknown).
    message : str
        Status line for the user.
    stage : str
        Name of the current step; reports of a new stage are never dropped by throttling.
    event : ProgressEvent or None
        The core's event, when the report came through :meth:`TaskState.callback`.
    """

    fraction: float
    message: str = ""
    stage: str = ""
    event: ProgressEvent | None = None


class TaskState:
    """The task's side of a running task: report progress and partial results, obey cancel.

    Parameters
    ----------
    on_progress : callable, optional
        Receives every :class:`TaskProgress` (in the task's thread).
    on_partial : callable, optional
        Receives every partial result (in the task's thread).

    Notes
    -----
    ``cancel`` may be called from any thread; the flag is a :class:`threading.Event`.
    """

    def __init__(
        self,
        on_progress: Callable[[TaskProgress], None] | None = None,
        on_partial: Callable[[Any], None] | None = None,
    ) -> None:
        self._on_progress = on_progress
        self._on_partial = on_partial
        self._cancel = threading.Event()

    @property
    def cancelled(self) -> bool:
        """Whether the task was asked to stop."""
        return self._cancel.is_set()

    def cancel(self) -> None:
        """Ask the task to stop at its next check (thread-safe)."""
        self._cancel.set()

    def check(self) -> None:
        """Raise :class:`TaskCancelled` if the task was asked to stop."""
        if self._cancel.is_set():
            raise TaskCancelled("the task was cancelled")

    def progress(self, fraction: float, message: str = "", *, stage: str = "",
                 event: ProgressEvent | None = None) -> None:
        """Report progress, then stop here if the task was cancelled."""
        if self._on_progress is not None:
            self._on_progress(TaskProgress(float(fraction), message, stage, event))
        self.check()

    def partial(self, value: Any) -> None:
        """Hand over a partial result (e.g. the first methods of a comparison)."""
        if self._on_partial is not None:
            self._on_partial(value)

    def callback(self, event: ProgressEvent) -> bool:
        """A core progress callback: forwards ``event`` and returns True to cancel.

        Pass it as ``callback=`` to :func:`~stpca_gui.model.run_analysis`,
        :func:`~stpca_gui.core.uniformity_tests` or :func:`~stpca_gui.core.run_baselines`.
        """
        if self._on_progress is not None:
            self._on_progress(TaskProgress(float(event.fraction), event.message, event.stage,
                                           event))
        return self.cancelled


#: A background task: a plain callable of its :class:`TaskState`.
Task = Callable[[TaskState], T]
