"""Bad and large input on the structure surfaces (issue 29, items 4, 5, 6, 8, 9): memory
refused before allocating and bounded while reading, selections whose cost is bounded,
undefined torsions left out and named, truncated and corrupt trajectories reported."""

from __future__ import annotations

import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest
from structure_files import DCD, PSF, datafiles, mda, quiet_universe

from stpca_gui.io.structures import (
    DihedralSettings,
    StructureError,
    read_torsions,
    select_atoms,
)


def test_a_table_beyond_the_memory_available_is_refused_before_reading(monkeypatch):
    from stpca_gui.io.structures import reading

    monkeypatch.setattr(reading, "available_memory_bytes", lambda: 100_000)
    events = []
    with pytest.raises(StructureError) as refused:
        read_torsions(PSF, [DCD], callback=events.append)
    message = str(refused.value)
    assert message.startswith("adk_dims.dcd: reading 98 frames gives 20,776 rows × 2 torsions")
    assert all(option in message for option in ("--stride", "--stop", "--select"))
    assert events == []  # refused before the first frame was read
    monkeypatch.setattr(reading, "available_memory_bytes", lambda: None)  # unknown: read
    assert read_torsions(PSF, [DCD], DihedralSettings(stop=2)).n_rows == 2 * 212


def _backbone_trajectory(folder: Path, n_frames: int) -> tuple[Path, Path]:
    """A 58-residue backbone (AdK's residues 1–60, N CA C O) over ``n_frames`` frames."""
    universe = quiet_universe(PSF, DCD)
    atoms = universe.select_atoms("resid 1:60 and name N CA C O")
    frames = universe.trajectory.timeseries(atomgroup=atoms, order="fac")
    topology, trajectory = folder / "bb.pdb", folder / f"bb{n_frames}.dcd"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        atoms.write(str(topology))
        copy = mda.Merge(atoms)
        with mda.Writer(str(trajectory), atoms.n_atoms) as writer:
            for k in range(n_frames):
                copy.atoms.positions = frames[k % len(frames)]
                writer.write(copy.atoms)
    return topology, trajectory


def _peak_and_size(topology: Path, trajectory: Path, layout: str) -> tuple[int, int]:
    """Peak traced allocations of the app's reading, and the size of its data set."""
    from stpca_gui.model.structures import read_structure_dataset

    settings = DihedralSettings(layout=layout)
    tracemalloc.start()
    try:
        dataset = read_structure_dataset(topology, [trajectory], settings)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    held = dataset.angles.nbytes + sum(v.nbytes for v in dataset.provenance.values())
    return peak, held + (0 if dataset.labels is None else dataset.labels.nbytes)


@pytest.mark.parametrize("layout", ["pooled", "per-frame"])
def test_the_app_reading_grows_at_most_twice_as_fast_as_its_data_set(tmp_path, layout):
    """Issue 29 item 5: the app's path (read_structure_dataset) held up to 17× the angles
    (copies in degrees and radians, the wrapping's temporaries, provenance built twice).
    Now the torsions are read into the data set's own array. What a reading costs beyond
    its data set does not grow with it: between 3,000 and 6,000 frames the peak of traced
    allocations grows by at most twice the data set (the fixed costs, MDAnalysis' and one
    block of frames, cancel out); the benchmark measures the peak itself at 10⁵ frames."""
    from stpca_gui.model.structures import read_structure_dataset

    small = _backbone_trajectory(tmp_path, 3000)
    large = _backbone_trajectory(tmp_path, 6000)
    read_structure_dataset(*small[:1], [small[1]], DihedralSettings(stop=2))  # warm caches
    peak_small, held_small = _peak_and_size(*small, layout)
    peak_large, held_large = _peak_and_size(*large, layout)
    assert held_large > 1.9 * held_small
    assert peak_large - peak_small <= 2.0 * (held_large - held_small), (
        (peak_large - peak_small) / (held_large - held_small))


