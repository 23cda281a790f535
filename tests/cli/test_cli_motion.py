"""``stpca fit --out``'s state trajectories and ``stpca motion`` on AdK's P-loop per frame,
read from adk_dims.dcd split into two runs (issue 33 items 4 and 5)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("MDAnalysis")
datafiles = pytest.importorskip("MDAnalysisTests.datafiles")

from structure_files import SPLIT, quiet_universe, write_halves  # noqa: E402

from stpca_gui.cli import main  # noqa: E402
from stpca_gui.core.prediction.principal_curve import data_arc_offsets  # noqa: E402
from stpca_gui.io.structures import DihedralSettings, read_torsions  # noqa: E402
from stpca_gui.model.motion import motion_frames  # noqa: E402
from stpca_gui.model.session_file import load_session  # noqa: E402

PSF = datafiles.PSF
LOOP = "resid 7:13"


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """The P-loop's 14 torsions of two runs, fitted: (folder, halves, session path)."""
    folder = tmp_path_factory.mktemp("motion")
    halves = write_halves(folder)
    table = folder / "loop.csv"
    assert main(["dihedrals", PSF, *map(str, halves), "--select", LOOP, "--layout",
                 "per-frame", "--out", str(table)]) == 0
    assert main(["fit", str(table), "--degrees", "--out", str(folder / "fit"),
                 "--save-session", str(folder / "loop.stpca")]) == 0
    return folder, halves, folder / "loop.stpca"


