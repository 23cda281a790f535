"""Benchmark of the spherical-MDS engine (:class:`stpca_gui.core.SphericalMDS`).

Usage::

    uv run python benchmarks/bench_smds.py [--quick] [--skip-sunspots] [--json OUT]

Four sections, printed as Markdown to stdout (progress goes to stderr):

1. The three paper demos × seeds 0, 1, 2 × both optimisers ("lbfgs", "paper"): warm wall
   time (one warm-up fit, then the median and best of ``--repeats`` timed fits in the same
   process), iterations, stress, r̂ and r*, and the peak traced heap of a separate, untimed
   fit under ``tracemalloc``. "lbfgs" rows get PASS/FAIL against the targets; the paper's
   published numbers are shown for context.
2. The sunspots lag-3 series of solar cycle 23 (n = 5371 on T³), fitted with the default
   "lbfgs" in fresh subprocesses so that the peak RSS (``ru_maxrss``) belongs to that fit
   alone; the RSS after imports and right before the fit is reported as a baseline. A
   full run adds one diagnostic subprocess with ``OPENBLAS_NUM_THREADS=1`` (no target).
3. Numba compile cost: the first fit in a fresh process with an empty ``NUMBA_CACHE_DIR``
   (cold compile), in another fresh process reusing that cache (cache load), and warm.
4. Pair-kernel throughput in ns per pair per evaluation (pairs = n(n-1)/2).

``--quick`` runs seed 0 only, one sunspots subprocess (no diagnostic one) and skips the
cold-compile subprocess.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import _common as common
import numba
import numpy as np
from _common import SUNSPOTS_CYCLE, SUNSPOTS_EXPECTED_ROWS, SUNSPOTS_LAGS, SUNSPOTS_SOURCE, fmt

from stpca_gui.core import SphericalMDS, make_demo
from stpca_gui.core.smds import _smds_kernel as pair_kernel
from stpca_gui.core.smds import smds as smds_module
from stpca_gui.core.smds.radius import wasserstein_radius
from stpca_gui.core.smds.stress import PairStress

log = common.make_logger("bench_smds")

DEMOS: tuple[str, ...] = ("clusters-t2", "clusters-t3", "wrapped-normal-t2")
OPTIMIZERS: tuple[str, ...] = ("lbfgs", "paper")
SEEDS: tuple[int, ...] = (0, 1, 2)


@dataclass(frozen=True)
class Target:
    """Upper bounds a default ("lbfgs") fit must meet."""

    seconds: float
    stress: float | None = None
    peak_rss_mb: float | None = None


@dataclass(frozen=True)
class PaperReference:
    """Numbers published in the ST-PCA paper (R ``optim`` BFGS, reltol 5e-2)."""

    stress: float
    seconds: float
    radius: float
    initial_radius: float


#: Targets of the default optimiser, keyed by demo name (time applies to the warm median).
DEMO_TARGETS: dict[str, Target] = {
    "clusters-t2": Target(seconds=0.15, stress=0.0065),
    "clusters-t3": Target(seconds=0.15, stress=0.018),
    "wrapped-normal-t2": Target(seconds=0.2, stress=0.078),
}
PAPER: dict[str, PaperReference] = {
    "clusters-t2": PaperReference(stress=0.068, seconds=6.45, radius=1.35, initial_radius=1.47),
    "clusters-t3": PaperReference(stress=0.064, seconds=7.28, radius=1.63, initial_radius=1.79),
    "wrapped-normal-t2": PaperReference(
        stress=0.159, seconds=30.93, radius=1.39, initial_radius=1.48
    ),
}
#: Sunspots target; the RSS bound is in MB (10^6 bytes), RSS is measured in MiB.
SUNSPOTS_TARGET = Target(seconds=15.0, peak_rss_mb=600.0)
MIB_TO_MB = 1.048576
#: Pair-kernel target (value + gradient), ns per pair per evaluation on the 2-core machine.
KERNEL_TARGET_NS = 15.0

CHILD_MARKER = "BENCH_SMDS_CHILD_RESULT "
CHILD_TIMEOUT_S = 1800.0


# ----------------------------------------------------------------------------- helpers
def kernel_cache_stats() -> dict[str, dict[str, int]]:
    """Numba on-disk cache hits and misses of the two pair-kernel entry points."""
    stats: dict[str, dict[str, int]] = {}
    for name in ("pair_sums_serial", "pair_sums"):
        dispatcher = getattr(pair_kernel, name)
        counters = dispatcher.stats
        stats[name] = {
            "hits": int(sum(counters.cache_hits.values())),
            "misses": int(sum(counters.cache_misses.values())),
        }
    return stats


def numba_cache_totals(package: str = "stpca_gui") -> dict[str, int]:
    """Sum of numba's on-disk cache hits and misses over every JIT function of ``package``.

    A miss is a compilation whose result was written to the cache, a hit a load from it.
    """
    dispatchers: dict[int, Any] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not (name == package or name.startswith(package + ".")):
            continue
        for value in vars(module).values():
            if isinstance(value, numba.core.dispatcher.Dispatcher):
                dispatchers[id(value)] = value
    hits = sum(sum(d.stats.cache_hits.values()) for d in dispatchers.values())
    misses = sum(sum(d.stats.cache_misses.values()) for d in dispatchers.values())
    return {"functions": len(dispatchers), "hits": int(hits), "misses": int(misses)}


def sunspots_angles() -> np.ndarray:
    """The sunspots series on T³, with a warning when the data file has other rows."""
    angles, rows = common.sunspots_series(SUNSPOTS_CYCLE, SUNSPOTS_LAGS)
    if rows != SUNSPOTS_EXPECTED_ROWS:
        log(f"warning: cycle {SUNSPOTS_CYCLE} has {rows} rows, "
            f"expected {SUNSPOTS_EXPECTED_ROWS}")
    return angles


def random_units(rng: np.random.Generator, n: int, p: int) -> np.ndarray:
    """n random unit vectors in R^p."""
    vectors = rng.standard_normal((n, p))
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def run_child(mode: str, extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run this script with the hidden ``--child MODE`` flag in a fresh interpreter."""
    return common.run_child_process(__file__, mode, CHILD_MARKER, CHILD_TIMEOUT_S, extra_env)