def _degenerate_trajectory(folder: Path) -> Path:
    """adk_dims.dcd's first 10 frames with: residue 10's CA at NaN in frames 3 and 7,
    residue 12's N on its CA (a zero-length bond) in frame 5, and residue 20's C at NaN in
    every frame."""
    universe = quiet_universe(PSF, DCD)
    ca10 = universe.select_atoms("resid 10 and name CA").indices[0]
    n12, ca12 = (universe.select_atoms(f"resid 12 and name {name}").indices[0]
                 for name in ("N", "CA"))
    c20 = universe.select_atoms("resid 20 and name C").indices[0]
    path = folder / "degenerate.dcd"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mda.Writer(str(path), universe.atoms.n_atoms) as writer:
            for ts in universe.trajectory[:10]:
                positions = universe.atoms.positions
                if ts.frame in (3, 7):
                    positions[ca10] = np.nan
                if ts.frame == 5:
                    positions[n12] = positions[ca12]
                positions[c20] = np.nan
                universe.atoms.positions = positions
                writer.write(universe.atoms)
    return path


def test_undefined_torsions_are_left_out_named_and_counted(tmp_path):
    """Issue 29 item 9: NaN coordinates and degenerate geometry gave NaN torsions, and the
    app then said only "angles must be finite"."""
    from stpca_gui.model.structures import read_structure_dataset

    path = _degenerate_trajectory(tmp_path)
    settings = DihedralSettings(select="resid 9:21", layout="per-frame")
    table = read_torsions(PSF, [path], settings)
    assert np.isfinite(table.angles).all()
    # C of residue 20 is NaN in every frame: ψ20 and φ21 are undefined like missing atoms.
    assert {"4AKE:ILE20:phi (undefined in every frame)", "4AKE:ILE20:psi (undefined in "
            "every frame)", "4AKE:MET21:phi (undefined in every frame)"} <= set(table.missing)
    assert "4AKE:GLY10:phi (undefined in 2 frame(s))" in table.missing
    assert table.frame.tolist() == [0, 1, 2, 4, 6, 8, 9]  # frames 3, 5, 7 left out
    assert any("degenerate.dcd: 3 row(s) left out" in note and "(3, 5, 7)" in note
               for note in table.notes)
    pooled = read_torsions(PSF, [path], DihedralSettings(select="resid 9:21"))
    # Pooled: residues 20 and 21 left out; the rows of residue 10 (frames 3, 7) and 12
    # (frame 5) left out of those frames only.
    assert set(pooled.resid.tolist()) == set(range(9, 20))
    assert pooled.n_rows == 10 * 11 - 3
    assert pooled.provenance()["frame"][pooled.resid == 10].tolist() == [0, 1, 2, 4, 5, 6, 8, 9]
    assert np.isfinite(pooled.angles).all()
    dataset = read_structure_dataset(PSF, [path], settings)
    assert "degenerate.dcd" in dataset.description and "frame(s) (3, 5, 7)" in \
        dataset.description


def test_a_long_selection_gets_a_short_message_not_a_recursion_error():
    universe = quiet_universe(PSF)
    selection = " or ".join(f"resid {k}" for k in range(1, 801))
    with pytest.raises(StructureError) as refused:
        select_atoms(universe, selection, "adk.psf")
    message = str(refused.value)
    assert "799 and/or/not operators" in message and "resid 1:800" in message
    assert len(message) < 300  # the selection is quoted, not echoed whole
    with pytest.raises(StructureError, match="nests parentheses 40 deep"):
        select_atoms(universe, "(" * 40 + "all" + ")" * 40, "adk.psf")
    assert select_atoms(universe, "resid 1 or resid 2", "adk.psf").n_atoms == 19 + 24


