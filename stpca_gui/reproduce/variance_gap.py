"""The explained-variance gap: why our torus percentages differ from the paper's, measured.

Three questions, each a table of the report (``docs/variance_gap.md`` has the write-up):

1. The clusters' sd, which the paper does not state: the torus and sphere percentages, r̂
   and the stress over a range of sd, and the sd each published number points to.
2. The conventions of :mod:`.variance_conventions` on the three simulations and the
   sunspots subsample, with the paper's optimiser and ours, marked against the paper.
3. How much the sunspots percentages move over other 1000-point subsamples (the paper's
   is unknown), and how often PC3 > PC2 under each convention.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
from numpy.typing import NDArray

from ..core import ScaledTorusPCA
from ..core.demos import CLUSTER_DEMOS, DEFAULT_CLUSTER_SD, SIMULATED_DEMO_NAMES
from ..core.smds.smds import OPTIMIZERS
from .fits import SUBSAMPLE_SEED, SUBSAMPLE_SIZE, ReportFits
from .paper import METHODS, SIMULATIONS, Published, agrees, verdict
from .report import Report
from .variance_conventions import CONVENTIONS, Convention, FitLevels, evaluate

#: The procedure (a key of PROCEDURES) behind each optimizer column: "paper" is the paper's
#: whole procedure (its optimizer and its r* as the start), as in sections 1 and 2.
PROCEDURE_OF: dict[str, str] = {"lbfgs": "converged", "paper": "paper's procedure"}

__all__ = ["Fits", "implied_sd", "sd_sweep", "variance_gap_section"]

#: Cluster sds of the sweep (radians), and of ``--quick``.
SD_GRID = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8)
QUICK_SD_GRID = (0.3, 0.5)
#: Data seeds per setting of the simulations (the paper's percentages are from one data set
#: each, so the spread over seeds is the noise of one published number).
SEEDS = tuple(range(10))
QUICK_SEEDS = (0,)
#: The 1000-point subsamples of the sunspots series (numpy seeds; seed 0 is the one of the
#: report's section 2), and with ``--quick``.
SUBSAMPLE_SEEDS = tuple(range(31))
QUICK_SUBSAMPLE_SEEDS = (0, 1)
#: Name of the sunspots column of the tables.
SUNSPOTS = "sunspots subsamples"
#: The paper averaged its stresses over this many simulated data sets (§3.1).
PAPER_STRESS_RUNS = 50
#: Tolerances are this many standard deviations of the sampling noise.
NOISE_SDS = 2.0
#: The conventions of the sd sweep: ours, the data at the top, and shapes' sphere percent.
SWEEP_KEYS = ("T-a", "T-b", "S-d")
#: A convention whose PC1 moves by more than this (sd over data sets, percentage points)
#: "agrees" with nearly anything: it is not counted as reproducing a number. Our own
#: conventions move by 0.1–0.9 points.
UNINFORMATIVE_SD = 2.0
#: The conventions whose verdicts against every published number are tabulated.
VERDICT_KEYS = ("T-a", "T-b", "T-fb", "S-d")


@dataclass(frozen=True)
class Fits:
    """The fits of one setting (several data sets): ratios per convention, r̂ and stress.

    Attributes
    ----------
    ratios : dict of str to ndarray, shape (m, d)
        Per convention key, each fit's ratios (PC1 first).
    radius, stress : ndarray, shape (m,)
    """

    ratios: dict[str, NDArray[np.float64]]
    radius: NDArray[np.float64]
    stress: NDArray[np.float64]

    @classmethod
    def of(cls, models: Iterable[ScaledTorusPCA],
           conventions: Sequence[Convention] = CONVENTIONS) -> Fits:
        """Summarise fitted models (one per data set) under ``conventions``."""
        ratios: dict[str, list[NDArray[np.float64]]] = {}
        radius, stress = [], []
        for model in models:
            for key, value in evaluate(FitLevels(model), conventions).items():
                ratios.setdefault(key, []).append(value)
            radius.append(model.radius_)
            stress.append(model.stress_)
        return cls({key: np.array(values) for key, values in ratios.items()},
                   np.array(radius), np.array(stress))

    def mean(self, key: str) -> NDArray[np.float64]:
        return self.ratios[key].mean(axis=0)

    def sd(self, key: str) -> NDArray[np.float64]:
        """Standard deviation of the ratios over the fits (0 for one fit)."""
        return _spread(self.ratios[key])


def _spread(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Sample standard deviation over the first axis; 0 for a single value."""
    values = np.asarray(values)
    return values.std(axis=0, ddof=1) if len(values) > 1 else np.zeros(values.shape[1:])


