"""Start-up benchmark: the command line and the desktop app, cold and warm, source or bundle.

Every run is a fresh process started the way a user starts it (``uv run stpca …``,
``uv run stpca-gui``, ``dist/stpca-gui/stpca-gui``); times are wall-clock from ``Popen``.
The app writes its own start-up marks when ``STPCA_STARTUP_TRACE=FILE`` is set (window
shown, first paint, result shown, longest event-loop stall); for a checkout without that
diagnostic (``--source`` of an older revision) ``_startup_probe.py`` records the same marks.
See benchmarks/README.md for the cases and options.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from _common import (
    REPO_ROOT,
    add_record_option,
    cpu_model,
    load_average_text,
    make_logger,
    markdown_table,
    one_minute_load,
    record,
)
from _gui_env import LoadSampler, started_display

log = make_logger("bench_startup")

DEMO = "clusters-t3"
TRACE_ENV = "STPCA_STARTUP_TRACE"
PROBE = Path(__file__).resolve().parent / "_startup_probe.py"
RUN_TIMEOUT_S = 600.0
POLL_S = 0.02
#: The app writes its first mark right after importing Qt; none by then: no trace support.
NO_TRACE_TIMEOUT_S = 90.0
#: Start-up marks of the app, in order, as reported (seconds after Popen).
GUI_MARKS = ("window_shown", "first_paint", "numerics_ready", "fit_started", "plots_ready",
             "torus_ready", "sphere_ready", "fit_done", "result_shown")
SOURCE_CASES = ("cli-cold", "cli-warm", "gui-cold", "gui-warm")
TARGETS_S = {"cli-cold": {"exit": 15.0}, "gui-warm": {"first_paint": 2.0, "result_shown": 5.0},
             "bundle-first": {"result_shown": 20.0}, "bundle-later": {"result_shown": 6.0}}


# ----------------------------------------------------------------------------- runs
def run_cli(source: Path, cache_dir: Path) -> dict[str, Any]:
    """``uv run stpca demo clusters-t3`` in ``source``: wall time to exit, fit time printed."""
    env = source_environment(cache_dir)
    start = time.time()
    completed = subprocess.run(["uv", "run", "--locked", "stpca", "demo", DEMO], cwd=source,
                               env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                               check=False)
    wall = time.time() - start
    if completed.returncode != 0:
        return {"error": last_lines(completed.stderr)}
    fit = re.search(r"time: total\s+([0-9.]+) s", completed.stdout)
    return {"exit": wall, "fit": float(fit.group(1)) if fit else None}


def run_gui(command: Sequence[str], cwd: Path, env: dict[str, str],
            workdir: Path) -> dict[str, Any]:
    """Start the app, wait for its ``result_shown`` mark, stop it; marks after Popen."""
    trace = workdir / f"trace-{time.monotonic_ns()}.json"
    env = {**env, TRACE_ENV: str(trace)}
    start = time.time()
    process = subprocess.Popen(list(command), cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    payload: dict[str, Any] = {}
    try:
        while time.time() - start < RUN_TIMEOUT_S:
            if process.poll() is not None:
                return {"error": f"exited with {process.returncode} before showing a result: "
                                 + last_lines(process.stderr.read())}
            payload = read_trace(trace)
            if "result_shown" in payload.get("marks", {}):
                break
            if not payload and time.time() - start > NO_TRACE_TIMEOUT_S:
                return {"error": f"no start-up trace after {NO_TRACE_TIMEOUT_S:.0f} s (a "
                                 f"version without {TRACE_ENV}?)"}
            time.sleep(POLL_S)
        else:
            return {"error": f"no result shown within {RUN_TIMEOUT_S:.0f} s"}
    finally:
        stop(process)
    times = {name: at - start for name, at in payload["marks"].items() if name in GUI_MARKS}
    if "result_shown" in payload.get("cpu", {}):
        # CPU seconds of the app's process by then (all threads; not the head start's
        # child): less sensitive to the machine's load than the wall-clock marks.
        times["cpu_at_result"] = payload["cpu"]["result_shown"]
    if "longest_stall_s" in payload:
        times["longest_stall"] = payload["longest_stall_s"]
        times["stall_after"] = payload.get("stall_after", "")
    return times


def run_screenshot(command: Sequence[str], cwd: Path, env: dict[str, str],
                   workdir: Path) -> dict[str, Any]:
    """``… --demo clusters-t3 --screenshot OUT.png``: wall time from Popen to exit."""
    out = workdir / "screenshot.png"
    start = time.time()
    completed = subprocess.run([*command, "--demo", DEMO, "--screenshot", str(out)], cwd=cwd,
                               env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                               check=False)
    wall = time.time() - start
    if completed.returncode != 0 or not out.exists():
        return {"error": last_lines(completed.stderr)}
    return {"exit": wall}


def read_trace(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):  # not written yet (the app replaces it atomically)
        return {}


def stop(process: subprocess.Popen[str]) -> None:
    """End a launched app (its own process group: ``uv run`` and the app it started)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=20)


