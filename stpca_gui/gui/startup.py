"""Pieces of a fast start: first-paint callbacks, loading modules off the GUI thread, and
the start-up trace.

``STPCA_STARTUP_TRACE=FILE`` makes ``stpca-gui`` write the wall-clock times
(``time.time()``) of its start-up steps to ``FILE`` as JSON (rewritten after each step), for
``benchmarks/bench_startup.py`` and the tests. It is read by the app itself, so it works in a
frozen bundle too. This module needs Qt and the standard library only.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

TRACE_ENV = "STPCA_STARTUP_TRACE"
#: Modules whose presence the trace records at each mark: the heavy ones the window is
#: shown without.
HEAVY_MODULES = ("stpca_gui.core", "numba", "scipy.optimize", "scipy.stats", "matplotlib",
                 "pyvista", "vtkmodules")
#: The stages of preparing the window, in order, with the modules each one imports (see the
#: docstring of stpca_gui/gui/main_window.py).
STAGE_MODULES: dict[str, tuple[str, ...]] = {
    # The core and the model, the panels, and the window's parts (its menus' actions).
    "numerics": ("stpca_gui.model", "stpca_gui.gui.panels", "stpca_gui.gui.fit_controller",
                 "stpca_gui.gui.live_fit", "stpca_gui.gui.session_actions",
                 "stpca_gui.gui.open_actions", "stpca_gui.gui.fit_status",
                 "stpca_gui.gui.export_actions", "stpca_gui.gui.lagged_embedding",
                 "stpca_gui.gui.structure_dialog", "stpca_gui.gui.structure_exports",
                 "stpca_gui.gui.script_export_action", "stpca_gui.gui.progress_labels"),
    "plots": ("stpca_gui.gui.views.mpl_views", "stpca_gui.gui.views.diagnostics_view",
              "stpca_gui.gui.views.free_energy_view", "stpca_gui.gui.views.time_view"),
    "torus": ("stpca_gui.gui.views.vtk_views",),
    "sphere": (),
}
STAGES = tuple(STAGE_MODULES)
#: Period of the trace's event-loop heartbeat, in ms: a longer gap between two beats is a
#: stall of the user interface.
HEARTBEAT_MS = 10


#: What the window adds to its "Preparing…" texts while numba compiles the kernels.
COMPILING_NOTE = "compiling numerical kernels, first launch only: about 15 s on 2 cores"
#: The cache index files of the SMDS kernels, which every fit calls first.
_KERNEL_INDEX = "_smds_kernel.*.nbi"


def kernels_cached(package: Path | None = None) -> bool:
    """Whether numba's on-disk cache holds the SMDS kernels: False on the first launch
    after an install, when the first fit compiles them. Looks where numba writes them for
    this package (beside the sources, or under ``NUMBA_CACHE_DIR``); a frozen bundle ships
    them. When the cache is elsewhere (a read-only install), says True: no claim is made.

    ``package`` is the ``stpca_gui`` folder (for tests; default: this one)."""
    if getattr(sys, "frozen", False):
        return True
    package = Path(__file__).resolve().parents[1] if package is None else package
    beside = package / "core" / "smds" / "__pycache__"
    if any(beside.glob(_KERNEL_INDEX)):
        return True
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        return any(Path(custom).rglob(_KERNEL_INDEX))
    return not os.access(package / "core" / "smds", os.W_OK)


def call_after_first_paint(widget: QWidget, callback: Callable[[], None]) -> None:
    """Call ``callback`` once, in the event loop turn after ``widget`` is first painted."""
    _FirstPaintWatcher(widget, callback)


class _FirstPaintWatcher(QObject):
    def __init__(self, widget: QWidget, callback: Callable[[], None]) -> None:
        super().__init__(widget)
        self._callback = callback
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            # Queued: the paint, and the flush of the window to the screen, end first.
            QTimer.singleShot(0, self._callback)
        return False


class ModuleLoader(QObject):
    """Imports modules in a background thread and says when it is done (in the GUI thread).

    Importing runs Python code and so holds the GIL, but in slices: the GUI thread gets it
    back every few milliseconds and stays responsive, where importing VTK or matplotlib in
    the GUI thread froze the window for seconds. A module that fails to import here is
    imported again (and fails, with its traceback) where it is used.
    """

    loaded = Signal()

    def load(self, names: Sequence[str]) -> None:
        """Start importing ``names``; :attr:`loaded` is emitted when all are done."""
        threading.Thread(target=self._import, args=(tuple(names),), daemon=True,
                         name="stpca-module-loader").start()

    def _import(self, names: tuple[str, ...]) -> None:
        for name in names:
            try:
                importlib.import_module(name)
            except Exception:  # reported when the GUI thread imports it
                break
        self.loaded.emit()  # queued to the GUI thread, where this object lives


class BackgroundCheck(QObject):
    """Calls a function that looks at files (numba's cache: :func:`kernels_cached`) in a
    background thread and hands its answer to the GUI thread with :attr:`done`: the GUI
    thread reads no files while the window starts."""

    done = Signal(object)

    def run(self, check: Callable[[], object]) -> None:
        """Start ``check``; :attr:`done` is emitted with what it returns."""
        threading.Thread(target=self._run, args=(check,), daemon=True,
                         name="stpca-startup-check").start()

    def _run(self, check: Callable[[], object]) -> None:
        answer = check()
        try:
            self.done.emit(answer)  # queued to the GUI thread, where this object lives
        except RuntimeError:  # the window closed meanwhile
            pass


class StartupTrace(QObject):
    """Marks of the start-up, and the longest stall of the event loop until the last one.

    Parameters
    ----------
    path : Path
        The JSON file written after every mark: ``{"marks": {name: time}, "cpu": {name:
        process CPU seconds}, "modules": {name: [heavy modules loaded then]},
        "longest_stall_s": ..., "stall_after": ...}``.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = Path(path)
        self.marks: dict[str, float] = {}
        self.modules: dict[str, list[str]] = {}
        #: CPU seconds of this process (all its threads) at each mark: less sensitive to
        #: the machine's load than the wall-clock marks.
        self.cpu: dict[str, float] = {}
        self.longest_stall = 0.0
        self.stall_after = ""
        self._last_beat: float | None = None
        self._heartbeat = QTimer(self)
        self._heartbeat.setInterval(HEARTBEAT_MS)
        self._heartbeat.timeout.connect(self._beat)

    @classmethod
    def from_environment(cls) -> StartupTrace | None:
        """The trace asked for by ``STPCA_STARTUP_TRACE``, or None."""
        path = os.environ.get(TRACE_ENV)
        return cls(Path(path)) if path else None

    def mark(self, name: str) -> None:
        """Record the time of ``name`` (the first time only) and rewrite the file."""
        if name in self.marks:
            return
        self.marks[name] = time.time()
        self.cpu[name] = time.process_time()
        self.modules[name] = [m for m in HEAVY_MODULES if m in sys.modules]
        self._write()

    def watch_stalls(self) -> None:
        """Start measuring gaps between heartbeats (call once the event loop will run)."""
        self._last_beat = None
        self._heartbeat.start()

    def stop_watching(self) -> None:
        self._heartbeat.stop()
        self._write()

    def _beat(self) -> None:
        now = time.perf_counter()
        if self._last_beat is not None:
            stall = now - self._last_beat - HEARTBEAT_MS / 1000
            if stall > self.longest_stall:
                self.longest_stall = stall
                self.stall_after = max(self.marks, key=self.marks.get, default="")
        self._last_beat = now

    def _write(self) -> None:
        payload = {"marks": self.marks, "cpu": self.cpu, "modules": self.modules,
                   "longest_stall_s": self.longest_stall, "stall_after": self.stall_after,
                   "pid": os.getpid()}
        temporary = self.path.with_name(self.path.name + ".tmp")
        temporary.write_text(json.dumps(payload, indent=1))
        os.replace(temporary, self.path)  # readers never see half a file
