"""The desktop app, driven headless under Xvfb with pytest-qt.

Every test that renders saves what it drew under ``test-output/gui/`` so a person can look
at the pictures after a run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from gui_probes import FIT_TIMEOUT_MS, highlight_counts
from image_content import assert_has_content
from PIL import Image
from PySide6.QtCore import QCoreApplication, Qt

pytest.importorskip("pytestqt")

from stpca_gui.core import make_demo
from stpca_gui.core.demos import make_clusters_t3
from stpca_gui.model import Dataset

pytestmark = pytest.mark.usefixtures("display")


def fit_demo(qtbot, win, name: str = "clusters-t3") -> None:
    with qtbot.waitSignal(win.result_shown, timeout=FIT_TIMEOUT_MS):
        win.load_demo(name)
    qtbot.waitUntil(lambda: figures_rendered(win))


def figures_rendered(win) -> bool:
    """The figures' full render after a result is done (their partial redraw is ready)."""
    return (win.scores_view.scatter.partial_redraw.ready
            and win.histogram_view.histogram.partial_redraw.ready)


def process_pending_events() -> None:
    """Run the events already queued (e.g. a scheduled ``draw_idle``); no fixed wait."""
    QCoreApplication.processEvents()


def test_demo_fit_renders_every_view(qtbot, window, gui_dir):
    fit_demo(qtbot, window)
    # The diagnostics are computed by a task after the result is shown.
    qtbot.waitUntil(window.diagnostics_view.has_content, timeout=FIT_TIMEOUT_MS)
    result = window.state.result
    assert result is not None and result.scores.shape == (300, 3)
    rows = dict(window.summary.rows())
    assert any("stress" in key for key in rows)
    for key, view in window.views.items():
        assert view.has_content(), key
        path = gui_dir / f"view-{key}.png"
        window.exports.export_view(key, path, dpi=100)
        assert_has_content(path)
    whole = gui_dir / "window-clusters-t3.png"
    window.export_window(whole)
    assert_has_content(whole, min_fraction=0.3, min_colors=200)
    # The 3-D views are painted into the window image (VTK renders outside Qt's buffer).
    image = np.asarray(Image.open(whole).convert("RGB"))
    torus = window.torus_view.plotter.interactor
    origin = torus.mapTo(window, torus.rect().center())
    ratio = image.shape[1] / window.width()
    y, x = int(origin.y() * ratio), int(origin.x() * ratio)
    patch = image[y - 150:y + 150, x - 150:x + 150].reshape(-1, 3)
    assert len(np.unique(patch, axis=0)) > 50


def test_3d_views_are_lit_after_being_emptied_before_the_first_result(qtbot, window):
    # The window empties its 3-D views before any data arrive; pyvista's Plotter.clear
    # took the lights with it, and the sphere view then drew every result unlit.
    import pyvista as pv

    default_lights = len(pv.Plotter(off_screen=True).renderer.lights)
    assert default_lights > 0
    for view in (window.torus_view, window.sphere_view):
        view.redraw()  # no data yet: emptied
    fit_demo(qtbot, window)
    for view in (window.torus_view, window.sphere_view):
        assert len(view.plotter.renderer.lights) == default_lights, view.title_text


def test_selection_in_scores_reaches_every_view(qtbot, window, gui_dir):
    fit_demo(qtbot, window)
    labels = window.state.dataset.labels
    pc1 = window.state.result.pns1
    first = labels == labels[0]
    lo, hi = pc1[first].min() - 1e-9, pc1[first].max() + 1e-9
    pc2 = window.state.result.scores[:, 1]
    # The latency of a selection is measured by benchmarks/bench_gui.py (target 100 ms).
    window.scores_view.select_rectangle(lo, pc2.min() - 1, hi, pc2.max() + 1)
    selected = window.state.selection.mask()
    assert np.array_equal(selected, first)
    assert highlight_counts(window) == dict.fromkeys(
        ("scores", "histogram", "torus", "sphere"), int(first.sum()))
    window.export_window(gui_dir / "window-selection.png")
    # Subtracting the same rectangle empties the selection everywhere; undo restores it.
    window.scores_view.select_rectangle(lo, pc2.min() - 1, hi, pc2.max() + 1, "subtract")
    assert set(highlight_counts(window).values()) == {0}
    window.state.selection.undo()
    assert highlight_counts(window)["torus"] == int(first.sum())


