"""Issue 29's attacks on the structure surfaces, outputs, sessions and tables: held / partly /
failed per attack, and the tally by category.

Usage::

    uv run python benchmarks/structure_attacks.py WORKDIR
    PYTHONPATH=<other tree> .venv/bin/python benchmarks/structure_attacks.py WORKDIR  # before

Each attack runs the command line (``stpca_gui.cli.main``) of the tree on ``sys.path`` in a
subprocess with a 3 GiB address-space limit and a timeout. An attack is *held* when the
command refuses with exit 1, a message and no traceback, and nothing the user had was
changed (or, for inputs that are fine, the command does the right thing); *partly* when
nothing was lost but the refusal came as a traceback, without naming the problem, or the
answer is incomplete; *failed* when a user's file or an input was replaced or removed, the
command wrote files it should not have, hung, or ran out of memory. Uses MDAnalysisTests'
AdK files (PSF, DCD) and files it makes. Writes WORKDIR/results.json. About 5 minutes.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import numpy as np

# The tests' hand-edited sessions (tests/session_files.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from session_files import tampered_copy

PY = sys.executable
LIMIT = 3 << 30
HELD, PARTLY, FAILED = "held", "partly", "failed"


def run(code: str, cwd: Path, timeout: float = 180) -> tuple[int, str, str]:
    pre = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))\n"
    try:
        done = subprocess.run([PY, "-c", pre + textwrap.dedent(code)], capture_output=True,
                              text=True, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        return -999, "", "TIMEOUT"
    return done.returncode, done.stdout, done.stderr


def cli(args: list[str], cwd: Path, timeout: float = 180) -> tuple[int, str, str]:
    return run(f"import sys; from stpca_gui.cli import main; sys.exit(main({args!r}))", cwd,
               timeout)


def digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def refusal(rc: int, err: str, *, kept: bool = True, names: str = "") -> str:
    """held: exit 1, a message (naming ``names``), no traceback, the user's files kept."""
    if rc == -999 or "MemoryError" in err or rc < 0:
        return FAILED
    if not kept:
        return FAILED
    if rc == 0:
        return FAILED
    if "Traceback" in err or "Exception ignored" in err or (names and names not in err):
        return PARTLY
    return HELD


class Attacks:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.results: list[dict[str, str]] = []

    def record(self, category: str, name: str, outcome: str, detail: str) -> None:
        detail = " ".join(detail.split())[-240:]
        self.results.append({"category": category, "attack": name, "outcome": outcome,
                             "detail": detail})
        print(f"{outcome.upper():7s}[{category}] {name}: {detail[-140:]}", flush=True)

    def folder(self, name: str) -> Path:
        path = self.work / name
        if path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True)
        return path


