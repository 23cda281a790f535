"""The X display of the GUI tests and GUI benchmarks: ``DISPLAY`` when set, else a private
Xvfb started here (Qt's pyvistaqt widget needs a real X connection; the ``offscreen``
platform cannot render its QOpenGLWidget).

Used by ``tests/conftest.py`` and, through ``benchmarks/_gui_env.py``, by the GUI
benchmarks, so that both start the same server the same way.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys

#: The virtual screen: size and depth, and the resolution matplotlib and Qt see.
XVFB_ARGUMENTS = ("-screen", "0", "1600x1000x24", "-nolisten", "tcp", "-dpi", "96")


class Display:
    """Use ``DISPLAY`` when set, else start a private Xvfb (stopped by :meth:`stop`).

    Attributes
    ----------
    problem : str or None
        Why there is no display (Xvfb missing or failing), after :meth:`start`.
    description : str
        Which display is used, for reports.
    """

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
            [binary, "-displayfd", str(write_fd), *XVFB_ARGUMENTS],
            pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=_ended_with_this_process if sys.platform == "linux" else None,
        )
        os.close(write_fd)
        with os.fdopen(read_fd) as pipe:
            number = pipe.readline().strip()
        if not number:
            self.problem = "Xvfb did not start"
            self.stop()
            return
        os.environ["DISPLAY"] = f":{number}"
        self.description = f"private Xvfb :{number} (1600x1000x24)"

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


def _ended_with_this_process() -> None:
    """In the Xvfb child before exec: ask Linux to end it when the process that started it
    dies. A test process that crashes (pytest-xdist then starts a fresh worker, with its
    own Xvfb) never reaches :meth:`Display.stop`, and its server would be left running."""
    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)

