"""File → Open Structure or Trajectory… and Export → Cluster representatives, headless."""

from __future__ import annotations

import numpy as np
import pytest
from gui_probes import FIT_TIMEOUT_MS

pytest.importorskip("pytestqt")

from image_content import assert_has_content
from structure_files import SPLIT, datafiles, write_halves
from test_gui import figures_rendered

from stpca_gui.files.output_folder import MANIFEST_NAME

pytestmark = pytest.mark.usefixtures("display")


@pytest.fixture(scope="module")
def halves(tmp_path_factory):
    return write_halves(tmp_path_factory.mktemp("halves"))


def _ready(qtbot, dialog) -> None:
    """The topology loaded and the first selection ("all") checked."""
    qtbot.waitUntil(lambda: dialog._universe is not None
                    and dialog.selection_note.text().startswith("✓"), timeout=30_000)


def test_open_trajectory_fit_and_export_representatives(qtbot, window, gui_dir, tmp_path):
    dialog = window.structures.open_dialog(datafiles.PSF, (datafiles.DCD,))
    _ready(qtbot, dialog)
    # The selection is checked as it is typed, in the background.
    with qtbot.waitSignal(dialog.selection_checked, timeout=30_000) as checked:
        dialog.selection.setText("resid (")
    assert checked.args == [False] and "is not valid" in dialog.selection_note.text()
    with qtbot.waitSignal(dialog.selection_checked, timeout=30_000) as checked:
        dialog.selection.setText("resid 1:80")
    assert checked.args == [True] and "80 residues" in dialog.selection_note.text()
    dialog.stride.setValue(3)
    assert dialog.label_by.currentText() == "residue class"
    qtbot.waitExposed(dialog)
    dialog.grab().save(str(gui_dir / "structure-dialog.png"))
    assert_has_content(gui_dir / "structure-dialog.png", min_fraction=0.05, min_colors=20)
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        dialog.read()
    qtbot.waitUntil(lambda: figures_rendered(window))
    dataset = window.state.dataset
    assert dataset.column_names == ("phi", "psi") and dataset.n_samples == 33 * 79
    assert set(dataset.label_names()) == {"Gly", "Pro", "pre-Pro", "other"}
    assert dataset.structure["settings"]["stride"] == 3
    clusters = window.state.result.mode_clusters
    assert len(clusters.modes) >= 1
    out = tmp_path / "representatives"
    with qtbot.waitSignal(window.structures.runner.succeeded, timeout=30_000):
        window.structures.export(str(out))
    lines = (out / "residue_clusters.csv").read_text().splitlines()
    assert len(lines) == 1 + 79
    counts = np.array([list(map(int, line.split(",")[3:])) for line in lines[1:]])
    assert np.all(counts[:, 0] == 33) and counts[:, 1:].sum() == dataset.n_samples
    path = gui_dir / "window-structure-phi-psi.png"
    window.export_window(path)
    assert_has_content(path, min_fraction=0.3, min_colors=200)


def test_a_bad_trajectory_changes_nothing(qtbot, window):
    dialog = window.structures.open_dialog(datafiles.PSF, (datafiles.XTC,))
    qtbot.waitUntil(lambda: dialog._universe is not None, timeout=30_000)
    with qtbot.waitSignal(dialog.runner.failed, timeout=30_000):
        dialog.read()
    assert window.state.dataset is None
    assert "does not match the topology" in dialog.status.text()
    assert "adk_oplsaa.xtc" in window.last_message_box.text() + \
        window.last_message_box.informativeText()
    dialog.reject()


def test_without_mdanalysis_the_app_says_how_to_install_it(qtbot, window, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "MDAnalysis", None)
    assert window.structures.open_dialog() is None
    box = window.last_message_box
    assert "pip install 'stpca-gui[structures]'" in box.text() + box.informativeText()
    assert window.state.dataset is None


def test_the_dialog_reads_chosen_torsions_and_refuses_unknown_ones(qtbot, window, tmp_path):
    dialog = window.structures.open_dialog(datafiles.PSF, (datafiles.DCD,))
    qtbot.waitUntil(lambda: dialog._universe is not None, timeout=30_000)
    dialog.dihedral_set.setCurrentText("chi")
    dialog.angles.setText("chi1, chi5")
    dialog.read()
    assert "chi5" in dialog.status.text() and dialog.dataset() is None
    dialog.angles.setText("chi1, chi2, chi3")
    dialog.layout_choice.setCurrentText("per-frame")
    dialog.selection.setText("resname ARG")
    dialog.stop.setValue(40)
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        dialog.read()
    dataset = window.state.dataset
    assert dataset.n_samples == 40 and dataset.labels is None
    assert all(name.split(":")[-1] in ("chi1", "chi2", "chi3") for name in dataset.column_names)
    assert dataset.structure["settings"]["angles"] == ["chi1", "chi2", "chi3"]
    # Per-frame data: one PDB file per cluster, its medoid frame.
    clusters = window.state.result.mode_clusters.labels
    with qtbot.waitSignal(window.structures.runner.succeeded, timeout=30_000):
        window.structures.export(str(tmp_path / "reps"))
    written = sorted(p.name for p in (tmp_path / "reps").iterdir()
                     if p.name != MANIFEST_NAME)
    assert written == sorted(["clusters.csv", *(f"cluster_{k + 1}.pdb" for k in set(clusters))])


