"""Columns that hold no plausible angles are not proposed as angles (issue 31, item 5): one
rule (io/preview.py) for the import dialog's ticks and for ``stpca fit`` without
``--columns``, which says which columns it used and why it left the others out."""

from __future__ import annotations

import numpy as np
import pytest
from project_paths import REPO

from stpca_gui.cli import main
from stpca_gui.io.preview import preview_table
from stpca_gui.model.table_import import ImportChoices

EXAMPLE = REPO / "examples" / "angles.csv"


def test_the_example_tables_id_and_temperature_are_not_angles():
    preview = preview_table(EXAMPLE)
    assert preview.suggested_angle_columns == ("phi", "psi")
    skipped = dict(preview.skipped_columns)
    assert "row identifier" in skipped["id"]
    assert "4 distinct value(s)" in skipped["temp"]
    # The import dialog ticks the preview's suggestion.
    assert ImportChoices.suggested(preview).columns == ("phi", "psi")
    assert ImportChoices.suggested(preview).degrees


def _write(path, columns):
    names = list(columns)
    rows = zip(*columns.values(), strict=True)
    path.write_text(",".join(names) + "\n" + "".join(
        ",".join(str(v) for v in row) + "\n" for row in rows))
    return path


@pytest.mark.parametrize(("column", "values", "reason"), [
    ("sample", np.arange(10, 70), "integers counting up (10 to 69)"),
    ("dose", np.tile([0.5, 1.0, 2.0], 20), "only 3 distinct value(s)"),
    ("counts", np.random.default_rng(1).integers(-40_000, 40_000, 60), "beyond ±3600"),
    ("frame", np.arange(60) * 10, "provenance"),
])
def test_a_column_that_cannot_be_angles_is_left_out_with_why(tmp_path, column, values,
                                                            reason):
    rng = np.random.default_rng(0)
    path = _write(tmp_path / "t.csv", {
        "a": np.round(rng.uniform(-180, 180, 60), 2), column: values,
        "b": np.round(rng.uniform(-180, 180, 60), 2)})
    preview = preview_table(path)
    assert preview.suggested_angle_columns == ("a", "b")
    assert reason in dict(preview.skipped_columns)[column]


def test_real_angles_with_repeats_and_unwrapped_turns_stay_angles(tmp_path):
    rng = np.random.default_rng(2)
    path = _write(tmp_path / "t.csv", {
        "wind": rng.choice(np.arange(0, 360, 10), 80),  # 36 compass settings
        "unwrapped": np.round(np.cumsum(rng.normal(0, 40, 80)), 2)})  # a few turns
    assert preview_table(path).suggested_angle_columns == ("wind", "unwrapped")


def test_fit_without_columns_fits_the_plausible_angles_and_says_why(tmp_path, capsys):
    out = tmp_path / "results"
    code = main(["fit", str(EXAMPLE), "--degrees", "--label", "region", "--landmarks", "60",
                 "--no-torus-variance", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "angle columns    phi, psi; left out: id (looks like a row identifier)" in (
        captured.err)
    assert "temp (holds only 4 distinct value(s)" in captured.err
    assert "region (the label column)" in captured.err
    assert "(columns phi, psi)" in captured.out
    header = (out / "scores.csv").read_text().splitlines()[0].split(",")
    assert [h for h in header if h.startswith("PNS")] == ["PNS1", "PNS2"]


def test_fit_without_any_plausible_angle_column_says_so(tmp_path, capsys):
    path = _write(tmp_path / "t.csv", {"id": np.arange(1, 31), "k": np.tile([1, 2, 3], 10)})
    code = main(["fit", str(path), "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 1 and "no column holds plausible angles" in err and "--columns" in err
