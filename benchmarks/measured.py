"""docs/measured.md, generated from the benchmarks' recorded results.

Every benchmark run with ``--record`` writes its headline numbers, with the date, commit,
machine and load average, to ``benchmarks/results/<benchmark>.json``. This script renders
the rows below from those files into docs/measured.md, so that the page never states a
number no benchmark recorded; tests/docs/test_measured_page.py checks that the committed page
is what this script gives and that every recorded case is shown.

    uv run python benchmarks/measured.py           # rewrite docs/measured.md
    uv run python benchmarks/measured.py --check   # exit 1 if docs/measured.md differs

A new benchmark adds one :class:`Row` to :data:`ROWS` (its texts are ``str.format``
templates over the recorded values).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
RESULTS = BENCHMARKS / "results"
PAGE = BENCHMARKS.parent / "docs" / "measured.md"


@dataclass(frozen=True)
class Row:
    """One row of the page: a case of a benchmark's results file, and how it reads."""

    benchmark: str  # results/<benchmark>.json
    case: str
    what: str  # templates over the case's "values"
    ours: str
    reference: str = "—"


#: bench_highdim_steps' rows, one per d: the stages before → after and the errors after.
HIGHDIM_STAGES = (
    "{landmark_stage_cpu_s_before:.1f} s ({landmark_sets_before}) → "
    "{landmark_stage_cpu_s_after:.1f} s ({landmark_sets_after}); "
    "{place_cpu_ms_per_point_before:.2f} → {place_cpu_ms_per_point_after:.2f} ms; "
    "{curve_cpu_s_before:.2f} → {curve_cpu_s_after:.2f} s; "
    "{torus_variance_cpu_s_before:,.0f} → {torus_variance_cpu_s_after:.1f} s")
HIGHDIM_ERRORS = (
    "≤ {place_dense_difference:.0e}; K = {torus_components}, s = {torus_sample}: "
    "≤ {torus_sample_error_max:.2%} (points) = {torus_sample_error_in_se_max:.1f} "
    "standard errors (largest s.e. {torus_ratio_se_max:.2%}); "
    "{curve_median_turn_deg_before:.0f}° → {curve_median_turn_deg_after:.0f}° "
    "({curve_median_turn_in_range_deg:.0f}°)")
HIGHDIM_ERROR_REFERENCE = "reference T̂ to 1e-10 (tests); s.e. target 0.5 points"

