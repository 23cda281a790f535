"""Export as Python Script: the script refits the app's analysis and writes the same scores.

Each run of a script in a fresh interpreter costs several seconds (imports, the compiled
kernels' cache, an OpenGL context), so two cases run as subprocesses, with every figure:
the lagged embedding of a table with labels in degrees, and the window's demo in the GUI
test. The others run with ``runpy`` in this process, without the 3-D figures.
"""

from __future__ import annotations

import ast
import csv
import dataclasses
import json
import os
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from project_paths import REPO

from stpca_gui.core import make_demo
from stpca_gui.io import data_copy_text, read_data_copy
from stpca_gui.io.tables import read_angle_table
from stpca_gui.model import Dataset, FitParameters, run_analysis
from stpca_gui.model.script_export import export_script, python_script
from stpca_gui.model.table_import import ImportChoices, import_table
from stpca_gui.plotting import figures
from stpca_gui.plotting.figures import PLOT_FIGURES, SCENE_FIGURES

ROOT = REPO
SCRIPT_TIMEOUT_S = 300
#: The project's lint rules, applied to a generated script outside the project.
RUFF = ["ruff", "check", "--isolated", "--select", "E,F,W,I,UP,B,NPY,RUF", "--ignore",
        "RUF001,RUF002,RUF003", "--line-length", "100"]


def _table(folder: Path, n: int = 40) -> Path:
    """A small CSV in degrees with a label column (one label holds a comma) and one row
    with a non-numeric angle, which the import skips."""
    demo = make_demo("clusters-t2", random_state=1)
    keep = np.random.default_rng(0).choice(demo.angles.shape[0], n, replace=False)
    path = folder / "angles.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["phi", "psi", "group"])
        for k, i in enumerate(keep):
            phi, psi = np.degrees(demo.angles[i])
            label = "a, first" if demo.labels[i] == 0 else f"g{demo.labels[i]}"
            writer.writerow([f"{phi:.4f}", f"{psi:.4f}", label])
            if k == 5:
                writer.writerow(["oops", "12.5", "g1"])
    return path


def _read_scores(path: Path) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """(row ids, labels or None, scores) of a scores.csv."""
    with open(path, newline="", encoding="utf-8") as handle:
        header, *rows = list(csv.reader(handle))
    first = 2 if header[1] == "label" else 1
    last = len(header) - 1 if header[-1] == "cluster" else len(header)  # PNS columns only
    ids = np.array([int(row[0]) for row in rows])
    labels = np.array([row[1] for row in rows]) if first == 2 else None
    return ids, labels, np.array([[float(v) for v in row[first:last]] for row in rows])


def _read_clusters(path: Path) -> np.ndarray:
    """The ``cluster`` column of a scores.csv."""
    with open(path, newline="", encoding="utf-8") as handle:
        header, *rows = list(csv.reader(handle))
    assert header[-1] == "cluster"
    return np.array([int(row[-1]) for row in rows])


def _check_scores(out: Path, dataset: Dataset, expected: np.ndarray) -> float:
    """The largest score difference; rows and labels must be those of the app's export."""
    ids, labels, scores = _read_scores(out / "scores.csv")
    np.testing.assert_array_equal(ids, dataset.row_ids)
    if dataset.labels is None:
        assert labels is None
    else:
        np.testing.assert_array_equal(labels, dataset.labels)
    assert scores.shape == expected.shape
    difference = float(np.max(np.abs(scores - expected)))
    assert difference <= 1e-9
    return difference


def _check_figures(out: Path, names: tuple[str, ...] = PLOT_FIGURES + SCENE_FIGURES) -> None:
    for name in names:
        image = np.asarray(Image.open(out / name).convert("RGB"))
        assert image.shape[0] > 200 and image.shape[1] > 200, name
        colours = np.unique(image.reshape(-1, 3), axis=0)
        assert len(colours) > 20, f"{name} is blank ({len(colours)} colours)"


def _run(script: Path, out: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, str(script), "--out", str(out)], cwd=script.parent,
                          capture_output=True, text=True, timeout=SCRIPT_TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stderr
    return done


