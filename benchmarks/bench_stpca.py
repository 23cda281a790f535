"""Benchmark and paper comparison of the full pipeline (:class:`stpca_gui.core.ScaledTorusPCA`).

Usage::

    uv run python benchmarks/bench_stpca.py [--quick] [--skip-sunspots] [--json OUT]

Two sections, printed as Markdown to stdout (progress goes to stderr):

1. The paper's three simulations ("clusters-t2", "clusters-t3", "wrapped-normal-t2"), data
   seeds 0, 1, 2 (``make_demo(name, random_state=seed)``), model ``random_state=0``, default
   settings, optimisers "lbfgs" and "paper". Per case: r* (``smds_.initial_radius_``), r̂,
   stress, sphere and torus explained variance per component, PNS sphere types, principal
   curve breaks and the wall time per stage (``timings_``) and in total, after one untimed
   warm-up fit per demo × optimiser (JIT load and the per-process r* cache). The cluster
   demos get two PASS/FAIL checks: PC1 separates the three clusters (non-overlapping label
   intervals on the PC1 circle) and the principal curve passes within 0.15 rad of every
   cluster's circular mean. A summary table puts the numbers next to the paper's.
2. The sunspots lag-3 series of solar cycle 23 (n = 5371 on T³): one default fit in a fresh
   subprocess (peak RSS via ``ru_maxrss``, clean timing), and the principal curve's fit to a
   periodic diagonal θ_k ≈ θ_1 + c_k (mod 2π).

``--quick`` runs data seed 0 with "lbfgs" only and skips the sunspots section.

Formatting, machine information, the child-process runner and the sunspots loader are
shared with the other scripts through ``_common.py``.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import _common as common
import numba
import numpy as np
from _common import SUNSPOTS_CYCLE, SUNSPOTS_EXPECTED_ROWS, SUNSPOTS_LAGS, SUNSPOTS_SOURCE, fmt
from numpy.typing import NDArray

from stpca_gui.core import (
    PrincipalCurve,
    ScaledTorusPCA,
    make_demo,
    torus_distance,
    wrap_angles,
)
from stpca_gui.core.geometry.series import diagonal_fit

log = common.make_logger("bench_stpca")

DEMOS: tuple[str, ...] = ("clusters-t2", "clusters-t3", "wrapped-normal-t2")
CLUSTER_DEMOS: tuple[str, ...] = ("clusters-t2", "clusters-t3")
OPTIMIZERS: tuple[str, ...] = ("lbfgs", "paper")
SEEDS: tuple[int, ...] = (0, 1, 2)
MODEL_SEED = 0
STAGES: tuple[str, ...] = ("smds", "pns", "curve", "torus-variance")

#: The principal curve must come this close (torus distance, radians) to each cluster mean.
CURVE_CENTRE_TOLERANCE = 0.15


@dataclass(frozen=True)
class PaperReference:
    """ST-PCA paper, section 4: r*, r̂, stress and torus explained variance (%)."""

    initial_radius: float
    radius: float
    stress: float
    torus_percent: tuple[float, ...]  # leading components reported by the paper

    @property
    def percent_label(self) -> str:
        """The paper's notation, e.g. ``94+1``."""
        return "+".join(f"{p:g}" for p in self.torus_percent)


PAPER: dict[str, PaperReference] = {
    "clusters-t2": PaperReference(1.47, 1.35, 0.068, (95.0,)),
    "clusters-t3": PaperReference(1.79, 1.63, 0.064, (94.0, 1.0)),
    "wrapped-normal-t2": PaperReference(1.48, 1.39, 0.159, (89.0,)),
}
PAPER_SUNSPOTS_RADIUS = 1.81
PAPER_SUNSPOTS_ONE_MINUS_R2 = 3e-5

CHILD_MARKER = "BENCH_STPCA_CHILD_RESULT "
CHILD_TIMEOUT_S = 3600.0


