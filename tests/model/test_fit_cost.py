"""The fit's cost estimate: its terms grow as the stages do, its calibration recovers
known coefficients, and it says nothing for fits of a few seconds."""

from __future__ import annotations

import pytest

from stpca_gui.model import FitParameters
from stpca_gui.model.fit_cost import (
    COEFFICIENTS,
    calibrate,
    duration_text,
    estimate_fit_cost,
    stage_terms,
)


def test_terms_grow_with_n_and_d_as_the_stages_do():
    small, wide = stage_terms(500, 20, FitParameters()), stage_terms(500, 66, FitParameters())
    assert wide["pns"] == small["pns"] == 500  # the n-parts; d enters as d^e
    slow, quick = estimate_fit_cost(500, 66).stages, estimate_fit_cost(500, 20).stages
    assert all(slow[stage] > quick[stage] for stage in ("smds", "pns", "torus variance"))
    # Landmarks past the exact limit, as the fit takes them: 1,000 in three sets below
    # T⁶⁰, in one set from T⁶⁰ on; the rest placed against them (O(m) each).
    large = stage_terms(100_000, 66, FitParameters())
    assert large["smds"] == pytest.approx(1000**2)
    assert large["placing"] == pytest.approx(99_000 * 1000)
    assert stage_terms(100_000, 20, FitParameters())["smds"] == pytest.approx(3 * 1000**2)
    # The exact limit falls with d (n² · d ≤ 6,000² · 7): 3,000 points of T⁴⁰ have
    # landmarks, of T⁴ not.
    assert stage_terms(3000, 40, FitParameters())["placing"] == 2000 * 1000
    assert stage_terms(3000, 4, FitParameters())["placing"] == 0
    assert stage_terms(500, 66, FitParameters(torus_variance=False))["torus variance"] == 0


def test_calibration_recovers_the_coefficients_it_is_given():
    truth = {stage: (2.5 * c, e + 0.2, 0.1) for stage, (c, e, _) in COEFFICIENTS.items()}
    cases = [{"n": n, "d": d, "stage_cpu_s": estimate_fit_cost(n, d, coefficients=truth).stages}
             for n, d in ((500, 20), (500, 66), (2000, 66), (20_000, 200), (50_000, 66),
                          (8000, 426))]
    fitted = calibrate(cases)
    for stage, value in truth.items():
        assert fitted[stage] == pytest.approx(value, rel=1e-6)


def test_note_only_when_the_fit_takes_more_than_a_few_seconds():
    assert estimate_fit_cost(200, 3).note() == ""
    note = estimate_fit_cost(5000, 426).note()
    assert note.startswith("about ") and note.endswith("(estimate)")
    estimate = estimate_fit_cost(5000, 426)
    largest = max(estimate.stages.values())
    assert f"{100 * largest / estimate.seconds:.0f} %" in estimate.details()
    assert duration_text(42) == "40 s" and duration_text(600) == "10 min"
    assert duration_text(5400) == "1.5 h"


def test_every_landmark_choice_of_the_settings_is_costed():
    """"exact" (the command line's and a session's spelling) costs as an exact fit; it
    raised ValueError in the panel when a session fitted with --landmarks exact opened."""
    from stpca_gui.model.analysis import FitParameters
    from stpca_gui.model.fit_cost import stage_terms

    exact = stage_terms(50_000, 20, FitParameters(n_landmarks="exact"))
    assert exact["placing"] == 0.0 and exact["smds"] == float(50_000) ** 2
    landmarks = stage_terms(50_000, 20, FitParameters(n_landmarks=1000))
    assert landmarks["placing"] == 49_000.0 * 1000
