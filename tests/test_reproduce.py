"""The rules by which `stpca reproduce` marks a published number as agreeing with ours."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.reproduce.paper import (
    METHODS,
    SIMULATIONS,
    UNIFORMITY,
    Published,
    agrees,
    mean_verdict,
    quantile_of,
    sampling_verdict,
    verdict,
)
from stpca_gui.reproduce.report import Check, Report


@pytest.mark.parametrize(("text", "rounding"), [
    ("1.81", 0.005), ("95", 0.5), ("0.0855", 0.00005), ("3e-5", 0.5e-5), ("9.522e-9", 0.5e-12),
    ("0", 0.5),
])
def test_a_printed_number_carries_its_rounding(text: str, rounding: float) -> None:
    assert Published(text, "here").rounding == pytest.approx(rounding)


def test_agreement_is_the_rounding_plus_the_stated_tolerance() -> None:
    paper = Published("1.81", "§5.1")
    assert agrees(1.8149, paper) and agrees(1.805, paper)
    assert not agrees(1.8151, paper) and not agrees(float("nan"), paper)
    assert agrees(1.83, paper, tolerance=0.016) and not agrees(1.83, paper, tolerance=0.01)
    assert verdict(1.831, paper, why_differs="optimiser") == "**differs**: optimiser"
    assert verdict(1.812, paper) == "agrees"


def test_a_mean_agrees_within_two_standard_errors() -> None:
    paper = Published("1.63", "§4.2")
    values = np.array([1.62, 1.64, 1.66, 1.60])  # mean 1.63, sd 0.026
    assert mean_verdict(values, paper, 50).startswith("agrees")
    assert mean_verdict(values + 0.05, paper, 50).startswith("**differs**")
    # One data set: no spread to go by, only the rounding.
    assert mean_verdict(np.array([1.634]), paper, 50).startswith("agrees")
    assert mean_verdict(np.array([1.636]), paper, 50).startswith("**differs**")


def test_sampling_verdict_places_the_paper_in_our_distribution() -> None:
    values = np.arange(100.0)  # 0..99
    assert quantile_of(Published("49.5", ""), values) == 0.5
    assert quantile_of(Published("10", ""), values) == pytest.approx(0.105)
    assert sampling_verdict(Published("50", ""), values, "100 subsamples").startswith("agrees (")
    assert "in the tail" in sampling_verdict(Published("4", ""), values, "100 subsamples")
    assert sampling_verdict(Published("1", ""), values, "x").startswith("**differs**")
    assert sampling_verdict(Published("200", ""), values, "x").startswith("**differs**")


def test_check_kinds_and_the_report_records_them(tmp_path) -> None:
    report = Report(tmp_path)
    row = report.check("S", "q", "1", "2", "**differs**: because")
    assert row == ["q", "1", "2", "**differs**: because"]
    report.check("S", "q2", "1", "1", "agrees")
    report.check("S", "q3", "not run", "1", "not reproduced: no data")
    assert [c.kind for c in report.checks] == ["differs", "agrees", "not reproduced"]
    assert Check("S", "q", "1", "1", "differs (expected: machine)").kind == "differs"


def test_the_published_tables_are_complete() -> None:
    assert set(UNIFORMITY) == {"longitudes", "ST-PCA", "T-PCA (SO)", "T-PCA (SI)"}
    assert all(set(tests) == {"Gine_Fn", "Watson", "PAD"} for tests in UNIFORMITY.values())
    assert len(METHODS) == 8 and all(len(values) == 3 for values in METHODS.values())
    # Table 2's rows are percentages of three components: at most 100 (dPCA: of six).
    assert all(sum(v.value for v in values) <= 100.01 for values in METHODS.values())
    assert set(SIMULATIONS) == {"clusters-t2", "clusters-t3", "wrapped-normal-t2"}
