"""Benchmark of the desktop app: start-up, selection latency, responsiveness and memory.

Usage::

    uv run python benchmarks/bench_gui.py [--quick] [--json OUT] [--selections N]

Every measurement runs in a fresh subprocess (a hidden ``--child MODE`` flag re-runs this
file), so that start-up is cold and ``ru_maxrss`` belongs to one case. When ``DISPLAY`` is
unset the script starts its own ``Xvfb -displayfd`` (like ``tests/conftest.py``), runs Qt on
``xcb`` and stops the server at exit. The Markdown report goes to stdout, progress to stderr.

1. **Time to first complete frame** — the real entry point
   ``stpca_gui.gui.app.main(["--demo", "clusters-t3"])`` in a new interpreter, from the top
   of the script (before PySide6 is imported) to the first paint processed after
   ``MainWindow.result_shown`` (a zero timer + ``processEvents()``), with a breakdown timed
   by wrappers installed before ``main()`` starts: imports, QApplication/splash, the kernel
   ``warm_up()`` (when the version has one), window construction, show, loading the demo,
   the fit in the worker thread (``timings_`` of the model and the rest), drawing (result
   arrival → ``result_shown``) and the final paint. Run twice; both processes load numba's on-disk
   cache, the first one may also pay cold file-system caches. A full run adds one process
   with a private bytecode cache (``PYTHONPYCACHEPREFIX``; written by an unreported run
   first), since without ``.pyc`` files every import compiles its source. Peak RSS per
   process.
2. **Selection latency** — three wrapped-normal clusters on T³ (``make_clusters_t3``),
   n = 5000 (full ST-PCA fit in the GUI) and n = 100,000. A fit at n = 100,000 is not
   possible (the classical-MDS start alone allocates an n×n float64 matrix, 80 GB), so that
   case installs a synthetic ``AnalysisResult``: the n = 5000 model (pickled by the first
   child) extended to the 100,000 points by their nearest fitted sample (see the report).
   For random subsets of the clusters (each differing from the previous one):
   ``state.selection.apply(mask, "replace")`` (the views' slots run synchronously: the
   matplotlib views redraw their selection layers over a snapshot of the last full render
   and blit, which schedules a paint; the 3-D views recolour and schedule a repaint) and
   then the paint (``processEvents()`` until both canvases were painted and both 3-D views
   rendered in ``paintGL``, without anti-aliasing). Median and max, target ≤ 100 ms at
   n = 5000. The anti-aliased "still" frame each 3-D view draws once it has been still for
   ``ViewInteractor.STILL_DELAY_MS`` (300 ms) is not part of the latency. A per-view
   breakdown (selection signal blocked) times each slot; the canvases' next frame; each 3-D
   view's slot plus its frame, in situ (slot, then ``processEvents()`` until that view's
   render window rendered: a bare ``ren_win.Render()`` underestimates llvmpipe, which
   rasterises when the frame is flushed); each still frame (``render_still()``) and, for
   reference, a frame with nothing changed; it counts the matplotlib slots that fell back
   to a full Agg render (``draw_idle``). A cProfile of a few full selections shows where
   the time goes.
3. **Responsiveness during a background fit** (n = 5000; like ``app.main``, the process calls
   ``core.warmup.warm_up()`` before building the window when that exists): a 10 ms precise
   QTimer in the GUI thread from ``fit()`` to the arrival of the ``"done"`` progress event;
   longest gap, 99th percentile, gaps > 50 / 100 ms and the fit stage in which the longest
   gaps fell.
   Target: no gap over 100 ms.
4. **Memory** — RSS at each step and peak RSS (``ru_maxrss``) of the n = 5000 and
   n = 100,000 processes.

Diagnostics (full run, skipped by ``--no-diagnostics``): when the 3-D views run pyvistaqt's
auto-update timer (its default re-renders each view 5× a second), the n = 5000 and
n = 100,000 cases are repeated with ``plotter.render_timer.stop()`` on both views — what
``QtInteractor(auto_update=False)`` gives. Skipped (with a note) when the timers are already
off. Nothing in the library is changed.

``--quick``: one first-frame run, 5 selections, only the n = 5000 case, no profile, no
diagnostics.
"""

from __future__ import annotations

import time

_T0 = time.perf_counter()  # before anything heavy is imported (first-frame child)
_T0_WALL = time.time()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
from collections import deque  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from _common import (  # noqa: E402
    REPO_ROOT,
    cpu_model,
    current_rss_mb,
    load_average_text,
    make_logger,
    markdown_table,
    pass_fail,
    peak_rss_mb,
)
from _common import fmt as common_fmt  # noqa: E402

log = make_logger("bench_gui")


def fmt(value: float | int | None, spec: str = ".1f") -> str:
    """Table cell of a number (one decimal by default); ``None`` and NaN: an em dash."""
    return common_fmt(value, spec)
CHILD_MARKER = "BENCH_GUI_CHILD_RESULT "
LAUNCH_ENV = "STPCA_BENCH_GUI_LAUNCH_WALL"
WORKDIR_ENV = "STPCA_BENCH_GUI_WORKDIR"
CHILD_TIMEOUT_S = 1800.0
FIRST_FRAME_TIMEOUT_S = 300.0
FIT_TIMEOUT_S = 900.0

DEMO = "clusters-t3"
WINDOW_SIZE = (1500, 950)  # what ``stpca-gui`` uses without --screenshot
SELECTION_TARGET_MS = 100.0
STALL_TARGET_MS = 100.0
TIMER_INTERVAL_MS = 10
SMALL_N = 5000
LARGE_N = 100_000
SMALL_SEED = 3
LARGE_SEED = 4


# ----------------------------------------------------------------------------- helpers
def ms(seconds: float | None, spec: str = ".1f") -> str:
    """Seconds as a millisecond table cell."""
    return "—" if seconds is None else fmt(1e3 * seconds, spec)