def test_a_distance_selection_listing_too_many_pairs_is_refused_at_once():
    """Issue 29 item 6: ``around 1 index 0:999`` on 10⁵ atoms at one place listed 10⁸ pairs
    (29 s, 4 GB); the pairs are counted first (no pair list), and the selection refused."""
    universe = mda.Universe.empty(100_000, trajectory=True)
    universe.atoms.positions = np.zeros((100_000, 3))
    with pytest.raises(StructureError, match=r"would list 100,000,000 pairs of atoms within "
                                             r"1 Å of its 1,000 reference atoms"):
        select_atoms(universe, "around 1 index 0:999", "crowd.pdb")
    # Spread out, the same selection is cheap and gives MDAnalysis' answer.
    rng = np.random.default_rng(0)
    universe.atoms.positions = rng.uniform(0.0, 200.0, (100_000, 3))
    ours = select_atoms(universe, "around 3 index 0:999", "crowd.pdb")
    assert np.array_equal(ours.indices,
                          universe.select_atoms("around 3 index 0:999").indices)


@pytest.mark.parametrize("name", ["frame", "Time", "trajectory", "bad\nname", "a,b",
                                  "sep\u2028x", "", " padded"])
def test_a_torsion_name_that_would_break_the_table_is_refused(name):
    settings = DihedralSettings(dihedral_set="custom", layout="per-frame", custom=(
        (name, ("bynum 1", "bynum 2", "bynum 3", "bynum 4")),))
    with pytest.raises(StructureError, match="the torsion name"):
        settings.validate()


def test_frame_numbers_beyond_any_trajectory_are_refused():
    with pytest.raises(StructureError, match=r"stride 1e\+30 is beyond any trajectory"):
        DihedralSettings(stride=10**30).validate()
    with pytest.raises(StructureError, match=r"stop 1e\+20 is beyond any trajectory"):
        DihedralSettings(stop=10**20).validate()


def _cut(source: str, folder: Path, name: str, fraction: float = 0.5) -> Path:
    data = Path(source).read_bytes()
    path = folder / name
    path.write_bytes(data[:int(len(data) * fraction)])
    return path


def test_truncated_trajectories_are_reported_as_truncated(tmp_path):
    """Issue 29 item 8: a DCD cut in half read as '48 of 48 frames' (its header says 98);
    an XTC cut in a frame failed without naming the file."""
    dcd = read_torsions(PSF, [_cut(DCD, tmp_path, "half.dcd")],
                        DihedralSettings(select="resid 10"))
    assert dcd.n_frames_total == 48
    assert dcd.notes == ("half.dcd is truncated: its last frame is cut off; 48 complete "
                         "frame(s) read of the 500 its header declares",)
    # The whole file holds 98 of the 500 frames its CHARMM header declares: said, softly.
    whole = read_torsions(PSF, [DCD], DihedralSettings(select="resid 10"))
    assert whole.notes == ("adk_dims.dcd holds 98 frame(s), but its header declares 500: it "
                           "may have been cut short",)
    xtc = read_torsions(datafiles.GRO, [_cut(datafiles.XTC, tmp_path, "half.xtc")],
                        DihedralSettings(select="resid 10"))
    assert xtc.n_frames_total == 4  # the fifth, cut, is left out
    assert xtc.notes == ("half.xtc is truncated: its last frame is cut off; 4 complete "
                         "frame(s) read",)


@pytest.mark.parametrize(("topology", "name"), [(PSF, "garbage.dcd"),
                                                 (datafiles.GRO, "garbage.xtc")])
def test_a_corrupt_trajectory_gives_one_message_and_no_noise(tmp_path, capfd, topology, name):
    """Issue 29 item 4: MDAnalysis printed 'Exception ignored in __del__' tracebacks after
    the message."""
    import gc

    path = tmp_path / name
    path.write_bytes(np.random.default_rng(1).bytes(5000))
    with pytest.raises(StructureError, match=rf"{name}: cannot be read as a trajectory"):
        read_torsions(topology, [path])
    gc.collect()
    assert "Exception ignored" not in capfd.readouterr().err