def _run_here(script: Path, out: Path, monkeypatch) -> None:
    """Run a script as ``python SCRIPT --out OUT`` would, in this process, as where
    pyvista cannot render off-screen (the 2-D figures only; the 3-D ones cost seconds)."""
    monkeypatch.setattr(sys, "argv", [str(script), "--out", str(out)])
    monkeypatch.setattr(figures, "can_render_off_screen", lambda: False)
    runpy.run_path(str(script), run_name="__main__")
    assert not (out / SCENE_FIGURES[0]).exists()


def _lint(script: Path) -> None:
    done = subprocess.run([sys.executable, "-m", *RUFF, str(script)], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


# ---------------------------------------------------------------------- data records
def test_dataset_records_how_to_rebuild_it_and_survives_a_json_round_trip(tmp_path):
    demo = Dataset.from_demo("clusters-t2", random_state=4).lagged(1, 3).lagged(0, 2)
    assert demo.demo_seed == 4
    assert demo.lagged_embeddings == ((1, 3), (0, 2))
    table = import_table(_table(tmp_path), ImportChoices(columns=("phi", "psi"),
                                                         label_column="group", degrees=True))
    assert table.table_options == {"columns": ["phi", "psi"], "degrees": True,
                                   "label_column": "group", "drop_invalid": True,
                                   "row_filter": None}
    # What a session file does with the fields: JSON turns tuples into lists.
    wide = Dataset.from_demo("clusters-t3", random_state=1, cluster_sd=0.5)
    assert wide.demo_options == {"cluster_sd": 0.5}
    for dataset in (demo, table, wide):
        fields = {f.name: getattr(dataset, f.name) for f in dataclasses.fields(Dataset)
                  if f.name in ("demo_seed", "demo_options", "table_options",
                                "lagged_embeddings")}
        again = dataclasses.replace(dataset, **json.loads(json.dumps(fields)))
        assert again.demo_seed == dataset.demo_seed
        assert again.demo_options == dataset.demo_options
        assert again.table_options == dataset.table_options
        assert again.lagged_embeddings == dataset.lagged_embeddings
    filtered = dataclasses.replace(table, table_options={**table.table_options,
                                                          "row_filter": ["group", "g1"]})
    assert filtered.table_options["row_filter"] == ("group", "g1")


def test_data_copy_reads_back_bit_for_bit(tmp_path):
    rng = np.random.default_rng(3)
    angles = np.concatenate([rng.uniform(-np.pi, np.pi, (50, 3)),
                             [[1e-300, -5e-324, np.nextafter(np.pi, 0)]]])
    labels = np.array([f'l"{k}, é' for k in range(len(angles))])
    rows = np.arange(7, 7 + len(angles))
    path = tmp_path / "copy.csv"
    path.write_text(data_copy_text(angles, ["a", "b", "row"], rows, labels), encoding="utf-8")
    copy = read_data_copy(path, labelled=True)
    assert copy.angles.tobytes() == angles.tobytes()
    np.testing.assert_array_equal(copy.row_ids, rows)
    np.testing.assert_array_equal(copy.labels, labels)
    assert copy.column_names == ("a", "b", "row")
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y\n1,2\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.csv: line 1: not a data copy"):
        read_data_copy(bad, labelled=True)


# ---------------------------------------------------------------------- generator
def test_demo_script_is_short_lint_clean_and_reproduces_the_app(tmp_path, monkeypatch):
    dataset = Dataset.from_demo("clusters-t3", random_state=0)
    parameters = FitParameters(n_curve_points=60, random_state=3)
    export, written = export_script(dataset, parameters, tmp_path / "demo.py")
    assert export.data_origin == "demo" and written == [tmp_path / "demo.py"]
    text = export.script
    assert len(text.splitlines()) < 120
    assert 'make_demo("clusters-t3", random_state=0)' in text
    # Only what differs from the estimator's defaults, one per line, and always the seed.
    assert "        n_curve_points=60,\n        random_state=3,\n    ).fit(angles)" in text
    assert "pns_mode" not in text
    _lint(written[0])
    out = tmp_path / "out"
    _run_here(written[0], out, monkeypatch)
    reference = run_analysis(dataset, parameters)
    _check_scores(out, dataset, reference.scores)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["source"] == "demo:clusters-t3"


def test_demo_script_regenerates_a_non_default_cluster_sd(tmp_path, monkeypatch):
    dataset = Dataset.from_demo("clusters-t2", random_state=2, cluster_sd=0.5).lagged(0, 2)
    parameters = FitParameters(n_curve_points=30, random_state=0)
    export, written = export_script(dataset, parameters, tmp_path / "wide.py")
    # Regenerated, not copied: the script's own loader gave the data bit for bit.
    assert export.data_origin == "demo" and export.note == ""
    assert 'make_demo("clusters-t2", random_state=2, cluster_sd=0.5)' in export.script
    _lint(written[0])
    out = tmp_path / "out"
    _run_here(written[0], out, monkeypatch)
    _check_scores(out, dataset, run_analysis(dataset, parameters).scores)


def _module_constant(script: str, name: str):
    """The literal a script assigns to ``name`` at module level."""
    for node in ast.parse(script).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and getattr(node.targets[0], "id", None) == name):
            return ast.literal_eval(node.value)
    raise AssertionError(f"the script assigns no {name}")


