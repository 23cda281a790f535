"""GUI benchmark, report: the Markdown sections built from the children's JSON."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from _common import (
    markdown_table,
    pass_fail,
)
from _gui_env import (
    HUGE_N,
    HUGE_PEAK_RSS_TARGET_MB,
    HUGE_SELECTION_TARGET_MS,
    LARGE_N,
    LARGE_SEED,
    SELECTION_TARGET_MS,
    SMALL_N,
    SMALL_SEED,
    STALL_TARGET_MS,
    TIMER_INTERVAL_MS,
    fmt,
    ms,
)

# ============================================================================== report


FIRST_FRAME_ROWS = (
    ("interpreter start (Popen → top of the script)", None, None),
    ("import PySide6 (QtCore, QtWidgets)", ("start",), ("import_pyside6",)),
    ("import stpca_gui.gui.app, .main_window (before issue 12 also numba, matplotlib, VTK…)",
     ("import_pyside6",), ("import_stpca",)),
    ("main() until the kernel warm-up: QApplication, splash", ("main_start",),
     ("warmup_start",), "warmup"),
    ("warm_up(): load the compiled numba kernels", ("warmup_start",), ("warmup_end",),
     "warmup"),
    ("main() → MainWindow(): QApplication (no warm-up in this version)", ("main_start",),
     ("window_start",), "no-warmup"),
    ("MainWindow() construction", ("window_start",), ("window",)),
    ("resize + show()", ("window",), ("load_demo_start",)),
    ("load_demo(): data, torus view draws the points, fit thread started",
     ("load_demo_start",), ("load_demo",)),
    ("fit: thread started → result arrives in the GUI thread", ("fit_launch",),
     ("result_arrival",)),
    ("drawing: result arrival → result_shown", ("result_arrival",), ("result_shown",)),
    ("paint: result_shown → zero timer + processEvents()", ("result_shown",), ("frame",)),
)


STAGES = ("smds", "pns", "curve", "torus-variance")


def first_frame_report(runs: list[dict[str, Any]]) -> str:
    parts = ["## 1. Time to first complete frame (`clusters-t3`, n = 300)", ""]
    for run in runs:
        if "error" in run:
            parts.append(f"**{run['label']} failed:** {run['error']}\n")
    good = [(r["label"], r) for r in runs if "error" not in r]
    if not good:
        return "\n".join(parts)
    rows = []
    any_warmup = any(r.get("warm_up_called") for _, r in good)
    for label, a, b, *flags in FIRST_FRAME_ROWS:
        if ("no-warmup" in flags and any_warmup) or ("warmup" in flags and not any_warmup):
            continue
        cells = []
        for _, run in good:
            m = run["marks_s"]
            if a is None:
                cells.append(ms(run["interpreter_start_s"], ".0f"))
            else:
                ta = next((m[k] for k in a if k in m), None)
                tb = next((m[k] for k in b if k in m), None)
                cells.append(ms(tb - ta, ".0f") if ta is not None and tb is not None else "—")
        rows.append([label, *cells])
        if a == ("fit_launch",):
            rows.append(["  · of which the model's `timings_` (" + " / ".join(STAGES) + ")",
                         *[f"{ms(sum(r['timings'].values()), '.0f')} ("
                           + " / ".join(ms(r["timings"].get(s), ".0f") for s in STAGES) + ")"
                           for _, r in good]])
            rows.append(["  · rest (estimator set-up, thread start, queued signal, sharing "
                         "the CPU/GIL with the GUI thread)",
                         *[ms(r["marks_s"]["result_arrival"] - r["marks_s"]["fit_launch"]
                              - sum(r["timings"].values()), ".0f") for _, r in good]])
    rows.append(["**total: top of the script → first complete frame**",
                 *[f"**{ms(r['marks_s']['frame'], '.0f')}**" for _, r in good]])
    rows.append(["**total incl. interpreter start (Popen → frame)**",
                 *[f"**{ms(r['popen_to_frame_s'], '.0f')}**" for _, r in good]])
    rows.append(["(first paint of the still empty window, from the top of the script)",
                 *[ms(r["marks_s"].get("first_paint"), ".0f") for _, r in good]])
    rows.append(["peak RSS at the first frame (MiB)",
                 *[fmt(r["peak_rss_mb"], ".0f") for _, r in good]])

    def span(run: dict[str, Any], a: str, b: str) -> str:
        m = run["marks_s"]
        return ms(m[b] - m[a], ".0f") if a in m and b in m else "—"

    rows.append(["*then the same fit again in that process (warm): fit() → result arrival*",
                 *[span(r, "refit_start", "refit_arrival") for _, r in good]])
    rows.append(["  · of which the model's `timings_` (" + " / ".join(STAGES) + ")",
                 *[f"{ms(sum(r['refit_timings'].values()), '.0f')} ("
                   + " / ".join(ms(r["refit_timings"].get(s), ".0f") for s in STAGES) + ")"
                   if "refit_timings" in r else "—" for _, r in good]])
    rows.append(["  · drawing + paint (arrival → result_shown → processEvents)",
                 *[span(r, "refit_arrival", "refit_frame") for _, r in good]])
    parts.append(markdown_table(["phase (ms)", *[label for label, _ in good]], rows))
    parts += ["", "The child runs the real entry point, `stpca_gui.gui.app.main([\"--demo\", "
              "\"clusters-t3\"])`, with its steps timed through wrappers installed before it "
              "starts. Phases are consecutive in the GUI thread except the fit, which runs in "
              "its worker thread from inside `load_demo()` while the GUI thread enters the "
              "event loop and paints the empty window. The interpreter is started directly "
              "(`sys.executable`), not through `uv run`, which adds its own start-up. Numba "
              "functions are compiled with `cache=True`: every process loads them from the "
              "on-disk cache (or recompiles them after a source change), in `warm_up()` when "
              "this version has it, else during the first fit (compare the fit row with the "
              "warm re-fit). *run 1/2* run as "
              "this environment is set up; *with .pyc cache* is a third process with "
              "`PYTHONDONTWRITEBYTECODE` unset and `PYTHONPYCACHEPREFIX` pointing at a "
              "private folder filled by an unreported run before it (see *bytecode cache* in "
              "the machine table: without `.pyc` files every import compiles its source)."]
    return "\n".join(parts)


def case_title(case: dict[str, Any]) -> str:
    return f"n = {case['n']:,}" + (" (timers stopped)" if case.get("auto_render_stopped")
                                   else "")


def render_counts(counts: Sequence[int] | None) -> str:
    """Median (range) of the 3-D renders per selection."""
    if not counts:
        return "—"
    ordered = sorted(counts)
    return f"{ordered[len(ordered) // 2]} ({ordered[0]}–{ordered[-1]})"


def selection_report(cases: list[dict[str, Any]], notes: list[str]) -> str:
    parts = ["## 2. Selection latency (three clusters on T³)", "", *notes, ""]
    rows = []
    for case in cases:
        if "error" in case:
            rows.append([case_title(case), case["what"], f"**error:** {case['error']}",
                         *[""] * 7])
            continue
        sel = case["selection"]
        target = (SELECTION_TARGET_MS if case["n"] == SMALL_N else
                  HUGE_SELECTION_TARGET_MS if case["n"] >= HUGE_N else None)
        ok = None if target is None else sel["total"]["median_ms"] <= target
        rows.append([
            case_title(case), case["what"], str(sel["count"]),
            f"{sel['n_selected_range'][0]:,}–{sel['n_selected_range'][1]:,}",
            f"{fmt(sel['apply']['median_ms'])} / {fmt(sel['apply']['max_ms'])}",
            f"{fmt(sel['paint']['median_ms'])} / {fmt(sel['paint']['max_ms'])}",
            f"**{fmt(sel['total']['median_ms'])}** / {fmt(sel['total']['max_ms'])}",
            render_counts(sel.get("renders_3d")),
            "yes" if sel["highlight_counts_match"] and sel["canvases_painted_every_time"]
            else "**no**",
            (f"{pass_fail(ok)} / {pass_fail(sel['total']['max_ms'] <= target)}"
             if target else "—"),
        ])
    parts.append(markdown_table(
        ["case", "result shown", "selections", "points selected",
         "apply: slots done, median / max (ms)",
         "paint: canvases painted, 3-D views rendered, median / max (ms)",
         "total, median / max (ms)", "3-D renders per selection (both views)",
         "4 views highlight the mask, canvases painted",
         f"≤ {SELECTION_TARGET_MS:.0f} ms at n = {SMALL_N:,}, ≤ "
         f"{HUGE_SELECTION_TARGET_MS:.0f} ms at n ≥ {HUGE_N:,} (median / max)"], rows))
    good = [c for c in cases if "error" not in c]
    if not good:
        return "\n".join(parts)
    headers = ["operation (ms)", *[case_title(c) for c in good]]
    parts += ["", "Other GUI-thread operations of the same processes (one run each; the GUI "
              "is frozen meanwhile):", ""]
    parts.append(markdown_table(headers, [
        ["set_dataset (torus view draws the points) + processEvents",
         *[ms(c["dataset_shown_s"], ".0f") for c in good]],
        ["result arrival → result_shown (every view redrawn)",
         *[ms(c["result_drawn_s"], ".0f") for c in good]],
        ["(not in the GUI thread: PNS1 mode clusters, computed by the fit's worker; for "
         "the synthetic result before it is shown)",
         *[ms(c.get("mode_clusters_s"), ".0f") if c.get("mode_clusters_s") is not None
           else "in the fit" for c in good]],
        ["then processEvents (deferred matplotlib draws, 3-D renders in paintGL, paints)",
         *[ms(c["result_paint_s"], ".0f") for c in good]],
    ]))
    delay = next((c["breakdown"].get("still_delay_ms") for c in good
                  if c["breakdown"].get("still_delay_ms")), None)
    delay_text = f"{delay:.0f} ms" if delay else "a quiet time"
    parts += ["", "Per-view breakdown, median / max ms over the breakdown selections (a count "
              "in parentheses: the row occurred only that often). Each selection is applied "
              "with the selection signal blocked; then every step is done by hand, one after "
              "the other. The variance view does not subscribe to the selection. A "
              "matplotlib slot updates its selection artists, restores the snapshot of the "
              "static layers taken during the last full render, draws only the selection "
              "layers (the scores' points colour by colour, as stamped markers) and blits, "
              "which schedules a `QWidget.update()`; the *next frame* row is "
              "`processEvents()` until both canvases were painted (it also runs the zero "
              "timer that renews the selectors' backgrounds). Without a valid snapshot "
              "(e.g. right after a resize) a slot falls back to `draw_idle()`, a full Agg "
              "render of the figure: the *fell back* row counts those selections, and a "
              "*fallback full Agg render* row (`_draw_idle()` called directly) times them "
              "when there were any. A 3-D slot recolours the points and calls "
              "`plotter.render()`, which only schedules a repaint: VTK renders in `paintGL`, "
              "without anti-aliasing. Those rows are timed in situ, view after view: slot, "
              "then `processEvents()` until that view's render window ended a render (the "
              "*of which* row is the slot alone; a bare `ren_win.Render()` outside a paint "
              "underestimates the cost, as Mesa's llvmpipe rasterises only when the frame "
              "is flushed). The *still frame* rows time `plotter.render_still()` the same "
              "way: FXAA on and one more `paintGL` render, which the app draws once a view "
              f"has been still for {delay_text} (`ViewInteractor.STILL_DELAY_MS`; the "
              "slot's timer is stopped here so that it does not fire in another row), after "
              "the selection is shown: not part of the latency. Every frame also composes "
              "and flushes the whole window (the *reference* row: a frame with nothing "
              "changed). Here each step is painted in a frame of its own, whereas a real "
              "selection paints every view in one frame, so the sum below exceeds the "
              "measured total by about two such frames.", ""]
    names: list[str] = []
    for case in good:
        names += [name for name in case["breakdown"]["rows"] if name not in names]

    def cell(case: dict[str, Any], name: str) -> str:
        row = case["breakdown"]["rows"].get(name)
        if row is None:
            return "—"
        text = f"{fmt(row['median_ms'])} / {fmt(row['max_ms'])}"
        if row["count"] != case["breakdown"]["selections"]:
            text += f" ({row['count']}×)"
        return text

    def latency_sum(case: dict[str, Any]) -> str:
        breakdown = case["breakdown"]
        total = sum(row["median_ms"] for row in breakdown["rows"].values()
                    if row["in_latency"] and row["count"] == breakdown["selections"])
        return f"**{fmt(total)}**"

    def checks(case: dict[str, Any]) -> str:
        breakdown = case["breakdown"]
        return (f"{len(breakdown['timeouts'])} / {breakdown['other_view_renders']}"
                + (f" ({', '.join(breakdown['timeouts'])})" if breakdown["timeouts"] else ""))

    rows = [[name, *[cell(c, name) for c in good]] for name in names]
    rows.append(["**sum of the medians of the latency rows** (all rows except the still "
                 "frames and the current_colors and *of which* rows, which other rows "
                 "contain)",
                 *[latency_sum(c) for c in good]])
    rows.append(["matplotlib slots that fell back to a full render (`_draw_pending` right "
                 "after the slot): scores / histogram",
                 *[f"{c['breakdown']['full_render_fallbacks']['scores']} / "
                   f"{c['breakdown']['full_render_fallbacks']['histogram']} of "
                   f"{c['breakdown']['selections']}" for c in good]])
    rows.append(["waits that timed out (5 s) / renders of the other 3-D view during a 3-D "
                 "row", *[checks(c) for c in good]])
    parts.append(markdown_table(["component", *[case_title(c) for c in good]], rows))
    still = []
    for case in good:
        found = [(name.partition(":")[0], row["median_ms"])
                 for name, row in case["breakdown"]["rows"].items() if "still frame" in name]
        if found:
            still.append(f"{case_title(case)}: " + ", ".join(
                f"{view} {fmt(value)} ms" for view, value in found))
    if still:
        parts += ["", "The 3-D views' anti-aliased still frames follow "
                  f"{delay_text} after the last change and are not part of the latency; "
                  "they cost (median) " + "; ".join(still) + "."]
    for c in good:
        prof = c.get("profile")
        if not prof:
            continue
        parts += ["", f"cProfile, {case_title(c)}: {prof['selections']} full selections "
                  f"(apply + paint), {fmt(prof['wall_ms_per_selection'], '.0f')} ms per "
                  "selection under the profiler; times per selection.", ""]
        rows = [[f"`{r['function']}`", fmt(r["tottime_ms"], ".1f"), fmt(r["cumtime_ms"], ".1f"),
                 str(r["calls"])] for r in prof["by_own_time"][:12]]
        parts.append("Top by own time:\n\n" + markdown_table(
            ["function", "own ms", "cumulative ms", "calls (all selections)"], rows))
        rows = [[f"`{r['function']}`", fmt(r["cumtime_ms"], ".1f"), fmt(r["tottime_ms"], ".1f"),
                 str(r["calls"])] for r in prof["by_cumulative_time"][:22]]
        parts.append("\nTop by cumulative time:\n\n" + markdown_table(
            ["function", "cumulative ms", "own ms", "calls (all selections)"], rows))
    return "\n".join(parts)


def responsiveness_report(runs: list[dict[str, Any]]) -> str:
    parts = [f"## 3. GUI responsiveness during a background fit (n = {SMALL_N:,})", ""]
    for run in runs:
        if "error" in run:
            parts.append(f"**{case_title(run)} failed:** {run['error']}\n")
    good = [r for r in runs if "error" not in r]
    if not good:
        return "\n".join(parts)

    def cells(func: Callable[[dict[str, Any]], str]) -> list[str]:
        return [func(r) for r in good]

    rows = [
        ["fit() → 'done' progress event arrives in the GUI thread",
         *cells(lambda r: f"{r['responsiveness']['fit_s']:.2f} s")],
        ["model stages (`timings_`, s)", *cells(lambda r: " / ".join(
            f"{k} {v:.1f}" for k, v in r["fit"]["timings_s"].items()))],
        ["SMDS iterations", *cells(lambda r: str(r["fit"]["smds_iterations"]))],
        [f"ticks of the {TIMER_INTERVAL_MS} ms timer / ideal", *cells(
            lambda r: f"{r['responsiveness']['ticks']} / {r['responsiveness']['expected_ticks']}")],
        ["median gap", *cells(lambda r: f"{r['responsiveness']['median_gap_ms']:.1f} ms")],
        ["99th percentile gap", *cells(lambda r: f"{r['responsiveness']['p99_gap_ms']:.1f} ms")],
        ["**longest gap**",
         *cells(lambda r: f"**{r['responsiveness']['longest_gap_ms']:.1f} ms**")],
        ["gaps > 50 ms / > 100 ms", *cells(
            lambda r: f"{r['responsiveness']['gaps_over_50ms']} / "
                      f"{r['responsiveness']['gaps_over_100ms']}")],
        [f"no gap over {STALL_TARGET_MS:.0f} ms", *cells(
            lambda r: pass_fail(r["responsiveness"]["longest_gap_ms"] <= STALL_TARGET_MS))],
        ["after 'done': result drawn (arrival → result_shown, GUI frozen; not in the target "
         "window)", *cells(lambda r: f"{ms(r['result_drawn_s'], '.0f')} ms")],
    ]
    headers = ["measure", *["as shipped" if not r.get("auto_render_stopped") else
                            "diagnostic: pyvistaqt auto-update timers stopped" for r in good]]
    parts.append(markdown_table(headers, rows))
    warmed = [r.get("warm_up_s") for r in good]
    if any(w is not None for w in warmed):
        parts += ["", "Like `stpca-gui` (`app.main`), the process called "
                  "`stpca_gui.core.warmup.warm_up()` before building the window "
                  f"({ms(next(w for w in warmed if w is not None), '.0f')} ms), so the fit "
                  "did not load the compiled kernels itself."]
    else:
        parts += ["", "This version has no `stpca_gui.core.warmup`: the fit loads the compiled "
                  "kernels on their first call (numba holds the GIL meanwhile)."]
    for r in good:
        worst = "; ".join(f"{w['gap_ms']:.0f} ms ending {w['ends_at_s']:.2f} s after fit() "
                          f"({w['stage']})" for w in r["responsiveness"]["worst_gaps"])
        title = "as shipped" if not r.get("auto_render_stopped") else "timers stopped"
        parts += ["", f"Longest gaps, {title} (stage = last progress event received): {worst}."]
    return "\n".join(parts)


def memory_report(first: list[dict[str, Any]], cases: list[dict[str, Any]]) -> str:
    parts = ["## 4. Memory (MiB)", ""]
    rows = []
    for run in first:
        if "error" not in run:
            rows.append([f"first frame, {run['label']} (n = 300)", "—", "—",
                         fmt(run["rss_mb"], ".0f"),
                         "—", f"**{fmt(run['peak_rss_mb'], '.0f')}**"])
    for case in cases:
        if "error" in case:
            continue
        mem = case["memory"]

        def rss(key: str, mem=mem) -> str:
            return fmt(mem.get(key, {}).get("rss_mb"), ".0f")

        rows.append([f"{case_title(case)}: {case['short']}", rss("window shown"),
                     rss("dataset shown"), rss("fitted and drawn"), rss("after selections"),
                     f"**{fmt(mem['after selections']['peak_rss_mb'], '.0f')}**"])
    parts.append(markdown_table(
        ["process", "RSS: window shown", "dataset shown", "result drawn", "after selections",
         "peak RSS (ru_maxrss)"], rows))
    parts += ["", "Every row is its own process. The n = 5000 peaks include the fit in the "
              "worker thread (SMDS works on n×n float64 matrices, 5000² × 8 B = 191 MiB "
              "each). The n = 100,000 processes never fit (they load the pickled n = 5000 "
              "model); their peak is the GUI with 100,000 points in four views plus the "
              "nearest-sample search (4000 × 5000 distance blocks, 153 MiB)."]
    return "\n".join(parts)


def targets_report(first: list[dict[str, Any]], cases: list[dict[str, Any]]) -> str:
    lines = ["## Targets", ""]
    for case in cases:
        if "error" not in case and case["n"] >= HUGE_N:
            sel = case["selection"]["total"]
            peak = case["memory"]["after selections"]["peak_rss_mb"]
            lines.append(
                f"- Selection latency n = {case['n']:,} (synthetic result): median "
                f"{sel['median_ms']:.1f} ms, max {sel['max_ms']:.1f} ms, target ≤ "
                f"{HUGE_SELECTION_TARGET_MS:.0f} ms: "
                f"{pass_fail(sel['median_ms'] <= HUGE_SELECTION_TARGET_MS)} (median); peak "
                f"RSS {peak:.0f} MiB, target ≤ {HUGE_PEAK_RSS_TARGET_MB:.0f} MiB: "
                f"{pass_fail(peak <= HUGE_PEAK_RSS_TARGET_MB)}")
        if "error" in case or case["n"] != SMALL_N:
            continue
        sel = case["selection"]["total"]
        r = case["responsiveness"]
        tag = "diagnostic, timers stopped" if case.get("auto_render_stopped") else "as shipped"
        lines.append(f"- Selection latency n = {SMALL_N} ({tag}): median {sel['median_ms']:.1f} "
                     f"ms, max {sel['max_ms']:.1f} ms, target ≤ {SELECTION_TARGET_MS:.0f} ms: "
                     f"{pass_fail(sel['median_ms'] <= SELECTION_TARGET_MS)} (median), "
                     f"{pass_fail(sel['max_ms'] <= SELECTION_TARGET_MS)} (max)")
        lines.append(f"- No GUI stall over {STALL_TARGET_MS:.0f} ms during the n = {SMALL_N} fit "
                     f"({tag}): longest gap {r['longest_gap_ms']:.1f} ms: "
                     f"{pass_fail(r['longest_gap_ms'] <= STALL_TARGET_MS)}")
    good = [r for r in first if "error" not in r]
    if good:
        lines.append("- First complete frame (no target): " + ", ".join(
            f"{r['label']} {r['popen_to_frame_s']:.2f} s" for r in good))
    return "\n".join(lines)


def selection_notes(quick: bool, diagnostics: bool, skipped: bool,
                    still_delay_ms: float | None = None) -> list[str]:
    notes = [
        f"- n = {SMALL_N:,}: `make_clusters_t3` (seed {SMALL_SEED}), fitted with the default "
        "parameters in the GUI's worker thread (the fit of section 3), then the selections.",
    ]
    if not quick:
        notes.append(
            f"- n = {LARGE_N:,}: **no fit**. ST-PCA's SMDS is O(n²) in memory and time (the "
            "classical-MDS start alone allocates one n×n float64 matrix, 10¹⁰ × 8 B = 80 GB, "
            "on a machine with 23 GB; the n = 5000 fit already takes tens of seconds). The "
            f"data (`make_clusters_t3`, seed {LARGE_SEED}) get a synthetic `AnalysisResult`: "
            "the pickled n = 5000 model whose `scores_`/`embedding_`/`angles_` are replaced, "
            "for every point, by those of its nearest fitted sample (torus distance) — the "
            "start of the model's out-of-sample map T̂ without its per-point optimisation "
            "(`transform()` costs ≈ 4 ms per point here, ≈ 7 min for 10⁵). PNS, principal "
            "curve and variance bars are the n = 5000 fit's. It is installed through "
            "`controller.succeeded.emit(result)`, the path of a finished fit. Only display and "
            "selection are measured, with 100,000 points in the scores scatter, the PNS1 "
            "histogram/KDE, the torus and the sphere.")
    if diagnostics:
        notes.append(
            "- *timers stopped* rows are diagnostic re-runs in fresh processes with "
            "`plotter.render_timer.stop()` on both 3-D views, i.e. what "
            "`QtInteractor(..., auto_update=False)` would give; pyvistaqt's default "
            "(`auto_update=5.0`) re-renders every 3-D view five times a second, forever. "
            "Benchmark-side only: the library is unchanged.")
    elif skipped:
        notes.append(
            "- No *timers stopped* diagnostic rows: the 3-D views of this version run no "
            "pyvistaqt auto-update timer (`QtInteractor(auto_update=False)`), so the "
            "diagnostic would repeat the measurement.")
    delay = f"{still_delay_ms:.0f} ms" if still_delay_ms else "a quiet time"
    notes.append(
        "- Each selection is a random non-empty subset of the three clusters, never the same "
        "as the previous one, applied with `state.selection.apply(mask, \"replace\")`, after "
        "one untimed selection. *Apply* ends when every slot has returned: the matplotlib "
        "views have redrawn their selection layers over the snapshot of their last full "
        "render and blitted (`canvas.blit()` schedules a `QWidget.update()`), the 3-D views "
        "have recoloured their points and scheduled a repaint (`plotter.render()` renders "
        "nothing itself). *Paint* is `processEvents()` until both canvases were painted and "
        "both 3-D views rendered (VTK renders in `paintGL`, without anti-aliasing), i.e. "
        "until every view shows the selection; it also runs whatever else is due. A "
        "matplotlib slot without a valid snapshot (e.g. right after a resize) falls back to "
        "`draw_idle()`, a full Agg render, which the paint then includes. The 3-D views' "
        f"anti-aliased still frames follow {delay} after the last change "
        "(`ViewInteractor.STILL_DELAY_MS`) and are not part of the latency; the breakdown "
        "below times them. After each selection the highlight counts of the four views are "
        "checked against the mask (helper of `tests/gui/test_gui.py`).")
    return notes


def monte_carlo_report(run: dict[str, Any] | None) -> str:
    """Section 5: GUI responsiveness while the uniformity tests' Monte Carlo runs."""
    if run is None:
        return ""
    replicates = run.get("replicates", 0)
    parts = [f"## 5. GUI responsiveness during a Monte Carlo uniformity test "
             f"({replicates:,} replicates)", ""]
    if "error" in run:
        return "\n".join([*parts, f"**Failed:** {run['error']}"])
    gaps = run["responsiveness"]
    rows = [
        ["tested column, n", f"{run['column']}, n = {run['n']}"],
        ["run() → results in the table", f"{gaps['fit_s']:.2f} s"],
        ["progress reports reaching the dialog", str(run["progress_reports"])],
        [f"ticks of the {TIMER_INTERVAL_MS} ms timer / ideal",
         f"{gaps['ticks']} / {gaps['expected_ticks']}"],
        ["median gap", f"{gaps['median_gap_ms']:.1f} ms"],
        ["99th percentile gap", f"{gaps['p99_gap_ms']:.1f} ms"],
        ["**longest gap**", f"**{gaps['longest_gap_ms']:.1f} ms**"],
        ["gaps > 50 ms / > 100 ms", f"{gaps['gaps_over_50ms']} / {gaps['gaps_over_100ms']}"],
        [f"no gap over {STALL_TARGET_MS:.0f} ms",
         pass_fail(gaps["longest_gap_ms"] <= STALL_TARGET_MS)],
        ["the same computation on the GUI thread (the freeze before the task runner)",
         f"{run['synchronous_s']:.2f} s"],
    ]
    parts.append(markdown_table(["measure", "value"], rows))
    worst = "; ".join(f"{w['gap_ms']:.0f} ms ending {w['ends_at_s']:.2f} s after run() "
                      f"(last progress {w['stage']})" for w in gaps["worst_gaps"])
    parts += ["", f"Longest gaps: {worst}."]
    return "\n".join(parts)
