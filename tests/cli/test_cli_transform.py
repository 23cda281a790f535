"""``stpca fit --save-model`` and ``stpca transform``: scores of new tables from a saved model,
streamed in chunks, with clear errors and no output left behind on bad input."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
import zipfile

import numpy as np
import pytest

from stpca_gui.cli import main
from stpca_gui.core import ScaledTorusPCA, make_demo
from stpca_gui.core.persistence import FORMAT_VERSION, METADATA_ENTRY
from stpca_gui.io.export import _csv_text


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory, clusters_t3):
    """A landmark model of the T³ clusters, fitted and saved once."""
    model = ScaledTorusPCA(n_landmarks=60, random_state=0, torus_variance=False).fit(
        clusters_t3.angles)
    return model, model.save(tmp_path_factory.mktemp("model") / "model.stpca")


@pytest.fixture(scope="module")
def new_table(tmp_path_factory):
    """200 new points in degrees with a label column, and their radians."""
    data = make_demo("clusters-t3", random_state=3)
    angles, labels = data.angles[:200], data.labels[:200]
    path = tmp_path_factory.mktemp("new") / "new.csv"
    lines = ["a,b,c,grp"] + [",".join([*map(repr, map(float, r)), f"g{label}"])
                             for r, label in zip(np.rad2deg(angles), labels, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path, np.deg2rad(np.rad2deg(angles)), labels


def _read_scores(path):
    return np.genfromtxt(path, delimiter=",", names=True, dtype=None, encoding="utf-8")


def test_transform_writes_the_models_scores_in_any_chunk_size(saved_model, new_table,
                                                              tmp_path, capsys):
    model, model_path = saved_model
    source, angles, labels = new_table
    expected = model.transform(angles)
    for chunk_rows in ("50000", "37"):
        out = tmp_path / chunk_rows / "scores.csv"
        code = main(["transform", str(model_path), str(source), "--degrees", "--label", "grp",
                     "--out", str(out), "--chunk-rows", chunk_rows])
        captured = capsys.readouterr()
        assert code == 0, captured.err
        assert "200 rows" in captured.err  # the progress bar
        table = _read_scores(out)
        assert list(table.dtype.names) == ["row", "label", "PNS1", "PNS2", "PNS3"]
        np.testing.assert_array_equal(table["row"], np.arange(2, 202))  # file lines
        np.testing.assert_array_equal(table["label"], [f"g{k}" for k in labels])
        scores = np.column_stack([table[f"PNS{k}"] for k in (1, 2, 3)])
        np.testing.assert_array_equal(scores, expected)  # repr() of floats round-trips


def test_unlabelled_scores_are_the_csv_modules_bytes_in_input_order(saved_model, new_table,
                                                                   tmp_path, capsys):
    # Without labels the rows are formatted by one % per row, and the chunks are scored
    # on a background thread ahead of the writing: the same bytes as the csv module's
    # writer (repr of every float), chunks in input order.
    model, model_path = saved_model
    source, angles, _ = new_table
    out = tmp_path / "scores.csv"
    code = main(["transform", str(model_path), str(source), "--degrees", "--columns", "a,b,c",
                 "--out", str(out), "--chunk-rows", "37"])
    assert code == 0, capsys.readouterr().err
    expected = io.StringIO()
    writer = csv.writer(expected, lineterminator="\n")
    writer.writerow(["row", "PNS1", "PNS2", "PNS3"])
    writer.writerows([row, *scores] for row, scores in
                     zip(range(2, 202), model.transform(angles).tolist(), strict=True))
    assert out.read_text(encoding="utf-8") == expected.getvalue()
    special = np.array([[0.0, -0.0, 1e-300, np.nan], [np.inf, -np.inf, 5e-324, 1e16]])
    assert _csv_text(None, [np.array([7, 8]), *special.T]) == "".join(
        ",".join(map(repr, [row, *values])) + "\n"
        for row, values in zip([7, 8], special.tolist(), strict=True))


def test_fit_saves_a_model_that_transform_reads(new_table, tmp_path, capsys):
    source, angles, _ = new_table
    model_path = tmp_path / "models" / "fit.stpca"
    code = main(["fit", str(source), "--columns", "a,b,c", "--degrees", "--landmarks", "60",
                 "--no-torus-variance", "--pns-mode", "small", "--save-model",
                 str(model_path)])
    assert code == 0, capsys.readouterr().err
    model = ScaledTorusPCA.load(model_path)
    assert model.n_landmarks_ == 60 and model.scores_.shape == (200, 3)
    # The points a landmark fit placed by the interpolation map get their fitted scores back.
    placed = np.setdiff1d(np.arange(200), model.landmark_indices_)
    np.testing.assert_allclose(model.transform(angles[placed]), model.scores_[placed],
                               rtol=0, atol=1e-12)


def test_fit_refuses_an_unwritable_model_path_before_fitting(new_table, tmp_path, capsys):
    source, _, _ = new_table
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code = main(["fit", str(source), "--degrees", "--columns", "a,b,c",
                 "--save-model", str(blocker / "model.stpca")])
    err = capsys.readouterr().err
    assert code == 1 and "not a folder" in err and "Traceback" not in err
    assert "samples n" not in capsys.readouterr().out  # no fit ran


def _newer_model(model_path, target):
    with zipfile.ZipFile(model_path) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            content = old.read(name)
            if name == METADATA_ENTRY:
                metadata = json.loads(content)
                metadata["format_version"] = FORMAT_VERSION + 1
                content = json.dumps(metadata).encode()
            new.writestr(name, content)
    return target


@pytest.mark.parametrize(("problem", "message"), [
    ("columns", r"2 angle column\(s\) \(a, b\), but the model .* was fitted on 3 angles"),
    ("nan", r"line 151, column 'b': non-numeric value 'nan'"),
    ("text", r"line 151, column 'c': non-numeric value 'oops'"),
    ("missing", r"line 151, column 'c': missing value"),
    ("newer model", rf"model file format {FORMAT_VERSION + 1}.*upgrade stpca-gui"),
    ("not a model", "not an stpca model file"),
    ("no input", "no such file"),
])
def test_bad_input_is_a_message_and_leaves_no_output(saved_model, new_table, tmp_path, capsys,
                                                     problem, message):
    _, model_path = saved_model
    source, _, _ = new_table
    lines = source.read_text().splitlines()
    if problem in ("nan", "text", "missing"):
        row = lines[150].split(",")
        if problem == "nan":
            row[1] = "nan"
        else:
            row[2] = "oops" if problem == "text" else ""
        lines[150] = ",".join(row)
    source = tmp_path / "input.csv"
    source.write_text("\n".join(lines) + "\n")
    columns = ["--columns", "a,b"] if problem == "columns" else ["--columns", "a,b,c"]
    if problem == "newer model":
        model_path = _newer_model(model_path, tmp_path / "newer.stpca")
    if problem == "not a model":
        model_path = source
    if problem == "no input":
        source = tmp_path / "absent.csv"
    out = tmp_path / "scores.csv"
    out.write_text("old scores\n")
    code = main(["transform", str(model_path), str(source), "--degrees", *columns,
                 "--out", str(out), "--chunk-rows", "40"])
    err = capsys.readouterr().err
    assert code == 1
    assert "Traceback" not in err
    assert re.search(message, err), err
    assert out.read_text() == "old scores\n"  # the old file is kept, nothing half-written
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_drop_invalid_skips_bad_rows_and_says_so(saved_model, new_table, tmp_path, capsys):
    _, model_path = saved_model
    source, _, _ = new_table
    lines = source.read_text().splitlines()
    lines[10] = "1,oops,3,g0"
    bad = tmp_path / "input.csv"
    bad.write_text("\n".join(lines) + "\n")
    out = tmp_path / "scores.csv"
    code = main(["transform", str(model_path), str(bad), "--degrees", "--columns", "a,b,c",
                 "--drop-invalid", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "skipped: " in err and "line 11, column 'b'" in err
    rows = _read_scores(out)["row"]
    assert len(rows) == 199 and 11 not in rows


def test_scheduler_without_dask_is_a_clear_message(saved_model, new_table, tmp_path, capsys,
                                                    monkeypatch):
    _, model_path = saved_model
    source, _, _ = new_table
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails as if not installed
    out = tmp_path / "scores.csv"
    code = main(["transform", str(model_path), str(source), "--degrees", "--columns", "a,b,c",
                 "--out", str(out), "--scheduler", "tcp://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert code == 1 and "needs dask.distributed" in err and "stpca-gui[distributed]" in err
    assert not out.exists()



# --------------------------------------------------------------- hostile model files
def _rewrite_arrays(model_path, target, arrays=None, tree=None):
    """A copy of a model file with some arrays replaced (and the tree changed)."""
    import io

    with zipfile.ZipFile(model_path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    for name, array in (arrays or {}).items():
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, array(np.lib.format.read_array(
            io.BytesIO(entries[name]))))
        entries[name] = buffer.getvalue()
    if tree is not None:
        metadata = json.loads(entries[METADATA_ENTRY])
        tree(metadata["tree"]["attributes"])
        entries[METADATA_ENTRY] = json.dumps(metadata).encode()
    with zipfile.ZipFile(target, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return target


def _set_radius(attributes):
    attributes["match_"]["fields"]["radius"] = {"$type": "float", "value": "inf"}


def _nan_at(array):
    array = array.astype(float)
    array.flat[1] = np.nan
    return array


@pytest.mark.parametrize(("arrays", "tree", "message"), [
    # issue 20 item 2: more SMDS rows than angles made the prediction kernel write out of
    # bounds (double free, SIGSEGV).
    ({"arrays/smds_.embedding_.npy": lambda a: np.vstack([a] * 5)}, None,
     r"match_.embedding has shape \(300, 4\); the fit implies \(60, 4\)"),
    ({"arrays/smds_.embedding_.npy": _nan_at}, None, "match_.embedding holds NaN"),
    ({"arrays/pns_.mean_.npy": lambda a: np.full_like(a, np.inf)}, None,
     "pns_.mean_ holds NaN or infinite"),
    ({"arrays/pns_.rotations_.0.npy": _nan_at}, None, r"pns_.rotations_\[0\] holds NaN"),
    ({"arrays/pns_.rotations_.0.npy": lambda a: np.eye(2)}, None,
     r"pns_.rotations_\[0\] has shape \(2, 2\); the fit implies \(4, 4\)"),
    ({}, _set_radius, "match_.radius is inf"),
    ({"arrays/smds_.angles_.npy": lambda a: (a * 100).astype(np.int64)}, None,
     "match_.angles holds int64 values, not float64"),
    ({"arrays/smds_.angles_.npy": lambda a: a.astype(complex)}, None,
     "match_.angles holds complex128 values"),
], ids=["rows", "nan-embedding", "inf-mean", "nan-rotation", "rotation-shape", "inf-radius",
        "int-angles", "complex-angles"])
def test_model_arrays_that_do_not_make_a_fit_are_refused_naming_the_model(
        saved_model, new_table, tmp_path, capsys, arrays, tree, message):
    """Shapes, dtype kinds and finiteness are checked on load, before any kernel runs
    (issue 20 items 2, 8 and 11: malformed models name the model file)."""
    _, model_path = saved_model
    source = new_table[0]
    bad = _rewrite_arrays(model_path, tmp_path / "bad.stpca", arrays, tree)
    out = tmp_path / "scores.csv"
    code = main(["transform", str(bad), str(source), "--degrees", "--label", "grp",
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and not out.exists()
    assert f"{bad}: damaged model file" in err and re.search(message, err), err
    assert "Traceback" not in err and "input" not in err.split(str(bad))[0]


def test_transform_never_writes_over_its_inputs(saved_model, new_table, tmp_path, capsys):
    """issue 20 item 4: ``--out`` equal to the input table (or the model, or a hard link of
    either) is refused before anything is written."""
    import os
    import shutil

    _, model_path = saved_model
    table = shutil.copy(new_table[0], tmp_path / "T.csv")
    linked = tmp_path / "linked.csv"
    os.link(table, linked)
    before = table.read_bytes()
    for out in (table, linked, tmp_path / "." / "T.csv", model_path):
        code = main(["transform", str(model_path), str(table), "--degrees", "--label", "grp",
                     "--out", str(out)])
        err = capsys.readouterr().err
        assert code == 1 and "refusing to write the scores table over" in err, err
    assert table.read_bytes() == before


def test_a_session_given_to_transform_says_what_it_is(tmp_path, capsys, new_table):
    session = tmp_path / "work.stpca"
    assert main(["demo", "clusters-t2", "--pns-mode", "small", "--no-torus-variance",
                 "--save-session", str(session)]) == 0
    capsys.readouterr()
    code = main(["transform", str(session), str(new_table[0]), "--out",
                 str(tmp_path / "s.csv")])
    err = capsys.readouterr().err
    assert code == 1 and f"{session}: this is an stpca session file" in err, err


def test_carriage_returns_in_labels_keep_one_row_per_sample(saved_model, tmp_path, capsys):
    """issue 20 item 10: csv.writer does not quote a lone \\r with "\\n" line ends."""
    import csv

    _, model_path = saved_model
    table = tmp_path / "cr.csv"
    rows = make_demo("clusters-t3", random_state=4).angles[:5]
    table.write_text("a,b,c,grp\n" + "".join(
        f"{a:.6f},{b:.6f},{c:.6f},\"x\ry{k}\"\n" for k, (a, b, c) in enumerate(rows)),
        encoding="utf-8")
    out = tmp_path / "scores.csv"
    assert main(["transform", str(model_path), str(table), "--label", "grp", "--out",
                 str(out)]) == 0
    with open(out, newline="", encoding="utf-8") as handle:
        read = list(csv.reader(handle))
    assert len(read) == 6 and [row[1] for row in read[1:]] == [f"x\ry{k}" for k in range(5)]