def last_lines(text: str | None, n: int = 4) -> str:
    return " / ".join((text or "").strip().splitlines()[-n:]) or "(no output)"


#: Extra environment of every launch (``--env``), e.g. ``STPCA_HEAD_START=0``.
EXTRA_ENV: dict[str, str] = {}


def source_environment(cache_dir: Path) -> dict[str, str]:
    """This environment for ``uv run`` in another checkout, with its own kernel cache."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", TRACE_ENV)}
    env.update(EXTRA_ENV)
    env["NUMBA_CACHE_DIR"] = str(cache_dir)
    env.setdefault("QT_QPA_PLATFORM", "xcb")
    return env


def gui_command(source: Path) -> list[str]:
    """The app's entry point in ``source``, through the probe when it has no trace."""
    if (source / "stpca_gui" / "gui" / "startup.py").exists():
        return ["uv", "run", "--locked", "stpca-gui"]
    return ["uv", "run", "--locked", "python", str(PROBE)]


# ----------------------------------------------------------------------------- cases
def repeat(name: str, count: int, run: Callable[[int], dict[str, Any]]) -> list[dict[str, Any]]:
    runs = []
    for k in range(count):
        result = run(k)
        log(f"{name} {k + 1}/{count}: " + ", ".join(
            f"{key} {value:.2f}" if isinstance(value, float) else f"{key} {value}"
            for key, value in result.items()) + f" (load {load_average_text()})")
        runs.append(result)
    return runs


def source_cases(source: Path, cases: Sequence[str], repeats: int, cold_repeats: int,
                 workdir: Path) -> dict[str, list[dict[str, Any]]]:
    log(f"uv sync --locked in {source} (not timed)")
    subprocess.run(["uv", "sync", "--locked"], cwd=source, env=source_environment(workdir),
                   check=True, capture_output=True)
    warm_cache = workdir / "numba-warm"
    results: dict[str, list[dict[str, Any]]] = {}

    def fresh_cache() -> Path:
        return Path(tempfile.mkdtemp(prefix="numba-cold-", dir=workdir))

    if "cli-cold" in cases:
        results["cli-cold"] = repeat("cli-cold", cold_repeats,
                                     lambda _k: run_cli(source, fresh_cache()))
    if "gui-cold" in cases:
        results["gui-cold"] = repeat("gui-cold", cold_repeats, lambda _k: run_gui(
            gui_command(source), source, source_environment(fresh_cache()), workdir))
    if {"cli-warm", "gui-warm"} & set(cases):
        log("filling the warm kernel cache (not timed)")
        run_cli(source, warm_cache)
    if "cli-warm" in cases:
        results["cli-warm"] = repeat("cli-warm", repeats,
                                     lambda _k: run_cli(source, warm_cache))
    if "gui-warm" in cases:
        env = source_environment(warm_cache)
        run_gui(gui_command(source), source, env, workdir)  # the app's own first-run costs
        results["gui-warm"] = repeat("gui-warm", repeats, lambda _k: run_gui(
            gui_command(source), source, env, workdir))
    return results


