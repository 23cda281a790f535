"""Sessions in the app: open, save, title marker, unsaved-work question, command lines."""

from __future__ import annotations

import contextlib
import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from stpca_gui.model import FitParameters
from stpca_gui.model.session_file import load_session

pytestmark = pytest.mark.usefixtures("display")

CAMERA = {"position": [7.5, -6.0, 5.5], "focal_point": [0.1, 0.2, -0.1],
          "view_up": [0.0, 0.0, 1.0], "parallel_scale": 3.75}


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory) -> tuple[Path, Path, str]:
    """``stpca demo clusters-t3 --save-session … --out …``: session, results folder, output."""
    from stpca_gui.cli import main

    folder = tmp_path_factory.mktemp("cli")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["demo", "clusters-t3", "--save-session", str(folder / "base.stpca"),
                     "--out", str(folder / "out")]) == 0
    return folder / "base.stpca", folder / "out", printed.getvalue()


@pytest.fixture
def base_session(cli_run) -> Path:
    return cli_run[0]


def _camera(view) -> dict:
    from stpca_gui.gui.views.vtk_views import camera_state

    return camera_state(view.plotter)


def test_save_and_open_in_another_window(window, qtbot, base_session, tmp_path):
    from stpca_gui.gui.main_window import MainWindow
    from stpca_gui.gui.views.vtk_views import restore_camera

    assert window.open_path(base_session)
    assert window.windowTitle() == "base[*] — stpca-gui" and not window.isWindowModified()
    assert window.parameters.parameters() == FitParameters()
    assert window.state.selection.n_selected == 0

    # Changes: selections in groups 1 and 2, the colour mode, a camera.
    window.state.selection.apply(np.arange(40), "replace")
    window.state.selection.active_group = 2
    window.scores_view.select_rectangle(-3, -3, 0, 3, "replace")
    assert window.isWindowModified()
    window.color_combo.setCurrentIndex(window.color_combo.findData("pns1"))
    restore_camera(window.torus_view.plotter, CAMERA)
    saved = tmp_path / "work.stpca"
    assert window.sessions.save_to(saved)
    assert not window.isWindowModified() and window.windowTitle() == "work[*] — stpca-gui"
    assert str(saved) in window.recent
    # Moving a camera by hand is a change.
    window.torus_view.plotter.iren.interactor.InvokeEvent("EndInteractionEvent")
    assert window.isWindowModified()
    assert window.sessions.save_to(saved) and not window.isWindowModified()

    # A window still preparing its stages (as the app starts) waits for them.
    other = MainWindow(recent_path=tmp_path / "recent2.json", deferred=True)
    qtbot.addWidget(other)
    other.resize(1500, 950)
    other.show()
    with qtbot.waitSignal(other.result_shown, timeout=120_000):
        other.when_prepared("numerics", lambda: other.open_path(saved))
    try:
        np.testing.assert_array_equal(other.state.result.scores, window.state.result.scores)
        np.testing.assert_array_equal(other.state.selection.groups,
                                      window.state.selection.groups)
        assert other.state.selection.active_group == 2
        assert other.state.color_mode == "pns1"
        assert other.color_combo.currentData() == "pns1"
        camera = _camera(other.torus_view)
        for key in ("position", "focal_point", "view_up"):
            np.testing.assert_allclose(camera[key], CAMERA[key], atol=1e-9)
        assert camera["parallel_scale"] == pytest.approx(CAMERA["parallel_scale"])
        np.testing.assert_allclose(_camera(other.sphere_view)["position"],
                                   _camera(window.sphere_view)["position"], atol=1e-9)
        # The selection history came along: undo gives back the first selection.
        assert other.state.selection.undo()
        assert other.state.selection.n_selected == 40
        assert other.isWindowModified() and other.state.selection.can_redo
    finally:
        other.close()


def test_failed_open_changes_nothing(window, base_session, tmp_path, fitted_model_file):
    assert window.open_path(base_session)
    window.state.selection.apply(np.arange(5), "add")
    before = (window.state.dataset, window.state.result, window.state.selection.groups.copy(),
              window.windowTitle(), window.isWindowModified())
    raw = base_session.read_bytes()
    for name, content in (("cut.stpca", raw[: len(raw) // 3]), ("text.stpca", b"phi,psi\n")):
        bad = tmp_path / name
        bad.write_bytes(content)
        assert not window.open_path(bad)
        assert window.last_message_box is not None
        assert str(bad) in window.last_message_box.text()
        window.last_message_box.close()
    assert not window.open_path(fitted_model_file)
    assert "model file" in window.last_message_box.text()
    after = (window.state.dataset, window.state.result, window.state.selection.groups.copy(),
             window.windowTitle(), window.isWindowModified())
    assert after[:2] == before[:2] and after[3:] == before[3:]
    np.testing.assert_array_equal(after[2], before[2])


@pytest.fixture
def fitted_model_file(base_session, tmp_path) -> Path:
    return load_session(base_session).result.model.save(tmp_path / "model.stpca")


def test_unsaved_changes_are_asked_about(window, base_session, monkeypatch):
    window.asks_to_save = True
    assert window.open_path(base_session)
    asked: list[str] = []

    def answer(reply):
        def ask():
            asked.append(reply)
            return reply
        monkeypatch.setattr(window.sessions, "ask_save_changes", ask)

    # Nothing changed: no question.
    answer("cancel")
    window.load_demo("clusters-t2")
    assert asked == [] and window.state.dataset.name == "clusters-t2"
    assert window.windowTitle() == "clusters-t2[*] — stpca-gui" and not window.isWindowModified()

    assert window.open_path(base_session)
    window.state.set_color_mode("selection")
    assert window.isWindowModified()
    dataset = window.state.dataset
    window.load_demo("clusters-t2")  # cancelled: the work stays
    assert asked == ["cancel"] and window.state.dataset is dataset
    try:
        assert not window.close() and window.isVisible()
        answer("discard")
        assert window.close()
        assert asked == ["cancel", "cancel", "discard"]
    finally:
        window.asks_to_save = False  # the fixture's own close must never ask


def test_cli_session_opens_with_the_printed_scores(cli_run, tmp_path):
    session_path, out, printed = cli_run
    assert f"wrote            {session_path}" in printed
    with open(out / "scores.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    written = np.array([[float(v) for v in row[1:]] for row in rows[1:]])
    session = load_session(session_path)
    np.testing.assert_array_equal(session.result.scores, written)
    assert session.dataset.source == "demo:clusters-t3" and session.result.wall_time > 0

    shot = tmp_path / "session.png"
    env = dict(os.environ, QT_QPA_PLATFORM="xcb")
    done = subprocess.run([sys.executable, "-m", "stpca_gui.gui.app", str(session_path),
                           "--screenshot", str(shot), "--size", "1000x700"],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    from PySide6.QtGui import QImage

    image = QImage(str(shot))
    assert image.width() == 1000 and image.height() >= 700
    # The torus view (upper middle) shows the clusters' colours, not a blank scene.
    colours = {image.pixelColor(x, y).name() for x in range(300, 600, 7)
               for y in range(80, 350, 7)}
    assert len(colours) > 20

    broken = tmp_path / "broken.stpca"
    broken.write_bytes(session_path.read_bytes()[:5000])
    done = subprocess.run([sys.executable, "-m", "stpca_gui.gui.app", str(broken),
                           "--screenshot", str(tmp_path / "none.png")],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 1 and not (tmp_path / "none.png").exists()
    assert f"stpca-gui: error: {broken}: damaged session file" in done.stderr