def test_script_export_of_structure_data_says_how_it_reads_them(qtbot, window, tmp_path):
    """The app's message after *Export as Python Script…* knew the demo, file and copy
    sources only: data read from a structure raised a KeyError in the slot."""
    import shutil

    from stpca_gui.io.structures import DihedralSettings
    from stpca_gui.model.structures import read_structure_dataset

    topology, trajectory = tmp_path / "adk.psf", tmp_path / "adk.dcd"
    shutil.copy(datafiles.PSF, topology)
    shutil.copy(datafiles.DCD, trajectory)
    dataset = read_structure_dataset(topology, [trajectory], DihedralSettings(
        select="resid 10:12", stop=30))
    window.set_dataset(dataset, fit=False)
    with qtbot.waitSignal(window.script_export.written, timeout=60_000) as written:
        window.script_export.export(tmp_path / "refit.py")
    assert written.args[0] == [tmp_path / "refit.py", tmp_path / "refit-data.csv"]
    text = window.script_export.last_message_box.text()
    assert "reads the torsions again from the structure files" in text
    assert "refit-data.csv" in text
def test_several_trajectories_are_runs_and_the_preview_leaves_the_window_free(
        qtbot, window, gui_dir, halves, monkeypatch):
    """Issue 33 item 1 and issue 29 items 6, 9: a list of trajectory files (no ';'
    splitting), read as runs or concatenated; the selection checked off the GUI thread."""
    import threading

    from PySide6.QtWidgets import QApplication

    from stpca_gui.gui import structure_dialog

    threads = []
    checked_in = structure_dialog._preview_task

    def recording(*args):
        threads.append(threading.current_thread())
        return checked_in(*args)

    monkeypatch.setattr(structure_dialog, "_preview_task", recording)
    first, second = map(str, halves)
    dialog = window.structures.open_dialog(datafiles.PSF, (first,))
    _ready(qtbot, dialog)
    dialog.trajectories.add([second])
    assert dialog.trajectory_paths() == [first, second]
    assert "2 runs, one per file" in dialog.runs_note.text() and dialog.concatenate.isEnabled()
    # A path holding ';' is one file, not two.
    dialog.trajectories.add(["/data/run;1.dcd"])
    assert dialog.trajectory_paths()[-1] == "/data/run;1.dcd"
    dialog.trajectories.files.setCurrentRow(2)
    dialog.trajectories.remove()
    dialog.trajectories.files.setCurrentRow(1)
    dialog.trajectories.move(-1)
    assert dialog.trajectory_paths() == [second, first]
    dialog.trajectories.move(1)
    with qtbot.waitSignal(dialog.selection_checked, timeout=30_000):
        dialog.selection.setText(" or ".join(f"resid {k}" for k in range(1, 801)))
    note = dialog.selection_note.text()
    assert "799 and/or/not operators" in note and len(note) < 300
    assert threads and all(t is not threading.main_thread() for t in threads)
    with qtbot.waitSignal(dialog.selection_checked, timeout=30_000):
        dialog.selection.setText("resid 7:13")
    dialog.layout_choice.setCurrentText("per-frame")
    screen = QApplication.primaryScreen()
    for size in ((1280, 800), (1600, 1000)):
        window.resize(*size)
        window.move(0, 0)
        dialog.move(window.geometry().center() - dialog.rect().center())
        qtbot.waitUntil(lambda size=size: window.width() == size[0])
        qtbot.waitExposed(dialog)
        QApplication.processEvents()
        path = gui_dir / f"structure-dialog-runs-{size[0]}x{size[1]}.png"
        screen.grabWindow(0, 0, 0, *size).save(str(path))
        assert_has_content(path, min_fraction=0.3, min_colors=30)
        # Nothing of the dialog is clipped: every child fits its own size hint.
        assert dialog.width() >= dialog.minimumSizeHint().width()
        assert dialog.trajectories.files.height() >= 3 * dialog.fontMetrics().height()
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        dialog.read()
    dataset = window.state.dataset
    assert dataset.n_samples == 98 and dataset.n_angles == 14
    assert dataset.provenance["trajectory"].tolist() == ["first.dcd"] * SPLIT + [
        "second.dcd"] * 49
    assert dataset.provenance["frame"][SPLIT] == 0
    assert [run["label"] for run in dataset.structure["runs"]] == ["first.dcd", "second.dcd"]