def outputs(a: Attacks, psf: str, dcd: str, session: Path) -> None:
    cat = "outputs never replace inputs or a user's files"
    for what, victim_src in (("trajectory", dcd), ("topology", psf)):
        f = a.folder(f"out-{what}")
        victim = Path(shutil.copy(victim_src, f / Path(victim_src).name))
        before = digest(victim)
        args = (["dihedrals", psf, str(victim), "--out", str(victim)] if what == "trajectory"
                else ["dihedrals", str(victim), dcd, "--out", str(victim)])
        rc, _, err = cli(args, f)
        a.record(cat, f"dihedrals --out the {what}",
                 refusal(rc, err, kept=digest(victim) == before), err)
    f = a.folder("out-session-named-like-output")
    named = Path(shutil.copy(session, f / "clusters.csv"))
    before = digest(named)
    rc, _, err = cli(["representatives", str(named), psf, dcd, "--atoms", "resid 10:11",
                      "--out", str(f)], f)
    a.record(cat, "representatives --out the session's folder, session named clusters.csv",
             refusal(rc, err, kept=digest(named) == before), err)
    for user_file in ("clusters.csv", "cluster_0.pdb", "notes.txt"):
        f = a.folder(f"out-user-{user_file}")
        (f / user_file).write_text("the user's own\n")
        rc, _, err = cli(["representatives", str(session), psf, dcd, "--atoms",
                          "resid 10:11", "--out", str(f)], f)
        kept = (f / user_file).read_text() == "the user's own\n"
        wrote = (f / "clusters.csv").exists() and user_file != "clusters.csv"
        a.record(cat, f"representatives into a folder holding a user's {user_file}",
                 refusal(rc, err, kept=kept and not wrote), err)
    f = a.folder("out-stale")
    (f / "cluster_7.pdb").write_text("of another run\n")
    rc, _, err = cli(["representatives", str(session), psf, dcd, "--atoms", "resid 10:11",
                      "--out", str(f)], f)
    mixed = (f / "clusters.csv").exists() and (f / "cluster_7.pdb").exists()
    a.record(cat, "representatives beside a cluster_7.pdb clusters.csv will not list",
             refusal(rc, err, kept=not mixed), err)
    f = a.folder("out-fit")
    table = f / "t.csv"
    table.write_text("a,b\n" + "".join(f"{k % 7 * .7},{k % 5 * 1.1}\n" for k in range(40)))
    (f / "out").mkdir()
    (f / "out" / "scores.csv").write_text("my scores\n")
    rc, _, err = cli(["fit", str(table), "--curve-points", "20", "--out", str(f / "out")], f)
    a.record(cat, "fit --out a folder holding the user's scores.csv",
             refusal(rc, err, kept=(f / "out" / "scores.csv").read_text() == "my scores\n"),
             err)
    f = a.folder("out-script")
    copy = Path(shutil.copy(session, f / "work.stpca"))
    before = digest(copy)
    rc, _, err = cli(["export-script", str(copy), str(copy)], f)
    a.record(cat, "export-script over its session", refusal(rc, err, kept=digest(copy) == before),
             err)
    (f / "analysis-data.csv").write_text("row,mine\n1,2\n")
    rc, _, err = cli(["export-script", str(copy), str(f / "analysis.py")], f)
    kept = (f / "analysis-data.csv").read_text() == "row,mine\n1,2\n"
    outcome = HELD if kept and rc in (0, 1) and "Traceback" not in err else FAILED
    a.record(cat, "export-script beside a user's analysis-data.csv starting 'row,'", outcome,
             err or "kept")


LABELS = "arrays/result.mode_clusters.labels.npy"


def sessions(a: Attacks, psf: str, dcd: str, session: Path) -> None:
    cat = "hand-edited sessions"
    n = 98

    def clusters(m):
        return m["result"]["mode_clusters"]["fields"]

    def record(m):
        return m["dataset"]["structure"]["items"]

    cases = [
        ("labels -1", None, {LABELS: np.full(n, -1)}),
        ("labels 10^12", None, {LABELS: np.full(n, 10**12)}),
        ("labels int64 min", None, {LABELS: np.full(n, np.iinfo(np.int64).min)}),
        ("labels 0.5", None, {LABELS: np.full(n, 0.5)}),
        ("98 labels for the modes claimed", None, {LABELS: np.arange(n)}),
        ("alpha as text", lambda m: clusters(m)["mode_test"]["fields"].update(alpha="0.05"),
         None),
        ("sha256 a string", lambda m: record(m).update(sha256="abc"), None),
        ("sha256 a list", lambda m: record(m).update(sha256=["abc"]), None),
        ("sha256 missing", lambda m: record(m).pop("sha256"), None),
        ("record without topology", lambda m: record(m).pop("topology"), None),
        ("trajectories a number", lambda m: record(m).update(trajectories=3), None),
        ("pooled layout without segid",
         lambda m: record(m)["settings"]["items"].update(layout="pooled"), None),
        ("frame column 1e30", None,
         {"arrays/dataset.provenance.frame.npy": np.full(n, 1e30)}),
    ]
    for name, edit, arrays in cases:
        f = a.folder("s-" + name.replace(" ", "-"))
        try:
            bad = tampered_copy(session, f / "bad.stpca", edit=edit, arrays=arrays)
        except (KeyError, TypeError) as exc:  # a tree whose sessions lack the field
            print(f"SKIPPED [{cat}] {name}: the session has no such field ({exc})")
            continue
        out = f / "reps"
        rc, _, err = cli(["representatives", str(bad), psf, dcd, "--atoms", "resid 10:11",
                          "--out", str(out)], f)
        wrote = out.exists() and any(out.iterdir())
        outcome = refusal(rc, err, kept=not wrote, names="bad.stpca")
        rc2, _, err2 = cli(["export-script", str(bad), str(f / "x.py")], f)
        script = refusal(rc2, err2, names="bad.stpca") if rc2 != 0 else PARTLY
        worst = min((outcome, script), key=[FAILED, PARTLY, HELD].index)
        a.record(cat, f"{name}: representatives / export-script", worst,
                 f"{outcome}/{script}: {err} | {err2}")


