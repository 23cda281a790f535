"""Issue 20's attacks on shared files, re-run against a code tree: held / failed per attack.

Usage::

    uv run python benchmarks/file_attacks.py WORKDIR
    PYTHONPATH=<other tree> .venv/bin/python benchmarks/file_attacks.py WORKDIR  # before

Hostile model files (shapes, non-finite values, dtype kinds, bombs, compression methods,
encryption, entry counts, NaN JSON), sessions (model mismatch, NaN views, degenerate
cameras, long undo histories, bombs), exported scripts (code in names and metadata),
outputs over inputs, saving (modes, symlinks, orphaned temporaries) and CSV quoting. Each
attack runs in its own subprocess with a 3 GB address-space limit and a timeout (a heap
corruption or a memory bomb ends that subprocess, not the run). Writes WORKDIR/results.json
and prints one line per attack and the tally. About 8 minutes on 2 cores.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import numpy as np

PY = sys.executable
#: The work folder (set by :func:`parse_arguments`).
WORK = Path()
LIMIT = 3 << 30
RESULTS = []


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line: the work folder (created), nothing else."""
    parser = argparse.ArgumentParser(
        description="Issue 20's attacks on shared files, each in a subprocess with memory "
                    "and time limits; writes WORKDIR/results.json and prints the tally "
                    "(about 8 minutes on 2 cores).")
    parser.add_argument("workdir", type=Path,
                        help="a folder for the attacks' files (created; reused runs clean "
                             "their own sub-folders)")
    return parser.parse_args(argv)