def package_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def bytecode_cache_state() -> str:
    """Whether imports can use compiled ``.pyc`` files (they dominate import time)."""
    import matplotlib

    package = Path(matplotlib.__file__).parent
    compiled = sum(1 for _ in package.rglob("*.pyc"))
    sources = sum(1 for _ in package.rglob("*.py"))
    flag = os.environ.get("PYTHONDONTWRITEBYTECODE")
    prefix = os.environ.get("PYTHONPYCACHEPREFIX")
    return (f"PYTHONDONTWRITEBYTECODE={flag or '(unset)'}, PYTHONPYCACHEPREFIX="
            f"{prefix or '(unset)'}; matplotlib package: {compiled} .pyc for {sources} .py")


def source_digest() -> str:
    """Short hash of every ``stpca_gui/**/*.py`` (detects edits made during the run)."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted((REPO_ROOT / "stpca_gui").rglob("*.py")):
        digest.update(str(path.relative_to(REPO_ROOT)).encode())
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"<unreadable>")
    return digest.hexdigest()[:12]


def source_revision() -> str:
    """Commit of the working tree and whether ``stpca_gui/`` has local changes (read-only)."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT,
                                capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "stpca_gui"],
                               cwd=REPO_ROOT, capture_output=True, text=True,
                               timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if not commit:
        return "unknown"
    return (f"commit {commit}" + (" + local changes in stpca_gui/" if dirty else "")
            + f", stpca_gui/*.py digest {source_digest()}")


class LoadSampler:
    """The 1-minute load average every few seconds while the benchmark runs."""

    def __init__(self, interval_s: float = 5.0) -> None:
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(interval_s,), daemon=True)

    def _run(self, interval_s: float) -> None:
        while not self._stop.is_set():
            try:
                self.samples.append(os.getloadavg()[0])
            except (AttributeError, OSError):  # pragma: no cover - not POSIX
                return
            self._stop.wait(interval_s)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> str:
        self._stop.set()
        self._thread.join(timeout=10)
        if not self.samples:
            return "unknown"
        mean = sum(self.samples) / len(self.samples)
        return f"mean {mean:.2f}, max {max(self.samples):.2f} ({len(self.samples)} samples)"


