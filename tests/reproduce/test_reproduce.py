"""The rules by which `stpca reproduce` marks a published number as agreeing with ours."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import stpca_gui.reproduce as reproduce_package
from stpca_gui.reproduce import summary_lines
from stpca_gui.reproduce.paper import (
    METHODS,
    SIMULATIONS,
    UNIFORMITY,
    Published,
    agrees,
    mean_verdict,
    quantile_of,
    sampling_verdict,
    single_draw_verdict,
    verdict,
)
from stpca_gui.reproduce.report import Check, Report
from stpca_gui.reproduce.sunspots import _sphere_hypothesis


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


def test_a_single_draw_allows_the_spread_of_one_data_set() -> None:
    """§4's r̂ is one data set's value: our mean over data sets agrees within 2 sd of a
    single draw, where the mean of 50 runs would need 2 standard errors."""
    paper = Published("1.63", "§4.2")
    values = np.array([1.7, 2.4, 1.8, 2.3, 1.9, 2.5, 1.75, 2.2, 2.1, 2.02])  # 2.067 ± 0.28
    assert single_draw_verdict(values, paper).startswith("agrees")
    assert mean_verdict(values, paper, 50).startswith("**differs**")
    assert single_draw_verdict(values + 1.0, paper).startswith("**differs**")


def test_checks_of_one_published_value_are_counted_once(tmp_path) -> None:
    report = Report(tmp_path)
    report.check("S", "r̂ (converged)", "1.83", "1.81", "**differs**: optimiser")
    report.check("S", "r̂ (paper's procedure)", "1.815", "1.81", "agrees")
    report.check("S", "PAD p", "0.31", "0.75", "**differs**")
    report.check("S", "PAD p, sphunif ties", "0.7554", "0.7554", "agrees")
    report.check("S", "T PC1 %", "80", "88", "**differs**", value="T PC1", by="torus")
    report.check("S", "T sphere PC1 %", "89", "88", "**differs**", value="T PC1", by="sphere")
    report.check("S", "GeoPCA", "not run", "73.54", "not reproduced: no code")
    assert [(c.value, c.by) for c in report.checks[:4]] == [
        ("r̂", "converged"), ("r̂", "paper's procedure"), ("PAD p", ""),
        ("PAD p", "sphunif ties")]
    text = "\n".join(summary_lines(report))
    assert ("4 distinct published values checked (7 checks: 3 values are set against more "
            "than one procedure or reading): 2 reproduced by at least one, 1 by none, "
            "1 not reproduced") in text
    assert "| S | r̂ | 1.81 | paper's procedure |" in text
    assert "| S | PAD p | 0.75 | sphunif ties |" in text
    assert "| S | T PC1 | 88 | **none** |" in text and "| S | GeoPCA | 73.54 | not run |" in text


def test_the_sphere_percentage_hypothesis_is_named() -> None:
    paper = METHODS["T-PCA (SO)"]  # 89.32 / 6.43 / 4.25
    rng = np.random.default_rng(0)
    plausible = np.column_stack([rng.normal(0.89, 0.02, 40), rng.normal(0.065, 0.01, 40),
                                 rng.normal(0.043, 0.005, 40)])
    assert "not rejected" in _sphere_hypothesis(paper, plausible, "40 subsamples")
    shifted = plausible + np.array([0.05, 0.0, 0.0])
    assert "rejected for PC1" in _sphere_hypothesis(paper, shifted, "40 subsamples")


def test_every_mode_clustering_of_the_report_goes_through_one_function() -> None:
    """So that one line chooses the rule for the whole report (reproduce/clusters.py)."""
    folder = Path(reproduce_package.__file__).parent
    callers = sorted(path.name for path in folder.glob("*.py")
                     if "periodic_mode_clusters(" in path.read_text())
    assert callers == ["clusters.py"]


def test_the_rna_section_shows_the_tested_rule_beside_the_papers(tmp_path) -> None:
    """§5.2's tested-rule rows: k̂ with its step p-values, the clusters and their sizes, the
    rate with its interval and the paired difference from the paper's rule."""
    from stpca_gui.datasets import load_small_rna
    from stpca_gui.model import FitParameters
    from stpca_gui.reproduce.rna import _scored, _tested_rule

    rna = load_small_rna()
    fit = FitParameters().to_estimator().fit(rna.fitted_angles)
    paper = _scored("ST-PCA (converged)", fit, rna.cluster, 50)
    report = Report(tmp_path, [])
    _tested_rule(report, {paper.name: paper}, rna.cluster, 50)
    row = next(line for line in report.lines if line.startswith("| ST-PCA (converged)"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1].startswith("3 clusters — 3 modes (α = 0.05; k=1: p")
    assert "k=3: p=" in cells[1]
    count, sizes = cells[2].split(" ", 1)
    assert count == "3" and sum(int(s) for s in sizes.strip("()").split(", ")) == 190
    tested_rate = float(cells[3].split(" ")[0])
    low, high = (float(v) for v in cells[3].split("(")[1].rstrip(")").split("–"))
    assert low <= tested_rate <= high
    assert cells[5].startswith("3: ") and tested_rate >= float(cells[5].split(" ")[1])
    assert float(cells[6]) == pytest.approx(tested_rate - float(cells[5].split(" ")[1]),
                                            abs=1e-9)
    assert cells[8] == "no: the same classification"
