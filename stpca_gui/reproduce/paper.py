"""The published numbers of the ST-PCA paper that ``stpca reproduce`` checks, with where each
one is printed, and the rule that marks ours as agreeing with it or not.

A printed value carries its rounding: 1.81 stands for [1.805, 1.815]. Ours *agrees* when it
lies within that rounding plus a stated tolerance (sampling noise measured over seeds or
subsamples, never a tolerance chosen to make a number pass); otherwise it *differs*, and the
report says why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Published:
    """One number as the paper prints it.

    Attributes
    ----------
    text : str
        The number exactly as printed (``"0.0855"``, ``"9.522e-9"``).
    where : str
        Section, table or figure of the paper.
    """

    text: str
    where: str
    #: Decimals of the column a number is printed in when the number itself shows none (a
    #: p-value "0" among four-decimal p-values stands for [0, 0.00005)); None: as printed.
    decimals: int | None = None

    @property
    def value(self) -> float:
        return float(self.text)

    @property
    def rounding(self) -> float:
        """Half a unit of the last printed digit."""
        if self.decimals is not None:
            return 0.5 * 10.0 ** -self.decimals
        mantissa = self.text.lower().split("e")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        exponent = int(self.text.lower().split("e")[1]) if "e" in self.text.lower() else 0
        return 0.5 * 10.0 ** (exponent - decimals)


def agrees(ours: float, paper: Published, tolerance: float = 0.0) -> bool:
    """Whether ``ours`` lies within the paper's rounding plus ``tolerance`` of its value."""
    if not math.isfinite(ours):
        return False
    return abs(ours - paper.value) <= paper.rounding + tolerance + 1e-12


def verdict(ours: float, paper: Published, tolerance: float = 0.0, *,
            why_agrees: str = "", why_differs: str = "") -> str:
    """The report's verdict cell: "agrees" or "**differs**", each with its reason."""
    if agrees(ours, paper, tolerance):
        return "agrees" + (f": {why_agrees}" if why_agrees else "")
    return "**differs**" + (f": {why_differs}" if why_differs else "")


def _p(text: str, where: str, decimals: int | None = None) -> Published:
    return Published(text, where, decimals)


#: The two ways the report runs every fit: our converged optimiser, and the paper's procedure
#: (R optim BFGS at reltol 5e-2 started at classical MDS and at r* as the paper computed it).
PROCEDURES: dict[str, dict[str, str]] = {
    "converged": {"optimizer": "lbfgs"},
    "paper's procedure": {"optimizer": "paper", "initial_radius": "paper"},
}
#: Simulated data sets the paper averaged per simulation (§3.1).
PAPER_RUNS = 50

#: Section 4 (simulations), per demo: r*, r̂, stress (§3.1, mean of 50 runs), SMDS time (§3.1,
#: seconds), torus % of PC1 (and PC2 on T³).
SIMULATIONS: dict[str, dict[str, Published]] = {
    "clusters-t2": {
        "r*": _p("1.47", "§4.1"), "r̂": _p("1.35", "§4.1"), "stress": _p("0.068", "§3.1"),
        "time": _p("6.45", "§3.1"), "torus PC1": _p("95", "§4.1"),
    },
    "clusters-t3": {
        "r*": _p("1.79", "§4.2"), "r̂": _p("1.63", "§4.2"), "stress": _p("0.064", "§3.1"),
        "time": _p("7.28", "§3.1"), "torus PC1": _p("94", "§4.2"), "torus PC2": _p("1", "§4.2"),
    },
    "wrapped-normal-t2": {
        "r*": _p("1.48", "§4.3"), "r̂": _p("1.39", "§4.3"), "stress": _p("0.159", "§3.1"),
        "time": _p("30.93", "§3.1"), "torus PC1": _p("89", "§4.3"),
    },
}

#: §3.1: the MDS-Q (smacofSphere) runs the paper compared its optimiser with: primal and dual
#: time (s) and stress, per demo.
MDS_Q: dict[str, dict[str, Published]] = {
    "clusters-t2": {"primal time": _p("14.29", "§3.1"), "primal stress": _p("0.479", "§3.1"),
                    "dual time": _p("2.16", "§3.1"), "dual stress": _p("1.076", "§3.1")},
    "clusters-t3": {"primal time": _p("75.02", "§3.1"), "primal stress": _p("1.23", "§3.1"),
                    "dual time": _p("2.6", "§3.1"), "dual stress": _p("1.753", "§3.1")},
    "wrapped-normal-t2": {"primal time": _p("14.65", "§3.1"), "primal stress": _p("0.645", "§3.1"),
                          "dual time": _p("2.19", "§3.1"), "dual stress": _p("0.691", "§3.1")},
}

#: §5.1: the sunspots fit on all 5371 lagged triples.
SUNSPOTS_RADIUS = _p("1.81", "§5.1")
#: §5.1: 1 − R² of the linear fit to the principal curve's 100 points.
SUNSPOTS_CURVE_1_MINUS_R2 = _p("3e-5", "§5.1")

#: Table ``table:uniformity`` (§5.1): p-values of Giné's F_n, Watson's U² and PAD.
UNIFORMITY_TESTS = ("Gine_Fn", "Watson", "PAD")
UNIFORMITY: dict[str, dict[str, Published]] = {
    "longitudes": {"Gine_Fn": _p("0.3215", "Table 1"), "Watson": _p("0.3595", "Table 1"),
                   "PAD": _p("0.7554", "Table 1")},
    "ST-PCA": {"Gine_Fn": _p("0.0855", "Table 1"), "Watson": _p("0.1843", "Table 1"),
               "PAD": _p("0.1273", "Table 1")},
    # Table 1 prints p-values to four decimals: its "0" is below 0.00005.
    "T-PCA (SO)": {"Gine_Fn": _p("0", "Table 1", 4), "Watson": _p("0", "Table 1", 4),
                   "PAD": _p("0", "Table 1", 4)},
    "T-PCA (SI)": {"Gine_Fn": _p("0", "Table 1", 4), "Watson": _p("0", "Table 1", 4),
                   "PAD": _p("9.522e-9", "Table 1")},
}

