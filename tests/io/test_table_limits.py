"""Tables with hostile shapes get a clear message, never unbounded memory or a hang
(issue 29, item 3): line length and column caps, rows with more fields than the header,
``1_000``, implausible magnitudes, rows split only at ``\\n``/``\\r\\n``, FIFOs."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from stpca_gui.io import read_angle_table
from stpca_gui.io.preview import preview_table
from stpca_gui.io.tables import (
    MAX_COLUMNS,
    MAX_LINE_BYTES,
    TableError,
    iter_angle_chunks,
)


def _rows(n=5):
    return "".join(f"{0.1 * k},{0.2 * k}\n" for k in range(n))


def _chunked(path, **options):
    _, chunks = iter_angle_chunks(path, **options)
    return list(chunks)


READERS = [read_angle_table, _chunked]


@pytest.mark.parametrize("read", READERS)
def test_a_line_beyond_the_cap_is_refused_without_reading_it_whole(tmp_path, read):
    path = tmp_path / "long.csv"
    with open(path, "w") as handle:
        handle.write("a,b\n")
        handle.write("1" * (MAX_LINE_BYTES + 10) + "\n")
    with pytest.raises(TableError, match=r"line 2 is longer than 8 MiB"):
        read(path)


def test_too_many_columns_are_refused_with_the_limit(tmp_path):
    path = tmp_path / "wide.csv"
    width = MAX_COLUMNS + 1
    path.write_text(",".join(f"c{k}" for k in range(width)) + "\n"
                    + ("0.1," * width)[:-1] + "\n")
    with pytest.raises(TableError, match=f"{width:,} columns; .* at most {MAX_COLUMNS:,}"):
        read_angle_table(path)


@pytest.mark.parametrize("read", READERS)
@pytest.mark.parametrize(("last_row", "options", "message"), [
    ("0.1,0.2,0.3", {}, "line 7 has 3 fields, the header 2"),
    ("1_000,0.2", {}, "line 7, column 'a': non-numeric value '1_000'"),
    ("10,1e20", {"degrees": True}, "line 7, column 'b': 1e20 is not a plausible"),
], ids=["more fields than the header", "underscored number", "implausible magnitude"])
def test_a_bad_row_is_refused_naming_its_line_and_column(tmp_path, read, last_row, options,
                                                         message):
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n" + _rows() + last_row + "\n")
    with pytest.raises(TableError, match=message):
        read(path, **options)


def test_labels_with_unicode_line_separators_stay_in_their_row(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("a,b,g\n" + "".join(f"{0.1 * k},{0.2 * k},x\u2028y\u0085z{k}\n"
                                        for k in range(5)), encoding="utf-8")
    table = read_angle_table(path, label_column="g")
    assert table.angles.shape == (5, 2)
    assert table.labels[4] == "x\u2028y\u0085z4"
    assert preview_table(path).n_rows == 5


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
@pytest.mark.parametrize("read", [*READERS, preview_table])
def test_a_fifo_without_a_writer_is_refused_not_waited_on(tmp_path, read):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    outcome = []

    def attempt():
        try:
            read(fifo)
        except TableError as exc:
            outcome.append(str(exc))

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=20)
    if worker.is_alive():  # unblock the old behaviour's open() so the thread ends
        with open(fifo, "w"):
            pass
        worker.join(timeout=20)
        pytest.fail("reading a FIFO without a writer blocked")
    assert outcome and "not a regular file" in outcome[0]


def test_plain_tables_still_read_fast_path_and_slow_path_alike(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("a,b\n" + _rows(50))
    whole = read_angle_table(path).angles
    chunked = np.concatenate([c.angles for c in _chunked(path)])
    assert np.array_equal(whole, chunked) and whole.shape == (50, 2)
