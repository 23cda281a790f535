"""Result files: strict JSON, written as one set (all or none), labels in scores.csv.

Issue 10, items 2 (summary.json held bare NaN), 5 (3 of 4 files replaced when the fourth
failed, a message naming a temporary file; --out checked only after the fit) and 7b (the
--label column appeared in no output file).
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import json
import os
import stat

import numpy as np
import pytest

from stpca_gui.cli import main
from stpca_gui.core import ScaledTorusPCA, make_demo
from stpca_gui.files.output_folder import MANIFEST_NAME
from stpca_gui.io import RESULT_FILES, atomic_file_set, write_results


def strict_json(text: str):
    """Parse as a strict JSON reader would: NaN and Infinity are not JSON."""

    def refuse(constant: str):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def fitted() -> ScaledTorusPCA:
    demo = make_demo("clusters-t2", random_state=0)
    return ScaledTorusPCA(random_state=0, torus_variance=False).fit(demo.angles)


@pytest.fixture
def nan_model(fitted) -> ScaledTorusPCA:
    """A fitted model whose sphere ratios, radius and stress came out NaN (degenerate data)."""
    model = copy.deepcopy(fitted)
    model.explained_variance_ratio_ = np.full(2, np.nan)
    model.radius_ = np.nan
    model.stress_ = np.inf
    return model


def test_summary_with_nan_ratios_is_strict_json(tmp_path, nan_model):
    write_results(nan_model, tmp_path, ["phi", "psi"], source="x.csv")
    summary = strict_json((tmp_path / "summary.json").read_text())
    assert summary["explained_variance_ratio"] == [None, None]
    assert summary["torus_explained_variance_ratio"] == [None, None]  # not computed
    assert summary["radius"] is None and summary["stress"] is None
    assert summary["source"] == "x.csv"


def test_cli_summary_without_torus_variance_is_strict_json(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["demo", "clusters-t2", "--no-torus-variance", "--out", str(out)]) == 0
    summary = strict_json((out / "summary.json").read_text())
    assert summary["torus_explained_variance_ratio"] == [None, None]


def test_recent_files_store_is_strict_json(tmp_path):
    from stpca_gui.model import RecentFiles

    recent = RecentFiles(tmp_path / "recent.json")
    recent.add(str(tmp_path / "a.csv"))
    recent.save()
    assert strict_json((tmp_path / "recent.json").read_text())["recent"]


def _old_results(folder):
    folder.mkdir()
    for name in RESULT_FILES:
        (folder / name).write_text(f"old {name}")


def test_one_unwritable_target_changes_no_file(tmp_path, fitted):
    folder = tmp_path / "result"
    _old_results(folder)
    (folder / "principal_curve.csv").unlink()
    (folder / "principal_curve.csv").mkdir()  # a folder of that name cannot be replaced
    with pytest.raises(OSError) as raised:
        write_results(fitted, folder, ["phi", "psi"])
    message = str(raised.value)
    assert str(folder / "principal_curve.csv") in message and ".tmp" not in message
    for name in ("scores.csv", "embedding.csv", "summary.json"):
        assert (folder / name).read_text() == f"old {name}", name
    assert not [p.name for p in folder.iterdir() if p.name.startswith(".")]


def test_a_failed_rename_puts_the_replaced_files_back(tmp_path, fitted, monkeypatch):
    folder = tmp_path / "result"
    _old_results(folder)
    (folder / "embedding.csv").unlink()  # a new file of the set: removed again on failure
    real_replace = os.replace

    def replace(source, target):
        if str(target).endswith("summary.json"):
            raise PermissionError(13, "Permission denied")
        return real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match=r"summary\.json: Permission denied; no file") as raised:
        write_results(fitted, folder, ["phi", "psi"], overwrite=True)  # files of a user's
    assert ".tmp" not in str(raised.value)
    assert sorted(p.name for p in folder.iterdir()) == [
        "principal_curve.csv", "scores.csv", "summary.json"]
    for name in ("scores.csv", "principal_curve.csv", "summary.json"):
        assert (folder / name).read_text() == f"old {name}", name


def test_a_failing_writer_leaves_the_set_unchanged(tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "a.txt").write_text("old a")
    with pytest.raises(RuntimeError, match="writer failed"):
        with atomic_file_set(folder, ["a.txt", "b.txt"]) as temporaries:
            temporaries["a.txt"].write_text("new a")
            raise RuntimeError("writer failed")
    assert sorted(p.name for p in folder.iterdir()) == ["a.txt"]
    assert (folder / "a.txt").read_text() == "old a"


def test_set_files_get_the_umask_mode(tmp_path, fitted):
    previous = os.umask(0o022)
    try:
        written = write_results(fitted, tmp_path / "new" / "folder", ["phi", "psi"])
    finally:
        os.umask(previous)
    assert [p.name for p in written] == list(RESULT_FILES)
    assert {stat.S_IMODE(p.stat().st_mode) for p in written} == {0o644}


@pytest.mark.parametrize("blocker", ["file_as_folder", "file_above", "folder_as_target"])
def test_bad_out_fails_before_the_fit(tmp_path, capsys, monkeypatch, blocker):
    fits = []
    monkeypatch.setattr(ScaledTorusPCA, "fit", lambda self, *a, **k: fits.append(1))
    if blocker == "file_as_folder":
        out = tmp_path / "out"
        out.write_text("a file, not a folder")
    elif blocker == "file_above":
        (tmp_path / "plain").write_text("a file")
        out = tmp_path / "plain" / "sub" / "out"
    else:
        out = tmp_path / "out"
        (out / "summary.json").mkdir(parents=True)
    assert main(["demo", "clusters-t2", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("stpca: error: cannot write") and str(out) in err
    assert fits == []


def _labelled_table(path):
    data = make_demo("clusters-t2", random_state=0)
    names = np.array(["alpha", "beta, with comma", 'gamma "q"'])[data.labels]
    lines = ["phi,psi,group"]
    for row, name in zip(data.angles, names, strict=True):
        quoted = '"' + name.replace('"', '""') + '"'
        lines.append(f"{row[0]:.10f},{row[1]:.10f},{quoted}")
    path.write_text("\n".join(lines) + "\n")
    return names


def test_fit_label_column_is_written_to_scores(tmp_path, capsys):
    source = tmp_path / "angles.csv"
    names = _labelled_table(source)
    out = tmp_path / "result"
    assert main(["fit", str(source), "--label", "group", "--out", str(out),
                 "--curve-points", "40"]) == 0, capsys.readouterr().err
    with open(out / "scores.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["row", "label", "PNS1", "PNS2", "cluster"]
    assert [r[1] for r in rows[1:]] == list(names)
    assert [int(r[0]) for r in rows[1:]] == list(range(2, 302))


def test_scores_without_labels_have_no_label_column(tmp_path, fitted):
    write_results(fitted, tmp_path, ["phi", "psi"])
    header = (tmp_path / "scores.csv").read_text().splitlines()[0]
    assert header == "row,PNS1,PNS2"


@pytest.mark.usefixtures("display")
def test_app_export_writes_labels_and_is_one_set(qtbot, window, tmp_path):
    pytest.importorskip("pytestqt")
    with qtbot.waitSignal(window.result_shown, timeout=120_000):
        window.load_demo("clusters-t2")
    written = window.exports.export_results(tmp_path / "results")
    assert {p.name for p in written} == {*RESULT_FILES, "selection.csv"}
    with open(tmp_path / "results" / "scores.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0][:2] == ["row", "label"]
    assert [r[1] for r in rows[1:]] == list(window.state.dataset.labels)
    strict_json((tmp_path / "results" / "summary.json").read_text())

    # A folder named like one target: the message names it and nothing is replaced.
    (tmp_path / "results" / "selection.csv").unlink()
    (tmp_path / "results" / "selection.csv").mkdir()
    before = (tmp_path / "results" / "scores.csv").stat().st_mtime_ns
    with qtbot.waitSignal(window.exports.runner.finished, timeout=60_000):
        window.exports.export_results_to(tmp_path / "results")
    box = window.last_message_box
    assert box is not None and "Export failed" in box.windowTitle()
    assert "selection.csv" in box.text() and ".tmp" not in box.text()
    assert (tmp_path / "results" / "scores.csv").stat().st_mtime_ns == before

    # File → Export Results… writes in the background (the GUI thread returns at once)
    # and asks before writing beside the user's files; Write Anyway keeps them.
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "scores.csv").write_text("the user's scores")
    (mine / "notes.txt").write_text("the user's notes")
    with qtbot.waitSignal(window.exports.runner.finished, timeout=60_000):
        window.exports.export_results_to(mine)
        assert window.exports.runner.busy
        assert window.statusBar().currentMessage() == f"Writing the results to {mine}…"
    question = window.last_message_box
    assert question.windowTitle() == "Folder holds other files"
    assert (mine / "scores.csv").read_text() == "the user's scores"
    write_anyway = next(b for b in question.buttons() if b.text() == "Write Anyway")
    with qtbot.waitSignal(window.exports.runner.finished, timeout=60_000):
        write_anyway.click()
    assert (mine / "scores.csv").read_text().startswith("row,label,PNS1")
    assert (mine / "notes.txt").read_text() == "the user's notes"
    assert {p.name for p in window.exports.last_written} == {*RESULT_FILES, "selection.csv"}
    assert window.statusBar().currentMessage() == f"Results written to {mine}"


def test_a_frame_column_with_repeated_frames_still_gets_its_results(tmp_path, capsys):
    """A table whose frame column repeats within a run (two runs pasted together without a
    trajectory column) has no state arrays; its results are written all the same, with a
    warning naming the table and the frame, not refused after the fit."""
    angles = make_demo("clusters-t2", random_state=0).angles
    table = tmp_path / "pasted.csv"
    lines = ["frame,phi,psi"] + [f"{i % 150},{a:.6f},{b:.6f}"
                                 for i, (a, b) in enumerate(angles)]
    table.write_text("\n".join(lines) + "\n")
    out = tmp_path / "fit"
    assert main(["fit", str(table), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted([*RESULT_FILES, MANIFEST_NAME])
    err = capsys.readouterr().err
    assert (f"warning: no state arrays: {table}: frame 0 of trajectory appears in more than "
            "one row") in err


@pytest.mark.usefixtures("display")
def test_the_app_says_why_a_frame_column_with_repeated_frames_gets_no_state_arrays(
        qtbot, window, tmp_path, monkeypatch, gui_dir):
    """File → Export Results… wrote the other files and said nothing; the command line
    warns. Taken as a person does: the menu's action, the folder picked in its dialog."""
    pytest.importorskip("pytestqt")
    from PySide6.QtWidgets import QFileDialog

    from stpca_gui.model import Dataset

    folders = iter([tmp_path / "results", tmp_path / "again"])
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *args, **kwargs: str(next(folders))))

    angles = make_demo("clusters-t2", random_state=0).angles
    pasted = Dataset(angles=angles, column_names=("phi", "psi"), source="pasted.csv",
                     provenance={"frame": np.arange(angles.shape[0]) % 150})
    with qtbot.waitSignal(window.result_shown, timeout=120_000):
        window.set_dataset(pasted)
    with qtbot.waitSignal(window.exports.runner.finished, timeout=60_000):
        window.exports.results_action.trigger()  # written in the background
    assert {p.name for p in (tmp_path / "results").iterdir()} >= {*RESULT_FILES}
    box = window.last_message_box
    assert box is not None and box.windowTitle() == "No state arrays"
    assert "frame 0 of trajectory appears in more than one row" in box.text()
    qtbot.waitUntil(box.isVisible, timeout=5000)
    box.grab().save(str(gui_dir / "no-state-arrays.png"))  # looked at
    # One row per frame: state arrays, and no box.
    window.messages.last_box = None
    with qtbot.waitSignal(window.result_shown, timeout=120_000):
        window.set_dataset(dataclasses.replace(
            pasted, provenance={"frame": np.arange(angles.shape[0])}))
    with qtbot.waitSignal(window.exports.runner.finished, timeout=60_000):
        window.exports.results_action.trigger()
    assert (tmp_path / "again" / "states_1.npy").exists()
    assert window.last_message_box is None
