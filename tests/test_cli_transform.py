"""``stpca fit --save-model`` and ``stpca transform``: scores of new tables from a saved model,
streamed in chunks, with clear errors and no output left behind on bad input."""

from __future__ import annotations

import json
import re
import sys
import zipfile

import numpy as np
import pytest

from stpca_gui.cli import main
from stpca_gui.core import ScaledTorusPCA, make_demo
from stpca_gui.core.persistence import FORMAT_VERSION, METADATA_ENTRY


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

