"""Commands never replace their inputs or a user's files, and leave no stale files of an
earlier run (issue 29, item 1): the output folder of stpca_gui.files.output_folder."""

from __future__ import annotations

import shutil

import pytest

from stpca_gui.cli import main
from stpca_gui.files.output_folder import MANIFEST_NAME, output_folder


def _table(path):
    path.write_text("a,b\n" + "".join(f"{k % 7 * 0.7},{k % 5 * 1.1}\n" for k in range(40)))
    return path


def test_fit_refuses_a_folder_holding_a_users_files_and_overwrite_keeps_them(tmp_path, capsys):
    table, out = _table(tmp_path / "t.csv"), tmp_path / "out"
    out.mkdir()
    (out / "scores.csv").write_text("my scores")
    (out / "notes.txt").write_text("mine")
    assert main(["fit", str(table), "--curve-points", "20", "--out", str(out)]) == 1
    assert "did not write" in capsys.readouterr().err
    assert (out / "scores.csv").read_text() == "my scores"
    assert main(["fit", str(table), "--curve-points", "20", "--out", str(out),
                 "--overwrite", "--save-model", str(out / "m.stpca")]) == 0
    assert (out / "scores.csv").read_text().startswith("row,")
    assert (out / "notes.txt").read_text() == "mine"
    # A rerun into its own folder (with its model beside) needs no --overwrite once the
    # user's file is gone.
    (out / "notes.txt").unlink()
    assert main(["fit", str(table), "--curve-points", "20", "--out", str(out),
                 "--save-model", str(out / "m.stpca")]) == 0


def test_fit_never_writes_over_its_input_even_with_overwrite(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    table = _table(out / "scores.csv")
    before = table.read_text()
    assert main(["fit", str(table), "--out", str(out), "--overwrite"]) == 1
    assert "refusing to write" in capsys.readouterr().err
    assert table.read_text() == before


mda = pytest.importorskip("MDAnalysis")
datafiles = pytest.importorskip("MDAnalysisTests.datafiles")
PSF, DCD = datafiles.PSF, datafiles.DCD


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    folder = tmp_path_factory.mktemp("session")
    table, session = folder / "loop.csv", folder / "loop.stpca"
    assert main(["dihedrals", PSF, DCD, "--select", "resid 10:11", "--layout", "per-frame",
                 "--out", str(table)]) == 0
    assert main(["fit", str(table), "--degrees", "--curve-points", "30",
                 "--save-session", str(session)]) == 0
    return session


def _representatives(session, out, *files, extra=()):
    return main(["representatives", str(session), *map(str, files), "--atoms", "resid 10:11",
                 "--out", str(out), *extra])


def test_representatives_never_write_over_their_topology_or_session(tmp_path, session, capsys):
    out = tmp_path / "reps"
    out.mkdir()
    topology = shutil.copy(PSF, out / "cluster_1.pdb")
    before = topology.read_bytes()
    assert _representatives(session, out, topology, DCD, extra=["--overwrite"]) == 1
    assert "refusing to write the output cluster_1.pdb" in capsys.readouterr().err
    assert topology.read_bytes() == before
    named = shutil.copy(session, out / "clusters.csv")
    assert _representatives(named, out, PSF, DCD, extra=["--overwrite"]) == 1
    assert named.read_bytes() == session.read_bytes()


def test_representatives_refuse_a_users_files_and_remove_their_own_stale_ones(
        tmp_path, session, capsys):
    out = tmp_path / "reps"
    out.mkdir()
    (out / "clusters.csv").write_text("my clusters")
    assert _representatives(session, out, PSF, DCD) == 1
    assert "--overwrite" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["clusters.csv"]
    (out / "clusters.csv").unlink()
    # An earlier run with more clusters: its cluster_7.pdb must not stay beside the new set.
    with output_folder(out, ["cluster_7.pdb"], kind="representatives") as tmp:
        tmp["cluster_7.pdb"].write_text("earlier run")
    assert _representatives(session, out, PSF, DCD) == 0
    names = sorted(p.name for p in out.iterdir())
    assert "cluster_7.pdb" not in names and "clusters.csv" in names
    assert MANIFEST_NAME in names


def test_dihedrals_never_write_over_the_trajectory(tmp_path, capsys):
    trajectory = shutil.copy(DCD, tmp_path / "traj.dcd")
    before = trajectory.read_bytes()
    assert main(["dihedrals", PSF, str(trajectory), "--out", str(trajectory)]) == 1
    assert "refusing" in capsys.readouterr().err
    assert trajectory.read_bytes() == before


def test_export_script_never_replaces_a_users_file_beside_the_script(tmp_path, session, capsys):
    script = tmp_path / "analysis.py"
    assert main(["export-script", str(session), str(script)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert main(["export-script", str(session), str(script)]) == 0  # its own: replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == written


def test_representatives_overwrite_replaces_a_users_output_named_file_and_keeps_the_rest(
        tmp_path, session, capsys):
    out = tmp_path / "reps"
    out.mkdir()
    (out / "clusters.csv").write_text("my clusters")
    (out / "notes.txt").write_text("mine")
    assert _representatives(session, out, PSF, DCD, extra=["--overwrite"]) == 0
    rows = (out / "clusters.csv").read_text().splitlines()
    assert "cluster" in rows[0].split(",") and len(rows) == 99  # a row per frame
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in out.glob("cluster_*.pdb"))  # the medoids written


def test_export_script_overwrite_replaces_a_users_file_where_the_data_copy_goes(
        tmp_path, capsys):
    table, session = _table(tmp_path / "t.csv"), tmp_path / "s.stpca"
    assert main(["fit", str(table), "--curve-points", "20", "--save-session",
                 str(session)]) == 0
    table.unlink()  # the script cannot read the table again: it reads a copy beside it
    user = tmp_path / "analysis-data.csv"
    user.write_text("my,own\n1,2\n")
    script = tmp_path / "analysis.py"
    capsys.readouterr()
    assert main(["export-script", str(session), str(script)]) == 1
    err = capsys.readouterr().err
    assert "analysis-data.csv" in err and "--overwrite" in err
    assert user.read_text() == "my,own\n1,2\n" and not script.exists()
    assert main(["export-script", str(session), str(script), "--overwrite"]) == 0
    assert script.is_file() and user.read_text().startswith("row,")
