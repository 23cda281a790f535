"""A rough estimate of a fit's time before it runs, from a small cost model.

At d = 66 a default fit of a few thousand frames takes minutes, at d = 426 longer (issue
32); the parameter panel says so before the user presses Fit. The model is a sum of the
stages' leading terms (docs/high_dimension.md):

* spherical MDS on m points (m = n when exact, the landmarks otherwise, once per landmark
  set tried): ``c · m² · d^e`` (theory: e = 1); placing the other n − m points against
  the m landmarks: ``c · (n − m) · m · d^e`` (e = 1 per pass of T̂);
* principal nested spheres: ``c · n · d^e`` (e = 3 at worst);
* the principal curve: ``c · points · m · d^e`` (e = 1);
* the torus variance of K components on a sample of s points: ``c · (K + 1) · s · m · d^e``
  (e = 1).

The coefficients c (CPU seconds per unit) and exponents e are fitted to the stage times
of ``benchmarks/bench_highdim.py`` (:func:`calibrate` reads the cases of its ``--json``
output). They are CPU seconds of the development machine, so the estimate is a rough one
and says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.prediction.torus_variance import TORUS_VARIANCE_FIRST_SAMPLE, TORUS_VARIANCE_SAMPLE
from ..core.smds.landmarks import landmark_sets, resolve_n_landmarks
from .analysis import FitParameters

#: Per stage, (c, e, f): CPU seconds = c · (n-part) · d^e · n^f, the n-part of each stage
#: as in the module's docstring (f corrects it where the measured cases say so). Fitted by
#: ``benchmarks/calibrate_fit_cost.py`` to the eight cases of
#: ``benchmarks/calibration/fit_cost_cases.json`` (bench_highdim.py on T²⁰, T⁴⁰, T⁶⁶,
#: T¹²⁰, n = 500 … 10⁴, exact and 1,000-landmark fits; 2026-11-28 late, after the compact
#: L-BFGS from d = 20, PNS's runs of great levels and the torus variance's T̃ at 1e-4; CPU
#: seconds, the machine otherwise idle on 2 cores; a test checks these numbers are that
#: file's fit). The cases lie within −21 % … +17 % of the model (T⁶⁶, n = 10⁴: estimate
#: 17.1 s, measured 16.4 s). Beyond these cases it extrapolates: T⁶⁶, n = 10⁵ / 10⁶ and
#: T⁴²⁶, n = 10⁴ estimated 69.3 / 540 / 95.6 s, measured 69.7 / 560 / 176 s of CPU (the
#: T⁴²⁶ case 46 % under: d = 426 lies far beyond the cases). Placing is O(m) per point,
#: so its term carries m.
COEFFICIENTS: dict[str, tuple[float, float, float]] = {
    "smds": (2.82e-07, 0.987, -0.16),
    "placing": (4.99e-08, 0.493, 0.0151),
    "pns": (0.00682, 0.526, -0.516),
    "curve": (4.69e-09, 1.66, 0.0108),
    "torus variance": (4.71e-09, 1.28, 0.0367),
}
#: The exponents of d a stage's cost is given before calibration (its theory).
THEORY_EXPONENTS = {"smds": 1.0, "placing": 1.0, "pns": 3.0, "curve": 1.0,
                    "torus variance": 1.0}
#: Estimates under this many seconds are not worth a word.
QUIET_BELOW_S = 5.0


@dataclass(frozen=True)
class FitCostEstimate:
    """Estimated CPU seconds per stage of a default fit."""

    stages: dict[str, float]

    @property
    def seconds(self) -> float:
        return float(sum(self.stages.values()))

    def note(self) -> str:
        """"about 4 min (estimate)" (beside the Fit button) or "" when it is a few
        seconds."""
        total = self.seconds
        if total < QUIET_BELOW_S:
            return ""
        return f"about {duration_text(total)} (estimate)"

    def details(self) -> str:
        """Where the time goes and how the estimate was made (a tooltip)."""
        total = self.seconds
        parts = ", ".join(f"{_STAGE_NAMES[stage]} {100 * seconds / total:.0f} %"
                          for stage, seconds in sorted(self.stages.items(),
                                                       key=lambda item: -item[1])
                          if seconds >= 0.05 * total)
        return (f"Estimated CPU time {duration_text(total)}: {parts}. A rough estimate from "
                "a cost model of the fit's stages calibrated on benchmark runs "
                "(benchmarks/bench_highdim.py); the time on this machine may differ "
                "several-fold.")


_STAGE_NAMES = {"smds": "spherical MDS", "placing": "placing the points",
                "pns": "nested spheres", "curve": "the principal curve",
                "torus variance": "the torus variance"}


def duration_text(seconds: float) -> str:
    """``20 s``, ``3 min``, ``1.5 h``, rounded to what an estimate can say."""
    if seconds < 60:
        return f"{max(5, round(seconds / 5) * 5):.0f} s"
    if seconds < 3600:
        return f"{round(seconds / 60):.0f} min"
    return f"{seconds / 3600:.1f} h"


def stage_terms(n: int, d: int, parameters: FitParameters,
                n_smds: int | None = None) -> dict[str, float]:
    """Each stage's n-part (the factors other than d^e) for n samples on T^d; ``n_smds``:
    the points SMDS was solved on when known (a measured case), else the fit's rule."""
    # The fit's own rule ("auto", "exact", None or a number), so the two cannot disagree.
    landmarks = resolve_n_landmarks(parameters.n_landmarks, n, d)
    m = (n if landmarks is None else min(n, landmarks)) if n_smds is None else n_smds
    trials = 1 if m == n else landmark_sets(max(1, int(parameters.landmark_trials)), d)
    components = min(d, int(parameters.max_torus_components))
    # The points the torus variance predicts, as ScaledTorusPCA._torus_variance draws
    # them: every component on all points (a sample in a landmark fit), else the first
    # sample (its doublings are rare: the stated error is met at the first, issue 32).
    if components >= d:
        sample = n if m == n else min(n, TORUS_VARIANCE_SAMPLE)
    else:
        sample = min(n, TORUS_VARIANCE_FIRST_SAMPLE)
    return {
        "smds": float(trials) * m * m * max(1, int(parameters.n_init)),
        "placing": float(n - m) * m,
        "pns": float(n),
        "curve": float(parameters.n_curve_points) * m,
        "torus variance": (float(components + 1) * sample * m
                           if parameters.torus_variance else 0.0),
    }


