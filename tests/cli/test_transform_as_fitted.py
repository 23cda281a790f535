"""A model saved by ``stpca fit --save-model`` remembers how its table was read (issue 31,
item 4): ``stpca transform`` reads a new table with the same columns, unit and options by
default, and refuses one read otherwise unless ``--override``; a model file without the
record (the legacy file, the library's ``save``) is read as before, with a warning."""

from __future__ import annotations

import json
import re
import zipfile

import numpy as np
import pytest

from stpca_gui.cli import main
from stpca_gui.core import ScaledTorusPCA, make_demo, wrap_angles
from stpca_gui.core.persistence import INPUT_TABLE_KEY, METADATA_ENTRY, ModelFileError
from stpca_gui.io.table_reading import TableReading


def _table(path, angles_degrees, labels):
    """A table whose angle columns are not first and not alone: an id and a label too."""
    lines = ["id,grp,phi,psi,omega"] + [
        f"{k + 1},g{label}," + ",".join(repr(float(v)) for v in row)
        for k, (row, label) in enumerate(zip(angles_degrees, labels, strict=True))]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """A model fitted by the command line on degrees with a label, and a new table."""
    folder = tmp_path_factory.mktemp("as_fitted")
    data = make_demo("clusters-t3", random_state=0)
    new = make_demo("clusters-t3", random_state=5)
    train = _table(folder / "train.csv", np.rad2deg(data.angles[:150]), data.labels[:150])
    table = _table(folder / "new.csv", np.rad2deg(new.angles[:80]), new.labels[:80])
    model_path = folder / "model.stpca"
    code = main(["fit", str(train), "--columns", "phi,psi,omega", "--degrees", "--label",
                 "grp", "--landmarks", "60", "--no-torus-variance", "--save-model",
                 str(model_path)])
    assert code == 0
    return model_path, table, np.deg2rad(np.rad2deg(new.angles[:80])), new.labels[:80]


def _scores(path):
    table = np.genfromtxt(path, delimiter=",", names=True, dtype=None, encoding="utf-8")
    return table, np.column_stack([table[f"PNS{k}"] for k in (1, 2, 3)])


