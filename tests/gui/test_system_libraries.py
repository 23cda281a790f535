"""The check for Qt's X11 and OpenGL system libraries before Qt loads
(stpca_gui/gui/system_libraries.py): a machine without them is simulated by pointing the
check at a folder holding only some of them."""

from __future__ import annotations

import os
import subprocess
import sys

from stpca_gui.gui.system_libraries import (
    OPENGL_LIBRARIES,
    PATH_ENV,
    XCB_LIBRARIES,
    finder_in,
    missing,
    startup_problem,
)


def test_this_machine_has_them_all():
    # The GUI tests run here, so the loader finds every library of both lists.
    assert missing(XCB_LIBRARIES) == []
    assert missing(OPENGL_LIBRARIES) == []
    assert startup_problem() == ""


def test_missing_xcb_cursor_names_the_file_and_both_packages(tmp_path):
    for library in (*XCB_LIBRARIES, *OPENGL_LIBRARIES):
        if library.soname != "libxcb-cursor.so.0":
            (tmp_path / library.soname).touch()
    message = startup_problem(finder_in([tmp_path]))
    assert "libxcb-cursor.so.0" in message
    assert "sudo apt install libxcb-cursor0\n" in message
    assert "sudo dnf install xcb-util-cursor\n" in message
    assert "OpenGL" not in message  # only what is missing is named


def test_missing_opengl_is_said_apart_from_qt(tmp_path):
    for library in XCB_LIBRARIES:
        (tmp_path / library.soname).touch()
    message = startup_problem(finder_in([tmp_path]))
    assert "X11 platform" not in message
    opengl_line = next(line for line in message.splitlines() if line.startswith("OpenGL"))
    assert "libGL.so.1" in opengl_line and "libEGL.so.1" in opengl_line
    assert "sudo apt install libgl1 libegl1" in message
    assert "sudo dnf install libglvnd-glx libglvnd-egl" in message


def test_app_without_the_libraries_says_what_to_install_and_exits_1(tmp_path):
    (tmp_path / "libxcb.so.1").touch()
    env = {**os.environ, PATH_ENV: str(tmp_path), "QT_QPA_PLATFORM": "xcb",
           "DISPLAY": os.environ.get("DISPLAY", ":0")}
    completed = subprocess.run([sys.executable, "-m", "stpca_gui.gui.app", "--demo",
                                "clusters-t2"], env=env, capture_output=True, text=True,
                               timeout=120)
    assert completed.returncode == 1
    assert completed.stderr.startswith("stpca-gui: cannot start: system libraries")
    assert "libxcb-cursor0" in completed.stderr and "libgl1" in completed.stderr
    assert "Traceback" not in completed.stderr
    # Never got as far as Qt: the check runs before Qt loads its platform plugin.
    assert "qt.qpa" not in completed.stderr
