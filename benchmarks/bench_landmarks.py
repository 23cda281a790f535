"""Landmark ST-PCA at scale: accuracy against the exact fit, and the large-n targets.

Cases (each in a fresh subprocess, so that its peak RSS is its own):

``accuracy``
    Sunspots cycle 23, lag 3 (n = 5371): the exact fit, then m = 1000 landmark fits with
    every landmark rule, measured by :func:`stpca_gui.core.landmark_accuracy.compare_to_exact`.
    Targets: PNS1 agreement ≥ 0.99, PC1 within 1 point, all-pairs stress within 2 %.
``peptide-t66``
    A synthetic 3-state peptide on T⁶⁶ (one row per frame), n = 3000: the exact fit, then
    the default fit, which past ``auto_exact_max_n(66)`` = 1954 samples uses m = 1000
    landmarks (no torus variance in either: it is not what differs). Same measures and
    targets as ``accuracy``, with both fits' CPU seconds.
``t4-200k``
    n = 200,000 on T⁴: three wrapped-normal clusters plus 10 % uniform background, default
    settings (``n_landmarks="auto"``). Targets ≤ 60 s, peak RSS ≤ 3 GB, PNS1 keeps the
    clusters apart.
``t4-1m``
    The same data with n = 10⁶. Targets: ≤ 5 min, peak RSS ≤ 4 GB.
``sunspots-all``
    All 51,303 sunspot births as one lag-3 series (n = 51,301), default settings.
    Target ≤ 60 s.

Usage::

    uv run python benchmarks/bench_landmarks.py                 # every case
    uv run python benchmarks/bench_landmarks.py --case t4-200k  # one case
    uv run python benchmarks/bench_landmarks.py --json results.json
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as common
from _common import fmt

MARKER = "BENCH_LANDMARKS_RESULT "
CASES = ("accuracy", "peptide-t66", "t4-200k", "t4-1m", "sunspots-all")
TIMEOUTS_S = {"accuracy": 900, "peptide-t66": 1200, "t4-200k": 900, "t4-1m": 1800,
              "sunspots-all": 900}
#: The cases that measure landmark fits against the exact fit, with their titles.
ACCURACY_CASES = {"accuracy": "sunspots cycle 23 lag 3 (n = 5371, T³)",
                  "peptide-t66": "synthetic 3-state peptide (n = 3000, T⁶⁶), default rule"}
PEPTIDE_N, PEPTIDE_D = 3000, 66
#: Cluster centres on T⁴ (radians) of the synthetic cases.
T4_MEANS = np.array([[-1.0, -2.0, 0.0, 1.0], [1.0, 1.0, -1.0, 2.5], [0.0, -1.0, 3.0, -2.0]])
T4_SD = 0.3
T4_BACKGROUND = 0.10
log = common.make_logger("bench_landmarks")


def t4_clusters(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Three wrapped-normal clusters plus a uniform background on T⁴, and the labels
    (0, 1, 2; −1 for the background)."""
    rng = np.random.default_rng(seed)
    n_background = round(T4_BACKGROUND * n)
    labels = np.concatenate([rng.integers(0, 3, n - n_background),
                             np.full(n_background, -1)])
    angles = np.empty((n, 4))
    clustered = labels >= 0
    angles[clustered] = T4_MEANS[labels[clustered]] + rng.normal(
        0.0, T4_SD, (int(clustered.sum()), 4))
    angles[~clustered] = rng.uniform(-np.pi, np.pi, (n_background, 4))
    return (angles + np.pi) % (2 * np.pi) - np.pi, labels


def cluster_separation(scores: np.ndarray, circle_radius: float,
                       labels: np.ndarray) -> dict[str, Any]:
    """How well PNS1 alone keeps the clusters apart: each clustered point is assigned to
    the cluster whose circular median PNS1 angle is nearest; the share assigned to its own
    cluster (1/3 by chance)."""
    phi = scores[:, 0] / circle_radius
    centres = []
    for k in range(3):
        members = phi[labels == k]
        centres.append(float(np.angle(np.mean(np.exp(1j * members)))))
    clustered = labels >= 0
    gaps = np.abs(np.angle(np.exp(1j * (phi[clustered, None] - np.array(centres)[None, :]))))
    assigned = np.argmin(gaps, axis=1)
    accuracy = float(np.mean(assigned == labels[clustered]))
    spread = [float(np.sqrt(-2 * np.log(abs(np.mean(np.exp(1j * phi[labels == k]))))))
              for k in range(3)]
    return {"cluster_centres_rad": centres, "cluster_sd_rad": spread,
            "own_cluster_share": accuracy}