def _conventions(keys: Sequence[str]) -> list[Convention]:
    chosen = [c for c in CONVENTIONS if c.key in keys]
    return sorted(chosen, key=lambda c: keys.index(c.key))


def sd_sweep(fits: ReportFits, demos: Sequence[str], sds: Sequence[float],
             optimizers: Sequence[str], seeds: Sequence[int]
             ) -> dict[tuple[str, float, str], Fits]:
    """Fits of each clusters demo at each cluster sd with each optimizer, over data seeds."""
    conventions = _conventions(SWEEP_KEYS)
    return {(demo, sd, optimizer): Fits.of(
        (fits.demo(demo, seed, PROCEDURE_OF[optimizer], cluster_sd=sd) for seed in seeds),
        conventions)
        for demo in demos for sd in sds for optimizer in optimizers}


def implied_sd(sds: Sequence[float], values: Sequence[float], target: float) -> float | None:
    """The sd at which ``values`` (one per sd of the grid) reach ``target``, by linear
    interpolation in the first bracketing interval; None when no interval brackets it."""
    for k in range(len(sds) - 1):
        low, high = values[k] - target, values[k + 1] - target
        if low == 0.0:
            return float(sds[k])
        if low * high < 0.0 or high == 0.0:
            return float(sds[k] + (sds[k + 1] - sds[k]) * low / (low - high))
    return None


# ------------------------------------------------------------------------ the section
def _pm(mean: float, sd: float, digits: int = 1) -> str:
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"


def _slash(values: NDArray[np.float64], digits: int = 2) -> str:
    return " / ".join(f"{100 * v:.{digits}f}" for v in values)


def _paper_percent(demo: str) -> list[Published]:
    """The published torus percentages of a simulation (PC1, and PC2 on T³)."""
    return [SIMULATIONS[demo][key] for key in ("torus PC1", "torus PC2")
            if key in SIMULATIONS[demo]]


def _sweep_table(report: Report, sweep: dict[tuple[str, float, str], Fits]) -> None:
    rows = []
    for (demo, sd, optimizer), fits in sweep.items():
        torus = [fits.mean(key) for key in ("T-a", "T-b")]
        spreads = [fits.sd(key) for key in ("T-a", "T-b")]
        cells = [_pm(100 * m[0], 100 * s[0]) + (f" + {100 * m[1]:.1f}" if len(m) > 2 else "")
                 for m, s in zip(torus, spreads, strict=True)]
        rows.append([demo, f"{sd:g}", optimizer, *cells,
                     f"{100 * fits.mean('S-d')[0]:.1f}",
                     _pm(fits.radius.mean(), float(_spread(fits.radius)), 3),
                     _pm(fits.stress.mean(), float(_spread(fits.stress)), 4)])
    report.table(["demo", "cluster sd", "optimizer", "torus % PC1 (+ PC2), T-a (ours)",
                  "torus % PC1 (+ PC2), T-b (x̂^(d) = x_i)", "sphere % PC1 (S-d)", "r̂",
                  "stress"], rows)


