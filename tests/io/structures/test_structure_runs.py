"""Several trajectory files of one topology read as runs, with their times (issue 33, item
1), on MDAnalysisTests' adenylate kinase split into two files; the structure record that
goes with a table (its sidecar) and the representatives taken from the right file."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
from structure_files import DCD, PSF, SPLIT, datafiles, mda, quiet_universe, write_halves

from stpca_gui.io.structures import (
    DihedralSettings,
    StructureError,
    read_sidecar,
    read_torsions,
    run_labels,
    sidecar_path,
)

LOOP = DihedralSettings(layout="per-frame", select="resid 7:13")


@pytest.fixture(scope="module")
def halves(tmp_path_factory):
    return write_halves(tmp_path_factory.mktemp("halves"))


def test_two_files_are_two_runs_with_their_times_and_the_angles_of_the_whole(halves):
    whole = read_torsions(PSF, [DCD], LOOP)
    runs = read_torsions(PSF, list(halves), LOOP)
    assert runs.run_labels == ("first.dcd", "second.dcd")
    assert runs.angles.shape == whole.angles.shape == (98, 14)
    assert np.array_equal(runs.angles, whole.angles)  # the same coordinates, bit for bit
    provenance = runs.provenance()
    assert provenance["trajectory"].tolist() == ["first.dcd"] * SPLIT + ["second.dcd"] * 49
    assert provenance["frame"].tolist() == list(range(SPLIT)) + list(range(49))
    # Times (ps) are each file's own, here continuing the whole's: DCD stores a start and a
    # step (in AKMA units, single precision), so they agree to 10⁻⁵ ps.
    assert np.allclose(provenance["time"], whole.frame_time, atol=1e-5)
    assert runs.frame_time[SPLIT] > runs.frame_time[SPLIT - 1]
    assert runs.header()[:3] == ["trajectory", "frame", "time"]
    assert "2 runs" in runs.describe() and "98 of 98 frames" in runs.describe()


def test_frames_apply_to_each_run_and_concatenation_keeps_the_old_numbering(halves):
    settings = DihedralSettings(select="resid 10:12", start=5, stop=40, stride=10)
    runs = read_torsions(PSF, list(halves), settings)
    assert runs.frames.tolist() == [5, 15, 25, 35] * 2
    assert runs.frame_run.tolist() == [0] * 4 + [1] * 4
    assert runs.angles.shape == (8 * 3, 2)
    whole = read_torsions(PSF, [DCD], DihedralSettings(select="resid 10:12"))
    per_frame = whole.angles.reshape(98, 3, 2)
    expected = per_frame[[5, 15, 25, 35, SPLIT + 5, SPLIT + 15, SPLIT + 25, SPLIT + 35]]
    assert np.array_equal(runs.angles, expected.reshape(-1, 2))
    # Concatenated: one run, frames numbered through, start/stop/stride over the whole.
    joined = read_torsions(PSF, list(halves), DihedralSettings(
        select="resid 10:12", start=5, stop=90, stride=10, concatenate=True))
    assert joined.run_labels == ("first.dcd+second.dcd",)
    assert joined.frames.tolist() == list(range(5, 90, 10))
    assert np.array_equal(joined.angles.reshape(-1, 3, 2), per_frame[5:90:10])
    assert "one run of 2 concatenated files" in joined.describe()


def test_run_labels_tell_files_of_one_name_apart(tmp_path):
    assert run_labels(["/data/run1/traj.xtc", "/data/run2/traj.xtc", "/data/a.dcd"]) == [
        "run1/traj.xtc", "run2/traj.xtc", "a.dcd"]
    assert run_labels(["/x/a/s/t.dcd", "/x/b/s/t.dcd"]) == ["a/s/t.dcd", "b/s/t.dcd"]
    assert run_labels(["/x/t.dcd", "/x/t.dcd", "/x/t.dcd"]) == ["t.dcd", "t.dcd#2", "t.dcd#3"]
    # Read twice from two folders: each run its own label, the same angles twice.
    for folder in ("r1", "r2"):
        (tmp_path / folder).mkdir()
        shutil.copy(DCD, tmp_path / folder / "adk.dcd")
    table = read_torsions(PSF, [tmp_path / "r1" / "adk.dcd", tmp_path / "r2" / "adk.dcd"],
                          DihedralSettings(select="resid 10", stop=3))
    assert table.run_labels == ("r1/adk.dcd", "r2/adk.dcd")
    assert np.array_equal(table.angles[:3], table.angles[3:])


def test_times_come_from_the_file_or_are_the_frame_index_said_so():
    xtc = read_torsions(datafiles.GRO, [datafiles.XTC], DihedralSettings(select="resid 10:12"))
    universe = quiet_universe(datafiles.GRO, datafiles.XTC)
    expected = [ts.time for ts in universe.trajectory]
    assert np.array_equal(xtc.frame_time, expected) and expected[1] > 99.0
    assert xtc.runs[0].time_unit == "ps"
    # The models of a PDB file have no time: the frame index stands in, and is said.
    models = read_torsions(datafiles.PDB_multiframe)
    assert models.frame_time.tolist() == list(range(24))
    assert models.runs[0].time_unit == "frame index"
    assert "time is the frame index" in models.describe()


def test_a_trajectory_of_another_topology_is_refused_naming_it(tmp_path, halves):
    with pytest.raises(StructureError, match=r"adk_oplsaa\.xtc: .*does not match the topology"):
        read_torsions(PSF, [halves[0], datafiles.XTC])
    with pytest.raises(StructureError, match=r"gone\.dcd: no such file"):
        read_torsions(PSF, [halves[0], tmp_path / "gone.dcd"])


def test_an_unreadable_time_is_refused_naming_the_file_and_frame(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        universe = mda.Universe(datafiles.GRO, datafiles.XTC)
        path = tmp_path / "nan_time.xtc"
        with mda.Writer(str(path), universe.atoms.n_atoms) as writer:
            for ts in universe.trajectory[:4]:
                if ts.frame == 2:
                    ts.time = float("nan")
                writer.write(universe.atoms)
    with pytest.raises(StructureError, match=r"nan_time\.xtc: frame 2 has no readable time"):
        read_torsions(datafiles.GRO, [path], DihedralSettings(select="resid 10"))


def test_a_table_carries_its_structure_record_in_a_sidecar(tmp_path, halves):
    table = read_torsions(PSF, list(halves), LOOP)
    written = table.write_csv(tmp_path / "loop.csv")
    assert written == [tmp_path / "loop.csv", tmp_path / "loop.csv.structure.json"]
    record = read_sidecar(tmp_path / "loop.csv")
    assert record["topology"] == str(PSF) and record["trajectories"] == list(map(str, halves))
    assert [run["label"] for run in record["runs"]] == ["first.dcd", "second.dcd"]
    assert [run["frames"] for run in record["runs"]] == [[SPLIT], [49]]
    assert record["table"] == str(tmp_path / "loop.csv")
    assert set(record["sha256"]) == {str(PSF), *map(str, halves)}
    # Tampered: a clear message naming the sidecar.
    document = json.loads(sidecar_path(tmp_path / "loop.csv").read_text())
    document["record"]["sha256"] = "0" * 64
    sidecar_path(tmp_path / "loop.csv").write_text(json.dumps(document))
    with pytest.raises(StructureError, match=r"loop\.csv\.structure\.json: the structure "
                                             r"record's sha256 is not an object"):
        read_sidecar(tmp_path / "loop.csv")


def test_a_table_fitted_later_keeps_the_fingerprints_and_representatives_check_them(
        tmp_path, halves):
    """Issue 29 item 8: a session fitted from a dihedrals table remembers the structure
    files; representatives come from the right run and refuse other files."""
    from stpca_gui.io.tables import read_angle_table
    from stpca_gui.model import Dataset
    from stpca_gui.model.structures import export_representatives

    local = [shutil.copy(path, tmp_path / Path(path).name) for path in halves]
    table = read_torsions(PSF, local, LOOP)
    table.write_csv(tmp_path / "loop.csv")
    read = read_angle_table(tmp_path / "loop.csv", degrees=True)
    assert read.column_names == table.column_names  # trajectory, frame, time never angles
    dataset = Dataset.from_table(read, degrees=True)
    assert dataset.structure["runs"][1]["label"] == "second.dcd"
    # Clusters: frames of the first half against the second.
    clusters = (np.arange(98) >= SPLIT).astype(int)
    out = tmp_path / "reps"
    written = export_representatives(dataset, clusters, out, atoms="resid 7:13")
    assert written.medoid_runs[2] == "second.dcd"  # label 1: cluster 2
    medoid = written.medoid_frames[2]
    whole = quiet_universe(PSF, DCD)
    whole.trajectory[SPLIT + medoid]
    pdb = quiet_universe(out / "cluster_2.pdb")
    assert np.allclose(pdb.atoms.positions, whole.select_atoms("resid 7:13").positions,
                       atol=1e-3)
    lines = (out / "clusters.csv").read_text().splitlines()
    assert lines[0] == "trajectory,time,frame,cluster,distance_to_medoid_deg,medoid"
    assert lines[1 + SPLIT].startswith("second.dcd,")
    # Another file in place of the recorded one: refused, nothing written.
    changed = bytearray(Path(local[1]).read_bytes())
    changed[-20:-12] = b"\x00" * 8
    Path(local[1]).write_bytes(bytes(changed))
    with pytest.raises(StructureError, match=r"second\.dcd: not the file .* another SHA-256"):
        export_representatives(dataset, clusters, tmp_path / "other")
    assert not (tmp_path / "other").exists()


def test_the_import_dialog_carries_provenance_and_the_record(tmp_path, halves):
    """Issue 29 item 9: provenance columns are never angles in the import dialog; they and
    the structure record reach the data set (and so sessions)."""
    from stpca_gui.io.preview import preview_table
    from stpca_gui.model.table_import import ImportChoices, import_table

    read_torsions(PSF, list(halves), LOOP).write_csv(tmp_path / "loop.csv")
    preview = preview_table(tmp_path / "loop.csv")
    assert preview.suggested_angle_columns[0] == "4AKE:GLY7:phi"
    assert not {"trajectory", "frame", "time"} & set(preview.suggested_angle_columns)
    assert any("'time' says where the rows come from" in note for note in preview.notes)
    dataset = import_table(tmp_path / "loop.csv", ImportChoices.suggested(preview))
    assert dataset.n_angles == 14
    assert dataset.provenance["trajectory"][SPLIT] == "second.dcd"
    assert dataset.structure["runs"][0]["label"] == "first.dcd"
    with pytest.raises(ValueError, match="'time' says where the rows come from"):
        import_table(tmp_path / "loop.csv", ImportChoices(columns=("time", "4AKE:GLY7:phi")))


def test_the_record_hashes_a_file_given_twice_once(tmp_path, monkeypatch):
    import stpca_gui.files.digest as digest_module

    first, _ = write_halves(tmp_path)
    table = read_torsions(PSF, [first, first], LOOP)
    hashed = []
    real = digest_module.file_sha256
    monkeypatch.setattr(digest_module, "file_sha256",
                        lambda path: hashed.append(path) or real(path))
    record = table.structure_record()
    assert len(hashed) == 2  # the topology and the one trajectory named twice
    assert record["sha256"][str(first.absolute())] == real(first)
    assert record["sha256"][str(PSF)] == real(PSF)