# ----------------------------------------------------------------------------- helpers
def fmt_percent(values: Sequence[float], spec: str = ".1f") -> str:
    """Percentages of a ratio vector, joined by " / "."""
    return " / ".join(fmt(100.0 * v, spec) for v in values)






# ------------------------------------------------------------------------ geometry checks
def circular_mean(angles: NDArray[np.float64]) -> NDArray[np.float64]:
    """Coordinate-wise circular mean atan2(mean sin, mean cos) of rows on T^d."""
    return np.arctan2(np.mean(np.sin(angles), axis=0), np.mean(np.cos(angles), axis=0))


@dataclass
class Separation:
    """How the label groups lie on the PC1 circle.

    ``intervals`` are (label, start, end) in PC1 units after the circle is cut at the largest
    gap between consecutive sorted PC1 values, ordered by start; ``margin`` is the smallest
    gap between an interval's start and the largest end before it (negative: overlap);
    ``runs`` counts the maximal blocks of equal labels around the circle (= number of
    groups exactly when every group is one arc).
    """

    period: float
    intervals: list[tuple[int, float, float]]
    margin: float
    runs: int

    @property
    def separated(self) -> bool:
        """The label intervals do not overlap."""
        return self.margin > 0.0


def pc1_separation(pc1: NDArray[np.float64], labels: NDArray[np.int64],
                   period: float) -> Separation:
    """Non-overlap of the label groups' PC1 intervals on the circle of length ``period``.

    PC1 is periodic (period 2π·``circle_radius_``). The values are reduced modulo the
    period and sorted; the circle is cut in the middle of the largest gap between
    neighbours (the wrap-around gap included), which turns it into an interval on which each
    group's [min, max] is computed.
    """
    phase = np.mod(pc1, period)
    order = np.argsort(phase)
    ordered = phase[order]
    gaps = np.diff(np.append(ordered, ordered[0] + period))  # gaps[i]: after ordered[i]
    cut = int(np.argmax(gaps))
    start = ordered[(cut + 1) % ordered.size]
    linear = np.mod(phase - start, period)  # 0 at the first point after the largest gap
    intervals = sorted(
        ((int(g), float(linear[labels == g].min()), float(linear[labels == g].max()))
         for g in np.unique(labels)),
        key=lambda item: item[1],
    )
    ends = np.maximum.accumulate([end for _, _, end in intervals])
    margin = min(nxt[1] - float(end) for end, nxt in zip(ends[:-1], intervals[1:], strict=True))
    circular_labels = labels[order]
    runs = int(np.count_nonzero(circular_labels != np.roll(circular_labels, 1)))
    return Separation(period=float(period), intervals=intervals, margin=float(margin),
                      runs=max(runs, 1))


def curve_point_distances(curve: PrincipalCurve,
                          centres: NDArray[np.float64]) -> NDArray[np.float64]:
    """Minimum torus distance from the curve's sample points to each centre."""
    return np.array([float(np.min(torus_distance(curve.angles, c))) for c in centres])


def curve_polyline_distances(curve: PrincipalCurve,
                             centres: NDArray[np.float64]) -> NDArray[np.float64]:
    """Minimum torus distance from the drawn curve (non-break segments) to each centre.

    Each segment p→q is taken as the straight torus segment p + t·wrap(q − p), t ∈ [0, 1];
    the centre is projected onto it in the chart around p (exact for segments shorter
    than π per coordinate, which non-break segments are).
    """
    p = curve.angles
    step = wrap_angles(np.roll(p, -1, axis=0) - p)[~curve.breaks]
    p = p[~curve.breaks]
    out = []
    for c in centres:
        rel = wrap_angles(c - p)
        t = np.clip(np.sum(rel * step, axis=1) / np.maximum(np.sum(step * step, axis=1),
                                                            1e-300), 0.0, 1.0)
        out.append(float(np.min(torus_distance(p + t[:, None] * step, c))))
    return np.array(out)


@dataclass
class DiagonalFit:
    """Least-squares line θ_k ≈ slope·θ_1 + intercept of the unwrapped curve, per k ≥ 2."""

    coordinate: int  # 1-based index k of the regressed coordinate
    slope: float
    intercept: float  # c_k wrapped to [-π, π)
    r2: float


