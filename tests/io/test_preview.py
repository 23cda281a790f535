"""Table preview for the import dialog: layout detection, statistics and suggestions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stpca_gui.io.preview import delimiter_name, preview_table, sniff_format, split_cells
from stpca_gui.io.tables import TableError, read_angle_table


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


ROWS = [(-1.0, 2.5, "a"), (0.5, -3.0, "b"), (2.0, 1.0, "a"), (-2.5, 0.25, "c")]


@pytest.mark.parametrize(("delimiter", "name"), [
    (",", "comma"), ("\t", "tab"), (";", "semicolon"), (" ", "whitespace")])
@pytest.mark.parametrize("header", [True, False])
def test_delimiters_with_and_without_header(tmp_path, delimiter, name, header):
    sep = "   " if delimiter == " " else delimiter  # runs of spaces
    lines = [sep.join(["phi", "psi", "tag"])] if header else []
    lines += [sep.join(str(c) for c in row) for row in ROWS]
    path = write(tmp_path, "t.txt", "\n".join(lines) + "\n")
    preview = preview_table(path)
    assert preview.delimiter_name == name
    assert preview.has_header is header
    names = ("phi", "psi", "tag") if header else ("1", "2", "3")
    assert preview.column_names == names and preview.n_columns == 3
    assert preview.n_rows == 4
    assert preview.rows[1] == ("0.5", "-3.0", "b")
    assert preview.row_lines == ((2, 3, 4, 5) if header else (1, 2, 3, 4))
    assert preview.numeric_fraction == (1.0, 1.0, 0.0)
    assert preview.minimum[:2] == (-2.5, -3.0) and preview.maximum[:2] == (2.0, 2.5)
    assert math.isnan(preview.minimum[2]) and math.isnan(preview.maximum[2])
    assert preview.suggested_angle_columns == names[:2]
    assert preview.suggested_label_column == names[2]
    assert preview.suggested_unit == "radians"
    assert preview.suggested_range == "[−π, π)"
    assert preview.notes == ()
    # The suggestions are directly usable by the reader.
    table = read_angle_table(path, list(preview.suggested_angle_columns),
                             label_column=preview.suggested_label_column)
    assert table.angles.shape == (4, 2) and table.labels.tolist() == ["a", "b", "a", "c"]


def test_degrees_detection_names_the_column_and_the_limit(tmp_path):
    path = write(tmp_path, "rama.csv", "residue,phi,psi\n"
                 "ALA,-63.5,-41.2\nGLY,80.1,170.3\nSER,-120.0,130.9\nALA,-70.2,-35.0\n")
    preview = preview_table(path)
    assert preview.suggested_unit == "degrees"
    assert "'psi'" in preview.unit_reason and "170.3" in preview.unit_reason
    assert "2π" in preview.unit_reason
    assert preview.suggested_range == "[−180, 180)"
    assert preview.suggested_label_column == "residue" and "text" in preview.label_reason
    assert preview.suggested_angle_columns == ("phi", "psi")


@pytest.mark.parametrize(("values", "unit", "convention"), [
    ([0.1, 3.5, 6.2, 1.0], "radians", "[0, 2π)"),
    ([-3.1, 0.0, 3.1, 1.0], "radians", "[−π, π)"),
    ([10.0, 200.0, 359.0, 90.0], "degrees", "[0, 360)"),
    ([-179.0, 20.0, 150.0, -90.0], "degrees", "[−180, 180)"),
    ([-300.0, 20.0, 400.0, 0.0], "degrees", None),
    ([-4.0, 0.0, 5.0, 1.0], "radians", None),
])
def test_range_convention(tmp_path, values, unit, convention):
    body = "".join(f"{v},{v}\n" for v in values)
    preview = preview_table(write(tmp_path, "r.csv", "a,b\n" + body))
    assert preview.suggested_unit == unit
    assert preview.suggested_range == convention
    assert str(min(values)).rstrip("0").rstrip(".") in preview.range_reason


def test_radians_reason(tmp_path):
    preview = preview_table(write(tmp_path, "r.csv", "a,b\n0.1,0.2\n-1,2\n3,-3\n"))
    assert preview.suggested_unit == "radians"
    assert "within ±2π" in preview.unit_reason and "3" in preview.unit_reason


def test_label_column_by_name_before_other_candidates(tmp_path):
    rng = np.random.default_rng(0)
    lines = ["note,x,y,cluster"]
    for k in range(30):
        x, y = rng.uniform(-3, 3, 2)
        lines.append(f"n{k},{x:.3f},{y:.3f},{k % 3}")
    preview = preview_table(write(tmp_path, "c.csv", "\n".join(lines) + "\n"))
    # "note" is text, but a column named "cluster" wins; it is not an angle column.
    assert preview.suggested_label_column == "cluster" and "named" in preview.label_reason
    assert preview.suggested_angle_columns == ("x", "y")


def test_low_cardinality_integer_column_is_a_label(tmp_path):
    rng = np.random.default_rng(1)
    lines = ["id,a,b,k"]
    for k in range(40):
        a, b = rng.uniform(0, 6, 2)
        lines.append(f"{k + 1},{a:.4f},{b:.4f},{k % 4 + 1}")
    preview = preview_table(write(tmp_path, "k.csv", "\n".join(lines) + "\n"))
    assert preview.suggested_label_column == "k" and "4 distinct integers" in preview.label_reason
    assert preview.suggested_angle_columns == ("a", "b")  # "id" is a row identifier
    assert any("'id'" in note and "identifier" in note for note in preview.notes)
    assert preview.suggested_range == "[0, 2π)"


def test_no_label_column(tmp_path):
    preview = preview_table(write(tmp_path, "n.csv", "1.5,2.5\n0.1,0.2\n-1,-2\n"))
    assert preview.suggested_label_column is None and preview.suggested_angle_columns == ("1", "2")
    assert preview.has_header is False


def test_a_bad_cell_still_previews(tmp_path):
    path = write(tmp_path, "bad.csv", "phi,psi\n0.1,0.2\n0.3,abc\n0.5,0.6\n,0.8\n0.9,1.0\n")
    preview = preview_table(path)
    assert preview.suggested_angle_columns == ("phi", "psi")
    assert preview.numeric_fraction == (0.8, 0.8)
    assert preview.rows[1] == ("0.3", "abc") and preview.rows[3] == ("", "0.8")
    assert preview.maximum == (0.9, 1.0)
    assert any("'psi'" in n and "line 3" in n and "'abc'" in n for n in preview.notes)
    assert any("'phi'" in n and "1 cell" in n for n in preview.notes)
    with pytest.raises(TableError, match="line 3"):
        read_angle_table(path)


def test_short_rows_are_padded_and_noted(tmp_path):
    body = "".join(f"{k / 10},{k / 20},{k / 30}\n" for k in range(40))
    text = "a,b,c\n" + body + "4,5\n7,8,9,10\n" + body
    preview = preview_table(write(tmp_path, "s.csv", text))
    assert preview.delimiter_name == "comma"
    assert preview.rows[40] == ("4", "5", "") and preview.rows[41] == ("7", "8", "9")
    assert any("line 42: 2 cells" in n for n in preview.notes)
    assert any("line 43: 4 cells" in n for n in preview.notes)


def test_ragged_small_file_still_finds_the_delimiter(tmp_path):
    # Too few lines for csv.Sniffer, which gives up on the ragged ones; the fallback
    # takes the delimiter present on most lines and the ragged rows are pointed out.
    preview = preview_table(write(tmp_path, "s.csv", "a,b,c\n1,2,3\n4,5\n7,8,9,10\n"))
    assert preview.delimiter_name == "comma"
    assert preview.column_names == ("a", "b", "c")
    assert preview.notes


def test_statistics_cover_the_whole_file_but_rows_are_capped(tmp_path):
    values = np.linspace(-3, 3, 1000)
    text = "x,y\n" + "".join(f"{v:.6f},{-v:.6f}\n" for v in values)
    preview = preview_table(write(tmp_path, "big.csv", text), max_rows=10)
    assert len(preview.rows) == 10 and preview.n_rows == 1000
    assert preview.minimum == (-3.0, -3.0) and preview.maximum == (3.0, 3.0)


def test_decimal_commas_are_pointed_out(tmp_path):
    preview = preview_table(write(tmp_path, "eu.csv", "phi;psi\n1,5;2,5\n-1,25;0,5\n3,0;1,0\n"))
    assert preview.delimiter_name == "semicolon"
    assert any("decimal commas" in note for note in preview.notes)


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such file"),
    ("", "empty"),
    ("\n  \n", "empty"),
    ("phi,psi\n", "no data rows"),
])
def test_errors_name_the_file(tmp_path, content, message):
    path = tmp_path / "t.csv"
    if content is not None:
        path.write_text(content)
    with pytest.raises(TableError, match=message) as info:
        preview_table(path)
    assert str(path) in str(info.value)


def test_binary_file_is_a_table_error(tmp_path):
    path = tmp_path / "b.csv"
    path.write_bytes(b"\xff\xfe\xfa\x00\x81")
    with pytest.raises(TableError, match="cannot be read as text"):
        preview_table(path)


def test_public_helpers():
    assert sniff_format("a,b\n1,2\n3,4\n") == (",", True)
    assert split_cells(" 1 ,2", ",") == ["1", "2"]
    assert split_cells("1   2\t3", None) == ["1", "2", "3"]
    assert delimiter_name("\t") == "tab" and delimiter_name(None) == "whitespace"


def test_a_repeated_header_name_over_ragged_rows_previews(tmp_path):
    # Issue 10, item 3: this file raised IndexError (and stpca-gui FILE showed a traceback).
    path = write(tmp_path, "x.csv", "nan,0.0,nan\n0.0\n0.0\n0.0\n0.0\n0.0,0.0\n")
    preview = preview_table(path)
    assert preview.column_names == ("nan", "0.0", "nan")
    # A repeated name cannot be read by name, so it is not suggested, and the notes say why.
    assert "nan" not in preview.suggested_angle_columns
    assert preview.suggested_label_column != "nan"
    assert any("'nan'" in note and "more than once" in note for note in preview.notes)


def test_a_repeated_name_is_not_suggested_but_the_other_columns_are(tmp_path):
    path = write(tmp_path, "d.csv", "phi,psi,phi,group\n" + "".join(
        f"{0.1 * k},{-0.2 * k},{0.3 * k},g{k % 2}\n" for k in range(6)))
    preview = preview_table(path)
    assert preview.suggested_angle_columns == ("psi",)
    assert preview.suggested_label_column == "group"
    table = read_angle_table(path, list(preview.suggested_angle_columns),
                             label_column=preview.suggested_label_column)
    assert table.angles.shape == (6, 1)


def test_a_field_beyond_the_csv_size_limit_is_a_table_error(tmp_path):
    path = write(tmp_path, "long.csv", "a,b\n1," + "9" * 200_000 + "\n2,3\n4,5\n")
    for read in (preview_table, read_angle_table):
        with pytest.raises(TableError) as info:
            read(path)
        assert str(path) in str(info.value)


# Small text tables built from awkward pieces: delimiters of every kind, quotes, numbers,
# non-finite values, unicode, blank lines and ragged rows.
_CELLS = st.one_of(
    st.sampled_from(["", "0", "0.0", "1.5", "-3.25", "370", "1e-9", "nan", "NaN", "inf",
                     "-inf", "1_000", "1,5", "abc", "φ", "ψ angle", '"', '"a,b"', "  ",
                     "label", "id", "group", "\u00a0", "\ufeff", "#"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"),
            max_size=6),
)
_DELIMITERS = st.sampled_from([",", ";", "\t", "|", " ", "  ", ", ", ":"])
_LINES = st.lists(st.lists(_CELLS, min_size=0, max_size=5), min_size=0, max_size=8)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=_LINES, delimiter=_DELIMITERS, mixed=st.booleans())
def test_fuzzed_tables_give_a_preview_or_a_table_error(tmp_path, lines, delimiter, mixed):
    from stpca_gui.model.table_import import import_with_suggestions

    separators = [",", ";", "\t", " "] if mixed else [delimiter]
    text = "\n".join(separators[k % len(separators)].join(cells)
                     for k, cells in enumerate(lines))
    path = tmp_path / "fuzz.csv"
    path.write_text(text, encoding="utf-8")
    try:
        preview = preview_table(path)
    except TableError as exc:
        assert str(path) in str(exc)
        return
    width = preview.n_columns
    assert all(len(row) == width for row in preview.rows)
    assert len(preview.numeric_fraction) == len(preview.minimum) == width
    assert set(preview.suggested_angle_columns) <= set(preview.column_names)
    assert preview.suggested_label_column not in preview.suggested_angle_columns
    for name in (*preview.suggested_angle_columns, preview.suggested_label_column):
        assert name is None or preview.column_names.count(name) == 1
    try:
        read_angle_table(path)
    except TableError as exc:
        assert str(path) in str(exc)
    # What the command line does with the file: a data set or a message, nothing else.
    try:
        import_with_suggestions(path)
    except ValueError as exc:  # TableError is a ValueError
        assert str(exc)
