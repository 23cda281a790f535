"""What each compiled kernel costs: compile time on the first run, load time on later runs.

Usage::

    uv run python benchmarks/bench_compile.py [--json OUT] [--repeats N]

Every measurement runs in a fresh interpreter (hidden ``--child`` flag) with its own
``NUMBA_CACHE_DIR``: *cold* starts from an empty cache (the first run after installing),
*warm* reuses the cache the cold run filled (every later run). Each child fits the
``clusters-t3`` demo (n = 300, exact), the way ``stpca demo clusters-t3`` does, and then
calls :func:`stpca_gui.core.warmup.warm_up` for the kernels the fit did not need
(landmark interpolation, uniformity tests, mode clustering). numba's ``numba:compile``
events give each kernel's time, including the kernels and numba's own library functions
that it compiles on the way (*inclusive*) and without them (*own*); a warm run compiles
nothing, so for it only the totals are shown. Times are CPU seconds
of the compiling thread (compiling is single-threaded Python and LLVM), which a busy
machine inflates less than wall-clock seconds; the wall-clock totals are reported too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import (
    add_record_option,
    load_average_text,
    make_logger,
    markdown_table,
    one_minute_load,
    record,
    write_json,
)

DEMO = "clusters-t3"
MARKER = "BENCH_COMPILE_RESULT "


def _child() -> dict[str, Any]:
    """Fit the demo, then warm up the rest; report per-kernel compile (or load) times."""
    started = time.perf_counter()
    import numba
    from numba.core import event

    records: dict[str, dict[str, float]] = {}
    stack: list[list[float]] = []

    class Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            stack.append([time.thread_time(), 0.0])

        def on_end(self, ev: event.Event) -> None:
            begin, nested = stack.pop()
            spent = time.thread_time() - begin
            if stack:
                stack[-1][1] += spent
            function = ev.data["dispatcher"].py_func
            module = function.__module__.rsplit(".", 1)[-1]
            if not function.__module__.startswith("stpca_gui"):
                module = "numba"  # numba's own implementations of numpy and builtins
            name = f"{module}.{function.__name__}"
            entry = records.setdefault(name, {"inclusive_s": 0.0, "own_s": 0.0, "count": 0})
            entry["inclusive_s"] += spent
            entry["own_s"] += spent - nested
            entry["count"] += 1

    event.register("numba:compile", Listener())
    from stpca_gui.core import ScaledTorusPCA, make_demo
    from stpca_gui.core.warmup import warm_up

    imported = time.perf_counter()
    demo = make_demo(DEMO)
    fit_start = time.perf_counter()
    model = ScaledTorusPCA(random_state=0).fit(demo.angles)
    fit_wall = time.perf_counter() - fit_start
    fit_kernels = sorted(records)
    warm_start = time.perf_counter()
    warm_up()
    warm_up_wall = time.perf_counter() - warm_start
    return {
        "numba": numba.__version__,
        "import_s": imported - started,
        "fit_wall_s": fit_wall,
        "fit_timings_s": dict(model.timings_),
        "warm_up_rest_wall_s": warm_up_wall,
        "kernels": records,
        "fit_kernels": fit_kernels,
    }


def _run_child(cache_dir: str) -> dict[str, Any]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    done = subprocess.run([sys.executable, __file__, "--child"], env=env, text=True,
                          capture_output=True, timeout=900, check=False)
    for line in done.stdout.splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    raise RuntimeError(f"child failed ({done.returncode}):\n{done.stderr[-3000:]}")


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _compile_totals(cold: list[dict[str, Any]]) -> tuple[float, float]:
    """CPU seconds compiling the kernels the fit needs, and every kernel (medians)."""
    fit_kernels = set(cold[0]["fit_kernels"])
    fit_own = _median([sum(v["own_s"] for k, v in r["kernels"].items() if k in fit_kernels)
                       for r in cold])
    own_total = _median([sum(v["own_s"] for v in r["kernels"].values()) for r in cold])
    return fit_own, own_total


def _report(cold: list[dict[str, Any]], warm: list[dict[str, Any]]) -> str:
    names = sorted({k for run in cold for k in run["kernels"]},
                   key=lambda k: -_median([r["kernels"].get(k, {}).get("inclusive_s", 0.0)
                                           for r in cold]))
    fit_kernels = set(cold[0]["fit_kernels"])
    rows = []
    for name in names:
        inclusive = _median([r["kernels"].get(name, {}).get("inclusive_s", 0.0) for r in cold])
        own = _median([r["kernels"].get(name, {}).get("own_s", 0.0) for r in cold])
        count = int(_median([r["kernels"].get(name, {}).get("count", 0) for r in cold]))
        if name.startswith("numba.") and inclusive < 0.05:
            continue
        rows.append([name, "fit" if name in fit_kernels else "later", str(count),
                     f"{inclusive:.2f}", f"{own:.2f}"])
    fit_own, own_total = _compile_totals(cold)
    lines = [
        f"# Kernel compile and load times (`{DEMO}` fit, then `warm_up()`)",
        "",
        f"numba {cold[0]['numba']}; load average {load_average_text()}; "
        f"{len(cold)} cold and {len(warm)} warm runs, medians.",
        "",
        markdown_table(["kernel", "needed by", "compiles", "inclusive s", "own s"], rows),
        "",
        markdown_table(["", "cold", "warm"], [
            ["imports (s, wall)", f"{_median([r['import_s'] for r in cold]):.2f}",
             f"{_median([r['import_s'] for r in warm]):.2f}"],
            [f"{DEMO} fit (s, wall)", f"{_median([r['fit_wall_s'] for r in cold]):.2f}",
             f"{_median([r['fit_wall_s'] for r in warm]):.2f}"],
            ["compiling for the fit (s, CPU)", f"{fit_own:.2f}", ""],
            ["warm_up() of the rest (s, wall)",
             f"{_median([r['warm_up_rest_wall_s'] for r in cold]):.2f}",
             f"{_median([r['warm_up_rest_wall_s'] for r in warm]):.2f}"],
            ["compiling everything (s, CPU)", f"{own_total:.2f}", ""],
        ]),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=2, help="cold and warm runs (default 2)")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    add_record_option(parser)
    args = parser.parse_args(argv)
    if args.child:
        print(MARKER + json.dumps(_child()), flush=True)
        return 0
    load_at_start = one_minute_load()
    cold, warm = [], []
    for repeat in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="stpca-numba-") as cache_dir:
            print(f"cold run {repeat + 1} …", file=sys.stderr)
            cold.append(_run_child(cache_dir))
            print(f"warm run {repeat + 1} …", file=sys.stderr)
            warm.append(_run_child(cache_dir))
    print(_report(cold, warm))
    if args.json is not None:
        write_json(args.json, {"cold": cold, "warm": warm},
                   lambda message: print(message, file=sys.stderr))
    if args.record:  # the numbers docs/measured.md shows
        fit_own, own_total = _compile_totals(cold)
        record(args.record, __file__, {"compile": {"fit_cpu_s": fit_own, "all_cpu_s": own_total}},
               load_at_start=load_at_start, log=make_logger("bench_compile"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