def curve_diagonal_fits(angles: NDArray[np.float64]) -> list[DiagonalFit]:
    """:func:`~stpca_gui.core.geometry.series.diagonal_fit` of a closed torus curve, per
    coordinate."""
    return [DiagonalFit(coordinate=k, slope=slope, intercept=intercept, r2=r2)
            for k, (slope, intercept, r2) in enumerate(diagonal_fit(angles), start=2)]


# ------------------------------------------------------------------------ 1. demos
@dataclass
class DemoCase:
    """One demo × data seed × optimiser fit."""

    demo: str
    n: int
    d: int
    optimizer: str
    seed: int
    initial_radius: float
    radius: float
    stress: float
    smds_iter: int
    sphere_ratio: list[float]
    torus_ratio: list[float]
    sphere_types: list[str]
    curve_breaks: int
    curve_median_step: float
    stage_s: dict[str, float]
    total_s: float
    # Cluster checks (None for the wrapped normal).
    pc1_period: float | None = None
    pc1_margin: float | None = None
    pc1_runs: int | None = None
    pc1_intervals: list[tuple[int, float, float]] | None = None
    centre_point_dist: list[float] | None = None
    centre_segment_dist: list[float] | None = None
    separation_ok: bool | None = None
    curve_ok: bool | None = None


def fit_model(angles: NDArray[np.float64], optimizer: str) -> ScaledTorusPCA:
    """Default ScaledTorusPCA fit with ``random_state=MODEL_SEED``."""
    return ScaledTorusPCA(optimizer=optimizer, random_state=MODEL_SEED).fit(angles)


def bench_demo_case(demo: str, optimizer: str, seed: int) -> DemoCase:
    """One timed fit of ``make_demo(demo, seed)`` and the cluster checks."""
    data = make_demo(demo, random_state=seed)
    elapsed, model = common.timed(lambda: fit_model(data.angles, optimizer))
    curve = model.principal_curve_
    steps = torus_distance(curve.angles, np.roll(curve.angles, -1, axis=0))
    case = DemoCase(
        demo=demo, n=data.n_samples, d=data.dim, optimizer=optimizer, seed=seed,
        initial_radius=float(model.smds_.initial_radius_), radius=float(model.radius_),
        stress=float(model.stress_), smds_iter=int(model.smds_.n_iter_),
        sphere_ratio=[float(v) for v in model.explained_variance_ratio_],
        torus_ratio=[float(v) for v in model.torus_explained_variance_ratio_],
        sphere_types=list(model.pns_.sphere_types_),
        curve_breaks=int(np.count_nonzero(curve.breaks)),
        curve_median_step=float(np.median(steps)),
        stage_s={k: float(v) for k, v in model.timings_.items()}, total_s=elapsed,
    )
    if demo in CLUSTER_DEMOS:
        groups = np.unique(data.labels)
        period = 2.0 * np.pi * float(model.pns_.circle_radius_)
        sep = pc1_separation(model.scores_[:, 0], data.labels, period)
        centres = np.array([circular_mean(data.angles[data.labels == g]) for g in groups])
        point_dist = curve_point_distances(curve, centres)
        case.pc1_period = period
        case.pc1_margin = sep.margin
        case.pc1_runs = sep.runs
        case.pc1_intervals = sep.intervals
        case.separation_ok = sep.separated
        case.centre_point_dist = [float(v) for v in point_dist]
        case.centre_segment_dist = [float(v) for v in curve_polyline_distances(curve, centres)]
        case.curve_ok = bool(np.all(point_dist < CURVE_CENTRE_TOLERANCE))
    return case