def tables(a: Attacks) -> None:
    cat = "tables"
    f = a.folder("tables")
    rows = "".join(f"{k % 7 * .7},{k % 5 * 1.1}\n" for k in range(30))

    def attack(name, text, args=(), expect="", ok_exit=False, timeout=120):
        path = f / f"{name.replace(' ', '-')}.csv"
        if text is not None:
            path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        start = time.perf_counter()
        rc, out, err = cli(["fit", str(path), "--curve-points", "10", *args], f, timeout)
        took = time.perf_counter() - start
        if ok_exit:
            outcome = HELD if rc == 0 and expect in out else PARTLY if rc == 0 else FAILED
        else:
            outcome = refusal(rc, err)
            if outcome == HELD and expect and expect not in err:
                outcome = PARTLY
        a.record(cat, name, outcome, f"{took:.1f} s: {err or out}")

    attack("a 200 MB line", b"a,b\n" + b"1" * (200 << 20) + b"\n" + rows.encode(),
           expect="longer than")
    attack("a row with more fields than the header", "a,b\n" + rows + "0.1,0.2,0.3\n",
           expect="fields")
    attack("1_000 as a number", "a,b\n" + rows + "1_000,0.2\n", expect="1_000")
    attack("--degrees 1e20", "a,b\n" + rows + "10,1e20\n", ["--degrees"], expect="1e20")
    attack("labels with U+2028 and U+0085", "a,b,g\n" + "".join(
        f"{k % 7 * .7},{k % 5 * 1.1},x\u2028y\u0085{k}\n" for k in range(30)),
        ["--label", "g"], expect="30", ok_exit=True)
    fifo = f / "a-FIFO-without-writer.csv"
    if hasattr(os, "mkfifo"):
        if fifo.exists():
            fifo.unlink()
        os.mkfifo(fifo)
        attack("a FIFO without writer", None, expect="regular", timeout=30)
    wide = ",".join(f"c{k}" for k in range(10**6)) + "\n"
    body = "".join(",".join(["0.1"] * 10**6) + "\n" for _ in range(5))
    attack("5 rows x 10^6 columns", wide + body, expect="columns", timeout=300)


