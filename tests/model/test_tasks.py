"""The background-task runner: Qt-free task state, and the runner's signals and semantics."""

from __future__ import annotations

import threading

import pytest

from stpca_gui.core import FitCancelled, ProgressEvent
from stpca_gui.model.tasks import TaskCancelled, TaskProgress, TaskState

TIMEOUT_MS = 30_000


# ------------------------------------------------------------------ TaskState (no Qt)
def test_task_state_reports_and_cancels():
    reports: list[TaskProgress] = []
    partials: list[object] = []
    state = TaskState(reports.append, partials.append)
    state.progress(0.25, "a quarter", stage="one")
    state.partial({"first": 1})
    assert not state.callback(ProgressEvent("pns", 0.5, message="half"))
    assert [(r.fraction, r.message, r.stage) for r in reports] == [
        (0.25, "a quarter", "one"), (0.5, "half", "pns")]
    assert reports[1].event is not None and reports[1].event.stage == "pns"
    assert partials == [{"first": 1}]
    state.check()  # not cancelled: nothing happens
    state.cancel()
    assert state.cancelled
    assert state.callback(ProgressEvent("pns", 0.6))  # the core's "stop" answer
    with pytest.raises(TaskCancelled):
        state.check()
    with pytest.raises(FitCancelled):  # one except clause catches both kinds of stop
        state.progress(0.7)


def test_task_state_without_listeners():
    state = TaskState()
    state.progress(0.5)
    state.partial(3)
    assert state.callback(ProgressEvent("smds", 0.0)) is False


# ------------------------------------------------------------------ TaskRunner (Qt)
pytest.importorskip("pytestqt")


@pytest.fixture
def runner(qtbot, display):
    from stpca_gui.gui.tasks import TaskRunner

    runner = TaskRunner()
    yield runner
    runner.cancel()
    assert runner.wait(TIMEOUT_MS)


def spin_until_cancelled(state: TaskState) -> str:
    """A task that runs until it is cancelled (it reports all the time)."""
    while True:
        state.progress(0.5, "spinning", stage="spin")


def test_result_arrives_on_the_gui_thread(qtbot, runner):
    seen: list[tuple[int, int]] = []
    runner.succeeded.connect(lambda worker_thread: seen.append(
        (worker_thread, threading.get_ident())))
    with qtbot.waitSignal(runner.finished, timeout=TIMEOUT_MS) as finished:
        runner.start(lambda state: threading.get_ident())
    assert finished.args == ["succeeded"]
    (worker_thread, receiving_thread), = seen
    assert receiving_thread == threading.main_thread().ident != worker_thread


def test_progress_is_throttled_but_the_end_always_arrives(qtbot, runner):
    received: list[TaskProgress] = []
    runner.progress.connect(received.append)

    def many_reports(state: TaskState) -> None:
        for k in range(1, 2001):
            state.progress(k / 2000, stage="count")

    with qtbot.waitSignal(runner.finished, timeout=TIMEOUT_MS):
        runner.start(many_reports)
    assert 2 <= len(received) < 200
    assert received[0].fraction == pytest.approx(1 / 2000) and received[-1].fraction == 1.0


def test_cancel_reports_cancelled(qtbot, runner):
    with qtbot.waitSignal(runner.progress, timeout=TIMEOUT_MS):
        runner.start(spin_until_cancelled)
    assert runner.busy
    with qtbot.waitSignal(runner.finished, timeout=TIMEOUT_MS) as finished:
        runner.cancel()
    assert finished.args == ["cancelled"]
    qtbot.waitUntil(lambda: not runner.busy, timeout=TIMEOUT_MS)


def test_a_new_task_supersedes_the_running_one(qtbot, runner):
    outcomes: list[str] = []
    results: list[object] = []
    runner.finished.connect(outcomes.append)
    runner.succeeded.connect(results.append)
    with qtbot.waitSignal(runner.progress, timeout=TIMEOUT_MS):
        runner.start(spin_until_cancelled)
    with qtbot.waitSignal(runner.finished, timeout=TIMEOUT_MS):
        runner.start(lambda state: 42)
    qtbot.waitUntil(lambda: not runner.busy, timeout=TIMEOUT_MS)
    assert outcomes == ["succeeded"] and results == [42]  # nothing of the superseded task


def test_a_failure_is_a_message_with_the_traceback_apart(qtbot, runner):
    def boom(state: TaskState) -> None:
        raise RuntimeError("boom")

    with qtbot.waitSignal(runner.failed, timeout=TIMEOUT_MS) as failed:
        runner.start(boom)
    message, details = failed.args
    assert message == "RuntimeError: boom"
    assert "Traceback" in details and "Traceback" not in message


def test_partial_results_arrive_in_order(qtbot, runner):
    partials: list[object] = []
    runner.partial.connect(partials.append)

    def in_parts(state: TaskState) -> str:
        for k in range(5):
            state.partial(k)
        return "done"

    with qtbot.waitSignal(runner.succeeded, timeout=TIMEOUT_MS) as succeeded:
        runner.start(in_parts)
    assert partials == [0, 1, 2, 3, 4] and succeeded.args == ["done"]


def test_shutdown_lets_go_of_a_running_task(qtbot, runner):
    from stpca_gui.gui import tasks

    outcomes: list[str] = []
    runner.finished.connect(outcomes.append)
    with qtbot.waitSignal(runner.progress, timeout=TIMEOUT_MS):
        runner.start(spin_until_cancelled)
    runner.shutdown()
    assert not runner.busy
    assert tasks.wait_for_retired_tasks(TIMEOUT_MS)
    qtbot.waitUntil(lambda: not tasks._retired, timeout=TIMEOUT_MS)
    assert outcomes == []  # the owner is gone: nothing is reported


def test_comparison_task_hands_over_each_method_as_it_finishes():
    from stpca_gui.core import BASELINES, make_demo
    from stpca_gui.model.comparison import baselines_task
    from stpca_gui.model.tasks import TaskCancelled, TaskState

    angles = make_demo("clusters-t2", random_state=0).angles
    partials: list[list[str]] = []
    result = baselines_task(angles, TaskState(on_partial=lambda r: partials.append(list(r))))
    names = list(BASELINES)
    assert partials == [names[:k] for k in range(1, len(names) + 1)]
    assert list(result) == names

    # Cancelled after the second method: what was handed over stays the last partial.
    partials.clear()
    state = TaskState(on_partial=lambda r: (partials.append(list(r)),
                                            len(r) == 2 and state.cancel()))
    with pytest.raises(TaskCancelled):
        baselines_task(angles, state)
    assert partials[-1] == names[:2]
