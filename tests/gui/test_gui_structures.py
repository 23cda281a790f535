"""File → Open Structure or Trajectory… and Export → Cluster representatives, headless."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pytestqt")
pytest.importorskip("MDAnalysis")
datafiles = pytest.importorskip("MDAnalysisTests.datafiles")

from test_gui import FIT_TIMEOUT_MS, assert_has_content, figures_rendered  # noqa: E402

pytestmark = pytest.mark.usefixtures("display")


def test_open_trajectory_fit_and_export_representatives(qtbot, window, gui_dir, tmp_path):
    dialog = window.structures.open_dialog(datafiles.PSF, (datafiles.DCD,))
    qtbot.waitUntil(lambda: dialog._universe is not None, timeout=30_000)
    # The selection is checked as it is typed.
    dialog.selection.setText("resid (")
    assert not dialog.check_selection() and "not a valid selection" in \
        dialog.selection_note.text()
    dialog.selection.setText("resid 1:80")
    assert dialog.check_selection() and "80 residues" in dialog.selection_note.text()
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
    written = sorted(p.name for p in (tmp_path / "reps").iterdir())
    assert written == sorted(["clusters.csv", *(f"cluster_{k}.pdb" for k in set(clusters))])