def _fit(angles: np.ndarray, **params: Any) -> tuple[Any, float]:
    model, seconds, _ = _timed_fit(angles, **params)
    return model, seconds


def _timed_fit(angles: np.ndarray, **params: Any) -> tuple[Any, float, float]:
    """The fitted model, its wall and CPU seconds."""
    from stpca_gui.core import ScaledTorusPCA

    start, cpu = time.perf_counter(), time.process_time()
    model = ScaledTorusPCA(random_state=0, **params).fit(angles)
    return model, time.perf_counter() - start, time.process_time() - cpu


def _model_facts(model: Any, seconds: float) -> dict[str, Any]:
    return {
        "seconds": seconds,
        "n": int(model.angles_.shape[0]),
        "n_landmarks": int(model.n_landmarks_),
        "stress_landmarks": float(model.stress_),
        "stress_all_pairs": float(model.all_pairs_stress_),
        "radius": float(model.radius_),
        "pc1_percent": 100 * float(model.explained_variance_ratio_[0]),
        "torus_pc1_percent": (100 * float(model.torus_explained_variance_ratio_[0])
                              if model.torus_variance else float("nan")),
        "sphere_types": list(model.pns_.sphere_types_),
        "timings": {k: float(v) for k, v in model.timings_.items()},
    }


def child(case: str) -> dict[str, Any]:
    from stpca_gui.core import lagged_embedding
    from stpca_gui.core.landmark_accuracy import compare_to_exact
    from stpca_gui.core.smds.landmarks import LANDMARK_METHODS
    from stpca_gui.datasets import load_sunspots

    warm, _ = t4_clusters(2000)
    _fit(warm, n_landmarks=200)  # compile the kernels outside the timed fit
    baseline = common.peak_rss_mb()
    if case == "accuracy":
        series, _ = common.sunspots_series()
        exact, exact_s = _fit(series, n_landmarks="exact")
        rows = []
        for method in LANDMARK_METHODS:
            fitted, seconds = _fit(series, n_landmarks=1000, landmark_method=method)
            accuracy = compare_to_exact(exact, fitted, seconds)
            rows.append({**accuracy.__dict__, "timings": dict(fitted.timings_)})
        result = {"exact": _model_facts(exact, exact_s), "landmark_fits": rows}
    elif case == "peptide-t66":
        from stpca_gui.core.torsion_states import make_torsion_states

        angles = make_torsion_states(PEPTIDE_N, PEPTIDE_D, random_state=0).angles
        exact, exact_s, exact_cpu = _timed_fit(angles, n_landmarks="exact",
                                               torus_variance=False)
        fitted, seconds, cpu = _timed_fit(angles, torus_variance=False)
        accuracy = compare_to_exact(exact, fitted, seconds)
        result = {"exact": {**_model_facts(exact, exact_s), "cpu_s": exact_cpu},
                  "landmark_fits": [{**accuracy.__dict__, "timings": dict(fitted.timings_),
                                     "cpu_s": cpu}]}
    elif case in ("t4-200k", "t4-1m"):
        angles, labels = t4_clusters(200_000 if case == "t4-200k" else 1_000_000)
        model, seconds = _fit(angles)
        result = {**_model_facts(model, seconds),
                  **cluster_separation(model.scores_, model.pns_.circle_radius_, labels)}
    elif case == "sunspots-all":
        series = lagged_embedding(load_sunspots().theta, 3)
        model, seconds = _fit(series)
        result = _model_facts(model, seconds)
    else:
        raise SystemExit(f"unknown case {case!r}")
    return {**result, "rss_before_mb": baseline, "peak_rss_mb": common.peak_rss_mb()}


TARGETS = {"t4-200k": (60.0, 3 * 1024), "t4-1m": (300.0, 4 * 1024), "sunspots-all": (60.0, None)}