def structures(a: Attacks, psf: str, dcd: str) -> None:
    cat = "structure surfaces"
    f = a.folder("structures")
    rc, _, err = cli(["dihedrals", psf, dcd, "--stride", str(10**30), "--out",
                      str(f / "o.csv")], f)
    a.record(cat, "--stride 10^30", refusal(rc, err), err)
    cut = f / "cut.dcd"
    cut.write_bytes(Path(dcd).read_bytes()[:300])
    rc, _, err = cli(["dihedrals", psf, str(cut), "--out", str(f / "o.csv")], f)
    a.record(cat, "a DCD cut inside its header", refusal(rc, err, names="cut.dcd"), err)
    half = f / "half.dcd"
    data = Path(dcd).read_bytes()
    half.write_bytes(data[:len(data) // 2])
    rc, out, err = cli(["dihedrals", psf, str(half), "--select", "resid 10:11",
                        "--layout", "per-frame", "--out", str(f / "h.csv")], f)
    said = "cut short" in err or "truncated" in (err + out)
    a.record(cat, "a DCD cut in half reported as cut short",
             HELD if rc == 0 and said and "Traceback" not in err else PARTLY if rc in (0, 1)
             else FAILED, err + out)
    for name in ("frame", "a\nb"):
        rc, _, err = cli(["dihedrals", psf, dcd, "--torsion",
                          f"{name}=bynum 1;bynum 2;bynum 3;bynum 4", "--out",
                          str(f / "t.csv")], f)
        if rc == 0:
            rc2, _, err2 = cli(["fit", str(f / "t.csv"), "--degrees", "--curve-points", "10"],
                               f)
            outcome = HELD if rc2 == 0 else PARTLY
            err = err2
        else:
            outcome = refusal(rc, err)
        a.record(cat, f"--torsion named {name!r}", outcome, err)
    many = " or ".join(f"resid {k}" for k in range(800))
    rc, _, err = cli(["dihedrals", psf, dcd, "--select", many, "--out", str(f / "m.csv")], f)
    a.record(cat, "a selection of 800 'or' terms",
             HELD if rc in (0, 1) and "Traceback" not in err and len(err) < 2000
             else PARTLY if rc in (0, 1) else FAILED, err[:300])


def temporaries(a: Attacks) -> None:
    cat = "temporaries and tools"
    f = a.folder("temporaries")
    target = f / "scores.csv"
    run(f"""
        import os
        from stpca_gui.files.atomic import atomic_path
        with atomic_path({str(target)!r}) as tmp:
            tmp.write_bytes(b"x" * 1000000); os._exit(9)
        """, f)
    run(f"""
        from stpca_gui.files.atomic import atomic_write_text
        atomic_write_text({str(target)!r}, "new\\n")
        """, f)
    left = [p.name for p in f.iterdir() if p.name != "scores.csv"]
    a.record(cat, "a killed write's temporary, at the next write",
             HELD if not left else PARTLY, f"left {left}")
    g = a.folder("help")
    script = Path(__file__).resolve().parent / "file_attacks.py"
    try:
        done = subprocess.run([PY, str(script), "--help"], cwd=g, capture_output=True,
                              text=True, timeout=30)
        ok = done.returncode == 0 and done.stdout.startswith("usage:")
        outcome = HELD if ok and not (g / "--help").exists() else FAILED
        detail = done.stdout[:100]
    except subprocess.TimeoutExpired:
        outcome, detail = FAILED, "started a run"
    finally:
        shutil.rmtree(g / "--help", ignore_errors=True)
    a.record(cat, "file_attacks.py --help", outcome, detail)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workdir", type=Path, help="a folder for the attacks' files (created)")
    work = parser.parse_args().workdir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    from MDAnalysisTests.datafiles import DCD, PSF

    a = Attacks(work)
    base = a.folder("base")
    table, session = base / "loop.csv", base / "loop.stpca"
    for args in (["dihedrals", PSF, DCD, "--select", "resid 10:11", "--layout", "per-frame",
                  "--out", str(table)],
                 ["fit", str(table), "--degrees", "--curve-points", "20",
                  "--save-session", str(session)]):
        rc, _, err = cli(args, base, 600)
        if rc != 0:
            sys.exit(f"cannot make the base session: {err}")
    outputs(a, PSF, DCD, session)
    sessions(a, PSF, DCD, session)
    tables(a)
    structures(a, PSF, DCD)
    temporaries(a)
    (work / "results.json").write_text(json.dumps(a.results, indent=1))
    print("\ncategory: tried / held / partly / failed")
    for category in dict.fromkeys(r["category"] for r in a.results):
        counts = Counter(r["outcome"] for r in a.results if r["category"] == category)
        print(f"  {category}: {sum(counts.values())} / {counts[HELD]} / {counts[PARTLY]} / "
              f"{counts[FAILED]}")
    total = Counter(r["outcome"] for r in a.results)
    print(f"  all: {len(a.results)} / {total[HELD]} / {total[PARTLY]} / {total[FAILED]}")


if __name__ == "__main__":
    main()