def test_table_script_rereads_the_file_and_reproduces_the_app(tmp_path, monkeypatch, capsys):
    source = _table(tmp_path)
    dataset = import_table(source, ImportChoices(columns=("phi", "psi"), label_column="group",
                                                 degrees=True))
    assert len(dataset.dropped) == 1
    parameters = FitParameters(pns_mode="small")
    script = tmp_path / "scripts" / "table.py"
    script.parent.mkdir()
    export, written = export_script(dataset, parameters, script)
    assert export.data_origin == "file", export.note
    assert written == [script, script.parent / "table-data.csv"]
    text = export.script
    # The value, not the line: a long path is split over adjacent literals.
    assert _module_constant(text, "SOURCE_PATH") == str(source)
    assert "SOURCE = Path(SOURCE_PATH)" in text
    assert "degrees=True" in text and 'label_column="group"' in text
    assert export.script.count(_sha(source)) == 2  # the docstring and the check
    _lint(script)
    out = tmp_path / "out"
    capsys.readouterr()
    _run_here(script, out, monkeypatch)
    assert "pyvista cannot render off-screen here" in capsys.readouterr().err
    _check_scores(out, dataset, run_analysis(dataset, parameters).scores)
    _check_figures(out, PLOT_FIGURES)


def test_lagged_script_uses_the_copy_when_the_source_changed(tmp_path, monkeypatch, capsys):
    source = _table(tmp_path)
    dataset = import_table(source, ImportChoices(columns=("psi",), label_column="group",
                                                 degrees=True, lags=3))
    assert dataset.lagged_embeddings == ((0, 3),)
    parameters = FitParameters()
    script = tmp_path / "lagged.py"
    export, _ = export_script(dataset, parameters, script)
    assert export.data_origin == "file", export.note
    assert "lagged_embedding(angles[:, 0], 3)" in export.script
    _lint(script)
    expected = run_analysis(dataset, parameters).scores
    out = tmp_path / "out"
    done = _run(script, out)
    assert "note:" not in done.stderr
    difference = _check_scores(out, dataset, expected)
    print(f"max |score difference| (lagged table): {difference:.3g}")
    _check_figures(out)

    # The file changes: the script says so and fits the exact copy instead.
    source.write_text(source.read_text().replace("oops", "10"), encoding="utf-8")
    capsys.readouterr()
    _run_here(script, tmp_path / "again", monkeypatch)
    err = capsys.readouterr().err
    assert f"note: {source} is missing or has changed" in err
    assert "lagged-data.csv" in err
    assert "differ from those the app fitted" not in err
    _check_scores(tmp_path / "again", dataset, expected)


