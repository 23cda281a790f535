"""The GUI tests' private X server (tests/xvfb_display.py) ends with the process that
started it, even when that process crashes (pytest-xdist then starts a fresh worker with
a server of its own)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest
from project_paths import REPO

pytestmark = [
    pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed"),
    pytest.mark.skipif(sys.platform != "linux", reason="parent-death signal is Linux's"),
]

CRASHING_TEST_PROCESS = textwrap.dedent("""
    import ctypes, sys
    sys.path.insert(0, sys.argv[1])
    from xvfb_display import Display
    display = Display()
    display.start()
    print(display.process.pid, flush=True)
    ctypes.string_at(0)  # a segmentation fault: Display.stop never runs
""")


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_the_server_ends_when_its_test_process_crashes():
    environment = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    child = subprocess.run([sys.executable, "-c", CRASHING_TEST_PROCESS, str(REPO / "tests")],
                           capture_output=True, text=True, env=environment, timeout=60)
    assert child.returncode < 0, child.stderr  # killed by the signal
    server = int(child.stdout.split()[0])
    deadline = time.monotonic() + 10
    while _running(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    still_running = _running(server)
    if still_running:
        os.kill(server, 15)
    assert not still_running, "the crashed process's Xvfb was left running"