#: Table ``table:var_explained`` (§5.1): % variance of components 1–3 on a 1000-point
#: subsample of the sunspots triples. The first five are standard PCA variances of their
#: representation, T-PCA and ST-PCA torus variances (§3.5).
METHODS: dict[str, tuple[Published, Published, Published]] = {
    name: tuple(_p(v, "Table 2") for v in values)  # type: ignore[misc]
    for name, values in {
        "dPCA": ("38.48", "34.06", "7.67"),
        "dPCA+": ("42.69", "30.53", "26.78"),
        "aPCA": ("43.27", "31.28", "25.45"),
        "Euclidean PCA": ("55.43", "24.48", "20.09"),
        "complex dPCA": ("72.51", "14.59", "12.90"),
        "T-PCA (SI)": ("88.27", "6.97", "4.76"),
        "T-PCA (SO)": ("89.32", "6.43", "4.25"),
        "ST-PCA": ("90.51", "3.07", "6.40"),
    }.items()
}
#: §5.1: upper bounds for GeoPCA's first two components (no software reports its variance).
GEOPCA_BOUNDS = (_p("73.54", "§5.1"), _p("26.46", "§5.1"))

#: §5.2, the small RNA data set (190 nucleotides, fitted on T⁷): ST-PCA's r̂, and per method
#: the classification rate of the PNS1 mode clusters against the clusters I / II / V, the
#: misclassified points the paper gives with it, and the clusters the modes reveal.
RNA_RADIUS = _p("1.49", "§5.2")
RNA_METHODS = ("T-PCA (SI)", "T-PCA (SO)", "ST-PCA")
RNA_RATES: dict[str, Published] = {"T-PCA (SI)": _p("0.447", "§5.2"),
                                   "T-PCA (SO)": _p("0.879", "§5.2"),
                                   "ST-PCA": _p("0.916", "§5.2")}
RNA_MISCLASSIFIED = {"T-PCA (SI)": 105, "T-PCA (SO)": 23, "ST-PCA": 16}
#: "recognizing two clusters, as well as three ill-defined" (SI: five domains of attraction),
#: "correctly recognizes all three clusters" (SO), "also reveals three clusters" (ST-PCA).
RNA_CLUSTERS: dict[str, Published] = {"T-PCA (SI)": _p("5", "§5.2"),
                                      "T-PCA (SO)": _p("3", "§5.2"),
                                      "ST-PCA": _p("3", "§5.2")}


def mean_verdict(values: np.ndarray, paper: Published, n_paper: int, *,
                 why_agrees: str = "", why_differs: str = "") -> str:
    """Our mean of ``values`` (one per simulated data set) against the paper's mean of
    ``n_paper`` runs: agrees within the rounding plus two standard errors of the difference
    of the two means (the paper's spread taken equal to ours)."""
    values = np.asarray(values, dtype=np.float64)
    sd = float(np.std(values, ddof=1)) if values.size > 1 else 0.0
    noise = 2.0 * sd * math.sqrt(1.0 / values.size + 1.0 / n_paper)
    return verdict(float(np.mean(values)), paper, noise,
                   why_agrees=why_agrees or f"within 2 standard errors ({noise:.2g})",
                   why_differs=why_differs)


def single_draw_verdict(values: np.ndarray, paper: Published, *, why_agrees: str = "",
                        why_differs: str = "") -> str:
    """Our mean of ``values`` (one per simulated data set) against a number the paper gives
    for *one* data set ("for this specific dataset"): agrees within the rounding plus two
    standard deviations of a single draw about our mean, 2 sd √(1 + 1/n) (the prediction
    interval of one new data set)."""
    values = np.asarray(values, dtype=np.float64)
    sd = float(np.std(values, ddof=1)) if values.size > 1 else 0.0
    noise = 2.0 * sd * math.sqrt(1.0 + 1.0 / values.size)
    return verdict(float(np.mean(values)), paper, noise,
                   why_agrees=why_agrees or f"one data set, within 2 sd of a single draw "
                                            f"({noise:.2g})",
                   why_differs=why_differs)


def quantile_of(paper: Published, values: np.ndarray) -> float:
    """Share of ``values`` (e.g. one statistic over many subsamples) below the paper's
    value, ties counted half: where the paper's number falls in our sampling distribution."""
    values = np.asarray(values, dtype=np.float64)
    below = np.count_nonzero(values < paper.value)
    equal = np.count_nonzero(values == paper.value)
    return float((below + 0.5 * equal) / values.size)


def sampling_verdict(paper: Published, values: np.ndarray, what: str) -> str:
    """Whether the paper's value is a plausible draw of our statistic over ``what`` (e.g.
    "200 subsamples", held in ``values``): "agrees" when the two-sided tail probability
    2 min(q, 1 − q) of its quantile q is at least 5 %, flagged "in the tail" below 10 %."""
    q = quantile_of(paper, values)
    tail = 2.0 * min(q, 1.0 - q)
    where = f"paper at the {100 * q:.1f} % quantile of {what}"
    if tail >= 0.10:
        return f"agrees ({where})"
    if tail >= 0.05:
        return f"agrees, in the tail ({where}; two-sided {tail:.2f})"
    return f"**differs** ({where}: beyond sampling noise)"