def test_data_that_cannot_be_reread_are_written_as_a_copy(tmp_path, monkeypatch):
    source = _table(tmp_path)
    table = read_angle_table(source, ["phi", "psi"], degrees=True, label_column="group",
                             drop_invalid=True)
    # Options that do not give these angles (read as radians): the check notices.
    wrong = Dataset.from_table(table, degrees=True, options={
        "columns": ["phi", "psi"], "label_column": "group", "drop_invalid": True})
    export = python_script(wrong, FitParameters(), script_path=tmp_path / "wrong.py")
    assert export.data_origin == "copy"
    assert export.note == "reading the source again does not give the same data"
    assert "read_angle_table" not in export.script
    # Data built in memory have no source to read again.
    made = Dataset(angles=wrong.angles[:12], labels=None)
    export, written = export_script(made, FitParameters(), tmp_path / "made.py")
    assert export.data_origin == "copy"
    assert export.note == "the data set does not record how to read it again from its source"
    assert written[1].name == "made-data.csv"
    namespace = runpy.run_path(str(written[0]))
    angles, rows, labels = namespace["load_data"]()
    assert angles.tobytes() == made.angles.tobytes() and labels is None
    np.testing.assert_array_equal(rows, made.row_ids)
    # A file that is gone.
    source.unlink()
    export = python_script(wrong, FitParameters(), script_path=tmp_path / "gone.py")
    assert export.data_origin == "copy"
    assert export.note == f"its file {source} is not there any more"


def test_a_fit_without_seed_cannot_be_scripted(tmp_path):
    dataset = Dataset.from_demo("clusters-t2")
    with pytest.raises(ValueError, match="no seed"):
        python_script(dataset, FitParameters(random_state=None), script_path=tmp_path / "x.py")


def _sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------------- the app
@pytest.mark.usefixtures("display")
def test_menu_action_writes_a_script_that_reproduces_the_window(qtbot, window, tmp_path,
                                                                monkeypatch, gui_dir):
    from stpca_gui.gui import script_export_action

    action = window.script_export.action
    assert not action.isEnabled()
    with qtbot.waitSignal(window.result_shown, timeout=120_000):
        window.load_demo("clusters-t3")
    assert action.isEnabled()
    assert action in window.menuBar().actions()[0].menu().actions()
    target = tmp_path / "window"  # no suffix: ".py" is added
    monkeypatch.setattr(script_export_action.QFileDialog, "getSaveFileName",
                        lambda *args, **kwargs: (str(target), "Python script (*.py)"))
    with qtbot.waitSignal(window.script_export.written, timeout=60_000) as written:
        action.trigger()
    script = tmp_path / "window.py"
    assert written.args[0] == [script]
    box = window.script_export.last_message_box
    assert box is not None and str(script) in box.text()
    qtbot.waitExposed(box)
    box.grab().save(str(gui_dir / "script_export_message.png"))
    out = tmp_path / "out"
    done = _run(script, out)
    assert "wrote" in done.stdout
    result = window.state.result
    difference = _check_scores(out, result.dataset, result.scores)
    print(f"max |score difference| (window): {difference:.3g}")
    _check_figures(out)


@pytest.mark.usefixtures("display")
def test_menu_action_reports_an_unwritable_path(qtbot, window, tmp_path):
    window.set_dataset(Dataset.from_demo("clusters-t2"), fit=False)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with qtbot.waitSignal(window.script_export.runner.failed, timeout=60_000):
        window.script_export.export(blocker / "script.py")
    box = window.script_export.last_message_box
    assert box is not None and f"cannot write into {blocker}" in box.text()
    assert "Traceback" not in box.text()
    assert not (blocker / "script.py").exists()


@pytest.mark.usefixtures("display")
def test_menu_action_asks_before_replacing_a_users_file_as_export_results_does(
        qtbot, window, tmp_path, gui_dir):
    from PySide6.QtWidgets import QMessageBox

    rng = np.random.default_rng(4)
    dataset = Dataset(angles=rng.uniform(-3, 3, (30, 2)))
    window.set_dataset(dataset, fit=False)
    user = tmp_path / "script-data.csv"  # where the script's data copy goes
    user.write_text("my,own\n1,2\n")
    with qtbot.waitSignal(window.script_export.runner.succeeded, timeout=60_000):
        window.script_export.export(tmp_path / "script.py")
    question = window.messages.last_box
    assert question is not None and question.icon() == QMessageBox.Icon.Question
    assert "script-data.csv" in question.text() and "Write anyway?" in question.text()
    assert user.read_text() == "my,own\n1,2\n" and not (tmp_path / "script.py").exists()
    qtbot.waitExposed(question)
    question.grab().save(str(gui_dir / "script_export_question.png"))
    write_anyway = next(b for b in question.buttons() if b.text() == "Write Anyway")
    with qtbot.waitSignal(window.script_export.written, timeout=60_000) as written:
        write_anyway.click()
    assert written.args[0] == [tmp_path / "script.py", user]
    assert np.array_equal(read_data_copy(user, labelled=False).angles, dataset.angles)


