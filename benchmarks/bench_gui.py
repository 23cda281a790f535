"""Benchmark of the desktop app: start-up, selection latency, responsiveness and memory.

Usage::

    uv run python benchmarks/bench_gui.py [--quick] [--json OUT] [--selections N]

Every measurement runs in a fresh subprocess (a hidden ``--child MODE`` flag re-runs this
file), so that start-up is cold and ``ru_maxrss`` belongs to one case. When ``DISPLAY`` is
unset the script starts its own ``Xvfb -displayfd`` (like ``tests/conftest.py``), runs Qt on
``xcb`` and stops the server at exit. The Markdown report goes to stdout, progress to stderr.

1. **Time to first complete frame** — the real entry point
   ``stpca_gui.gui.app.main(["--demo", "clusters-t3"])`` in a new interpreter, from the top
   of the script (before PySide6 is imported) to the first paint processed after
   ``MainWindow.result_shown`` (a zero timer + ``processEvents()``), with a breakdown timed
   by wrappers installed before ``main()`` starts: imports, QApplication/splash, the kernel
   ``warm_up()`` (when the version has one), window construction, show, loading the demo,
   the fit in the worker thread (``timings_`` of the model and the rest), drawing (result
   arrival → ``result_shown``) and the final paint. Run twice; both processes load numba's on-disk
   cache, the first one may also pay cold file-system caches. A full run adds one process
   with a private bytecode cache (``PYTHONPYCACHEPREFIX``; written by an unreported run
   first), since without ``.pyc`` files every import compiles its source. Peak RSS per
   process.
2. **Selection latency** — three wrapped-normal clusters on T³ (``make_clusters_t3``),
   n = 5000 (full ST-PCA fit in the GUI) and n = 100,000. A fit at n = 100,000 is not
   possible (the classical-MDS start alone allocates an n×n float64 matrix, 80 GB), so that
   case installs a synthetic ``AnalysisResult``: the n = 5000 model (pickled by the first
   child) extended to the 100,000 points by their nearest fitted sample (see the report).
   For random subsets of the clusters (each differing from the previous one):
   ``state.selection.apply(mask, "replace")`` (the views' slots run synchronously: the
   matplotlib views redraw their selection layers over a snapshot of the last full render
   and blit, which schedules a paint; the 3-D views recolour and schedule a repaint) and
   then the paint (``processEvents()`` until both canvases were painted and both 3-D views
   rendered in ``paintGL``, without anti-aliasing). Median and max, target ≤ 100 ms at
   n = 5000. The anti-aliased "still" frame each 3-D view draws once it has been still for
   ``ViewInteractor.STILL_DELAY_MS`` (300 ms) is not part of the latency. A per-view
   breakdown (selection signal blocked) times each slot; the canvases' next frame; each 3-D
   view's slot plus its frame, in situ (slot, then ``processEvents()`` until that view's
   render window rendered: a bare ``ren_win.Render()`` underestimates llvmpipe, which
   rasterises when the frame is flushed); each still frame (``render_still()``) and, for
   reference, a frame with nothing changed; it counts the matplotlib slots that fell back
   to a full Agg render (``draw_idle``). A cProfile of a few full selections shows where
   the time goes.
3. **Responsiveness during a background fit** (n = 5000; like ``app.main``, the process calls
   ``core.warmup.warm_up()`` before building the window when that exists): a 10 ms precise
   QTimer in the GUI thread from ``fit()`` to the arrival of the ``"done"`` progress event;
   longest gap, 99th percentile, gaps > 50 / 100 ms and the fit stage in which the longest
   gaps fell.
   Target: no gap over 100 ms.
4. **Memory** — RSS at each step and peak RSS (``ru_maxrss``) of the n = 5000 and
   n = 100,000 processes.

Diagnostics (full run, skipped by ``--no-diagnostics``): when the 3-D views run pyvistaqt's
auto-update timer (its default re-renders each view 5× a second), the n = 5000 and
n = 100,000 cases are repeated with ``plotter.render_timer.stop()`` on both views — what
``QtInteractor(auto_update=False)`` gives. Skipped (with a note) when the timers are already
off. Nothing in the library is changed.

5. **Responsiveness during a Monte Carlo uniformity test** — Analysis → Uniformity tests on
   PNS1 of the fitted demo with 10,000 Monte Carlo replicates (``--replicates``), run by the
   dialog's background task: the same 10 ms timer from ``run()`` until the table shows the
   results; longest gap, and for comparison how long the same computation takes on the GUI
   thread (which froze the window before the task runner).

``--quick``: one first-frame run, 5 selections, only the n = 5000 case, no profile, no
diagnostics. ``--only-monte-carlo``: only section 5 (a minute or so).

The code is split along its seams: ``_gui_env.py`` (constants, machine, display),
``_gui_children.py`` (launching the child processes and what each measures) and
``_gui_report.py`` (the Markdown report); this file parses the options and runs the plan.
"""