def bundle_cases(bundle: Path, repeats: int, workdir: Path) -> dict[str, list[dict[str, Any]]]:
    """First launch of a fresh copy with an empty HOME, then later launches of that copy."""
    results: dict[str, list[dict[str, Any]]] = {"bundle-first": [], "bundle-later": [],
                                                "bundle-screenshot": []}
    for k in range(max(1, repeats // 2)):
        copy = workdir / f"bundle-{k}"
        shutil.copytree(bundle, copy, symlinks=True)
        home = workdir / f"home-{k}"
        home.mkdir()
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "DISPLAY": os.environ["DISPLAY"],
               "LANG": os.environ.get("LANG", "C.UTF-8")}
        launch = partial(run_gui, [str(copy / bundle.name)], copy, env, workdir)
        screenshot = partial(run_screenshot, [str(copy / bundle.name)], copy, env, workdir)
        results["bundle-first"] += repeat("bundle-first", 1, lambda _k, f=launch: f())
        results["bundle-later"] += repeat("bundle-later", 2, lambda _k, f=launch: f())
        results["bundle-screenshot"] += repeat("bundle-screenshot", 1,
                                               lambda _k, f=screenshot: f())
        shutil.rmtree(copy, ignore_errors=True)
    return results


# ----------------------------------------------------------------------------- report
def summarize(runs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Median, minimum and maximum of every numeric field over the successful runs."""
    fields: dict[str, list[float]] = {}
    for run in runs:
        for key, value in run.items():
            if isinstance(value, int | float):
                fields.setdefault(key, []).append(float(value))
    return {key: {"median": statistics.median(values), "min": min(values), "max": max(values),
                  "n": len(values)} for key, values in fields.items()}


def report(results: dict[str, list[dict[str, Any]]], label: str) -> str:
    rows = []
    for case, runs in results.items():
        errors = [run["error"] for run in runs if "error" in run]
        for key, stats in summarize(runs).items():
            target = TARGETS_S.get(case, {}).get(key)
            rows.append([case, key, f"{stats['median']:.2f}",
                         f"{stats['min']:.2f}–{stats['max']:.2f}", str(stats["n"]),
                         "—" if target is None else f"≤ {target:g}"])
        for error in errors:
            rows.append([case, "error", error, "", "", ""])
    table = markdown_table(["case", "seconds after Popen", "median", "range", "runs", "target"],
                           rows)
    return f"## {label}\n\n{table}\n"


def headline(results: dict[str, list[dict[str, Any]]], bundle: Path | None
             ) -> dict[str, dict[str, float]]:
    """The numbers docs/measured.md shows (``--record``): medians of the command line's exit,
    the app's first paint and fitted demo, the bundle's first and later launches."""
    summary = {case: summarize(runs) for case, runs in results.items()}
    recorded: dict[str, dict[str, float]] = {}
    for case in ("cli-cold", "cli-warm"):
        if "exit" in summary.get(case, {}):
            recorded[case] = {"exit_s": summary[case]["exit"]["median"]}
    if "result_shown" in summary.get("gui-warm", {}):
        recorded["gui-warm"] = {"first_paint_s": summary["gui-warm"]["first_paint"]["median"],
                                "result_shown_s": summary["gui-warm"]["result_shown"]["median"]}
    if bundle is not None and "result_shown" in summary.get("bundle-later", {}):
        size = sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file() and
                   not f.is_symlink())
        recorded["bundle"] = {"size_mb": size / 1e6,
                              "first_s": summary["bundle-first"]["result_shown"]["median"],
                              "later_s": summary["bundle-later"]["result_shown"]["median"]}
    return recorded


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=REPO_ROOT,
                        help="checkout to measure with `uv run` (default: this one)")
    parser.add_argument("--cases", default=",".join(SOURCE_CASES),
                        help=f"comma-separated source cases (default: all of {SOURCE_CASES}; "
                             "empty: none)")
    parser.add_argument("--bundle", type=Path, default=None, metavar="DIR",
                        help="also measure a bundle folder, e.g. dist/stpca-gui")
    parser.add_argument("--repeats", type=int, default=5, help="warm runs per case")
    parser.add_argument("--cold-repeats", type=int, default=2, help="cold runs per case")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="set for every source launch, e.g. STPCA_HEAD_START=0 (the "
                             "demo fitted in the app's process); repeatable")
    add_record_option(parser)
    args = parser.parse_args(argv)
    if args.record and (args.source.resolve() != REPO_ROOT or args.env):
        parser.error("--record records this checkout with its defaults (no --source, --env)")
    load_at_start = one_minute_load()
    for item in args.env:
        name, equals, value = item.partition("=")
        if not equals or not name:
            parser.error(f"--env takes NAME=VALUE, got {item!r}")
        EXTRA_ENV[name] = value
    cases = [c for c in args.cases.split(",") if c]
    unknown = set(cases) - set(SOURCE_CASES)
    if unknown:
        parser.error(f"unknown cases {sorted(unknown)}; choose from {SOURCE_CASES}")

    display = started_display("bench_startup")
    if display is None:
        return 1
    sampler = LoadSampler()
    sampler.start()
    load_start = load_average_text()
    results: dict[str, list[dict[str, Any]]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-startup-") as folder:
            workdir = Path(folder)
            if cases:
                results.update(source_cases(args.source.resolve(), cases, args.repeats,
                                            args.cold_repeats, workdir))
            if args.bundle is not None:
                results.update(bundle_cases(args.bundle.resolve(), args.repeats, workdir))
    finally:
        load = sampler.stop()
        display.stop()
    revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=args.source,
                              capture_output=True, text=True, check=False).stdout.strip()
    label = f"{args.source.resolve()} at {revision or 'unknown revision'}"
    print(report(results, label))
    print(f"CPU {cpu_model()}, {os.cpu_count()} threads; load average at start {load_start}, "
          f"while running: {load}; display: {display.description}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "source": str(args.source.resolve()), "revision": revision,
            "bundle": None if args.bundle is None else str(args.bundle.resolve()),
            "load_average_start": load_start, "load_while_running": load,
            "runs": results, "summary": {case: summarize(runs) for case, runs in
                                         results.items()}}, indent=2) + "\n")
        log(f"JSON written to {args.json}")
    if args.record:
        record(args.record, __file__, headline(results, args.bundle),
               load_at_start=load_at_start, log=log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
