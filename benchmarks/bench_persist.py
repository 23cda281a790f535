"""Model files, `stpca transform` and dask scoring: times, sizes, throughput, memory.

Usage::

    uv run python benchmarks/bench_persist.py [--large-n 200000] [--landmarks 200]
        [--rows 1000000] [--workdir /tmp/stpca-bench-persist] [--skip-large]
        [--skip-transform] [--skip-cluster] [--repeats 1] [--compare-python PY] [--json OUT]
        [--record [DIR]]

Printed as Markdown to stdout (progress on stderr):

1. **Model files**: the exact fit of the sunspots cycle-23 lag-3 series (n = 5371 on T³)
   and a landmark fit of ``--large-n`` points on T⁴ (three wrapped-normal clusters and 10 %
   uniform background; ``--landmarks`` landmarks, PNS mode "small", no torus variance, so
   that the fit stays short). Per model: save and load time (best of 3), file size, and
   whether ``transform`` of 2000 new points is bit-identical after loading; the size of
   the scoring-only file (``scoring_only=True``) and whether it scores bit-identically.
2. **stpca transform**: a ``--rows``-row CSV of new T⁴ points (written to ``--workdir``,
   removed afterwards) scored with the landmark model by ``stpca transform`` in a child
   process under ``/usr/bin/time -v`` (wall time, user + system CPU time, peak RSS),
   ``--repeats`` times. With ``--compare-python`` (the interpreter of another checkout's
   virtual environment, e.g. ``../old/.venv/bin/python``) that checkout's ``stpca
   transform`` scores the same file with the same model file, its runs interleaved with
   these (this, other, this, other …), each with the load average at its start: on a
   shared machine the pairs see the same load, and the CPU time depends little on it.
   The reading and writing alone (the chunked reader and the streamed writer without
   scoring) are timed in-process, to show what the pipeline costs next to the
   interpolation map T̂.
3. **dask LocalCluster** (2 worker processes, 1 thread each): ``transform`` of a 20,000-row
   dask array against the in-memory transform (largest absolute difference).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import _common as common
import numpy as np
from _common import fmt

from stpca_gui.core import ScaledTorusPCA, load_model, save_model
from stpca_gui.io import iter_angle_chunks, write_score_stream

log = common.make_logger("bench_persist")


def t4_clusters(n: int, rng: np.random.Generator) -> np.ndarray:
    """Three wrapped-normal clusters (sd 0.3) on T⁴ with 10 % uniform background."""
    centres = np.array([[0.0, 0.0, 0.0, 0.0], [2.0, -2.0, 1.0, 0.5], [-2.0, 2.0, -1.0, -2.5]])
    points = centres[rng.integers(0, 3, n)] + 0.3 * rng.standard_normal((n, 4))
    background = rng.random(n) < 0.1
    points[background] = rng.uniform(-np.pi, np.pi, (int(background.sum()), 4))
    return (points + np.pi) % (2 * np.pi) - np.pi


def model_file_row(name: str, model: ScaledTorusPCA, fit_seconds: float, new: np.ndarray,
                   workdir: Path) -> dict:
    path = workdir / f"{name}.stpca"
    save_times, load_times = [], []
    for _ in range(3):
        start = time.perf_counter()
        save_model(model, path)
        save_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        loaded = load_model(path)
        load_times.append(time.perf_counter() - start)
    expected = model.transform(new).tobytes()
    identical = loaded.transform(new).tobytes() == expected
    lean_path = workdir / f"{name}-scoring-only.stpca"
    save_model(model, lean_path, scoring_only=True)
    lean_identical = load_model(lean_path).transform(new).tobytes() == expected
    return {"model": name, "n": int(model.scores_.shape[0]), "m": int(model.n_landmarks_),
            "fit_s": fit_seconds, "save_s": min(save_times), "load_s": min(load_times),
            "size_mb": path.stat().st_size / 2**20, "transform_bit_identical": identical,
            "scoring_only_mb": lean_path.stat().st_size / 2**20,
            "scoring_only_identical": lean_identical, "path": path}


def write_csv(path: Path, rows: int, rng: np.random.Generator, block: int = 100_000) -> None:
    with open(path, "w") as handle:
        handle.write("a,b,c,d\n")
        for begin in range(0, rows, block):
            np.savetxt(handle, t4_clusters(min(block, rows - begin), rng), delimiter=",",
                       fmt="%.10f")


def run_transform(model_path: Path, source: Path, out: Path, python: str = sys.executable
                  ) -> dict:
    """``stpca transform`` of ``source`` by ``python``'s stpca_gui under /usr/bin/time -v."""
    load = common.load_average_text()
    command = ["/usr/bin/time", "-v", python, "-m", "stpca_gui.cli", "transform",
               str(model_path), str(source), "--out", str(out)]
    # Run from the data's folder: ``-m`` puts the working directory first on sys.path, and
    # from a checkout's root that checkout's stpca_gui would be imported whatever ``python``.
    result = subprocess.run(command, capture_output=True, text=True, check=False,
                            cwd=source.parent)
    if result.returncode != 0:
        raise RuntimeError(f"stpca transform failed:\n{result.stderr[-2000:]}")

    def reading(label: str) -> str:
        return re.search(re.escape(label) + r": ([\d:.]+)", result.stderr)[1]

    clock = reading("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    seconds = sum(float(part) * 60**k for k, part in enumerate(reversed(clock.split(":"))))
    return {"wall_s": seconds, "peak_rss_mb": int(reading("Maximum resident set size (kbytes)"))
            / 1024, "cpu_s": float(reading("User time (seconds)"))
            + float(reading("System time (seconds)")), "load": load}


def transform_rows(label: str, runs: list[dict], rows: int) -> list[str]:
    """One table row: median and best of the runs of one checkout."""
    walls = [run["wall_s"] for run in runs]
    return [label, str(len(runs)), fmt(float(np.median(walls)), ".2f"), fmt(min(walls), ".2f"),
            fmt(rows / float(np.median(walls)), ",.0f"), fmt(rows / min(walls), ",.0f"),
            fmt(float(np.median([run["cpu_s"] for run in runs])), ".2f"),
            fmt(max(run["peak_rss_mb"] for run in runs), ".0f"),
            "; ".join(run["load"].split(",")[0] for run in runs)]


def io_only_seconds(source: Path, out: Path) -> float:
    start = time.perf_counter()
    _, chunks = iter_angle_chunks(source)
    write_score_stream(out, 4, ((c.line_numbers, None, c.angles) for c in chunks))
    return time.perf_counter() - start


def cluster_difference(model: ScaledTorusPCA, rng: np.random.Generator) -> dict:
    import dask.array as da
    from distributed import Client, LocalCluster

    new = t4_clusters(20_000, rng)
    expected = model.transform(new)
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        start = time.perf_counter()
        scores = client.compute(model.transform(da.from_array(new, chunks=(2000, 4)))).result()
        seconds = time.perf_counter() - start
    return {"rows": len(new), "max_abs_difference": float(np.max(np.abs(scores - expected))),
            "seconds": seconds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large-n", type=int, default=200_000)
    parser.add_argument("--landmarks", type=int, default=200)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/stpca-bench-persist"))
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument("--skip-transform", action="store_true")
    parser.add_argument("--skip-cluster", action="store_true")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--compare-python", default=None,
                        help="another checkout's interpreter, timed interleaved with this one")
    parser.add_argument("--json", type=Path, default=None)
    common.add_record_option(parser)
    args = parser.parse_args()
    load_at_start = common.one_minute_load()
    args.workdir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    results: dict = {"machine": common.machine_info(), "load_before": common.load_average_text()}
    print(common.machine_report(results["machine"]))

    rows = []
    log("exact fit of the sunspots series")
    angles, _ = common.sunspots_series()
    start = time.perf_counter()
    exact = ScaledTorusPCA(n_landmarks=None, random_state=0).fit(angles)
    rows.append(model_file_row("sunspots-exact", exact, time.perf_counter() - start,
                               angles[:2000] + 0.01, args.workdir))
    large = None
    if not args.skip_large:
        log(f"landmark fit, n = {args.large_n}, m = {args.landmarks}")
        data = t4_clusters(args.large_n, rng)
        start = time.perf_counter()
        large = ScaledTorusPCA(n_landmarks=args.landmarks, random_state=0, pns_mode="small",
                               torus_variance=False).fit(data)
        rows.append(model_file_row("t4-landmarks", large, time.perf_counter() - start,
                                   t4_clusters(2000, rng), args.workdir))
    print("\n## Model files\n")
    print(common.markdown_table(
        ["model", "n", "m", "fit s", "save s", "load s", "file MB", "transform identical",
         "scoring-only MB", "scoring-only identical"],
        [[r["model"], str(r["n"]), str(r["m"]), fmt(r["fit_s"], ".1f"), fmt(r["save_s"]),
          fmt(r["load_s"]), fmt(r["size_mb"], ".2f"), str(r["transform_bit_identical"]),
          fmt(r["scoring_only_mb"], ".3f"), str(r["scoring_only_identical"])]
         for r in rows]))
    results["model_files"] = [{k: v for k, v in r.items() if k != "path"} for r in rows]

    if large is not None and not args.skip_transform:
        source, out = args.workdir / "new.csv", args.workdir / "scores.csv"
        log(f"writing {args.rows} rows to {source}")
        write_csv(source, args.rows, rng)
        log("stpca transform (child processes under /usr/bin/time -v)")
        runs: dict[str, list[dict]] = {"this": [], "compared": []}
        for _ in range(args.repeats):
            runs["this"].append(run_transform(rows[-1]["path"], source, out))
            if args.compare_python:
                runs["compared"].append(run_transform(rows[-1]["path"], source, out,
                                                      args.compare_python))
        measured = dict(runs["this"][0])
        measured["io_only_s"] = io_only_seconds(source, args.workdir / "io-only.csv")
        measured.update(rows=args.rows, input_mb=source.stat().st_size / 2**20,
                        rows_per_s=args.rows / measured["wall_s"], m=args.landmarks,
                        runs=runs["this"], compared_runs=runs["compared"],
                        compare_python=args.compare_python)
        results["transform"] = measured
        print(f"\n## stpca transform ({args.rows:,} rows, {measured['input_mb']:.0f} MB, "
              f"m = {args.landmarks}; reading + writing alone "
              f"{measured['io_only_s']:.1f} s)\n")
        print(common.markdown_table(
            ["checkout", "runs", "median wall s", "best wall s", "median rows/s",
             "best rows/s", "median CPU s", "peak RSS MB", "load average (1 min) at start"],
            [transform_rows(label, found, args.rows) for label, found in
             (("this", runs["this"]), (str(args.compare_python), runs["compared"]))
             if found]))
        if runs["compared"]:
            ratio = (np.median([r["wall_s"] for r in runs["compared"]])
                     / np.median([r["wall_s"] for r in runs["this"]]))
            cpu_ratio = (np.median([r["cpu_s"] for r in runs["compared"]])
                         / np.median([r["cpu_s"] for r in runs["this"]]))
            print(f"\nthis / compared: {ratio:.2f}× the rows/s (medians), "
                  f"{cpu_ratio:.2f}× less CPU time")
        shutil.rmtree(args.workdir, ignore_errors=True)
        if args.record:  # the numbers docs/measured.md shows: medians of this checkout's runs
            common.record(args.record, __file__, {"transform": {
                "rows": args.rows, "model_n": args.large_n, "landmarks": args.landmarks,
                "rows_per_s": args.rows / float(np.median([r["wall_s"] for r in runs["this"]])),
                "cpu_s": float(np.median([r["cpu_s"] for r in runs["this"]]))}},
                load_at_start=load_at_start, log=log)

    if large is not None and not args.skip_cluster:
        log("dask LocalCluster")
        cluster = cluster_difference(large, rng)
        results["cluster"] = cluster
        print("\n## dask LocalCluster (2 processes)\n")
        print(f"{cluster['rows']:,} rows: largest |difference| from the in-memory transform "
              f"{cluster['max_abs_difference']:.2e} ({cluster['seconds']:.1f} s)")
    return common.finish(results, args.json, log)


if __name__ == "__main__":
    sys.exit(main())
