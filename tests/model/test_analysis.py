"""Analysis runs: fit parameters, both cluster rules in the fit's task, cancel."""

from __future__ import annotations

import math

import numpy as np
import pytest

from stpca_gui.model import (
    AnalysisResult,
    Dataset,
    FitCancelled,
    FitParameters,
    ProgressEvent,
    run_analysis,
)


@pytest.mark.parametrize(("changes", "message"), [
    ({"radius": -1.0}, "radius (Sphere radius) must be 'auto' or a positive number; got -1.0"),
    ({"radius": "big"}, "radius (Sphere radius) must be 'auto' or a positive number; got 'big'"),
    ({"radius": float("nan")}, "radius (Sphere radius) must be 'auto' or a positive number"),
    ({"pns_mode": "tiny"}, "pns_mode (PNS mode) must be one of 'seq.test', 'small', 'great', "
                           "'bic'; got 'tiny'"),
    ({"n_curve_points": 2}, "n_curve_points (Curve points) must be an integer in [3, 100000]; "
                            "got 2"),
    ({"n_curve_points": 10.5}, "n_curve_points"),
    ({"random_state": -3}, "random_state (Seed) must be None, an integer >= 0 or a numpy "
                           "Generator or SeedSequence; got -3"),
    ({"n_init": 0}, "n_init (SMDS starts) must be an integer in [1, 1000]; got 0"),
    ({"optimizer": "adam"}, "optimizer (SMDS optimiser) must be one of 'lbfgs', 'paper'; "
                            "got 'adam'"),
    ({"torus_variance": "yes"}, "torus_variance (Torus variance) must be True or False; "
                                "got 'yes'"),
    ({"torus_variance": 1}, "torus_variance (Torus variance) must be True or False; got 1"),
    ({"tol": 0.0}, "tol (SMDS tolerance) must be a number in (0, 1); got 0.0"),
    ({"max_iter": True}, "max_iter (SMDS iterations (max)) must be an integer in [1, 1000000]"),
    ({"alpha": 1.5}, "alpha (PNS test level) must be a number in [0, 1]; got 1.5"),
    ({"n_bootstrap": 0}, "n_bootstrap (Bootstrap samples) must be an integer in [1, 100000]"),
])
def test_fit_parameters_validation(changes, message):
    params = FitParameters(**changes)
    with pytest.raises(ValueError) as info:
        params.validate()
    assert message in str(info.value)
    with pytest.raises(ValueError, match="must be"):  # the estimator refuses it at fit
        params.to_estimator().fit(np.zeros((5, 2)))


def test_fit_parameters_to_estimator():
    FitParameters().validate()
    chosen = dict(radius=2, pns_mode="bic", n_curve_points=50, random_state=7, n_init=3,
                  optimizer="paper", tol=1e-3, max_iter=30, alpha=0.05, n_bootstrap=20,
                  torus_variance=False)
    est = FitParameters(**chosen).to_estimator()
    assert {name: est.get_params()[name] for name in chosen} == chosen
    assert FitParameters().to_estimator().radius == "auto"


@pytest.fixture(scope="module")
def clusters_result() -> tuple[AnalysisResult, list[ProgressEvent]]:
    events: list[ProgressEvent] = []
    ds = Dataset.from_demo("clusters-t2")
    result = run_analysis(ds, FitParameters(random_state=0), callback=events.append)
    return result, events


def test_run_analysis_computes_both_rules_in_its_thread(clusters_result):
    # The Result panel shows both rules: neither may be left for the GUI thread, and the
    # tested rule's boundaries are the paper rule's clusters computed once.
    result, _ = clusters_result
    paper, tested = result.paper_mode_clusters, result.mode_clusters
    assert paper is not None
    assert paper.method == "paper" and tested.method == "tested"
    assert tested.n_clusters == paper.n_clusters == 3
    np.testing.assert_array_equal(tested.antimodes, paper.antimodes)


def test_run_analysis_on_clusters_separates_the_labels(clusters_result):
    result, events = clusters_result
    ds = result.dataset
    assert result.scores.shape == (300, 2)
    assert np.array_equal(result.pns1, result.scores[:, 0])
    assert result.pns1_period == pytest.approx(2 * math.pi * result.model.pns_.circle_radius_)
    assert np.all(np.abs(result.pns1) <= result.pns1_period / 2 + 1e-9)
    # Around the principal circle the three clusters occupy three disjoint arcs: walking
    # once around, the label changes exactly three times.
    order = np.argsort(result.pns1)
    codes = ds.label_codes()[order]
    assert np.count_nonzero(codes != np.roll(codes, 1)) == 3
    assert result.sphere_ratio.sum() == pytest.approx(1.0)
    assert result.sphere_ratio[0] > 0.9 and result.torus_ratio[0] > 0.9
    assert result.wall_time > 0 and result.parameters == FitParameters(random_state=0)
    assert result.curve.angles.shape == (100, 2)
    stages = [e.stage for e in events]
    assert stages[0] == "smds-start" and stages[-1] == "done"
    assert {"pns", "curve", "torus-variance"} <= set(stages)


def test_summary_rows(clusters_result):
    result, _ = clusters_result
    rows = dict(result.summary_rows())
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in rows.items())
    assert rows["samples n"] == "300" and rows["angles d"] == "2"
    assert rows["stress"].startswith(f"{result.stress:.4g}")
    assert float(rows["fitted radius r̂"]) == pytest.approx(result.radius, abs=1e-4)
    assert "start radius r*" in rows
    assert rows["sphere variance"].startswith(f"{100 * result.sphere_ratio[0]:.1f} / ")
    assert rows["torus variance"].endswith(" % (PNS1 first)")
    assert "small" in rows["PNS spheres"] or "great" in rows["PNS spheres"]
    assert rows["time per stage"].startswith("smds ") and "time: total" in rows


def test_run_analysis_can_be_cancelled():
    ds = Dataset.from_demo("clusters-t2")
    seen: list[str] = []

    def stop_at_pns(event: ProgressEvent) -> bool:
        seen.append(event.stage)
        return event.stage == "pns"

    with pytest.raises(FitCancelled):
        run_analysis(ds, FitParameters(torus_variance=False), callback=stop_at_pns)
    assert seen[-1] == "pns" and "done" not in seen

    with pytest.raises(FitCancelled):
        run_analysis(ds, FitParameters(), callback=lambda e: e.iteration >= 2)


def test_run_analysis_rejects_bad_parameters_before_fitting():
    with pytest.raises(ValueError, match="n_init"):
        run_analysis(Dataset.from_demo("clusters-t2"), FitParameters(n_init=0))