def test_selection_updates_are_partial_and_3d_views_refine_when_still(qtbot, window,
                                                                      monkeypatch):
    fit_demo(qtbot, window)
    torus = window.torus_view.plotter
    qtbot.waitUntil(lambda: torus.smooth, timeout=3000)
    labels = window.state.dataset.labels
    # The histogram names the selection in its legend only while there is one, so the first
    # selection after none redraws it in full; a change of a selection is drawn partially.
    window.state.selection.apply(labels != labels[0], "replace")
    process_pending_events()
    qtbot.waitUntil(lambda: torus.smooth, timeout=torus.STILL_DELAY_MS + 3000)
    full_renders = {"scores": 0, "histogram": 0}
    for key in full_renders:
        window.views[key].canvas.mpl_connect(
            "draw_event", lambda _event, key=key: full_renders.__setitem__(
                key, full_renders[key] + 1))
    renewed = []
    for selector in window.scores_view.selectors():
        monkeypatch.setattr(selector, "update_background",
                            lambda event, s=selector: renewed.append(s))
    frames: list[bool] = []  # anti-aliasing of each frame the torus view renders
    torus.ren_win.AddObserver("EndEvent", lambda *_: frames.append(bool(
        torus.renderer.GetUseFXAA())))

    window.state.selection.apply(labels == labels[0], "replace")
    qtbot.waitUntil(lambda: len(frames) > 0, timeout=2000)
    process_pending_events()  # a full render, had one been scheduled
    # The figures were not rendered again, only their selection layers ...
    assert full_renders == {"scores": 0, "histogram": 0}
    # ... and the result is exactly what a full render shows.
    for key in full_renders:
        canvas = window.views[key].canvas
        partial = np.asarray(canvas.buffer_rgba()).copy()
        canvas.draw()
        np.testing.assert_array_equal(partial, np.asarray(canvas.buffer_rgba()))
    # The scatter's lasso and rectangle blit over a copy of the canvas, renewed after
    # the partial redraw.
    assert len(renewed) == len(window.scores_view.selectors()) == 2
    # The 3-D view draws a quick frame without anti-aliasing, then, once still, the
    # anti-aliased one; an export is always anti-aliased.
    assert frames[0] is False
    qtbot.waitUntil(lambda: frames[-1] is True, timeout=torus.STILL_DELAY_MS + 3000)
    assert torus.smooth
    window.state.selection.apply(labels != labels[0], "replace")
    assert not torus.smooth
    window.torus_view.render_image()
    assert frames[-1] is True


def test_camera_drag_renders_each_move_once_and_refines_at_the_end(qtbot, window):
    fit_demo(qtbot, window)
    plotter = window.torus_view.plotter
    qtbot.waitUntil(lambda: plotter.smooth, timeout=3000)
    process_pending_events()
    frames: list[bool] = []
    plotter.ren_win.AddObserver("EndEvent", lambda *_: frames.append(bool(
        plotter.renderer.GetUseFXAA())))
    interactor = plotter.iren.interactor
    before = window.torus_view.render_image()
    frames.clear()
    interactor.InvokeEvent("StartInteractionEvent")  # as the style does on a press
    for move in range(5):
        plotter.camera.Azimuth(8)
        interactor.Render()  # as the style does on each mouse move
        qtbot.waitUntil(lambda move=move: len(frames) == move + 1, timeout=2000)
    process_pending_events()  # a frame, had one more been scheduled
    assert frames == [False] * 5  # one render per move, without anti-aliasing
    interactor.InvokeEvent("EndInteractionEvent")
    qtbot.waitUntil(lambda: len(frames) == 6, timeout=plotter.STILL_DELAY_MS + 2000)
    assert frames[-1] is True
    after = window.torus_view.render_image()
    assert before != after  # the view turned