# ------------------------------------------------------------------ from a session file
def test_cli_scripts_a_saved_session_and_the_script_reproduces_its_scores(
        tmp_path, monkeypatch, capsys):
    from stpca_gui import cli

    session, app_out = tmp_path / "analysis.stpca", tmp_path / "app"
    assert cli.main(["demo", "wrapped-normal-t2", "--curve-points", "60", "--save-session",
                     str(session), "--out", str(app_out)]) == cli.EXIT_OK
    script = tmp_path / "refit.py"
    assert cli.main(["export-script", str(session), str(script)]) == cli.EXIT_OK
    assert 'make_demo("wrapped-normal-t2", random_state=0)' in script.read_text()
    out = tmp_path / "out"
    _run_here(script, out, monkeypatch)
    _, _, expected = _read_scores(app_out / "scores.csv")
    _, _, scores = _read_scores(out / "scores.csv")
    assert scores.shape == expected.shape
    assert np.max(np.abs(scores - expected)) <= 1e-9


def test_a_script_prints_the_variance_as_stpca_fit_does(tmp_path, monkeypatch, capsys):
    """The torus variance of the computed components and the share of the rest, not a
    ratio per component (NaN beyond --torus-components: hundreds at d = 426)."""
    from stpca_gui import cli

    session = tmp_path / "analysis.stpca"
    assert cli.main(["demo", "clusters-t3", "--curve-points", "30", "--torus-components", "1",
                     "--save-session", str(session)]) == cli.EXIT_OK
    fitted = [line for line in capsys.readouterr().out.splitlines()
              if line.startswith(("sphere variance", "torus variance"))]
    assert len(fitted) == 2 and "PNS2–3 together" in fitted[1]
    script = tmp_path / "refit.py"
    assert cli.main(["export-script", str(session), str(script)]) == cli.EXIT_OK
    capsys.readouterr()
    _run_here(script, tmp_path / "out", monkeypatch)
    printed = capsys.readouterr().out
    assert [line for line in printed.splitlines() if line in fitted] == fitted
    assert "nan" not in printed


def test_cli_script_of_a_session_with_a_cluster_sd_regenerates_the_same_data(
        tmp_path, monkeypatch, capsys):
    from stpca_gui import cli

    session, app_out = tmp_path / "wide.stpca", tmp_path / "app"
    assert cli.main(["demo", "clusters-t3", "--cluster-sd", "0.45", "--data-seed", "3",
                     "--curve-points", "30", "--save-session", str(session), "--out",
                     str(app_out)]) == cli.EXIT_OK
    script = tmp_path / "refit.py"
    assert cli.main(["export-script", str(session), str(script)]) == cli.EXIT_OK
    assert "note:" not in capsys.readouterr().err  # regenerated, not read from a copy
    text = script.read_text()
    assert 'make_demo("clusters-t3", random_state=3, cluster_sd=0.45)' in text
    # The script carries the cluster rule and level of the session and gives its clusters.
    assert 'CLUSTER_RULE = "tested"' in text and "ALPHA = 0.05" in text
    out = tmp_path / "out"
    _run_here(script, out, monkeypatch)
    _, _, expected = _read_scores(app_out / "scores.csv")
    _, _, scores = _read_scores(out / "scores.csv")
    assert np.max(np.abs(scores - expected)) <= 1e-9
    np.testing.assert_array_equal(_read_clusters(out / "scores.csv"),
                                  _read_clusters(app_out / "scores.csv"))


