"""``stpca dihedrals`` of several trajectory files, and the tables it writes through ``fit``,
``transform`` and ``representatives`` (issue 33 item 1; issue 29 items 4, 8, 9)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from structure_files import DCD, PSF, SPLIT, datafiles, write_halves

from stpca_gui.cli import main


@pytest.fixture(scope="module")
def halves(tmp_path_factory):
    return write_halves(tmp_path_factory.mktemp("halves"))


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_dihedrals_of_two_files_writes_runs_with_times_and_the_sidecar(tmp_path, capsys,
                                                                       halves):
    table = tmp_path / "loop.csv"
    assert main(["dihedrals", PSF, *map(str, halves), "--select", "resid 7:13",
                 "--layout", "per-frame", "--stride", "10", "--out", str(table)]) == 0
    out = capsys.readouterr().out
    assert "2 runs" in out and f"wrote {table} and {table}.structure.json" in out
    rows = _rows(table)
    assert list(rows[0])[:3] == ["trajectory", "frame", "time"]
    assert [(r["trajectory"], r["frame"]) for r in rows] == [
        ("first.dcd", str(f)) for f in range(0, SPLIT, 10)] + [
        ("second.dcd", str(f)) for f in range(0, 49, 10)]
    assert float(rows[5]["time"]) == pytest.approx(SPLIT + 1.0, abs=1e-4)  # 50 ps
    assert (tmp_path / "loop.csv.structure.json").is_file()
    # Concatenated: today's numbering, one run.
    assert main(["dihedrals", PSF, *map(str, halves), "--select", "resid 7:13",
                 "--concatenate", "--stride", "10", "--out", str(tmp_path / "one.csv")]) == 0
    rows = _rows(tmp_path / "one.csv")
    assert {r["trajectory"] for r in rows} == {"first.dcd+second.dcd"}
    assert sorted({int(r["frame"]) for r in rows}) == list(range(0, 98, 10))


def test_fit_transform_and_representatives_carry_the_provenance(tmp_path, capsys, halves):
    """Provenance columns are never angles (transform counted them, issue 29 item 9) and
    reach scores.csv; a session fitted from the table knows its files, and the medoid of a
    cluster of the second run is taken from the second file."""
    table, session, model = tmp_path / "loop.csv", tmp_path / "loop.stpca", tmp_path / "m.stpca"
    assert main(["dihedrals", PSF, *map(str, halves), "--select", "resid 7:13",
                 "--layout", "per-frame", "--out", str(table)]) == 0
    assert main(["fit", str(table), "--degrees", "--curve-points", "30", "--out",
                 str(tmp_path / "fit"), "--save-session", str(session),
                 "--save-model", str(model)]) == 0
    scores = _rows(tmp_path / "fit" / "scores.csv")
    assert list(scores[0])[:4] == ["row", "trajectory", "frame", "time"]
    assert scores[SPLIT]["trajectory"] == "second.dcd" and scores[SPLIT]["frame"] == "0"
    assert main(["transform", str(model), str(table), "--degrees",
                 "--out", str(tmp_path / "scored.csv")]) == 0
    scored = _rows(tmp_path / "scored.csv")
    assert list(scored[0])[:4] == ["row", "trajectory", "frame", "time"]
    assert len(scored) == 98 and np.allclose([float(r["PNS1"]) for r in scored],
                                             [float(r["PNS1"]) for r in scores], atol=1e-6)
    capsys.readouterr()
    assert main(["representatives", str(session), PSF, *map(str, halves), "--atoms",
                 "resid 7:13", "--out", str(tmp_path / "reps")]) == 0
    captured = capsys.readouterr()
    assert "warning" not in captured.err
    clusters = _rows(tmp_path / "reps" / "clusters.csv")
    assert list(clusters[0])[:3] == ["trajectory", "time", "frame"]
    assert [r["trajectory"] for r in clusters] == [r["trajectory"] for r in scores]
    # One numbering everywhere (issue 31): the clusters of scores.csv, 1…K, are those of
    # clusters.csv, of the PDB files' names and of the lines printed.
    assert [r["cluster"] for r in clusters] == [r["cluster"] for r in scores]
    numbers = sorted({int(r["cluster"]) for r in scores})
    assert numbers[0] == 1
    assert sorted(p.name for p in (tmp_path / "reps").glob("cluster_*.pdb")) == [
        f"cluster_{k}.pdb" for k in numbers]
    assert [int(line.split(":")[0].split()[1]) for line in captured.out.splitlines()
            if line.startswith("cluster ")] == numbers
    # In another order the files are not the recorded ones: refused.
    assert main(["representatives", str(session), PSF, *map(str, reversed(halves)),
                 "--out", str(tmp_path / "swapped")]) == 1
    assert "not the file the data of" in capsys.readouterr().err
    assert not (tmp_path / "swapped").exists()


@pytest.mark.parametrize(("args", "message"), [
    ([DCD, datafiles.XTC], "adk_oplsaa.xtc: cannot be read as a trajectory: its frames have "
                           "47681 atoms, but the topology adk.psf has 3,341"),
    ([DCD, "--torsion", "frame=bynum 1;bynum 2;bynum 3;bynum 4"],
     "the torsion name 'frame' is the name of a provenance column"),
    ([DCD, "--torsion", "a,b=bynum 1;bynum 2;bynum 3;bynum 4"], "holds one of , ; ="),
    ([DCD, "--select", " or ".join(f"resid {k}" for k in range(1, 801))],
     "799 and/or/not operators"),
])
def test_dihedrals_bad_input_exits_1_and_writes_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "t.csv"
    assert main(["dihedrals", PSF, *args, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert message in err and err.startswith("stpca: error: ") and len(err) < 600
    assert list(tmp_path.iterdir()) == []


def test_dihedrals_never_writes_over_its_inputs(tmp_path, capsys):
    """Issue 29 item 1 on the structure surface: --out naming the trajectory replaced it."""
    trajectory = tmp_path / "traj.dcd"
    trajectory.write_bytes(Path(DCD).read_bytes())
    assert main(["dihedrals", PSF, str(trajectory), "--out", str(trajectory)]) == 1
    assert trajectory.read_bytes() == Path(DCD).read_bytes()
    assert "the table" in capsys.readouterr().err
    # Nor through the sidecar it writes beside the table.
    sidecar_named = tmp_path / "t.csv.structure.json"
    sidecar_named.write_bytes(Path(DCD).read_bytes())
    assert main(["dihedrals", PSF, str(sidecar_named), "--out", str(tmp_path / "t.csv")]) == 1
    assert "the table's structure record" in capsys.readouterr().err
    assert sidecar_named.read_bytes() == Path(DCD).read_bytes()
    assert not (tmp_path / "t.csv").exists()


def test_dihedrals_reports_truncation_and_undefined_torsions_as_warnings(tmp_path, capsys):
    data = Path(DCD).read_bytes()
    cut = tmp_path / "half.dcd"
    cut.write_bytes(data[:len(data) // 2])
    assert main(["dihedrals", PSF, str(cut), "--select", "resid 10",
                 "--out", str(tmp_path / "t.csv")]) == 0
    err = capsys.readouterr().err
    assert "warning: half.dcd is truncated: its last frame is cut off; 48 complete frame(s)" \
        in err
    assert len(_rows(tmp_path / "t.csv")) == 48


def test_dihedrals_beyond_the_memory_available_exits_1_naming_the_options(
        tmp_path, capsys, monkeypatch):
    from stpca_gui.io.structures import reading

    monkeypatch.setattr(reading, "available_memory_bytes", lambda: 50_000)
    assert main(["dihedrals", PSF, DCD, "--out", str(tmp_path / "t.csv")]) == 1
    err = capsys.readouterr().err
    assert "GiB of memory is available; read fewer frames (a larger --stride" in err
    assert list(tmp_path.iterdir()) == []


def test_a_corrupt_trajectory_exits_1_without_mdanalysis_noise(tmp_path, capfd):
    import gc

    garbage = tmp_path / "garbage.xtc"
    garbage.write_bytes(np.random.default_rng(2).bytes(4000))
    assert main(["dihedrals", datafiles.GRO, str(garbage), "--out",
                 str(tmp_path / "t.csv")]) == 1
    gc.collect()
    err = capfd.readouterr().err
    assert "garbage.xtc: cannot be read as a trajectory" in err
    assert "Exception ignored" not in err and "Traceback" not in err
