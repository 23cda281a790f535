"""The pooled structure data set (a row per frame and residue): its provenance and labels
held as codes and small integers equal the text and int64 columns they replace, take a
known number of bytes per row, and survive a session (AdK of MDAnalysisTests in two runs)."""

from __future__ import annotations

import numpy as np
import pytest
from structure_files import PSF, SPLIT, write_halves

from stpca_gui.io.coded import CodedColumn
from stpca_gui.io.structures import DihedralSettings, read_torsions
from stpca_gui.model import AppState, FitParameters
from stpca_gui.model.dataset import Dataset, encode_labels
from stpca_gui.model.session_file import (
    SessionFileError,
    load_session,
    save_session,
    session_from_state,
)
from stpca_gui.model.structures import dataset_from_torsions

SETTINGS = DihedralSettings(layout="pooled")


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    return write_halves(tmp_path_factory.mktemp("adk"))


@pytest.fixture(scope="module")
def table(two_runs):
    return read_torsions(PSF, list(two_runs), SETTINGS)


@pytest.fixture(scope="module")
def pooled(table):
    return dataset_from_torsions(table)


def _row_positions(table):
    """(frame slot, residue) of every row, as the old provenance gathered them."""
    per = len(table.residues["resid"])
    positions = np.arange(table.n_rows) if table.kept is None else table.kept
    return positions // per, positions % per


def test_provenance_and_labels_equal_the_text_columns_value_for_value(table, pooled,
                                                                       two_runs):
    slots, residue = _row_positions(table)
    expected = {"trajectory": np.asarray(table.run_labels, dtype=str)[table.frame_run[slots]],
                "frame": table.frames[slots], "time": table.frame_time[slots],
                **{name: table.residues[name][residue]
                   for name in ("segid", "resid", "resname")}}
    provenance = pooled.provenance
    assert list(provenance) == list(expected)
    for name, values in expected.items():
        assert np.array_equal(np.asarray(provenance[name]), values), name
        assert np.asarray(provenance[name]).dtype.kind == values.dtype.kind or name in (
            "frame", "resid")
    # two runs of AdK's 98 frames: 49 each, frames counted from 0 in each run
    assert np.asarray(provenance["trajectory"]).tolist().count(two_runs[0].name) == (
        SPLIT * len(table.residues["resid"]))
    assert int(provenance["frame"].max()) == SPLIT - 1 and pooled.n_samples == 98 * 212
    labels = table.residues["residue_class"][residue]
    assert np.array_equal(np.asarray(pooled.labels), labels)
    codes, names = encode_labels(labels)  # the text's encoding, as before
    assert pooled.label_names() == tuple(names) and np.array_equal(pooled.label_codes(), codes)
    assert set(names) == {"Gly", "Pro", "pre-Pro", "other"}


def test_the_arrays_take_fourteen_bytes_a_row_beside_the_angles(pooled):
    provenance = pooled.provenance
    for name in ("trajectory", "segid", "resname"):
        assert isinstance(provenance[name], CodedColumn)
        assert provenance[name].codes.dtype == np.uint8
    assert isinstance(pooled.labels, CodedColumn) and pooled.labels.codes.dtype == np.uint8
    # frames 0…48 and resids 1…214 fit a byte; time stays float64
    assert provenance["frame"].dtype == np.uint8 and provenance["resid"].dtype == np.uint8
    n = pooled.n_samples
    held = sum(np.asarray(c.codes if isinstance(c, CodedColumn) else c).nbytes
               for c in [*provenance.values(), pooled.labels])
    assert held == 14 * n  # 8 (time) + 1 each: trajectory, frame, segid, resid, resname, label
    small = sum(c.categories.nbytes for c in [*provenance.values(), pooled.labels]
                if isinstance(c, CodedColumn))
    assert small < 1000  # 19 residue names, 2 runs, 1 segment, 4 classes
    assert pooled.angles.nbytes == 16 * n  # φ, ψ
    # nbytes counts codes and categories (the benchmark sums it; text took 4·(9+4+3+7) + 16)
    assert sum(c.nbytes for c in provenance.values()) + pooled.labels.nbytes == held + small


def test_a_session_of_the_pooled_data_set_round_trips(pooled, tmp_path):
    state = AppState()
    state.set_dataset(pooled)
    path = save_session(session_from_state(state, FitParameters(), {}, name="pooled"),
                        tmp_path / "pooled.stpca")
    loaded = load_session(path).dataset
    assert list(loaded.provenance) == list(pooled.provenance)
    for name, values in pooled.provenance.items():
        assert type(loaded.provenance[name]) is type(values)
        assert np.asarray(loaded.provenance[name]).dtype == np.asarray(values).dtype
        assert np.array_equal(np.asarray(loaded.provenance[name]), np.asarray(values)), name
    assert isinstance(loaded.labels, CodedColumn)
    assert np.array_equal(np.asarray(loaded.labels), np.asarray(pooled.labels))
    assert loaded.label_names() == pooled.label_names()
    assert loaded.structure == pooled.structure
    # angles 16, row ids 8, provenance and labels 14 bytes a row (text took 92 more)
    assert path.stat().st_size < 45 * pooled.n_samples


def test_a_session_of_text_columns_still_opens(pooled, tmp_path):
    """The sessions written before the coded columns held numpy text and int64."""
    old = Dataset(angles=pooled.angles, column_names=pooled.column_names,
                  labels=np.asarray(pooled.labels), source=pooled.source,
                  structure=pooled.structure,
                  provenance={name: np.asarray(values, dtype=np.int64 if name in (
                      "frame", "resid") else None) for name, values in pooled.provenance.items()})
    state = AppState()
    state.set_dataset(old)
    path = save_session(session_from_state(state, FitParameters(), {}, name="old"),
                        tmp_path / "old.stpca")
    loaded = load_session(path).dataset
    assert loaded.labels.dtype.kind == "U" and loaded.provenance["frame"].dtype == np.int64
    for name, values in pooled.provenance.items():
        assert np.array_equal(loaded.provenance[name], np.asarray(values)), name
    assert loaded.label_names() == pooled.label_names()


def test_damaged_codes_in_a_session_are_named(pooled, tmp_path):
    import io
    import zipfile

    state = AppState()
    state.set_dataset(pooled)
    path = save_session(session_from_state(state, FitParameters(), {}, name="pooled"),
                        tmp_path / "good.stpca")
    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    buffer = io.BytesIO()
    np.save(buffer, np.full(pooled.n_samples, 7, dtype=np.uint8))
    entries["arrays/dataset.provenance.trajectory.codes.npy"] = buffer.getvalue()
    damaged = tmp_path / "damaged.stpca"
    with zipfile.ZipFile(damaged, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    with pytest.raises(SessionFileError, match=r"damaged session file .*coded column run "
                       r"from 7 to 7, but there are 2 values"):
        load_session(damaged)
