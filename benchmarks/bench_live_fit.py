"""Live fits: what drawing the SMDS configuration as it converges costs the GUI.

Usage::

    uv run python benchmarks/bench_live_fit.py [--quick] [--repeats N] [--json OUT]
        [--screenshot-dir DIR]

One process (it starts its own ``Xvfb -displayfd`` when ``DISPLAY`` is unset), the kernels
warmed up first (``core.warmup.warm_up``), one :class:`MainWindow` of 1500 × 950. Each case
is fitted in the app with the live display (``FitController.live_interval`` = 0.25 s, the
default) and without it (``live_interval = None``: no snapshots, the app as before this
feature), alternating which comes first over the repeats. Cases:

* clusters-t3 (n = 300, exact);
* sunspots, solar cycle 23, lagged 3 times (n = 5371 in T³, exact);
* sunspots, all births, lagged 3 times (n = 51,299, a landmark fit: 1000 landmarks, 3 sets).
  ``--quick`` runs the first case only.

Before the measured fits, one unreported live fit of clusters-t3 draws every view once
(first renders compile shaders and load fonts); after a new data set is shown the event
loop runs for a second, so that the views' redraws of the data are not counted. Per fit:
the wall time from starting the fit to the arrival of its "done" report in the GUI thread
(just before the result, which the views then draw) and the drawing of the result (to
``result_shown``); the SMDS stage (from its first progress event to the first event of a
later stage, timed in the fit's thread, summed over landmark sets); the
snapshots drawn by the sphere view (``SphereView.live_draws``) and their rate over the SMDS
stage; the GUI-thread time per snapshot (``show_configuration`` plus the sphere view's
render of the frame, timed by the render window's Start/End events); and the stalls: the
gaps between the ticks of a precise 10 ms QTimer in the GUI thread, longest and 99th
percentile, over the whole fit (start to the result's arrival) and within the SMDS stage,
with the stages in which the three longest gaps began. The Markdown report goes to
stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    add_record_option,
    cpu_model,
    load_average_text,
    make_logger,
    markdown_table,
    one_minute_load,
    record,
)
from _gui_env import started_display

log = make_logger("bench_live_fit")

TICK_MS = 10
FIT_TIMEOUT_S = 900.0


def make_cases(quick: bool) -> list[tuple[str, Any]]:
    from stpca_gui.core import lagged_embedding
    from stpca_gui.datasets import load_sunspots
    from stpca_gui.model import Dataset

    def sunspots(cycle: int | None, name: str) -> Dataset:
        angles = lagged_embedding(load_sunspots(cycle=cycle).theta, 3)
        return Dataset(angles=angles, column_names=("theta1", "theta2", "theta3"),
                       source=name, description=name)

    cases = [("clusters-t3 (n = 300, exact)", Dataset.from_demo("clusters-t3"))]
    if not quick:
        cases.append(("sunspots cycle 23 (n = 5371, exact)", sunspots(23, "cycle 23")))
        cases.append(("sunspots all births (n = 51,299, 1000 landmarks × 3 sets)",
                      sunspots(None, "all births")))
    return cases


class LiveFitProbe:
    """Watches one fit in the window: ticks, stage times, snapshots and their cost."""

    def __init__(self, window: Any) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.window = window
        self.ticks: list[float] = []
        self.stages: list[tuple[float, str]] = []
        self.snapshot_times: list[float] = []
        self.snapshot_seconds: list[float] = []
        self.render_seconds: list[float] = []
        self._render_start: float | None = None
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(lambda: self.ticks.append(time.perf_counter()))
        window.controller.progress.connect(self._on_progress)
        #: (time, stage) of each stage change, taken in the fit's thread.
        self.worker_stages: list[tuple[float, str]] = []
        self._patch_run_analysis()
        view = window.sphere_view
        real_show = view.show_configuration

        def timed_show(*args: Any, **kwargs: Any) -> None:
            start = time.perf_counter()
            real_show(*args, **kwargs)
            self.snapshot_seconds.append(time.perf_counter() - start)
            self.snapshot_times.append(start)

        view.show_configuration = timed_show
        window_ = view.plotter.ren_win
        window_.AddObserver("StartEvent", self._render_started)
        window_.AddObserver("EndEvent", self._render_ended)

    def _patch_run_analysis(self) -> None:
        from stpca_gui.model import analysis as worker

        real_run_analysis = worker.run_analysis
        stages = self.worker_stages

        def timed_run_analysis(*args: Any, callback: Any, **kwargs: Any) -> Any:
            def timed(event: Any) -> Any:
                if not stages or stages[-1][1] != event.stage:
                    stages.append((time.perf_counter(), event.stage))
                return callback(event)
            return real_run_analysis(*args, callback=timed, **kwargs)

        worker.run_analysis = timed_run_analysis

    def _render_started(self, *_: object) -> None:
        self._render_start = time.perf_counter()

    def _render_ended(self, *_: object) -> None:
        if self._render_start is not None and self.window.sphere_view.showing_configuration:
            self.render_seconds.append(time.perf_counter() - self._render_start)
        self._render_start = None

    def _on_progress(self, event: Any) -> None:
        if not self.stages or self.stages[-1][1] != event.stage:
            self.stages.append((time.perf_counter(), event.stage))

    def stage_at(self, when: float) -> str:
        stage = "starting"
        for t, name in self.worker_stages:
            if t <= when:
                stage = name
        return stage

    def reset(self) -> None:
        for store in (self.ticks, self.stages, self.worker_stages, self.snapshot_times,
                      self.snapshot_seconds, self.render_seconds):
            store.clear()

    def smds_windows(self, end: float) -> list[tuple[float, float]]:
        """(start, end) of each SMDS stage (one per landmark set), in the fit's thread."""
        windows = []
        stages = self.worker_stages
        for k, (when, stage) in enumerate(stages):
            if stage == "smds":
                stop = stages[k + 1][0] if k + 1 < len(stages) else end
                windows.append((when, stop))
        return windows


