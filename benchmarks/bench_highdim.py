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

``--compare DIR`` runs every case twice, interleaved: first against the ``stpca_gui`` of
another checkout (the code *before*, e.g. main exported with ``git archive``), then against
this one (*after*), so that both see the same load. ``--no-torus-variance`` fits with
``torus_variance=False`` (for PNS before/after pairs without the slow stage other work
replaces). ``--pns-error`` also refits PNS on the fit's embedding with every level fitted
(``exact_levels="all"``), when the default fit reduced levels, and reports the reduction's
error against it: the correlation of PNS1, the largest difference of explained variance
ratio (points), the mode clusters of PNS1 (paper rule) of both and the share of points
they put together. ``--record`` writes PNS's CPU before/after (with ``--compare``) and the
reduction's error at d = 20 and 66, n = 500 and 2,000 to benchmarks/results/ for
docs/measured.md.

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
    git archive main stpca_gui | tar -x -C /tmp/before                 # PNS before / after:
    uv run python benchmarks/bench_highdim.py --d 20 66 --n 500 2000 --no-torus-variance \
        --compare /tmp/before --pns-error --record

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
#: The cases ``--record`` writes (each d with both n): PNS before/after, the reduction's error.
RECORDED_DIMENSIONS = (20, 66)
RECORDED_SIZES = (500, 2000)
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


def _reduction_error(model: Any, labels: Any) -> dict[str, Any] | None:
    """The fit's PNS (levels reduced) against PNS with every level fitted, on the same
    embedding and seed; None when the fit reduced no level."""
    import numpy as np

    from stpca_gui.core.circstats.modes import pns1_mode_clusters
    from stpca_gui.core.circstats.rates import best_matching_rate
    from stpca_gui.core.pns.pns import PrincipalNestedSpheres

    reduced = model.pns_
    if not np.size(getattr(reduced, "reduced_levels_", ())):
        return None
    cpu0 = time.process_time()
    exact = PrincipalNestedSpheres(**(reduced.get_params() | {"exact_levels": "all"})).fit(
        model.embedding_)
    exact_cpu = time.process_time() - cpu0

    def clusters(pns: Any) -> Any:
        period = 2.0 * np.pi * float(pns.circle_radius_)
        return pns1_mode_clusters(pns.scores_[:, 0], period, method="paper", labels=labels)

    ours, theirs = clusters(reduced), clusters(exact)
    k = max(ours.n_clusters, theirs.n_clusters)
    table = np.zeros((k, k), dtype=np.int64)
    np.add.at(table, (ours.labels, theirs.labels), 1)
    gap = np.abs(reduced.explained_variance_ratio_ - exact.explained_variance_ratio_)
    d = int(reduced.n_components_)
    return {
        "reduced_levels": [int(reduced.reduced_levels_[0]) + 1,
                           int(reduced.reduced_levels_[-1]) + 1],
        "reduced_variance_percent": 100.0 * float(np.sum(
            reduced.explained_variance_ratio_[d - 1 - reduced.reduced_levels_])),
        "pns1_correlation": abs(float(np.corrcoef(reduced.scores_[:, 0],
                                                  exact.scores_[:, 0])[0, 1])),
        "ratio_gap_points": 100.0 * float(gap.max()),
        "pc1_gap_points": 100.0 * float(gap[0]),
        "n_clusters": int(ours.n_clusters), "exact_n_clusters": int(theirs.n_clusters),
        "cluster_agreement": float(best_matching_rate(table)[0] / ours.labels.size),
        "exact_pns_cpu_s": exact_cpu,
    }


def child(d: int, n: int, torus_variance: bool = True,
          pns_error: bool = False) -> dict[str, Any]:
    import numpy as np

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
    model = ScaledTorusPCA(random_state=0, torus_variance=torus_variance).fit(
        data.angles, callback=clock)
    clock.switch("clusters")
    paper = model_mode_clusters(model, method="paper", labels=data.labels)
    clusters = model_mode_clusters(model, labels=data.labels, stability=True, paper=paper)
    clock.switch(None)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    pns = model.pns_
    torus_ratio = getattr(model, "torus_explained_variance_ratio_", None)
    result = {
        "d": d, "n": n, "wall_s": wall, "cpu_s": cpu,
        "stage_wall_s": clock.wall, "stage_cpu_s": clock.cpu,
        "fit_timings_s": {k: float(v) for k, v in model.timings_.items()},
        "warm_up_s": warm_up_s,
        "rss_before_mb": rss_before, "peak_rss_mb": common.peak_rss_mb(),
        "load_start": load_start, "load_end": common.load_average_text(),
        "n_landmarks": int(model.n_landmarks_),
        "pc1_percent": 100.0 * float(model.explained_variance_ratio_[0]),
        "torus_pc1_percent": (100.0 * float(torus_ratio[0]) if torus_variance
                              else float("nan")),
        "reduced_levels": int(np.size(getattr(pns, "reduced_levels_", ()))),
        "small_spheres": int(sum(kind == "small" for kind in pns.sphere_types_)),
        "levels": len(pns.sphere_types_),
        "n_clusters": int(clusters.n_clusters),
        "cluster_rate": clusters.classification_rate,
        "paper_n_clusters": int(paper.n_clusters),
        "paper_cluster_rate": paper.classification_rate,
    }
    if pns_error:
        result["reduction"] = _reduction_error(model, data.labels)
    return result