def bench_demos(seeds: Sequence[int], optimizers: Sequence[str]) -> list[DemoCase]:
    """All demo cases; one untimed warm-up fit per demo × optimiser first."""
    cases = []
    for demo in DEMOS:
        for optimizer in optimizers:
            log(f"demo {demo} optimizer={optimizer}: warm-up fit")
            fit_model(make_demo(demo, random_state=seeds[0]).angles, optimizer)
            for seed in seeds:
                log(f"demo {demo} optimizer={optimizer} seed={seed}")
                cases.append(bench_demo_case(demo, optimizer, seed))
    return cases


def torus_headline(case: DemoCase) -> float:
    """Sum of the torus % over the components the paper reports (PC1; PC1+PC2 on T³)."""
    k = len(PAPER[case.demo].torus_percent)
    return 100.0 * sum(case.torus_ratio[:k])


def mean_range(values: Sequence[float], spec: str) -> str:
    """Mean (min–max) of a sample as text, or the single value."""
    if len(values) == 1:
        return fmt(values[0], spec)
    return (f"{fmt(statistics.fmean(values), spec)} "
            f"({fmt(min(values), spec)}–{fmt(max(values), spec)})")


def demo_report(cases: Sequence[DemoCase]) -> str:
    """Markdown of section 1: results, timings, checks and the summary next to the paper."""
    result_rows = [[
        c.demo, c.optimizer, str(c.seed), str(c.n), fmt(c.initial_radius, ".3f"),
        fmt(c.radius, ".3f"), fmt(c.stress, ".5f"), str(c.smds_iter),
        fmt_percent(c.sphere_ratio), fmt_percent(c.torus_ratio), ", ".join(c.sphere_types),
        str(c.curve_breaks), fmt(c.curve_median_step, ".3f"),
    ] for c in cases]
    result_headers = ["demo", "optimizer", "seed", "n", "r*", "r̂", "stress", "SMDS iter",
                      "sphere % per PC", "torus % per PC", "PNS types", "curve breaks",
                      "curve median step (rad)"]

    time_rows = [[
        c.demo, c.optimizer, str(c.seed), *(fmt(c.stage_s.get(s), ".3f") for s in STAGES),
        fmt(sum(c.stage_s.values()), ".3f"), fmt(c.total_s, ".3f"),
    ] for c in cases]
    time_headers = ["demo", "optimizer", "seed", *(f"{s} (s)" for s in STAGES),
                    "sum of stages (s)", "total wall (s)"]

    check_rows = []
    for c in cases:
        if c.demo not in CLUSTER_DEMOS:
            continue
        assert c.pc1_intervals is not None and c.centre_point_dist is not None
        assert c.centre_segment_dist is not None
        intervals = "; ".join(f"{g}: [{a:.2f}, {b:.2f}]" for g, a, b in c.pc1_intervals)
        check_rows.append([
            c.demo, c.optimizer, str(c.seed), fmt(c.pc1_period, ".3f"), intervals,
            fmt(c.pc1_margin, ".3f"), str(c.pc1_runs), common.pass_fail(c.separation_ok),
            " / ".join(fmt(v, ".3f") for v in c.centre_point_dist),
            " / ".join(fmt(v, ".3f") for v in c.centre_segment_dist),
            common.pass_fail(c.curve_ok),
        ])
    check_headers = ["demo", "optimizer", "seed", "PC1 period", "label: PC1 interval (cut)",
                     "min gap", "label runs on circle", "PC1 separates",
                     "curve points → centre (rad)", "curve segments → centre (rad)",
                     f"curve < {CURVE_CENTRE_TOLERANCE:g} rad"]

    summary_rows = []
    for demo, optimizer, group in common.demo_groups(cases, DEMOS, OPTIMIZERS):
        paper = PAPER[demo]
        k = len(paper.torus_percent)
        label = "PC1" if k == 1 else "+".join(f"PC{i + 1}" for i in range(k))
        ours_split = " + ".join(
            fmt(statistics.fmean(100.0 * c.torus_ratio[i] for c in group), ".1f")
            for i in range(k))
        types = sorted({", ".join(c.sphere_types) for c in group})
        checks = []
        for attr in ("separation_ok", "curve_ok"):
            verdicts = [getattr(c, attr) for c in group if getattr(c, attr) is not None]
            checks.append(f"{sum(verdicts)}/{len(verdicts)}" if verdicts else "—")
        headline = fmt(statistics.fmean(torus_headline(c) for c in group), ".1f")
        torus_cell = f"{label}: {ours_split}" + ("" if k == 1 else f" = {headline}")
        summary_rows.append([
            demo, optimizer, str(len(group)),
            mean_range([c.initial_radius for c in group], ".3f"),
            fmt(paper.initial_radius, ".2f"),
            mean_range([c.radius for c in group], ".3f"), fmt(paper.radius, ".2f"),
            mean_range([c.stress for c in group], ".4f"), fmt(paper.stress, ".3f"),
            torus_cell,
            paper.percent_label,
            fmt(statistics.fmean(100.0 * c.sphere_ratio[0] for c in group), ".1f"),
            " / ".join(types),
            str(sum(c.curve_breaks for c in group)),
            checks[0], checks[1],
            fmt(statistics.median(c.total_s for c in group), ".3f"),
        ])
    summary_headers = ["demo", "optimizer", "seeds", "r* mean (range)", "paper r*",
                       "r̂ mean (range)", "paper r̂", "stress mean (range)", "paper stress",
                       "torus % (mean)", "paper %", "sphere % PC1 (mean)", "PNS types",
                       "curve breaks (total)", "PC1 separates", "curve near centres",
                       "median total (s)"]

    return "\n".join([
        "## 1. Paper simulations",
        "",
        "`ScaledTorusPCA(optimizer=…, random_state=0)` with default settings (radius "
        "\"auto\", PNS \"seq.test\", 100 curve points, torus variance on) on "
        "`make_demo(name, random_state=seed)`. One untimed warm-up fit per demo × "
        "optimiser, then one timed fit per seed (garbage collector paused). Stage times "
        "are the model's `timings_`; *total wall* is measured around `fit` and also "
        "includes input checks and seeding. r* is `smds_.initial_radius_`, r̂ `radius_`. "
        "Sphere % = PNS explained variance ratio; torus % = the torus explained "
        "variance of section 3.5 (`torus_explained_variance_ratio_`).",
        *common.titled_table("### Results per case", result_headers, result_rows),
        *common.titled_table("### Wall time per stage", time_headers, time_rows),
        "",
        "### Checks on the cluster demos",
        "",
        "*PC1 separates*: PC1 is periodic with period 2π·`pns_.circle_radius_`; the "
        "scores are reduced modulo the period, the circle is cut in the middle of the "
        "largest gap between sorted neighbours, and each cluster's [min, max] PC1 "
        "interval is taken on the resulting line (origin = first point after the cut). "
        "PASS when the three intervals do not overlap (min gap > 0). *Label runs on "
        "circle* is a cut-free cross-check: the number of blocks of equal labels around "
        "the circle (3 when every cluster is one arc). *Curve near centres*: minimum "
        "torus distance from the 100 curve points to each cluster's coordinate-wise "
        f"circular mean, PASS when all three are < {CURVE_CENTRE_TOLERANCE:g} rad; the "
        "distance to the drawn polyline (non-break segments) is shown for reference.",
        "",
        common.markdown_table(check_headers, check_rows) if check_rows else "(no cluster demo run)",
        "",
        "### Summary next to the paper (section 4)",
        "",
        "The paper's % is the torus explained variance of its first component (T³: first "
        "+ second). Mean over the data seeds, range in parentheses.",
        "",
        common.markdown_table(summary_headers, summary_rows),
    ])