def _implied_table(report: Report, sweep: dict[tuple[str, float, str], Fits],
                   sds: Sequence[float]) -> None:
    """For each published number of the clusters demos, the sd the paper optimiser's fits
    point to, and the grid sds at which they agree with it."""
    rows = []
    for demo in CLUSTER_DEMOS:
        cells = [sweep[(demo, sd, "paper")] for sd in sds if (demo, sd, "paper") in sweep]
        if not cells:
            continue
        quantities: list[tuple[str, Published, NDArray, NDArray]] = [
            ("r̂", SIMULATIONS[demo]["r̂"], np.array([f.radius.mean() for f in cells]),
             np.array([_spread(f.radius) for f in cells])),
            # The paper's stress is a mean over 50 data sets: its noise is sd / √50.
            ("stress", SIMULATIONS[demo]["stress"], np.array([f.stress.mean() for f in cells]),
             np.array([_spread(f.stress) for f in cells]) / np.sqrt(PAPER_STRESS_RUNS)),
        ]
        for key in ("T-a", "T-b"):
            for k, published in enumerate(_paper_percent(demo)):
                quantities.append((f"torus % PC{k + 1}, {key}", published,
                                   np.array([100 * f.mean(key)[k] for f in cells]),
                                   np.array([100 * f.sd(key)[k] for f in cells])))
        for label, published, means, noise in quantities:
            at = implied_sd(sds, list(means), published.value)
            matching = [f"{sd:g}" for sd, m, s in zip(sds, means, noise, strict=True)
                        if agrees(m, published, NOISE_SDS * s)]
            rows.append([demo, label, f"{published.text} ({published.where})",
                         "outside the grid" if at is None else f"{at:.2f}",
                         ", ".join(matching) or "none"])
    report.table(["demo", "published number", "paper", "sd at which our mean equals it "
                  "(interpolated)", f"sds at which ours agrees (rounding + {NOISE_SDS:g} sd "
                  "of the noise)"], rows)


@dataclass(frozen=True)
class _Column:
    """One data set of the conventions tables: its samples (one fit each) and the published
    percentages. The paper's number is one draw (one data set, one subsample): ours is the
    mean over the samples, and their spread is the noise of the paper's draw."""

    name: str
    models: Callable[[str], list[ScaledTorusPCA]]
    """The fits of the samples by an optimizer column's procedure."""
    published: list[Published]


def _columns(fits: ReportFits, seeds: Sequence[int],
             subsample_seeds: Sequence[int]) -> list[_Column]:
    """The three simulations (one sample per data seed) and the sunspots subsamples."""
    columns = [_Column(demo, partial(_demo_models, fits, demo, seeds), _paper_percent(demo))
               for demo in SIMULATED_DEMO_NAMES]
    columns.append(_Column(
        SUNSPOTS, lambda optimizer: [fits.subsample(seed, PROCEDURE_OF[optimizer])
                                     for seed in subsample_seeds],
        list(METHODS["ST-PCA"])))
    return columns


@dataclass(frozen=True)
class _Results:
    """Every fit of the conventions part, per (column name, optimizer)."""

    columns: list[_Column]
    fitted: dict[tuple[str, str], Fits]

    def agreement(self, column: _Column, optimizer: str, key: str) -> list[bool]:
        """Per published percentage of ``column``, whether convention ``key`` agrees."""
        fits = self.fitted[(column.name, optimizer)]
        return [agrees(100 * m, p, NOISE_SDS * 100 * s) for m, s, p in
                zip(fits.mean(key), fits.sd(key), column.published, strict=False)]

    def reproduces(self, column: _Column, optimizer: str, key: str) -> bool:
        """Whether ``key`` agrees with every published percentage of ``column`` and is
        precise enough for that to mean something (:data:`UNINFORMATIVE_SD`)."""
        fits = self.fitted[(column.name, optimizer)]
        return (key in fits.ratios and all(self.agreement(column, optimizer, key))
                and 100 * fits.sd(key)[0] <= UNINFORMATIVE_SD)


