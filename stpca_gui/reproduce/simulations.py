"""Section 4 of the paper (and the stresses and timings of §3.1): the three simulations,
fitted by our converged optimiser and by the paper's procedure, each number set against the
paper's.

The noise model follows what the paper printed: r*, r̂ and the torus percentages of §4 are
given "for this specific dataset", one draw, so ours (a mean over data seeds) agrees within
two standard deviations of a single draw; only the stresses and times of §3.1 are means of
50 runs, so they agree within two standard errors of the difference of two means.
"""

from __future__ import annotations

import numpy as np

from ..core import ScaledTorusPCA
from .fits import ReportFits
from .paper import (
    MDS_Q,
    PAPER_RUNS,
    PROCEDURES,
    SIMULATIONS,
    mean_verdict,
    single_draw_verdict,
    verdict,
)
from .report import Report

SECTION = "Simulations (§4)"
#: The stresses and times of the simulations are printed in §3.1 (the paper's l.244).
TIMING_SECTION = "Simulations (§3.1)"
#: Quantities that the paper gives as means over its 50 data sets (§3.1); the others are
#: one data set's values.
MEAN_OF_RUNS = ("stress", "time")


def _r_star_verdict(procedure: str, ours: float, paper_value) -> str:
    if procedure == "converged":
        return verdict(ours, paper_value, why_differs=(
            "our r* is the exact minimiser of eq. (wasser) with uniform sphere points; the "
            "paper's sphere points had uniform hyperspherical angles (docs/radius.md)"))
    # The reconstruction's Monte Carlo sd (over seeds of eq. wasser) is 0.0023 on T², 0.0034
    # on T³ (docs/radius.md): the paper's own estimate carries the same noise.
    return verdict(ours, paper_value, 2 * 0.0034, why_agrees=(
        "r* with uniform hyperspherical angles, within 2 Monte Carlo sd (0.0034) of r*"))


def _demo_rows(report: Report, fits: ReportFits, name: str, seeds: list[int]
               ) -> list[list[str]]:
    paper = SIMULATIONS[name]
    by_procedure = {label: [fits.demo(name, seed, label) for seed in seeds]
                    for label in PROCEDURES}
    rows: list[list[str]] = []
    quantities = ["r*", "r̂", "stress", "torus PC1"] + (["torus PC2"] if "torus PC2" in paper
                                                         else [])
    for quantity in quantities:
        row = [quantity]
        for label, fits in by_procedure.items():
            if quantity == "r*":
                values = np.array([fits[0].smds_.initial_radius_])
                text, cell = f"{values[0]:.3f}", _r_star_verdict(label, values[0], paper["r*"])
            else:
                values = np.array([_quantity(f, quantity) for f in fits])
                text = _mean_text(values, quantity)
                why = _why_differs(quantity, label)
                cell = (mean_verdict(values, paper[quantity], PAPER_RUNS, why_differs=why)
                        if quantity in MEAN_OF_RUNS else
                        single_draw_verdict(values, paper[quantity], why_differs=why))
            section = TIMING_SECTION if quantity in MEAN_OF_RUNS else SECTION
            report.check(section, f"{name} {quantity} ({label})", text, paper[quantity].text,
                         cell)
            row += [text, cell]
        rows.append([*row, paper[quantity].text])
    times = {label: np.mean([f.timings_["smds"] for f in fits])
             for label, fits in by_procedure.items()}
    row = ["time (s), SMDS (§3.1)"]
    for label in PROCEDURES:
        row += [f"{times[label]:.2f}", "differs (expected: implementation and machine, "
                "see below)"]
        report.check(TIMING_SECTION, f"{name} time ({label})", f"{times[label]:.2f}",
                     paper["time"].text, "differs (expected: implementation and machine)")
    rows.append([*row, paper["time"].text])
    return rows