def evaluate_pair_stress(data: PairStressInput) -> None:
    """One kernel evaluation (value and gradient) on ``data``; loads or compiles the JIT."""
    PairStress(data.angles).parts(data.units)





# ------------------------------------------------------------------------ 1. demos
@dataclass
class DemoResult:
    """One demo × seed × optimiser case."""

    demo: str
    n: int
    d: int
    optimizer: str
    seed: int
    time_median_s: float
    time_best_s: float
    times_s: list[float]
    n_iter: int
    n_evaluations: int
    stress: float
    radius: float
    initial_radius: float
    converged: bool
    message: str
    heap_peak_mb: float | None
    time_ok: bool | None = None
    stress_ok: bool | None = None

    @property
    def passed(self) -> bool | None:
        """Whether all targets are met (``None`` when the case has no target)."""
        if self.time_ok is None or self.stress_ok is None:
            return None
        return self.time_ok and self.stress_ok


def bench_demo_case(
    demo: str, optimizer: str, seed: int, repeats: int, heap: bool
) -> DemoResult:
    """Warm-up fit, ``repeats`` timed fits and (optionally) an untimed tracemalloc fit."""
    angles = make_demo(demo, random_state=seed).angles

    def fit() -> SphericalMDS:
        return SphericalMDS(optimizer=optimizer, random_state=seed).fit(angles)

    fit()  # warm-up: JIT load/compile and the cached r* estimate
    times: list[float] = []
    model: SphericalMDS | None = None
    for _ in range(repeats):
        elapsed, model = common.timed(fit)
        times.append(elapsed)
    assert model is not None

    heap_peak: float | None = None
    if heap:  # separate run: tracemalloc slows numpy down, so never in a timed fit
        tracemalloc.start()
        try:
            fit()
            heap_peak = tracemalloc.get_traced_memory()[1] / (1024.0 * 1024.0)
        finally:
            tracemalloc.stop()

    result = DemoResult(
        demo=demo, n=angles.shape[0], d=angles.shape[1], optimizer=optimizer, seed=seed,
        time_median_s=statistics.median(times), time_best_s=min(times), times_s=times,
        n_iter=int(model.n_iter_), n_evaluations=int(model.n_evaluations_),
        stress=float(model.stress_), radius=float(model.radius_),
        initial_radius=float(model.initial_radius_), converged=bool(model.converged_),
        message=str(model.message_), heap_peak_mb=heap_peak,
    )
    target = DEMO_TARGETS.get(demo)
    if optimizer == "lbfgs" and target is not None:
        result.time_ok = result.time_median_s <= target.seconds
        result.stress_ok = target.stress is None or result.stress <= target.stress
    return result


def bench_demos(seeds: Sequence[int], repeats: int, heap: bool) -> list[DemoResult]:
    """All demo cases."""
    results = []
    for demo in DEMOS:
        for optimizer in OPTIMIZERS:
            for seed in seeds:
                log(f"demo {demo} optimizer={optimizer} seed={seed}")
                results.append(bench_demo_case(demo, optimizer, seed, repeats, heap))
    return results