def run(code: str, timeout: float = 120, cwd: Path | None = None
        ) -> tuple[int, str, str, float]:
    cwd = WORK if cwd is None else cwd
    pre = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))\n"
    start = time.perf_counter()
    try:
        p = subprocess.run([PY, "-c", pre + textwrap.dedent(code)], capture_output=True,
                           text=True, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        return -999, "", "TIMEOUT", time.perf_counter() - start
    return p.returncode, p.stdout, p.stderr, time.perf_counter() - start


def cli(args: list[str], timeout: float = 300) -> tuple[int, str, str, float]:
    return run(f"import sys; from stpca_gui.cli import main; sys.exit(main({args!r}))", timeout)


def record(category: str, name: str, held: bool, detail: str) -> None:
    RESULTS.append({"category": category, "attack": name, "held": bool(held),
                    "detail": detail[-300:].strip().replace("\n", " | ")})
    print(f"{'HELD  ' if held else 'FAILED'} [{category}] {name}: {detail[-160:].strip()!r}",
          flush=True)


def clean_error(rc, out, err, path) -> bool:
    """exit 1, no traceback, message names the file."""
    return rc == 1 and "Traceback" not in err and str(path) in err


def rewrite(src: Path, dst: Path, *, metadata=None, arrays=None, raw=None, compress=None,
            extra=None, drop=()):
    """Copy a ZIP container changing entries. metadata: fn(dict)->dict for metadata.json
    (or 'model/metadata.json' via key), arrays: {name: ndarray}, raw: {name: bytes}."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            name = info.filename
            if name in drop:
                continue
            data = zin.read(name)
            if metadata and name in metadata:
                data = json.dumps(metadata[name](json.loads(data))).encode()
            if arrays and name in arrays:
                import io
                buf = io.BytesIO()
                np.lib.format.write_array(buf, arrays[name])
                data = buf.getvalue()
            if raw and name in raw:
                data = raw[name]
            method = (compress or {}).get(name, zipfile.ZIP_STORED)
            zout.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data,
                          compress_type=method)
        for name, data in (extra or {}).items():
            zout.writestr(name, data)


def main() -> None:
    global WORK
    WORK = parse_arguments().workdir.resolve()
    WORK.mkdir(parents=True, exist_ok=True)
    base = WORK / "base"
    if base.exists():
        shutil.rmtree(base)
    base.mkdir()
    rows = ["phi,psi,group"]
    rng = np.random.default_rng(0)
    for k in range(60):
        rows.append(f"{rng.normal(0.5, 0.3):.5f},{rng.normal(-1, 0.4):.5f},g{k % 3}")
    table = base / "angles.csv"
    table.write_text("\n".join(rows) + "\n")
    rc, _out, err, _ = cli(["fit", str(table), "--label", "group", "--seed", "1",
                           "--save-model", str(base / "model.stpca"),
                           "--save-session", str(base / "session.stpca")])
    assert rc == 0, err
    model, session = base / "model.stpca", base / "session.stpca"
    M, _S = "metadata.json", "model/metadata.json"
    with zipfile.ZipFile(model) as z:
        emb = np.lib.format.read_array(z.open("arrays/smds_.embedding_.npy"))
        ang = np.lib.format.read_array(z.open("arrays/angles_.npy"))

    def transform(bad: Path, cat: str, name: str, *, timeout=120, expect=None):
        out = WORK / f"{bad.stem}-scores.csv"
        rc, o, err, dt = cli(["transform", str(bad), str(table), "--label", "group", "--out",
                              str(out)], timeout)
        held = clean_error(rc, o, err, bad) and (expect is None or expect in err)
        record(cat, name, held, f"rc={rc} {dt:.1f}s {err}")

    # ----------------------------------------------------------- model files
    bad = WORK / "m-rows.stpca"
    rewrite(model, bad, arrays={"arrays/smds_.embedding_.npy": np.vstack([emb] * 40)})
    transform(bad, "model: shapes", "embedding rows > angles rows (heap corruption)")
    for what, entry, fn in (
            ("NaN in embedding", "arrays/smds_.embedding_.npy",
             lambda: np.where(np.arange(emb.size).reshape(emb.shape) == 3, np.nan, emb)),
            ("inf in PNS mean", "arrays/pns_.mean_.npy", lambda: np.array([np.inf, 0, 0])),
            ("NaN in rotation", "arrays/pns_.rotations_.0.npy",
             lambda: np.full((3, 3), np.nan))):
        bad = WORK / f"m-{entry.split('/')[-1]}-nan.stpca"
        rewrite(model, bad, arrays={entry: fn()})
        transform(bad, "model: finiteness", what)
    bad = WORK / "m-radius.stpca"

    def inf_radius(md):
        md["tree"]["attributes"]["match_"]["fields"]["radius"] = {"$type": "float",
                                                                 "value": "inf"}
        return md
    rewrite(model, bad, metadata={M: inf_radius})
    transform(bad, "model: finiteness", "infinite match radius")
    for kind, arr in (("int", ang.astype(np.int64)), ("complex", ang.astype(complex)),
                      ("text", ang.astype(str))):
        bad = WORK / f"m-dtype-{kind}.stpca"
        rewrite(model, bad, arrays={"arrays/angles_.npy": arr, "arrays/smds_.angles_.npy": arr})
        transform(bad, "model: dtype kinds", f"angles stored as {kind}")
    bad = WORK / "m-rot-shape.stpca"
    rewrite(model, bad, arrays={"arrays/pns_.rotations_.0.npy": np.eye(2)})
    transform(bad, "model: shapes", "rotation not square of the right size")
    # bombs
    bad = WORK / "m-json-bomb.stpca"

    def padded(md):
        md["notes"] = ["x" * (1 << 20)] * 400  # 400 MB of JSON, deflates to ~0.4 MB
        return md
    rewrite(model, bad, metadata={M: padded}, compress={M: zipfile.ZIP_DEFLATED})
    transform(bad, "model: bombs", f"metadata.json deflate bomb ({bad.stat().st_size:,} B file)",
              timeout=240)
    bad = WORK / "m-npy-bomb.stpca"
    rewrite(model, bad, arrays={"arrays/angles_.npy": np.zeros((200_000_000, 2))},
            compress={"arrays/angles_.npy": zipfile.ZIP_DEFLATED})
    transform(bad, "model: bombs", "npy deflate bomb 3.2 GB", timeout=240)
    bad = WORK / "m-npy-huge-header.stpca"
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }"
    header += b" " * (118 - len(header)) + b"\n"
    rewrite(model, bad, raw={"arrays/angles_.npy": b"\x93NUMPY\x01\x00v\x00" + header})
    transform(bad, "model: bombs", ".npy header declaring (1e6, 1e6)")
    for method in (9, 99, zipfile.ZIP_BZIP2):
        bad = WORK / f"m-method-{method}.stpca"
        rewrite(model, bad)
        data = bytearray(bad.read_bytes())
        # patch the compression method of every entry (local + central headers)
        i = 0
        while (i := data.find(b"PK\x03\x04", i)) >= 0:
            data[i + 8:i + 10] = method.to_bytes(2, "little")
            i += 4
        i = 0
        while (i := data.find(b"PK\x01\x02", i)) >= 0:
            data[i + 10:i + 12] = method.to_bytes(2, "little")
            i += 4
        bad.write_bytes(bytes(data))
        transform(bad, "model: bombs", f"compression method {method}")
    bad = WORK / "m-encrypted.stpca"
    rewrite(model, bad)
    data = bytearray(bad.read_bytes())
    i = 0
    while (i := data.find(b"PK\x01\x02", i)) >= 0:
        data[i + 8] |= 1
        i += 4
    i = 0
    while (i := data.find(b"PK\x03\x04", i)) >= 0:
        data[i + 6] |= 1
        i += 4
    bad.write_bytes(bytes(data))
    transform(bad, "model: bombs", "encrypted entries")
    bad = WORK / "m-many.stpca"
    rewrite(model, bad, extra={f"junk/{k}": b"" for k in range(30_000)})
    transform(bad, "model: bombs", "30,000 extra entries")
    bad = WORK / "m-nan-json.stpca"
    rewrite(model, bad, raw={M: model_meta_with_nan(model)})
    transform(bad, "model: json", "NaN constant in metadata.json (radius_)")
    transform(session, "model: messages", "a session given to transform says so",
              expect="this is an stpca session file")
    bad = WORK / "m-trunc.stpca"
    bad.write_bytes(model.read_bytes()[:5000])
    transform(bad, "model: messages", "truncated model")

    # ------------------------------------------------------------- sessions
    def opens(bad: Path, cat: str, name: str, must_refuse=True, timeout=120, then_save=False):
        code = f"""
        import sys, time
        from stpca_gui.model.session_file import load_session, save_session, SessionFileError
        t = time.perf_counter()
        try:
            s = load_session({str(bad)!r})
        except SessionFileError as e:
            print("REFUSED", e); sys.exit(3)
        print("OPENED", round(time.perf_counter() - t, 2))
        if {then_save!r}:
            save_session(s, {str(bad) + '.resaved'!r}); print("SAVED")
        """
        rc, o, err, dt = run(code, timeout)
        if must_refuse:
            held = rc == 3 and str(bad) in o
        else:
            held = rc == 0 and "Traceback" not in err
        record(cat, name, held, f"rc={rc} {dt:.1f}s {o} {err}")

    bad = WORK / "s-rows.stpca"
    with zipfile.ZipFile(session) as z:
        semb = np.lib.format.read_array(z.open("model/arrays/smds_.embedding_.npy"))
    rewrite(session, bad, arrays={"model/arrays/smds_.embedding_.npy": np.vstack([semb] * 3)})
    opens(bad, "session: model", "model embedding rows > angles rows")
    bad = WORK / "s-views-nan.stpca"
    rewrite(session, bad, raw={M: session_meta_views(session, '{"torus": {"camera": '
                                                     '{"position": [NaN, 0, 1]}}}')})
    opens(bad, "session: views", "NaN in views refused (before: opened, could never be saved)",
          then_save=True)
    bad = WORK / "s-camera.stpca"
    cam = ('{"torus": {"camera": {"position": [5, 0, 0], "focal_point": [0, 0, 0], '
           '"view_up": [0, 0, 0], "parallel_scale": 2}}}')
    rewrite(session, bad, raw={M: session_meta_views(session, cam)})
    opens(bad, "session: views", "degenerate camera view_up = 0")
    bad = WORK / "s-history.stpca"
    make_history(session, bad, 20_000)
    code = f"""
    import time
    from stpca_gui.model.session_file import load_session
    t = time.perf_counter(); s = load_session({str(bad)!r})
    from stpca_gui.model.selection import SelectionModel
    m = SelectionModel(s.dataset.n_samples); m.restore(s.groups, s.selection_history,
    active_group=s.active_group)
    print("steps", len(s.selection_history), "seconds", round(time.perf_counter() - t, 2))
    """
    rc, o, err, dt = run(code, 300)
    steps = int(o.split()[1]) if o.startswith("steps") else -1
    record("session: history", "20,000 undo steps in a session", rc in (0, 1) and steps <= 20,
           f"rc={rc} {dt:.1f}s {o} {err[-200:]}")
    bad = WORK / "s-json-bomb.stpca"

    def spad(md):
        md["views"] = {"pad": "x" * (300 << 20)}
        return md
    rewrite(session, bad, metadata={M: spad}, compress={M: zipfile.ZIP_DEFLATED})
    opens(bad, "session: bombs", "metadata.json deflate bomb in a session", timeout=240)

    # -------------------------------------------------------- script export
    def export_and_import(sess: Path, name: str, cat: str, marker: Path):
        script = WORK / f"{sess.stem}-script.py"
        for p in (script, marker):
            p.unlink(missing_ok=True)
        rc, _o, err, _dt = cli(["export-script", str(sess), str(script)])
        compiled = None
        if rc == 0:
            code = f"""
            import runpy
            try:
                compile(open({str(script)!r}, encoding='utf-8').read(), 's', 'exec')
            except (SyntaxError, ValueError) as e:
                print('NOCOMPILE', e); raise SystemExit(5)
            runpy.run_path({str(script)!r}, run_name='imported')
            print('IMPORTED')
            """
            _rc2, o2, _e2, _ = run(code, 120, cwd=WORK)
            compiled = "NOCOMPILE" not in o2
        ran = marker.exists()
        held = (not ran) and (rc == 1 or (rc == 0 and compiled))
        record(cat, name, held, f"export rc={rc} compiled={compiled} payload_ran={ran} "
               f"{err[-150:]}")

    marker = WORK / "PWNED"
    payload = 'x"""\n__import__("os").system("touch PWNED")\n"""'
    weird = base / f"d{payload}.csv"
    shutil.copy(table, weird)
    s1 = WORK / "s-name.stpca"
    rc, o, err, _ = cli(["fit", str(weird), "--label", "group", "--seed", "1",
                         "--save-session", str(s1)])
    if rc == 0:
        export_and_import(s1, "payload in the data file's name", "script: code injection",
                          marker)
    else:
        record("script: code injection", "payload in the data file's name", True,
               f"fit refused: {err[-150:]}")
    for field in ("dataset.source", "source.path", "dataset.description"):
        bad = WORK / f"s-{field}.stpca"

        def plant(md, field=field):
            text = f'"""\n__import__("os").system("touch {marker}")\n"""'
            a, b = field.split(".")
            md[a][b] = text
            return md
        rewrite(session, bad, metadata={M: plant})
        export_and_import(bad, f"payload in metadata {field}", "script: code injection",
                          marker)
    bad = WORK / "s-4quotes.stpca"

    def four(md):
        md["dataset"]["description"] = f'""""\n__import__("os").system("touch {marker}")#'
        return md
    rewrite(session, bad, metadata={M: four})
    export_and_import(bad, 'four quotes """" bypass', "script: code injection", marker)
    for label, text in (("NUL", "a\x00b"), ("triple quote", 'a"""b'), ("backslash end", "a\\")):
        bad = WORK / f"s-name-{label.replace(' ', '')}.stpca"

        def nm(md, text=text):
            md["dataset"]["name"] = text
            md["dataset"]["description"] = text
            return md
        rewrite(session, bad, metadata={M: nm})
        export_and_import(bad, f"{label} in the name compiles", "script: code injection",
                          marker)

    # -------------------------------------------------------------- overwrite
    victim = WORK / "victim.csv"
    shutil.copy(table, victim)
    before = victim.read_bytes()
    rc, o, err, _ = cli(["transform", str(model), str(victim), "--label", "group", "--out",
                         str(victim)])
    record("overwrite", "transform --out = its input table", victim.read_bytes() == before
           and rc == 1, f"rc={rc} {err[-150:]}")
    folder = WORK / "scriptdir"
    folder.mkdir(exist_ok=True)
    user = folder / "angles-data.csv"
    user.write_text("my,own\n1,2\n")
    rc, o, err, _ = cli(["export-script", str(session), str(folder / "angles.py")])
    record("overwrite", "script data copy over the user's angles-data.csv",
           user.read_text() == "my,own\n1,2\n", f"rc={rc} {err[-150:]}")
    shutil.copy(table, victim)  # the transform attack above may have replaced it
    rc, o, err, _ = cli(["fit", str(victim), "--label", "group", "--save-session",
                         str(victim)])
    record("overwrite", "fit --save-session = its input table",
           victim.read_bytes() == before, f"rc={rc} {err[-150:]}")
    outdir = WORK / "outdir"
    outdir.mkdir(exist_ok=True)
    inside = outdir / "scores.csv"
    shutil.copy(table, inside)
    rc, o, err, _ = cli(["fit", str(inside), "--label", "group", "--out", str(outdir)])
    record("overwrite", "fit --out folder holding the input as scores.csv",
           inside.read_bytes() == table.read_bytes(), f"rc={rc} {err[-150:]}")

    # ---------------------------------------------------------------- saving
    private = WORK / "private.stpca"
    shutil.copy(session, private)
    os.chmod(private, 0o600)
    rc, o, err, _ = run(f"""
    from stpca_gui.model.session_file import load_session, save_session
    save_session(load_session({str(private)!r}), {str(private)!r})""")
    mode = oct(private.stat().st_mode & 0o777)
    record("saving", "re-save keeps a 0600 session private", mode == "0o600", f"mode {mode}")
    target = WORK / "real.stpca"
    shutil.copy(model, target)
    link = WORK / "link.stpca"
    link.unlink(missing_ok=True)
    link.symlink_to(target)
    rc, o, err, _ = run(f"""
    from stpca_gui.core import load_model
    load_model({str(link)!r}).save({str(link)!r})""")
    record("saving", "saving through a symlink keeps the link", link.is_symlink(),
           f"is_symlink={link.is_symlink()} {err[-100:]}")
    orphan = WORK / ".real.0123456789ab.tmp.stpca"
    orphan.write_bytes(b"half")
    os.utime(orphan, (time.time() - 7200, time.time() - 7200))
    run(f"""
    from stpca_gui.core import load_model
    load_model({str(target)!r}).save({str(target)!r})""")
    record("saving", "orphaned temporary removed on the next save", not orphan.exists(),
           f"exists={orphan.exists()}")

    # ------------------------------------------------------------------- CSV
    crt = WORK / "cr.csv"
    crt.write_text("phi,psi,group\n" + "".join(
        f"{r.split(',')[0]},{r.split(',')[1]},\"l\r{k}\"\n" for k, r in enumerate(rows[1:])))
    rc, o, err, _ = cli(["transform", str(model), str(crt), "--label", "group", "--out",
                         str(WORK / "cr-scores.csv")])
    import csv
    try:
        with open(WORK / "cr-scores.csv", newline="") as h:
            n = len(list(csv.reader(h))) - 1
    except OSError:
        n = -1
    record("csv", "\\r in labels keeps one row per sample in scores.csv", n == 60,
           f"rc={rc} rows={n} {err[-100:]}")
    s2 = WORK / "opts.stpca"
    cli(["fit", str(table), "--label", "group", "--degrees", "--seed", "1",
         "--save-session", str(s2)])
    rc, o, err, _ = cli(["export-script", str(s2), str(WORK / "opts.py")])
    record("script", "fit --save-session records table options (script re-reads source)",
           rc == 0 and "copy of the data" not in err, f"rc={rc} {err[-150:]}")

    (WORK / "results.json").write_text(json.dumps(RESULTS, indent=1))
    held = sum(r["held"] for r in RESULTS)
    print(f"\n{held} held, {len(RESULTS) - held} failed, of {len(RESULTS)}")


def model_meta_with_nan(model: Path) -> bytes:
    with zipfile.ZipFile(model) as z:
        md = json.loads(z.read("metadata.json"))
    md["tree"]["attributes"]["radius_"] = float("nan")
    return json.dumps(md).encode()  # writes NaN


def session_meta_views(session: Path, views_json: str) -> bytes:
    with zipfile.ZipFile(session) as z:
        md = json.loads(z.read("metadata.json"))
    md["views"] = "@@VIEWS@@"
    return json.dumps(md).replace('"@@VIEWS@@"', views_json).encode()


def make_history(session: Path, dst: Path, steps: int) -> None:
    import io
    with zipfile.ZipFile(session) as z:
        md = json.loads(z.read("metadata.json"))
        n = len(np.lib.format.read_array(z.open(
            md["selection"]["groups"]["entry"])))
        entries = {i.filename: z.read(i.filename) for i in z.infolist()}
    hist = []
    with zipfile.ZipFile(session) as z:
        groups = np.lib.format.read_array(z.open(md["selection"]["groups"]["entry"]))
    for k in range(steps):
        node = {}
        same = np.array([groups[k % n]], dtype=np.int8)
        for key, arr in (("index", np.array([k % n], dtype=np.int32)),
                         ("before", same), ("after", same)):
            name = f"arrays/h{k}.{key}.npy"
            buf = io.BytesIO()
            np.lib.format.write_array(buf, arr)
            entries[name] = buf.getvalue()
            node[key] = {"$type": "array", "entry": name}
        hist.append({"$type": "dict", "items": node})
    md["selection"]["history"] = hist
    entries["metadata.json"] = json.dumps(md).encode()
    with zipfile.ZipFile(dst, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)


if __name__ == "__main__":
    main()