ROWS = (
    Row("bench_smds", "demos",
        "SMDS clusters-t2 / t3 (n = 300), wrapped-normal-t2 (n = 500), `lbfgs`, 3 seeds: "
        "median time, largest stress",
        "{lbfgs_s_t2:.2f} / {lbfgs_s_t3:.2f} / {lbfgs_s_wn:.2f} s, stress ≤ "
        "{lbfgs_stress_t2:.4f} / {lbfgs_stress_t3:.4f} / {lbfgs_stress_wn:.4f}",
        "paper: 6.45 / 7.28 / 30.93 s, stress 0.068 / 0.064 / 0.159"),
    Row("bench_smds", "demos", "same with `optimizer=\"paper\"`: mean r̂ / stress",
        "{paper_radius_t2:.2f} / {paper_stress_t2:.3f}, {paper_radius_t3:.2f} / "
        "{paper_stress_t3:.3f}, {paper_radius_wn:.2f} / {paper_stress_wn:.3f}",
        "paper: 1.35 / 0.068, 1.63 / 0.064, 1.39 / 0.159"),
    Row("bench_smds", "sunspots", "SMDS sunspots cycle 23 lag 3 (n = 5371 on T³)",
        "{seconds_min:.1f}–{seconds_max:.1f} s, {peak_rss_mib:.0f} MiB peak RSS, "
        "r̂ = {radius:.3f}", "paper: r̂ = 1.81; target 15 s, 600 MB"),
    Row("bench_stpca", "sunspots",
        "sunspots principal curve vs the periodic diagonal, 1 − R² of θ2 / θ3 on θ1",
        "{one_minus_r2_theta2:.1e} / {one_minus_r2_theta3:.1e} (slopes "
        "{slope_min:.4f}–{slope_max:.4f})", "paper: 3e-5"),
    Row("bench_pns", "timings", "PNS n = 300 seq.test S³ / n = 5000 small S³",
        "{seq_test_s3_300_s:.2f} s / {small_s3_5000_s:.2f} s",
        "shapes: 125 s / 54 s; targets 2 s / 0.5 s"),
    Row("bench_stpca", "simulations",
        "ST-PCA torus % PC1 (clusters-t2 / t3 / wrapped normal), `lbfgs`, mean of 3 seeds",
        "{pc1_t2:.1f} / {pc1_t3:.1f} (+{pc2_t3:.1f}) / {pc1_wn:.1f}",
        "paper: 95 / 94 (+1) / 89"),
    Row("bench_stpca", "sunspots",
        "full ST-PCA on sunspots (n = 5371): SMDS + PNS + curve + torus variance",
        "{total_s:.1f} s ({smds_s:.1f} + {pns_s:.1f} + {curve_s:.1f} + "
        "{torus_variance_s:.1f})"),
    Row("bench_gui", "selection-5000",
        "app, n = 5000 (Xvfb, software OpenGL): selection → every view shows it",
        "median {median_ms:.0f} ms, max {max_ms:.0f} ms (3-D frames {torus_frame_ms:.0f} / "
        "{sphere_frame_ms:.0f} ms)", "target 0.1 s"),
    Row("bench_gui", "selection-100000", "same, n = 100,000 points (synthetic result)",
        "median {median_s:.2f} s, max {max_s:.2f} s"),
    Row("bench_gui", "selection-1000000",
        "same, n = 10⁶ points (synthetic result; 3-D views draw 30,000, scores as a density "
        "image)", "median {median_s:.2f} s, max {max_s:.2f} s; peak RSS {peak_rss_gib:.1f} GiB",
        "target 0.3 s, 4 GiB"),
    Row("bench_live_fit", "live",
        "app: longest GUI-thread stall during a fit with the live display, clusters-t3 / "
        "sunspots cycle 23 / all births (n = 300 / 5371 / 51,299)",
        "{clusters_t3_ms:.0f} / {cycle_23_ms:.0f} / {all_births_ms:.0f} ms", "target 0.1 s"),
    Row("bench_highdim", "pns-d20",
        "PNS CPU in the default fit without torus variance, torsion states on T²⁰, n = 500 / "
        "2,000: before → after (PNS's share of the fit's CPU)",
        "{before_500_s:.1f} → {after_500_s:.1f} s ({before_500_share:.0f} → "
        "{after_500_share:.0f} %) / {before_2000_s:.1f} → {after_2000_s:.1f} s "
        "({before_2000_share:.0f} → {after_2000_share:.0f} %)"),
    Row("bench_highdim", "pns-d66", "same on T⁶⁶",
        "{before_500_s:.1f} → {after_500_s:.1f} s ({before_500_share:.0f} → "
        "{after_500_share:.0f} %) / {before_2000_s:.1f} → {after_2000_s:.1f} s "
        "({before_2000_share:.0f} → {after_2000_share:.0f} %)"),
    Row("bench_highdim", "reduction-d20",
        "PNS with levels {first_500}–{last_500} / {first_2000}–{last_2000} of 19 reduced vs "
        "every level fitted, T²⁰, n = 500 / 2,000: PNS1 correlation, largest Δ explained "
        "variance ratio, points in the same mode cluster (clusters reduced / exact)",
        "{corr_500:.6f} / {corr_2000:.6f}, {gap_500:.3f} / {gap_2000:.3f} points, "
        "{agree_500:.4f} / {agree_2000:.4f} ({clusters_500}/{exact_clusters_500}, "
        "{clusters_2000}/{exact_clusters_2000})",
        "targets ≥ 0.9999, ≤ 0.1 point, the same clusters"),
    Row("bench_highdim", "reduction-d66",
        "same on T⁶⁶ (levels {first_500}–{last_500} / {first_2000}–{last_2000} of 65 "
        "reduced)",
        "{corr_500:.6f} / {corr_2000:.6f}, {gap_500:.3f} / {gap_2000:.3f} points, "
        "{agree_500:.4f} / {agree_2000:.4f} ({clusters_500}/{exact_clusters_500}, "
        "{clusters_2000}/{exact_clusters_2000})",
        "targets ≥ 0.9999, ≤ 0.1 point, the same clusters"),
    Row("bench_highdim", "fit-d66-n10000",
        "whole default fit, 3-state torsion data, T⁶⁶, n = 10⁴: wall (CPU), peak RSS",
        "{wall_s:.1f} s ({cpu_s:.1f} s), {peak_rss_mib:,} MiB",
        "target {target_s:.0f} s, {target_mib:,.0f} MiB"),
    Row("bench_highdim", "fit-d66-n100000", "same, n = 10⁵",
        "{wall_s:.1f} s ({cpu_s:.1f} s), {peak_rss_mib:,} MiB",
        "target {target_s:.0f} s, {target_mib:,.0f} MiB"),
    Row("bench_highdim", "fit-d66-n1000000", "same, n = 10⁶",
        "{wall_s:.1f} s ({cpu_s:.1f} s), {peak_rss_mib:,} MiB",
        "target {target_s:.0f} s, {target_mib:,.0f} MiB"),
    Row("bench_highdim", "fit-d426-n10000", "same generator, T⁴²⁶, n = 10⁴",
        "{wall_s:.1f} s ({cpu_s:.1f} s), {peak_rss_mib:,} MiB",
        "target {target_s:.0f} s, {target_mib:,.0f} MiB"),
    Row("bench_landmarks", "accuracy",
        "landmark fit m = 1000 vs exact, sunspots cycle 23 lag 3: PNS1 agreement, Δ PC1, "
        "all-pairs stress",
        "{score_agreement:.5f}, {pc1_difference:.2f} points, {stress_change_percent:+.2f} % "
        "({landmark_s:.1f} s vs {exact_s:.1f} s)", "targets ≥ 0.99, ≤ 1 point, ≤ 2 %"),
    Row("bench_landmarks", "t4-200k", "default fit, T⁴ clusters + 10 % background, "
        "n = 200,000", "{seconds:.1f} s, {peak_rss_mib:.0f} MiB", "target 60 s, 3 GiB"),
    Row("bench_landmarks", "t4-1m", "same, n = 10⁶", "{seconds:.1f} s, {peak_rss_mib:.0f} MiB",
        "target 40 s, 2 GiB"),
    Row("bench_landmarks", "sunspots-all", "default fit, all 51,301 sunspot births (lag 3)",
        "{seconds:.1f} s, {peak_rss_mib:.0f} MiB", "target 60 s"),
    Row("bench_highdim_steps", "d20",
        "T²⁰ three-state torsions (n = 10⁴, m = 1000 landmarks), the fit's steps other than "
        "PNS, CPU before → after: landmark stage (sets tried); T̂ per point; principal "
        "curve; torus variance", HIGHDIM_STAGES),
    Row("bench_highdim_steps", "d66", "same, T⁶⁶", HIGHDIM_STAGES,
        "target: the whole fit (PNS too) ≤ 15 s"),
    Row("bench_highdim_steps", "d20",
        "T²⁰ errors of the high-d steps: T̂ (matrix-free) against the dense kernel; torus "
        "ratios of the sample (K components, s points) against all m points; median total "
        "turn of a torsion along the principal curve before → after (on the data's arc)",
        HIGHDIM_ERRORS, HIGHDIM_ERROR_REFERENCE),
    Row("bench_highdim_steps", "d66", "same, T⁶⁶", HIGHDIM_ERRORS, HIGHDIM_ERROR_REFERENCE),
    Row("bench_persist", "transform",
        "`stpca transform`, {rows:,} rows, model n = {model_n:,} / m = {landmarks}",
        "{rows_per_s:,.0f} rows/s, {cpu_s:.1f} CPU s",
        "target 2× the code before issue 25 (3fdd8f4: 39,960 rows/s, 14.0 CPU s on 26 Nov "
        "2026)"),
    Row("bench_startup", "cli-cold",
        "`stpca demo clusters-t3`, empty kernel cache (first run after installing)",
        "{exit_s:.2f} s", "target 15 s"),
    Row("bench_startup", "cli-warm", "same, kernels cached", "{exit_s:.2f} s"),
    Row("bench_compile", "compile",
        "kernel compiling for that fit / for every kernel (CPU s)",
        "{fit_cpu_s:.1f} / {all_cpu_s:.1f}"),
    Row("bench_startup", "gui-warm",
        "`stpca-gui`, cached kernels: window painted / fitted demo window shown",
        "{first_paint_s:.2f} s / {result_shown_s:.2f} s", "targets 2 s / 5 s"),
    Row("bench_startup", "bundle",
        "bundle (`packaging/build`, {size_mb:,.0f} MB): first launch / later launch to the "
        "fitted demo", "{first_s:.2f} s / {later_s:.2f} s", "targets 20 s / 6 s"),
    Row("bench_dihedrals", "read",
        "torsions of a {frames:,}-frame, {residues}-residue trajectory (`stpca dihedrals`' "
        "reader, backbone φ/ψ): pooled / per-frame",
        "{pooled_frames_per_s:,.0f} / {per_frame_frames_per_s:,.0f} frames/s, peak RSS "
        "{peak_rss_mb:,.0f} MB", "target 10⁴ frames/s"),
    Row("bench_dihedrals", "dataset-pooled",
        "the app's pooled reading (`read_structure_dataset`, a row per frame and residue) of "
        "the same frames in {files} files",
        "{frames_per_cpu_s:,.0f} frames per CPU-second ({cpu_s:.1f} CPU s); data set "
        "{dataset_mb:,.0f} MB, peak RSS rise {rise_per_dataset:.2f}× it",
        "issue 33: 10⁴ frames/s; peak ≤ 2× the data set"),
    Row("bench_modetest", "size",
        "mode test (`mode_test`), size of the one-mode step at α = 0.05: von Mises κ = 0.5, "
        "2, 8 and wrapped Cauchy, n = 500 / 5000 / 50,000",
        "{step_min:.3f}–{step_max:.3f}; {in_band} of {cells} cells within 0.05 ± 2 SE "
        "({replicates_min} replicates each)", "issue 34: every cell within 0.05 ± 2 SE"),
    Row("bench_modetest", "power-two-equal",
        "mode test power, k̂ = 2: two equal von Mises modes (κ = 8) at ±0.5 rad, n = 500",
        "{before:.2f} (Silverman's test) → {after:.2f} ({replicates} replicates)",
        "issue 34: ≥ 0.80"),
    Row("bench_modetest", "power-small-mode",
        "same, a 10 % mode 1.6 rad from the main one, n = 500",
        "{before:.2f} → {after:.2f} ({replicates} replicates)", "issue 34: ≥ 0.80"),
    Row("bench_modetest", "speed", "mode test, n = 5371 / 10⁶ (CPU, the slower of 2 samples)",
        "{cpu_5371_s:.2f} s / {cpu_1e6_s:.2f} s", "targets 1 s / 10 s"),
)