def demo_report(results: Sequence[DemoResult], repeats: int) -> str:
    """Markdown of section 1: per-case table and a per-demo summary next to the paper."""
    headers = ["demo", "n", "d", "optimizer", "seed", f"time median of {repeats} (s)",
               "time best (s)", "iter", "evals", "stress", "r̂", "r*", "heap peak (MiB)",
               "converged", "target (time / stress)", "status"]
    rows = []
    for r in results:
        target = DEMO_TARGETS.get(r.demo)
        target_cell = "—"
        if r.optimizer == "lbfgs" and target is not None:
            target_cell = f"≤ {target.seconds:g} s / ≤ {fmt(target.stress, 'g')}"
        status = common.pass_fail(r.passed)
        if r.passed is False:
            failed = [name for name, ok in (("time", r.time_ok), ("stress", r.stress_ok))
                      if not ok]
            status += f" ({', '.join(failed)})"
        rows.append([
            r.demo, str(r.n), str(r.d), r.optimizer, str(r.seed), fmt(r.time_median_s, ".4f"),
            fmt(r.time_best_s, ".4f"), str(r.n_iter), str(r.n_evaluations), fmt(r.stress, ".5f"),
            fmt(r.radius, ".3f"), fmt(r.initial_radius, ".3f"), fmt(r.heap_peak_mb, ".1f"),
            "yes" if r.converged else "no", target_cell, status,
        ])

    summary_headers = ["demo", "optimizer", "seeds", "mean stress", "max stress",
                       "median time (s)", "max time (s)", "mean iter", "mean r̂", "r*",
                       "paper stress", "paper time (s)", "paper r̂", "paper r*", "lbfgs PASS"]
    summary_rows = []
    for demo, optimizer, cases in common.demo_groups(results, DEMOS, OPTIMIZERS):
        paper = PAPER[demo]
        verdicts = [r.passed for r in cases if r.passed is not None]
        passed = f"{sum(verdicts)}/{len(verdicts)}" if verdicts else "—"
        summary_rows.append([
            demo, optimizer, str(len(cases)),
            fmt(statistics.fmean(r.stress for r in cases), ".5f"),
            fmt(max(r.stress for r in cases), ".5f"),
            fmt(statistics.median(r.time_median_s for r in cases), ".4f"),
            fmt(max(r.time_median_s for r in cases), ".4f"),
            fmt(statistics.fmean(r.n_iter for r in cases), ".1f"),
            fmt(statistics.fmean(r.radius for r in cases), ".3f"),
            fmt(cases[0].initial_radius, ".3f"),
            fmt(paper.stress, ".3f"), fmt(paper.seconds, ".2f"), fmt(paper.radius, ".2f"),
            fmt(paper.initial_radius, ".2f"), passed,
        ])
    parts = [
        "## 1. Demo fits",
        "",
        f"Warm fits: one warm-up fit per case, then {repeats} timed fits in the same process; "
        "the status uses the **median**, the best is shown too. `random_state` = seed for "
        "both the data and the fit, so every repeat gives the same iterations and stress. "
        "Heap peak is `tracemalloc`'s peak of a separate, untimed fit (numpy allocations, "
        "including the n×n classical-MDS matrix). Targets apply to the default optimiser "
        "(`lbfgs`) only; `paper` emulates R's BFGS with reltol 5e-2 and is shown for "
        "comparison.",
        "",
        common.markdown_table(headers, rows),
        *common.titled_table("### Summary per demo, next to the paper's published numbers",
                             summary_headers, summary_rows),
    ]
    return "\n".join(parts)