def report(results: dict[str, dict[str, Any]]) -> str:
    lines = ["# Landmark ST-PCA benchmark", "", common.machine_report(common.machine_info()),
             f"Load average at the end: {common.load_average_text()}", ""]
    for case, title in ACCURACY_CASES.items():
        lines += _accuracy_report(results.get(case), title)
    rows = []
    for case in ("t4-200k", "t4-1m", "sunspots-all"):
        result = results.get(case)
        if not result:
            continue
        if "error" in result:
            rows.append([case, result["error"], "", "", "", "", ""])
            continue
        time_target, rss_target = TARGETS[case]
        ok = result["seconds"] <= time_target and (
            rss_target is None or result["peak_rss_mb"] <= rss_target)
        stages = ", ".join(f"{k} {v:.1f}" for k, v in result["timings"].items())
        separation = (f"{result['own_cluster_share']:.3f}" if "own_cluster_share" in result
                      else "—")
        rows.append([case, f"{result['n']:,} ({result['n_landmarks']:,} landmarks)",
                     fmt(result["seconds"], ".1f"), fmt(result["peak_rss_mb"], ".0f"),
                     separation, stages, common.pass_fail(ok)])
    if rows:
        lines += ["## Large fits (default settings)", "",
                  common.markdown_table(["case", "n", "time (s)", "peak RSS (MiB)",
                                  "PNS1 own-cluster share", "stages (s)", "targets"], rows),
                  ""]
    return "\n".join(lines)


def _accuracy_report(accuracy: dict[str, Any] | None, title: str) -> list[str]:
    """The section of one case measuring landmark fits against the exact fit."""
    if not accuracy:
        return []
    if "error" in accuracy:
        return [f"{title}: {accuracy['error']}", ""]
    exact = accuracy["exact"]
    cpu = f", {exact['cpu_s']:.1f} s CPU" if "cpu_s" in exact else ""
    lines = [f"## Landmarks (m = 1000) against the exact fit, {title}", "",
             f"Exact fit: {fmt(exact['seconds'], '.1f')} s{cpu}, all-pairs stress "
             f"{exact['stress_all_pairs']:.5f}, PC1 {exact['pc1_percent']:.2f} %.", ""]
    rows = []
    for row in accuracy["landmark_fits"]:
        ok = (row["score_agreement"] >= 0.99 and row["pc1_difference"] <= 1.0
              and row["stress_ratio"] <= 1.02)
        rows.append([row["method"], f"{row['score_agreement']:.5f}",
                     f"{row['pc1_difference']:.2f}",
                     f"{100 * (row['stress_ratio'] - 1):+.2f} %",
                     fmt(row["seconds"], ".1f")
                     + (f" ({row['cpu_s']:.1f} CPU)" if "cpu_s" in row else ""),
                     common.pass_fail(ok)])
    return [*lines, common.markdown_table(["rule", "PNS1 agreement", "Δ PC1 (points)",
                                           "all-pairs stress", "time (s)", "targets"], rows),
            ""]


def headline(results: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    """The numbers docs/measured.md shows (``--record``): the default landmark rule against
    the exact fit; each large fit's time and peak RSS."""
    from stpca_gui.core import ScaledTorusPCA

    recorded = {}
    for case, result in results.items():
        if "error" in result:
            continue
        if case in ACCURACY_CASES:
            default = ScaledTorusPCA().landmark_method
            row = next(r for r in result["landmark_fits"] if r["method"] == default)
            recorded[case] = {
                "score_agreement": row["score_agreement"],
                "pc1_difference": row["pc1_difference"],
                "stress_change_percent": 100 * (row["stress_ratio"] - 1),
                "landmark_s": row["seconds"], "exact_s": result["exact"]["seconds"]}
        else:
            recorded[case] = {"seconds": result["seconds"], "peak_rss_mib": result["peak_rss_mb"]}
    return recorded


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=CASES, action="append")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    common.add_record_option(parser)
    args = parser.parse_args()
    load_at_start = common.one_minute_load()
    if args.child:
        common.emit_child_result(MARKER, child(args.child))
        return 0
    results = {}
    for case in args.case or CASES:
        log(f"running {case} …")
        results[case] = common.run_child_process(__file__, case, MARKER, TIMEOUTS_S[case])
        log(f"{case}: {results[case].get('seconds', results[case].get('error', ''))}")
    print(report(results))
    return common.publish(args, __file__, results, lambda: headline(results),
                          load_at_start=load_at_start, log=log)


if __name__ == "__main__":
    raise SystemExit(main())
