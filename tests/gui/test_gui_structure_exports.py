"""The motion along a component from its context menu, and the selected frames as a
trajectory with their medoid (issue 33 item 5), on AdK's P-loop in two runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("pytestqt")

from gui_probes import FIT_TIMEOUT_MS
from image_content import assert_has_content
from structure_files import datafiles, quiet_universe, write_halves
from test_gui import figures_rendered

from stpca_gui.io.structures import DihedralSettings
from stpca_gui.io.structures.representatives import torus_medoid
from stpca_gui.model.structures import read_structure_dataset

pytestmark = pytest.mark.usefixtures("display")


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    halves = write_halves(tmp_path_factory.mktemp("halves"))
    settings = DihedralSettings(select="resid 7:13", layout="per-frame")
    return read_structure_dataset(datafiles.PSF, halves, settings)


def _save_as(monkeypatch, path) -> list[str]:
    """Make the save dialog answer ``path`` (as a person picking it would); the captions
    it was opened with are returned."""
    from PySide6.QtWidgets import QFileDialog

    asked: list[str] = []

    def save_name(parent, caption="", directory="", filter="", *args, **kwargs):
        asked.append(caption)
        return str(path), filter.split(";;")[0]

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_name))
    return asked


def _context_menu(widget, position) -> None:
    """Right-click ``widget`` at ``position`` as the window system reports it (a
    context-menu event)."""
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QApplication

    QApplication.sendEvent(widget, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, position,
                                                     widget.mapToGlobal(position)))


def test_motion_from_a_variance_bars_context_menu(qtbot, window, loop, gui_dir, tmp_path,
                                                  monkeypatch):
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication

    exports = window.structure_exports
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.set_dataset(loop)
    qtbot.waitUntil(lambda: figures_rendered(window))
    view = window.variance_view
    view.canvas.draw()
    bars = view.figure.axes[0].containers[0].patches
    menus = {}
    for k in (1, 2):
        box = bars[k - 1].get_window_extent()
        ratio = view.canvas.device_pixel_ratio
        position = QPoint(round((box.x0 + box.x1) / 2 / ratio),
                          round(view.canvas.height() - (box.y0 + 2) / ratio))
        exports.last_menu = None
        _context_menu(view.canvas, position)
        qtbot.waitUntil(lambda: exports.last_menu is not None)
        menus[k] = exports.last_menu
        assert [a.text() for a in menus[k].actions()] == [
            f"Motion along PNS{k} as Structures…"]
        assert menus[k].actions()[0].isEnabled()
        menus[k].close()
    # The scores view's component boxes offer it too.
    exports.last_menu = None
    combo = window.scores_view.y_combo
    _context_menu(combo, QPoint(5, 5))
    qtbot.waitUntil(lambda: exports.last_menu is not None)
    assert exports.last_menu.actions()[0].text() == (
        f"Motion along PNS{combo.currentIndex() + 1} as Structures…")
    exports.last_menu.close()
    menu = menus[1]
    screen = QApplication.primaryScreen()
    for size in ((1280, 800), (1600, 1000)):
        window.resize(*size)
        window.move(0, 0)
        qtbot.waitUntil(lambda size=size: window.width() == size[0])
        view.canvas.draw()
        box = bars[0].get_window_extent()
        spot = view.canvas.mapToGlobal(QPoint(round((box.x0 + box.x1) / 2
                                                    / view.canvas.device_pixel_ratio),
                                              view.canvas.height() // 2))
        menu.popup(spot)
        qtbot.waitExposed(menu)
        QApplication.processEvents()
        path = gui_dir / f"motion-menu-{size[0]}x{size[1]}.png"
        screen.grabWindow(0, 0, 0, *size).save(str(path))
        assert_has_content(path, min_fraction=0.3, min_colors=30)
        assert menu.geometry().right() <= size[0] and menu.geometry().bottom() <= size[1]
        menu.close()
    # The menu's entry, chosen as a person does: it asks for the file, then writes it.
    out = tmp_path / "pns1.pdb"
    asked = _save_as(monkeypatch, out)
    with qtbot.waitSignal(exports.runner.succeeded, timeout=60_000):
        menu.actions()[0].trigger()
    assert asked == ["Write the motion along PNS1"]
    assert exports.last_written == [out]
    models = quiet_universe(out).trajectory.n_frames
    assert models >= 10
    assert f"Wrote {models} frames along PNS1" in window.statusBar().currentMessage()


def test_selected_frames_as_a_trajectory_and_their_medoid(qtbot, window, loop, tmp_path,
                                                          monkeypatch):
    exports = window.structure_exports
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.set_dataset(loop)
    clusters = window.state.result.mode_clusters.labels
    # Export Results writes the state trajectories beside scores.csv (issue 33 item 4).
    written = window.exports.export_results(tmp_path / "results")
    assert [p.name for p in written if p.name.startswith("states")] == [
        "states.csv", "states_1.npy", "states_2.npy"]
    runs = loop.provenance["trajectory"]
    for k, run in enumerate(dict.fromkeys(runs.tolist()), start=1):
        assert np.array_equal(np.load(tmp_path / "results" / f"states_{k}.npy"),
                              clusters[runs == run])  # frames in order in each run
    mask = clusters == clusters[0]
    window.state.selection.apply(mask, "replace", source="test")
    # File → Selected Frames as Trajectory…, as a person chooses it.
    out = tmp_path / "picked.dcd"
    asked = _save_as(monkeypatch, out)
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    action = next(a for a in file_menu.actions()
                  if a.text() == "Selected &Frames as Trajectory…")
    with qtbot.waitSignal(exports.runner.succeeded, timeout=60_000):
        action.trigger()
    assert asked == ["Write the selected frames"]
    medoid = tmp_path / "picked_medoid.pdb"
    assert exports.last_written == [out, medoid]
    written = quiet_universe(datafiles.PSF, out)
    assert written.trajectory.n_frames == int(mask.sum())
    # The medoid file holds the frame the torus medoid of the selection names.
    row = np.flatnonzero(mask)[torus_medoid(loop.angles[mask])]
    run, frame = loop.provenance["trajectory"][row], int(loop.provenance["frame"][row])
    source = quiet_universe(datafiles.PSF, next(p for p in loop.structure["trajectories"]
                                                if p.endswith(str(run))))
    source.trajectory[frame]
    assert np.allclose(quiet_universe(medoid).atoms.positions, source.atoms.positions,
                       atol=1e-3)
    # Without a selection the app says so and writes nothing.
    window.state.selection.clear()
    _save_as(monkeypatch, tmp_path / "none.pdb")
    action.trigger()
    assert window.messages.last_box.text().startswith("Select frames")
    assert not (tmp_path / "none.pdb").exists()


def test_the_structure_demo_opens_from_the_demos_menu(qtbot, window):
    """Demos → adk-loop fills in the structure dialog with the bundled files and reads them
    in the background; the fit follows (issue 33 item 7)."""
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Demos")
    action = next(a for a in menu.actions() if a.text().startswith("adk-loop — "))
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        action.trigger()
    dataset = window.state.dataset
    assert (dataset.n_samples, dataset.n_angles) == (98, 14)
    assert sorted(set(dataset.provenance["trajectory"])) == ["adk_loop_1.xtc",
                                                             "adk_loop_2.xtc"]


def test_the_readme_command_opens_the_structure_demo(tmp_path, gui_dir):
    """README's ``uv run stpca-gui --demo adk-loop`` through the app's own parser: the
    bundled P-loop files are copied into the user's cache and read there (MDAnalysis left
    its frame-offset indexes beside the copies), and the window is shown fitted. No head
    start is tried (its child cannot fit a structure demo) even when one is asked for."""
    from stpca_gui.gui.head_start import ENV as HEAD_START_ENV
    from stpca_gui.gui.startup import TRACE_ENV

    out = gui_dir / "screenshot-adk-loop.png"
    out.unlink(missing_ok=True)
    trace = tmp_path / "trace.json"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), HEAD_START_ENV: "1",
           TRACE_ENV: str(trace)}
    completed = subprocess.run(
        [sys.executable, "-m", "stpca_gui.gui.app", "--demo", "adk-loop", "--screenshot",
         str(out), "--size", "1280x800"], env=env, capture_output=True, text=True,
        timeout=300)
    assert completed.returncode == 0, completed.stderr
    copies = list((tmp_path / "stpca-gui").glob("adk-loop-*"))
    assert len(copies) == 1
    assert {p.name for p in copies[0].glob(".*_offsets.npz")} == {
        ".adk_loop_1.xtc_offsets.npz", ".adk_loop_2.xtc_offsets.npz"}
    assert Image.open(out).size == (1280, 800)
    assert_has_content(out, min_fraction=0.3, min_colors=200)
    marks = json.loads(trace.read_text())["marks"]
    assert "first_paint" in marks and "head_start" not in marks
