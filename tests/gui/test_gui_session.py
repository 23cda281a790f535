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
    score_columns = [k for k, name in enumerate(rows[0]) if name.startswith("PNS")]
    written = np.array([[float(row[k]) for k in score_columns] for row in rows[1:]])
    session = load_session(session_path)
    np.testing.assert_array_equal(session.result.scores, written)
    # The clusters the session stores are the ones scores.csv printed (numbered from 1).
    clusters = [int(row[rows[0].index("cluster")]) for row in rows[1:]]
    np.testing.assert_array_equal(session.result.mode_clusters.labels + 1, clusters)  # 1 … K
    assert len(set(clusters)) == 3
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


# ------------------------------------------------------------------- issue 20
def _window_record(window) -> tuple:
    return (window.state.dataset, window.state.result, window.sessions.path,
            window.windowTitle(), window.isWindowModified())


def test_an_open_that_fails_half_way_puts_everything_back(window, base_session, tmp_path,
                                                          monkeypatch):
    """issue 20 item 6: the window showed the new data under the old title, and Ctrl+S then
    overwrote the good file."""
    import shutil

    assert window.open_path(base_session)
    window.state.selection.apply(np.arange(7), "add")
    before, groups = _window_record(window), window.state.selection.groups.copy()
    other = shutil.copy(base_session, tmp_path / "other.stpca")

    def broken(*_):
        raise RuntimeError("a view could not take the session")

    monkeypatch.setattr(window.parameters, "set_parameters", broken)
    assert not window.open_path(other)
    monkeypatch.undo()
    text = window.last_message_box.text()
    assert str(other) in text and "the window is as it was" in text
    after = _window_record(window)
    assert after[2:] == before[2:] and after[0].angles.tobytes() == before[0].angles.tobytes()
    np.testing.assert_array_equal(window.state.selection.groups, groups)
    np.testing.assert_array_equal(window.state.result.scores, before[1].scores)
    # Saving goes to the session the window still shows, not to the one that failed.
    other_bytes = other.read_bytes()
    assert window.sessions.save() and other.read_bytes() == other_bytes
    assert load_session(base_session).groups.tolist() == groups.tolist()


def test_a_degenerate_camera_is_refused_before_anything_changes(window, base_session,
                                                                tmp_path, gui_dir):
    import json
    import zipfile

    assert window.open_path(base_session)
    before = _window_record(window)
    bad = tmp_path / "camera.stpca"
    with zipfile.ZipFile(base_session) as archive, zipfile.ZipFile(bad, "w") as out:
        for name in archive.namelist():
            data = archive.read(name)
            if name == "metadata.json":
                metadata = json.loads(data)
                metadata["views"] = {"torus": {"camera": {**CAMERA, "view_up": [0, 0, 0]}}}
                data = json.dumps(metadata).encode()
            out.writestr(name, data)
    assert not window.open_path(bad)
    box = window.last_message_box
    assert "view_up is the zero vector" in box.text() and str(bad) in box.text()
    box.show()
    box.grab().save(str(gui_dir / "session_refused_camera.png"))
    assert _window_record(window) == before


def test_large_sessions_open_in_the_background(window, base_session, tmp_path, qtbot,
                                               monkeypatch):
    from stpca_gui.gui import session_actions

    monkeypatch.setattr(session_actions, "BACKGROUND_OPEN_BYTES", 0)
    broken = tmp_path / "broken.stpca"
    broken.write_bytes(base_session.read_bytes()[:-100])
    before = _window_record(window)
    with qtbot.waitSignal(window.sessions.open_failed, timeout=60_000) as failed:
        assert window.open_path(broken)  # reading started
    assert str(broken) in failed.args[0] and _window_record(window) == before
    with qtbot.waitSignal(window.sessions.opened, timeout=60_000):
        assert window.open_path(base_session)
    assert window.sessions.path == base_session and window.state.result is not None


def test_saving_refuses_the_source_table_and_a_save_during_a_fit_leaves_it_modified(
        window, tmp_path, qtbot):
    """issue 20 items 3 and 11."""
    table = tmp_path / "scores.csv"  # also the name of a result file
    rng = np.random.default_rng(1)
    table.write_text("phi,psi\n" + "".join(f"{a:.5f},{b:.5f}\n"
                                          for a, b in rng.uniform(-3, 3, (40, 2))))
    before = table.read_bytes()
    with qtbot.waitSignal(window.result_shown, timeout=120_000):
        assert window.open_path(table, interactive=False)
        # Saved while the first fit of new data runs: the fit that ends later is a change.
        assert window.sessions.save_to(tmp_path / "early.stpca")
    assert window.isWindowModified()
    assert not window.sessions.save_to(table)
    assert "refusing to write the session over the data set's source file" in (
        window.last_message_box.text())
    with pytest.raises(OSError, match=r"refusing to write the output scores\.csv over"):
        window.exports.export_results(tmp_path)
    assert table.read_bytes() == before


def test_very_long_column_names_are_elided_in_the_torus_view(window, qtbot, gui_dir,
                                                              monkeypatch):
    """issue 20 item 11: 10,000-character column names overflowed the torus view."""
    from stpca_gui.model import Dataset
    from stpca_gui.plotting.scene3d import SceneBase
    from stpca_gui.plotting.torus_scene import MAX_AXIS_TITLE, short_label

    assert short_label("x" * 10_000) == "x" * (MAX_AXIS_TITLE - 1) + "…"
    assert short_label("a\nb\x00c\rd") == "a b c d"
    drawn: dict[str, list[str]] = {}
    original = SceneBase._text

    def spy(self, points, labels, size, name, *args, **kwargs):
        drawn[name] = list(labels)
        return original(self, points, labels, size, name, *args, **kwargs)

    monkeypatch.setattr(SceneBase, "_text", spy)
    angles = np.random.default_rng(0).uniform(-3, 3, (60, 3))
    names = tuple(f"{k}" + " long name" * 1000 for k in range(3))
    with qtbot.waitSignal(window.result_shown, timeout=120_000):
        window.set_dataset(Dataset(angles=angles, column_names=names, source="long.csv"))
    window.torus_view.plotter.render()
    shot = gui_dir / "long_column_names.png"
    window.grab().save(str(shot))
    titles = drawn["torus-axis-titles"]
    assert [title[0] for title in titles] == ["0", "1", "2"]
    assert all(len(title) == MAX_AXIS_TITLE and title.endswith("…") for title in titles)