# --------------------------------------------------------------------- 2. sunspots
def child_sunspots() -> dict[str, Any]:
    """Child process: one default ScaledTorusPCA fit of the sunspots series.

    A small untimed warm-up fit (``clusters-t3``, seed 0, d = 3) first loads every JIT
    function from numba's cache and fills the per-process r* cache for d = 3, so the timed
    fit measures the computation only. RSS is read after the imports, right before the
    timed fit and (peak) right after it.
    """
    rss_imports = common.current_rss_mb()
    angles, rows = common.sunspots_series(SUNSPOTS_CYCLE, SUNSPOTS_LAGS)
    warmup_s, _ = common.timed(lambda: fit_model(make_demo("clusters-t3", random_state=0).angles,
                                          "lbfgs"))
    gc.collect()
    rss_prefit = common.current_rss_mb()
    peak_prefit = common.peak_rss_mb()
    load_start = common.load_average_text()
    elapsed, model = common.timed(lambda: fit_model(angles, "lbfgs"))
    peak_end = common.peak_rss_mb()
    curve = model.principal_curve_
    return {
        "rows": rows,
        "n": int(angles.shape[0]),
        "d": int(angles.shape[1]),
        "total_s": elapsed,
        "stage_s": {k: float(v) for k, v in model.timings_.items()},
        "warmup_s": warmup_s,
        "initial_radius": float(model.smds_.initial_radius_),
        "radius": float(model.radius_),
        "stress": float(model.stress_),
        "smds_iter": int(model.smds_.n_iter_),
        "smds_message": str(getattr(model.smds_, "message_", "")),
        "sphere_ratio": [float(v) for v in model.explained_variance_ratio_],
        "torus_ratio": [float(v) for v in model.torus_explained_variance_ratio_],
        "sphere_types": list(model.pns_.sphere_types_),
        "pns_p_values": np.asarray(model.pns_.p_values_).tolist(),
        "circle_radius": float(model.pns_.circle_radius_),
        "curve_breaks": int(np.count_nonzero(curve.breaks)),
        "curve_angles": curve.angles.tolist(),
        "diagonal": [asdict(f) for f in curve_diagonal_fits(curve.angles)],
        "rss_after_imports_mb": rss_imports,
        "rss_before_fit_mb": rss_prefit,
        "peak_before_fit_mb": peak_prefit,
        "peak_rss_mb": peak_end,
        "load_avg_start": load_start,
        "load_avg_end": common.load_average_text(),
        "numba_threads": int(numba.get_num_threads()),
    }


