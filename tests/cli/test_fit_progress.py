"""``stpca fit`` shows a long fit's stage, progress and time left on stderr, and Ctrl-C stops
it cleanly: exit 130, one line, no traceback, no output (issue 32, item 7)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import threading

import numpy as np

from stpca_gui.cli.progress import SHOW_AFTER, FitProgress, duration
from stpca_gui.core import ProgressEvent
from stpca_gui.core.torsion_states import make_torsion_states


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_duration_reads_as_people_write_it():
    assert [duration(s) for s in (4.2, 65, 3725)] == ["4 s", "1 min 05 s", "1 h 02 min"]


def test_log_lines_give_the_stage_share_and_time_left():
    clock, stream = _Clock(), io.StringIO()
    progress = FitProgress(stream, clock=clock)
    progress(ProgressEvent("landmarks", 0.0, message="choosing 1000 landmarks"))
    assert stream.getvalue() == ""  # a fit that ends within SHOW_AFTER shows nothing
    clock.now += SHOW_AFTER + 1
    progress(ProgressEvent("interpolation", 0.0, message="placing 9000 points"))
    clock.now += 10.0
    progress(ProgressEvent("interpolation", 0.25, message="placing points: 2,250 of 9,000"))
    clock.now += 30.0
    progress(ProgressEvent("interpolation", 0.5, message="placing points: 4,500 of 9,000"))
    progress(ProgressEvent("smds", 0.0, 12, 0.01, "spherical MDS: iteration 12"))
    lines = stream.getvalue().splitlines()
    assert lines[0] == "fitting 2 s: placing 9000 points"
    # Within a stage a log (not a terminal) gets a line every LOG_EVERY seconds only.
    assert lines[1] == ("fitting 42 s: placing points: 4,500 of 9,000  "
                        "[##########..........]  50%, about 40 s left")
    assert lines[2] == "fitting 42 s: spherical MDS: iteration 12"  # no known end
    assert len(lines) == 3


def test_terminal_line_is_rewritten_and_cleared():
    clock, stream = _Clock(), _Terminal()
    progress = FitProgress(stream, clock=clock)
    clock.now += 5.0
    progress(ProgressEvent("curve", 0.0, message="principal curve"))
    clock.now += 6.0
    progress(ProgressEvent("curve", 0.75, message="principal curve"))
    progress.close()
    text = stream.getvalue()
    # Two states of the line, each from its start, then the line is cleared.
    assert text.count("\r") == 4 and text.endswith("\r")
    assert "fitting 11 s: principal curve  [###############.....]  75%, about 2 s left" in text


def test_ctrl_c_during_a_long_fit_stops_it_cleanly(tmp_path):
    table = tmp_path / "frames.csv"
    data = make_torsion_states(8000, 40, random_state=0)
    np.savetxt(table, data.angles, delimiter=",", header=",".join(data.column_names),
               comments="", fmt="%.6f")
    out = tmp_path / "results"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    child = subprocess.Popen(
        [sys.executable, "-m", "stpca_gui.cli", "fit", str(table), "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        # The first progress line says the fit is under way; then Ctrl-C.
        first = []
        reader = threading.Thread(target=lambda: first.append(child.stderr.readline()))
        reader.start()
        reader.join(timeout=300)
        assert first and first[0].startswith("fitting "), first
        child.send_signal(signal.SIGINT)
        stdout, rest = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 130, rest
    assert rest.strip().splitlines()[-1] == "stpca: interrupted"
    assert "Traceback" not in rest and stdout == ""
    assert not out.exists()
