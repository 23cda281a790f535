"""The chunked table reader reads exactly what the whole-file reader reads."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.io import TableError, iter_angle_chunks, read_angle_table


def _table(path, *, header, delimiter):
    rng = np.random.default_rng(7)
    lines = [delimiter.join(["phi", "psi", "group"])] if header else []
    for k in range(103):
        lines.append(delimiter.join([f"{rng.uniform(-180, 180):.6f}",
                                     f"{rng.uniform(-180, 180):.6f}", f"g{k % 3}"]))
    lines[20] = delimiter.join(["1.0", "oops", "g0"])
    lines.insert(40, "")  # blank lines are skipped and keep the line numbering
    path.write_text("\ufeff" + "\r\n".join(lines) + "\r\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("header", "delimiter"), [(True, ","), (False, "\t"), (True, " ")])
def test_chunks_concatenate_to_the_whole_table(tmp_path, header, delimiter):
    path = _table(tmp_path / "angles.txt", header=header, delimiter=delimiter)
    label = "group" if header else "3"
    whole = read_angle_table(path, degrees=True, label_column=label, drop_invalid=True)
    names, chunks = iter_angle_chunks(path, degrees=True, label_column=label,
                                      drop_invalid=True, chunk_rows=17)
    chunks = list(chunks)
    assert names == whole.column_names
    assert [len(c.line_numbers) for c in chunks] == [17] * 5 + [17]
    np.testing.assert_array_equal(np.vstack([c.angles for c in chunks]), whole.angles)
    np.testing.assert_array_equal(np.concatenate([c.line_numbers for c in chunks]),
                                  whole.line_numbers)
    np.testing.assert_array_equal(np.concatenate([c.labels for c in chunks]), whole.labels)
    assert [d for c in chunks for d in c.dropped] == whole.dropped
    assert chunks[-1].bytes_read == path.stat().st_size


def test_a_bad_row_is_raised_when_its_chunk_is_read(tmp_path):
    path = _table(tmp_path / "angles.csv", header=True, delimiter=",")
    _, chunks = iter_angle_chunks(path, ["phi", "psi"], chunk_rows=10)
    first = next(chunks)
    assert len(first.line_numbers) == 10  # rows before the bad one are served
    with pytest.raises(TableError, match=r"angles.csv: line 21, column 'psi': non-numeric"):
        list(chunks)


def test_unknown_columns_fail_before_any_chunk(tmp_path):
    path = _table(tmp_path / "angles.csv", header=True, delimiter=",")
    with pytest.raises(TableError, match="no column named 'omega'"):
        iter_angle_chunks(path, ["phi", "omega"])


@pytest.mark.parametrize(("header", "delimiter"), [(True, ","), (False, "\t"), (True, " ")])
def test_plain_number_chunks_read_what_the_line_reader_reads(tmp_path, header, delimiter):
    # Without a label column, batches of plain numbers go through numpy's reader; the batch
    # with the bad row goes line by line. Values, lines and chunk ends are the same.
    path = _table(tmp_path / "angles.txt", header=header, delimiter=delimiter)
    columns = ["phi", "psi"] if header else ["1", "2"]
    whole = read_angle_table(path, columns, degrees=True, drop_invalid=True)
    _, chunks = iter_angle_chunks(path, columns, degrees=True, drop_invalid=True,
                                  chunk_rows=17)
    chunks = list(chunks)
    assert [len(c.line_numbers) for c in chunks] == [17] * 5 + [17]
    assert np.vstack([c.angles for c in chunks]).tobytes() == whole.angles.tobytes()
    np.testing.assert_array_equal(np.concatenate([c.line_numbers for c in chunks]),
                                  whole.line_numbers)
    assert [d for c in chunks for d in c.dropped] == whole.dropped
    assert chunks[-1].bytes_read == path.stat().st_size
    # Every batch but the bad row's was read by numpy: its chunk is the only short batch.
    assert [len(c.dropped) for c in chunks] == [0, 1, 0, 0, 0, 0]


def test_numbers_that_numpy_or_python_would_read_differently_go_line_by_line(tmp_path):
    path = tmp_path / "odd.csv"
    path.write_text('a,b\n1_000,2\n"3",nan\n0x1p3,4\n5,6\n')
    _, chunks = iter_angle_chunks(path, drop_invalid=True, chunk_rows=10)
    (chunk,) = list(chunks)
    # Python's float reads 1_000 (numpy's reader does not); neither path takes it for a
    # number (issue 29, item 3).
    np.testing.assert_array_equal(chunk.line_numbers, [5])
    assert [line for line, _ in chunk.dropped] == [2, 3, 4]