def test_cli_refuses_a_damaged_session_with_a_message(tmp_path, capsys):
    from stpca_gui import cli

    damaged = tmp_path / "damaged.stpca"
    damaged.write_bytes(b"PK\x03\x04 not really a session")
    assert cli.main(["export-script", str(damaged), str(tmp_path / "x.py")]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert "damaged.stpca" in err and "Traceback" not in err
    assert not (tmp_path / "x.py").exists()


# ------------------------------------------------------- issue 20: safe by construction
#: Text an attacker would put in a data set's name, source or column names.
NASTY = ['x"""\n__import__("os").system("touch PWNED")\n"""', '""""\nraise SystemExit(3)#',
         "a\x00b", "back\\", "tab\tcr\rlf\n", "quote'\"mix", "{__import__('os')}",
         "é ∑ 𝄞 \u2028 \u202e", "# comment", "\\N{BULLET}"]
NAME_TEXT = st.one_of(
    st.sampled_from(NASTY),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
    st.lists(st.sampled_from(['"', "'", "\\", "\n", "\r", "\x00", '"""', "é", "x", "{"]),
             max_size=12).map("".join))


def _copy_dataset(name: str) -> Dataset:
    """A data set with the text ``name`` everywhere text enters a script."""
    angles = make_demo("clusters-t2", random_state=0).angles[:30]
    return Dataset(angles=angles, column_names=(f"a{name}", f"b{name}"),
                   labels=np.array([f"{name}{k % 2}" for k in range(30)]),
                   source=f"/data/{name}.csv", description=name)


def _module_namespace(script: str, path: Path) -> dict:
    """Run a script's top level (imports, constants, functions; not main)."""
    namespace = {"__name__": "imported_script", "__file__": str(path)}
    exec(compile(script, str(path), "exec"), namespace)
    return namespace


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAME_TEXT)
def test_data_text_enters_scripts_only_as_literals(tmp_path, name):
    """issue 20 item 1: names with quotes, backslashes, newlines, NUL and Unicode give a
    script that compiles, runs nothing of theirs, and holds the text exactly."""
    import ast
    import datetime

    when = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    dataset = _copy_dataset(name)
    export = python_script(dataset, FitParameters(random_state=0),
                           script_path=tmp_path / "analysis.py", now=when)
    plain = python_script(_copy_dataset("plain"), FitParameters(random_state=0),
                          script_path=tmp_path / "analysis.py", now=when)
    # The docstring is ours alone: the same whatever the data's text.
    assert ast.get_docstring(ast.parse(export.script)) == ast.get_docstring(
        ast.parse(plain.script))
    namespace = _module_namespace(export.script, tmp_path / "analysis.py")
    assert namespace["DATA_NAME"] == dataset.name
    assert namespace["DATA_DESCRIPTION"] == (dataset.description or dataset.source)
    assert namespace["DATA_SOURCE"] == dataset.source
    assert namespace["COLUMNS"] == list(dataset.column_names)
    assert not (tmp_path / "PWNED").exists()


def test_scripts_with_hostile_names_run_and_reproduce(tmp_path):
    """Two hostile data sets exported and run as ``python SCRIPT --out DIR``: the payload
    never runs and the results are written (subprocesses: a few seconds each)."""
    for k, name in enumerate(NASTY[:2]):
        folder = tmp_path / f"run{k}"
        folder.mkdir()
        script = folder / f"weird{name[:3]!r}.py".replace("/", "_")
        dataset = _copy_dataset(name)
        export, written = export_script(dataset, FitParameters(random_state=0,
                                                               pns_mode="small",
                                                               torus_variance=False), script)
        assert export.data_origin == "copy" and written[0] == script
        done = subprocess.run([sys.executable, str(script), "--out", str(folder / "out")],
                              cwd=folder, capture_output=True, text=True,
                              timeout=SCRIPT_TIMEOUT_S, env={**os.environ,
                                                             "PYVISTA_OFF_SCREEN": "true"})
        assert done.returncode == 0, done.stderr
        assert not (folder / "PWNED").exists()
        _, labels, _ = _read_scores(folder / "out" / "scores.csv")
        np.testing.assert_array_equal(labels, dataset.labels)