def test_histogram_range_and_lasso_modes(qtbot, window):
    fit_demo(qtbot, window, "clusters-t2")
    pc1 = window.state.result.pns1
    window.histogram_view.select_range(-0.5, 0.5)
    expected = (pc1 >= -0.5) & (pc1 <= 0.5)
    assert np.array_equal(window.state.selection.mask(), expected)
    scores = window.state.result.scores
    square = np.array([[-0.5, -5], [0.2, -5], [0.2, 5], [-0.5, 5]])
    window.scores_view.select_polygon(square, "intersect")
    expected &= (scores[:, 0] >= -0.5) & (scores[:, 0] <= 0.2)
    assert np.array_equal(window.state.selection.mask(), expected)
    counts = highlight_counts(window)
    assert counts["sphere"] == counts["torus"] == int(expected.sum())


def test_colour_modes_change_the_pictures(qtbot, window, gui_dir):
    fit_demo(qtbot, window)
    images = []
    for index in range(window.color_combo.count()):
        window.color_combo.setCurrentIndex(index)
        process_pending_events()
        path = gui_dir / f"scores-colour-{window.color_combo.currentData()}.png"
        window.exports.export_view("scores", path, dpi=60)
        images.append(np.asarray(Image.open(path).convert("RGB")))
    assert not np.array_equal(images[0], images[1])


def test_refit_keeps_the_camera(qtbot, window):
    fit_demo(qtbot, window)
    plotter = window.torus_view.plotter
    plotter.camera.azimuth = 40.0
    plotter.render()
    before = plotter.camera_position
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.fit()
    after = plotter.camera_position
    np.testing.assert_allclose(np.asarray(after.position), np.asarray(before.position), atol=1e-6)


def large_dataset(n_per_cluster: int = 1700) -> Dataset:
    data = make_clusters_t3(n_per_cluster=n_per_cluster, random_state=3)
    return Dataset(angles=data.angles, column_names=data.column_names,
                   labels=np.asarray([str(v) for v in data.labels]), source="synthetic",
                   description="synthetic clusters", row_ids=np.arange(1, len(data.angles) + 1))


def test_cancel_stops_a_long_fit_at_its_next_report_and_the_app_stays_usable(
        qtbot, window, monkeypatch):
    # The time a cancel takes is measured by benchmarks/bench_updates.py; here: the fit
    # stops at the first progress report after the request and reports nothing after it.
    from stpca_gui.model import analysis as worker

    answers: list[bool] = []  # what each progress report of the fit was told (True: stop)
    real_run_analysis = worker.run_analysis

    def counted_run_analysis(*args, callback, **kwargs):
        def counted(event):
            stop = bool(callback(event))
            answers.append(stop)
            return stop
        return real_run_analysis(*args, callback=counted, **kwargs)

    monkeypatch.setattr(worker, "run_analysis", counted_run_analysis)
    window.set_dataset(large_dataset(), fit=False)
    with qtbot.waitSignal(window.controller.progress, timeout=FIT_TIMEOUT_MS,
                          check_params_cb=lambda e: e.stage == "smds" and e.iteration >= 1):
        window.fit()
    # The status bar's Cancel, clicked as a person does (the menu's Cancel fit is
    # triggered in test_gui_menus).
    from PySide6.QtCore import Qt

    cancel = window.fit_status.cancel_button
    assert cancel.isVisible() and window.fit_status.progress.isVisible()
    with qtbot.waitSignal(window.fit_ended, timeout=FIT_TIMEOUT_MS) as ended:
        qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    assert ended.args == ["cancelled"]
    # The bar and Cancel go when the worker's thread has finished, a queued signal that can
    # arrive just after the cancelled one (seen once in CI, 29 Nov 2026).
    qtbot.waitUntil(lambda: not cancel.isVisible()
                    and not window.fit_status.progress.isVisible(), timeout=5000)
    assert answers.count(True) == 1 and answers[-1] is True
    assert window.state.result is None
    assert "cancel" in window.stage_label.text().lower()
    fit_demo(qtbot, window, "clusters-t2")
    assert window.state.result.scores.shape == (300, 2)


def test_a_new_fit_supersedes_the_running_one(qtbot, window):
    window.set_dataset(large_dataset(), fit=False)
    with qtbot.waitSignal(window.controller.progress, timeout=FIT_TIMEOUT_MS):
        window.fit()
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.load_demo("clusters-t2")
    assert window.state.result.dataset.n_samples == 300


