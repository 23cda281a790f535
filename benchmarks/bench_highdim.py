"""ST-PCA at high dimension: the whole default fit, stage by stage, on T^20 … T^426 (issue 32).

Every case fits ``ScaledTorusPCA()`` with its default parameters (``random_state=0``) in a
fresh child process on ``make_torsion_states(n, d)`` (three conformational states of a
peptide-like chain, one row per frame), then computes the mode clusters of PNS1 as the app
does (the paper rule, then the tested rule with its stability). Per stage the child records
the wall and the CPU seconds (``time.process_time``: all threads of the process), from the
fit's progress events:

* ``smds`` — landmark choice, the start configuration and spherical MDS (all landmark sets);
* ``placing`` — T̂ of the points that are not landmarks (landmark fits only);
* ``pns`` — principal nested spheres;
* ``curve`` — the principal curve;
* ``torus variance`` — the torus explained variance (§3.5), with the sampled all-pairs
  stress of a landmark fit that follows it;
* ``clusters`` — the mode clusters of PNS1 (paper rule, tested rule with stability);

and, per case, the peak RSS (``ru_maxrss``) and its value before the fit (data made, kernels
loaded by ``warm_up()``), the load average at the start and the end, PC1's share on the
sphere and on the torus, the number of clusters and their rate against the true states.

A case that takes more than ``--limit`` seconds of CPU is stopped (``RLIMIT_CPU`` of the child;
the machine is shared, so the limit is on CPU time, with ``--wall-limit`` as a safety net)
and reported as "> limit", with the stages it finished; larger n at the same d are then not
run (``--no-skip`` runs them). A case whose data alone would take more than
``--max-data-gb`` is not run.

Usage::

    uv run python benchmarks/bench_highdim.py                       # every case, 300 s CPU limit
    uv run python benchmarks/bench_highdim.py --d 66 --n 500 2000   # some cases
    uv run python benchmarks/bench_highdim.py --limit 120 --json out.json --markdown out.md
    uv run python benchmarks/bench_highdim.py --source /tmp/old     # another checkout's code

``--source DIR`` runs the children against the ``stpca_gui`` of another checkout (e.g. an
earlier commit exported with ``git archive``), for before/after tables.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as common
from _common import fmt

MARKER = "BENCH_HIGHDIM_RESULT "
STAGE_MARKER = "BENCH_HIGHDIM_STAGE "
DIMENSIONS = (20, 66, 200, 426)
SIZES = (500, 2000, 10_000, 100_000, 1_000_000)
#: The table's stages, in order, and the fit's progress stages each one collects.
STAGES: dict[str, tuple[str, ...]] = {
    "smds": ("landmarks", "smds-start", "smds"),
    "placing": ("interpolation",),
    "pns": ("pns",),
    "curve": ("curve",),
    "torus variance": ("torus-variance",),
    "clusters": ("clusters",),
}
#: The issue's targets: (d, n) → (wall seconds, peak RSS MiB).
TARGETS: dict[tuple[int, int], tuple[float, float]] = {
    (66, 10_000): (15.0, 4096.0),
    (66, 100_000): (60.0, 4096.0),
    (66, 1_000_000): (360.0, 4096.0),
    (426, 10_000): (120.0, 4096.0),
}
log = common.make_logger("bench_highdim")


def _table_stage(fit_stage: str) -> str:
    for name, members in STAGES.items():
        if fit_stage in members:
            return name
    return fit_stage


# ------------------------------------------------------------------ child


class _StageClock:
    """Wall and CPU seconds per table stage, from the stream of progress events.

    The time between two events belongs to the stage of the earlier one; each finished
    interval is also printed on a marked stdout line, so that the parent knows what a case
    stopped at the time limit had done.
    """

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.current: str | None = None
        self._wall0 = 0.0
        self._cpu0 = 0.0

    def switch(self, stage: str | None) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        if self.current is not None:
            self.wall[self.current] = self.wall.get(self.current, 0.0) + wall - self._wall0
            self.cpu[self.current] = self.cpu.get(self.current, 0.0) + cpu - self._cpu0
            common.emit_child_result(STAGE_MARKER, {
                "stage": self.current, "wall_s": self.wall[self.current],
                "cpu_s": self.cpu[self.current], "next": stage})
        self.current, self._wall0, self._cpu0 = stage, wall, cpu

    def __call__(self, event: Any) -> bool:
        stage = _table_stage(event.stage)
        if stage != self.current:
            self.switch(None if event.stage == "done" else stage)
        return False


def child(d: int, n: int) -> dict[str, Any]:
    from stpca_gui.core import ScaledTorusPCA, model_mode_clusters
    from stpca_gui.core.torsion_states import make_torsion_states
    from stpca_gui.core.warmup import warm_up

    load_start = common.load_average_text()
    start = time.perf_counter()
    warm_up()
    warm_up_s = time.perf_counter() - start
    data = make_torsion_states(n, d, random_state=0)
    rss_before = common.peak_rss_mb()
    clock = _StageClock()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    model = ScaledTorusPCA(random_state=0).fit(data.angles, callback=clock)
    clock.switch("clusters")
    paper = model_mode_clusters(model, method="paper", labels=data.labels)
    clusters = model_mode_clusters(model, labels=data.labels, stability=True, paper=paper)
    clock.switch(None)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    pns = model.pns_
    return {
        "d": d, "n": n, "wall_s": wall, "cpu_s": cpu,
        "stage_wall_s": clock.wall, "stage_cpu_s": clock.cpu,
        "fit_timings_s": {k: float(v) for k, v in model.timings_.items()},
        "warm_up_s": warm_up_s,
        "rss_before_mb": rss_before, "peak_rss_mb": common.peak_rss_mb(),
        "load_start": load_start, "load_end": common.load_average_text(),
        "n_landmarks": int(model.n_landmarks_),
        "pc1_percent": 100.0 * float(model.explained_variance_ratio_[0]),
        "torus_pc1_percent": 100.0 * float(model.torus_explained_variance_ratio_[0]),
        "small_spheres": int(sum(kind == "small" for kind in pns.sphere_types_)),
        "levels": len(pns.sphere_types_),
        "n_clusters": int(clusters.n_clusters),
        "cluster_rate": clusters.classification_rate,
        "paper_n_clusters": int(paper.n_clusters),
        "paper_cluster_rate": paper.classification_rate,
    }


# ------------------------------------------------------------------ parent


def _limit_cpu(seconds: float) -> None:
    """In the child before it starts: SIGXCPU (which ends it) after ``seconds`` of CPU."""
    import resource

    limit = max(1, int(seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))


def run_case(d: int, n: int, limit_s: float, wall_limit_s: float,
             source: Path | None) -> dict[str, Any]:
    """Run one case in a fresh process; a case over ``limit_s`` CPU seconds (or
    ``wall_limit_s`` wall seconds) keeps its finished stages."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source) + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(d), str(n)]
    load_start = common.load_average_text()
    try:
        completed = subprocess.run(command, capture_output=True, text=True, env=env,
                                   cwd=common.REPO_ROOT, timeout=wall_limit_s, check=False,
                                   preexec_fn=lambda: _limit_cpu(limit_s))
        stdout, stderr = completed.stdout, completed.stderr
        timed_out = completed.returncode == -signal.SIGXCPU
    except subprocess.TimeoutExpired as stopped:
        stdout = _text(stopped.stdout)
        stderr, timed_out = _text(stopped.stderr), True
    stages: dict[str, dict[str, Any]] = {}
    running = None
    for line in stdout.splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
        if line.startswith(STAGE_MARKER):
            record = json.loads(line[len(STAGE_MARKER):])
            stages[record["stage"]] = record
            running = record["next"]
    if timed_out:
        return {"d": d, "n": n, "error": f"> {limit_s:.0f} s CPU", "timed_out": True,
                "stage_wall_s": {k: v["wall_s"] for k, v in stages.items()},
                "stage_cpu_s": {k: v["cpu_s"] for k, v in stages.items()},
                "stopped_in": running, "load_start": load_start,
                "load_end": common.load_average_text()}
    tail = (stderr or stdout).strip().splitlines()[-3:]
    return {"d": d, "n": n, "error": "failed: " + " / ".join(tail)}


