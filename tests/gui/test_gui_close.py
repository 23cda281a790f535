"""Closing the main window during a long fit (issue 10, item 1).

Closing must cancel the fit wherever it is and never leave a running thread behind: Qt
aborts the process (``QThread: Destroyed while thread is still running``) when a running
QThread object is destroyed, which happened at exit after a 10 s freeze.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from gui_probes import FIT_TIMEOUT_MS

pytest.importorskip("pytestqt")

from stpca_gui.core.demos import make_clusters_t3
from stpca_gui.core.smds import classical
from stpca_gui.gui import tasks
from stpca_gui.model import Dataset, FitParameters

pytestmark = pytest.mark.gui



def large_dataset(n_per_cluster: int = 1700) -> Dataset:
    """n = 5100 demo-like points on T³: the start configuration takes seconds."""
    data = make_clusters_t3(n_per_cluster=n_per_cluster, random_state=3)
    return Dataset(angles=data.angles, column_names=data.column_names,
                   labels=np.asarray([str(v) for v in data.labels]), source="synthetic",
                   description="synthetic clusters")


class Recorder:
    """Wraps the fit's callback: the stage of every report and what it was told."""

    def __init__(self, monkeypatch):
        from stpca_gui.model import analysis as worker

        self.answers: list[tuple[str, bool]] = []
        real = worker.run_analysis

        def recorded(*args, callback, **kwargs):
            def record(event):
                stop = bool(callback(event))
                self.answers.append((event.stage, stop))
                return stop
            return real(*args, callback=record, **kwargs)

        monkeypatch.setattr(worker, "run_analysis", recorded)


def close_at_first_event_of(qtbot, window, stage: str) -> list[str]:
    """Start a fit, close the window from the GUI thread at the first report of ``stage``;
    return the outcomes the window reported."""
    outcomes: list[str] = []
    window.fit_ended.connect(outcomes.append)

    def on_progress(event) -> None:
        if event.stage == stage and window.isVisible():
            window.close()

    window.controller.progress.connect(on_progress)
    window.set_dataset(large_dataset(), fit=False)
    with qtbot.waitSignal(window.fit_ended, timeout=FIT_TIMEOUT_MS):
        window.fit()
    return outcomes


def test_closing_at_the_first_report_stops_inside_the_start_configuration(
        qtbot, window, monkeypatch):
    eigensolves = []
    real = classical.leading_eigenpairs
    monkeypatch.setattr(classical, "leading_eigenpairs",
                        lambda *a, **k: eigensolves.append(1) or real(*a, **k))
    recorder = Recorder(monkeypatch)
    outcomes = close_at_first_event_of(qtbot, window, "smds-start")
    assert not window.isVisible()
    assert outcomes == ["cancelled"]
    # The close was noticed at the next cancel point, inside the start configuration:
    # its eigensolve never ran and no later stage reported.
    assert eigensolves == []
    assert {stage for stage, _ in recorder.answers} == {"smds-start"}
    assert [stop for _, stop in recorder.answers][-1] is True
    qtbot.waitUntil(lambda: not window.controller.busy and not tasks._retired)


@pytest.mark.parametrize("stage", ["smds", "pns", "curve", "torus-variance", "modes"])
def test_closing_during_a_later_stage_cancels_the_fit(qtbot, window, monkeypatch, stage):
    recorder = Recorder(monkeypatch)
    # A few optimiser iterations reach the later stages soon enough.
    window.parameters.set_parameters(FitParameters(
        random_state=0, max_iter=5, torus_variance=stage == "torus-variance"))
    outcomes = close_at_first_event_of(qtbot, window, stage)
    assert not window.isVisible() and outcomes == ["cancelled"]
    # Stopped at the first report after the close (reports reach the window a little after
    # the fit made them, so the fit may be a report or two further by then).
    stages = [s for s, _ in recorder.answers]
    stops = [stop for _, stop in recorder.answers]
    assert stops.count(True) == 1 and stops[-1] is True
    assert stage in stages and "done" not in stages
    qtbot.waitUntil(lambda: not window.controller.busy and not tasks._retired)


def test_closing_never_destroys_a_running_thread(qtbot, window, monkeypatch):
    # A task that does not check for a cancel for a while (as a long compiled kernel):
    # closing must not wait for it, and it must be kept until it ends.
    import threading

    release = threading.Event()
    started = threading.Event()

    def slow_task(state):
        started.set()
        # Bounded, so that a failure before release.set() cannot hang the suite.
        assert release.wait(FIT_TIMEOUT_MS / 1000)
        state.check()

    window.controller.runner.start(slow_task)
    qtbot.waitUntil(started.is_set)
    window.close()
    assert not window.isVisible()
    retired = list(tasks._retired)
    assert len(retired) == 1 and retired[0].isRunning()
    release.set()
    assert tasks.wait_for_retired_tasks(FIT_TIMEOUT_MS)
    qtbot.waitUntil(lambda: not tasks._retired)


SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    from stpca_gui.core.demos import make_clusters_t3
    from stpca_gui.gui import app as app_module
    from stpca_gui.gui import main_window
    from stpca_gui.model import Dataset

    stage = sys.argv[1]
    data = make_clusters_t3(n_per_cluster=1700, random_state=3)
    dataset = Dataset(angles=data.angles, column_names=data.column_names,
                      source="synthetic", description="synthetic clusters")

    class ClosingWindow(main_window.MainWindow):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            # The app's window has its controller once the numerical core is in.
            self.when_prepared("numerics", lambda: self.controller.progress.connect(
                self._close_at_stage))

        def _close_at_stage(self, event):
            if event.stage == stage and self.isVisible():
                print("closing at", event.stage, flush=True)
                self.close()

        def load_demo(self, name):
            self.set_dataset(dataset)

    main_window.MainWindow = ClosingWindow
    sys.exit(app_module.main([]))
""")


@pytest.mark.parametrize("stage", ["smds-start", "smds"])
def test_the_application_exits_cleanly_when_closed_during_a_fit(display, tmp_path, stage):
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", SCRIPT, stage], capture_output=True,
                            text=True, timeout=300, cwd=tmp_path, env=env)
    assert "closing at" in result.stdout, result.stderr
    assert "QThread: Destroyed" not in result.stderr
    assert result.returncode == 0, result.stderr