def test_gui_thread_keeps_responding_during_a_fit(qtbot, window):
    from PySide6.QtCore import QTimer

    from stpca_gui.core.warmup import warm_up

    # On a fresh install the first call of a kernel compiles it, holding the GIL; that
    # one-off cost is not what this test measures.
    warm_up()

    window.set_dataset(large_dataset(), fit=False)
    # The longest gap between the ticks of a 10 ms timer (target 100 ms) is measured by
    # benchmarks/bench_gui.py; here: the GUI thread runs its timers and receives progress
    # between the fit's start and its last progress report, i.e. the fit runs beside it.
    # The GUI thread's events in the order it handled them: "t" a timer tick, "p" a
    # progress report of the fit. Counting events, not ticks of a given length, keeps the
    # test independent of the machine's speed and load.
    events: list[str] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: events.append("t"))
    window.controller.progress.connect(lambda e: events.append("p"))
    timer.start()
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.fit()
    timer.stop()
    # Ticks ran between progress reports, not only before the first or after the last:
    # at least two gaps between consecutive reports hold a tick.
    during = "".join(events).strip("t")
    assert during.count("p") >= 3
    gaps_with_ticks = [gap for gap in during.split("p") if gap]
    assert len(gaps_with_ticks) >= 2


def test_worker_exception_shows_an_error_dialog(qtbot, window, monkeypatch):
    from stpca_gui.model import analysis as worker

    def explode(*args, **kwargs):
        raise RuntimeError("synthetic failure for the test")

    monkeypatch.setattr(worker, "run_analysis", explode)
    window.set_dataset(Dataset.from_demo("clusters-t2"), fit=False)
    with qtbot.waitSignal(window.fit_ended, timeout=10_000) as ended:
        window.fit()
    assert ended.args == ["failed"]
    box = window.last_message_box
    assert box is not None and box.isVisible()
    assert "synthetic failure" in box.text() + box.informativeText() + box.detailedText()
    box.close()
    monkeypatch.undo()
    fit_demo(qtbot, window, "clusters-t2")


def test_exports_write_valid_files(qtbot, window, tmp_path, gui_dir):
    fit_demo(qtbot, window)
    magic = {".png": b"\x89PNG", ".pdf": b"%PDF", ".svg": b"<?xml"}
    for key in ("scores", "histogram", "variance", "torus", "sphere"):
        for suffix in (".png", ".svg", ".pdf"):
            path = tmp_path / f"{key}{suffix}"
            window.exports.export_view(key, path, dpi=80)
            head = path.read_bytes()[:64]
            assert head.startswith(magic[suffix]) or (suffix == ".svg" and b"<svg" in
                                                      path.read_bytes()[:2000]), (key, suffix)
    window.export_window(tmp_path / "window.pdf")
    assert (tmp_path / "window.pdf").read_bytes()[:4] == b"%PDF"
    written = window.exports.export_results(tmp_path / "results")
    names = {p.name for p in written}
    assert names == {"scores.csv", "embedding.csv", "principal_curve.csv", "summary.json",
                     "selection.csv"}
    scores = np.genfromtxt(tmp_path / "results" / "scores.csv", delimiter=",", names=True)
    np.testing.assert_allclose(scores["PNS1"], window.state.result.pns1)
    summary = json.loads((tmp_path / "results" / "summary.json").read_text())
    assert summary["n_samples"] == 300
    assert not list((tmp_path / "results").glob(".*tmp"))


def test_unwritable_export_is_a_message_and_leaves_nothing(qtbot, window, tmp_path,
                                                           monkeypatch):
    fit_demo(qtbot, window, "clusters-t2")
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "x.png").write_bytes(b"old")

    # The final rename is refused, as in a folder the user may not write (root may write
    # anywhere, so permissions alone cannot stage this).
    def refuse(source, target):
        raise PermissionError(13, "Permission denied", str(target))

    monkeypatch.setattr(os, "replace", refuse)
    window.exports.guarded(lambda: window.exports.export_view("scores", folder / "x.png"), "ok")
    assert window.last_message_box is not None
    assert "Export failed" in window.last_message_box.windowTitle()
    assert "x.png" in window.last_message_box.text() + window.last_message_box.informativeText()
    assert [p.name for p in folder.iterdir()] == ["x.png"]  # no temporary file left
    assert (folder / "x.png").read_bytes() == b"old"


