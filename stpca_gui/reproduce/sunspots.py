"""Section 5.1 of the paper: the sunspots longitudes of cycle 23, lagged into T³."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..core import ScaledTorusPCA, lagged_embedding, run_baselines
from ..core.landmark_accuracy import compare_to_exact
from ..core.landmarks import LANDMARK_METHODS
from ..core.modes import periodic_mode_clusters
from ..core.series import diagonal_fit
from ..core.torus import wrap_angles
from ..core.uniformity import uniformity_tests
from ..datasets import PAPER_CYCLE, load_sunspots
from ..io.tables import read_angle_table
from ..plotting.histogram import ScoreHistogram
from ..plotting.scores import ScoresScatter
from .report import Report, percent

#: Paper, section 5.1: % variance of PC1 on a 1000-point subsample of the sunspots series.
PAPER_METHODS = {"ST-PCA": "90.51 / 3.07 / 6.40", "T-PCA (SO)": "89.32",
                 "complex dPCA": "72.51", "Euclidean PCA": "55.43", "aPCA": "43.27",
                 "dPCA+": "42.69", "dPCA": "38.48"}
#: Paper p-values (Giné / Watson / PAD).
PAPER_UNIFORMITY = {"longitudes": (0.3215, 0.3595, 0.7554), "ST-PCA PNS1": (0.0855, 0.1843,
                                                                            0.1273)}
PAPER_SUNSPOTS_RADIUS = 1.81
SUBSAMPLE_SIZE = 1000
#: Landmarks of the landmark-vs-exact comparison: the issue's m = 1000 on the whole series,
#: and a quarter of the subsample with --quick.
LANDMARKS_FULL = 1000
LANDMARKS_QUICK = 250
SUBSAMPLE_SEED = 0


def curve_diagonal_fit(curve: NDArray[np.float64]) -> list[tuple[float, float]]:
    """(slope, R²) of each unwrapped curve coordinate k ≥ 2 regressed on coordinate 1
    (:func:`~stpca_gui.core.series.diagonal_fit`)."""
    return [(slope, r2) for slope, _, r2 in diagonal_fit(curve)]


def paper_cycle_longitudes(path: Path | None = None) -> NDArray[np.float64]:
    """Sunspot longitudes of the paper's cycle (23) in date order, wrapped to [-π, π).

    Parameters
    ----------
    path : Path, optional
        A sunspots_births CSV (columns ``cycle`` and ``theta``) to read instead of the
        bundled data set; both give the same values for rotasym's table.
    """
    if path is None:
        return wrap_angles(load_sunspots(cycle=PAPER_CYCLE).theta)
    table = read_angle_table(path, ["theta"], row_filter=("cycle", str(PAPER_CYCLE)))
    return table.angles[:, 0]


def sunspots_section(report: Report, path: Path | None, quick: bool) -> None:
    report.add(f"## 2. Sunspots, cycle {PAPER_CYCLE}, lag 3 (paper section 5.1)", "")
    theta = paper_cycle_longitudes(path)
    series = lagged_embedding(theta, 3)
    rng = np.random.default_rng(SUBSAMPLE_SEED)
    subsample = np.sort(rng.choice(len(series), SUBSAMPLE_SIZE, replace=False))
    sub = series[subsample]

    start = time.perf_counter()
    sub_fit = ScaledTorusPCA(random_state=0).fit(sub)
    sub_time = time.perf_counter() - start
    baselines = run_baselines(sub)
    rows = [["ST-PCA", percent(sub_fit.explained_variance_ratio_),
             percent(sub_fit.torus_explained_variance_ratio_), PAPER_METHODS["ST-PCA"]],
            ["T-PCA (SO)", "not implemented yet", "", PAPER_METHODS["T-PCA (SO)"]]]
    for name, result in baselines.items():
        rows.append([name, percent(result.explained_variance_ratio), "",
                     PAPER_METHODS.get(name, "")])
    report.add(f"### Method comparison on a seeded {SUBSAMPLE_SIZE}-point subsample "
               f"(numpy seed {SUBSAMPLE_SEED}; ST-PCA fit {sub_time:.1f} s)", "")
    report.table(["method", "% variance PC1 / PC2 / PC3", "ST-PCA torus %", "paper"], rows)
    report.add("aPCA and dPCA+ depend on where each angle's cut falls; on these nearly "
               "uniform marginals that is sampling noise (sd ≈ 5 points over subsamples), "
               "and the paper's subsample is unknown. dPCA, complex dPCA and Euclidean PCA "
               "agree with the paper within sampling error.", "")

    if quick:
        full, full_time = sub_fit, sub_time
        label = f"subsample n = {SUBSAMPLE_SIZE} (--quick)"
    else:
        start = time.perf_counter()
        full = ScaledTorusPCA(random_state=0, n_landmarks="exact").fit(series)
        full_time = time.perf_counter() - start
        label = f"all n = {len(series)}"
    fits = curve_diagonal_fit(full.principal_curve_.angles)
    report.add(f"### Full fit ({label})", "")
    report.table(["quantity", "ours", "paper"], [
        ["r̂", f"{full.radius_:.3f}", f"{PAPER_SUNSPOTS_RADIUS}"],
        ["stress", f"{full.stress_:.4f}", "—"],
        ["sphere % per PC", percent(full.explained_variance_ratio_), "—"],
        ["torus % per PC", percent(full.torus_explained_variance_ratio_), "—"],
        ["PNS sphere types", ", ".join(full.pns_.sphere_types_), "—"],
        ["principal curve vs diagonal, 1 − R² (θ2, θ3 on θ1)",
         " / ".join(f"{1 - r2:.1e}" for _, r2 in fits), "3e-5"],
        ["curve slopes", " / ".join(f"{s:.4f}" for s, _ in fits), "1 (diagonal)"],
        ["time (s)", f"{full_time:.1f} ("
         + ", ".join(f"{k} {v:.1f}" for k, v in full.timings_.items()) + ")", "—"],
    ])

    _landmark_comparison(report, full, full.angles_,
                         LANDMARKS_QUICK if quick else LANDMARKS_FULL)

    radius = float(full.pns_.circle_radius_)
    pns1_angle = full.scores_[:, 0] / radius
    clusters = periodic_mode_clusters(full.scores_[:, 0], period=2 * np.pi * radius)
    report.add(f"PNS1 mode clustering: {len(clusters.modes)} mode(s) (bandwidth "
               f"{clusters.bandwidth:.3g}); the paper found no cluster structure in ST-PCA's "
               "scores, while T-PCA's showed spurious clusters.", "")
    report.figure("sunspots_scores.png", lambda fig: ScoresScatter(fig).draw(
        full.scores_, 0, 1, title="Sunspots: ST-PCA scores"), "ST-PCA scores PNS1–PNS2")
    report.figure("sunspots_pns1.png", lambda fig: (
        (h := ScoreHistogram(fig)).draw(full.scores_[:, 0], 2 * np.pi * radius,
                                        bandwidth=clusters.bandwidth),
        h.set_antimodes(clusters.antimodes if len(clusters.modes) > 1 else [])),
        "PNS1 histogram with the periodic KDE (hpi bandwidth) and antimodes")

    rows = []
    for name, values in (("longitudes", theta), ("ST-PCA PNS1", pns1_angle)):
        tests = uniformity_tests(values)
        paper = PAPER_UNIFORMITY[name]
        rows.append([f"{name} (n = {len(values)})",
                     f"{tests['Gine_Fn'].p_value:.4f} ({paper[0]})",
                     f"{tests['Watson'].p_value:.4f} ({paper[1]})",
                     f"{tests['PAD'].p_value:.4f} ({paper[2]})"])
    report.add("### Uniformity tests (asymptotic p-values; paper in parentheses)", "")
    report.table(["sample", "Giné F_n", "Watson U²", "PAD"], rows)


def _landmark_comparison(
    report: Report, exact: ScaledTorusPCA, angles: np.ndarray, n_landmarks: int
) -> None:
    """Landmark fits of the same series against the exact fit, one per landmark rule."""
    rows = []
    for method in LANDMARK_METHODS:
        start = time.perf_counter()
        fitted = ScaledTorusPCA(random_state=0, n_landmarks=n_landmarks,
                                landmark_method=method).fit(angles)
        accuracy = compare_to_exact(exact, fitted, time.perf_counter() - start)
        rows.append([method, f"{accuracy.score_agreement:.5f}",
                     f"{accuracy.pc1_difference:.2f}",
                     f"{100 * (accuracy.stress_ratio - 1):+.2f} %",
                     f"{accuracy.seconds:.1f}"])
    report.add(f"### Landmark fits (m = {n_landmarks}) against the exact fit", "")
    report.table(["landmark rule", "PNS1 agreement (≥ 0.99)", "Δ PC1 % points (≤ 1)",
                  "all-pairs stress vs exact (≤ 2 %)", "time (s)"], rows)


