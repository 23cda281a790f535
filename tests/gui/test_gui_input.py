"""Bad input reaching the desktop app: messages, never tracebacks (issue 10, items 2, 3, 7a)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from gui_probes import FIT_TIMEOUT_MS

pytest.importorskip("pytestqt")

from stpca_gui.core.geometry.validation import MIN_TORUS_SPREAD
from stpca_gui.model import Dataset

#: The file that crashed the import preview (a repeated header name over ragged rows).
CRASHING_TABLE = "nan,0.0,nan\n0.0\n0.0\n0.0\n0.0\n0.0,0.0\n"

pytestmark = pytest.mark.usefixtures("display")


def run_app(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "stpca_gui.gui.app", *args],
                          env=dict(os.environ), capture_output=True, text=True, timeout=300)


def test_a_degenerate_fit_shows_the_library_message(qtbot, window):
    angles = np.deg2rad([[1.0, 20.0], [361.0, 20.0], [-359.0, 20.0], [721.0, 20.0]])
    with qtbot.waitSignal(window.fit_ended, timeout=FIT_TIMEOUT_MS) as ended:
        window.set_dataset(Dataset(angles=angles, column_names=("a", "b")))
    assert ended.args == ["failed"]
    text = window.last_message_box.text()
    assert "all samples are the same point on the torus" in text
    assert f"{MIN_TORUS_SPREAD:g} rad" in text
    assert window.state.result is None


def test_opening_the_crashing_table_gives_a_message(qtbot, window, tmp_path):
    from stpca_gui.gui.import_dialog import ImportDialog

    path = tmp_path / "x.csv"
    path.write_text(CRASHING_TABLE)
    dialog = ImportDialog(path, window)  # raised IndexError before the fix
    qtbot.addWidget(dialog)
    assert dialog.preview.column_names == ("nan", "0.0", "nan")
    # Without the dialog (the --screenshot path): a message box naming the file.
    assert not window.open_path(path, interactive=False)
    assert str(path) in window.last_message_box.text()
    assert window.state.dataset is None


@pytest.mark.parametrize(("content", "reason"), [
    (None, "no such file"),
    (CRASHING_TABLE, "no column holds numbers that could be angles"),
    ("a,b\n1,2\n", "usable row"),
])
def test_screenshot_of_an_unreadable_file_prints_why(tmp_path, content, reason):
    path = tmp_path / "table.csv"
    if content is not None:
        path.write_text(content)
    out = tmp_path / "out.png"
    completed = run_app("--screenshot", str(out), str(path))
    assert completed.returncode == 1
    assert completed.stderr.startswith(f"stpca-gui: error: {path}: "), completed.stderr
    assert reason in completed.stderr and "Traceback" not in completed.stderr
    assert not out.exists()


def test_screenshot_of_a_degenerate_table_prints_the_fit_error(tmp_path):
    path = tmp_path / "same.csv"
    path.write_text("a,b\n1,20\n361,20\n-359,20\n721,20\n")
    completed = run_app("--screenshot", str(tmp_path / "out.png"), str(path))
    assert completed.returncode == 1
    assert "stpca-gui: error: ValueError: all samples are the same point on the torus" in (
        completed.stderr), completed.stderr
    assert "Traceback" not in completed.stderr
