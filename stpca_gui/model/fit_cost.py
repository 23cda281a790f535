"""A rough estimate of a fit's time before it runs, from a small cost model.

At d = 66 a default fit of a few thousand frames takes minutes, at d = 426 longer (issue
32); the parameter panel says so before the user presses Fit. The model is a sum of the
stages' leading terms (docs/high_dimension.md):

* spherical MDS on m points (m = n when exact, the landmarks otherwise, once per landmark
  set tried): ``SMDS · m² · d``; placing the other n − m points: ``PLACING · (n − m) · d²``;
* principal nested spheres: ``PNS · n · d³``;
* the principal curve: ``CURVE · points · m · d``;
* the torus variance of K components on a sample of s points:
  ``TORUS · (K + 1) · s · m · d``.

The coefficients (CPU seconds per unit) are fitted to the stage times of
``benchmarks/bench_highdim.py`` (:func:`calibrate` reads its ``--json`` output); the
figures quoted are CPU seconds of one process on one core of the development machine, so
the estimate is a rough one (within a factor of 2–3 of the measured cases) and says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.smds.landmarks import AUTO_EXACT_MAX_N, AUTO_LANDMARKS
from .analysis import FitParameters

#: CPU seconds per unit of each stage's leading term (see the module's docstring),
#: fitted by :func:`calibrate` to ``bench_highdim.py --d 20 66 --n 500`` and the 98-frame
#: adenylate-kinase tables (d = 66, 426) on the merged high-d code (2026-11-28).
COEFFICIENTS: dict[str, float] = {
    "smds": 4.0e-8,
    "placing": 2.0e-7,
    "pns": 3.0e-8,
    "curve": 2.0e-8,
    "torus variance": 2.0e-9,
}
#: Sample of the torus variance at large n (its first sample size).
TORUS_SAMPLE = 2000
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
        """"Estimated time: about 4 min (mostly PNS)" or "" when it is a few seconds."""
        total = self.seconds
        if total < QUIET_BELOW_S:
            return ""
        largest = max(self.stages, key=self.stages.__getitem__)
        share = self.stages[largest] / total
        mostly = f", mostly {_STAGE_NAMES[largest]}" if share >= 0.5 else ""
        return (f"Estimated fit time: about {duration_text(total)}{mostly} "
                "(a rough estimate from a cost model)")


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


def stage_terms(n: int, d: int, parameters: FitParameters) -> dict[str, float]:
    """Each stage's leading term (units of :data:`COEFFICIENTS`) for n samples on T^d."""
    landmarks = parameters.n_landmarks
    if landmarks == "auto":
        m = n if n <= AUTO_EXACT_MAX_N else min(n, AUTO_LANDMARKS)
    elif landmarks is None:
        m = n
    else:
        m = min(n, int(landmarks))
    trials = 1 if m == n else max(1, int(parameters.landmark_trials))
    components = min(d, int(parameters.max_torus_components))
    sample = min(n, TORUS_SAMPLE)
    return {
        "smds": float(trials) * m * m * d * max(1, int(parameters.n_init)),
        "placing": float(n - m) * d * d,
        "pns": float(n) * d ** 3,
        "curve": float(parameters.n_curve_points) * m * d,
        "torus variance": (float(components + 1) * sample * m * d
                           if parameters.torus_variance else 0.0),
    }


def estimate_fit_cost(n: int, d: int, parameters: FitParameters | None = None,
                      coefficients: Mapping[str, float] = COEFFICIENTS) -> FitCostEstimate:
    """The estimated CPU seconds of each stage of fitting n samples on T^d."""
    terms = stage_terms(n, d, parameters or FitParameters())
    return FitCostEstimate({stage: coefficients[stage] * term
                            for stage, term in terms.items()})


def calibrate(cases: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Coefficients fitted to measured cases: each a mapping with ``n``, ``d`` and
    ``stages_cpu`` (stage → CPU seconds, the stages of ``bench_highdim.py``). Per stage,
    the least-squares ratio of the measured seconds to the term in log space (the
    geometric mean of the ratios), so that every case counts alike."""
    logs: dict[str, list[float]] = {stage: [] for stage in COEFFICIENTS}
    for case in cases:
        terms = stage_terms(int(case["n"]), int(case["d"]), FitParameters())
        for stage, seconds in case["stages_cpu"].items():
            if stage in terms and terms[stage] > 0 and seconds and seconds > 0:
                logs[stage].append(math.log(seconds / terms[stage]))
    return {stage: (math.exp(sum(values) / len(values)) if values else COEFFICIENTS[stage])
            for stage, values in logs.items()}