def run_child(mode: str) -> dict[str, Any]:
    """Run this script with the hidden ``--child MODE`` flag in a fresh interpreter."""
    return common.run_child_process(__file__, mode, CHILD_MARKER, CHILD_TIMEOUT_S)


def sunspots_report(run: dict[str, Any] | None, skipped: str | None) -> str:
    """Markdown of section 2."""
    parts = ["## 2. Sunspots, cycle 23, lag 3 (T³)", ""]
    if skipped is not None:
        parts.append(f"Skipped: {skipped}")
        return "\n".join(parts)
    assert run is not None
    if "error" in run:
        parts.append(f"**Error:** {run['error']}")
        return "\n".join(parts)
    stages = run["stage_s"]
    increase = None
    if run["peak_rss_mb"] is not None and run["rss_before_fit_mb"] is not None:
        increase = run["peak_rss_mb"] - run["rss_before_fit_mb"]
    rows_note = "" if run["rows"] == SUNSPOTS_EXPECTED_ROWS else (
        f" **(expected {SUNSPOTS_EXPECTED_ROWS})**")
    rows = [
        ["rows of cycle 23 → n × d", f"{run['rows']}{rows_note} → {run['n']} × {run['d']}", "—"],
        ["total wall time (s)", fmt(run["total_s"], ".2f"), "—"],
        *[[f"  {s} (s)", fmt(stages.get(s), ".2f"), "—"] for s in STAGES],
        ["  sum of stages (s)", fmt(sum(stages.values()), ".2f"), "—"],
        ["warm-up fit before (clusters-t3, s)", fmt(run["warmup_s"], ".2f"), "—"],
        ["r*", fmt(run["initial_radius"], ".3f"), "—"],
        ["r̂", fmt(run["radius"], ".3f"), fmt(PAPER_SUNSPOTS_RADIUS, ".2f")],
        ["stress", fmt(run["stress"], ".5f"), "—"],
        ["SMDS iterations / message", f"{run['smds_iter']} / {run['smds_message'] or '—'}",
         "—"],
        ["sphere % per PC", fmt_percent(run["sphere_ratio"], ".2f"), "—"],
        ["torus % per PC", fmt_percent(run["torus_ratio"], ".2f"), "—"],
        ["PNS types (LRT, vMF p-values)",
         ", ".join(f"{t} ({fmt(p[0], '.3g')}, {fmt(p[1], '.3g')})"
                   for t, p in zip(run["sphere_types"], run["pns_p_values"], strict=False)),
         "—"],
        ["principal circle radius", fmt(run["circle_radius"], ".4f"), "—"],
        ["curve breaks", str(run["curve_breaks"]), "—"],
        ["RSS after imports (MiB)", fmt(run["rss_after_imports_mb"], ".1f"), "—"],
        ["RSS before the timed fit (MiB)", fmt(run["rss_before_fit_mb"], ".1f"), "—"],
        ["peak RSS, ru_maxrss (MiB)", fmt(run["peak_rss_mb"], ".1f"), "—"],
        ["fit increase = peak − RSS before fit (MiB)", fmt(increase, ".1f"), "—"],
        ["numba threads", str(run["numba_threads"]), "—"],
        ["load average at fit start → end", f"{run['load_avg_start']} → {run['load_avg_end']}",
         "—"],
    ]
    diag_rows = [[
        f"θ{f['coordinate']} on θ1", fmt(f["slope"], ".4f"), fmt(f["intercept"], ".4f"),
        fmt(f["r2"], ".6f"), fmt(1.0 - f["r2"], ".2e"), fmt(PAPER_SUNSPOTS_ONE_MINUS_R2, ".0e"),
    ] for f in run["diagonal"]]
    parts += [
        f"Data: {SUNSPOTS_SOURCE}. Rows with cycle == {SUNSPOTS_CYCLE} in file (= date) "
        f"order, `theta` → `lagged_embedding(theta, {SUNSPOTS_LAGS})` (wrapped to [−π, π)). "
        "One `ScaledTorusPCA(random_state=0)` fit with default settings in a fresh "
        "subprocess, after an untimed small warm-up fit in that process (JIT cache load, r* "
        "for d = 3). Peak RSS is `ru_maxrss` right after the fit, so it covers the whole "
        "process (imports, warm-up, data).",
        "",
        common.markdown_table(["metric", "value", "paper"], rows),
        "",
        "### Principal curve vs the periodic diagonal",
        "",
        "The paper fits a line to its 100-point principal curve (R² = 1 − 3×10⁻⁵). Here "
        "each coordinate of our 100-point curve is unwrapped along the curve (`np.unwrap`, "
        "curve order), then θ2 and θ3 are regressed on θ1 by least squares: a periodic "
        "diagonal θ_k = θ_1 + c_k (mod 2π) gives slope 1 and R² = 1; the intercept c_k is "
        "shown wrapped to [−π, π).",
        "",
        common.markdown_table(["regression", "slope", "intercept c_k (rad)", "R²", "1 − R²",
                        "paper 1 − R²"], diag_rows),
    ]
    return "\n".join(parts)