HEADER = """\
# Measured

<!-- Generated by benchmarks/measured.py from benchmarks/results/*.json: do not edit. -->

Speed, memory and accuracy on a 2-core machine, by the scripts of `benchmarks/` (each
explained in [benchmarks/README.md](../benchmarks/README.md)), against the paper, the
reference implementation or the target. The machine is shared: each row says when it was
measured, at which commit and at which 1-minute load average (a loaded machine is slower).
The commands, machines and sources of the numbers are in `benchmarks/results/`.
"""

FOOTER = """\
The torus percentages with the paper's optimiser and every variance convention tried:
[variance_gap.md](variance_gap.md). To refresh a row, run its benchmark with `--record`
(benchmarks/README.md), then `uv run python benchmarks/measured.py`.
"""


def load_results(folder: Path = RESULTS) -> dict[str, dict]:
    """Every results file in ``folder``, by benchmark name."""
    return {path.stem: json.loads(path.read_text(encoding="utf-8"))
            for path in sorted(folder.glob("*.json"))}


def _when(case: dict) -> str:
    day = date.fromisoformat(case["date"])
    if case["load"] is None:  # numbers carried over from before they were recorded
        load = "load not recorded"
    else:
        low, high = case["load"]
        load = f"load {low:g}" if low == high else f"load {low:g}–{high:g}"
    return f"{day.day} {day:%b %Y}, {case['commit']}, {load}"