def machine_info() -> dict[str, Any]:
    """CPU, threads and versions (no Qt import here: the children do that)."""
    try:
        affinity: int | None = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        affinity = None
    import numba

    thread_env = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                  "NUMBA_NUM_THREADS", "NUMBA_THREADING_LAYER", "NUMBA_CACHE_DIR")
    versions = ", ".join(f"{name} {package_version(name)}" for name in (
        "numpy", "numba", "matplotlib", "PySide6-Essentials", "vtk", "pyvista", "pyvistaqt",
        "psygnal"))
    return {
        "cpu": cpu_model(),
        "os.cpu_count": os.cpu_count(),
        "usable cpus (affinity)": affinity,
        "numba threads": numba.get_num_threads(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "packages": versions,
        "thread environment": ", ".join(
            f"{name}={os.environ[name]}" for name in thread_env if name in os.environ
        ) or "(none set)",
        "GIL switch interval": f"{sys.getswitchinterval() * 1e3:.0f} ms",
        "source at start": source_revision(),
        "bytecode cache": bytecode_cache_state(),
        "load average at start (1, 5, 15 min)": load_average_text(),
    }


# ----------------------------------------------------------------------------- display
class Display:
    """Use ``DISPLAY`` when set, else start a private Xvfb (stopped by :meth:`stop`)."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.description = ""
        self.problem: str | None = None

    def start(self) -> None:
        os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
        if os.environ.get("DISPLAY"):
            self.description = f"existing DISPLAY={os.environ['DISPLAY']}"
            return
        binary = shutil.which("Xvfb")
        if binary is None:
            self.problem = "Xvfb is not installed (apt-get install xvfb) and DISPLAY is unset"
            return
        read_fd, write_fd = os.pipe()
        self.process = subprocess.Popen(
            [binary, "-displayfd", str(write_fd), "-screen", "0", "1600x1000x24", "-nolisten",
             "tcp", "-dpi", "96"],
            pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(write_fd)
        with os.fdopen(read_fd) as pipe:
            number = pipe.readline().strip()
        if not number:
            self.problem = "Xvfb did not start"
            self.stop()
            return
        os.environ["DISPLAY"] = f":{number}"
        self.description = f"private Xvfb :{number} (1600x1000x24, started by this script)"

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None


def run_child(mode: str, extra: Sequence[str] = (), timeout: float = CHILD_TIMEOUT_S,
              env_changes: dict[str, str | None] | None = None) -> dict[str, Any]:
    """Run this script with ``--child MODE`` in a fresh interpreter; its stderr is relayed.

    ``env_changes`` sets (str) or removes (None) environment variables for the child.
    """
    command = [sys.executable, str(Path(__file__).resolve()), "--child", mode, *extra]
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


def child_first_frame() -> dict[str, Any]:
    """Section 1, in a fresh interpreter: ``stpca_gui.gui.app.main()`` with time stamps.

    The real entry point runs (``--demo clusters-t3``); its steps are timed by wrapping,
    before it starts, the class/module attributes it calls (``MainWindow.__init__``,
    ``MainWindow.load_demo``, ``MainWindow._on_result``, ``core.warmup.warm_up`` when it
    exists). Nothing in the library is changed. After the first complete frame the same
    fit runs once more (warm), then the window closes and ``main()`` returns.
    """
    marks: dict[str, float] = {"start": _T0}
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
        window.controller.busy_changed.connect(
            lambda busy: marks.setdefault("fit_launch", now()) if busy else None)

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
        "marks_s": {k: v - _T0 for k, v in marks.items()},
        "interpreter_start_s": _T0_WALL - launch_wall,
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
        """How many samples each view highlights (as in tests/test_gui.py)."""
        win = self.window
        overlay = win.scores_view.scatter.overlay
        hist = win.histogram_view.histogram
        n = hist._values.size
        width = hist._edges[1] - hist._edges[0]
        hist_count = round(sum(p.get_height() for p in hist._selection_bars.patches) * n * width)

        def scene_count(scene) -> int:
            layer = scene.point_layer
            return layer.overlay.n_points if layer.overlay_actor.GetVisibility() else 0

        return {
            "scores": 0 if overlay is None else len(overlay.get_offsets()),
            "histogram": hist_count,
            "torus": scene_count(win.torus_view.scene),
            "sphere": scene_count(win.sphere_view.scene),
        }


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
        expected = int(mask.sum())
        all_match &= all(v == expected for v in session.highlights().values())
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
        if "bench_gui.py" in label or "cProfile" in label or "disable" in label:
            continue
        rows.append({"function": label, "calls": ncalls, "tottime_ms": 1e3 * tottime / count,
                     "cumtime_ms": 1e3 * cumtime / count})
    by_own = sorted(rows, key=lambda r: -r["tottime_ms"])[:top]
    by_cum = sorted(rows, key=lambda r: -r["cumtime_ms"])[:top]
    return {"selections": count, "wall_ms_per_selection": 1e3 * wall / count,
            "by_own_time": by_own, "by_cumulative_time": by_cum}


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


def child_fit_and_select(n: int, selections: int, breakdown: int, profile: int,
                         model_out: Path | None, stop_auto_render: bool) -> dict[str, Any]:
    """Sections 2–4 at n = 5000: fit in the GUI (with the tick timer), then selections."""
    import pickle

    from PySide6.QtCore import Qt as QtNS
    from PySide6.QtCore import QTimer

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
    renders = session.renders[0]
    start = time.perf_counter()
    win.set_dataset(dataset, fit=False)
    session.flush_paint(renders=1, renders_since=renders)  # the torus view's points
    out["dataset_shown_s"] = time.perf_counter() - start
    memory_mark(out["memory"], "dataset shown")

    log(f"n = {n}: background fit with a {TIMER_INTERVAL_MS} ms GUI timer")
    ticks: list[float] = []
    events: list[tuple[float, str]] = []
    win.controller.progress.connect(lambda e: events.append((time.perf_counter(), e.stage)))
    timer = QTimer()
    timer.setTimerType(QtNS.TimerType.PreciseTimer)
    timer.setInterval(TIMER_INTERVAL_MS)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    fit_start = time.perf_counter()
    win.fit()
    if not session.wait_signal(win.result_shown, FIT_TIMEOUT_S):
        return {"error": f"the n = {n} fit did not finish within {FIT_TIMEOUT_S:.0f} s"}
    shown = time.perf_counter()
    timer.stop()
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
    5000 fit's. Returns (AnalysisResult, seconds spent on the nearest-sample search).
    """
    import copy

    import numpy as np

    from stpca_gui.core.torus import torus_cdist
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
    result = AnalysisResult(model=clone, parameters=FitParameters(), dataset=dataset,
                            wall_time=float(sum(model.timings_.values())))
    return result, search_s


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
    result, search_s = synthetic_result(model, dataset)
    out["nearest_search_s"] = search_s
    # The app's fit worker computes the PNS1 mode clusters before it hands the result to
    # the GUI thread (run_analysis); the synthetic result gets them here, off the clock.
    start = time.perf_counter()
    _ = result.mode_clusters
    out["mode_clusters_s"] = time.perf_counter() - start
    out["model_n"] = int(model.scores_.shape[0])
    del model
    renders = session.renders[0]
    start = time.perf_counter()
    win.set_dataset(dataset, fit=False)
    session.flush_paint(renders=1, renders_since=renders)  # the torus view's points
    out["dataset_shown_s"] = time.perf_counter() - start
    memory_mark(out["memory"], "dataset shown")
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

    select_and_close(session, out, n, selections, breakdown, profile, seed=20)
    return out


# ============================================================================== report
FIRST_FRAME_ROWS = (
    ("interpreter start (Popen → top of the script)", None, None),
    ("import PySide6 (QtCore, QtWidgets)", ("start",), ("import_pyside6",)),
    ("import stpca_gui.gui.app, .main_window (numpy, matplotlib, pyvista/VTK, numba, …)",
     ("import_pyside6",), ("import_stpca",)),
    ("main() until the kernel warm-up: QApplication, splash", ("main_start",),
     ("warmup_start",), "warmup"),
    ("warm_up(): load the compiled numba kernels", ("warmup_start",), ("warmup_end",),
     "warmup"),
    ("main() → MainWindow(): QApplication (no warm-up in this version)", ("main_start",),
     ("window_start",), "no-warmup"),
    ("MainWindow() construction", ("window_start",), ("window",)),
    ("resize + show()", ("window",), ("load_demo_start",)),
    ("load_demo(): data, torus view draws the points, fit thread started",
     ("load_demo_start",), ("load_demo",)),
    ("fit: thread started → result arrives in the GUI thread", ("fit_launch",),
     ("result_arrival",)),
    ("drawing: result arrival → result_shown", ("result_arrival",), ("result_shown",)),
    ("paint: result_shown → zero timer + processEvents()", ("result_shown",), ("frame",)),
)
STAGES = ("smds", "pns", "curve", "torus-variance")


def first_frame_report(runs: list[dict[str, Any]]) -> str:
    parts = ["## 1. Time to first complete frame (`clusters-t3`, n = 300)", ""]
    for run in runs:
        if "error" in run:
            parts.append(f"**{run['label']} failed:** {run['error']}\n")
    good = [(r["label"], r) for r in runs if "error" not in r]
    if not good:
        return "\n".join(parts)
    rows = []
    any_warmup = any(r.get("warm_up_called") for _, r in good)
    for label, a, b, *flags in FIRST_FRAME_ROWS:
        if ("no-warmup" in flags and any_warmup) or ("warmup" in flags and not any_warmup):
            continue
        cells = []
        for _, run in good:
            m = run["marks_s"]
            if a is None:
                cells.append(ms(run["interpreter_start_s"], ".0f"))
            else:
                ta = next((m[k] for k in a if k in m), None)
                tb = next((m[k] for k in b if k in m), None)
                cells.append(ms(tb - ta, ".0f") if ta is not None and tb is not None else "—")
        rows.append([label, *cells])
        if a == ("fit_launch",):
            rows.append(["  · of which the model's `timings_` (" + " / ".join(STAGES) + ")",
                         *[f"{ms(sum(r['timings'].values()), '.0f')} ("
                           + " / ".join(ms(r["timings"].get(s), ".0f") for s in STAGES) + ")"
                           for _, r in good]])
            rows.append(["  · rest (estimator set-up, thread start, queued signal, sharing "
                         "the CPU/GIL with the GUI thread)",
                         *[ms(r["marks_s"]["result_arrival"] - r["marks_s"]["fit_launch"]
                              - sum(r["timings"].values()), ".0f") for _, r in good]])
    rows.append(["**total: top of the script → first complete frame**",
                 *[f"**{ms(r['marks_s']['frame'], '.0f')}**" for _, r in good]])
    rows.append(["**total incl. interpreter start (Popen → frame)**",
                 *[f"**{ms(r['popen_to_frame_s'], '.0f')}**" for _, r in good]])
    rows.append(["(first paint of the still empty window, from the top of the script)",
                 *[ms(r["marks_s"].get("first_paint"), ".0f") for _, r in good]])
    rows.append(["peak RSS at the first frame (MiB)",
                 *[fmt(r["peak_rss_mb"], ".0f") for _, r in good]])

    def span(run: dict[str, Any], a: str, b: str) -> str:
        m = run["marks_s"]
        return ms(m[b] - m[a], ".0f") if a in m and b in m else "—"

    rows.append(["*then the same fit again in that process (warm): fit() → result arrival*",
                 *[span(r, "refit_start", "refit_arrival") for _, r in good]])
    rows.append(["  · of which the model's `timings_` (" + " / ".join(STAGES) + ")",
                 *[f"{ms(sum(r['refit_timings'].values()), '.0f')} ("
                   + " / ".join(ms(r["refit_timings"].get(s), ".0f") for s in STAGES) + ")"
                   if "refit_timings" in r else "—" for _, r in good]])
    rows.append(["  · drawing + paint (arrival → result_shown → processEvents)",
                 *[span(r, "refit_arrival", "refit_frame") for _, r in good]])
    parts.append(markdown_table(["phase (ms)", *[label for label, _ in good]], rows))
    parts += ["", "The child runs the real entry point, `stpca_gui.gui.app.main([\"--demo\", "
              "\"clusters-t3\"])`, with its steps timed through wrappers installed before it "
              "starts. Phases are consecutive in the GUI thread except the fit, which runs in "
              "its worker thread from inside `load_demo()` while the GUI thread enters the "
              "event loop and paints the empty window. The interpreter is started directly "
              "(`sys.executable`), not through `uv run`, which adds its own start-up. Numba "
              "functions are compiled with `cache=True`: every process loads them from the "
              "on-disk cache (or recompiles them after a source change), in `warm_up()` when "
              "this version has it, else during the first fit (compare the fit row with the "
              "warm re-fit). *run 1/2* run as "
              "this environment is set up; *with .pyc cache* is a third process with "
              "`PYTHONDONTWRITEBYTECODE` unset and `PYTHONPYCACHEPREFIX` pointing at a "
              "private folder filled by an unreported run before it (see *bytecode cache* in "
              "the machine table: without `.pyc` files every import compiles its source)."]
    return "\n".join(parts)


def case_title(case: dict[str, Any]) -> str:
    return f"n = {case['n']:,}" + (" (timers stopped)" if case.get("auto_render_stopped")
                                   else "")


def render_counts(counts: Sequence[int] | None) -> str:
    """Median (range) of the 3-D renders per selection."""
    if not counts:
        return "—"
    ordered = sorted(counts)
    return f"{ordered[len(ordered) // 2]} ({ordered[0]}–{ordered[-1]})"


def selection_report(cases: list[dict[str, Any]], notes: list[str]) -> str:
    parts = ["## 2. Selection latency (three clusters on T³)", "", *notes, ""]
    rows = []
    for case in cases:
        if "error" in case:
            rows.append([case_title(case), case["what"], f"**error:** {case['error']}",
                         *[""] * 7])
            continue
        sel = case["selection"]
        target = SELECTION_TARGET_MS if case["n"] == SMALL_N else None
        ok = None if target is None else sel["total"]["median_ms"] <= target
        rows.append([
            case_title(case), case["what"], str(sel["count"]),
            f"{sel['n_selected_range'][0]:,}–{sel['n_selected_range'][1]:,}",
            f"{fmt(sel['apply']['median_ms'])} / {fmt(sel['apply']['max_ms'])}",
            f"{fmt(sel['paint']['median_ms'])} / {fmt(sel['paint']['max_ms'])}",
            f"**{fmt(sel['total']['median_ms'])}** / {fmt(sel['total']['max_ms'])}",
            render_counts(sel.get("renders_3d")),
            "yes" if sel["highlight_counts_match"] and sel["canvases_painted_every_time"]
            else "**no**",
            (f"{pass_fail(ok)} / {pass_fail(sel['total']['max_ms'] <= target)}"
             if target else "—"),
        ])
    parts.append(markdown_table(
        ["case", "result shown", "selections", "points selected",
         "apply: slots done, median / max (ms)",
         "paint: canvases painted, 3-D views rendered, median / max (ms)",
         "total, median / max (ms)", "3-D renders per selection (both views)",
         "4 views highlight the mask, canvases painted",
         f"≤ {SELECTION_TARGET_MS:.0f} ms (median / max)"], rows))
    good = [c for c in cases if "error" not in c]
    if not good:
        return "\n".join(parts)
    headers = ["operation (ms)", *[case_title(c) for c in good]]
    parts += ["", "Other GUI-thread operations of the same processes (one run each; the GUI "
              "is frozen meanwhile):", ""]
    parts.append(markdown_table(headers, [
        ["set_dataset (torus view draws the points) + processEvents",
         *[ms(c["dataset_shown_s"], ".0f") for c in good]],
        ["result arrival → result_shown (every view redrawn)",
         *[ms(c["result_drawn_s"], ".0f") for c in good]],
        ["(not in the GUI thread: PNS1 mode clusters, computed by the fit's worker; for "
         "the synthetic result before it is shown)",
         *[ms(c.get("mode_clusters_s"), ".0f") if c.get("mode_clusters_s") is not None
           else "in the fit" for c in good]],
        ["then processEvents (deferred matplotlib draws, 3-D renders in paintGL, paints)",
         *[ms(c["result_paint_s"], ".0f") for c in good]],
    ]))
    delay = next((c["breakdown"].get("still_delay_ms") for c in good
                  if c["breakdown"].get("still_delay_ms")), None)
    delay_text = f"{delay:.0f} ms" if delay else "a quiet time"
    parts += ["", "Per-view breakdown, median / max ms over the breakdown selections (a count "
              "in parentheses: the row occurred only that often). Each selection is applied "
              "with the selection signal blocked; then every step is done by hand, one after "
              "the other. The variance view does not subscribe to the selection. A "
              "matplotlib slot updates its selection artists, restores the snapshot of the "
              "static layers taken during the last full render, draws only the selection "
              "layers (the scores' points colour by colour, as stamped markers) and blits, "
              "which schedules a `QWidget.update()`; the *next frame* row is "
              "`processEvents()` until both canvases were painted (it also runs the zero "
              "timer that renews the selectors' backgrounds). Without a valid snapshot "
              "(e.g. right after a resize) a slot falls back to `draw_idle()`, a full Agg "
              "render of the figure: the *fell back* row counts those selections, and a "
              "*fallback full Agg render* row (`_draw_idle()` called directly) times them "
              "when there were any. A 3-D slot recolours the points and calls "
              "`plotter.render()`, which only schedules a repaint: VTK renders in `paintGL`, "
              "without anti-aliasing. Those rows are timed in situ, view after view: slot, "
              "then `processEvents()` until that view's render window ended a render (the "
              "*of which* row is the slot alone; a bare `ren_win.Render()` outside a paint "
              "underestimates the cost, as Mesa's llvmpipe rasterises only when the frame "
              "is flushed). The *still frame* rows time `plotter.render_still()` the same "
              "way: FXAA on and one more `paintGL` render, which the app draws once a view "
              f"has been still for {delay_text} (`ViewInteractor.STILL_DELAY_MS`; the "
              "slot's timer is stopped here so that it does not fire in another row), after "
              "the selection is shown: not part of the latency. Every frame also composes "
              "and flushes the whole window (the *reference* row: a frame with nothing "
              "changed). Here each step is painted in a frame of its own, whereas a real "
              "selection paints every view in one frame, so the sum below exceeds the "
              "measured total by about two such frames.", ""]
    names: list[str] = []
    for case in good:
        names += [name for name in case["breakdown"]["rows"] if name not in names]

    def cell(case: dict[str, Any], name: str) -> str:
        row = case["breakdown"]["rows"].get(name)
        if row is None:
            return "—"
        text = f"{fmt(row['median_ms'])} / {fmt(row['max_ms'])}"
        if row["count"] != case["breakdown"]["selections"]:
            text += f" ({row['count']}×)"
        return text

    def latency_sum(case: dict[str, Any]) -> str:
        breakdown = case["breakdown"]
        total = sum(row["median_ms"] for row in breakdown["rows"].values()
                    if row["in_latency"] and row["count"] == breakdown["selections"])
        return f"**{fmt(total)}**"

    def checks(case: dict[str, Any]) -> str:
        breakdown = case["breakdown"]
        return (f"{len(breakdown['timeouts'])} / {breakdown['other_view_renders']}"
                + (f" ({', '.join(breakdown['timeouts'])})" if breakdown["timeouts"] else ""))

    rows = [[name, *[cell(c, name) for c in good]] for name in names]
    rows.append(["**sum of the medians of the latency rows** (all rows except the still "
                 "frames and the current_colors and *of which* rows, which other rows "
                 "contain)",
                 *[latency_sum(c) for c in good]])
    rows.append(["matplotlib slots that fell back to a full render (`_draw_pending` right "
                 "after the slot): scores / histogram",
                 *[f"{c['breakdown']['full_render_fallbacks']['scores']} / "
                   f"{c['breakdown']['full_render_fallbacks']['histogram']} of "
                   f"{c['breakdown']['selections']}" for c in good]])
    rows.append(["waits that timed out (5 s) / renders of the other 3-D view during a 3-D "
                 "row", *[checks(c) for c in good]])
    parts.append(markdown_table(["component", *[case_title(c) for c in good]], rows))
    still = []
    for case in good:
        found = [(name.partition(":")[0], row["median_ms"])
                 for name, row in case["breakdown"]["rows"].items() if "still frame" in name]
        if found:
            still.append(f"{case_title(case)}: " + ", ".join(
                f"{view} {fmt(value)} ms" for view, value in found))
    if still:
        parts += ["", "The 3-D views' anti-aliased still frames follow "
                  f"{delay_text} after the last change and are not part of the latency; "
                  "they cost (median) " + "; ".join(still) + "."]
    for c in good:
        prof = c.get("profile")
        if not prof:
            continue
        parts += ["", f"cProfile, {case_title(c)}: {prof['selections']} full selections "
                  f"(apply + paint), {fmt(prof['wall_ms_per_selection'], '.0f')} ms per "
                  "selection under the profiler; times per selection.", ""]
        rows = [[f"`{r['function']}`", fmt(r["tottime_ms"], ".1f"), fmt(r["cumtime_ms"], ".1f"),
                 str(r["calls"])] for r in prof["by_own_time"][:12]]
        parts.append("Top by own time:\n\n" + markdown_table(
            ["function", "own ms", "cumulative ms", "calls (all selections)"], rows))
        rows = [[f"`{r['function']}`", fmt(r["cumtime_ms"], ".1f"), fmt(r["tottime_ms"], ".1f"),
                 str(r["calls"])] for r in prof["by_cumulative_time"][:22]]
        parts.append("\nTop by cumulative time:\n\n" + markdown_table(
            ["function", "cumulative ms", "own ms", "calls (all selections)"], rows))
    return "\n".join(parts)


def responsiveness_report(runs: list[dict[str, Any]]) -> str:
    parts = [f"## 3. GUI responsiveness during a background fit (n = {SMALL_N:,})", ""]
    for run in runs:
        if "error" in run:
            parts.append(f"**{case_title(run)} failed:** {run['error']}\n")
    good = [r for r in runs if "error" not in r]
    if not good:
        return "\n".join(parts)

    def cells(func: Callable[[dict[str, Any]], str]) -> list[str]:
        return [func(r) for r in good]

    rows = [
        ["fit() → 'done' progress event arrives in the GUI thread",
         *cells(lambda r: f"{r['responsiveness']['fit_s']:.2f} s")],
        ["model stages (`timings_`, s)", *cells(lambda r: " / ".join(
            f"{k} {v:.1f}" for k, v in r["fit"]["timings_s"].items()))],
        ["SMDS iterations", *cells(lambda r: str(r["fit"]["smds_iterations"]))],
        [f"ticks of the {TIMER_INTERVAL_MS} ms timer / ideal", *cells(
            lambda r: f"{r['responsiveness']['ticks']} / {r['responsiveness']['expected_ticks']}")],
        ["median gap", *cells(lambda r: f"{r['responsiveness']['median_gap_ms']:.1f} ms")],
        ["99th percentile gap", *cells(lambda r: f"{r['responsiveness']['p99_gap_ms']:.1f} ms")],
        ["**longest gap**",
         *cells(lambda r: f"**{r['responsiveness']['longest_gap_ms']:.1f} ms**")],
        ["gaps > 50 ms / > 100 ms", *cells(
            lambda r: f"{r['responsiveness']['gaps_over_50ms']} / "
                      f"{r['responsiveness']['gaps_over_100ms']}")],
        [f"no gap over {STALL_TARGET_MS:.0f} ms", *cells(
            lambda r: pass_fail(r["responsiveness"]["longest_gap_ms"] <= STALL_TARGET_MS))],
        ["after 'done': result drawn (arrival → result_shown, GUI frozen; not in the target "
         "window)", *cells(lambda r: f"{ms(r['result_drawn_s'], '.0f')} ms")],
    ]
    headers = ["measure", *["as shipped" if not r.get("auto_render_stopped") else
                            "diagnostic: pyvistaqt auto-update timers stopped" for r in good]]
    parts.append(markdown_table(headers, rows))
    warmed = [r.get("warm_up_s") for r in good]
    if any(w is not None for w in warmed):
        parts += ["", "Like `stpca-gui` (`app.main`), the process called "
                  "`stpca_gui.core.warmup.warm_up()` before building the window "
                  f"({ms(next(w for w in warmed if w is not None), '.0f')} ms), so the fit "
                  "did not load the compiled kernels itself."]
    else:
        parts += ["", "This version has no `stpca_gui.core.warmup`: the fit loads the compiled "
                  "kernels on their first call (numba holds the GIL meanwhile)."]
    for r in good:
        worst = "; ".join(f"{w['gap_ms']:.0f} ms ending {w['ends_at_s']:.2f} s after fit() "
                          f"({w['stage']})" for w in r["responsiveness"]["worst_gaps"])
        title = "as shipped" if not r.get("auto_render_stopped") else "timers stopped"
        parts += ["", f"Longest gaps, {title} (stage = last progress event received): {worst}."]
    return "\n".join(parts)


def memory_report(first: list[dict[str, Any]], cases: list[dict[str, Any]]) -> str:
    parts = ["## 4. Memory (MiB)", ""]
    rows = []
    for run in first:
        if "error" not in run:
            rows.append([f"first frame, {run['label']} (n = 300)", "—", "—",
                         fmt(run["rss_mb"], ".0f"),
                         "—", f"**{fmt(run['peak_rss_mb'], '.0f')}**"])
    for case in cases:
        if "error" in case:
            continue
        mem = case["memory"]

        def rss(key: str, mem=mem) -> str:
            return fmt(mem.get(key, {}).get("rss_mb"), ".0f")

        rows.append([f"{case_title(case)}: {case['short']}", rss("window shown"),
                     rss("dataset shown"), rss("fitted and drawn"), rss("after selections"),
                     f"**{fmt(mem['after selections']['peak_rss_mb'], '.0f')}**"])
    parts.append(markdown_table(
        ["process", "RSS: window shown", "dataset shown", "result drawn", "after selections",
         "peak RSS (ru_maxrss)"], rows))
    parts += ["", "Every row is its own process. The n = 5000 peaks include the fit in the "
              "worker thread (SMDS works on n×n float64 matrices, 5000² × 8 B = 191 MiB "
              "each). The n = 100,000 processes never fit (they load the pickled n = 5000 "
              "model); their peak is the GUI with 100,000 points in four views plus the "
              "nearest-sample search (4000 × 5000 distance blocks, 153 MiB)."]
    return "\n".join(parts)


def targets_report(first: list[dict[str, Any]], cases: list[dict[str, Any]]) -> str:
    lines = ["## Targets", ""]
    for case in cases:
        if "error" in case or case["n"] != SMALL_N:
            continue
        sel = case["selection"]["total"]
        r = case["responsiveness"]
        tag = "diagnostic, timers stopped" if case.get("auto_render_stopped") else "as shipped"
        lines.append(f"- Selection latency n = {SMALL_N} ({tag}): median {sel['median_ms']:.1f} "
                     f"ms, max {sel['max_ms']:.1f} ms, target ≤ {SELECTION_TARGET_MS:.0f} ms: "
                     f"{pass_fail(sel['median_ms'] <= SELECTION_TARGET_MS)} (median), "
                     f"{pass_fail(sel['max_ms'] <= SELECTION_TARGET_MS)} (max)")
        lines.append(f"- No GUI stall over {STALL_TARGET_MS:.0f} ms during the n = {SMALL_N} fit "
                     f"({tag}): longest gap {r['longest_gap_ms']:.1f} ms: "
                     f"{pass_fail(r['longest_gap_ms'] <= STALL_TARGET_MS)}")
    good = [r for r in first if "error" not in r]
    if good:
        lines.append("- First complete frame (no target): " + ", ".join(
            f"{r['label']} {r['popen_to_frame_s']:.2f} s" for r in good))
    return "\n".join(lines)


# ================================================================================ main
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark of the stpca-gui desktop app (Markdown report on stdout).")
    parser.add_argument("--quick", action="store_true",
                        help="one first-frame run, 5 selections, only the shipped n = 5000 "
                             "case, no profile")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT",
                        help="write every number as JSON")
    parser.add_argument("--selections", type=int, default=None,
                        help="timed selections per case (default 20, --quick 5)")
    parser.add_argument("--no-diagnostics", action="store_true",
                        help="skip the re-runs with pyvistaqt's auto-update timers stopped")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=SMALL_N, help=argparse.SUPPRESS)
    parser.add_argument("--breakdown", type=int, default=10, help=argparse.SUPPRESS)
    parser.add_argument("--profile", type=int, default=5, help=argparse.SUPPRESS)
    parser.add_argument("--model", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--stop-auto-render", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def run_as_child(args: argparse.Namespace) -> int:
    selections = args.selections or 20
    try:
        if args.child == "first-frame":
            payload = child_first_frame()
        elif args.child == "fit-select":
            payload = child_fit_and_select(args.n, selections, args.breakdown, args.profile,
                                           args.model, args.stop_auto_render)
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


def selection_notes(quick: bool, diagnostics: bool, skipped: bool,
                    still_delay_ms: float | None = None) -> list[str]:
    notes = [
        f"- n = {SMALL_N:,}: `make_clusters_t3` (seed {SMALL_SEED}), fitted with the default "
        "parameters in the GUI's worker thread (the fit of section 3), then the selections.",
    ]
    if not quick:
        notes.append(
            f"- n = {LARGE_N:,}: **no fit**. ST-PCA's SMDS is O(n²) in memory and time (the "
            "classical-MDS start alone allocates one n×n float64 matrix, 10¹⁰ × 8 B = 80 GB, "
            "on a machine with 23 GB; the n = 5000 fit already takes tens of seconds). The "
            f"data (`make_clusters_t3`, seed {LARGE_SEED}) get a synthetic `AnalysisResult`: "
            "the pickled n = 5000 model whose `scores_`/`embedding_`/`angles_` are replaced, "
            "for every point, by those of its nearest fitted sample (torus distance) — the "
            "start of the model's out-of-sample map T̂ without its per-point optimisation "
            "(`transform()` costs ≈ 4 ms per point here, ≈ 7 min for 10⁵). PNS, principal "
            "curve and variance bars are the n = 5000 fit's. It is installed through "
            "`controller.succeeded.emit(result)`, the path of a finished fit. Only display and "
            "selection are measured, with 100,000 points in the scores scatter, the PNS1 "
            "histogram/KDE, the torus and the sphere.")
    if diagnostics:
        notes.append(
            "- *timers stopped* rows are diagnostic re-runs in fresh processes with "
            "`plotter.render_timer.stop()` on both 3-D views, i.e. what "
            "`QtInteractor(..., auto_update=False)` would give; pyvistaqt's default "
            "(`auto_update=5.0`) re-renders every 3-D view five times a second, forever. "
            "Benchmark-side only: the library is unchanged.")
    elif skipped:
        notes.append(
            "- No *timers stopped* diagnostic rows: the 3-D views of this version run no "
            "pyvistaqt auto-update timer (`QtInteractor(auto_update=False)`), so the "
            "diagnostic would repeat the measurement.")
    delay = f"{still_delay_ms:.0f} ms" if still_delay_ms else "a quiet time"
    notes.append(
        "- Each selection is a random non-empty subset of the three clusters, never the same "
        "as the previous one, applied with `state.selection.apply(mask, \"replace\")`, after "
        "one untimed selection. *Apply* ends when every slot has returned: the matplotlib "
        "views have redrawn their selection layers over the snapshot of their last full "
        "render and blitted (`canvas.blit()` schedules a `QWidget.update()`), the 3-D views "
        "have recoloured their points and scheduled a repaint (`plotter.render()` renders "
        "nothing itself). *Paint* is `processEvents()` until both canvases were painted and "
        "both 3-D views rendered (VTK renders in `paintGL`, without anti-aliasing), i.e. "
        "until every view shows the selection; it also runs whatever else is due. A "
        "matplotlib slot without a valid snapshot (e.g. right after a resize) falls back to "
        "`draw_idle()`, a full Agg render, which the paint then includes. The 3-D views' "
        f"anti-aliased still frames follow {delay} after the last change "
        "(`ViewInteractor.STILL_DELAY_MS`) and are not part of the latency; the breakdown "
        "below times them. After each selection the highlight counts of the four views are "
        "checked against the mask (helper of `tests/test_gui.py`).")
    return notes


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child is not None:
        return run_as_child(args)

    started = time.perf_counter()
    info = machine_info()
    sampler = LoadSampler()
    sampler.start()
    display = Display()
    display.start()
    if display.problem is not None:
        print(f"# GUI benchmark\n\nCannot run: {display.problem}")
        return 1
    info["display"] = display.description
    quick = args.quick
    diagnostics = not quick and not args.no_diagnostics
    diagnostics_skipped = False
    selections = args.selections or (5 if quick else 20)
    common = ["--selections", str(selections), "--breakdown", str(5 if quick else 10)]
    profile = ["--profile", "0" if quick else "5"]
    first: list[dict[str, Any]] = []
    cases: list[dict[str, Any]] = []
    workdir = Path(tempfile.mkdtemp(prefix="bench-gui-"))
    os.environ[WORKDIR_ENV] = str(workdir)  # inherited by the children
    model_path = workdir / "model-5000.pkl"
    fit_what = "full ST-PCA fit in the GUI, default parameters"
    synth_what = "synthetic: n = 5000 model, nearest fitted sample per point"
    try:
        for k in range(1 if quick else 2):
            log(f"first frame: run {k + 1} in a fresh process")
            run = run_child("first-frame", timeout=FIRST_FRAME_TIMEOUT_S + 60)
            first.append(run | {"label": f"run {k + 1}"})
        if not quick:
            # The same with a bytecode cache in a private folder (PYTHONPYCACHEPREFIX): one
            # unreported run writes it, the next one imports from it, as an installed app
            # with compiled .pyc files would.
            pyc = {"PYTHONDONTWRITEBYTECODE": None, "PYTHONPYCACHEPREFIX": str(workdir / "pyc")}
            log("first frame: writing a private bytecode cache (unreported run)")
            run_child("first-frame", timeout=FIRST_FRAME_TIMEOUT_S + 60, env_changes=pyc)
            log("first frame: run with the bytecode cache")
            run = run_child("first-frame", timeout=FIRST_FRAME_TIMEOUT_S + 60, env_changes=pyc)
            first.append(run | {"label": "with .pyc cache", "pyc": True})
        plan: list[tuple[str, int, list[str], str]] = [
            ("fit-select", SMALL_N, [*profile, "--model", str(model_path)], fit_what)]
        if not quick:
            plan.append(("synthetic-select", LARGE_N, [*profile, "--model", str(model_path)],
                         synth_what))
        diagnostic_plan = [
            ("fit-select", SMALL_N, ["--profile", "0", "--stop-auto-render"], fit_what),
            ("synthetic-select", LARGE_N, ["--profile", "0", "--stop-auto-render", "--model",
                                           str(model_path)], synth_what)]
        while plan:
            mode, n, extra, what = plan.pop(0)
            stopped = "--stop-auto-render" in extra
            log(f"n = {n}{' (auto-update timers stopped)' if stopped else ''}: fresh process")
            if mode == "synthetic-select" and not model_path.is_file():
                case: dict[str, Any] = {"error": "the n = 5000 process wrote no model"}
            else:
                case = run_child(mode, ["--n", str(n), *common, *extra])
            case.update(n=n, what=what, auto_render_stopped=stopped,
                        short="fit + selections" if mode == "fit-select"
                        else "synthetic result + selections")
            cases.append(case)
            if diagnostics and len(cases) == 1:
                if case.get("auto_render_timers_active"):
                    plan.extend(diagnostic_plan)
                else:
                    diagnostics = False
                    diagnostics_skipped = True
                    log("diagnostic re-runs skipped: the 3-D views have no auto-update timer")
    finally:
        display.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    info["Qt"] = next((r["qt"] for r in [*first, *cases] if r.get("qt")), "unknown")
    info["VTK OpenGL (renderer / version)"] = next(
        (c["opengl"] for c in cases if c.get("opengl")), "unknown")
    active = cases[0].get("auto_render_timers_active") if cases else None
    info["pyvistaqt auto-update timers (3-D views)"] = {
        True: "running (pyvistaqt's default: every 3-D view re-renders 5 times a second)",
        False: "off (`QtInteractor(auto_update=False)`)"}.get(active, "unknown")
    info["source at end"] = source_revision()
    source_note = ""
    if info["source at end"].rpartition("digest ")[2] != info["source at start"].rpartition(
            "digest ")[2]:
        source_note = ("**Warning: `stpca_gui/` changed while the benchmark ran** (see *source "
                       "at start / end* below): the cases ran in fresh processes at different "
                       "times and may have measured different code.\n\n")
    info["load average at end"] = load_average_text()
    still_delay = next((c["breakdown"].get("still_delay_ms") for c in cases
                        if "breakdown" in c), None)
    info["1-min load average during the run"] = (
        sampler.stop() + f" — this machine has {os.cpu_count()} cores")
    mode = "quick" if quick else "full"
    report = "\n\n".join([
        f"# GUI benchmark ({mode} run, {time.perf_counter() - started:.0f} s)"
        + (f"\n\n{source_note.strip()}" if source_note else ""),
        "## Machine\n\n" + markdown_table(["item", "value"],
                                          [[k, str(v)] for k, v in info.items()]),
        first_frame_report(first),
        selection_report(cases, selection_notes(quick, diagnostics, diagnostics_skipped,
                                                still_delay)),
        responsiveness_report([c for c in cases if c["n"] == SMALL_N]),
        memory_report(first, cases),
        targets_report(first, cases),
    ])
    print(report)
    if args.json is not None:
        payload = {"mode": mode, "machine": info, "first_frame": first, "cases": cases,
                   "targets": {"selection_ms": SELECTION_TARGET_MS,
                               "stall_ms": STALL_TARGET_MS}}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
        log(f"JSON written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