# ----------------------------------------------------------------------------- failures
def failures_report(cases: Sequence[DemoCase]) -> str:
    """Markdown list of every failed check."""
    misses = []
    for c in cases:
        if c.separation_ok is False:
            misses.append(f"- {c.demo} seed {c.seed} ({c.optimizer}): PC1 intervals overlap "
                          f"(min gap {c.pc1_margin:.3f}, {c.pc1_runs} label runs)")
        if c.curve_ok is False:
            assert c.centre_point_dist is not None
            misses.append(f"- {c.demo} seed {c.seed} ({c.optimizer}): curve-to-centre "
                          f"distances {', '.join(f'{v:.3f}' for v in c.centre_point_dist)} "
                          f"rad (tolerance {CURVE_CENTRE_TOLERANCE:g})")
    body = "\n".join(misses) if misses else "None: every check passed."
    return "## Failed checks\n\n" + body


# -------------------------------------------------------------------------- main
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="data seed 0, lbfgs only, no sunspots (smoke run)")
    parser.add_argument("--skip-sunspots", action="store_true", help="skip the sunspots fit")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write results as JSON")
    parser.add_argument("--child", choices=("sunspots",), help=argparse.SUPPRESS)
    common.add_record_option(parser)
    args = parser.parse_args(argv)
    if args.record and args.quick:
        parser.error("--record records full runs only (not --quick)")
    return args