def estimate_fit_cost(n: int, d: int, parameters: FitParameters | None = None,
                      coefficients: Mapping[str, tuple[float, float, float]] = COEFFICIENTS,
                      n_smds: int | None = None) -> FitCostEstimate:
    """The estimated CPU seconds of each stage of fitting n samples on T^d (SMDS on
    ``n_smds`` points when given, else as the fit's landmark rule says)."""
    terms = stage_terms(n, d, parameters or FitParameters(), n_smds)
    return FitCostEstimate({
        stage: coefficients[stage][0] * term * float(d) ** coefficients[stage][1]
        * float(n) ** coefficients[stage][2] for stage, term in terms.items()})


def calibrate(cases: Iterable[Mapping[str, Any]]) -> dict[str, tuple[float, float, float]]:
    """Coefficients fitted to measured cases: the results of ``bench_highdim.py --json``
    as they are, each a mapping with ``n``, ``d``, ``stage_cpu_s`` (stage → CPU seconds)
    and optionally ``n_landmarks`` (the points SMDS was solved on: n for an exact fit; by
    default the fit's rule today). Per stage, least squares of log(seconds / n-part) on
    log d (the exponent e when the cases have two d or more, else the theory's,
    :data:`THEORY_EXPONENTS`) and on log n (a correction n^f of the n-part, when they have
    two n or more; else f = 0)."""
    rows: dict[str, list[tuple[float, float, float]]] = {stage: [] for stage in COEFFICIENTS}
    for case in cases:
        n, d = int(case["n"]), int(case["d"])
        terms = stage_terms(n, d, FitParameters(), case.get("n_landmarks"))
        for stage, seconds in case["stage_cpu_s"].items():
            if stage in terms and terms[stage] > 0 and seconds and seconds > 0:
                rows[stage].append((math.log(d), math.log(n), math.log(seconds / terms[stage])))
    fitted = {}
    for stage, values in rows.items():
        if not values:
            fitted[stage] = COEFFICIENTS[stage]
            continue
        data = np.array(values)
        free_d = np.ptp(data[:, 0]) > 1e-9
        free_n = np.ptp(data[:, 1]) > 1e-9
        target = data[:, 2] - (0.0 if free_d else THEORY_EXPONENTS[stage] * data[:, 0])
        design = np.column_stack([np.ones(len(data))]
                                 + ([data[:, 0]] if free_d else [])
                                 + ([data[:, 1]] if free_n else []))
        solution = np.linalg.lstsq(design, target, rcond=None)[0]
        d_exponent = float(solution[1]) if free_d else THEORY_EXPONENTS[stage]
        n_exponent = float(solution[-1]) if free_n else 0.0
        fitted[stage] = (float(np.exp(solution[0])), d_exponent, n_exponent)
    return fitted