# ------------------------------------------------------------------ parent


def _limit_cpu(seconds: float) -> None:
    """In the child before it starts: SIGXCPU (which ends it) after ``seconds`` of CPU."""
    import resource

    limit = max(1, int(seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))


def run_case(d: int, n: int, limit_s: float, wall_limit_s: float,
             source: Path | None, options: tuple[str, ...] = ()) -> dict[str, Any]:
    """Run one case in a fresh process (``options``: the child's flags); a case over
    ``limit_s`` CPU seconds (or ``wall_limit_s`` wall seconds) keeps its finished stages."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source) + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(d), str(n),
               *options]
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
    compared = any("code" in result for result in results)
    headers = (["d", "n"] + (["code"] if compared else []) + ["total wall / CPU s"]
               + [f"{name} s" for name in STAGES]
               + ["PNS share of CPU", "peak RSS MiB", "load start → end", "PC1 % (torus)",
                  "clusters (rate)", "target"])
    rows = []
    for result in results:
        d, n = result["d"], result["n"]
        case = [str(d), _size(n)] + ([result.get("code", "")] if compared else [])
        target = TARGETS.get((d, n))
        if "error" in result:
            total = result["error"]
            cells = [_stage_cell(result, stage) for stage in STAGES]
            load = (f"{result['load_start'].split(',')[0]} → {result['load_end'].split(',')[0]}"
                    if "load_start" in result else "—")
            rows.append([*case, total, *cells, "—", "—", load, "—", "—",
                         common.pass_fail(False) if target else "—"])
            continue
        cpu_total = result["cpu_s"]
        pns_share = result["stage_cpu_s"].get("pns", 0.0) / cpu_total if cpu_total else 0.0
        ok = None
        if target:
            ok = result["wall_s"] <= target[0] and result["peak_rss_mb"] <= target[1]
        rate = result["cluster_rate"]
        torus = result["torus_pc1_percent"]
        rows.append([
            *case, f"{result['wall_s']:.1f} / {cpu_total:.1f}",
            *[_stage_cell(result, stage) for stage in STAGES],
            f"{100 * pns_share:.0f} %", fmt(result["peak_rss_mb"], ".0f"),
            f"{result['load_start'].split(',')[0]} → {result['load_end'].split(',')[0]}",
            f"{result['pc1_percent']:.1f}" + ("" if torus != torus else f" ({torus:.1f})"),
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
    return "\n".join([common.markdown_table(headers, rows), "", *notes,
                      *_reduction_report(results)])


def _reduction_report(results: list[dict[str, Any]]) -> list[str]:
    """The reduction's error against PNS with every level fitted (``--pns-error``)."""
    rows = []
    for result in results:
        error = result.get("reduction")
        if not error:
            continue
        first, last = error["reduced_levels"]
        rows.append([
            str(result["d"]), _size(result["n"]), f"{first}–{last} of {result['levels']}",
            f"{error['reduced_variance_percent']:.1f} %", f"{error['pns1_correlation']:.6f}",
            f"{error['pc1_gap_points']:.3f} / {error['ratio_gap_points']:.3f}",
            f"{error['n_clusters']} / {error['exact_n_clusters']}",
            f"{error['cluster_agreement']:.4f}",
            f"{result['stage_cpu_s'].get('pns', float('nan')):.1f} / "
            f"{error['exact_pns_cpu_s']:.1f}",
        ])
    if not rows:
        return []
    headers = ["d", "n", "levels reduced", "their variance", "PNS1 correlation",
               "Δ ratio PC1 / largest (points)", "clusters (reduced / exact)",
               "points clustered alike", "PNS CPU s (reduced / exact)"]
    return ["", "The reduction against PNS with every level fitted (same embedding and "
            "seed; the issue's tolerances: PNS1 correlation ≥ 0.9999, ratios within 0.1 "
            "point, the same clusters):", "", common.markdown_table(headers, rows)]


