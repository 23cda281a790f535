"""Latency of the interactive updates below the GUI, and of cancelling a fit.

Usage::

    uv run python benchmarks/bench_updates.py [--repeats N] [--json OUT]

The unit tests check what these updates do (which objects change, how many renders); this
script measures how long they take, against the targets of benchmarks/README.md:

1. ``SelectionModel.apply`` on 100,000 samples (each mode twice) and ``undo``.
2. ``ScoresScatter.update_colors`` with 100,000 points (Agg), and the full redraw after it.
3. ``ScoreHistogram.draw`` and ``update_selection`` with 100,000 samples.
4. ``TorusScene.update_colors`` (work without the render, and with it) at n = 5000 and
   100,000, in an off-screen pyvista plotter. Needs X: when ``DISPLAY`` is unset the script
   starts a private ``Xvfb`` like tests/conftest.py, and skips this part without one.
5. Cancelling a fit: ``ScaledTorusPCA.fit`` of 5100 points on T³ in a thread; once the
   spherical MDS reports iteration 0 (its start) or 1, after a delay, the callback starts
   asking to stop. Latency = from that moment to ``FitCancelled`` in the fitting thread.
6. Cancelling in each stage: ``run_analysis`` (the app's fit, with its mode clusters) of
   n points on T³ in a thread; the stop request is made while the callback handles the
   first report of a stage (``first``: the very first report of the fit, before the
   start configuration), as a user pressing Cancel at that moment. Latency = from the
   request to ``FitCancelled``; n = 5100, and 12,000 for the start configuration.
7. The longest time between two consecutive reports of each stage (the worst wait for a
   cancel requested during it): a whole run at n = 5100, the start configuration at
   n = 12,000. ``--cancel-only`` runs parts 5–7 only.

The Markdown report goes to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from _common import fmt, load_average_text, make_logger, markdown_table, pass_fail, timed
from _gui_env import Display

log = make_logger("bench_updates")

N_LARGE = 100_000
#: Targets (seconds) of benchmarks/README.md.
TARGETS = {
    "selection_apply_max": 0.05,
    "scatter_update_best": 1.0,
    "histogram_update_max": 1.0,
    "torus_work_median": 0.05,
    "torus_total_median_5000": 0.1,
    "torus_total_median_100000": 3.0,
    "cancel_max": 1.0,
}


def bench_selection(repeats: int) -> dict[str, Any]:
    from stpca_gui.model import SelectionModel

    rng = np.random.default_rng(0)
    sel = SelectionModel(N_LARGE)
    masks = [rng.random(N_LARGE) < 0.3 for _ in range(8)]
    sel.apply(masks[0], "replace")  # warm-up
    applies, undos = [], []
    for _ in range(repeats):
        for mode, mask in zip(["replace", "add", "subtract", "intersect"] * 2, masks,
                              strict=True):
            applies.append(timed(lambda mask=mask, mode=mode: sel.apply(mask, mode))[0])
        undos.append(timed(sel.undo)[0])
    return {"apply_median": float(np.median(applies)), "apply_max": max(applies),
            "undo_max": max(undos)}


def _agg_figure():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.4, 4.8), dpi=100)
    FigureCanvasAgg(figure)
    return figure


def bench_scatter(repeats: int) -> dict[str, Any]:
    from stpca_gui.plotting.colors import cyclic_colors, point_colors
    from stpca_gui.plotting.scores import ScoresScatter

    rng = np.random.default_rng(0)
    scores = np.column_stack([rng.uniform(-2.8, 2.8, N_LARGE),
                              0.3 * rng.standard_normal(N_LARGE)])
    figure = _agg_figure()
    plot = ScoresScatter(figure)
    plot.draw(scores, colors=cyclic_colors(scores[:, 0], 5.6))
    figure.canvas.draw()
    selected = np.abs(scores[:, 0]) < 0.5
    colors = point_colors("selection", n=N_LARGE, groups=selected.astype(int))
    updates = [timed(lambda: plot.update_colors(colors, selected))[0] for _ in range(repeats)]
    redraw, _ = timed(figure.canvas.draw)
    return {"update_best": min(updates), "update_mean": float(np.mean(updates)),
            "redraw": redraw}


def bench_histogram(repeats: int) -> dict[str, Any]:
    from stpca_gui.core.geometry.torus import wrap_angles
    from stpca_gui.plotting.histogram import ScoreHistogram

    rng = np.random.default_rng(1)
    period = 2 * np.pi * 0.9
    values = wrap_angles(np.concatenate([rng.normal(-1.5, 0.4, 60_000),
                                         rng.normal(1.2, 0.3, 40_000)]), period)
    hist = ScoreHistogram(_agg_figure())
    drawn, _ = timed(lambda: hist.draw(values, period))
    updates = []
    for _ in range(repeats):
        for lo in (-2.0, -1.0, 0.5):
            mask = hist.range_mask(lo, lo + 1.5)
            updates.append(timed(lambda mask=mask: hist.update_selection(mask))[0])
    return {"draw": drawn, "update_min": min(updates), "update_max": max(updates)}


@contextmanager
def x_display() -> Iterator[str | None]:
    """Yield a usable X display (``DISPLAY`` or a private Xvfb), or None without one."""
    display = Display()
    display.start()
    try:
        yield None if display.problem else os.environ["DISPLAY"]
    finally:
        display.stop()


def bench_torus(n: int, repeats: int) -> dict[str, Any]:
    import pyvista as pv

    from stpca_gui.plotting.colors import label_colors, point_colors
    from stpca_gui.plotting.torus_scene import TorusScene

    rng = np.random.default_rng(1)
    angles = rng.uniform(-np.pi, np.pi, (n, 3))
    plotter = pv.Plotter(off_screen=True, window_size=(800, 600))
    try:
        scene = TorusScene(plotter)
        scene.draw(angles, colors=label_colors(rng.integers(0, 3, n)))
        plotter.screenshot(return_img=False)
        palettes = []
        for _ in range(repeats + 1):
            groups = (rng.random(n) < 0.05).astype(int)
            palettes.append((point_colors("selection", n=n, groups=groups), groups > 0))
        scene.update_colors(*palettes[0])  # warm-up: shaders for the translucent pass
        work, totals = [], []
        for colors, selected in palettes[1:]:
            work.append(timed(lambda c=colors, s=selected: scene.point_layer.set_colors(c, s))[0])
            totals.append(timed(lambda c=colors, s=selected: scene.update_colors(c, s))[0])
    finally:
        plotter.close()
    return {"n": n, "work_median": float(np.median(work)),
            "total_median": float(np.median(totals))}


#: (SMDS iteration reported, then seconds) before the cancel request.
CANCEL_CASES = [(0, 0.0), (1, 0.0), (1, 0.3), (1, 1.0)]


def bench_cancel(cases: list[tuple[int, float]]) -> list[dict[str, Any]]:
    from stpca_gui.core import FitCancelled, ScaledTorusPCA
    from stpca_gui.core.demos import make_clusters_t3
    from stpca_gui.core.warmup import warm_up

    warm_up()
    angles = make_clusters_t3(n_per_cluster=1700, random_state=3).angles
    runs = []
    for iteration, delay in cases:
        started, stop = threading.Event(), threading.Event()
        outcome: dict[str, float | str] = {}

        def callback(event, started=started, stop=stop, iteration=iteration) -> bool:
            if event.stage == "smds" and event.iteration >= iteration:
                started.set()
            return stop.is_set()

        def fit(callback: Callable = callback, outcome: dict = outcome) -> None:
            try:
                ScaledTorusPCA(random_state=0).fit(angles, callback=callback)
                outcome["end"] = "finished"
            except FitCancelled as exc:
                outcome["cancelled_at"] = time.perf_counter()
                outcome["end"] = str(exc)

        thread = threading.Thread(target=fit)
        thread.start()
        started.wait()
        time.sleep(delay)  # cancel at different points of the optimisation
        requested = time.perf_counter()
        stop.set()
        thread.join()
        latency = (outcome["cancelled_at"] - requested  # type: ignore[operator]
                   if "cancelled_at" in outcome else None)
        runs.append({"iteration": iteration, "delay": delay, "latency": latency,
                     "end": outcome["end"]})
        log(f"cancel {delay} s after SMDS iteration {iteration}: {runs[-1]}")
    return runs


#: (stage, n) of the per-stage cancel measurement; "first" is the fit's first report.
STAGE_CANCEL_CASES = [("first", 5100), ("first", 12_000), ("smds", 5100), ("pns", 5100),
                      ("curve", 5100), ("torus-variance", 5100), ("modes", 5100)]


def bench_cancel_stages(cases: list[tuple[str, int]]) -> list[dict[str, Any]]:
    from stpca_gui.core import FitCancelled
    from stpca_gui.core.demos import make_clusters_t3
    from stpca_gui.core.warmup import warm_up
    from stpca_gui.model import Dataset, FitParameters, run_analysis

    warm_up()
    runs = []
    for stage, n in cases:
        data = make_clusters_t3(n_per_cluster=n // 3, random_state=3)
        dataset = Dataset(angles=data.angles, column_names=data.column_names)
        # Few SMDS iterations: the later stages come sooner and their cost does not change.
        params = FitParameters(random_state=0, max_iter=20)
        state: dict[str, Any] = {}

        def callback(event, stage=stage, state=state) -> bool:
            if "requested" in state:
                return True
            if stage == "first" or event.stage == stage:
                state["requested"] = time.perf_counter()
                state["at"] = f"{event.stage} {event.message}".strip()
            return False

        start = time.perf_counter()
        try:
            run_analysis(dataset, params, callback=callback)
            end, latency = "finished", None
        except FitCancelled as exc:
            end, latency = str(exc), time.perf_counter() - state["requested"]
        runs.append({"stage": stage, "n": n, "latency": latency, "end": end,
                     "requested_at": state.get("at"),
                     "elapsed": time.perf_counter() - start})
        log(f"cancel at the first report of {stage}, n = {n}: {runs[-1]}")
    return runs


#: (n, last stage) of the worst-gap measurement: the fit runs up to that stage's first report.
GAP_CASES = [(5100, "done"), (12_000, "smds")]


def bench_report_gaps(cases: list[tuple[int, str]]) -> list[dict[str, Any]]:
    """Longest time between two consecutive reports in each stage: the worst wait for a
    cancel requested during that stage."""
    from stpca_gui.core import FitCancelled
    from stpca_gui.core.demos import make_clusters_t3
    from stpca_gui.model import Dataset, FitParameters, run_analysis

    runs = []
    for n, last in cases:
        data = make_clusters_t3(n_per_cluster=n // 3, random_state=3)
        dataset = Dataset(angles=data.angles, column_names=data.column_names)
        reports: list[tuple[str, float]] = []

        def callback(event, last=last, reports=reports) -> bool:
            reports.append((event.stage, time.perf_counter()))
            return event.stage == last and last != "done"

        try:
            run_analysis(dataset, FitParameters(random_state=0, max_iter=20), callback=callback)
        except FitCancelled:
            pass
        gaps: dict[str, float] = {}
        for (stage, t0), (_, t1) in itertools.pairwise(reports):
            gaps[stage] = max(gaps.get(stage, 0.0), t1 - t0)
        runs.append({"n": n, "gaps": gaps})
        log(f"longest gaps between reports, n = {n}: {gaps}")
    return runs


def report(results: dict[str, Any]) -> str:
    rows = _update_rows(results) if "selection" in results else []
    for run in results["cancel"]:
        latency = run["latency"]
        rows.append([
            f"cancel a fit of n = 5100 on T³, {run['delay']:g} s after SMDS iteration "
            f"{run['iteration']}", f"{fmt(latency, '.3f')} s" if latency is not None
            else f"not cancelled: {run['end']}", f"≤ {TARGETS['cancel_max']:g} s",
            pass_fail(latency is not None and latency <= TARGETS["cancel_max"])])
    for run in results["cancel_stages"]:
        latency = run["latency"]
        rows.append([
            f"cancel at the first report of {run['stage']} (n = {run['n']}, T³)",
            f"{fmt(latency, '.3f')} s" if latency is not None else f"not cancelled: {run['end']}",
            f"≤ {TARGETS['cancel_max']:g} s",
            pass_fail(latency is not None and latency <= TARGETS["cancel_max"])])
    for run in results.get("report_gaps", []):
        for stage, gap in run["gaps"].items():
            rows.append([f"longest time between two reports in {stage} (n = {run['n']}, T³)",
                         f"{gap:.3f} s", f"≤ {TARGETS['cancel_max']:g} s",
                         pass_fail(gap <= TARGETS["cancel_max"])])
    return "\n\n".join([
        "# Update and cancel latencies",
        f"Load average at the end: {load_average_text()}.",
        markdown_table(["measurement", "result", "target", "status"], rows),
    ])


def _update_rows(results: dict[str, Any]) -> list[list[str]]:
    sel, sca, hist = results["selection"], results["scatter"], results["histogram"]
    rows = [
        ["SelectionModel.apply, n = 1e5 (max of 8 modes × repeats)",
         f"{1e3 * sel['apply_max']:.1f} ms (median {1e3 * sel['apply_median']:.1f})",
         f"≤ {1e3 * TARGETS['selection_apply_max']:g} ms",
         pass_fail(sel["apply_max"] <= TARGETS["selection_apply_max"])],
        ["SelectionModel.undo, n = 1e5 (max)", f"{1e3 * sel['undo_max']:.1f} ms",
         f"≤ {1e3 * TARGETS['selection_apply_max']:g} ms",
         pass_fail(sel["undo_max"] <= TARGETS["selection_apply_max"])],
        ["ScoresScatter.update_colors, n = 1e5 (best)",
         f"{1e3 * sca['update_best']:.1f} ms (mean {1e3 * sca['update_mean']:.1f}; "
         f"Agg redraw after it {1e3 * sca['redraw']:.0f} ms)",
         f"≤ {TARGETS['scatter_update_best']:g} s",
         pass_fail(sca["update_best"] <= TARGETS["scatter_update_best"])],
        ["ScoreHistogram.update_selection, n = 1e5 (max)",
         f"{1e3 * hist['update_max']:.1f} ms (min {1e3 * hist['update_min']:.1f}; draw "
         f"{1e3 * hist['draw']:.0f} ms)",
         f"≤ {TARGETS['histogram_update_max']:g} s",
         pass_fail(hist["update_max"] <= TARGETS["histogram_update_max"])],
    ]
    for torus in results["torus"]:
        n = torus["n"]
        total_target = TARGETS[f"torus_total_median_{n}"]
        rows.append([f"TorusScene point colours, n = {n} (median, no render)",
                     f"{1e3 * torus['work_median']:.1f} ms",
                     f"≤ {1e3 * TARGETS['torus_work_median']:g} ms",
                     pass_fail(torus["work_median"] <= TARGETS["torus_work_median"])])
        rows.append([f"TorusScene.update_colors with render, n = {n} (median)",
                     f"{1e3 * torus['total_median']:.1f} ms", f"≤ {total_target:g} s",
                     pass_fail(torus["total_median"] <= total_target)])
    if results["torus_skipped"]:
        rows.append(["TorusScene.update_colors", f"skipped: {results['torus_skipped']}",
                     "", "—"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats per case")
    parser.add_argument("--json", type=Path, help="write all numbers as JSON here")
    parser.add_argument("--cancel-only", action="store_true",
                        help="measure only the cancel latencies (parts 5-7)")
    args = parser.parse_args()
    os.environ.setdefault("PYVISTA_OFF_SCREEN", "false")

    results: dict[str, Any] = {"torus": [], "torus_skipped": None}
    if not args.cancel_only:
        measure_updates(results, args.repeats)
    for key, title, bench, cases in (
            ("cancel", "cancel latency", bench_cancel, CANCEL_CASES),
            ("cancel_stages", "cancel latency per stage", bench_cancel_stages,
             STAGE_CANCEL_CASES),
            ("report_gaps", "longest time between reports per stage", bench_report_gaps,
             GAP_CASES)):
        log(title)
        results[key] = bench(cases)
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps({"results": results, "targets": TARGETS}, indent=2))


def measure_updates(results: dict[str, Any], repeats: int) -> None:
    """Parts 1–4: selection, scatter, histogram and torus scene updates."""
    for key, title, bench in (("selection", "selection model", bench_selection),
                              ("scatter", "scores scatter", bench_scatter),
                              ("histogram", "histogram", bench_histogram)):
        log(title)
        results[key] = bench(repeats)
    with x_display() as display:
        if display is None:
            results["torus_skipped"] = "no X display (DISPLAY unset, Xvfb not installed)"
        else:
            for n in (5000, N_LARGE):
                log(f"torus scene, n = {n}")
                results["torus"].append(bench_torus(n, repeats))


if __name__ == "__main__":
    main()
