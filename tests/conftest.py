"""Test session set-up: a private X server for the GUI and 3-D tests.

Qt's pyvistaqt widget needs a real X connection (the ``offscreen`` platform cannot render
its QOpenGLWidget), so the suite starts its own Xvfb when no display is available and runs
Qt on ``xcb``. Tests that need it take the ``display`` fixture; without Xvfb they skip with
the reason, unless ``STPCA_REQUIRE_DISPLAY=1`` (set by CI), which turns that into a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

TEST_OUTPUT = Path(__file__).resolve().parents[1] / "test-output"
_xvfb: subprocess.Popen[bytes] | None = None
_display_problem: str | None = None


def _start_xvfb() -> None:
    global _xvfb, _display_problem
    if os.environ.get("DISPLAY"):
        return
    binary = shutil.which("Xvfb")
    if binary is None:
        _display_problem = "Xvfb is not installed (apt-get install xvfb) and DISPLAY is unset"
        return
    read_fd, write_fd = os.pipe()
    _xvfb = subprocess.Popen(
        [binary, "-displayfd", str(write_fd), "-screen", "0", "1600x1000x24", "-nolisten",
         "tcp", "-dpi", "96"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()
    if not number:
        _display_problem = "Xvfb did not start"
        return
    os.environ["DISPLAY"] = f":{number}"


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ.setdefault("PYVISTA_OFF_SCREEN", "false")
    _start_xvfb()
    config.addinivalue_line("markers", "gui: needs an X display (started automatically)")


def pytest_unconfigure(config: pytest.Config) -> None:
    if _xvfb is not None:
        _xvfb.terminate()
        try:
            _xvfb.wait(timeout=5)
        except subprocess.TimeoutExpired:
            _xvfb.kill()


@pytest.fixture(scope="session")
def display() -> str:
    """The X display the GUI tests render on."""
    if _display_problem is not None:
        if os.environ.get("STPCA_REQUIRE_DISPLAY") == "1":
            pytest.fail(f"no X display for GUI tests: {_display_problem}")
        pytest.skip(f"no X display for GUI tests: {_display_problem}")
    return os.environ["DISPLAY"]


@pytest.fixture(scope="session")
def output_dir() -> Path:
    """Folder for screenshots and exported files that a person can look at afterwards."""
    TEST_OUTPUT.mkdir(exist_ok=True)
    return TEST_OUTPUT