def record_results(results: list[dict[str, Any]], directory: Path,
                   load_at_start: float) -> None:
    """PNS CPU before/after and the reduction's error at :data:`RECORDED_DIMENSIONS` ×
    :data:`RECORDED_SIZES` into ``directory/bench_highdim.json`` (a d is recorded when
    every size of it ran)."""
    found = {(r["d"], r["n"], r.get("code", "after")): r for r in results
             if "error" not in r}
    cases: dict[str, dict[str, Any]] = {}
    for d in RECORDED_DIMENSIONS:
        timing: dict[str, Any] = {}
        error: dict[str, Any] = {}
        for n in RECORDED_SIZES:
            before, after = found.get((d, n, "before")), found.get((d, n, "after"))
            if before is not None and after is not None:
                for code, result in (("before", before), ("after", after)):
                    pns = result["stage_cpu_s"].get("pns", 0.0)
                    timing[f"{code}_{n}_s"] = round(pns, 3)  # 2 places then .1f rounds twice
                    timing[f"{code}_{n}_share"] = round(100.0 * pns / result["cpu_s"], 1)
            reduction = after.get("reduction") if after is not None else None
            if reduction:
                error[f"corr_{n}"] = round(reduction["pns1_correlation"], 7)
                error[f"gap_{n}"] = round(reduction["ratio_gap_points"], 3)
                error[f"agree_{n}"] = round(reduction["cluster_agreement"], 4)
                error[f"clusters_{n}"] = reduction["n_clusters"]
                error[f"exact_clusters_{n}"] = reduction["exact_n_clusters"]
                error[f"first_{n}"], error[f"last_{n}"] = reduction["reduced_levels"]
                error[f"reduced_variance_{n}"] = round(reduction["reduced_variance_percent"], 1)
        if len(timing) == 4 * len(RECORDED_SIZES):
            cases[f"pns-d{d}"] = timing
        if len(error) == 8 * len(RECORDED_SIZES):
            cases[f"reduction-d{d}"] = error
    cases.update(target_cases(results))
    if cases:
        common.record(directory, __file__, cases, load_at_start=load_at_start, log=log)
    else:
        log("nothing to record: --record needs d = 20 or 66 at n = 500 and 2,000 "
            "(with --compare for the timings, --pns-error for the reduction), or a "
            "case of the issue's targets")


def target_cases(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The whole default fit of every case among :data:`TARGETS` that ran on this
    checkout's code to its end: ``fit-d<d>-n<n>`` → wall and CPU seconds, peak RSS, the
    target."""
    cases: dict[str, dict[str, Any]] = {}
    for result in results:
        key = (result["d"], result["n"])
        if key not in TARGETS or "error" in result or result.get("code", "after") != "after":
            continue
        wall_target, memory_target = TARGETS[key]
        cases[f"fit-d{key[0]}-n{key[1]}"] = {
            "wall_s": round(result["wall_s"], 1), "cpu_s": round(result["cpu_s"], 1),
            "peak_rss_mib": round(result["peak_rss_mb"]),
            "target_s": wall_target, "target_mib": memory_target}
    return cases


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
    parser.add_argument("--compare", type=Path, metavar="DIR",
                        help="run each case against DIR's stpca_gui (before) and then this "
                             "checkout's (after), interleaved")
    parser.add_argument("--no-torus-variance", action="store_true",
                        help="fit with torus_variance=False")
    parser.add_argument("--pns-error", action="store_true",
                        help="measure the PNS reduction against every level fitted")
    common.add_record_option(parser)
    parser.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        common.emit_child_result(MARKER, child(*args.child,
                                               torus_variance=not args.no_torus_variance,
                                               pns_error=args.pns_error))
        return 0
    load_before = common.load_average_text()
    load_at_start = common.one_minute_load()
    fit_options = ("--no-torus-variance",) if args.no_torus_variance else ()
    codes: list[tuple[str | None, Path | None, tuple[str, ...]]] = [
        (None, args.source, fit_options + (("--pns-error",) if args.pns_error else ()))]
    if args.compare is not None:
        codes = [("before", args.compare, fit_options), ("after", None, codes[0][2])]
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
            for code, source, options in codes:
                log(f"d = {d}, n = {n:,}{f' ({code})' if code else ''} …")
                result = run_case(d, n, args.limit, args.wall_limit, source, options)
                if code:
                    result["code"] = code
                results.append(result)
                over_limit = over_limit or bool(result.get("timed_out"))
                log(f"d = {d}, n = {n:,}: "
                    + (result["error"] if "error" in result else
                       f"{result['wall_s']:.1f} s wall, {result['cpu_s']:.1f} s CPU, "
                       + ", ".join(f"{k} {v:.1f}" for k, v in result["stage_cpu_s"].items())))
    table = report(results, args.limit)
    text = "\n".join([
        "# ST-PCA at high dimension (bench_highdim.py)", "",
        f"Code: {_code_text(args)}; load average before: {load_before}, "
        f"after: {common.load_average_text()}.", "", table, "",
        common.machine_report(common.machine_info())])
    print(text)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text + "\n")
    if args.json:
        common.write_json(args.json, {"load_before": load_before, "limit_s": args.limit,
                                      "source": str(args.source or ""),
                                      "compare": str(args.compare or ""),
                                      "results": results}, log)
    if args.record is not None:
        record_results(results, args.record, load_at_start)
    return 0


def _code_text(args: argparse.Namespace) -> str:
    if args.compare is not None:
        return f"before: {args.compare}, after: this checkout"
    return str(args.source or "this checkout")


if __name__ == "__main__":
    raise SystemExit(main())