def _quantity(fit: ScaledTorusPCA, quantity: str) -> float:
    if quantity == "r̂":
        return float(fit.radius_)
    if quantity == "stress":
        return float(fit.stress_)
    component = 0 if quantity == "torus PC1" else 1
    return 100.0 * float(fit.torus_explained_variance_ratio_[component])


def _mean_text(values: np.ndarray, quantity: str) -> str:
    digits = {"r̂": 3, "stress": 4}.get(quantity, 1)
    spread = f" ± {np.std(values, ddof=1):.{digits}f}" if values.size > 1 else ""
    return f"{np.mean(values):.{digits}f}{spread}"


def _why_differs(quantity: str, procedure: str) -> str:
    if quantity in ("r̂", "stress") and procedure == "converged":
        return "the converged optimiser goes on where R optim stopped at reltol 5e-2"
    if quantity.startswith("torus"):
        return "see section 4, the explained-variance gap"
    if quantity == "stress":
        return ("the stress grows with the clusters' sd, which the paper does not state; "
                "section 4 gives the sd at which ours matches the paper's")
    return "beyond the noise of the simulated data"


def simulations_section(report: Report, fits: ReportFits, seeds: list[int]) -> None:
    """Append the simulations section: every number of §4 (and §3.1's timings) per demo."""
    report.add(
        "## 1. Simulations (paper §4; stresses and times of §3.1)", "",
        f"Data seeds {seeds[0]}–{seeds[-1]} ({len(seeds)} data sets per demo); model seed 0. "
        "*Converged*: our L-BFGS optimiser from r* of eq. (wasser). *Paper's procedure*: R "
        "`optim` BFGS at reltol 5e-2 (ported exactly), started at classical MDS and at r* as "
        "the paper computed it. Means ± sd over the data sets. The paper prints two kinds of "
        "numbers. r*, r̂ and the torus % (§4) are for one data set (\"for this specific "
        "dataset\"): ours *agrees* when it is within the paper's rounding plus two sd of a "
        "single draw about our mean, 2 sd √(1 + 1/n). The stresses and times (§3.1, l.244) "
        f"are means over {PAPER_RUNS} data sets: ours *agrees* within the rounding plus two "
        "standard errors of the difference of the two means. The cluster sd (0.3) is not "
        "stated in the paper (section 4 shows what it changes).", "")
    for name in SIMULATIONS:
        report.add(f"### {name}", "")
        report.table(["quantity", "converged", "verdict", "paper's procedure", "verdict",
                      "paper"], _demo_rows(report, fits, name, seeds))
    report.add(
        "The paper's r* values are consistent with a reconstruction, not a reproduction: "
        "drawing the sphere points of eq. (wasser) with uniform hyperspherical angles gives "
        "1.474 (T²) and 1.791 (T³), which round to the printed 1.47 / 1.48 and 1.79 within the "
        "Monte Carlo noise; the exact r* is 1.515 and 1.886 (docs/radius.md), and at d = 7 "
        "the reconstruction gives the start from which the paper's procedure reaches the "
        "RNA r̂ (section 3). The paper's "
        "procedure stops after one or two BFGS steps and reaches the published r̂ and "
        "stress; the converged optimiser reaches 4–13× lower stress. Times: the paper's "
        "(§3.1) are its SMDS optimisation including the initialisation of r by eq. "
        "(wasser), averaged over 50 data sets; ours are the SMDS stage of the fit (r* is "
        "computed once per process and reused), with compiled kernels and analytic "
        "gradients on another machine, so they are not comparable.", "")
    _mds_q_rows(report)


def _mds_q_rows(report: Report) -> None:
    rows = []
    for name, values in MDS_Q.items():
        for quantity, paper in values.items():
            rows.append(report.check(
                SECTION, f"{name} MDS-Q {quantity}", "not run", paper.text,
                "not reproduced: R smacof's smacofSphere (MDS-Q) is not implemented here; "
                "the paper used it only as a comparison for its optimiser"))
    report.add("The paper's MDS-Q comparison (§3.1):", "")
    report.table(["quantity", "ours", "paper", "verdict"], rows)
