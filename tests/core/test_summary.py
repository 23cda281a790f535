"""One summary of a fitted model for the command line, the app's panel and summary.json."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from stpca_gui.cli import main
from stpca_gui.core import ScaledTorusPCA, make_demo
from stpca_gui.core.summary import fit_summary, summary_json
from stpca_gui.io.export import summary_dict
from stpca_gui.model import AnalysisResult, Dataset, FitParameters


@pytest.fixture(scope="module")
def fitted() -> ScaledTorusPCA:
    demo = make_demo("clusters-t2", random_state=0)
    return ScaledTorusPCA(random_state=0, torus_variance=False).fit(demo.angles)


def test_json_holds_every_item_and_is_strict_json(fitted):
    items = fit_summary(fitted)
    keys = [item.key for item in items]
    assert len(keys) == len(set(keys))
    summary = summary_dict(fitted, source="x.csv")
    assert set(keys) <= set(summary) and summary["source"] == "x.csv"
    assert summary["n_samples"] == 300 and summary["n_angles"] == 2
    # Torus variance was not computed: null in the file, not NaN (which is not JSON).
    assert summary["torus_explained_variance_ratio"] == [None, None]
    text = json.dumps(summary, allow_nan=False)
    assert json.loads(text)["radius"] == pytest.approx(fitted.radius_)


def test_panel_rows_and_cli_show_the_same_items(fitted, capsys):
    shown = [(item.label, item.text) for item in fit_summary(fitted) if item.shown]
    assert ("torus variance", "not computed") in shown
    result = AnalysisResult.from_fit(fitted, FitParameters(torus_variance=False),
                                     Dataset.from_demo("clusters-t2", random_state=0), 1.0)
    rows = result.summary_rows()
    assert rows[:len(shown)] == shown
    assert main(["demo", "clusters-t2", "--no-torus-variance"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for label, _ in shown:
        assert any(line.startswith(label) for line in lines), label


def test_fixed_radius_is_labelled_as_fixed(fitted):
    demo = make_demo("clusters-t2", random_state=0)
    model = ScaledTorusPCA(radius=1.5, random_state=0, torus_variance=False).fit(demo.angles)
    items = {item.key: item for item in fit_summary(model)}
    assert items["radius"].label == "fixed radius r" and items["radius"].value == 1.5
    assert not items["initial_radius"].shown
    assert summary_json(list(items.values()))["initial_radius"] == 1.5


def test_landmark_fit_says_m_of_n_and_the_all_pairs_stress(fitted):
    demo = make_demo("clusters-t2", random_state=0)
    model = ScaledTorusPCA(random_state=0, torus_variance=False, n_landmarks=60).fit(demo.angles)
    items = {item.key: item for item in fit_summary(model)}
    assert items["n_landmarks"].shown and items["n_landmarks"].value == 60
    assert items["n_landmarks"].text == "60 of 300 (mixed)"
    assert items["landmark_method"].value == "mixed"
    assert items["stress"].label == "stress on the landmarks"
    pairs = items["all_pairs_stress"]
    assert pairs.shown and pairs.value == pytest.approx(model.all_pairs_stress_)
    assert pairs.text.endswith("(exact)")  # 300 points: every pair is summed
    result = AnalysisResult.from_fit(model, FitParameters(n_landmarks=60),
                                     Dataset.from_demo("clusters-t2", random_state=0), 1.0)
    assert result.landmark_note == (f"landmarks: 60 of 300, all-pairs stress "
                                    f"{model.all_pairs_stress_:.4f}")
    assert ("landmarks", "60 of 300 (mixed)") in result.summary_rows()
    # An exact fit keeps the facts in the JSON only.
    exact = {item.key: item for item in fit_summary(fitted)}
    assert not exact["n_landmarks"].shown and exact["n_landmarks"].value == 300
    assert not exact["all_pairs_stress"].shown
    assert exact["stress"].label == "stress"


def test_the_app_fits_large_tables_with_landmarks():
    from stpca_gui.core.smds.landmarks import AUTO_EXACT_MAX_N, AUTO_LANDMARKS, resolve_n_landmarks

    assert FitParameters().n_landmarks == "auto"
    assert resolve_n_landmarks(FitParameters().to_estimator().n_landmarks, 10**6, 4) == (
        AUTO_LANDMARKS)
    assert resolve_n_landmarks("auto", AUTO_EXACT_MAX_N, 4) is None


def test_a_classification_rate_only_against_labels_that_are_classes(fitted):
    """Issue 31: `--label resname` printed "15.5 % correctly classified" against 19
    residue names. A rate is given when the label groups are few (at most two per
    cluster), and says what it compares with; else the summary says why there is none."""
    from stpca_gui.core.mode_settings import ModeClusterSettings
    from stpca_gui.core.summary import MAX_GROUPS_PER_CLUSTER, mode_cluster_items

    demo = make_demo("clusters-t2", random_state=0)
    settings = ModeClusterSettings()
    classes = settings.clusters(fitted, labels=demo.labels, stability=False)
    k = classes.n_clusters
    item = {i.key: i for i in mode_cluster_items(classes, n_boot=50)}["classification_rate"]
    assert item.value["rate"] > 0.9
    assert f"correctly classified against the {len(set(demo.labels))} label groups" in item.text
    many = np.arange(len(demo.labels)) % (MAX_GROUPS_PER_CLUSTER * k + 1)  # residue-like
    names = settings.clusters(fitted, labels=many, stability=False)
    item = {i.key: i for i in mode_cluster_items(names, n_boot=50)}["classification_rate"]
    assert item.value is None and "correctly classified" not in item.text
    assert f"{MAX_GROUPS_PER_CLUSTER * k + 1} label groups for {k} clusters" in item.text


def test_small_stresses_keep_their_digits_and_an_unconverged_fit_says_what_to_do():
    """Issue 31: the live fit showed "stress 0.00000" and "not converged" after 2000
    iterations with no advice."""
    from stpca_gui.core.summary import stress_text
    from stpca_gui.plotting.live_smds import live_caption

    assert stress_text(3.2e-6) == "3.2e-06" and stress_text(0.012345) == "0.01235"
    assert "stress 3.2e-06" in live_caption(2000, 3.2e-6, 1.0)
    demo = make_demo("clusters-t2", random_state=0)
    model = ScaledTorusPCA(random_state=0, torus_variance=False, max_iter=3).fit(
        demo.angles)
    assert not model.smds_.converged_
    text = {item.key: item.text for item in fit_summary(model)}["smds_iterations"]
    assert "not converged" in text and "max_iter (now 3)" in text and "tol" in text


def test_clusters_of_fewer_than_five_points_are_named_and_others_are_not(fitted):
    """The tested clusters of the demo with the mixture null: its fourth holds one point far
    out in a tail (docs/mode_test.md), which the summary names; the default's three do not."""
    from stpca_gui.core.circstats.mode_clustering import SMALL_CLUSTER_POINTS
    from stpca_gui.core.clusters import model_mode_clusters
    from stpca_gui.core.summary import mode_cluster_items

    lone = model_mode_clusters(fitted, null="mixture", stability=False)
    assert lone.sizes.tolist() == [100, 100, 99, 1]
    items = {item.key: item for item in mode_cluster_items(lone)}
    assert items["small_clusters"].shown and items["small_clusters"].value == [4]
    assert items["small_clusters"].text.startswith(
        f"cluster 4 (1 point) has fewer than {SMALL_CLUSTER_POINTS} points: a mode this small")
    three = model_mode_clusters(fitted, stability=False)
    items = {item.key: item for item in mode_cluster_items(three)}
    assert three.sizes.min() >= SMALL_CLUSTER_POINTS
    assert not items["small_clusters"].shown and items["small_clusters"].value == []
    # Several, listed in order and counted from 1 as the app shows them; none in one cluster.
    several = dataclasses.replace(lone, labels=np.repeat([0, 1, 2, 3], [4, 100, 3, 193]))
    assert several.small_clusters().tolist() == [0, 2]
    assert several.small_clusters_text().startswith(
        "cluster 1 (4 points) and cluster 3 (3 points) have fewer than 5 points")
    one = dataclasses.replace(lone, labels=np.zeros(3, dtype=np.int64), modes=np.zeros(1))
    assert one.small_clusters().size == 0 and one.small_clusters_text() == ""
