"""The results set's CSV text (stpca_gui/io/export.py): one row per sample whatever the
labels hold."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from stpca_gui.io.coded import CodedColumn
from stpca_gui.io.export import _csv_text


@pytest.mark.parametrize("coded", [False, True])
def test_a_carriage_return_in_a_label_is_quoted_and_keeps_the_rows(coded):
    labels = np.array(["plain", "x\ry", "z,w", "plain"])
    column = CodedColumn.of_values(labels) if coded else labels
    text = _csv_text(["row", "label", "PNS1"], [np.arange(4), column, np.linspace(0, 1, 4)])
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == ["row", "label", "PNS1"]
    assert [r[1] for r in rows[1:]] == labels.tolist()
    assert text.count("\n") == 5 and "\r\n" not in text


def test_labels_without_carriage_returns_are_written_as_the_csv_module_does():
    labels = np.array(["a", "b,c", 'd"e'])
    text = _csv_text(["label", "x"], [CodedColumn.of_values(labels), np.array([0.5, 1.0, 2.0])])
    assert text == 'label,x\na,0.5\n"b,c",1.0\n"d""e",2.0\n'
