"""The Qt-free table import shared by the import dialog and the command line."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.core import make_demo
from stpca_gui.model.table_import import ImportChoices, import_table, import_with_suggestions


@pytest.fixture
def degrees_table(tmp_path):
    data = make_demo("clusters-t2", random_state=0)
    lines = ["frame,phi,psi,group"]
    for k, (row, label) in enumerate(zip(np.rad2deg(data.angles), data.labels, strict=True)):
        lines.append(f"{k},{row[0]:.4f},{row[1]:.4f},g{label}")
    lines.insert(10, "9999,12.5,,g1")  # a row with a missing angle: skipped
    path = tmp_path / "angles.csv"
    path.write_text("\n".join(lines) + "\n")
    return path, data


def test_import_with_suggestions_reads_what_the_preview_suggests(degrees_table):
    path, data = degrees_table
    dataset = import_with_suggestions(path)
    assert dataset.column_names == ("phi", "psi")
    assert dataset.has_labels and set(dataset.label_names()) == {"g0", "g1", "g2"}
    assert [line for line, _ in dataset.dropped] == [11]
    np.testing.assert_allclose(dataset.angles, data.angles, atol=1e-4)  # degrees converted


def test_import_table_filters_and_builds_a_lagged_series(tmp_path):
    rng = np.random.default_rng(0)
    lines = ["cycle,theta,phi"]
    for cycle in (22, 23, 24):
        lines += [f"{cycle},{value:.5f},0.1" for value in rng.uniform(0, 2 * np.pi, 40)]
    path = tmp_path / "births.csv"
    path.write_text("\n".join(lines) + "\n")
    dataset = import_table(path, ImportChoices(columns=("theta",), row_filter=("cycle", "23"),
                                               lags=3))
    assert dataset.angles.shape == (38, 3)
    assert dataset.row_ids[0] == 42  # the first cycle-23 line of the file


@pytest.mark.parametrize("choices, message", [
    (ImportChoices(columns=()), "at least one angle column"),
    (ImportChoices(columns=("phi", "group"), label_column="group"), "both an angle"),
    (ImportChoices(columns=("phi",), row_filter=("group", " ")), "value to keep"),
    (ImportChoices(columns=("phi", "psi"), lags=3), "exactly one angle column"),
])
def test_contradictory_choices_are_messages(degrees_table, choices, message):
    path, _ = degrees_table
    with pytest.raises(ValueError, match=message):
        import_table(path, choices)


def test_unreadable_files_raise(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ValueError, match="empty"):
        import_with_suggestions(empty)
    with pytest.raises(ValueError, match="no such file"):  # a TableError is a ValueError
        import_with_suggestions(tmp_path / "missing.csv")


def test_a_file_with_no_usable_angle_column_names_the_file_and_why(tmp_path):
    # Issue 10, item 3: the file `stpca-gui x.csv` crashed on; opened from the command line
    # (the import dialog's suggestions) it must give a message naming the file.
    from stpca_gui.io import TableError

    path = tmp_path / "x.csv"
    path.write_text("nan,0.0,nan\n0.0\n0.0\n0.0\n0.0\n0.0,0.0\n")
    with pytest.raises(TableError) as info:
        import_with_suggestions(path)
    message = str(info.value)
    assert str(path) in message and "no column" in message
    assert "'nan' appears more than once" in message


def test_the_weight_column_is_named_frame_weights_not_provenance(tmp_path):
    # 'weight' is carried like trajectory and time, but it says how much a frame counts
    # (enhanced sampling), not where the row comes from.
    from stpca_gui.io.preview import preview_table

    rows = [f"{k * 10},{(k * 7) % 180 - 90},{(k * 13) % 360 - 180},{0.25 + k * 0.37:.2f}"
            for k in range(40)]
    path = tmp_path / "weighted.csv"
    path.write_text("time,phi,psi,weight\n" + "\n".join(rows) + "\n")
    preview = preview_table(path)
    assert "weight" not in preview.suggested_angle_columns
    notes = " ".join(preview.notes)
    assert "'weight' holds frame weights" in notes and "'time' says where the rows" in notes
    assert "'weight' says where" not in notes
    with pytest.raises(ValueError, match="'weight' holds frame weights"):
        import_table(path, ImportChoices(columns=("phi", "weight")))
