"""Data sets: from demos and tables, validation, label encoding and order."""

from __future__ import annotations

import math

import numpy as np
import pytest

from stpca_gui.core import make_demo
from stpca_gui.io import read_angle_table
from stpca_gui.model import (
    Dataset,
)


def test_dataset_from_demo():
    ds = Dataset.from_demo("clusters-t3", random_state=2)
    demo = make_demo("clusters-t3", random_state=2)
    assert ds.n_samples == 300 and ds.n_angles == 3
    assert np.array_equal(ds.angles, demo.angles)
    assert ds.source == "demo:clusters-t3" and ds.name == "clusters-t3" and ds.is_demo
    assert ds.column_names == ("theta1", "theta2", "theta3")
    assert ds.has_labels and ds.labels.dtype.kind == "U"
    assert np.array_equal(ds.label_codes(), demo.labels)
    assert ds.row_ids.tolist() == list(range(1, 301))
    assert ds.dropped == () and "T³" in ds.description
    assert not ds.angles.flags.writeable
    with pytest.raises(ValueError, match="valid names"):
        Dataset.from_demo("nope")


def test_dataset_from_table_with_degrees_labels_and_dropped_rows(tmp_path):
    path = tmp_path / "angles.csv"
    path.write_text("phi,psi,kind\n"
                    "-60,140,beta\n"
                    "-65,-40,alpha\n"
                    "oops,10,alpha\n"
                    "170,190,beta\n"
                    "-70,-35,gamma\n")
    table = read_angle_table(path, ["phi", "psi"], degrees=True, label_column="kind",
                             drop_invalid=True)
    ds = Dataset.from_table(table, degrees=True)
    assert ds.n_samples == 4 and ds.n_angles == 2
    assert ds.column_names == ("phi", "psi")
    assert ds.row_ids.tolist() == [2, 3, 5, 6]
    assert [line for line, _ in ds.dropped] == [4]
    assert ds.unit_note == "converted from degrees"
    assert ds.source == str(path) and ds.name == "angles.csv"
    assert np.allclose(ds.angles[0], np.deg2rad([-60, 140]))
    assert np.allclose(ds.angles[2], np.deg2rad([170, -170]))  # 190° wrapped
    assert ds.label_names() == ("alpha", "beta", "gamma")  # legends in natural order
    assert ds.label_codes().tolist() == [1, 0, 1, 2]
    assert "1 rows skipped" in ds.description

    plain = Dataset.from_table(read_angle_table(path, ["phi", "psi"], drop_invalid=True))
    assert not plain.has_labels and plain.label_codes().tolist() == [0, 0, 0, 0]
    assert "degrees" in plain.unit_note  # values beyond 2π read as radians


def test_dataset_validation():
    with pytest.raises(ValueError, match="2-D"):
        Dataset(angles=np.zeros(5))
    with pytest.raises(ValueError, match="column names"):
        Dataset(angles=np.zeros((5, 2)), column_names=("a",))
    with pytest.raises(ValueError, match="labels"):
        Dataset(angles=np.zeros((5, 2)), labels=["a"] * 4)
    ds = Dataset(angles=[[4.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert ds.angles[0, 0] == pytest.approx(4.0 - 2 * math.pi)
    assert ds.name == "untitled" and ds.column_names == ("theta1", "theta2")



@pytest.mark.parametrize(("labels", "names"), [
    (["II", "V", "I", "II"], ["I", "II", "V"]),  # the small RNA's clusters, by value
    (["IX", "V", "X", "IV"], ["IV", "V", "IX", "X"]),
    (["site 10", "site 2", "Site 1", "noise"], ["noise", "Site 1", "site 2", "site 10"]),
    ([3, 10, 1], ["1", "3", "10"]),
])
def test_labels_are_encoded_in_natural_order(labels, names):
    from stpca_gui.model.dataset import encode_labels

    codes, found = encode_labels(labels)
    assert found == names
    assert [found[c] for c in codes] == [str(label) for label in labels]


@pytest.mark.parametrize(("names", "expected"), [
    (["V", "I", "II", "IV", "XII"], ["I", "II", "IV", "V", "XII"]),  # clusters by value
    (["site 10", "site 2", "Site 1"], ["Site 1", "site 2", "site 10"]),  # numbers by value
    (["M", "C", "L", "D"], ["C", "D", "L", "M"]),  # amino-acid codes are letters
    (["II", "beta", "I"], ["beta", "I", "II"]),  # not all numerals: natural order
])
def test_label_order_reads_numerals_and_numbers_by_value(names, expected):
    from stpca_gui.model.dataset import encode_labels, label_order

    assert [names[k] for k in label_order(names)] == expected
    codes, ordered = encode_labels(np.array(names))
    assert ordered == expected
    assert [ordered[c] for c in codes] == names