def test_a_script_that_is_not_the_intended_one_is_refused(tmp_path, monkeypatch):
    """The ast check: a writer that let text through would be caught before writing."""
    from stpca_gui.model import script_export

    dataset = _copy_dataset("plain")
    monkeypatch.setattr(script_export._ScriptWriter, "_constants",
                        lambda self, origin: 'DATA_NAME = "x"\n__import__("os")\n'
                        'DATA_DESCRIPTION = "x"')
    with pytest.raises(script_export.ScriptSafetyError, match="intended statements"):
        export_script(dataset, FitParameters(random_state=0), tmp_path / "a.py")
    assert list(tmp_path.iterdir()) == []


def test_exports_never_write_over_the_users_files(tmp_path, capsys):
    """issue 20 items 3 and 5: the data copy beside ``angles.py`` would replace the user's
    ``angles-data.csv``; a script named as its source table would replace the table."""
    source = _table(tmp_path)  # angles.csv
    dataset = import_table(source, ImportChoices(columns=("phi", "psi"),
                                                 label_column="group", degrees=True))
    parameters = FitParameters(random_state=0)
    user = tmp_path / "analysis-data.csv"
    user.write_text("my,own\n1,2\n")
    with pytest.raises(OSError, match=r"stpca-gui did not write .*\(analysis-data\.csv\)"):
        export_script(dataset, parameters, tmp_path / "analysis.py")
    assert user.read_text() == "my,own\n1,2\n" and not (tmp_path / "analysis.py").exists()
    with pytest.raises(OSError, match="refusing to write the script over the data set's"):
        export_script(dataset, parameters, source)
    # An earlier data copy of the same name is ours to replace.
    _, written = export_script(dataset, parameters, tmp_path / "again.py")
    _, again = export_script(dataset, parameters, tmp_path / "again.py")
    assert written == again


def test_cli_export_script_refuses_to_replace_its_session(tmp_path, capsys):
    from stpca_gui.cli import main

    session = tmp_path / "work.stpca"
    assert main(["demo", "clusters-t2", "--pns-mode", "small", "--no-torus-variance",
                 "--save-session", str(session)]) == 0
    before = session.read_bytes()
    assert main(["export-script", str(session), str(session)]) == 1
    assert "refusing to write the script over the session file" in capsys.readouterr().err
    assert session.read_bytes() == before


def test_fit_save_session_records_the_table_options(tmp_path, capsys):
    """issue 20 item 11: scripts of `stpca fit --save-session` sessions always fell back to
    the data copy because the session did not say how the table was read."""
    from stpca_gui.cli import main
    from stpca_gui.model.session_file import load_session

    source = _table(tmp_path)
    session = tmp_path / "fit.stpca"
    assert main(["fit", str(source), "--columns", "phi,psi", "--label", "group", "--degrees",
                 "--drop-invalid", "--pns-mode", "small", "--no-torus-variance", "--seed",
                 "0", "--save-session", str(session)]) == 0
    dataset = load_session(session).dataset
    assert dataset.table_options == {"columns": ["phi", "psi"], "degrees": True,
                                     "label_column": "group", "drop_invalid": True,
                                     "row_filter": None}
    export = python_script(dataset, FitParameters(random_state=0),
                           script_path=tmp_path / "s.py")
    assert export.data_origin == "file", export.note


def test_each_data_source_is_one_registered_class():
    from stpca_gui.model.script_export import ScriptExport
    from stpca_gui.model.script_sources import SCRIPT_SOURCES, ScriptSource, script_source

    assert set(SCRIPT_SOURCES) == {"demo", "file", "structure", "copy"}
    assert all(cls.name == name for name, cls in SCRIPT_SOURCES.items())
    # Every source says how its script reads the data (the app shows it).
    for name in SCRIPT_SOURCES:
        export = ScriptExport(Path("/x/s.py"), "", {"s-data.csv": ""}, name, "a reason")
        assert export.reading_note().startswith("It ")
    copy = ScriptExport(Path("/x/s.py"), "", {"s-data.csv": ""}, "copy", "a reason")
    assert copy.reading_note() == "It reads the exact copy of the data, s-data.csv: a reason."

    class Another(ScriptSource):
        name = "demo"

    with pytest.raises(ValueError, match="two script data sources are named 'demo'"):
        script_source(Another)
    assert SCRIPT_SOURCES["demo"] is not Another