def _conventions_tables(report: Report, results: _Results) -> None:
    header = ["convention", "what it computes"] + [c.name for c in results.columns]
    for optimizer in OPTIMIZERS:
        rows = [["**paper**", ""] + [" / ".join(p.text for p in c.published)
                                     for c in results.columns]]
        for convention in CONVENTIONS:
            cells = []
            for column in results.columns:
                fits = results.fitted[(column.name, optimizer)]
                if convention.key not in fits.ratios:
                    cells.append("—")
                    continue
                mean = fits.mean(convention.key)
                marks = "".join("✓" if ok else "✗" for ok in
                                results.agreement(column, optimizer, convention.key))
                cells.append(f"{_slash(mean, 1 if len(mean) == 2 else 2)} {marks}")
            rows.append([convention.key, convention.name, *cells])
        report.add(f"**Optimiser `{optimizer}`**: the mean over the data sets (the seeds of "
                   "the simulations, the subsamples of the sunspots); ✓ or ✗ per published "
                   f"percentage: it agrees within its rounding + {NOISE_SDS:g} sd over the "
                   "data sets (the paper's number is one such draw), or differs.", "")
        report.table(header, rows)


def _spread_table(report: Report, results: _Results, seeds: Sequence[int]) -> None:
    paper = np.array([p.value for p in METHODS["ST-PCA"]])
    rows = []
    for optimizer in OPTIMIZERS:
        fits = results.fitted[(SUNSPOTS, optimizer)]
        for convention in CONVENTIONS:
            mean, sd = 100 * fits.mean(convention.key), 100 * fits.sd(convention.key)
            values = 100 * fits.ratios[convention.key]
            rows.append([optimizer, convention.key, _slash(values[0] / 100),
                         *(_pm(m, s, 2) for m, s in zip(mean, sd, strict=True)),
                         f"{100 * np.mean(values[:, 2] > values[:, 1]):.0f} %",
                         f"{np.sqrt(np.sum((mean - paper) ** 2)):.2f}"])
    report.add(f"**The sunspots subsamples**: {len(seeds)} subsamples of {SUBSAMPLE_SIZE} "
               f"triples (numpy seeds {_range(seeds)}; seed {SUBSAMPLE_SEED} is section 2's): "
               "its percentages, the mean ± sd over all, how often PC3 > PC2 (the paper's "
               "pattern), and the distance of the mean from the paper's "
               "90.51 / 3.07 / 6.40 (percentage points).", "")
    report.table(["optimizer", "convention", f"seed {SUBSAMPLE_SEED}", "PC1 %", "PC2 %",
                  "PC3 %", "PC3 > PC2", "distance to the paper"], rows)


def _verdict_table(report: Report, results: _Results) -> None:
    """Every published percentage against our key conventions, paper optimiser."""
    rows = []
    for column in results.columns:
        fits = results.fitted[(column.name, "paper")]
        for k, published in enumerate(column.published):
            cells = []
            for key in VERDICT_KEYS:
                ours, sd = 100 * fits.mean(key)[k], 100 * fits.sd(key)[k]
                cells.append(f"{ours:.2f}: " + verdict(
                    ours, published, NOISE_SDS * sd, why_agrees=f"noise sd {sd:.2f}",
                    why_differs=f"{ours - published.value:+.2f} points, noise sd {sd:.2f}"))
            rows.append([column.name, f"PC{k + 1}", f"{published.text} ({published.where})",
                         *cells])
    report.table(["data", "component", "paper", *VERDICT_KEYS], rows)


def _demo_models(fits: ReportFits, demo: str, seeds: Sequence[int], optimizer: str
                 ) -> list[ScaledTorusPCA]:
    return [fits.demo(demo, seed, PROCEDURE_OF[optimizer]) for seed in seeds]