def test_the_selection_check_is_given_up_after_its_time_limit(qtbot, window, monkeypatch):
    import threading

    from stpca_gui.gui import structure_dialog

    release = threading.Event()

    def stuck(universe, text, where, state):
        release.wait(timeout=30)
        return 1, 1

    monkeypatch.setattr(structure_dialog, "PREVIEW_TIME_LIMIT_MS", 200)
    dialog = window.structures.open_dialog(datafiles.PSF, (datafiles.DCD,))
    _ready(qtbot, dialog)
    monkeypatch.setattr(structure_dialog, "_preview_task", stuck)
    try:
        with qtbot.waitSignal(dialog.selection_checked, timeout=10_000) as checked:
            dialog.selection.setText("resid 1:5")
        assert checked.args == [False]
        assert "took longer than 0.2 s" in dialog.selection_note.text()
        assert not dialog.preview.busy  # the next check starts at once
    finally:
        release.set()
    dialog.reject()


def test_truncated_trajectories_and_changed_files_are_reported_in_the_app(
        qtbot, window, tmp_path):
    """Issue 29 item 8: a truncated trajectory is said; Cluster representatives checks the
    recorded SHA-256 and refuses a changed file (it never did)."""
    import shutil
    from pathlib import Path

    trajectory = Path(shutil.copy(datafiles.DCD, tmp_path / "adk.dcd"))
    data = trajectory.read_bytes()
    cut = tmp_path / "half.dcd"
    cut.write_bytes(data[:len(data) // 2])
    dialog = window.structures.open_dialog(datafiles.PSF, (str(cut),))
    _ready(qtbot, dialog)
    dialog.selection.setText("resid 7:13")
    dialog.layout_choice.setCurrentText("per-frame")
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        dialog.read()
    box = window.last_message_box
    assert box.windowTitle() == "Read with notes"
    assert "half.dcd is truncated: its last frame is cut off; 48 complete frame(s)" in \
        box.text()
    assert "half.dcd is truncated" in window.state.dataset.description
    box.accept()
    cut.write_bytes(data[:len(data) // 2 - 100])  # another file under the same name
    out = tmp_path / "reps"
    with qtbot.waitSignal(window.structures.runner.failed, timeout=30_000):
        window.structures.export(str(out))
    box = window.last_message_box
    assert "half.dcd: not the file" in box.text() + box.informativeText()
    assert not out.exists()


def test_representatives_of_a_command_line_session_ask_for_the_files(qtbot, window, gui_dir,
                                                                     tmp_path):
    """Issue 31, item 2: a session `stpca fit` wrote from a table without its structure
    record opened, *Cluster representatives…* asked for the topology with nowhere to give
    it. The dialog asks for the files (prefilled when the data record them)."""
    from stpca_gui.cli import main
    from stpca_gui.gui.representatives_dialog import RepresentativesDialog
    from stpca_gui.io.structures import DihedralSettings, read_torsions

    table = read_torsions(datafiles.PSF, [datafiles.DCD],
                          DihedralSettings(select="resid 7:9", layout="per-frame"))
    written = table.write_csv(tmp_path / "loop.csv")
    written[1].unlink()  # the table without its record, as written before records existed
    session = tmp_path / "loop.stpca"
    assert main(["fit", str(written[0]), "--degrees", "--landmarks", "exact",
                 "--no-torus-variance", "--save-session", str(session)]) == 0
    assert window.open_path(session)
    qtbot.waitUntil(lambda: window.state.result is not None, timeout=FIT_TIMEOUT_MS)
    window.structures.export_action.trigger()  # Export → Cluster representatives…
    (dialog,) = window.findChildren(RepresentativesDialog)
    assert dialog.isVisible() and dialog.topology_path() == ""
    assert "do not record their structure files" in dialog.note.text()
    ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
    assert not ok.isEnabled()
    out = tmp_path / "reps"
    dialog.out.setText(str(out))
    dialog.topology.setText(datafiles.PSF)
    dialog.trajectories.add([datafiles.DCD])
    assert ok.isEnabled()
    qtbot.waitExposed(dialog)
    dialog.grab().save(str(gui_dir / "representatives-dialog.png"))
    assert_has_content(gui_dir / "representatives-dialog.png", min_fraction=0.05,
                       min_colors=20)
    with qtbot.waitSignal(window.structures.runner.succeeded, timeout=60_000):
        ok.click()
    clusters = window.state.result.mode_clusters.labels
    assert sorted(p.name for p in out.iterdir() if p.name != MANIFEST_NAME) == sorted(
        ["clusters.csv", *(f"cluster_{k + 1}.pdb" for k in set(clusters))])
    # Data that record their files: the dialog is prefilled with them.
    recorded = window.structures.open_dialog(datafiles.PSF, (datafiles.DCD,))
    _ready(qtbot, recorded)
    recorded.selection.setText("resid 7:9")
    recorded.layout_choice.setCurrentText("per-frame")
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        recorded.read()
    prefilled = window.structures.export_dialog()
    assert prefilled.topology_path() == datafiles.PSF
    assert prefilled.trajectory_paths() == [datafiles.DCD]
    prefilled.reject()