# --------------------------------------------------------------------- 2. sunspots
def load_average() -> float | None:
    """One-minute load average, or ``None`` where unavailable."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # pragma: no cover - not POSIX
        return None


class PhaseTimer:
    """Accumulates the wall time and call count of wrapped callables (child processes only).

    Wrapping costs two ``perf_counter`` calls per call, negligible next to a kernel
    evaluation on n = 5371, so the timed fit is not disturbed.
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}

    def wrap(self, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        """``func`` with its time added to phase ``name``."""

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start
                self.calls[name] = self.calls.get(name, 0) + 1

        return wrapper


def child_sunspots() -> dict[str, Any]:
    """Child process: one default fit of the sunspots series, with RSS before and after.

    ``PairStress.parts`` (every kernel evaluation) and ``classical_mds`` (the start) are
    wrapped with a :class:`PhaseTimer` in this process, so the parent can split the fit
    time into kernel, start and the rest (optimiser and Python overhead).
    """
    load_start = load_average()
    rss_imports = common.current_rss_mb()
    peak_imports = common.peak_rss_mb()
    angles = sunspots_angles()
    # Warm-up outside the timed fit: r* for d = 3 (lru-cached per process) and loading the
    # parallel kernel from numba's on-disk cache, with a small problem (n = 1000).
    radius_time, _ = common.timed(lambda: smds_module.default_initial_radius(angles.shape[1]))
    small = PairStressInput.synthetic(np.random.default_rng(0), 1000, angles.shape[1])
    kernel_warmup_time, _ = common.timed(partial(evaluate_pair_stress, small))
    small = None
    gc.collect()

    phases = PhaseTimer()
    PairStress.parts = phases.wrap("kernel", PairStress.parts)
    smds_module.classical_mds = phases.wrap("start", smds_module.classical_mds)
    rss_prefit = common.current_rss_mb()
    peak_prefit = common.peak_rss_mb()
    model = SphericalMDS(random_state=0)
    elapsed, _ = common.timed(lambda: model.fit(angles))
    peak_end = common.peak_rss_mb()
    load_end = load_average()
    return {
        "n": int(angles.shape[0]),
        "d": int(angles.shape[1]),
        "time_s": elapsed,
        "n_iter": int(model.n_iter_),
        "n_evaluations": int(model.n_evaluations_),
        "stress": float(model.stress_),
        "radius": float(model.radius_),
        "initial_radius": float(model.initial_radius_),
        "initial_stress": float(model.initial_stress_),
        "converged": bool(model.converged_),
        "message": str(model.message_),
        "rss_after_imports_mb": rss_imports,
        "peak_after_imports_mb": peak_imports,
        "rss_before_fit_mb": rss_prefit,
        "peak_before_fit_mb": peak_prefit,
        "peak_rss_mb": peak_end,
        "warmup_radius_s": radius_time,
        "warmup_kernel_s": kernel_warmup_time,
        "kernel_s": phases.seconds.get("kernel", 0.0),
        "kernel_calls": phases.calls.get("kernel", 0),
        "start_s": phases.seconds.get("start", 0.0),
        "load_avg_start": load_start,
        "load_avg_end": load_end,
        "kernel_cache": kernel_cache_stats(),
        "numba_threads": int(numba.get_num_threads()),
        "openblas_num_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
    }


#: Environment of the diagnostic sunspots run (full mode only, no target): L-BFGS-B's BLAS
#: calls with a single OpenBLAS thread, so they do not compete with numba's workers.
DIAGNOSTIC_ENV = {"OPENBLAS_NUM_THREADS": "1"}


def bench_sunspots(repeats: int, diagnostic: bool) -> list[dict[str, Any]]:
    """Run the sunspots fit ``repeats`` times, each in a fresh subprocess.

    With ``diagnostic`` one more subprocess runs with :data:`DIAGNOSTIC_ENV`; it is
    reported but not checked against the target.
    """
    runs = []
    for index in range(repeats):
        log(f"sunspots subprocess {index + 1}/{repeats}")
        runs.append(run_child("sunspots") | {"label": "default"})
    if diagnostic:
        label = " ".join(f"{k}={v}" for k, v in DIAGNOSTIC_ENV.items())
        log(f"sunspots diagnostic subprocess ({label})")
        runs.append(run_child("sunspots", DIAGNOSTIC_ENV) | {"label": f"{label} (diagnostic)"})
    return runs


def default_sunspots_runs(runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Successful runs with the default environment (the ones checked against targets)."""
    return [r for r in runs if "error" not in r and r.get("label") == "default"]


def sunspots_report(runs: Sequence[dict[str, Any]] | None, skipped: str | None) -> str:
    """Markdown of section 2."""
    parts = ["## 2. Sunspots, cycle 23, lag 3 (T³)", ""]
    if skipped is not None:
        parts.append(f"Skipped: {skipped}")
        return "\n".join(parts)
    assert runs is not None
    errors = [f"{r.get('label', '?')}: {r['error']}" for r in runs if "error" in r]
    headers = ["run", "environment", "n", "time (s)", "iter", "evals", "stress", "r̂", "r*",
               "converged", "RSS after imports (MiB)", "RSS before fit (MiB)",
               "peak RSS (MiB)", "fit increase (MiB)", "kernel cache hits/misses"]
    breakdown_headers = ["run", "environment", "time (s)", "kernel calls",
                         "kernel total (s)", "kernel per call (s)", "ns/pair per call",
                         "cMDS start (s)", "remainder: optimiser etc. (s)",
                         "load avg start → end"]
    rows = []
    breakdown = []
    for index, r in enumerate(runs, start=1):
        label = r.get("label", "default")
        if "error" in r:
            rows.append([str(index), label, "error", *["—"] * (len(headers) - 3)])
            continue
        increase = None
        if r["peak_rss_mb"] is not None and r["rss_before_fit_mb"] is not None:
            increase = r["peak_rss_mb"] - r["rss_before_fit_mb"]
        cache = r["kernel_cache"]["pair_sums"]
        rows.append([
            str(index), label, str(r["n"]), fmt(r["time_s"], ".2f"), str(r["n_iter"]),
            str(r["n_evaluations"]), fmt(r["stress"], ".5f"), fmt(r["radius"], ".3f"),
            fmt(r["initial_radius"], ".3f"), "yes" if r["converged"] else "no",
            fmt(r["rss_after_imports_mb"], ".1f"), fmt(r["rss_before_fit_mb"], ".1f"),
            fmt(r["peak_rss_mb"], ".1f"), fmt(increase, ".1f"),
            f"{cache['hits']}/{cache['misses']}",
        ])
        calls = max(r["kernel_calls"], 1)
        pairs = r["n"] * (r["n"] - 1) // 2
        breakdown.append([
            str(index), label, fmt(r["time_s"], ".2f"), str(r["kernel_calls"]),
            fmt(r["kernel_s"], ".2f"), fmt(r["kernel_s"] / calls, ".3f"),
            fmt(r["kernel_s"] / calls / pairs * 1e9, ".1f"), fmt(r["start_s"], ".2f"),
            fmt(r["time_s"] - r["kernel_s"] - r["start_s"], ".2f"),
            f"{fmt(r['load_avg_start'], '.2f')} → {fmt(r['load_avg_end'], '.2f')}",
        ])
    parts += [
        f"Data: {SUNSPOTS_SOURCE}. Rows with cycle == {SUNSPOTS_CYCLE} in file (= date) "
        f"order, θ wrapped to [−π, π), lagged with k = {SUNSPOTS_LAGS}. Default optimiser "
        "(`lbfgs`, `random_state=0`). Each run is a fresh subprocess: imports, then a warm-up "
        "outside the timed region (r* for d = 3 and loading the parallel kernel from numba's "
        "cache on n = 1000), then one timed fit; peak RSS is `ru_maxrss` read right after "
        "the fit, so it covers the whole process; *fit increase* = peak RSS − RSS right "
        "before the fit. No tracemalloc anywhere in these runs.",
        "",
        common.markdown_table(headers, rows),
        "",
        "Where the time goes inside the timed fit: `PairStress.parts` (all kernel "
        "evaluations, with and without gradient) and `classical_mds` (the spherical "
        "classical-MDS start) are wrapped with a timer in the child; the remainder is "
        "L-BFGS-B's own work, numpy glue and Python overhead:",
        "",
        common.markdown_table(breakdown_headers, breakdown),
        "",
    ]
    good = default_sunspots_runs(runs)
    if good:
        times = [r["time_s"] for r in good]
        peak = max(r["peak_rss_mb"] or 0.0 for r in good)
        time_ok = statistics.median(times) <= SUNSPOTS_TARGET.seconds
        assert SUNSPOTS_TARGET.peak_rss_mb is not None
        rss_ok = peak * MIB_TO_MB <= SUNSPOTS_TARGET.peak_rss_mb
        parts.append(common.markdown_table(
            ["metric (default runs)", "value", "target", "status"],
            [
                [f"time, median of {len(times)} (best)",
                 f"{statistics.median(times):.2f} s ({min(times):.2f} s)",
                 f"≤ {SUNSPOTS_TARGET.seconds:g} s", common.pass_fail(time_ok)],
                ["peak RSS, max over runs", f"{peak:.1f} MiB = {peak * MIB_TO_MB:.1f} MB",
                 f"≤ {SUNSPOTS_TARGET.peak_rss_mb:g} MB", common.pass_fail(rss_ok)],
                ["warm-up in child (r*, kernel load)",
                 f"{good[0]['warmup_radius_s']:.3f} s, {good[0]['warmup_kernel_s']:.3f} s",
                 "—", "—"],
                ["stopping message", good[0]["message"], "—", "—"],
            ],
        ))
    for error in errors:
        parts.append(f"\n**Error:** {error}")
    return "\n".join(parts)


# ---------------------------------------------------------------- 3. compile cost
COMPILE_DEMO = "clusters-t3"


def child_compile() -> dict[str, Any]:
    """Child process: first fit (JIT compile or cache load), then warm fits, on clusters-t3."""
    angles = make_demo(COMPILE_DEMO, random_state=0).angles

    def fit() -> SphericalMDS:
        return SphericalMDS(random_state=0).fit(angles)

    first, _ = common.timed(fit)
    cache = kernel_cache_stats()
    cache_all = numba_cache_totals()
    warm = [common.timed(fit)[0] for _ in range(3)]
    # The first fit also estimated r* (lru-cached afterwards); time that part on its own.
    radius_time, _ = common.timed(
        lambda: wasserstein_radius(angles.shape[1], n=100, n_rep=100,
                                   random_state=smds_module.RADIUS_SEED)
    )
    return {
        "first_fit_s": first,
        "warm_median_s": statistics.median(warm),
        "radius_estimate_s": radius_time,
        "kernel_cache": cache,
        "numba_cache_all": cache_all,
        "numba_cache_dir": os.environ.get("NUMBA_CACHE_DIR", "(default: __pycache__)"),
    }


def bench_compile(quick: bool) -> dict[str, Any]:
    """Cold-compile and warm-cache first fits in fresh subprocesses."""
    out: dict[str, Any] = {}
    if quick:
        log("compile: warm-cache subprocess (default cache dir; cold compile skipped)")
        out["warm_cache"] = run_child("compile")
        return out
    with tempfile.TemporaryDirectory(prefix="bench-smds-numba-") as cache_dir:
        env = {"NUMBA_CACHE_DIR": cache_dir}
        log(f"compile: cold subprocess, NUMBA_CACHE_DIR={cache_dir}")
        out["cold"] = run_child("compile", env)
        out["cache_files_after_cold"] = sum(1 for p in Path(cache_dir).rglob("*") if p.is_file())
        log("compile: warm-cache subprocess (same cache dir)")
        out["warm_cache"] = run_child("compile", env)
    return out


def compile_report(compiled: dict[str, Any], in_process_warm: float | None) -> str:
    """Markdown of section 3."""
    headers = ["scenario", "first fit (s)", "warm fit in that process, median of 3 (s)",
               "one-time cost (s)", "of which r* estimate (s)",
               "pair kernel cache hits/misses", "all stpca_gui JIT functions: hits/misses"]
    rows = []
    labels = {"cold": "fresh process, empty NUMBA_CACHE_DIR (cold compile)",
              "warm_cache": "fresh process, cache reused (cache load)"}
    for key in ("cold", "warm_cache"):
        r = compiled.get(key)
        if r is None:
            continue
        if "error" in r:
            rows.append([labels[key], f"error: {r['error']}", *["—"] * 5])
            continue
        cache = r["kernel_cache"]["pair_sums_serial"]
        total = r["numba_cache_all"]
        rows.append([
            labels[key], fmt(r["first_fit_s"], ".3f"), fmt(r["warm_median_s"], ".4f"),
            fmt(r["first_fit_s"] - r["warm_median_s"], ".3f"), fmt(r["radius_estimate_s"], ".3f"),
            f"{cache['hits']}/{cache['misses']}",
            f"{total['hits']}/{total['misses']} ({total['functions']} functions loaded)",
        ])
    rows.append(["this process, warm (section 1, seed 0, lbfgs)", "—",
                 fmt(in_process_warm, ".4f"), *["—"] * 4])
    notes = [
        "## 3. Numba compile cost (clusters-t3, seed 0, lbfgs)",
        "",
        "First fit in a fresh interpreter: it includes JIT compilation (or loading from "
        "numba's on-disk cache) of the pair kernel and the one-time Monte Carlo estimate of "
        "r* (lru-cached per process, timed separately in the same child). Cache "
        "hits/misses are numba's dispatcher counters after the first fit, for the pair "
        "kernel `pair_sums_serial` (n = 300 uses the serial kernel) and summed over every "
        "JIT function of the imported `stpca_gui` modules (hit = loaded from the cache, "
        "miss = compiled and written to it). A callee compiled together with its caller "
        "(`_accumulate_rows` inside `pair_sums_serial`) is a miss in the cold run but is "
        "not loaded on its own from the cache, so there is one hit fewer than misses.",
        "",
        common.markdown_table(headers, rows),
    ]
    if "cache_files_after_cold" in compiled:
        notes += ["", f"Files written to the temporary NUMBA_CACHE_DIR by the cold run: "
                      f"{compiled['cache_files_after_cold']}."]
    else:
        notes += ["", "Cold-compile subprocess skipped (`--quick`); the warm-cache run used "
                      "the default cache location."]
    return "\n".join(notes)


# -------------------------------------------------------------------- 4. kernel
@dataclass
class PairStressInput:
    """Angles on T^d and unit vectors on S^d for a kernel timing."""

    angles: np.ndarray
    units: np.ndarray

    @classmethod
    def synthetic(cls, rng: np.random.Generator, n: int, d: int) -> PairStressInput:
        """Uniform angles and random unit vectors in R^(d+1)."""
        angles = rng.uniform(-np.pi, np.pi, size=(n, d))
        return cls(angles=angles, units=random_units(rng, n, d + 1))


@dataclass
class KernelResult:
    """Timing of ``PairStress(angles).parts(units)``."""

    dataset: str
    n: int
    d: int
    p: int
    pairs: int
    gradient: bool
    parallel: bool | None  # None: the objective does not say
    times_s: list[float] = field(default_factory=list)

    @property
    def best_ns_per_pair(self) -> float:
        """Best time per pair, ns."""
        return min(self.times_s) / self.pairs * 1e9

    @property
    def median_ns_per_pair(self) -> float:
        """Median time per pair, ns."""
        return statistics.median(self.times_s) / self.pairs * 1e9


def bench_kernel(
    cases: Sequence[tuple[str, PairStressInput]], repeats: int
) -> list[KernelResult]:
    """Time the pair kernel, value + gradient and value only, after one warm-up call."""
    results = []
    for name, data in cases:
        objective = PairStress(np.ascontiguousarray(data.angles))
        n, d = data.angles.shape
        for gradient in (True, False):
            log(f"kernel {name} n={n} d={d} gradient={gradient}")
            objective.parts(data.units, gradient=gradient)  # warm-up / JIT
            result = KernelResult(
                dataset=name, n=n, d=d, p=data.units.shape[1], pairs=n * (n - 1) // 2,
                gradient=gradient, parallel=getattr(objective, "_parallel", None),
            )
            for _ in range(repeats):
                elapsed, _ = common.timed(
                    lambda: objective.parts(data.units, gradient=gradient)  # noqa: B023
                )
                result.times_s.append(elapsed)
            results.append(result)
    return results


def kernel_report(results: Sequence[KernelResult], repeats: int) -> str:
    """Markdown of section 4."""
    headers = ["data", "n", "d", "p", "pairs", "evaluation", "threads", "best (ms)",
               f"median of {repeats} (ms)", "best ns/pair", "median ns/pair", "target",
               "status"]
    rows = []
    for r in results:
        ok = r.best_ns_per_pair <= KERNEL_TARGET_NS if r.gradient else None
        rows.append([
            r.dataset, str(r.n), str(r.d), str(r.p), f"{r.pairs:,}",
            "value + gradient" if r.gradient else "value only",
            {True: str(numba.get_num_threads()), False: "1 (serial)"}.get(r.parallel, "?"),
            fmt(min(r.times_s) * 1e3, ".1f"), fmt(statistics.median(r.times_s) * 1e3, ".1f"),
            fmt(r.best_ns_per_pair, ".2f"), fmt(r.median_ns_per_pair, ".2f"),
            f"≈ {KERNEL_TARGET_NS:g} ns" if r.gradient else "—", common.pass_fail(ok),
        ])
    return "\n".join([
        "## 4. Pair-kernel throughput",
        "",
        "`stpca_gui.core.smds.stress.PairStress(angles).parts(units)` with random unit vectors, "
        f"one warm-up call then {repeats} timed calls; ns per pair per evaluation with pairs = "
        "n(n−1)/2. The status compares the **best** call (value + gradient, as in a fit) "
        "with the target, since load from other processes only adds time.",
        "",
        common.markdown_table(headers, rows),
    ])


# ------------------------------------------------------------------ machine info


#: Environment variables that change threading behaviour (and so the timings).
def failures_report(
    demos: Sequence[DemoResult],
    sunspots: Sequence[dict[str, Any]] | None,
    kernels: Sequence[KernelResult],
) -> str:
    """Markdown list of every missed target."""
    misses = []
    for r in demos:
        if r.passed is False:
            misses.append(f"- {r.demo} seed {r.seed} ({r.optimizer}): time median "
                          f"{r.time_median_s:.4f} s, stress {r.stress:.5f} "
                          f"(target ≤ {DEMO_TARGETS[r.demo].seconds:g} s, "
                          f"≤ {DEMO_TARGETS[r.demo].stress:g})")
    if sunspots:
        good = default_sunspots_runs(sunspots)
        failed = sum(1 for r in sunspots if "error" in r)
        if failed:
            misses.append(f"- sunspots: {failed} subprocess(es) failed")
        if good:
            median = statistics.median(r["time_s"] for r in good)
            peak = max(r["peak_rss_mb"] or 0.0 for r in good)
            assert SUNSPOTS_TARGET.peak_rss_mb is not None
            if median > SUNSPOTS_TARGET.seconds:
                misses.append(f"- sunspots: time median {median:.2f} s "
                              f"(target ≤ {SUNSPOTS_TARGET.seconds:g} s)")
            if peak * MIB_TO_MB > SUNSPOTS_TARGET.peak_rss_mb:
                misses.append(f"- sunspots: peak RSS {peak * MIB_TO_MB:.1f} MB "
                              f"(target ≤ {SUNSPOTS_TARGET.peak_rss_mb:g} MB)")
    for k in kernels:
        if k.gradient and k.best_ns_per_pair > KERNEL_TARGET_NS:
            misses.append(f"- kernel {k.dataset} (n={k.n}, d={k.d}): best "
                          f"{k.best_ns_per_pair:.2f} ns/pair (target ≈ {KERNEL_TARGET_NS:g})")
    body = "\n".join(misses) if misses else "None: every target met."
    return "## Missed targets\n\n" + body



# -------------------------------------------------------------------------- main
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="seed 0 only, one sunspots run, no cold-compile subprocess")
    parser.add_argument("--skip-sunspots", action="store_true",
                        help="skip the sunspots fits (the kernel timing then uses synthetic data)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write results as JSON")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed warm fits per demo case (default 3)")
    parser.add_argument("--no-heap", action="store_true",
                        help="skip the untimed tracemalloc fit of each demo case")
    parser.add_argument("--child", choices=("sunspots", "compile"), help=argparse.SUPPRESS)
    common.add_record_option(parser)
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.record and args.quick:
        parser.error("--record records full runs only (not --quick)")
    return args


def headline(demos: Sequence[DemoResult], sunspots: Sequence[dict[str, Any]] | None
             ) -> dict[str, dict[str, float]]:
    """The numbers docs/measured.md shows (``--record``): per demo the median time and the
    largest stress of the ``lbfgs`` seeds, the mean r̂ and stress of the ``paper`` ones;
    the range of the sunspots fits' times, their peak RSS and r̂."""
    values: dict[str, float] = {}
    for demo, key in common.DEMO_KEYS.items():
        lbfgs = [r for r in demos if r.demo == demo and r.optimizer == "lbfgs"]
        paper = [r for r in demos if r.demo == demo and r.optimizer == "paper"]
        values[f"lbfgs_s_{key}"] = statistics.median(r.time_median_s for r in lbfgs)
        values[f"lbfgs_stress_{key}"] = max(r.stress for r in lbfgs)
        values[f"paper_radius_{key}"] = statistics.fmean(r.radius for r in paper)
        values[f"paper_stress_{key}"] = statistics.fmean(r.stress for r in paper)
    cases = {"demos": values}
    runs = default_sunspots_runs(sunspots or [])
    if runs:
        cases["sunspots"] = {
            "seconds_min": min(r["time_s"] for r in runs),
            "seconds_max": max(r["time_s"] for r in runs),
            "peak_rss_mib": max(r["peak_rss_mb"] for r in runs),
            "radius": statistics.median(r["radius"] for r in runs)}
    return cases


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the Markdown report."""
    args = parse_args(argv)
    if args.child:  # one measurement in a fresh process, started by run_child
        children = {"sunspots": child_sunspots, "compile": child_compile}
        common.emit_child_result(CHILD_MARKER, children[args.child]())
        return 0

    started = time.perf_counter()
    load_at_start = common.one_minute_load()
    info = common.machine_info()
    seeds = SEEDS[:1] if args.quick else SEEDS

    demos = bench_demos(seeds, args.repeats, heap=not args.no_heap)

    skipped: str | None = None
    if args.skip_sunspots:
        skipped = "`--skip-sunspots` given."
        log(f"sunspots skipped: {skipped}")

    rng = np.random.default_rng(12345)
    if not args.skip_sunspots:
        sun_angles = sunspots_angles()
        kernel_cases = [("sunspots cycle 23, lag 3", PairStressInput(
            sun_angles, random_units(rng, sun_angles.shape[0], sun_angles.shape[1] + 1)))]
    else:
        kernel_cases = [("synthetic (sunspots-sized)", PairStressInput.synthetic(rng, 5371, 3))]
    kernel_cases.append(("synthetic", PairStressInput.synthetic(rng, 3000, 7)))
    # Before the sunspots children: this also puts the parallel kernel in numba's cache.
    kernel_repeats = 3 if args.quick else 5
    kernels = bench_kernel(kernel_cases, kernel_repeats)

    sunspots = None
    if skipped is None:
        sunspots = bench_sunspots(1 if args.quick else 3, diagnostic=not args.quick)
    compiled = bench_compile(args.quick)
    in_process_warm = next(
        (r.time_median_s for r in demos
         if r.demo == COMPILE_DEMO and r.optimizer == "lbfgs" and r.seed == 0),
        None,
    )
    info_end = common.machine_info()
    info["numba threading layer"] = info_end["numba threading layer"]

    mode = "quick" if args.quick else "full"
    report = "\n\n".join([
        f"# Spherical MDS benchmark ({mode} run, {time.perf_counter() - started:.0f} s)",
        common.machine_report(info),
        demo_report(demos, args.repeats),
        sunspots_report(sunspots, skipped),
        compile_report(compiled, in_process_warm),
        kernel_report(kernels, kernel_repeats),
        failures_report(demos, sunspots, kernels),
    ])
    print(report)

    payload = {
        "mode": mode,
        "machine": info,
        "machine_end": info_end,
        "demos": [asdict(r) | {"passed": r.passed} for r in demos],
        "sunspots": {"skipped": skipped, "runs": sunspots},
        "compile": compiled | {"in_process_warm_s": in_process_warm},
        "kernel": [asdict(r) | {"best_ns_per_pair": r.best_ns_per_pair,
                                "median_ns_per_pair": r.median_ns_per_pair}
                   for r in kernels],
        "targets": {
            "demos": {k: asdict(v) for k, v in DEMO_TARGETS.items()},
            "sunspots": asdict(SUNSPOTS_TARGET),
            "kernel_ns_per_pair": KERNEL_TARGET_NS,
        },
        "paper": {k: asdict(v) for k, v in PAPER.items()},
    }
    return common.publish(args, __file__, payload, lambda: headline(demos, sunspots),
                          load_at_start=load_at_start, log=log)


if __name__ == "__main__":
    sys.exit(main())