def settle(app: Any, seconds: float = 1.0) -> None:
    """Run the event loop for a while (deferred redraws and paints happen)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


def gaps_between(ticks: list[float], start: float, end: float) -> np.ndarray:
    times = np.asarray([start, *[t for t in ticks if start < t <= end], end])
    return np.diff(times)


def run_fit(app: Any, window: Any, probe: LiveFitProbe, dataset: Any, live: bool,
            screenshot: Path | None) -> dict[str, Any]:
    from PySide6.QtCore import QEventLoop, QTimer

    from stpca_gui.model.live_fit import LIVE_INTERVAL

    window.set_dataset(dataset, fit=False)
    settle(app)  # the views' redraws for the new data are not the fit's
    window.controller.live_interval = LIVE_INTERVAL if live else None
    params = dataclasses.replace(window.parameters.parameters(), n_landmarks="auto")
    probe.reset()
    draws_before = window.sphere_view.live_draws
    loop = QEventLoop()
    outcome: dict[str, Any] = {}

    def on_shown() -> None:
        outcome["shown"] = time.perf_counter()
        loop.quit()

    def on_snapshot(*_: object) -> None:
        if screenshot is not None and "shot" not in outcome and \
                window.sphere_view.live_draws - draws_before >= 3:
            outcome["shot"] = True
            window.grab().save(str(screenshot))

    window.result_shown.connect(on_shown)
    window.controller.smds_snapshot.connect(on_snapshot)
    QTimer.singleShot(int(FIT_TIMEOUT_S * 1000), loop.quit)
    probe.timer.start()
    start = time.perf_counter()
    window.controller.start(dataset, params)
    loop.exec()
    probe.timer.stop()
    window.result_shown.disconnect(on_shown)
    window.controller.smds_snapshot.disconnect(on_snapshot)
    if "shown" not in outcome:
        raise RuntimeError(f"the fit of {dataset.description} did not end in time")
    # The "done" report arrives just before the result, which the views then draw.
    end = next(t for t, stage in probe.stages if stage == "done")
    gaps = gaps_between(probe.ticks, start, end)
    windows = probe.smds_windows(end)
    smds_gaps = np.concatenate([gaps_between(probe.ticks, a, b) for a, b in windows])
    smds_s = float(sum(b - a for a, b in windows))
    draws = window.sphere_view.live_draws - draws_before
    result = window.state.result
    worst = np.argsort(gaps)[::-1][:3]
    tick_times = np.asarray([start, *[t for t in probe.ticks if start < t <= end]])
    return {
        "live": live,
        "fit_s": end - start,
        "draw_result_s": outcome["shown"] - end,
        "worst_gaps": [(round(1e3 * float(gaps[k]), 1), probe.stage_at(float(tick_times[k])))
                       for k in worst],
        "smds_s": smds_s,
        "smds_iterations": int(result.model.smds_.n_iter_),
        "draws": draws,
        "draws_per_s": draws / smds_s if smds_s > 0 else float("nan"),
        "show_ms_median": 1e3 * float(np.median(probe.snapshot_seconds))
        if probe.snapshot_seconds else float("nan"),
        "show_ms_max": 1e3 * float(np.max(probe.snapshot_seconds))
        if probe.snapshot_seconds else float("nan"),
        "first_gap_after_first_frame_ms": first_frame_gap(probe, gaps, start, end),
        "render_ms_median": 1e3 * float(np.median(probe.render_seconds))
        if probe.render_seconds else float("nan"),
        "render_ms_max": 1e3 * float(np.max(probe.render_seconds))
        if probe.render_seconds else float("nan"),
        "stall_max_ms": 1e3 * float(gaps.max()),
        "stall_p99_ms": 1e3 * float(np.percentile(gaps, 99)),
        "smds_stall_max_ms": 1e3 * float(smds_gaps.max()) if smds_gaps.size else float("nan"),
        "smds_stall_p99_ms": 1e3 * float(np.percentile(smds_gaps, 99))
        if smds_gaps.size else float("nan"),
        "gaps_over_100ms": int(np.sum(gaps > 0.1)),
    }


def first_frame_gap(probe: LiveFitProbe, gaps: np.ndarray, start: float,
                    end: float) -> float:
    """The gap around the first live frame (the one that may build the drawing)."""
    if not probe.snapshot_times:
        return float("nan")
    times = np.asarray([start, *[t for t in probe.ticks if start < t <= end], end])
    k = int(np.searchsorted(times, probe.snapshot_times[0])) - 1
    return 1e3 * float(gaps[max(0, min(k, len(gaps) - 1))])


def report(cases: list[dict[str, Any]], info: dict[str, str]) -> str:
    lines = ["## Live fits (`benchmarks/bench_live_fit.py`)", "",
             f"Machine: {info['cpu']}; load average before: {info['load']}; "
             f"display: {info['display']}.", ""]
    headers = ["case", "live", "fit (s)", "result drawn (s)", "SMDS (s)", "SMDS iterations",
               "redraws", "redraws/s", "GUI ms/redraw (call + render, median)",
               "render max (ms)",
               "stall max (ms)", "stall p99 (ms)", "SMDS stall max / p99 (ms)"]
    rows = []
    for case in cases:
        for run in case["runs"]:
            live = run["live"]
            rows.append([
                case["name"], "yes" if live else "no", f"{run['fit_s']:.2f}",
                f"{run['draw_result_s']:.2f}",
                f"{run['smds_s']:.2f}", str(run["smds_iterations"]),
                str(run["draws"]) if live else "–",
                f"{run['draws_per_s']:.1f}" if live else "–",
                f"{run['show_ms_median']:.1f} + {run['render_ms_median']:.1f}" if live else "–",
                f"{run['render_ms_max']:.1f}" if live else "–",
                f"{run['stall_max_ms']:.0f}", f"{run['stall_p99_ms']:.0f}",
                f"{run['smds_stall_max_ms']:.0f} / {run['smds_stall_p99_ms']:.0f}",
            ])
    lines.append(markdown_table(headers, rows))
    lines.append("")
    for case in cases:
        for run in case["runs"]:
            worst = ", ".join(f"{ms:.0f} ms ({stage})" for ms, stage in run["worst_gaps"])
            lines.append(f"- {case['name']}, live {'on' if run['live'] else 'off'}: longest "
                         f"gaps {worst}.")
    lines.append("")
    for case in cases:
        on = [r["fit_s"] for r in case["runs"] if r["live"]]
        off = [r["fit_s"] for r in case["runs"] if not r["live"]]
        if on and off:
            ratio = np.median(on) / np.median(off)
            lines.append(f"- {case['name']}: fit time with the live display "
                         f"{np.median(on):.2f} s, without {np.median(off):.2f} s "
                         f"({100 * (ratio - 1):+.1f} %).")
    return "\n".join(lines)


#: The keys of the cases' longest stalls in the recorded results (``--record``).
STALL_KEYS = {"clusters-t3": "clusters_t3_ms", "sunspots cycle 23": "cycle_23_ms",
              "sunspots all births": "all_births_ms"}


def headline(results: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """The numbers docs/measured.md shows (``--record``): each case's longest GUI-thread
    stall with the live display (the largest over the repeats)."""
    values = {}
    for case in results:
        key = next(key for prefix, key in STALL_KEYS.items() if case["name"].startswith(prefix))
        values[key] = max(run["stall_max_ms"] for run in case["runs"] if run["live"])
    return {"live": values}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="clusters-t3 only")
    parser.add_argument("--repeats", type=int, default=1, help="fits per case and mode")
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    parser.add_argument("--json", type=Path, help="write the measurements here")
    parser.add_argument("--screenshot-dir", type=Path,
                        help="save the window during each case's first live fit here")
    add_record_option(parser)
    args = parser.parse_args(argv)
    if args.record and (args.quick or args.only):
        parser.error("--record records full runs only (not --quick or --only)")
    load_at_start = one_minute_load()

    display = started_display("bench_live_fit")
    if display is None:
        return 1
    try:
        from PySide6.QtWidgets import QApplication

        from stpca_gui.core.warmup import warm_up

        app = QApplication.instance() or QApplication(["bench_live_fit"])
        info = {"cpu": cpu_model(), "load": load_average_text(),
                "display": display.description}
        log("warming up the kernels")
        warm_up()
        from stpca_gui.gui.main_window import MainWindow

        window = MainWindow(recent_path=Path("/nonexistent/recent.json"))
        window.resize(1500, 950)
        window.show()
        app.processEvents()
        probe = LiveFitProbe(window)
        log("unreported warm-up fit")
        run_fit(app, window, probe, make_cases(True)[0][1], True, None)
        results = []
        for index, (name, dataset) in enumerate(make_cases(args.quick)):
            if args.only not in name:
                continue
            runs = []
            for repeat in range(args.repeats):
                order = (False, True) if repeat % 2 == 0 else (True, False)
                for live in order:
                    log(f"{name}: live {'on' if live else 'off'} (repeat {repeat + 1})")
                    shot = None
                    if args.screenshot_dir and live and repeat == 0:
                        args.screenshot_dir.mkdir(parents=True, exist_ok=True)
                        shot = args.screenshot_dir / f"live-fit-{index}.png"
                    runs.append(run_fit(app, window, probe, dataset, live, shot))
                    log(f"  {json.dumps(runs[-1])}")
            results.append({"name": name, "runs": runs})
        window.close()
        print(report(results, info))
        if args.json:
            args.json.write_text(json.dumps({"info": info, "cases": results}, indent=1))
        if args.record:
            record(args.record, __file__, headline(results), load_at_start=load_at_start,
                   log=log)
    finally:
        display.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