def test_export_to_a_missing_folder_is_a_message(qtbot, window, tmp_path):
    fit_demo(qtbot, window, "clusters-t2")
    target = tmp_path / "no" / "such" / "folder" / "x.png"
    window.exports.guarded(lambda: window.exports.export_view("scores", target), "ok")
    box = window.last_message_box
    assert box is not None and "Export failed" in box.windowTitle()
    assert not target.parent.exists()


def test_import_dialog_suggests_and_reads(qtbot, tmp_path):
    from stpca_gui.gui.import_dialog import ImportDialog

    data = make_demo("clusters-t2", random_state=0)
    lines = ["frame,phi,psi,group"]
    for k, (row, label) in enumerate(zip(np.rad2deg(data.angles), data.labels, strict=True)):
        lines.append(f"{k},{row[0]:.4f},{row[1]:.4f},g{label}")
    lines.insert(10, "9999,12.5,,g1")  # a row with a missing angle
    path = tmp_path / "angles.csv"
    path.write_text("\n".join(lines) + "\n")
    dialog = ImportDialog(path)
    qtbot.addWidget(dialog)
    assert dialog.chosen_columns() == ["phi", "psi"]
    assert dialog.chosen_label() == "group"
    assert dialog.degrees.isChecked()
    assert "2π" in dialog.unit_note.text() or "degree" in dialog.unit_note.text().lower()
    frame = dialog.columns.item(0)
    assert frame.text() == "frame" and "where the rows come from" in frame.toolTip()
    dialog.try_accept()
    dataset = dialog.dataset()
    assert dataset is not None and dataset.n_samples == 300 and dataset.n_angles == 2
    assert [line for line, _ in dataset.dropped] == [11]
    np.testing.assert_allclose(dataset.angles, data.angles, atol=1e-4)


def test_open_path_reports_skipped_rows_and_fits(qtbot, window, tmp_path):
    data = make_demo("clusters-t2", random_state=0)
    lines = ["phi\tpsi"] + [f"{a:.6f}\t{b:.6f}" for a, b in data.angles] + ["1.0\tabc"]
    path = tmp_path / "angles.tsv"
    path.write_text("\n".join(lines) + "\n")
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        assert window.open_path(path, interactive=False)
    assert window.state.dataset.n_samples == 300
    assert "skipped" in window.last_message_box.text()
    assert str(path.resolve()) in [str(Path(p).resolve()) for p in window.recent.paths()]