def _text(output: bytes | str | None) -> str:
    if output is None:
        return ""
    return output.decode(errors="replace") if isinstance(output, bytes) else output


def _stage_cell(result: dict[str, Any], stage: str) -> str:
    wall = result.get("stage_wall_s", {}).get(stage)
    cpu = result.get("stage_cpu_s", {}).get(stage)
    if wall is None:
        if result.get("stopped_in") == stage:
            return "**stopped**"
        return "—"
    return f"{wall:.1f} / {cpu:.1f}"


def _size(n: int) -> str:
    exponent = len(str(n)) - 1
    return f"10^{exponent}" if n == 10**exponent and n >= 10_000 else f"{n:,}"


def report(results: list[dict[str, Any]], limit_s: float) -> str:
    """The d × n table: per stage wall / CPU seconds, totals, memory, load and results."""
    headers = (["d", "n", "total wall / CPU s"] + [f"{name} s" for name in STAGES]
               + ["PNS share of CPU", "peak RSS MiB", "load start → end", "PC1 % (torus)",
                  "clusters (rate)", "target"])
    rows = []
    for result in results:
        d, n = result["d"], result["n"]
        target = TARGETS.get((d, n))
        if "error" in result:
            total = result["error"]
            cells = [_stage_cell(result, stage) for stage in STAGES]
            load = (f"{result['load_start'].split(',')[0]} → {result['load_end'].split(',')[0]}"
                    if "load_start" in result else "—")
            rows.append([str(d), _size(n), total, *cells, "—", "—", load, "—", "—",
                         common.pass_fail(False) if target else "—"])
            continue
        cpu_total = result["cpu_s"]
        pns_share = result["stage_cpu_s"].get("pns", 0.0) / cpu_total if cpu_total else 0.0
        ok = None
        if target:
            ok = result["wall_s"] <= target[0] and result["peak_rss_mb"] <= target[1]
        rate = result["cluster_rate"]
        rows.append([
            str(d), _size(n), f"{result['wall_s']:.1f} / {cpu_total:.1f}",
            *[_stage_cell(result, stage) for stage in STAGES],
            f"{100 * pns_share:.0f} %", fmt(result["peak_rss_mb"], ".0f"),
            f"{result['load_start'].split(',')[0]} → {result['load_end'].split(',')[0]}",
            f"{result['pc1_percent']:.1f} ({result['torus_pc1_percent']:.1f})",
            f"{result['n_clusters']} ({fmt(rate, '.3f')})",
            common.pass_fail(ok) if target else "—",
        ])
    notes = [
        "Stage cells: wall / CPU seconds (CPU of all the process's threads). "
        f"\"> {limit_s:.0f} s CPU\": stopped at the CPU time limit (the stage cells show what "
        "it had finished, **stopped** the stage it was in); \"not run\": a smaller n at the "
        "same d "
        "was over the limit already. Targets (issue 32): T^66 n = 10^4 / 10^5 / 10^6 ≤ 15 s "
        "/ 60 s / 6 min, T^426 n = 10^4 ≤ 2 min, all ≤ 4 GB.",
    ]
    return "\n".join([common.markdown_table(headers, rows), "", *notes])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d", type=int, nargs="+", default=list(DIMENSIONS))
    parser.add_argument("--n", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--limit", type=float, default=300.0,
                        help="CPU seconds after which a case is stopped (default 300)")
    parser.add_argument("--wall-limit", type=float, default=3600.0,
                        help="wall seconds after which a case is stopped (default 3600)")
    parser.add_argument("--no-skip", action="store_true",
                        help="run larger n at a d whose smaller n was over the limit")
    parser.add_argument("--max-data-gb", type=float, default=1.0,
                        help="skip cases whose angles alone take more (default 1 GB)")
    parser.add_argument("--source", type=Path, help="directory holding the stpca_gui to time")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        common.emit_child_result(MARKER, child(*args.child))
        return 0
    load_before = common.load_average_text()
    results = []
    for d in args.d:
        over_limit = False
        for n in sorted(args.n):
            data_gb = 8.0 * n * d / 1e9
            if data_gb > args.max_data_gb:
                results.append({"d": d, "n": n, "skipped": True,
                                "error": f"not run (angles alone {data_gb:.1f} GB)"})
                continue
            if over_limit and not args.no_skip:
                results.append({"d": d, "n": n, "skipped": True, "error": "not run"})
                continue
            log(f"d = {d}, n = {n:,} …")
            result = run_case(d, n, args.limit, args.wall_limit, args.source)
            results.append(result)
            over_limit = bool(result.get("timed_out"))
            log(f"d = {d}, n = {n:,}: "
                + (result["error"] if "error" in result else
                   f"{result['wall_s']:.1f} s wall, {result['cpu_s']:.1f} s CPU, "
                   f"{', '.join(f'{k} {v:.1f}' for k, v in result['stage_cpu_s'].items())}"))
    table = report(results, args.limit)
    text = "\n".join([
        "# ST-PCA at high dimension (bench_highdim.py)", "",
        f"Code: {args.source or 'this checkout'}; load average before: {load_before}, "
        f"after: {common.load_average_text()}.", "", table, "",
        common.machine_report(common.machine_info())])
    print(text)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text + "\n")
    if args.json:
        common.write_json(args.json, {"load_before": load_before, "limit_s": args.limit,
                                      "source": str(args.source or ""),
                                      "results": results}, log)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