def test_state_arrays_are_the_sessions_clusters_per_run_in_frame_order(fitted):
    folder, _, session_path = fitted
    session = load_session(session_path)
    clusters = session.result.mode_clusters.labels
    runs = np.asarray(session.dataset.provenance["trajectory"]).astype(str)
    frames = np.asarray(session.dataset.provenance["frame"]).astype(int)
    for k, run in enumerate(["first.dcd", "second.dcd"], start=1):
        states = np.load(folder / "fit" / f"states_{k}.npy")
        assert states.shape == (SPLIT,)  # the runs' lengths: 49 and 49 frames
        mine = runs == run
        assert np.array_equal(states, clusters[mine][np.argsort(frames[mine])])
    with open(folder / "fit" / "states.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["trajectory", "frame", "time", "cluster"]
    assert len(rows) == 2 * SPLIT and rows[SPLIT]["trajectory"] == "second.dcd"
    assert float(rows[SPLIT]["time"]) == pytest.approx(SPLIT + 1.0, abs=1e-4)
    assert [int(r["cluster"]) for r in rows] == (clusters + 1).tolist()


def _torsions(path: Path) -> np.ndarray:
    settings = DihedralSettings(select=LOOP, layout="per-frame")
    return np.deg2rad(read_torsions(path, (), settings).angles)


def test_motion_along_pns1_is_the_frames_nearest_to_the_curve_in_order(fitted, capsys):
    folder, halves, session_path = fitted
    out = folder / "pns1.pdb"
    assert main(["motion", str(session_path), PSF, *map(str, halves), "--atoms",
                 "resid 5:15", "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    # --atoms: the models hold residues 5–15 and nothing else (136 of AdK's 3,341 atoms).
    models = quiet_universe(out)
    chosen = quiet_universe(PSF).select_atoms("resid 5:15")
    assert models.atoms.n_atoms == chosen.n_atoms
    assert sorted(set(models.atoms.resids)) == list(range(5, 16))
    session = load_session(session_path)
    model, angles = session.result.model, session.dataset.angles
    written = _torsions(out)  # the frames' torsions, read back from the PDB's models
    assert len(written) >= 10
    motion = motion_frames(model, angles, 1)
    # Each model is the frame nearest (brute force, every frame) to its curve point.
    for point, model_angles in zip(motion.targets, written, strict=True):
        distances = [np.sqrt(np.sum(np.angle(np.exp(1j * (row - point))) ** 2))
                     for row in angles]
        nearest = int(np.argmin(distances))
        assert np.allclose(np.angle(np.exp(1j * (model_angles - angles[nearest]))), 0.0,
                           atol=2e-3)  # PDB coordinates: 3 decimals
    # Ordered along PNS1: the recomputed scores go one way along the data's arc.
    scores = model.transform(written)[:, 0]
    offsets, length = data_arc_offsets(scores, model.scores_[:, 0],
                                       2.0 * np.pi * model.pns_.circle_radius_)
    assert np.all(np.diff(offsets) > 0) and offsets[-1] <= length * (1 + 1e-3)  # PDB rounding


def test_motion_along_a_later_component_writes_a_dcd(fitted, capsys):
    folder, halves, session_path = fitted
    out = folder / "pns2.dcd"
    assert main(["motion", str(session_path), PSF, *map(str, halves), "--component", "2",
                 "--out", str(out)]) == 0
    frames = int(capsys.readouterr().out.split(": ")[1].split()[0])
    assert quiet_universe(PSF, out).trajectory.n_frames == frames >= 2


@pytest.mark.parametrize(("args", "message"), [
    (["--component", "15"], "--component 15: the fit has components 1…14"),
    (["--component", "0"], "--component 0: the fit has components 1…14"),
    (["--out-suffix", ".gro"], "write a .pdb (one model per frame), .dcd or .xtc file"),
    (["--swap"], "not the file the data of"),
])
def test_motion_bad_input_exits_1_and_writes_nothing(fitted, capsys, tmp_path, args,
                                                     message):
    _, halves, session_path = fitted
    files = list(reversed(halves)) if "--swap" in args else list(halves)
    out = tmp_path / ("m" + (args[1] if args[0] == "--out-suffix" else ".pdb"))
    options = args if args[0] == "--component" else []
    assert main(["motion", str(session_path), PSF, *map(str, files), *options,
                 "--out", str(out)]) == 1
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_motion_refuses_a_session_without_frames(tmp_path, capsys):
    session = tmp_path / "demo.stpca"
    assert main(["demo", "clusters-t3", "--save-session", str(session)]) == 0
    capsys.readouterr()
    assert main(["motion", str(session), PSF, datafiles.DCD, "--out",
                 str(tmp_path / "m.pdb")]) == 1
    assert "the data have no frame column" in capsys.readouterr().err
    assert not (tmp_path / "m.pdb").exists()


def test_a_fit_without_a_principal_curve_says_so(fitted):
    session = load_session(fitted[2])
    model = session.result.model
    del model.principal_curve_
    with pytest.raises(ValueError, match="holds no principal curve"):
        motion_frames(model, session.dataset.angles, 1)


def test_the_structure_demo_is_two_runs_with_their_states(tmp_path, capsys):
    """stpca demo adk-loop reads the bundled P-loop files (issue 33 item 7) as two runs of
    49 frames, and writes their state arrays."""
    assert main(["demo", "adk-loop", "--out", str(tmp_path / "fit")]) == 0
    out = capsys.readouterr().out
    assert "98 rows × 14 torsions (backbone, per-frame, 2 runs, 98 of 98 frames)" in out
    assert "states_1.npy: adk_loop_1.xtc 49 frames; states_2.npy: adk_loop_2.xtc 49" in out
    assert [np.load(tmp_path / "fit" / f"states_{k}.npy").size for k in (1, 2)] == [49, 49]


def test_motion_frames_flag_sets_the_points_and_frames_written(fitted, capsys):
    """``--frames N``, as a user gives it: the motion of N points (more only when fewer than
    N distinct frames are nearest), every frame of it in the XTC written."""
    folder, halves, session_path = fitted
    out = folder / "pns1_six.xtc"
    assert main(["motion", str(session_path), PSF, *map(str, halves), "--frames", "6",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out.split(": ")[1].split()
    written, points = int(printed[0]), int(printed[4])
    session = load_session(session_path)
    asked = motion_frames(session.result.model, session.dataset.angles, 1, 6)
    default = motion_frames(session.result.model, session.dataset.angles, 1)
    assert (written, points) == (len(asked.rows), asked.points) != (
        len(default.rows), default.points)
    assert written >= 6
    assert quiet_universe(PSF, out).trajectory.n_frames == written
    with pytest.raises(SystemExit) as exc:
        main(["motion", str(session_path), PSF, "--frames", "1", "--out", str(out)])
    assert exc.value.code == 2
    assert "--frames: must be" in capsys.readouterr().err
