"""GUI benchmark, child processes: launching them, and what each one measures.

Every measurement runs in a fresh interpreter (``bench_gui.py --child MODE``), so start-up
is cold and ``ru_maxrss`` belongs to one case; a child prints one JSON line after
``CHILD_MARKER``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from _common import (
    REPO_ROOT,
    current_rss_mb,
    peak_rss_mb,
)
from _gui_env import (
    CHILD_MARKER,
    CHILD_TIMEOUT_S,
    DEMO,
    FIRST_FRAME_TIMEOUT_S,
    FIT_TIMEOUT_S,
    LARGE_SEED,
    LAUNCH_ENV,
    SCREENSHOT_ENV,
    SMALL_SEED,
    TIMER_INTERVAL_MS,
    WINDOW_SIZE,
    WORKDIR_ENV,
    log,
)
from gui_probes import highlight_counts  # tests/gui/gui_probes.py (on sys.path via _gui_env)


def run_child(mode: str, extra: Sequence[str] = (), timeout: float = CHILD_TIMEOUT_S,
              env_changes: dict[str, str | None] | None = None) -> dict[str, Any]:
    """Run this script with ``--child MODE`` in a fresh interpreter; its stderr is relayed.

    ``env_changes`` sets (str) or removes (None) environment variables for the child.
    """
    command = [sys.executable, str(BENCH_SCRIPT), "--child", mode, *extra]
    env = dict(os.environ)
    for key, value in (env_changes or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    env[LAUNCH_ENV] = repr(time.time())
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=REPO_ROOT, env=env)
    tail: deque[str] = deque(maxlen=8)

    def relay() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            tail.append(line.rstrip())
            sys.stderr.write(line)
            sys.stderr.flush()

    relay_thread = threading.Thread(target=relay, daemon=True)
    relay_thread.start()
    killer = threading.Timer(timeout, process.kill)
    killer.start()
    try:
        assert process.stdout is not None
        stdout = process.stdout.read()
        process.wait()
    finally:
        killer.cancel()
    relay_thread.join(timeout=5)
    for line in reversed(stdout.splitlines()):
        if line.startswith(CHILD_MARKER):
            return json.loads(line[len(CHILD_MARKER):])
    return {"error": f"child {mode!r} exited with {process.returncode} (timeout "
                     f"{timeout:.0f} s): " + " / ".join(tail)}

#: The entry point that the children re-run with ``--child MODE``.
BENCH_SCRIPT = Path(__file__).resolve().with_name("bench_gui.py")


# ============================================================================ children


def instrument_main_window(marks: dict[str, float]) -> None:
    """Record when a result reaches ``MainWindow._on_result`` (before any drawing).

    The class attribute is wrapped before the window is built, so the window's own
    ``controller.succeeded`` connection calls the wrapper (library code is untouched).
    """
    from stpca_gui.gui.main_window import MainWindow

    original = MainWindow._on_result
    if getattr(original, "_bench_wrapped", False):
        return

    def on_result(self, result) -> None:
        now = time.perf_counter()
        marks.setdefault("result_arrival", now)
        marks["last_result_arrival"] = now
        original(self, result)

    on_result._bench_wrapped = True  # type: ignore[attr-defined]
    MainWindow._on_result = on_result  # type: ignore[method-assign]


def child_first_frame(t0: float, t0_wall: float) -> dict[str, Any]:
    """Section 1, in a fresh interpreter: ``stpca_gui.gui.app.main()`` with time stamps.

    The real entry point runs (``--demo clusters-t3``); its steps are timed by wrapping,
    before it starts, the class/module attributes it calls (``MainWindow.__init__``,
    ``MainWindow.load_demo``, ``MainWindow._on_result``, ``core.warmup.warm_up`` when it
    exists). Nothing in the library is changed. After the first complete frame the same
    fit runs once more (warm), then the window closes and ``main()`` returns. ``t0`` and
    ``t0_wall`` are ``perf_counter()`` and ``time()`` at the top of ``bench_gui.py``.
    """
    marks: dict[str, float] = {"start": t0}
    try:
        launch_wall = float(os.environ.get(LAUNCH_ENV, "nan"))
    except ValueError:
        launch_wall = float("nan")

    from PySide6.QtCore import QEvent, QObject, QTimer, qVersion
    from PySide6.QtWidgets import QApplication

    marks["import_pyside6"] = time.perf_counter()
    from stpca_gui.gui import app as app_module
    from stpca_gui.gui.main_window import MainWindow

    marks["import_stpca"] = time.perf_counter()
    instrument_main_window(marks)
    outcome: dict[str, Any] = {}

    def now() -> float:
        return time.perf_counter()

    # Wrapped only when this version's main() calls it: importing the numerical core here
    # would load numba and scipy before a window that is meant to come first.
    warmup_module = None
    if "warm_up" in Path(app_module.__file__).read_text():
        try:
            from stpca_gui.core import warmup as warmup_module
        except ImportError:
            warmup_module = None
    if warmup_module is not None and hasattr(warmup_module, "warm_up"):
        original_warm_up = warmup_module.warm_up

        def warm_up(*args, **kwargs):
            marks.setdefault("warmup_start", now())
            try:
                return original_warm_up(*args, **kwargs)
            finally:
                marks.setdefault("warmup_end", now())

        warmup_module.warm_up = warm_up

    class FirstPaint(QObject):
        def eventFilter(self, obj, event) -> bool:  # Qt API name
            if event.type() == QEvent.Type.Paint and "first_paint" not in marks:
                marks["first_paint"] = now()
            return False

    painter_filter = FirstPaint()
    original_init = MainWindow.__init__
    original_load_demo = MainWindow.load_demo

    def finish(window) -> None:
        window.close()
        QApplication.instance().quit()

    def hook(window) -> None:
        app = QApplication.instance()
        window.installEventFilter(painter_filter)

        def follow_fit() -> None:
            window.controller.busy_changed.connect(
                lambda busy: marks.setdefault("fit_launch", now()) if busy else None)

        # A window prepared in stages has its controller once the numerical core is in.
        when_prepared = getattr(window, "when_prepared", None)
        if when_prepared is None:
            follow_fit()
        else:
            when_prepared("numerics", follow_fit)

        def frame() -> None:
            app.processEvents()
            marks["frame"] = now()
            outcome["frame_wall"] = time.time()
            outcome["peak_rss_mb"] = peak_rss_mb()
            outcome["rss_mb"] = current_rss_mb()
            result = window.state.result
            outcome["fit_wall_time_s"] = result.wall_time
            outcome["timings"] = dict(result.model.timings_)
            outcome["n"] = result.dataset.n_samples
            # For comparison: the same fit again in this process (kernels loaded).
            marks["refit_start"] = now()
            window.fit()

        def refit_frame() -> None:
            app.processEvents()
            marks["refit_frame"] = now()
            outcome["refit_timings"] = dict(window.state.result.model.timings_)
            finish(window)

        def shown() -> None:
            if "result_shown" not in marks:
                marks["result_shown"] = now()
                QTimer.singleShot(0, frame)
            else:
                marks["refit_shown"] = now()
                marks["refit_arrival"] = marks["last_result_arrival"]
                QTimer.singleShot(0, refit_frame)

        def give_up(reason: str) -> None:
            outcome.setdefault("error", f"the fit {reason}")
            finish(window)

        window.result_shown.connect(shown)
        window.fit_ended.connect(give_up)
        QTimer.singleShot(int(FIRST_FRAME_TIMEOUT_S * 1000), lambda: give_up("timed out"))

    def init(self, *args, **kwargs) -> None:
        marks.setdefault("window_start", now())
        original_init(self, *args, **kwargs)
        marks.setdefault("window", now())
        hook(self)

    def load_demo(self, *args, **kwargs):
        marks.setdefault("load_demo_start", now())
        try:
            return original_load_demo(self, *args, **kwargs)
        finally:
            marks.setdefault("load_demo", now())

    MainWindow.__init__ = init  # type: ignore[method-assign]
    MainWindow.load_demo = load_demo  # type: ignore[method-assign]
    marks["main_start"] = now()
    code = app_module.main(["--demo", DEMO])
    if "error" in outcome:
        return {"error": outcome["error"]}
    if "frame" not in marks:
        return {"error": f"main() returned {code} before a frame was shown"}
    return {
        "demo": DEMO,
        "qt": qVersion(),
        "warm_up_called": "warmup_start" in marks,
        "marks_s": {k: v - t0 for k, v in marks.items()},
        "interpreter_start_s": t0_wall - launch_wall,
        "popen_to_frame_s": outcome["frame_wall"] - launch_wall,
        **{k: v for k, v in outcome.items() if k != "frame_wall"},
        "peak_rss_end_mb": peak_rss_mb(),
    }

# --------------------------------------------------------------------- GUI children


class GuiSession:
    """A shown MainWindow plus helpers to process events and read the views."""

    def __init__(self, stop_auto_render: bool = False) -> None:
        os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
        from PySide6.QtCore import QEvent, QObject, qVersion
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QApplication

        from stpca_gui.gui.main_window import MainWindow

        self.marks: dict[str, float] = {}
        instrument_main_window(self.marks)
        self.app = QApplication.instance() or QApplication([sys.argv[0]])
        self.app.setApplicationName("stpca-gui")
        self.qt_version = qVersion()
        # As stpca_gui.gui.app.main does (when this version has it): load the compiled
        # kernels before the window exists, so that the first fit does not do it.
        self.warm_up_s: float | None = None
        try:
            from stpca_gui.core.warmup import warm_up
        except ImportError:
            pass
        else:
            start = time.perf_counter()
            warm_up()
            self.warm_up_s = time.perf_counter() - start
        # A private recent-files list, inside the parent's work folder (removed at the end).
        folder = tempfile.mkdtemp(prefix="recent-", dir=os.environ.get(WORKDIR_ENV) or None)
        self.window = MainWindow(recent_path=Path(folder) / "recent.json")
        self.window.resize(*WINDOW_SIZE)
        self.window.show()
        QTest.qWaitForWindowExposed(self.window, 10_000)
        views3d = (self.window.torus_view, self.window.sphere_view)
        #: Whether pyvistaqt's periodic re-render timers run (QtInteractor(auto_update=...)).
        self.auto_render_active = any(v.plotter.render_timer.isActive() for v in views3d)
        if stop_auto_render:
            # Diagnostic: what ``QtInteractor(auto_update=False)`` would give. pyvistaqt's
            # default re-renders each 3-D view 5 times a second from a QTimer.
            for view in views3d:
                view.plotter.render_timer.stop()
        self.canvases = [self.window.scores_view.canvas, self.window.histogram_view.canvas]
        self.paints = [0] * len(self.canvases)
        paints = self.paints
        canvases = self.canvases

        class PaintCounter(QObject):
            def eventFilter(self, obj, event) -> bool:
                if event.type() == QEvent.Type.Paint:
                    for k, canvas in enumerate(canvases):
                        if obj is canvas:
                            paints[k] += 1
                return False

        self._counter = PaintCounter()
        for canvas in self.canvases:
            canvas.installEventFilter(self._counter)
        #: VTK renders of the two 3-D views together (EndEvent of their render windows) and
        #: of each view (torus, sphere).
        self.renders = [0]
        self.view_renders = [0] * len(views3d)

        def counter(k: int) -> Callable[..., None]:
            def count_render(*_: object) -> None:
                self.renders[0] += 1
                self.view_renders[k] += 1

            return count_render

        for k, view in enumerate(views3d):
            view.plotter.ren_win.AddObserver("EndEvent", counter(k))
        #: ``renders[0]`` when the last result was shown (its 3-D renders follow in paintGL).
        self.renders_at_result = 0
        self.window.result_shown.connect(self._note_result_shown)

    def _note_result_shown(self) -> None:
        self.renders_at_result = self.renders[0]

    def process_until(self, done: Callable[[], bool], timeout_s: float = 5.0) -> bool:
        """``processEvents()`` (at least once) until ``done()``; whether it came in time."""
        deadline = time.perf_counter() + timeout_s
        self.app.processEvents()
        while not done() and time.perf_counter() < deadline:
            self.app.processEvents()
        return done()

    def flush_paint(self, every_canvas: bool = False, renders: int = 0,
                    renders_since: int | None = None) -> bool:
        """Process events until the views' pending updates ran and got painted.

        By default only the canvases with a pending ``draw_idle`` when called must receive a
        paint event (a canvas with nothing to redraw is not waited for); with
        ``every_canvas`` each canvas must be painted (a partial redraw blits and schedules
        a paint without a ``draw_idle``), and at least ``renders`` VTK renders of the 3-D
        views (their ``paintGL``) must have ended since the call, or since ``renders[0]``
        was ``renders_since``. Returns whether all of that happened (within 5 s).
        """
        if every_canvas:
            waiting = list(range(len(self.canvases)))
        else:
            waiting = [k for k, c in enumerate(self.canvases)
                       if getattr(c, "_draw_pending", False)]
        before = list(self.paints)
        renders_before = self.renders[0] if renders_since is None else renders_since

        def done() -> bool:
            pending = any(getattr(c, "_draw_pending", False) for c in self.canvases)
            return (not pending and all(self.paints[k] > before[k] for k in waiting)
                    and self.renders[0] - renders_before >= renders)

        return self.process_until(done)

    def wait_signal(self, signal, timeout_s: float,
                    check: Callable[..., bool] | None = None) -> bool:
        """Run a nested event loop until ``signal`` fires (and ``check`` accepts it)."""
        from PySide6.QtCore import QEventLoop, QTimer

        loop = QEventLoop()
        fired: list[bool] = []

        def on_signal(*args: object) -> None:
            if check is None or check(*args):
                fired.append(True)
                loop.quit()

        signal.connect(on_signal)
        QTimer.singleShot(int(timeout_s * 1000), loop.quit)
        loop.exec()
        signal.disconnect(on_signal)
        return bool(fired)

    def opengl_info(self) -> str:
        try:
            text = self.window.torus_view.plotter.ren_win.ReportCapabilities()
        except Exception as exc:
            return f"unknown ({exc})"
        keep = [line.split(":", 1)[1].strip() for line in text.splitlines()
                if "renderer string" in line or "version string" in line]
        return " / ".join(keep) or "unknown"

    def highlights(self) -> dict[str, int]:
        """How many samples each view highlights."""
        return highlight_counts(self.window)


def cluster_dataset(n: int, seed: int):
    """Three wrapped-normal clusters on T³ with exactly ``n`` points, as a Dataset."""
    import numpy as np

    from stpca_gui.core.demos import make_clusters_t3
    from stpca_gui.model import Dataset

    sizes = [n // 3 + (1 if k < n % 3 else 0) for k in range(3)]
    data = make_clusters_t3(n_per_cluster=sizes, random_state=seed)
    return Dataset(angles=data.angles, column_names=data.column_names,
                   labels=np.asarray([str(v) for v in data.labels]), source="synthetic",
                   description=f"synthetic clusters, n = {n}",
                   row_ids=np.arange(1, len(data.angles) + 1))


def cluster_masks(labels, count: int, seed: int) -> list:
    """``count`` masks of random non-empty cluster subsets, each unlike the previous."""
    from itertools import combinations

    import numpy as np

    rng = np.random.default_rng(seed)
    names = sorted(set(labels.tolist()))
    subsets = [c for r in range(1, len(names) + 1) for c in combinations(names, r)]
    masks, previous = [], None
    for _ in range(count):
        choices = [s for s in subsets if s != previous]
        subset = choices[int(rng.integers(len(choices)))]
        masks.append(np.isin(labels, subset))
        previous = subset
    return masks


def stats_ms(values: Sequence[float]) -> dict[str, float]:
    import numpy as np

    a = np.asarray(values, dtype=float) * 1e3
    return {"median_ms": float(np.median(a)), "max_ms": float(a.max()),
            "min_ms": float(a.min()), "mean_ms": float(a.mean())}


def highlights_match(session: GuiSession, expected: int) -> bool:
    """Whether every view highlights the selection: all of it, or in the 3-D views as much
    of it as their display cap allows (``scene.max_points``; no cap in older versions)."""
    counts = session.highlights()
    for key in ("torus", "sphere"):
        scene = getattr(session.window, f"{key}_view").scene
        cap = getattr(scene, "max_points", None)
        if cap is not None and counts[key] == min(expected, cap):
            counts[key] = expected
    return all(v == expected for v in counts.values())


def measure_selections(session: GuiSession, count: int, seed: int) -> dict[str, Any]:
    """Full selections: apply (synchronous slots) + paint, with a highlight check."""
    state = session.window.state
    masks = cluster_masks(state.dataset.labels, count + 1, seed)
    # One untimed selection first (first-use costs such as the overlay's first upload).
    state.selection.apply(masks[0], "replace", source="bench")
    session.flush_paint(every_canvas=True, renders=2)
    apply_s, paint_s, total_s, selected, renders = [], [], [], [], []
    all_painted, all_match = True, True
    for mask in masks[1:]:
        renders_before = session.renders[0]
        start = time.perf_counter()
        changed = state.selection.apply(mask, "replace", source="bench")
        applied = time.perf_counter()
        painted = session.flush_paint(every_canvas=True, renders=2)
        end = time.perf_counter()
        renders.append(session.renders[0] - renders_before)
        if not changed:
            raise RuntimeError("a benchmark selection changed nothing")
        apply_s.append(applied - start)
        paint_s.append(end - applied)
        total_s.append(end - start)
        selected.append(int(mask.sum()))
        all_painted &= painted
        all_match &= highlights_match(session, int(mask.sum()))
    return {
        "count": count,
        "n_selected_range": [min(selected), max(selected)],
        "apply": stats_ms(apply_s),
        "paint": stats_ms(paint_s),
        "total": stats_ms(total_s),
        "total_all_ms": [1e3 * t for t in total_s],
        "renders_3d": renders,
        "canvases_painted_every_time": bool(all_painted),
        "highlight_counts_match": bool(all_match),
    }


def measure_breakdown(session: GuiSession, count: int, seed: int) -> dict[str, Any]:
    """Per-view costs of a selection: each slot called directly, each view's frame in situ.

    Returns ``rows`` (name → statistics, ``in_latency``, ``count``) in drawing order, the
    matplotlib slots' fallbacks to a full render, the waits that timed out (5 s) and the
    renders of the other 3-D view during a 3-D row (both should be empty / zero).
    """
    from stpca_gui.gui.views.base import current_colors

    win = session.window
    state = win.state
    masks = cluster_masks(state.dataset.labels, count, seed)
    times: dict[str, list[float]] = {}
    in_latency: dict[str, bool] = {}
    fallbacks = {"scores": 0, "histogram": 0}
    timeouts: list[str] = []
    other_view_renders = 0

    def record(name: str, seconds: float, latency: bool = True) -> None:
        times.setdefault(name, []).append(seconds)
        in_latency[name] = latency

    def timed(name: str, func: Callable[[], object], latency: bool = True) -> None:
        start = time.perf_counter()
        func()
        record(name, time.perf_counter() - start, latency)

    def frame_of(k: int, action: Callable[[], object]) -> tuple[float, float, bool]:
        """``action``, then process events until 3-D view ``k`` rendered.

        Returns the seconds in all, the seconds of ``action`` and whether it rendered.
        """
        nonlocal other_view_renders
        before = list(session.view_renders)
        start = time.perf_counter()
        action()
        returned = time.perf_counter()
        rendered = session.process_until(lambda: session.view_renders[k] > before[k])
        seconds = time.perf_counter() - start
        other_view_renders += sum(session.view_renders) - sum(before) - int(rendered)
        return seconds, returned - start, rendered

    mpl_views = (
        ("scores", win.scores_view, win.scores_view.update_colors,
         "update_colors slot (partial Agg redraw)"),
        ("histogram", win.histogram_view, win.histogram_view.update_selection,
         "update_selection slot (selection KDE + partial Agg redraw)"),
    )
    views3d = (("torus", win.torus_view), ("sphere", win.sphere_view))
    apply_row = "SelectionModel.apply (signal blocked)"
    colors_row = "current_colors() (called by 3 slots)"
    canvas_paint_row = "scores + histogram: next frame (both canvases painted)"
    label_row = "main window: selection label slot"
    empty_frame_row = ("reference: a frame with nothing changed (scores canvas `update()` "
                       "until painted: composing and flushing the window)")

    def slot_row(name: str, what: str) -> str:
        return f"{name}: {what}"

    def fallback_row(name: str) -> str:
        return f"{name}: fallback full Agg render (draw_idle → _draw_idle)"

    def frame_row(name: str) -> str:
        return f"{name}: update_colors slot + frame (paintGL render, no anti-aliasing)"

    def frame_slot_row(name: str) -> str:
        return f"{name}: · of which the slot (recolour; render() schedules the repaint)"

    def still_row(name: str) -> str:
        return f"{name}: anti-aliased still frame (render_still(), paintGL with FXAA)"

    # Rows in drawing order (the fallback rows stay empty unless a fallback happens).
    for name in (apply_row, colors_row,
                 *[row for n, _, _, what in mpl_views
                   for row in (slot_row(n, what), fallback_row(n))],
                 canvas_paint_row,
                 *[row for n, _ in views3d for row in (frame_row(n), frame_slot_row(n))],
                 *[still_row(n) for n, _ in views3d], label_row, empty_frame_row):
        times[name] = []
    for mask in masks:
        with state.selection.changed.blocked():
            timed(apply_row, lambda m=mask: state.selection.apply(m, "replace", source="bench"))
        timed(colors_row, lambda: current_colors(state), latency=False)
        # A matplotlib slot restores the snapshot of the static layers, draws the selection
        # layers and blits (a scheduled QWidget.update()). Without a valid snapshot it falls
        # back to draw_idle(); that full Agg render is then timed by calling _draw_idle.
        for name, view, slot, what in mpl_views:
            timed(slot_row(name, what), slot)
            if getattr(view.canvas, "_draw_pending", False):
                fallbacks[name] += 1
                timed(fallback_row(name), view.canvas._draw_idle)
        start = time.perf_counter()
        if not session.flush_paint(every_canvas=True):
            timeouts.append("canvas paint")
        record(canvas_paint_row, time.perf_counter() - start)
        # A 3-D slot recolours the points and calls plotter.render(), which only schedules
        # a repaint: paintGL renders, without anti-aliasing. Timed in situ (slot, then events
        # until that view rendered): a bare ren_win.Render() underestimates the cost, since
        # llvmpipe rasterises when the frame is flushed. The still timer the slot started is
        # stopped so that the anti-aliased frame is timed on its own below.
        for k, (name, view) in enumerate(views3d):
            plotter = view.plotter

            def recolour(view=view, plotter=plotter) -> None:
                view.update_colors()
                still_timer = getattr(plotter, "_still_timer", None)
                if still_timer is not None:
                    still_timer.stop()

            seconds, slot_seconds, rendered = frame_of(k, recolour)
            record(frame_row(name), seconds)
            record(frame_slot_row(name), slot_seconds, latency=False)  # in the row above
            if not rendered:
                timeouts.append(f"{name} frame")
        # What the still timer does once a view has been still for STILL_DELAY_MS: FXAA on
        # and one more repaint. Not part of the latency.
        for k, (name, view) in enumerate(views3d):
            plotter = view.plotter
            if not hasattr(plotter, "render_still") or getattr(plotter, "smooth", True):
                continue  # no still frame in this version, or the frame was anti-aliased
            seconds, _, rendered = frame_of(k, plotter.render_still)
            record(still_row(name), seconds, latency=False)
            if not rendered:
                timeouts.append(f"{name} still frame")
        timed(label_row, win._on_selection)
        session.flush_paint()  # untimed: whatever is still pending (the label's paint)
        painted = session.paints[0]
        start = time.perf_counter()
        win.scores_view.canvas.update()
        if not session.process_until(lambda painted=painted: session.paints[0] > painted):
            timeouts.append("reference frame")
        record(empty_frame_row, time.perf_counter() - start, latency=False)
    rows = {name: stats_ms(values) | {"in_latency": in_latency[name], "count": len(values)}
            for name, values in times.items() if values}
    return {"selections": count, "rows": rows, "full_render_fallbacks": fallbacks,
            "timeouts": timeouts, "other_view_renders": other_view_renders,
            "still_delay_ms": getattr(type(win.torus_view.plotter), "STILL_DELAY_MS", None)}


def profile_selections(session: GuiSession, count: int, seed: int,
                       top: int = 40) -> dict[str, Any]:
    """cProfile of ``count`` full selections: top functions by own and cumulative time."""
    import cProfile
    import pstats

    state = session.window.state
    masks = cluster_masks(state.dataset.labels, count, seed)
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    for mask in masks:
        state.selection.apply(mask, "replace", source="bench")
        session.flush_paint(every_canvas=True, renders=2)
    profiler.disable()
    wall = time.perf_counter() - start
    stats = pstats.Stats(profiler)

    def name(key: tuple[str, int, str]) -> str:
        filename, line, func = key
        if filename == "~":
            return func
        path = Path(filename)
        parts = path.parts
        for anchor in ("site-packages", "stpca_gui"):
            if anchor in parts:
                index = parts.index(anchor)
                rel = "/".join(parts[index + (1 if anchor == "site-packages" else 0):])
                return f"{rel}:{line}({func})"
        return f"{path.name}:{line}({func})"

    rows = []
    for key, (_cc, ncalls, tottime, cumtime, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        label = name(key)
        if any(part in label for part in ("bench_gui.py", "_gui_children.py", "cProfile",
                                          "disable")):
            continue
        rows.append({"function": label, "calls": ncalls, "tottime_ms": 1e3 * tottime / count,
                     "cumtime_ms": 1e3 * cumtime / count})
    by_own = sorted(rows, key=lambda r: -r["tottime_ms"])[:top]
    by_cum = sorted(rows, key=lambda r: -r["cumtime_ms"])[:top]
    return {"selections": count, "wall_ms_per_selection": 1e3 * wall / count,
            "by_own_time": by_own, "by_cumulative_time": by_cum}


def ticks_while(session: GuiSession, action: Callable[[], None],
                signal) -> tuple[float, float, list[float]] | None:
    """Run ``action()`` with a precise ``TIMER_INTERVAL_MS`` timer ticking on the GUI thread
    until ``signal`` fires (a gap between ticks is a GUI stall).

    Returns ``(start, end, tick times)`` (``perf_counter()``), or None after
    ``FIT_TIMEOUT_S`` without the signal.
    """
    from PySide6.QtCore import Qt, QTimer

    ticks: list[float] = []
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(TIMER_INTERVAL_MS)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    start = time.perf_counter()
    action()
    fired = session.wait_signal(signal, FIT_TIMEOUT_S)
    end = time.perf_counter()
    timer.stop()
    return (start, end, ticks) if fired else None


def gap_statistics(start: float, end: float, ticks: Sequence[float],
                   events: Sequence[tuple[float, str]]) -> dict[str, Any]:
    """Gaps between timer ticks (and the window edges) while the fit ran."""
    import numpy as np

    during = [start, *[t for t in ticks if start < t <= end], end]
    times = np.asarray(during)
    gaps = np.diff(times)

    def stage_at(t: float) -> str:
        stage = "starting"
        for when, name in events:
            if when <= t:
                stage = name
        return stage

    order = np.argsort(gaps)[::-1][:5]
    worst = [{"gap_ms": float(1e3 * gaps[k]), "ends_at_s": float(times[k + 1] - start),
              "stage": stage_at(float(times[k]))} for k in order]
    return {
        "fit_s": end - start,
        "ticks": len(during) - 2,
        "expected_ticks": int((end - start) * 1e3 / TIMER_INTERVAL_MS),
        "longest_gap_ms": float(1e3 * gaps.max()),
        "p99_gap_ms": float(1e3 * np.percentile(gaps, 99)),
        "median_gap_ms": float(1e3 * np.median(gaps)),
        "gaps_over_50ms": int(np.sum(gaps > 0.05)),
        "gaps_over_100ms": int(np.sum(gaps > 0.1)),
        "worst_gaps": worst,
    }


def memory_mark(store: dict[str, Any], key: str) -> None:
    store[key] = {"rss_mb": current_rss_mb(), "peak_rss_mb": peak_rss_mb()}


def select_and_close(session: GuiSession, out: dict[str, Any], n: int, selections: int,
                     breakdown: int, profile: int, seed: int) -> None:
    """Timed selections, their breakdown and (optionally) a profile; then close the window."""
    log(f"n = {n}: {selections} selections")
    out["selection"] = measure_selections(session, selections, seed=seed)
    out["breakdown"] = measure_breakdown(session, breakdown, seed=seed + 1)
    if profile:
        out["profile"] = profile_selections(session, profile, seed=seed + 2)
    memory_mark(out["memory"], "after selections")
    session.window.close()


def show_dataset(session: Any, dataset: Any, out: dict[str, Any]) -> None:
    """Show a data set without fitting it, timing it until the torus view has drawn it."""
    renders = session.renders[0]
    start = time.perf_counter()
    session.window.set_dataset(dataset, fit=False)
    session.flush_paint(renders=1, renders_since=renders)  # the torus view's points
    out["dataset_shown_s"] = time.perf_counter() - start
    memory_mark(out["memory"], "dataset shown")


def child_fit_and_select(n: int, selections: int, breakdown: int, profile: int,
                         model_out: Path | None, stop_auto_render: bool) -> dict[str, Any]:
    """Sections 2–4 at n = 5000: fit in the GUI (with the tick timer), then selections."""
    import pickle


    out: dict[str, Any] = {"n": n, "memory": {}, "auto_render_stopped": stop_auto_render}
    memory_mark(out["memory"], "imports")
    session = GuiSession(stop_auto_render)
    out["auto_render_timers_active"] = session.auto_render_active
    out["warm_up_s"] = session.warm_up_s
    win = session.window
    out["opengl"] = session.opengl_info()
    out["qt"] = session.qt_version
    memory_mark(out["memory"], "window shown")
    dataset = cluster_dataset(n, SMALL_SEED)
    show_dataset(session, dataset, out)

    log(f"n = {n}: background fit with a {TIMER_INTERVAL_MS} ms GUI timer")
    events: list[tuple[float, str]] = []
    win.controller.progress.connect(lambda e: events.append((time.perf_counter(), e.stage)))
    timed = ticks_while(session, win.fit, win.result_shown)
    if timed is None:
        return {"error": f"the n = {n} fit did not finish within {FIT_TIMEOUT_S:.0f} s"}
    fit_start, shown, ticks = timed
    done = next((t for t, stage in events if stage == "done"), None)
    if done is None:
        return {"error": "no 'done' progress event arrived"}
    result = win.state.result
    arrival = session.marks["result_arrival"]
    out["responsiveness"] = gap_statistics(fit_start, done, ticks, events)
    out["responsiveness"]["stage_durations_s"] = dict(result.model.timings_)
    out["fit"] = {"wall_time_s": result.wall_time, "timings_s": dict(result.model.timings_),
                  "launch_to_arrival_s": arrival - fit_start, "done_to_arrival_s": arrival - done,
                  "smds_iterations": int(result.model.smds_.n_iter_)}
    out["result_drawn_s"] = shown - arrival
    start = time.perf_counter()
    session.flush_paint(renders=2, renders_since=session.renders_at_result)
    out["result_paint_s"] = time.perf_counter() - start
    memory_mark(out["memory"], "fitted and drawn")
    if model_out is not None:
        model_out.write_bytes(pickle.dumps(result.model))

    select_and_close(session, out, n, selections, breakdown, profile, seed=10)
    return out


def synthetic_result(model, dataset):
    """The n = 5000 model carried over to ``dataset`` by nearest fitted sample.

    Scores, embedding and angles of every new point are those of its nearest fitted sample
    (torus distance) — the start point of the model's own out-of-sample map T̂, without the
    per-point optimisation. PNS, the principal curve and the variance ratios are the n =
    5000 fit's. Returns (AnalysisResult, seconds spent on the nearest-sample search, seconds
    spent on its mode clusters).
    """
    import copy

    import numpy as np

    from stpca_gui.core.geometry.torus import torus_cdist
    from stpca_gui.model import AnalysisResult, FitParameters

    start = time.perf_counter()
    angles = dataset.angles
    nearest = np.empty(len(angles), dtype=np.intp)
    for lo in range(0, len(angles), 4000):
        block = torus_cdist(angles[lo:lo + 4000], model.angles_)
        nearest[lo:lo + 4000] = np.argmin(block, axis=1)
    search_s = time.perf_counter() - start
    clone = copy.copy(model)
    clone.angles_ = np.asarray(angles)
    clone.embedding_ = model.embedding_[nearest]
    clone.scores_ = model.scores_[nearest]
    vars(clone).pop("projections_", None)
    # The app's fit worker computes the PNS1 mode clusters before it hands the result to
    # the GUI thread (run_analysis); the synthetic result gets them here, off the clock.
    start = time.perf_counter()
    result = AnalysisResult.from_fit(clone, FitParameters(), dataset,
                                     float(sum(model.timings_.values())))
    return result, search_s, time.perf_counter() - start


def child_synthetic_select(n: int, selections: int, breakdown: int, profile: int,
                           model_in: Path, stop_auto_render: bool) -> dict[str, Any]:
    """Sections 2 and 4 at n = 100,000 with the synthetic result."""
    import pickle

    out: dict[str, Any] = {"n": n, "memory": {}, "auto_render_stopped": stop_auto_render}
    memory_mark(out["memory"], "imports")
    session = GuiSession(stop_auto_render)
    out["auto_render_timers_active"] = session.auto_render_active
    win = session.window
    memory_mark(out["memory"], "window shown")
    model = pickle.loads(model_in.read_bytes())
    dataset = cluster_dataset(n, LARGE_SEED)
    result, search_s, clusters_s = synthetic_result(model, dataset)
    out["nearest_search_s"] = search_s
    out["mode_clusters_s"] = clusters_s
    out["model_n"] = int(model.scores_.shape[0])
    del model
    show_dataset(session, dataset, out)
    shown: list[float] = []
    win.result_shown.connect(lambda: shown.append(time.perf_counter()))
    start = time.perf_counter()
    win.controller.succeeded.emit(result)  # same path as a finished fit (direct connection)
    if not shown:
        return {"error": "the synthetic result was not shown"}
    out["result_drawn_s"] = shown[0] - start
    start = time.perf_counter()
    session.flush_paint(renders=2, renders_since=session.renders_at_result)
    out["result_paint_s"] = time.perf_counter() - start
    memory_mark(out["memory"], "fitted and drawn")
    folder = os.environ.get(SCREENSHOT_ENV)
    if folder:
        save_screenshots(session, Path(folder), n)

    select_and_close(session, out, n, selections, breakdown, profile, seed=20)
    return out


def save_screenshots(session: GuiSession, folder: Path, n: int) -> None:
    """The window as drawn, then with one cluster selected (to look at, not measured)."""
    folder.mkdir(parents=True, exist_ok=True)
    win = session.window
    session.process_until(lambda: False, timeout_s=0.5)
    win.export_window(folder / f"window-n{n}.png")
    mask = cluster_masks(win.state.dataset.labels, 1, seed=99)[0]
    win.state.selection.apply(mask, "replace", source="bench")
    session.flush_paint(every_canvas=True, renders=2)
    win.export_window(folder / f"window-n{n}-selected.png")
    win.state.selection.clear(source="bench")
    session.flush_paint(every_canvas=True, renders=2)
    log(f"screenshots of n = {n} written to {folder}")


def run_as_child(args: argparse.Namespace, t0: float, t0_wall: float) -> int:
    selections = args.selections or 20
    try:
        if args.child == "first-frame":
            payload = child_first_frame(t0, t0_wall)
        elif args.child == "fit-select":
            payload = child_fit_and_select(args.n, selections, args.breakdown, args.profile,
                                           args.model, args.stop_auto_render)
        elif args.child == "monte-carlo":
            payload = child_monte_carlo(args.replicates)
        elif args.child == "synthetic-select":
            payload = child_synthetic_select(args.n, selections, args.breakdown, args.profile,
                                             args.model, args.stop_auto_render)
        else:
            payload = {"error": f"unknown child mode {args.child!r}"}
    except Exception as exc:  # reported by the parent
        import traceback

        traceback.print_exc()
        payload = {"error": f"{type(exc).__name__}: {exc}"}
    print(CHILD_MARKER + json.dumps(payload), flush=True)
    sys.stderr.flush()
    # Skip the interpreter's teardown of Qt/VTK objects (not measured, occasionally slow).
    os._exit(0)


def child_monte_carlo(replicates: int) -> dict[str, Any]:
    """Section 5: the uniformity tests' Monte Carlo run from their dialog, with the tick timer.

    The demo is fitted first; then Analysis → Uniformity tests runs on PNS1 with Monte Carlo
    p-values. The 10 ms timer ticks on the GUI thread from ``run()`` until the results are
    in the table (``results_shown``). For comparison, the same computation is timed once
    more synchronously: that is how long the window froze when the dialog ran it on the
    GUI thread.
    """

    from stpca_gui.core.circstats.uniformity import uniformity_tests
    from stpca_gui.model.uniformity import testable_columns

    out: dict[str, Any] = {"replicates": replicates, "memory": {}}
    session = GuiSession()
    win = session.window
    win.load_demo(DEMO)
    if not session.wait_signal(win.result_shown, FIT_TIMEOUT_S):
        return {"error": f"the {DEMO} fit did not finish within {FIT_TIMEOUT_S:.0f} s"}
    session.flush_paint(renders=2, renders_since=session.renders_at_result)
    name, values = testable_columns(win.state)[0]
    # Compile (or load) the Monte Carlo kernel outside the measured window.
    uniformity_tests(values[:20], n_replicates=10, random_state=0, calibration="monte_carlo")
    dialog = win.uniformity_tests()
    dialog.calibration.setCurrentIndex(dialog.calibration.findData("monte_carlo"))
    dialog.replicates.setValue(replicates)
    session.process_until(lambda: False, timeout_s=0.5)  # let the dialog settle on screen

    log(f"Monte Carlo, {replicates:,} replicates, from the dialog, with a "
        f"{TIMER_INTERVAL_MS} ms GUI timer")
    events: list[tuple[float, str]] = []
    dialog.runner.progress.connect(lambda report: events.append(
        (time.perf_counter(), f"{100 * report.fraction:.0f} %")))
    timed = ticks_while(session, dialog.run, dialog.results_shown)
    if timed is None:
        return {"error": f"the Monte Carlo did not finish within {FIT_TIMEOUT_S:.0f} s"}
    start, end, ticks = timed
    out["column"] = name
    out["n"] = len(values)
    out["responsiveness"] = gap_statistics(start, end, ticks, events)
    out["progress_reports"] = len(events)
    out["p_values"] = {k: t.p_value for k, t in dialog.results.items()}

    log("the same Monte Carlo on the GUI thread (how long the window froze before)")
    start = time.perf_counter()
    uniformity_tests(values, n_replicates=replicates, random_state=0,
                     calibration="monte_carlo")
    out["synchronous_s"] = time.perf_counter() - start
    memory_mark(out["memory"], "end")
    dialog.close()
    win.close()
    return out
