"""The bundled small RNA data set (paper §5.2): contents, labelling rule, and its source."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from stpca_gui.datasets import SmallRna, load_small_rna
from stpca_gui.datasets._build import (
    SMALL_RNA_FINGERPRINT,
    SMALL_RNA_TARGET,
    build_small_rna,
    small_rna_digests,
)
from stpca_gui.datasets._small_rna import CLUSTERS, cluster_rule, read_bundled_table


def test_shape_columns_and_cluster_counts():
    rna = load_small_rna()
    assert rna.angles.shape == (190, 9) and rna.angles.dtype == np.float64
    assert rna.column_names == ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "chi",
                                "eta", "theta")
    assert rna.fitted_columns == rna.column_names[:7]
    assert rna.fitted_angles.shape == (190, 7)
    np.testing.assert_array_equal(rna.fitted_angles, rna.angles[:, :7])
    assert {name: int(np.sum(rna.cluster == name)) for name in CLUSTERS} == {
        "I": 59, "II": 88, "V": 43}
    # Radians: the source's degrees in (−180, 180].
    assert -np.pi < rna.angles.min() and rna.angles.max() <= np.pi
    assert np.abs(rna.angles).max() > 3.0
    assert "pscsne" in rna.source and "GPL-3" in rna.source and "Wadley" in rna.source


def test_clusters_follow_the_pseudotorsion_rule():
    rna = load_small_rna()
    eta, theta = rna.column("eta"), rna.column("theta")
    np.testing.assert_array_equal(cluster_rule(eta, theta), rna.cluster)
    theta_deg, eta_deg = np.degrees(theta), np.degrees(eta)
    assert np.all(rna.cluster[theta_deg > -60] == "I")
    assert np.all(rna.cluster[(theta_deg < -60) & (eta_deg > 0)] == "II")
    assert np.all(rna.cluster[(theta_deg < -60) & (eta_deg <= 0)] == "V")


def test_duplicate_rows_are_kept():
    rna = load_small_rna()
    distinct = np.unique(rna.angles, axis=0)
    assert len(rna) == 190 and distinct.shape[0] == 181


def test_arrays_are_read_only_and_validated():
    rna = load_small_rna()
    with pytest.raises(ValueError, match="read-only"):
        rna.angles[0, 0] = 0.0
    with pytest.raises(ValueError, match="one cluster"):
        SmallRna(np.zeros((3, 9)), np.array(["I", "II"]))


def test_bundle_gives_the_numbers_parsed_from_the_source_csv():
    recorded = json.loads(SMALL_RNA_FINGERPRINT.read_text())
    degrees, cluster = read_bundled_table()
    assert recorded["rows"] == degrees.shape[0] == 190
    assert small_rna_digests(degrees, cluster) == recorded["sha256"]


def test_bundled_file_equals_its_source(small_rna_csv: Path, tmp_path):
    with small_rna_csv.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    rna = load_small_rna()
    source = np.array([[float(row[name]) for name in rna.column_names] for row in rows])
    assert np.radians(source).tobytes() == rna.angles.tobytes()
    assert [row["cluster"] for row in rows] == rna.cluster.tolist()
    rebuilt = tmp_path / SMALL_RNA_TARGET.name
    assert build_small_rna(small_rna_csv, rebuilt) == 190
    assert rebuilt.read_bytes() == SMALL_RNA_TARGET.read_bytes()
    assert (tmp_path / SMALL_RNA_FINGERPRINT.name).read_text() == SMALL_RNA_FINGERPRINT.read_text()
