"""The bundled sunspots data set: contents, cycle filter, and equality with its source table."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from stpca_gui.datasets import PAPER_CYCLE, Sunspots, load_sunspots
from stpca_gui.datasets._build import COLUMNS, FINGERPRINT, TARGET, build, column_digest
from stpca_gui.reproduce import paper_cycle_longitudes


def test_contents_match_the_documented_table():
    sunspots = load_sunspots()
    assert len(sunspots) == 51_303
    assert sunspots.cycles == tuple(range(11, 25))
    assert sunspots.theta.dtype == np.float64 and sunspots.cycle.dtype == np.int64
    assert 0.0 <= sunspots.theta.min() and sunspots.theta.max() < 2 * np.pi
    assert np.abs(sunspots.phi).max() < np.pi / 2
    assert "rotasym" in sunspots.source and "GPL-3" in sunspots.source
    assert "cycle 23" in sunspots.description


def test_paper_cycle():
    cycle = load_sunspots(cycle=PAPER_CYCLE)
    assert len(cycle) == 5373
    assert set(cycle.cycle.tolist()) == {23}
    assert np.unique(cycle.theta).size == 4970  # ties, as the data README says
    np.testing.assert_array_equal(cycle.theta, load_sunspots().of_cycle(23).theta)


def test_arrays_are_read_only_and_validated():
    sunspots = load_sunspots(cycle=24)
    with pytest.raises(ValueError, match="read-only"):
        sunspots.theta[0] = 0.0
    with pytest.raises(ValueError, match="no sunspot births in cycle 99"):
        sunspots.of_cycle(99)
    with pytest.raises(ValueError, match="one length"):
        Sunspots(np.zeros(2, dtype=np.int64), np.zeros(2), np.zeros(3))


def test_reproduce_reads_a_csv_override_like_the_bundled_data(tmp_path):
    sunspots = load_sunspots()
    path = tmp_path / "births.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["noaa", "cycle", "theta"])
        for i, (c, t) in enumerate(zip(sunspots.cycle.tolist(), sunspots.theta.tolist(),
                                       strict=True)):
            writer.writerow([f"G{i}", c, repr(t)])
    np.testing.assert_array_equal(paper_cycle_longitudes(path), paper_cycle_longitudes())


def test_bundle_gives_the_numbers_parsed_from_the_source_csv():
    """Checked without the source: the build recorded each column's digest as parsed from
    the full CSV, and the bundle must reproduce those bytes."""
    recorded = json.loads(FINGERPRINT.read_text())
    sunspots = load_sunspots()
    assert recorded["rows"] == len(sunspots)
    for name in COLUMNS:
        assert column_digest(getattr(sunspots, name)) == recorded["sha256"][name], name


def _read_source(path: Path) -> dict[str, np.ndarray]:
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    return {"cycle": np.array([int(r["cycle"]) for r in rows]),
            "theta": np.array([float(r["theta"]) for r in rows]),
            "phi": np.array([float(r["phi"]) for r in rows])}


def test_bundled_file_equals_its_source_bit_for_bit(full_sunspots_csv: Path, tmp_path):
    source = _read_source(full_sunspots_csv)
    sunspots = load_sunspots()
    for name in COLUMNS:
        bundled = getattr(sunspots, name)
        assert bundled.tobytes() == source[name].astype(bundled.dtype).tobytes(), name
    # The CSV route of `stpca reproduce --sunspots` gives the same longitudes.
    np.testing.assert_array_equal(paper_cycle_longitudes(full_sunspots_csv),
                                  paper_cycle_longitudes())
    # The build script is deterministic: rebuilding gives the committed bytes.
    rebuilt = tmp_path / TARGET.name
    assert build(full_sunspots_csv, rebuilt) == len(sunspots)
    assert rebuilt.read_bytes() == TARGET.read_bytes()
    assert (tmp_path / FINGERPRINT.name).read_text() == FINGERPRINT.read_text()
