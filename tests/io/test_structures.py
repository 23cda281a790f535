"""Torsions of structures and trajectories (stpca_gui.io.structures) and cluster
representatives, checked against MDAnalysis' own analyses on the MDAnalysisTests files."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
from structure_files import DCD, PSF, datafiles, quiet_universe

from stpca_gui.io.structures import (
    DihedralSettings,
    StructureError,
    read_torsions,
    torus_medoid,
    write_representatives,
)
from stpca_gui.io.structures.representatives import torus_distances

RNA_PSF, RNA_PDB = datafiles.RNA_PSF, datafiles.RNA_PDB


def _angle_difference(a, b):
    """Largest difference of two arrays of degrees, modulo 360."""
    return float(np.max(np.abs((np.asarray(a) - np.asarray(b) + 180.0) % 360.0 - 180.0)))


@pytest.fixture(scope="module")
def adk():
    return quiet_universe(PSF, DCD)


def test_phi_psi_equal_mdanalysis_ramachandran(adk):
    from MDAnalysis.analysis.dihedrals import Ramachandran

    table = read_torsions(PSF, [DCD])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = Ramachandran(adk.select_atoms("protein")).run().results.angles
    assert table.column_names == ("phi", "psi")
    assert table.angles.shape == (98 * 212, 2) == reference.reshape(-1, 2).shape
    assert _angle_difference(table.angles, reference.reshape(-1, 2)) < 1e-6
    # Rows are frame-major; provenance says which residue each row is.
    assert table.frame[:212].tolist() == [0] * 212 and table.frame[-1] == 97
    assert table.resid[:3].tolist() == [2, 3, 4] and table.resname[0] == "ARG"
    assert set(table.segid) == {"4AKE"}
    # The chain ends have no φ (Met1) or ψ (Gly214): left out and counted.
    assert table.missing == ("4AKE:MET1:phi", "4AKE:GLY214:psi")
    assert np.all((table.angles > -180.0) & (table.angles <= 180.0))


def test_chi1_chi2_equal_mdanalysis_janin(adk):
    from MDAnalysis.analysis.dihedrals import Janin

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        janin = Janin(adk.select_atoms("protein"))
        reference = janin.run().results.angles  # (frames, residues, 2), in [0, 360)
    janin_resids = janin.ag1.resids
    table = read_torsions(PSF, [DCD], DihedralSettings("chi"))
    per_frame = len(table.resid) // 98
    resids = table.resid[:per_frame]
    # We also read χ1/χ2 of prolines (Janin leaves them out); every Janin residue is here.
    assert set(janin_resids) <= set(resids)
    assert set(table.resname[:per_frame][~np.isin(resids, janin_resids)]) == {"PRO"}
    ours = table.angles.reshape(98, per_frame, 2)[:, np.isin(resids, janin_resids)]
    assert _angle_difference(ours, reference) < 1e-6


def test_chi3_chi4_are_read_where_defined(adk):
    table = read_torsions(PSF, [DCD], DihedralSettings(
        "chi", select="resname ARG LYS MET GLN GLU", layout="per-frame",
        angles=("chi1", "chi2", "chi3", "chi4")))
    names = table.column_names
    assert any(n.endswith("ARG2:chi4") for n in names)
    met = [n for n in names if ":MET" in n]
    assert met and not any(n.endswith("chi4") for n in met)  # Met has no χ4: left out
    assert any(n.endswith("chi4") for n in table.missing)
    adk.trajectory[0]
    arg = adk.select_atoms("resid 2")
    expected = arg.select_atoms("name CG", "name CD", "name NE", "name CZ").dihedral.value()
    column = names.index("4AKE:ARG2:chi4")
    assert _angle_difference(table.angles[0, column], expected) < 1e-4


@pytest.fixture(scope="module")
def rna():
    return quiet_universe(RNA_PSF, RNA_PDB)


def test_rna_backbone_equals_nuclinfo_tors(rna):
    from MDAnalysis.analysis import nuclinfo

    table = read_torsions(RNA_PSF, [RNA_PDB], DihedralSettings("rna-backbone"))
    assert table.column_names == ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "chi")
    # The 5' end has no α, the 3' end no ε/ζ.
    assert table.resid[0] == 2 and "RNAA:GUA1:alpha" in table.missing
    for row in (0, 3, 7, len(table.resid) - 1):
        expected = nuclinfo.tors(rna, "RNAA", int(table.resid[row]))
        assert _angle_difference(table.angles[row], expected) < 1e-4, table.resid[row]


def test_rna_pseudotorsions_eta_theta(rna):
    table = read_torsions(RNA_PSF, [RNA_PDB], DihedralSettings("rna-pseudo"))
    assert table.column_names == ("eta", "theta")
    for row in (0, 5, len(table.resid) - 1):
        i = int(table.resid[row])

        def dihedral(*atoms):
            return rna.select_atoms(*[f"atom RNAA {r} {name}" for r, name in atoms]
                                    ).dihedral.value()

        eta = dihedral((i - 1, "C4'"), (i, "P"), (i, "C4'"), (i + 1, "P"))
        theta = dihedral((i, "P"), (i, "C4'"), (i + 1, "P"), (i + 1, "C4'"))
        assert _angle_difference(table.angles[row], [eta, theta]) < 1e-4


def test_per_frame_table_of_a_loop_has_the_shape_and_names():
    table = read_torsions(PSF, [DCD], DihedralSettings(
        select="resid 10:14", layout="per-frame", omega=True, start=10, stop=60, stride=5))
    assert table.angles.shape == (10, 15)
    assert table.frame.tolist() == list(range(10, 60, 5))
    assert table.column_names[:4] == ("4AKE:GLY10:phi", "4AKE:GLY10:psi", "4AKE:GLY10:omega",
                                      "4AKE:ALA11:phi")
    assert table.header()[:3] == ["trajectory", "frame", "time"] and len(table.header()) == 18
    pooled = read_torsions(PSF, [DCD], DihedralSettings(select="resid 10:14", start=10,
                                                        stop=60, stride=5))
    # The same angles, one row per frame and residue.
    wide = pooled.angles.reshape(10, 5, 2)
    assert np.array_equal(wide.reshape(10, 10), table.angles[:, [c for c in range(15)
                                                                 if c % 3 != 2]])
    assert pooled.residue_class.tolist()[:5] == ["Gly", "other", "Gly", "other", "Gly"]


def test_user_defined_torsion_equals_a_named_one():
    named = read_torsions(PSF, [DCD], DihedralSettings(select="resid 10", layout="per-frame"))
    custom = read_torsions(PSF, [DCD], DihedralSettings(
        "custom", layout="per-frame",
        custom=(("my_psi", ("resid 10 and name N", "resid 10 and name CA",
                            "resid 10 and name C", "resid 11 and name N")),)))
    assert custom.column_names == ("my_psi",)
    assert np.array_equal(custom.angles[:, 0], named.angles[:, 1])


@pytest.mark.parametrize(("files", "settings", "message"), [
    ((PSF, ["missing.dcd"]), DihedralSettings(), "missing.dcd: no such file"),
    ((PSF, [datafiles.XTC]), DihedralSettings(), "does not match the topology"),
    ((PSF, []), DihedralSettings(), "holds no coordinates"),
    ((PSF, [DCD]), DihedralSettings(select="resid ("), "is not valid"),
    ((PSF, [DCD]), DihedralSettings(select="resname XYZ"), "matches no atoms"),
    ((PSF, [DCD]), DihedralSettings("rna-backbone"), "no nucleic residue"),
    ((PSF, [DCD]), DihedralSettings(start=98), "frames out of range"),
    ((PSF, [DCD]), DihedralSettings(stop=500), "frames out of range"),
    ((PSF, [DCD]), DihedralSettings(select="resid 1", angles=("phi",)), "no phi torsion"),
    ((PSF, [DCD]), DihedralSettings("custom", layout="per-frame",
                                    custom=(("x", ("name CA", "name N", "name C", "name O")),)),
     "matches 214 atoms, not one"),
])
def test_bad_input_names_the_file_and_the_problem(files, settings, message):
    with pytest.raises(StructureError, match=message.replace("(", r"\(")) as error:
        read_torsions(*files, settings)
    assert any(str(part).split("/")[-1] in str(error.value)
               for part in [files[0], *files[1]])


def test_without_mdanalysis_the_message_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "MDAnalysis", None)
    with pytest.raises(StructureError, match=r"pip install 'stpca-gui\[structures\]'"):
        read_torsions(PSF, [DCD])


def test_medoid_is_the_brute_force_one():
    rng = np.random.default_rng(3)
    angles = np.concatenate([rng.normal(3.0, 0.3, (40, 3)), rng.normal(-2.5, 0.5, (25, 3))])
    angles = (angles + np.pi) % (2 * np.pi) - np.pi  # clusters across the ±π seam
    brute = min(range(len(angles)),
                key=lambda i: sum(np.sqrt(np.sum(((angles[i] - angles[j] + np.pi)
                                                  % (2 * np.pi) - np.pi) ** 2))
                                  for j in range(len(angles))))
    assert torus_medoid(angles) == brute
    assert torus_distances(np.array([[3.1, 0.0]]), np.array([-3.1, 0.0]))[0] == \
        pytest.approx(2 * np.pi - 6.2)


def test_representatives_are_medoid_frames_written_as_pdb(tmp_path, adk):
    table = read_torsions(PSF, [DCD], DihedralSettings(select="resid 10:12",
                                                       layout="per-frame"))
    angles = np.deg2rad(table.angles)
    clusters = (table.frame >= 50).astype(int)  # two clusters: early and late frames
    written = write_representatives(tmp_path / "reps", adk, angles, clusters,
                                    table.provenance(), atoms="protein and name CA")
    names = sorted(p.name for p in written.files)
    # Labels 0 and 1 are clusters 1 and 2, as in scores.csv and the app (issue 31).
    assert names == ["cluster_1.pdb", "cluster_2.pdb", "clusters.csv"]
    for k in (0, 1):
        members = np.flatnonzero(clusters == k)
        expected = members[torus_medoid(angles[members])]
        assert written.medoid_frames[k + 1] == table.frame[expected]
        pdb = quiet_universe(tmp_path / "reps" / f"cluster_{k + 1}.pdb")
        assert pdb.atoms.n_atoms == 214 and set(pdb.atoms.names) == {"CA"}
        adk.trajectory[written.medoid_frames[k + 1]]
        reference = adk.select_atoms("protein and name CA").positions
        assert np.allclose(pdb.atoms.positions, reference, atol=1e-3)
    rows = np.genfromtxt(tmp_path / "reps" / "clusters.csv", delimiter=",", names=True)
    assert rows["frame"].tolist() == table.frame.tolist()
    assert int(rows["medoid"].sum()) == 2
    assert rows["cluster"].tolist() == (clusters + 1).tolist()
    assert np.all(rows["distance_to_medoid_deg"][rows["medoid"] == 1] == 0.0)


def test_pooled_representatives_count_residues_per_cluster(tmp_path, adk):
    table = read_torsions(PSF, [DCD], DihedralSettings(select="resid 10:12", stop=20))
    clusters = (table.angles[:, 0] > 0).astype(int)
    write_representatives(tmp_path, adk, np.deg2rad(table.angles), clusters,
                          table.provenance())
    text = (tmp_path / "residue_clusters.csv").read_text().splitlines()
    assert text[0] == "segid,resid,resname,rows,cluster_1,cluster_2"
    counts = [list(map(int, line.split(",")[3:])) for line in text[1:]]
    assert len(counts) == 3 and all(c[0] == 20 == c[1] + c[2] for c in counts)
    assert sum(c[2] for c in counts) == int(clusters.sum())


def test_representatives_refuse_frames_beyond_the_trajectory(tmp_path, adk):
    provenance = {"frame": np.array([0, 5, 120])}
    with pytest.raises(StructureError, match="has frame 120"):
        write_representatives(tmp_path / "out", adk, np.zeros((3, 2)), np.zeros(3, int),
                              provenance, where="adk_dims.dcd")
    assert not (tmp_path / "out").exists()


def test_cli_dihedrals_table_feeds_fit_and_provenance_reaches_scores(tmp_path, capsys):
    from stpca_gui.cli import main

    table = tmp_path / "phi_psi.csv"
    assert main(["dihedrals", PSF, DCD, "--select", "resid 10:12", "--stride", "2",
                 "--out", str(table)]) == 0
    lines = table.read_text().splitlines()
    assert lines[0] == "trajectory,frame,time,segid,resid,resname,phi,psi"
    assert len(lines) == 1 + 49 * 3
    assert lines[1].startswith("adk_dims.dcd,0,0.999999912,4AKE,10,GLY,")
    assert main(["fit", str(table), "--degrees", "--curve-points", "30",
                 "--out", str(tmp_path / "fit")]) == 0
    scores = (tmp_path / "fit" / "scores.csv").read_text().splitlines()
    assert scores[0] == "row,trajectory,frame,time,segid,resid,resname,PNS1,PNS2,cluster"
    assert scores[1].startswith("2,adk_dims.dcd,0,0.999999912,4AKE,10,GLY,")
    assert scores[-1].startswith("148,adk_dims.dcd,96,96.9999915,4AKE,12,")
    assert "angles d          2" in capsys.readouterr().out


def test_cli_representatives_of_a_per_frame_session(tmp_path, capsys):
    from stpca_gui.cli import main
    from stpca_gui.model.session_file import load_session

    table, session = tmp_path / "loop.csv", tmp_path / "loop.stpca"
    assert main(["dihedrals", PSF, DCD, "--select", "resid 10:11", "--layout", "per-frame",
                 "--out", str(table)]) == 0
    assert main(["fit", str(table), "--degrees", "--curve-points", "30",
                 "--save-session", str(session)]) == 0
    capsys.readouterr()
    assert main(["representatives", str(session), PSF, DCD, "--atoms", "resid 10:11",
                 "--out", str(tmp_path / "reps")]) == 0
    fitted = load_session(session)
    clusters = fitted.result.mode_clusters.labels
    angles = fitted.dataset.angles
    captured = capsys.readouterr()
    out = captured.out
    # The table's sidecar gave the session its structure files' fingerprints: checked.
    assert fitted.dataset.structure["trajectories"] == [DCD]
    assert "warning" not in captured.err
    for k in np.unique(clusters):
        members = np.flatnonzero(clusters == k)
        frame = int(fitted.dataset.provenance["frame"][members[torus_medoid(angles[members])]])
        assert f"cluster {k + 1}: medoid frame {frame}" in out  # numbered 1…K
        assert (tmp_path / "reps" / f"cluster_{k + 1}.pdb").is_file()


@pytest.mark.parametrize(("args", "message"), [
    (["nope.pdb"], "nope.pdb: no such file"),
    ([PSF, datafiles.XTC], "does not match the topology"),
    ([PSF, DCD, "--select", "resname ("], "is not valid"),
    ([PSF, DCD, "--select", "resid 9999"], "matches no atoms"),
    ([PSF, DCD, "--set", "rna-pseudo"], "no nucleic residue"),
    ([PSF, DCD, "--start", "500"], "frames out of range"),
    ([PSF, DCD, "--torsion", "x=name CA"], "needs four atom selections"),
])
def test_cli_dihedrals_bad_input_exits_1_and_writes_nothing(tmp_path, capsys, args, message):
    from stpca_gui.cli import main

    out = tmp_path / "out.csv"
    assert main(["dihedrals", *args, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert message in err and err.startswith("stpca: error: ")
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_session_keeps_the_structure_record_and_provenance(tmp_path):
    from stpca_gui.model import AppState
    from stpca_gui.model.session_file import load_session, save_session, session_from_state
    from stpca_gui.model.structures import read_structure_dataset, structure_files_unchanged

    dataset = read_structure_dataset(PSF, [DCD], DihedralSettings(select="resid 10:12",
                                                                  stop=10))
    assert dataset.labels.tolist()[:3] == ["Gly", "other", "Gly"]
    assert dataset.structure["settings"]["select"] == "resid 10:12"
    state = AppState()
    state.set_dataset(dataset)
    from stpca_gui.model import FitParameters

    session = session_from_state(state, FitParameters(), {}, name="s")
    assert session.source_sha256 == dataset.structure["sha256"][str(DCD)]
    path = save_session(session, tmp_path / "s.stpca")
    loaded = load_session(path).dataset
    assert loaded.structure == dataset.structure
    assert structure_files_unchanged(loaded.structure)
    assert loaded.provenance["resid"].tolist() == dataset.provenance["resid"].tolist()
    assert DihedralSettings.from_dict(loaded.structure["settings"]) == DihedralSettings(
        select="resid 10:12", stop=10)


def test_the_import_preview_suggests_the_angles_of_a_dihedrals_table(tmp_path):
    from stpca_gui.cli import main
    from stpca_gui.io.preview import preview_table

    table = tmp_path / "phi_psi.csv"
    assert main(["dihedrals", PSF, DCD, "--select", "resid 10:12", "--out", str(table)]) == 0
    preview = preview_table(table)
    assert preview.suggested_angle_columns == ("phi", "psi")
    assert preview.suggested_label_column == "resname"
    assert preview.suggested_unit == "degrees"


def test_exported_script_reads_the_structure_again(tmp_path):
    import shutil

    from stpca_gui.model import FitParameters
    from stpca_gui.model.script_export import python_script
    from stpca_gui.model.structures import read_structure_dataset

    topology, trajectory = tmp_path / "adk.psf", tmp_path / "adk.dcd"
    shutil.copy(PSF, topology)
    shutil.copy(DCD, trajectory)
    dataset = read_structure_dataset(topology, [trajectory], DihedralSettings(
        select="resid 10:12", stop=30))
    parameters = FitParameters(random_state=0)
    export = python_script(dataset, parameters, script_path=tmp_path / "refit.py")
    assert export.data_origin == "structure", export.note
    assert "read_torsions(TOPOLOGY, TRAJECTORIES" in export.script
    # Loading code only (no fit): the script's angles and labels are the data set's.
    namespace = {"__name__": "check", "__file__": str(tmp_path / "refit.py")}
    exec(compile(export.script, "refit.py", "exec"), namespace)
    angles, rows, labels = namespace["load_data"]()
    assert angles.tobytes() == dataset.angles.tobytes() and rows is None
    assert labels.tolist() == dataset.labels.tolist()
    # A changed trajectory: the script falls back to the copy written beside it.
    trajectory.write_bytes(trajectory.read_bytes()[:-10] + b"0123456789")
    export = python_script(dataset, parameters, script_path=tmp_path / "refit.py")
    assert export.data_origin == "copy" and "changed" in export.note


def test_mmcif_and_pdb_of_one_structure_give_the_same_torsions():
    pytest.importorskip("gemmi")
    folder = __import__("pathlib").Path(PSF).parent / "mmcif"
    cif = read_torsions(folder / "1BD2.cif.gz")
    pdb = read_torsions(folder / "1BD2.pdb.gz")
    assert cif.angles.shape == pdb.angles.shape == (793, 2)
    assert _angle_difference(cif.angles, pdb.angles) < 1e-6
    assert cif.resid.tolist() == pdb.resid.tolist() and set(cif.segid) == set(pdb.segid)
    assert len(cif.missing) == 22  # chain ends and gaps of five chains


def test_reading_reports_progress_and_stops_when_cancelled():
    from stpca_gui.core import FitCancelled

    events = []
    read_torsions(PSF, [DCD], DihedralSettings(select="resid 10"), callback=events.append)
    assert events[-1].stage == "dihedrals" and events[-1].fraction == 1.0
    assert "frame 98 of 98" in events[-1].message
    with pytest.raises(FitCancelled):
        read_torsions(PSF, [DCD], callback=lambda event: True)


def test_the_cli_without_mdanalysis_says_how_to_install_it(monkeypatch, tmp_path, capsys):
    from stpca_gui.cli import main

    monkeypatch.setitem(sys.modules, "MDAnalysis", None)
    assert main(["dihedrals", PSF, DCD, "--out", str(tmp_path / "t.csv")]) == 1
    assert "pip install 'stpca-gui[structures]'" in capsys.readouterr().err
    assert not (tmp_path / "t.csv").exists()


def test_a_frame_range_reads_the_frames_mdanalysis_reads(adk):
    from MDAnalysis.analysis.dihedrals import Ramachandran

    table = read_torsions(PSF, [DCD], DihedralSettings(select="resid 20:40", start=7,
                                                       stop=90, stride=9))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = Ramachandran(adk.select_atoms("resid 20:40")).run(
            start=7, stop=90, step=9).results.angles
    assert table.frames.tolist() == list(range(7, 90, 9))
    assert _angle_difference(table.angles, reference.reshape(-1, 2)) < 1e-6


def test_cli_representatives_refuses_files_that_are_not_the_fitted_ones(tmp_path, capsys):
    """Issue 29 item 8: other files of the same frame count were only warned about."""
    from stpca_gui.cli import main
    from stpca_gui.model import AnalysisResult, AppState, FitParameters
    from stpca_gui.model.session_file import save_session, session_from_state
    from stpca_gui.model.structures import read_structure_dataset

    dataset = read_structure_dataset(PSF, [DCD], DihedralSettings(
        select="resid 10:11", layout="per-frame", stop=40))
    parameters = FitParameters(n_curve_points=30, torus_variance=False)
    model = parameters.to_estimator().fit(dataset.angles)
    state = AppState()
    state.set_dataset(dataset)
    state.set_result(AnalysisResult.from_fit(model, parameters, dataset, 1.0))
    session = save_session(session_from_state(state, parameters, {}, name="s"),
                           tmp_path / "s.stpca")
    assert main(["representatives", str(session), PSF, DCD, "--out",
                 str(tmp_path / "same")]) == 0
    assert "warning" not in capsys.readouterr().err
    other = tmp_path / "other.dcd"
    other.write_bytes(__import__("pathlib").Path(DCD).read_bytes())
    with open(other, "r+b") as handle:  # same atoms and frames, other coordinates
        handle.seek(-20, 2)
        handle.write(b"\x00" * 8)
    assert main(["representatives", str(session), PSF, str(other), "--out",
                 str(tmp_path / "other")]) == 1
    err = capsys.readouterr().err
    assert "other.dcd: not the file the data of" in err and "another SHA-256" in err
    assert not (tmp_path / "other").exists()


def test_cli_representatives_bad_input_exits_1_and_writes_nothing(tmp_path, capsys):
    from stpca_gui.cli import main

    session = tmp_path / "demo.stpca"
    assert main(["demo", "clusters-t2", "--curve-points", "30", "--save-session",
                 str(session)]) == 0
    capsys.readouterr()
    out = tmp_path / "reps"
    assert main(["representatives", str(session), PSF, DCD, "--out", str(out)]) == 1
    assert "no frame column" in capsys.readouterr().err
    assert main(["representatives", str(tmp_path / "nope.stpca"), PSF, DCD,
                 "--out", str(out)]) == 1
    assert "nope.stpca" in capsys.readouterr().err
    assert not out.exists()