def variance_gap_section(report: Report, fits: ReportFits, quick: bool = False) -> None:
    """Append "The explained-variance gap" to ``report`` (cheaper with ``quick``)."""
    sds = QUICK_SD_GRID if quick else SD_GRID
    seeds = QUICK_SEEDS if quick else SEEDS
    subsample_seeds = QUICK_SUBSAMPLE_SEEDS if quick else SUBSAMPLE_SEEDS
    sweep = sd_sweep(fits, CLUSTER_DEMOS, sds, OPTIMIZERS, seeds)
    columns = _columns(fits, seeds, subsample_seeds)
    results = _Results(columns, {(c.name, optimizer): Fits.of(c.models(optimizer))
                                 for c in columns for optimizer in OPTIMIZERS})

    report.add("## 4. The explained-variance gap", "",
               "Our torus percentages of PC1 are higher than the paper's on the three "
               "simulations (95 / 94 + 1 / 89), and on the sunspots subsample we have "
               "PC2 > PC3 where the paper has 90.51 / 3.07 / 6.40. Below: the clusters' sd, "
               "which the paper does not state; every convention we found for the "
               "percentages; and the spread over sunspots subsamples. The write-up is "
               "docs/variance_gap.md. Optimizer `paper` is the paper's procedure (R optim "
               "BFGS at reltol 5e-2 from classical MDS at the paper's r*), `lbfgs` the "
               "converged fit." + (" With --quick: one data seed, so the verdicts of "
                                          "the simulations have no noise allowance."
                                          if quick else ""), "")
    report.add(f"### The cluster sd (data seeds {_range(seeds)}, mean ± sd; our default sd "
               f"is {DEFAULT_CLUSTER_SD:g})", "")
    _sweep_table(report, sweep)
    report.add("What each published number of the clusters demos says about the sd, with the "
               "paper's optimiser (the stress is the paper's mean over 50 data sets, so its "
               "noise is sd / √50):", "")
    _implied_table(report, sweep, sds)

    report.add("### The conventions", "",
               "Each row is one way of computing the percentages from the same fit "
               "(`stpca_gui/reproduce/variance_conventions.py`); x̂^(k) = T̃(ŷ^(k)) are the "
               "predicted projections of §3.5, x_i the data. Rows marked — apply to d = 3 "
               "only.", "")
    _conventions_tables(report, results)
    _spread_table(report, results, subsample_seeds)
    report.add("### Verdicts (paper optimiser)", "")
    _verdict_table(report, results)
    _conclusion(report, sweep, sds, results)


def _range(seeds: Sequence[int]) -> str:
    return str(seeds[0]) if len(seeds) == 1 else f"{seeds[0]}–{seeds[-1]}"


def _sd_evidence(sweep: dict[tuple[str, float, str], Fits], demo: str,
                 sds: Sequence[float]) -> str:
    """One sentence: the sd the paper's stress points to, our T-b PC1 there, and the sd
    that T-b needs for the published PC1 (paper optimiser)."""
    cells = [sweep[(demo, sd, "paper")] for sd in sds]
    stress = [f.stress.mean() for f in cells]
    pc1 = [100 * f.mean("T-b")[0] for f in cells]
    published = SIMULATIONS[demo]
    at_stress = implied_sd(sds, stress, published["stress"].value)
    at_pc1 = implied_sd(sds, pc1, published["torus PC1"].value)
    if at_stress is None or at_pc1 is None:
        return f"{demo}: the sd grid does not bracket the paper's stress and PC1"
    stress_there = float(np.interp(at_pc1, sds, stress))
    return (f"{demo}: the paper's stress {published['stress'].text} points to sd "
            f"{at_stress:.2f}, where T-b gives PC1 {np.interp(at_stress, sds, pc1):.1f} % "
            f"(paper {published['torus PC1'].text}); T-b reaches "
            f"{published['torus PC1'].text} % at sd {at_pc1:.2f}, where the stress is "
            f"{stress_there:.3f}")


def _offsets(fits: Fits, key: str) -> str:
    """Ours minus the paper's sunspots percentages, and the same in sd of the noise."""
    paper = np.array([p.value for p in METHODS["ST-PCA"]])
    difference = 100 * fits.mean(key) - paper
    sd = 100 * fits.sd(key)
    return " / ".join(f"{x:+.2f}" + (f" ({x / s:+.1f} sd)" if s > 0 else "")
                      for x, s in zip(difference, sd, strict=True))