def test_screenshot_command(tmp_path, gui_dir):
    out = gui_dir / "screenshot-clusters-t2.png"
    out.unlink(missing_ok=True)
    env = dict(os.environ)
    completed = subprocess.run(
        [sys.executable, "-m", "stpca_gui.gui.app", "--demo", "clusters-t2", "--screenshot",
         str(out), "--size", "1400x900"],
        env=env, capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    width, height = Image.open(out).size
    assert (width, height) == (1400, 900)
    assert_has_content(out, min_fraction=0.3, min_colors=200)


def test_import_dialog_filters_rows_and_builds_a_lagged_series(qtbot, tmp_path):
    from stpca_gui.gui.import_dialog import ImportDialog

    rng = np.random.default_rng(0)
    lines = ["cycle,theta,phi"]
    for cycle in (22, 23, 24):
        for value in rng.uniform(0, 2 * np.pi, 40):
            lines.append(f"{cycle},{value:.5f},0.1")
    path = tmp_path / "births.csv"
    path.write_text("\n".join(lines) + "\n")
    dialog = ImportDialog(path)
    qtbot.addWidget(dialog)
    for k in range(dialog.columns.count()):
        item = dialog.columns.item(k)
        item.setCheckState(Qt.CheckState.Checked if item.text() == "theta"
                           else Qt.CheckState.Unchecked)
    dialog.filter_column.setCurrentText("cycle")
    dialog.filter_value.setText("23")
    dialog.lagged.setChecked(True)
    dialog.lags.setValue(3)
    dialog.try_accept()
    dataset = dialog.dataset()
    assert dataset is not None, dialog.error.text()
    assert dataset.angles.shape == (38, 3)
    assert dataset.row_ids[0] == 42  # the first cycle-23 line of the file


def test_lagged_embedding_action_refits(qtbot, window):
    fit_demo(qtbot, window, "clusters-t2")
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.lagged.apply(0, 3)
    assert window.state.dataset.n_angles == 3
    assert window.state.result.scores.shape == (298, 3)


def open_compare_methods(qtbot, window):
    """The method comparison, once its background run has drawn every method."""
    dialog = window.compare_methods()
    qtbot.addWidget(dialog)
    assert [dialog.table.item(r, 0).text() for r in range(dialog.table.rowCount())] == [
        "ST-PCA"]  # the baselines arrive from the background task
    with qtbot.waitSignal(dialog.methods_shown, timeout=FIT_TIMEOUT_MS):
        pass
    return dialog


def test_compare_methods_table_and_linked_scatters(qtbot, window, gui_dir):
    fit_demo(qtbot, window, "clusters-t2")
    dialog = open_compare_methods(qtbot, window)
    table = [[dialog.table.item(r, c).text() for c in range(dialog.table.columnCount())]
             for r in range(dialog.table.rowCount())]
    assert [row[0] for row in table] == ["ST-PCA", "Euclidean PCA", "aPCA", "dPCA",
                                         "complex dPCA", "dPCA+", "T-PCA (SI)", "T-PCA (SO)"]
    # Each method reports the variance the paper's Table 2 gives for it: the torus variance
    # for the two through a sphere (with their sphere shares beside), covariance otherwise.
    result = window.state.result
    assert table[0][1] == "torus (§3.5)"
    assert float(table[0][2]) == pytest.approx(100 * result.torus_ratio[0], abs=0.01)
    assert float(table[0][5].split(" / ")[0]) == pytest.approx(100 * result.sphere_ratio[0],
                                                               abs=0.01)
    for row in table[6:]:
        assert row[1] == "torus (§3.5)" and row[5] != "—"
    for row in table[1:6]:
        assert row[1] == "covariance (PCA)" and row[5] == "—"
    window.histogram_view.select_range(-0.5, 0.5)
    count = int(window.state.selection.mask().sum())
    assert len(dialog.scatters) == 8
    for scatter in dialog.scatters:
        assert len(scatter.overlay.get_offsets()) == count
    dialog.export(gui_dir / "compare-methods-clusters-t2.png", dpi=80)
    assert_has_content(gui_dir / "compare-methods-clusters-t2.png")
    dialog.grab().save(str(gui_dir / "compare-methods-dialog-clusters-t2.png"))
    assert_has_content(gui_dir / "compare-methods-dialog-clusters-t2.png")
    # A method's caveats (T-PCA on angles without a data gap) are shown under the table.
    assert not dialog.notes.isVisible()
    dialog._show_rows([dialog.rows[0], replace(dialog.rows[6], notes=("no data gap",))])
    assert dialog.notes.isVisible() and dialog.notes.text() == "T-PCA (SI): no data gap"
    assert dialog.table.item(1, 0).toolTip() == "no data gap"
    dialog.close()


def test_compare_methods_rectangle_selects(qtbot, window):
    fit_demo(qtbot, window, "clusters-t2")
    dialog = open_compare_methods(qtbot, window)
    euclidean = dialog.scatters[1]
    points = euclidean.positions
    dialog.select_rectangle(euclidean, 0.0, -10.0, 10.0, 10.0)
    assert np.array_equal(window.state.selection.mask(), points[:, 0] >= 0.0)
    dialog.close()


def test_mode_clusters_colour_the_views_and_draw_antimodes(qtbot, window, gui_dir):
    fit_demo(qtbot, window, "clusters-t3")
    clusters = window.state.result.mode_clusters
    assert len(clusters.modes) == 3
    assert clusters.classification_rate == pytest.approx(1.0)
    rows = dict(window.summary.rows())
    assert rows["clusters vs labels"].startswith("100.0 %") and "95 % CI" in rows[
        "clusters vs labels"]
    assert "3 modes (α = 0.05; k=1: p" in rows["PNS1 mode clusters"]
    assert rows["paper's rule"].startswith("3 (every mode, untested)")
    index = window.color_combo.findData("cluster")
    window.color_combo.setCurrentIndex(index)
    process_pending_events()
    hist_axes = window.histogram_view.histogram.axes
    dashed = [line for line in hist_axes.get_lines() if line.get_linestyle() == "--"]
    assert len(dashed) == 3
    assert "3 clusters — 3 modes" in window.histogram_view.histogram.cluster_note
    # The paper's antimodes, on request, dotted beside the tested ones.
    window.paper_antimodes_action.setChecked(True)
    process_pending_events()
    hist_axes = window.histogram_view.histogram.axes
    assert len([line for line in hist_axes.get_lines() if line.get_linestyle() == ":"]) == 3
    window.paper_antimodes_action.setChecked(False)
    process_pending_events()
    window.exports.export_view("histogram", gui_dir / "histogram-mode-clusters.png", dpi=100)
    window.export_window(gui_dir / "window-mode-clusters.png")
    assert_has_content(gui_dir / "histogram-mode-clusters.png")


def test_uniformity_dialog_runs_the_three_tests(qtbot, window):
    fit_demo(qtbot, window, "clusters-t2")
    dialog = window.uniformity_tests()
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(dialog.results_shown, timeout=FIT_TIMEOUT_MS) as shown:
        dialog.run()  # PNS1 of three clusters: far from uniform
    results = shown.args[0]
    assert set(results) == {"Watson", "Gine_Fn", "PAD"}
    assert all(test.p_value < 1e-3 for test in results.values())
    assert dialog.table.rowCount() == 3
    dialog.calibration.setCurrentIndex(1)
    dialog.replicates.setValue(200)
    with qtbot.waitSignal(dialog.results_shown, timeout=FIT_TIMEOUT_MS) as shown:
        dialog.run()
    assert all(test.n_replicates == 200 for test in shown.args[0].values())
    assert "200 replicates" in dialog.table.item(0, 3).text()
    assert not dialog.progress.isVisible()
    # The data's first angle column, with sphunif's PAD ties: the note says how many tied
    # pairs were dropped (the demo's angles have no ties).
    dialog.column.setCurrentIndex(dialog.column.count() - 2)
    dialog.calibration.setCurrentIndex(0)
    dialog.pad_ties.setCurrentIndex(1)
    with qtbot.waitSignal(dialog.results_shown, timeout=FIT_TIMEOUT_MS) as shown:
        dialog.run()
    assert shown.args[0]["PAD"].details == "sphunif ties: 0 of 0 tied pairs dropped"
    assert "0 of 0 tied pairs dropped" in dialog.note.text()
    dialog.close()


def test_no_display_is_a_message_not_a_crash():
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    env["QT_QPA_PLATFORM"] = "xcb"
    completed = subprocess.run([sys.executable, "-m", "stpca_gui.gui.app", "--demo",
                                "clusters-t2"], env=env, capture_output=True, text=True,
                               timeout=120)
    assert completed.returncode == 1
    assert "no X display" in completed.stderr and "Traceback" not in completed.stderr


def test_the_result_table_and_the_charts_share_a_splitter(qtbot, window):
    """The result table has its share of the side column's room (it kept only its least
    height, three rows, before), at every window size, until the user moves the handle
    between it and the charts; then the user's split holds."""
    from stpca_gui.gui.main_window import RESULT_MIN_HEIGHT, RESULT_SHARE

    with qtbot.waitSignal(window.result_shown, timeout=120_000):
        window.load_demo("clusters-t2")
    split = window.result_split
    assert [split.widget(0), split.widget(1)] == [window.summary_slot, window.result_tabs]
    for size in ((1600, 1000), (1280, 800)):
        window.resize(*size)
        qtbot.waitUntil(lambda: window.summary_slot.height() > 0, timeout=5000)
        table, charts = split.sizes()
        assert table >= RESULT_MIN_HEIGHT + 40, size
        assert table / (table + charts) == pytest.approx(RESULT_SHARE, abs=0.06), size
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: split.sizes()[0] > RESULT_MIN_HEIGHT + 80, timeout=5000)
    before = window.summary_slot.height()
    split.moveSplitter(before + 60, 1)
    qtbot.waitUntil(lambda: window.summary_slot.height() >= before + 50, timeout=5000)
    assert window.result_tabs.height() >= 170  # the charts keep their least height
    moved = split.sizes()
    window.resize(1601, 1000)  # the width only: the user's split stays as it is
    qtbot.waitUntil(lambda: window.width() == 1601, timeout=5000)
    assert split.moved_by_user and split.sizes() == moved
