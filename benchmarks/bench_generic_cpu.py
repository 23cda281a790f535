"""What shipping generic x86-64 machine code costs: fit times with ``NUMBA_CPU_NAME=generic``.

The desktop bundle compiles its numba kernels at build time for a generic x86-64 CPU (no
AVX, FMA, …), so that they load on any machine (packaging/README.md). A source install
compiles them for the host CPU. This script times the same fits both ways, each in fresh
processes with a private, empty kernel cache (``NUMBA_CACHE_DIR``) filled by an untimed
first process:

* ``clusters-t3``: the paper's T³ clusters (n = 300), default fit, seed 0;
* ``sunspots``: solar cycle 23 lagged three times (n = 5371 on T³), default fit.

Usage::

    uv run python benchmarks/bench_generic_cpu.py [--repeats 3] [--skip-sunspots]
        [--cpus host generic x86-64-v3]   # the first is the reference

The Markdown table goes to stdout. Timings depend on the machine and its load.
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

from _common import cpu_model, load_average_text, sunspots_series

#: LLVM CPU names; "host" is numba's default (the CPU it runs on, with all its features).
CPU_NAMES = ("host", "generic")
CASES = ("clusters-t3", "sunspots")


def child(case: str, repeats: int) -> None:
    """Child process: fit ``case`` ``repeats`` times and print the seconds of each as JSON."""
    import numba

    from stpca_gui.core import ScaledTorusPCA, make_demo

    if case == "clusters-t3":
        angles = make_demo("clusters-t3", random_state=0).angles
    else:
        angles, _ = sunspots_series()
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        model = ScaledTorusPCA(random_state=0).fit(angles)
        seconds.append(time.perf_counter() - start)
    print(json.dumps({"seconds": seconds, "stress": float(model.stress_),
                      "cpu": numba.config.CPU_NAME or "host"}))


def run(case: str, cpu: str, cache_dir: str, repeats: int) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    env.pop("NUMBA_CPU_NAME", None)
    env.pop("NUMBA_CPU_FEATURES", None)
    if cpu != "host":
        # No features beyond the CPU name's, as in the bundle (a portable cache key).
        env["NUMBA_CPU_NAME"] = cpu
        env["NUMBA_CPU_FEATURES"] = ""
    completed = subprocess.run([sys.executable, __file__, "--child", case, str(repeats)],
                               env=env, capture_output=True, text=True, check=True)
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed fits per process")
    parser.add_argument("--skip-sunspots", action="store_true")
    parser.add_argument("--cpus", nargs="+", default=list(CPU_NAMES),
                        help=f"LLVM CPU names to compare, the first being the reference "
                             f"(default: {' '.join(CPU_NAMES)})")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    cases = CASES[:1] if args.skip_sunspots else CASES
    rows = []
    for cpu in args.cpus:
        with tempfile.TemporaryDirectory(prefix=f"numba-{cpu}-") as cache_dir:
            for case in cases:
                run(case, cpu, cache_dir, 1)  # compiles into the private cache, untimed
                result = run(case, cpu, cache_dir, args.repeats)
                rows.append((case, cpu, result))
                print(f"{case} {cpu}: {result['seconds']}", file=sys.stderr)
    print(f"CPU: {cpu_model()}; load average at the end: {load_average_text()}\n")
    reference = args.cpus[0]
    print("| fit | CPU | median (best) s | median / " + reference + " |")
    print("|---|---|---|---|")
    for case in cases:
        seconds = {cpu: next(r for c, u, r in rows if c == case and u == cpu)["seconds"]
                   for cpu in args.cpus}
        for cpu, values in seconds.items():
            ratio = statistics.median(values) / statistics.median(seconds[reference])
            print(f"| {case} | {cpu} | {statistics.median(values):.2f} ({min(values):.2f}) | "
                  f"{ratio:.2f} |")


if __name__ == "__main__":
    main()
