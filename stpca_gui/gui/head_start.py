"""A head start for the first fit: the launch demo fitted in a child process.

For its first seconds the app's process is busy importing and building its views
(matplotlib, VTK, Qt widgets). A fit in a thread of that process competes with all of it
for the GIL: measured, the demo fit took 3–4 s there against 1.3 s alone. So
``stpca-gui`` launched on a demo starts that demo's fit in a child process as soon as its
window is on screen, before it imports anything heavy, and the child fits on the machine's
other core while the window is prepared. The window's first fit of that demo with the
default parameters then takes the child's result (:meth:`HeadStart.take`) instead of
fitting again; anything else (other data or parameters, a child that failed or was not
started) fits in the window's own process as always.

The child only helps when a core is idle for it: on a machine whose cores are all busy
(measured: 2 cores, load average 17) its imports, duplicated from the app's, only add to
the queue, and the result came 3 s later than with the fit in process. So by default
(:func:`enabled`) the app starts it when it may use two cores or more and the load average
leaves one of them idle. ``STPCA_HEAD_START=1`` starts it always, ``0`` never (benchmarks
compare both ways).

This module is Qt-free and light to import: the child imports it to run
:func:`_fit_demo`, and the app imports it before the window exists.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from ..model import AnalysisResult, Dataset, FitParameters
    from ..model.tasks import TaskState

ENV = "STPCA_HEAD_START"
#: How often the waiting task looks for a cancel request, in seconds.
POLL_S = 0.05
#: The demo's data seed in the child; the window's demos use the same (``load_demo``).
DEMO_SEED = 0


def enabled() -> bool:
    """Whether the app should start a head start: as ``STPCA_HEAD_START`` says ("1" or
    "0"), else when :func:`has_idle_core`."""
    setting = os.environ.get(ENV, "")
    if setting in ("0", "1"):
        return setting == "1"
    return has_idle_core()


def has_idle_core() -> bool:
    """Whether this process may use two cores or more and the 1-minute load average
    leaves at least one of them idle."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average here: assume an idle machine
        load = 0.0
    return cores >= 2 and load <= cores - 1


def _fit_demo(name: str, connection: Connection) -> None:
    """The child: fit demo ``name`` with the default parameters, send the result back."""
    try:
        from ..model import Dataset, FitParameters, run_analysis

        result = run_analysis(Dataset.from_demo(name, random_state=DEMO_SEED),
                              FitParameters())
        connection.send(("result", result))
    except BaseException as exc:  # the window fits again, in process, and reports errors
        connection.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        connection.close()


def for_demo(demo: str) -> HeadStart | None:
    """A head start for the launch demo ``demo``, or None for a structure demo: the window
    reads its files through the structure reader and fits the frames it gives, which the
    child cannot know (it would spend a second of imports and fail)."""
    # Not model.demos: it imports the core, which the window loads in a later stage.
    from ..datasets import STRUCTURE_DEMO_NAMES

    return None if demo in STRUCTURE_DEMO_NAMES else HeadStart(demo)


class HeadStart:
    """The fit of one demo, running in a child process from construction on.

    Parameters
    ----------
    demo : str
        The demo's name (as for ``stpca-gui --demo``).

    Notes
    -----
    The child is started with the *spawn* method: a fresh interpreter that imports only
    what the fit needs (no Qt), and is safe to start from a process that will run threads.
    """

    def __init__(self, demo: str) -> None:
        self.demo = demo
        context = multiprocessing.get_context("spawn")
        self._receiver, sender = context.Pipe(duplex=False)
        self._process = context.Process(target=_fit_demo, args=(demo, sender), daemon=True,
                                        name="stpca-head-start")
        self._process.start()
        sender.close()  # the child holds the only sending end: its exit ends the pipe
        self._taken = False

    def take(self, dataset: Dataset, params: FitParameters,
             fallback: Callable[[TaskState], AnalysisResult],
             ) -> Callable[[TaskState], AnalysisResult] | None:
        """The task that waits for the child's result, for the fit of ``dataset`` with
        ``params`` if the child fits just that; else None (and from the second call on).

        ``fallback`` is the in-process fit, run by the task when the child fails.
        """
        from ..model import FitParameters
        from ..model.dataset import DEMO_SOURCE_PREFIX

        if self._taken:
            return None
        self._taken = True
        same = (dataset.source == f"{DEMO_SOURCE_PREFIX}{self.demo}"
                and dataset.demo_seed == DEMO_SEED and not dataset.demo_options
                and params == FitParameters())
        if not same:
            self.close()
            return None
        return lambda state: self._wait(dataset, params, state, fallback)

    def _wait(self, dataset: Dataset, params: FitParameters, state: TaskState,
              fallback: Callable[[TaskState], AnalysisResult]) -> AnalysisResult:
        """The child's result for ``dataset`` (in the task's thread), or ``fallback``'s."""
        import numpy as np

        from ..core import ProgressEvent

        state.callback(ProgressEvent("smds", 0.0, message="fitting"))
        reply = None
        try:
            while reply is None:
                state.check()
                if self._receiver.poll(POLL_S):
                    reply = self._receiver.recv()
        except (EOFError, OSError):  # the child died without a word
            reply = ("error", "the child process ended")
        finally:
            self.close()
        kind, value = reply
        if kind != "result" or value.parameters != params or not np.array_equal(
                value.dataset.angles, dataset.angles):
            return fallback(state)
        # The result is the window's: it refers to the data set shown, not the child's copy.
        object.__setattr__(value, "dataset", dataset)
        return value

    def close(self) -> None:
        """Stop the child if it still runs (the result is no longer wanted)."""
        if self._process.is_alive():
            self._process.terminate()
        self._process.join(timeout=5)
        self._receiver.close()