def test_transform_reads_the_table_as_the_model_was_fitted(fitted, tmp_path, capsys):
    model_path, table, angles, labels = fitted
    out = tmp_path / "scores.csv"
    # The README's form: no --columns, no --degrees, no --label.
    code = main(["transform", str(model_path), str(table), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "columns phi,psi,omega in degrees, labels from grp" in err
    rows, scores = _scores(out)
    np.testing.assert_array_equal(rows["label"], [f"g{k}" for k in labels])
    np.testing.assert_array_equal(scores, ScaledTorusPCA.load(model_path).transform(angles))


@pytest.mark.parametrize(("options", "message", "as_read"), [
    (["--radians"], r"fitted on angles in degrees, and --radians reads .* in radians",
     lambda values: wrap_angles(values)),
    (["--columns", "psi,phi,omega"], r"fitted on the columns phi,psi,omega, not psi,phi,omega",
     lambda values: wrap_angles(np.deg2rad(values[:, [1, 0, 2]]))),
])
def test_a_table_read_otherwise_is_refused_unless_overridden(fitted, tmp_path, capsys,
                                                             options, message, as_read):
    model_path, table, _, _ = fitted
    out = tmp_path / "scores.csv"
    code = main(["transform", str(model_path), str(table), *options, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and re.search(message, err) and "--override" in err, err
    assert not out.exists()
    code = main(["transform", str(model_path), str(table), *options, "--override",
                 "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    # Scored as told: the degrees as radians, or psi,phi,omega as the model's phi,psi,omega.
    written = np.genfromtxt(table, delimiter=",", names=True, encoding="utf-8")
    values = np.column_stack([written[name] for name in ("phi", "psi", "omega")])
    expected = ScaledTorusPCA.load(model_path).transform(as_read(values))
    np.testing.assert_allclose(_scores(out)[1], expected, rtol=0, atol=1e-12)


def test_a_table_without_the_models_columns_is_refused(fitted, tmp_path, capsys):
    model_path, table, _, _ = fitted
    renamed = tmp_path / "renamed.csv"
    renamed.write_text(table.read_text().replace("omega", "chi", 1))
    code = main(["transform", str(model_path), str(renamed), "--out", str(tmp_path / "s.csv")])
    err = capsys.readouterr().err
    assert code == 1 and "has no column(s) omega, which" in err and "--override" in err, err


def test_radians_model_refuses_degrees_values(tmp_path, capsys):
    data = make_demo("clusters-t3", random_state=0)
    train = _table(tmp_path / "train.csv", data.angles[:120], data.labels[:120])
    degrees = _table(tmp_path / "deg.csv", np.rad2deg(data.angles[:120]), data.labels[:120])
    model_path = tmp_path / "model.stpca"
    assert main(["fit", str(train), "--columns", "phi,psi,omega", "--landmarks", "60",
                 "--no-torus-variance", "--save-model", str(model_path)]) == 0
    out = tmp_path / "scores.csv"
    code = main(["transform", str(model_path), str(degrees), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and "fitted on angles in radians: are they degrees?" in err, err
    assert not out.exists()
    # Told what the model was fitted on (--radians), the radians table is scored as fitted.
    code = main(["transform", str(model_path), str(train), "--radians", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    expected = ScaledTorusPCA.load(model_path).transform(wrap_angles(data.angles[:120]))
    np.testing.assert_allclose(_scores(out)[1], expected, rtol=0, atol=1e-12)


def test_a_model_without_the_record_is_read_as_given_with_a_warning(test_data, tmp_path,
                                                                    capsys):
    legacy = test_data / "legacy" / "clusters_t3_model.stpca"
    expected = json.loads((test_data / "legacy" / "expected.json").read_text())
    angles = np.asarray(expected["angles"])[:20]
    table = tmp_path / "new.csv"
    table.write_text("a,b,c\n" + "".join(",".join(map(repr, row)) + "\n"
                                         for row in angles.tolist()))
    out = tmp_path / "scores.csv"
    code = main(["transform", str(legacy), str(table), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "does not record the columns and unit it was fitted on" in err
    # As tests/model/test_legacy_files.py: the vectorised kernel lands up to 1.2e-7 away.
    np.testing.assert_allclose(_scores(out)[1], expected["transform_first_20"],
                               rtol=0, atol=1e-6)


def test_info_says_what_the_model_was_fitted_on(fitted, capsys):
    model_path, _, _, _ = fitted
    assert main(["info", str(model_path)]) == 0
    assert re.search(r"fitted on\s+columns phi,psi,omega in degrees, labels grp",
                     capsys.readouterr().out)


@pytest.mark.parametrize("record", [
    [1, 2], {"columns": "phi", "unit": "degrees"}, {"columns": ["phi"], "unit": "grads"},
    {"columns": [], "unit": "radians"}, {"columns": ["phi"], "unit": "radians",
                                         "drop_invalid": "yes"},
    {"columns": ["phi"], "unit": "radians", "label_column": 3},
])
def test_a_damaged_record_is_a_message_naming_the_file(fitted, tmp_path, capsys, record):
    model_path, table, _, _ = fitted
    damaged = tmp_path / "damaged.stpca"
    with zipfile.ZipFile(model_path) as old, zipfile.ZipFile(damaged, "w") as new:
        for name in old.namelist():
            content = old.read(name)
            if name == METADATA_ENTRY:
                metadata = json.loads(content)
                metadata[INPUT_TABLE_KEY] = record
                content = json.dumps(metadata).encode()
            new.writestr(name, content)
    code = main(["transform", str(damaged), str(table), "--out", str(tmp_path / "s.csv")])
    err = capsys.readouterr().err
    assert code == 1 and f"{damaged}: damaged model file" in err and "Traceback" not in err


def test_the_record_round_trips():
    reading = TableReading(("phi", "psi"), True, "region", True)
    assert TableReading.from_record(reading.record(), "m.stpca") == reading
    with pytest.raises(ModelFileError, match=r"m\.stpca"):
        TableReading.from_record({"columns": ["phi"]}, "m.stpca")
