"""The app's fit-cost coefficients are the calibration of the committed benchmark cases:
a refit that is not pasted, or coefficients edited by hand, fail here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stpca_gui.model.fit_cost import COEFFICIENTS, calibrate, estimate_fit_cost

CASES = Path(__file__).parents[2] / "benchmarks" / "calibration" / "fit_cost_cases.json"


def _cases() -> list[dict]:
    """bench_highdim.py's results, as calibrate_fit_cost.py reads them."""
    return json.loads(CASES.read_text(encoding="utf-8"))["results"]


def test_the_coefficients_are_the_calibration_of_the_committed_cases():
    fitted = calibrate(_cases())
    for stage, coefficients in COEFFICIENTS.items():
        # Pasted to three significant digits.
        assert coefficients == pytest.approx(fitted[stage], rel=5e-3, abs=5e-3), stage


def test_each_committed_case_is_estimated_as_fit_cost_says():
    """Within −21 % … +17 % (the module's words), checked so that a change of the model's
    form that fits worse is seen."""
    for case in _cases():
        estimate = estimate_fit_cost(case["n"], case["d"], n_smds=case["n_landmarks"])
        assert -0.22 <= estimate.seconds / case["cpu_s"] - 1 <= 0.18, case