def render(results: dict[str, dict]) -> str:
    """The page for ``results``; a row whose case or value is missing raises ``KeyError``
    naming it."""
    lines = [HEADER, "| | ours | paper / reference / target | measured |",
             "|---|---|---|---|"]
    for row in ROWS:
        try:
            case = results[row.benchmark]["cases"][row.case]
            cells = [text.format(**case["values"]) for text in (row.what, row.ours,
                                                                  row.reference)]
        except KeyError as missing:
            raise KeyError(f"{row.benchmark} {row.case}: no recorded {missing}") from None
        lines.append("| " + " | ".join([*cells, _when(case)]) + " |")
    return "\n".join(lines) + "\n\n" + FOOTER


def unshown_cases(results: dict[str, dict]) -> list[str]:
    """Recorded cases no row shows."""
    shown = {(row.benchmark, row.case) for row in ROWS}
    return [f"{benchmark} {case}" for benchmark, recorded in results.items()
            for case in recorded["cases"] if (benchmark, case) not in shown]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write: exit 1 if docs/measured.md is not up to date")
    args = parser.parse_args(argv)
    page = render(load_results())
    if args.check:
        if PAGE.read_text(encoding="utf-8") != page:
            print(f"{PAGE} is out of date: run python benchmarks/measured.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