from __future__ import annotations

import time

_T0 = time.perf_counter()  # before anything heavy is imported (first-frame child)
_T0_WALL = time.time()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from _common import (  # noqa: E402
    add_record_option,
    load_average_text,
    markdown_table,
    one_minute_load,
    record,
)
from _gui_children import run_as_child, run_child  # noqa: E402
from _gui_env import (  # noqa: E402
    FIRST_FRAME_TIMEOUT_S,
    LARGE_N,
    SCREENSHOT_ENV,
    SELECTION_TARGET_MS,
    SMALL_N,
    STALL_TARGET_MS,
    WORKDIR_ENV,
    Display,
    LoadSampler,
    log,
    machine_info,
    source_revision,
)
from _gui_report import (  # noqa: E402
    first_frame_report,
    memory_report,
    monte_carlo_report,
    responsiveness_report,
    selection_notes,
    selection_report,
    targets_report,
)

#: Replicates of the Monte Carlo of section 5 (the issue's case).
MONTE_CARLO_REPLICATES = 10_000


# ================================================================================ main
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark of the stpca-gui desktop app (Markdown report on stdout).")
    parser.add_argument("--quick", action="store_true",
                        help="one first-frame run, 5 selections, only the shipped n = 5000 "
                             "case, no profile")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT",
                        help="write every number as JSON")
    parser.add_argument("--selections", type=int, default=None,
                        help="timed selections per case (default 20, --quick 5)")
    parser.add_argument("--no-diagnostics", action="store_true",
                        help="skip the re-runs with pyvistaqt's auto-update timers stopped")
    parser.add_argument("--replicates", type=int, default=MONTE_CARLO_REPLICATES,
                        help="Monte Carlo replicates of section 5 (default 10,000)")
    parser.add_argument("--only-monte-carlo", action="store_true",
                        help="run only section 5, the Monte Carlo responsiveness")
    parser.add_argument("--large-n", type=int, nargs="+", default=[LARGE_N], metavar="N",
                        help="sizes of the synthetic-result selection cases (default 100,000; "
                             "e.g. --large-n 100000 1000000)")
    parser.add_argument("--selection-only", action="store_true",
                        help="only section 2 and 4: the n = 5000 fit and the synthetic cases "
                             "(no first frame, diagnostics or Monte Carlo)")
    parser.add_argument("--screenshots", type=Path, default=None, metavar="DIR",
                        help="save the window of each synthetic case here (as drawn, and "
                             "with one cluster selected)")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=SMALL_N, help=argparse.SUPPRESS)
    parser.add_argument("--breakdown", type=int, default=10, help=argparse.SUPPRESS)
    parser.add_argument("--profile", type=int, default=5, help=argparse.SUPPRESS)
    parser.add_argument("--model", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--stop-auto-render", action="store_true", help=argparse.SUPPRESS)
    add_record_option(parser)
    args = parser.parse_args(argv)
    if args.record and (args.quick or args.only_monte_carlo):
        parser.error("--record records the selection cases of a full run")
    return args


def headline(cases: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """The numbers docs/measured.md shows (``--record``): each selection case's median and
    longest latency (at n = 5000 with each 3-D view's frame), at larger n the peak RSS."""
    recorded: dict[str, dict[str, float]] = {}
    for case in cases:
        if "error" in case or case["auto_render_stopped"]:
            continue
        total = case["selection"]["total"]
        if case["n"] == SMALL_N:
            frames = {name.split(":")[0]: row["median_ms"]
                      for name, row in case["breakdown"]["rows"].items()
                      if name.endswith("update_colors slot + frame (paintGL render, no "
                                       "anti-aliasing)")}
            recorded[f"selection-{SMALL_N}"] = {
                "median_ms": total["median_ms"], "max_ms": total["max_ms"],
                "torus_frame_ms": frames["torus"], "sphere_frame_ms": frames["sphere"]}
        else:
            peak = case["memory"]["after selections"]["peak_rss_mb"]
            recorded[f"selection-{case['n']}"] = {
                "median_s": total["median_ms"] / 1e3, "max_s": total["max_ms"] / 1e3,
                "peak_rss_gib": peak / 1024}
    return recorded


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child is not None:
        return run_as_child(args, _T0, _T0_WALL)

    started = time.perf_counter()
    load_at_start = one_minute_load()
    info = machine_info()
    sampler = LoadSampler()
    sampler.start()
    display = Display()
    display.start()
    if display.problem is not None:
        print(f"# GUI benchmark\n\nCannot run: {display.problem}")
        return 1
    info["display"] = display.description
    quick = args.quick
    only_monte_carlo = args.only_monte_carlo
    diagnostics = not quick and not args.no_diagnostics and not args.selection_only
    diagnostics_skipped = False
    selections = args.selections or (5 if quick else 20)
    common = ["--selections", str(selections), "--breakdown", str(5 if quick else 10)]
    profile = ["--profile", "0" if quick else "5"]
    first: list[dict[str, Any]] = []
    cases: list[dict[str, Any]] = []
    workdir = Path(tempfile.mkdtemp(prefix="bench-gui-"))
    os.environ[WORKDIR_ENV] = str(workdir)  # inherited by the children
    if args.screenshots is not None:
        os.environ[SCREENSHOT_ENV] = str(args.screenshots.resolve())
    model_path = workdir / "model-5000.pkl"
    fit_what = "full ST-PCA fit in the GUI, default parameters"
    synth_what = "synthetic: n = 5000 model, nearest fitted sample per point"
    try:
        for k in range(0 if only_monte_carlo or args.selection_only else 1 if quick else 2):
            log(f"first frame: run {k + 1} in a fresh process")
            run = run_child("first-frame", timeout=FIRST_FRAME_TIMEOUT_S + 60)
            first.append(run | {"label": f"run {k + 1}"})
        if not quick and not only_monte_carlo and not args.selection_only:
            # The same with a bytecode cache in a private folder (PYTHONPYCACHEPREFIX): one
            # unreported run writes it, the next one imports from it, as an installed app
            # with compiled .pyc files would.
            pyc = {"PYTHONDONTWRITEBYTECODE": None, "PYTHONPYCACHEPREFIX": str(workdir / "pyc")}
            log("first frame: writing a private bytecode cache (unreported run)")
            run_child("first-frame", timeout=FIRST_FRAME_TIMEOUT_S + 60, env_changes=pyc)
            log("first frame: run with the bytecode cache")
            run = run_child("first-frame", timeout=FIRST_FRAME_TIMEOUT_S + 60, env_changes=pyc)
            first.append(run | {"label": "with .pyc cache", "pyc": True})
        plan: list[tuple[str, int, list[str], str]] = [
            ("fit-select", SMALL_N, [*profile, "--model", str(model_path)], fit_what)]
        if only_monte_carlo:
            plan.clear()
        elif not quick:
            for large_n in args.large_n:
                plan.append(("synthetic-select", large_n,
                             [*profile, "--model", str(model_path)], synth_what))
        diagnostic_plan = [
            ("fit-select", SMALL_N, ["--profile", "0", "--stop-auto-render"], fit_what),
            ("synthetic-select", LARGE_N, ["--profile", "0", "--stop-auto-render", "--model",
                                           str(model_path)], synth_what)]
        while plan:
            mode, n, extra, what = plan.pop(0)
            stopped = "--stop-auto-render" in extra
            log(f"n = {n}{' (auto-update timers stopped)' if stopped else ''}: fresh process")
            if mode == "synthetic-select" and not model_path.is_file():
                case: dict[str, Any] = {"error": "the n = 5000 process wrote no model"}
            else:
                case = run_child(mode, ["--n", str(n), *common, *extra])
            case.update(n=n, what=what, auto_render_stopped=stopped,
                        short="fit + selections" if mode == "fit-select"
                        else "synthetic result + selections")
            cases.append(case)
            if diagnostics and len(cases) == 1:
                if case.get("auto_render_timers_active"):
                    plan.extend(diagnostic_plan)
                else:
                    diagnostics = False
                    diagnostics_skipped = True
                    log("diagnostic re-runs skipped: the 3-D views have no auto-update timer")
        monte_carlo = None
        if not args.selection_only:
            log(f"Monte Carlo uniformity test, {args.replicates:,} replicates: fresh process")
            monte_carlo = run_child("monte-carlo", ["--replicates", str(args.replicates)])
    finally:
        display.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    info["Qt"] = next((r["qt"] for r in [*first, *cases] if r.get("qt")), "unknown")
    info["VTK OpenGL (renderer / version)"] = next(
        (c["opengl"] for c in cases if c.get("opengl")), "unknown")
    active = cases[0].get("auto_render_timers_active") if cases else None
    info["pyvistaqt auto-update timers (3-D views)"] = {
        True: "running (pyvistaqt's default: every 3-D view re-renders 5 times a second)",
        False: "off (`QtInteractor(auto_update=False)`)"}.get(active, "unknown")
    info["source at end"] = source_revision()
    source_note = ""
    if info["source at end"].rpartition("digest ")[2] != info["source at start"].rpartition(
            "digest ")[2]:
        source_note = ("**Warning: `stpca_gui/` changed while the benchmark ran** (see *source "
                       "at start / end* below): the cases ran in fresh processes at different "
                       "times and may have measured different code.\n\n")
    info["load average at end"] = load_average_text()
    still_delay = next((c["breakdown"].get("still_delay_ms") for c in cases
                        if "breakdown" in c), None)
    info["1-min load average during the run"] = (
        sampler.stop() + f" — this machine has {os.cpu_count()} cores")
    mode = "Monte Carlo only" if only_monte_carlo else "quick" if quick else "full"
    sections = [
        f"# GUI benchmark ({mode} run, {time.perf_counter() - started:.0f} s)"
        + (f"\n\n{source_note.strip()}" if source_note else ""),
        "## Machine\n\n" + markdown_table(["item", "value"],
                                          [[k, str(v)] for k, v in info.items()]),
    ]
    if not only_monte_carlo:
        sections += [
            first_frame_report(first),
            selection_report(cases, selection_notes(quick, diagnostics, diagnostics_skipped,
                                                    still_delay)),
            responsiveness_report([c for c in cases if c["n"] == SMALL_N]),
            memory_report(first, cases),
            monte_carlo_report(monte_carlo),
            targets_report(first, cases),
        ]
    else:
        sections.append(monte_carlo_report(monte_carlo))
    report = "\n\n".join(sections)
    print(report)
    if args.json is not None:
        payload = {"mode": mode, "machine": info, "first_frame": first, "cases": cases,
                   "monte_carlo": monte_carlo,
                   "targets": {"selection_ms": SELECTION_TARGET_MS,
                               "stall_ms": STALL_TARGET_MS}}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
        log(f"JSON written to {args.json}")
    if args.record:
        record(args.record, __file__, headline(cases), load_at_start=load_at_start, log=log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
