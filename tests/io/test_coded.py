"""Coded text columns (stpca_gui.io.coded): they read as the text arrays they replace."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.io.coded import CodedColumn, factorize, smallest_integer_type
from stpca_gui.model.dataset import encode_labels, label_order
from stpca_gui.plotting.time_series import time_axis

TEXT = np.array(["run_b", "run_b", "run_a", "run_c", "run_a", "run_b"])


def test_a_coded_column_reads_as_its_text():
    column = CodedColumn.of_values(TEXT)
    assert column.codes.dtype == np.uint8 and column.nbytes == 6 + 3 * 5 * 4
    assert np.asarray(column).tolist() == TEXT.tolist() == column.tolist() == list(column)
    assert np.asarray(column).dtype == TEXT.dtype and column.shape == (6,) and len(column) == 6
    assert column[2] == "run_a" and column[1:3].tolist() == ["run_b", "run_a"]
    assert column[np.array([True, False] * 3)].tolist() == ["run_b", "run_a", "run_a"]
    assert (column == "run_b").tolist() == (TEXT == "run_b").tolist()
    assert (column != "run_b").tolist() == (TEXT != "run_b").tolist()
    assert (column == TEXT).all() and np.array_equal(column, TEXT)
    assert column.astype(object).tolist() == TEXT.tolist()
    assert np.unique(column).tolist() == ["run_a", "run_b", "run_c"]
    assert not column.codes.flags.writeable and not column.categories.flags.writeable


def test_factorize_and_label_encoding_equal_those_of_the_text():
    # categories in another order than sorted, one of them absent from the rows
    column = CodedColumn(np.array([2, 2, 0, 3, 0, 2]), np.array(["run_a", "x", "run_b",
                                                                "run_c"]))
    assert np.asarray(column).tolist() == TEXT.tolist()
    codes, names = factorize(column)
    assert names == ["run_a", "run_b", "run_c"]
    expected_codes, expected_names = factorize(TEXT)
    assert np.array_equal(codes, expected_codes) and names == expected_names
    natural = CodedColumn.of_values(["site 10", "site 2", "site 10", "II", "site 2"])
    text_codes, text_names = encode_labels(np.asarray(natural))
    coded_codes, coded_names = encode_labels(natural)
    assert coded_names == text_names == [["II", "site 10", "site 2"][k]
                                         for k in label_order(["II", "site 10", "site 2"])]
    assert np.array_equal(coded_codes, text_codes)


def test_time_axis_of_coded_runs_equals_that_of_text():
    n = len(TEXT)
    coded = time_axis(n, {"trajectory": CodedColumn.of_values(TEXT)})
    text = time_axis(n, {"trajectory": TEXT})
    assert coded.run_names == text.run_names == ["run_b", "run_a", "run_c"]  # first seen
    assert np.array_equal(coded.runs, text.runs) and coded.runs.tolist() == [0, 0, 1, 2, 1, 0]


@pytest.mark.parametrize(("codes", "categories", "message"), [
    (np.array([0, 3]), np.array(["a", "b"]), "run from 0 to 3, but there are 2 values"),
    (np.array([0, -1]), np.array(["a", "b"]), "run from -1 to 0"),
    (np.array([0.5]), np.array(["a"]), "whole numbers"),
    (np.array([0]), np.array(["a", "a"]), "repeat a value"),
    (np.array([0]), np.array([1.0]), "list of text"),
])
def test_damaged_codes_or_categories_are_refused(codes, categories, message):
    with pytest.raises(ValueError, match=message):
        CodedColumn(codes, categories)


def test_smallest_integer_type():
    assert smallest_integer_type(0, 255) == np.uint8
    assert smallest_integer_type(0, 256) == np.uint16
    assert smallest_integer_type(-1, 200) == np.int16
    assert smallest_integer_type(0, 70_000) == np.uint32
