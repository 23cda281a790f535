"""PNS, mode clusters and the score histogram's KDE at n = 10⁴ … 10⁶ points (issue 11).

Run with ``uv run python benchmarks/bench_scale.py`` (about 10 minutes on 2 cores; ``--quick``
stops at n = 10⁵). Every case runs in a fresh child process, so that its peak resident memory
(``ru_maxrss``) is its own; the table gives the wall time, the CPU time of the process (all
threads; on a loaded machine the wall time grows, the CPU time much less) and the peak RSS
above the RSS right before the measured call (data already made, kernels compiled on a
small input first).

Data (seeded): ``sphere_clusters`` (three clusters, sd 0.3) on S^d with 10 % of the points
replaced by uniform directions, for PNS; three von Mises clusters (κ = 8, 20, 40) plus 10 %
uniform background on the circle, for the mode clusters and the KDE. Cases:

* ``pns MODE d`` — ``PrincipalNestedSpheres(mode=MODE, random_state=0).fit`` on S^d;
* ``modes`` — ``periodic_mode_clusters`` with its default plug-in bandwidth;
* ``kde`` — the histogram's density: ``circular_bandwidth`` (Silverman, and LCV) and
  ``circular_kde(method="auto")`` on 512 grid points.

``--source DIR`` runs the children against another checkout's ``stpca_gui`` (e.g. an
earlier commit exported with ``git archive``), for before/after tables.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

MARKER = "BENCH_SCALE_RESULT "
SIZES = (10_000, 100_000, 1_000_000)
PNS_CASES = (("small", 3), ("great", 3), ("bic", 3), ("seq.test", 3),
             ("small", 4), ("great", 4), ("bic", 4), ("seq.test", 4),
             ("seq.test", 6))


def sphere_data(n: int, d: int, seed: int = 0) -> np.ndarray:
    from stpca_gui.core.demos import sphere_clusters

    rng = np.random.default_rng(seed)
    x = sphere_clusters(n, d, sd=0.3, random_state=seed)
    noise = rng.standard_normal((n // 10, d + 1))
    x[: n // 10] = noise / np.linalg.norm(noise, axis=1, keepdims=True)
    return x


def circle_data(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    parts = [rng.vonmises(mu, kappa, size=(n * 3) // 10)
             for mu, kappa in ((-2.0, 8.0), (0.5, 20.0), (2.2, 40.0))]
    parts.append(rng.uniform(-np.pi, np.pi, n - 3 * ((n * 3) // 10)))
    return rng.permutation(np.concatenate(parts))


def _rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def child(case: str, n: int, d: int) -> dict:
    if case == "pns":
        from stpca_gui.core.pns.pns import PrincipalNestedSpheres

        mode = os.environ["BENCH_PNS_MODE"]
        x = sphere_data(n, d)
        PrincipalNestedSpheres(mode=mode, random_state=0).fit(x[:500])  # compile / load

        def run() -> dict:
            est = PrincipalNestedSpheres(mode=mode, random_state=0).fit(x)
            return {"types": ",".join(t[0] for t in est.sphere_types_),
                    "ev1": round(float(est.explained_variance_ratio_[0]), 4),
                    "p_vmf": [None if np.isnan(p) else round(float(p), 3)
                              for p in est.p_values_[:, 1]],
                    "test_points": [int(k) for k in getattr(est, "isotropy_test_points_",
                                                            [])]}
    elif case == "modes":
        from stpca_gui.core.circstats.modes import periodic_mode_clusters

        x = circle_data(n)
        periodic_mode_clusters(x[:500])

        def run() -> dict:
            result = periodic_mode_clusters(x)
            return {"clusters": result.n_clusters, "h": round(result.bandwidth, 5),
                    "modes": [round(float(v), 4) for v in result.modes]}
    else:
        from stpca_gui.core.circstats.kde import circular_bandwidth, circular_kde

        x = circle_data(n)
        grid = np.linspace(-np.pi, np.pi, 512, endpoint=False)
        circular_kde(x[:500], grid, method="auto")

        def run() -> dict:
            out = {}
            start = time.perf_counter()
            h = circular_bandwidth(x, rule="silverman")
            out["silverman_s"] = round(time.perf_counter() - start, 3)
            start = time.perf_counter()
            circular_kde(x, grid, h, method="auto")
            out["kde_s"] = round(time.perf_counter() - start, 3)
            start = time.perf_counter()
            circular_bandwidth(x, rule="lcv")
            out["lcv_s"] = round(time.perf_counter() - start, 3)
            return out

    base_kib = _rss_kib()
    wall, cpu = time.perf_counter(), time.process_time()
    info = run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "peak_mb": round((peak_kib - base_kib) / 1024.0), **info}


def run_case(case: str, n: int, d: int, mode: str, source: Path | None,
             timeout: float) -> dict:
    env = dict(os.environ, BENCH_PNS_MODE=mode)
    if source is not None:
        env["PYTHONPATH"] = str(source) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, __file__, "--child", case, str(n), str(d)]
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout {timeout:.0f} s"}
    for line in done.stdout.splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:100]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, metavar=("CASE", "N", "D"), help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="n up to 10^5 only")
    parser.add_argument("--source", type=Path, help="directory holding the stpca_gui to time")
    parser.add_argument("--only", choices=("pns", "modes", "kde"), help="one kind of case")
    parser.add_argument("--sizes", type=float, nargs="+", help="override the sizes")
    parser.add_argument("--pns-modes", nargs="+", help="only these PNS modes")
    parser.add_argument("--timeout", type=float, default=900.0, help="per case, seconds")
    args = parser.parse_args()
    if args.child:
        case, n, d = args.child
        print(MARKER + json.dumps(child(case, int(n), int(d))), flush=True)
        return
    sizes = [int(s) for s in args.sizes] if args.sizes else list(
        SIZES[:2] if args.quick else SIZES)
    print(f"load average {os.getloadavg()}; source {args.source or 'this checkout'}")
    print(f"{'case':22} {'n':>9} {'wall [s]':>9} {'cpu [s]':>8} {'peak MB':>8}  details")
    cases = []
    if args.only in (None, "pns"):
        cases += [("pns", d, mode) for mode, d in PNS_CASES
                  if not args.pns_modes or mode in args.pns_modes]
    if args.only in (None, "modes"):
        cases.append(("modes", 0, ""))
    if args.only in (None, "kde"):
        cases.append(("kde", 0, ""))
    for case, d, mode in cases:
        for n in sizes:
            result = run_case(case, n, d, mode, args.source, args.timeout)
            label = f"pns {mode} d={d}" if case == "pns" else case
            if "error" in result:
                print(f"{label:22} {n:9d}  {result['error']}", flush=True)
                continue
            details = {k: v for k, v in result.items()
                       if k not in ("wall_s", "cpu_s", "peak_mb")}
            print(f"{label:22} {n:9d} {result['wall_s']:9.2f} {result['cpu_s']:8.2f} "
                  f"{result['peak_mb']:8.0f}  {json.dumps(details)}", flush=True)


if __name__ == "__main__":
    main()