def headline(cases: Sequence[DemoCase], sunspots: dict[str, Any] | None
             ) -> dict[str, dict[str, float]]:
    """The numbers docs/measured.md shows (``--record``): the `lbfgs` fits' mean torus %
    of PC1 (and of PC2 for clusters-t3); the sunspots fit's stage times and the curve's
    fit to the periodic diagonal."""
    def mean_percent(demo: str, component: int) -> float:
        return 100 * statistics.fmean(c.torus_ratio[component] for c in cases
                                      if c.demo == demo and c.optimizer == "lbfgs")
    recorded = {"simulations": {
        **{f"pc1_{key}": mean_percent(demo, 0) for demo, key in common.DEMO_KEYS.items()},
        "pc2_t3": mean_percent("clusters-t3", 1)}}
    if sunspots is not None and "error" not in sunspots:
        stages = sunspots["stage_s"]
        fits = sunspots["diagonal"]
        recorded["sunspots"] = {
            "total_s": sunspots["total_s"], "smds_s": stages.get("smds", 0.0),
            "pns_s": stages.get("pns", 0.0), "curve_s": stages.get("curve", 0.0),
            "torus_variance_s": stages.get("torus-variance", 0.0),
            **{f"one_minus_r2_theta{fit['coordinate']}": 1 - fit["r2"] for fit in fits},
            "slope_min": min(fit["slope"] for fit in fits),
            "slope_max": max(fit["slope"] for fit in fits)}
    return recorded


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the Markdown report."""
    args = parse_args(argv)
    if args.child == "sunspots":
        common.emit_child_result(CHILD_MARKER, child_sunspots())
        return 0

    started = time.perf_counter()
    load_at_start = common.one_minute_load()
    info = common.machine_info()
    seeds = SEEDS[:1] if args.quick else SEEDS
    optimizers = OPTIMIZERS[:1] if args.quick else OPTIMIZERS
    cases = bench_demos(seeds, optimizers)

    skipped: str | None = None
    if args.quick:
        skipped = "`--quick` given."
    elif args.skip_sunspots:
        skipped = "`--skip-sunspots` given."
    sunspots = None
    if skipped is None:
        log("sunspots: fit in a fresh subprocess")
        sunspots = run_child("sunspots")
    else:
        log(f"sunspots skipped: {skipped}")

    mode = "quick" if args.quick else "full"
    print("\n\n".join([
        f"# Scaled Torus PCA benchmark ({mode} run, {time.perf_counter() - started:.0f} s)",
        common.machine_report(info),
        demo_report(cases),
        sunspots_report(sunspots, skipped),
        failures_report(cases),
    ]))

    payload = {
        "mode": mode,
        "machine": info | {"load average at end": common.load_average_text()},
        "demos": [asdict(c) for c in cases],
        "sunspots": {"skipped": skipped, "run": sunspots},
        "paper": {
            "demos": {k: asdict(v) for k, v in PAPER.items()},
            "sunspots": {"radius": PAPER_SUNSPOTS_RADIUS,
                         "curve_one_minus_r2": PAPER_SUNSPOTS_ONE_MINUS_R2},
        },
        "curve_centre_tolerance_rad": CURVE_CENTRE_TOLERANCE,
    }
    return common.publish(args, __file__, payload, lambda: headline(cases, sunspots),
                          load_at_start=load_at_start, log=log)


if __name__ == "__main__":
    sys.exit(main())
