"""Test session set-up: a private X server for the GUI and 3-D tests.

Qt's pyvistaqt widget needs a real X connection (the ``offscreen`` platform cannot render
its QOpenGLWidget), so the suite starts its own Xvfb when no display is available and runs
Qt on ``xcb``. Tests that need it take the ``display`` fixture; without Xvfb they skip with
the reason, unless ``STPCA_REQUIRE_DISPLAY=1`` (set by CI), which turns that into a failure.
Reference files live in ``tests/data`` (the ``test_data`` fixture).
"""

from __future__ import annotations

import faulthandler
import os
import sys
from pathlib import Path

import pytest
from project_paths import SHARED_DATA, TEST_DATA, TEST_OUTPUT
from xvfb_display import Display

#: The X display of the session (a private Xvfb unless DISPLAY is set).
_display = Display()


@pytest.hookimpl(trylast=True)  # after pytest's faulthandler plugin has enabled it
def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ.setdefault("PYVISTA_OFF_SCREEN", "false")
    if not _runs_tests_elsewhere(config):
        _display.start()
    config.addinivalue_line("markers", "gui: needs an X display (started automatically)")
    _report_crashes_briefly(config)


def _runs_tests_elsewhere(config: pytest.Config) -> bool:
    """Whether this process only hands the tests to pytest-xdist's workers (which start
    their own display)."""
    workers = getattr(config.option, "numprocesses", None)
    return bool(workers) and not hasattr(config, "workerinput")


def _report_crashes_briefly(config: pytest.Config) -> None:
    """On a fatal signal, dump the crashing thread's stack only. The dump of every thread
    (pytest's default) ran to 40 lines of idle threads (the dask loop, the kernel pool), and
    CI's log, which keeps the head and the tail of the output, lost the crashing thread's
    frames between them. The dump goes where pytest's faulthandler plugin sends it (its
    copy of the real stderr: sys.stderr is captured)."""
    try:
        from _pytest.faulthandler import fault_handler_stderr_fd_key
        stderr_copy = config.stash[fault_handler_stderr_fd_key]
    except (ImportError, KeyError):  # the plugin disabled, or a pytest that moved it
        return
    faulthandler.enable(file=stderr_copy, all_threads=False)


def pytest_unconfigure(config: pytest.Config) -> None:
    _release_the_display()
    _display.stop()


def _release_the_display() -> None:
    """Close the test session's windows and let Qt delete them while the X server still
    runs: left to the interpreter's exit, a window's destruction talked to an Xvfb already
    stopped, and Qt ended the process with "The X11 connection broke" and exit code 1
    after every test had passed (tests/gui/test_startup.py alone: 3 runs in 6)."""
    if "PySide6.QtWidgets" not in sys.modules:  # no GUI test ran
        return
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        return
    for widget in app.topLevelWidgets():
        widget.close()
    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        app.processEvents()


@pytest.fixture(scope="session")
def clusters_t3():
    """The paper's T³ clusters demo (seed 0); its arrays are read-only, so tests share it."""
    from stpca_gui.core import make_demo

    return make_demo("clusters-t3", random_state=0)


@pytest.fixture(scope="session")
def display() -> str:
    """The X display the GUI tests render on."""
    if _display.problem is not None:
        if os.environ.get("STPCA_REQUIRE_DISPLAY") == "1":
            pytest.fail(f"no X display for GUI tests: {_display.problem}")
        pytest.skip(f"no X display for GUI tests: {_display.problem}")
    return os.environ["DISPLAY"]


@pytest.fixture(scope="session")
def test_data() -> Path:
    """The folder of reference files shipped with the tests (``tests/data``)."""
    return TEST_DATA


@pytest.fixture(scope="session")
def full_sunspots_csv() -> Path:
    """The full sunspots_births.csv the bundled data set was built from.

    Only beside a source checkout with ``../shared``; the tests that compare the bundled
    data set with its source skip without it (everything else uses ``load_sunspots``).
    """
    return _shared_table("sunspots_births.csv", "the full sunspots table")


@pytest.fixture(scope="session")
def small_rna_csv() -> Path:
    """The small_rna.csv the bundled small RNA data set was built from (skips without it)."""
    return _shared_table("small_rna.csv", "the small RNA table")


def _shared_table(name: str, what: str) -> Path:
    """The source table ``name`` in ``../shared/data``; skips the test when it is missing."""
    path = SHARED_DATA / name
    if not path.is_file():
        pytest.skip(f"{what} is not available at {path}")
    return path


@pytest.fixture(scope="session")
def output_dir() -> Path:
    """Folder for screenshots and exported files that a person can look at afterwards."""
    TEST_OUTPUT.mkdir(exist_ok=True)
    return TEST_OUTPUT


@pytest.fixture
def gui_dir(output_dir: Path) -> Path:
    """Folder for the GUI tests' screenshots, under the test output."""
    folder = output_dir / "gui"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture
def window(qtbot, tmp_path):
    """A shown main window (1500 × 950) with its own recent-files list; its fit stops after."""
    from stpca_gui.gui.main_window import MainWindow

    win = MainWindow(recent_path=tmp_path / "recent.json")
    qtbot.addWidget(win)
    win.resize(1500, 950)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.controller.cancel()
    win.controller.wait(10_000)
