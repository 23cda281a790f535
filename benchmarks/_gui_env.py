"""GUI benchmark, set-up: constants, the machine, the X display, the source revision.

Shared by the parent (``bench_gui.py``) and the child processes (``_gui_children.py``).
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from _common import (
    REPO_ROOT,
    cpu_model,
    load_average_text,
    make_logger,
)
from _common import fmt as common_fmt

# The X display is the tests' own (tests/xvfb_display.py), so both start Xvfb alike.
sys.path.insert(0, str(REPO_ROOT / "tests"))
# The GUI probes the tests use (tests/gui/gui_probes.py), for _gui_children.
sys.path.insert(0, str(REPO_ROOT / "tests" / "gui"))
from xvfb_display import Display as Display

log = make_logger("bench_gui")


def fmt(value: float | int | None, spec: str = ".1f") -> str:
    """Table cell of a number (one decimal by default); ``None`` and NaN: an em dash."""
    return common_fmt(value, spec)


def started_display(program: str) -> Display | None:
    """The X display started for ``program``; ``None``, after saying why on stderr, when
    there is none (Xvfb missing or failing)."""
    display = Display()
    display.start()
    if display.problem:
        print(f"{program}: {display.problem}", file=sys.stderr)
        return None
    return display


CHILD_MARKER = "BENCH_GUI_CHILD_RESULT "
LAUNCH_ENV = "STPCA_BENCH_GUI_LAUNCH_WALL"
WORKDIR_ENV = "STPCA_BENCH_GUI_WORKDIR"
#: Folder for the synthetic cases' window screenshots (``bench_gui.py --screenshots``).
SCREENSHOT_ENV = "STPCA_BENCH_GUI_SCREENSHOTS"
CHILD_TIMEOUT_S = 1800.0
FIRST_FRAME_TIMEOUT_S = 300.0
FIT_TIMEOUT_S = 900.0
DEMO = "clusters-t3"
WINDOW_SIZE = (1500, 950)  # what ``stpca-gui`` uses without --screenshot
SELECTION_TARGET_MS = 100.0
#: Targets of the synthetic cases of 10⁶ points and more (issue 11): median selection
#: latency and peak RSS of the app.
HUGE_N = 1_000_000
HUGE_SELECTION_TARGET_MS = 300.0
HUGE_PEAK_RSS_TARGET_MB = 4096.0
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


