"""The fast start: the window is shown before the heavy modules load, then prepares itself.

``stpca-gui`` shows its window first and builds the panels, plots and 3-D views in stages
(stpca_gui/gui/main_window.py); ``STPCA_STARTUP_TRACE`` records the steps
(stpca_gui/gui/startup.py). These tests check the order of events and what was loaded
when, never how long anything took.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from gui_probes import FIT_TIMEOUT_MS, highlight_counts

from stpca_gui.gui.head_start import ENV as HEAD_START_ENV
from stpca_gui.gui.startup import HEAVY_MODULES, TRACE_ENV

pytestmark = pytest.mark.usefixtures("display")

LAUNCH_TIMEOUT_S = 180.0
#: Marks of an interactive launch in the order they must happen.
ORDERED_MARKS = ("main", "window_shown", "first_paint", "numerics_ready", "fit_started",
                 "plots_ready", "torus_ready", "sphere_ready", "result_shown")


def _launch_until_result(trace: Path, *args: str, head_start: bool = True) -> dict:
    """Start ``stpca-gui`` with the trace on, wait for its result mark, then stop it."""
    env = {**os.environ, TRACE_ENV: str(trace), HEAD_START_ENV: "1" if head_start else "0"}
    process = subprocess.Popen([sys.executable, "-m", "stpca_gui.gui.app", *args], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    start = time.monotonic()
    try:
        while time.monotonic() - start < LAUNCH_TIMEOUT_S:
            assert process.poll() is None, f"the app exited: {process.stderr.read()}"
            if trace.exists():
                payload = json.loads(trace.read_text())  # replaced atomically: never partial
                if "result_shown" in payload["marks"]:
                    return payload
            time.sleep(0.05)  # polling the file the app rewrites
        pytest.fail("no result_shown mark within the time limit")
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.parametrize("head_start", [False, True], ids=["fit-in-app", "head-start"])
def test_window_is_painted_before_the_heavy_modules_are_imported(tmp_path, head_start):
    payload = _launch_until_result(tmp_path / "trace.json", "--demo", "clusters-t2",
                                   head_start=head_start)
    marks, modules = payload["marks"], payload["modules"]
    times = [marks[name] for name in ORDERED_MARKS]
    assert times == sorted(times), {name: marks[name] - marks["main"] for name in marks}
    assert set(payload["cpu"]) == set(marks)
    assert ("head_start" in marks) == head_start  # a table demo's fit runs in the child
    # Nothing heavy until the window was on screen...
    assert modules["first_paint"] == []
    # ...and by the result everything the views need was loaded (the check above can fail),
    # but for the fit's own scipy.stats (bootstrap draws) when the fit ran in the child.
    fit_only = {"scipy.stats"} if head_start else set()
    assert set(modules["result_shown"]) == set(HEAVY_MODULES) - fit_only
    # Each stage loads its own: no plotting library for the numerics, no VTK for the plots.
    assert "stpca_gui.core" in modules["numerics_ready"]
    assert "matplotlib" not in modules["numerics_ready"]
    assert "matplotlib" in modules["plots_ready"] and "pyvista" not in modules["plots_ready"]
    # The heartbeat measured the stalls of the whole start, so none outlasts the start.
    stall = payload["longest_stall_s"]
    assert 0.0 <= stall <= marks["result_shown"] - marks["main"]
    assert payload["stall_after"] in {"", *marks}  # the mark the longest stall followed


def test_screenshot_of_an_unknown_demo_is_a_message(tmp_path):
    completed = subprocess.run(
        [sys.executable, "-m", "stpca_gui.gui.app", "--demo", "no-such-demo", "--screenshot",
         str(tmp_path / "out.png")], capture_output=True, text=True, timeout=LAUNCH_TIMEOUT_S)
    assert completed.returncode == 2
    assert "unknown demo 'no-such-demo'" in completed.stderr
    assert "clusters-t3" in completed.stderr and "Traceback" not in completed.stderr
    assert not (tmp_path / "out.png").exists()


def test_deferred_window_fills_its_views_and_draws_a_result_that_came_first(
        qtbot, tmp_path, monkeypatch):
    import threading

    from stpca_gui.core._base import threads as _threads
    from stpca_gui.gui.main_window import PREPARING_SCENE, MainWindow
    from stpca_gui.gui.startup import STAGES

    # The BLAS library search must be made by the GUI thread, never by the fit's thread
    # (it crashed the app in CI when made off the main thread): record where it is made.
    searched_in: list[str] = []
    real_controller = _threads.ThreadpoolController

    def recording_controller():
        searched_in.append(threading.current_thread().name)
        return real_controller()

    monkeypatch.setattr(_threads, "_libraries", None)
    monkeypatch.setattr(_threads, "ThreadpoolController", recording_controller)
    window = MainWindow(recent_path=tmp_path / "recent.json", deferred=True)
    qtbot.addWidget(window)
    assert window.views == {} and not window.is_prepared("numerics")
    assert window.slots["torus"].placeholder.text().startswith(PREPARING_SCENE)
    done: list[str] = []
    window.stage_done.connect(done.append)
    views_ready_at_result: list[bool] = []
    window.result_shown.connect(lambda: views_ready_at_result.append(
        window.is_prepared(STAGES[-1])))
    # The data arrive as soon as the numerics are in, before any view exists.
    window.when_prepared("numerics", lambda: window.load_demo("clusters-t3"))
    window.resize(1200, 800)
    window.show()
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        pass
    assert done == list(STAGES)
    assert views_ready_at_result == [True]
    assert searched_in == [threading.main_thread().name]
    for key, slot in window.slots.items():
        assert slot.placeholder is None and slot.content is window.views[key]
        qtbot.waitUntil(window.views[key].has_content, timeout=10_000)
    counts = highlight_counts(window)
    assert counts == {"scores": 0, "histogram": 0, "torus": 0, "sphere": 0}
    assert window.scores_view.x_combo.count() == 3  # the combos missed dataset_changed
    window.state.selection.apply(np.arange(300) < 50)
    assert highlight_counts(window) == {"scores": 50, "histogram": 50, "torus": 50,
                                         "sphere": 50}
    window.controller.wait(10_000)


def test_view_slot_swaps_its_placeholder_once(qtbot):
    from PySide6.QtWidgets import QLabel

    from stpca_gui.gui.views.slot import ViewSlot

    slot = ViewSlot("Preparing…")
    qtbot.addWidget(slot)
    slot.show()
    placeholder = slot.placeholder
    assert placeholder.isVisible()
    view = QLabel("view")
    slot.fill(view)
    assert slot.placeholder is None and slot.content is view and view.parent() is slot
    # Hidden at once, not when the deferred deletion runs: a dialog's event loop (the
    # import dialog as the app starts) does not run it, and the text stayed painted over
    # the Parameters heading (issue 31).
    assert not placeholder.isVisible()
    with pytest.raises(RuntimeError, match="already"):
        slot.fill(QLabel("another"))


def test_trace_keeps_the_first_time_of_each_mark(tmp_path):
    from stpca_gui.gui.startup import StartupTrace

    trace = StartupTrace(tmp_path / "trace.json")
    trace.mark("main")
    first = json.loads(trace.path.read_text())
    trace.mark("main")
    trace.mark("window_shown")
    payload = json.loads(trace.path.read_text())
    assert payload["marks"]["main"] == first["marks"]["main"]
    assert payload["marks"]["window_shown"] >= payload["marks"]["main"]
    assert payload["modules"]["main"] == [m for m in HEAVY_MODULES if m in sys.modules]
    assert payload["pid"] == os.getpid()


def test_kernels_cached_looks_for_numbas_index_files(tmp_path, monkeypatch):
    from stpca_gui.gui.startup import kernels_cached

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    cache = tmp_path / "stpca_gui" / "core" / "smds" / "__pycache__"
    cache.mkdir(parents=True)
    assert not kernels_cached(tmp_path / "stpca_gui")  # a fresh install
    (cache / "_smds_kernel.pair_sums-120.py311.nbi").write_bytes(b"")
    assert kernels_cached(tmp_path / "stpca_gui")
    elsewhere = tmp_path / "numba-cache"
    elsewhere.mkdir()
    (cache / "_smds_kernel.pair_sums-120.py311.nbi").unlink()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(elsewhere))
    assert not kernels_cached(tmp_path / "stpca_gui")
    (elsewhere / "deep" / "smds").mkdir(parents=True)
    (elsewhere / "deep" / "smds" / "_smds_kernel.x-1.py311.nbi").write_bytes(b"")
    assert kernels_cached(tmp_path / "stpca_gui")


def test_a_first_launch_says_the_kernels_are_compiling(qtbot, tmp_path, monkeypatch,
                                                       gui_dir):
    """Issue 31: on the first launch after an install the views said "Preparing…" for
    15 s while the kernels compiled, the progress bar at 0 %."""
    from image_content import assert_has_content

    from stpca_gui.gui import main_window
    from stpca_gui.gui.startup import COMPILING_NOTE

    looked_from: list[threading.Thread] = []

    def not_cached() -> bool:
        looked_from.append(threading.current_thread())
        return False

    monkeypatch.setattr(main_window, "kernels_cached", not_cached)
    window = main_window.MainWindow(recent_path=tmp_path / "recent.json", deferred=True)
    qtbot.addWidget(window)
    # numba's cache is looked at off the GUI thread (it lists a folder), then said.
    qtbot.waitUntil(lambda: all(COMPILING_NOTE in slot.placeholder.text()
                                for slot in window.slots.values()), timeout=10_000)
    assert len(looked_from) == 1 and looked_from[0] is not threading.main_thread()
    for size in ((1280, 800), (1600, 1000)):
        window.resize(*size)
        path = gui_dir / f"first-launch-{size[0]}.png"
        window.grab().save(str(path))
        assert_has_content(path, min_fraction=0.01, min_colors=5)
    said: list[str] = []

    def first_fit():
        from stpca_gui.model import Dataset

        window.set_dataset(Dataset.from_demo("clusters-t2", random_state=0), fit=False)
        window.fit()
        said.append(window.stage_label.text())  # before any progress arrives

    window.when_prepared("numerics", first_fit)
    window.show()
    qtbot.waitUntil(lambda: bool(said), timeout=FIT_TIMEOUT_MS)
    assert said == [f"Starting… ({COMPILING_NOTE})"]
    window.controller.cancel()
    window.controller.wait(10_000)