def _pattern(results: _Results, optimizer: str, key: str) -> str:
    values = results.fitted[(SUNSPOTS, optimizer)].ratios[key]
    return f"{int(np.sum(values[:, 2] > values[:, 1]))} of {len(values)}"


def _conclusion(report: Report, sweep: dict[tuple[str, float, str], Fits],
                sds: Sequence[float], results: _Results) -> None:
    report.add("### Conclusion", "")
    for optimizer in OPTIMIZERS:
        found = "; ".join(
            f"{column.name}: " + (", ".join(c.key for c in CONVENTIONS
                                            if results.reproduces(column, optimizer, c.key))
                                  or "none")
            for column in results.columns)
        report.add(f"* Conventions that agree with every published percentage, optimiser "
                   f"`{optimizer}` (leaving out those whose PC1 moves by more than "
                   f"{UNINFORMATIVE_SD:g} points between data sets, which agree with "
                   f"anything): {found}.")
    wrapped = results.fitted[("wrapped-normal-t2", "paper")]
    sun = results.fitted[(SUNSPOTS, "paper")]
    wrapped_column = next(c for c in results.columns if c.name == "wrapped-normal-t2")
    agreeing = sorted({c.key for optimizer in OPTIMIZERS for c in CONVENTIONS
                       if results.reproduces(wrapped_column, optimizer, c.key)})
    report.add(
        "* **Data at the top (T-b)**: taking the data themselves as the top level, "
        "x̂^(d) = x_i (\"the projection of x_i onto S̃^d = T^d\", as §3.5's wording "
        "allows), instead of their prediction T̃(ŷ_i), puts the SMDS misfit "
        "Σ δ(x_i, T̃(ŷ_i))² into the last component, and the paper's unconverged optimiser "
        "leaves that misfit large. It gives the wrapped normal "
        f"{100 * wrapped.mean('T-b')[0]:.1f} % (T-a: {100 * wrapped.mean('T-a')[0]:.1f} %; "
        "paper 89), and the sunspots subsamples "
        f"{_slash(sun.mean('T-b'))} with PC3 > PC2 in {_pattern(results, 'paper', 'T-b')} "
        f"subsamples (T-a: {_slash(sun.mean('T-a'))}, PC3 > PC2 in "
        f"{_pattern(results, 'paper', 'T-a')}; paper 90.51 / 3.07 / 6.40). So PC3 > PC2 "
        "comes from the misfit, not from the subsample. T-b's means differ from the paper's "
        f"by {_offsets(sun, 'T-b')} points (in sd of the subsample noise); T-fb's by "
        f"{_offsets(sun, 'T-fb')}.",
        "* **What singles out T-b**: the wrapped normal's 89 agrees with several conventions "
        f"({', '.join(agreeing) or 'none'}, with one optimiser or both), so it does not by "
        "itself pick the data-at-the-top reading. The evidence that does is the sunspots' "
        f"PC3 > PC2 in {_pattern(results, 'paper', 'T-b')} subsamples under T-b (and T-fb, "
        "its variant), which no convention without the data at the top gives with a PC1 "
        "near the paper's.",
        "* **The clusters demos** are not reproduced by any convention at the sd that the "
        "paper's own stress points to (our emulation of the paper's optimiser gives the "
        "wrapped normal, whose distribution the paper states in full, a mean stress of "
        f"{results.fitted[('wrapped-normal-t2', 'paper')].stress.mean():.4f} against the "
        "paper's 0.159): " + "; ".join(_sd_evidence(sweep, demo, sds) for demo in CLUSTER_DEMOS)
        + ".",
        "* **The sphere** conventions (S-…) agree with each other to a few hundredths on "
        "great-sphere fits (eq. totalvar on S^d_r equals it on the unit sphere: ratios do "
        "not depend on the scale); none gives the paper's torus numbers. Reordering the "
        "components (T-r) or swapping the labels of PC2 and PC3 (T-a′, T-b′) does not give "
        "them either.", "")
