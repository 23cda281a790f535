"""The PNS1 mode clusters' settings (the rule, the mode test's level and null) are declared once,
in ``core/mode_settings.py``, and walk from there to the fit, the command line, sessions and
exported scripts (issue 30, item 1). The Parameters panel's editors: test_param_panel.py."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from stpca_gui.cli import main
from stpca_gui.core import ModeClusterSettings, model_mode_clusters
from stpca_gui.model import Dataset, FitParameters, run_analysis
from stpca_gui.model.script_export import python_script
from stpca_gui.model.session_file import SessionFileError, load_session

QUICK = {"n_curve_points": 30, "torus_variance": False}


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return Dataset.from_demo("clusters-t2", random_state=0)


def test_the_fit_clusters_pns1_with_the_settings_rule_and_level(dataset):
    result = run_analysis(dataset, FitParameters(mode_alpha=0.01, alpha=0.2, **QUICK))
    clusters = result.mode_clusters
    assert clusters.method == "tested" and clusters.mode_test.alpha == 0.01
    assert result.model.alpha == 0.2  # PNS's level is another setting
    expected = model_mode_clusters(result.model, alpha=0.01, labels=dataset.labels)
    np.testing.assert_array_equal(clusters.labels, expected.labels)
    assert clusters.mode_test.p_values == expected.mode_test.p_values

    mixture = run_analysis(dataset, FitParameters(mode_null="mixture", **QUICK))
    test = mixture.mode_clusters.mode_test  # the app's fit task runs run_analysis too
    assert test.calibration == "mixture" and "von Mises mixture null" in test.verdict()
    expected = model_mode_clusters(mixture.model, null="mixture", labels=dataset.labels)
    assert test.p_values == expected.mode_test.p_values
    assert mixture.paper_mode_clusters.n_clusters == result.paper_mode_clusters.n_clusters

    paper = run_analysis(dataset, FitParameters(cluster_rule="paper", **QUICK))
    assert paper.mode_clusters.method == "paper" and paper.mode_clusters.mode_test is None
    assert paper.mode_clusters is paper.paper_mode_clusters  # computed once


def test_settings_hand_the_paper_rules_clusters_on_when_given(dataset):
    result = run_analysis(dataset, FitParameters(**QUICK))
    paper = result.paper_mode_clusters
    settings = ModeClusterSettings(cluster_rule="paper")
    assert settings.clusters(result.model, paper=paper) is paper
    again = settings.clusters(result.model, labels=dataset.labels)
    np.testing.assert_array_equal(again.antimodes, paper.antimodes)


def test_the_mode_test_level_walks_from_the_command_line_to_the_session_and_the_script(
        tmp_path, capsys):
    session, out, script = tmp_path / "work.stpca", tmp_path / "out", tmp_path / "refit.py"
    assert main(["demo", "clusters-t2", "--mode-alpha", "0.01", "--curve-points", "30",
                 "--no-torus-variance", "--save-session", str(session),
                 "--out", str(out)]) == 0
    assert "α = 0.01" in capsys.readouterr().out  # the clusters printed used it
    assert json.loads((out / "summary.json").read_text())["mode_clusters"]["alpha"] == 0.01
    with zipfile.ZipFile(session) as archive:
        metadata = json.loads(archive.read("metadata.json"))
    for recorded in (metadata["parameters"], metadata["result"]["parameters"]):
        assert (recorded["cluster_rule"], recorded["mode_alpha"]) == ("tested", 0.01)
    loaded = load_session(session)
    assert loaded.parameters.mode_alpha == loaded.result.parameters.mode_alpha == 0.01
    assert loaded.result.mode_clusters.mode_test.alpha == 0.01
    assert main(["export-script", str(session), str(script)]) == 0
    text = script.read_text()
    assert 'CLUSTER_RULE = "tested"\nMODE_ALPHA = 0.01\n' in text
    assert "model_mode_clusters(model, method=CLUSTER_RULE, alpha=MODE_ALPHA," in text


def test_the_mixture_null_walks_from_the_command_line_to_the_session_and_the_script(
        dataset, tmp_path, capsys):
    session, out, script = tmp_path / "work.stpca", tmp_path / "out", tmp_path / "refit.py"
    assert main(["demo", "clusters-t2", "--mode-null", "mixture", "--curve-points", "30",
                 "--no-torus-variance", "--save-session", str(session),
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "von Mises mixture null" in printed
    # its lone-point cluster is named, on the screen and in summary.json
    assert "small clusters    cluster 4 (1 point) has fewer than 5 points" in printed
    written = json.loads((out / "summary.json").read_text())
    summary = written["mode_clusters"]
    assert written["small_clusters"] == [4]
    loaded = load_session(session)
    test = loaded.result.mode_clusters.mode_test
    assert summary["calibration"] == test.calibration == "mixture"
    assert loaded.parameters.mode_null == loaded.result.parameters.mode_null == "mixture"
    # the same clusters as the library gives with that null
    expected = model_mode_clusters(loaded.result.model, null="mixture", stability=False)
    assert test.p_values == expected.mode_test.p_values
    assert main(["export-script", str(session), str(script)]) == 0
    text = script.read_text()
    assert 'MODE_ALPHA = 0.05\nMODE_NULL = "mixture"\n' in text
    assert "null=MODE_NULL, labels=labels)" in text and "null=MODE_NULL)" in text


def test_an_exported_script_carries_the_settings_rule_and_level(dataset, tmp_path):
    parameters = FitParameters(cluster_rule="paper", mode_alpha=0.2)
    text = python_script(dataset, parameters, script_path=tmp_path / "x.py").script
    assert 'CLUSTER_RULE = "paper"\nMODE_ALPHA = 0.2\n' in text
    assert "cluster_rule=" not in text.split("model = ScaledTorusPCA(")[1].split(")")[0]


def test_a_legacy_session_reads_back_with_its_clusters_rule(test_data):
    # Written before the settings held the rule: its clusters are the paper rule's.
    session = load_session(test_data / "legacy" / "clusters_t3_session.stpca")
    assert session.result.mode_clusters.method == "paper"
    assert session.result.parameters.cluster_rule == "paper"
    assert session.result.parameters.mode_null == "critical_kde"
    assert session.parameters.cluster_rule == "tested"  # the next fit: today's default
    assert session.notes == ()


@pytest.fixture(scope="module")
def saved_session(tmp_path_factory):
    path = tmp_path_factory.mktemp("session") / "work.stpca"
    assert main(["demo", "clusters-t2", "--mode-alpha", "0.01", "--curve-points", "30",
                 "--no-torus-variance", "--save-session", str(path)]) == 0
    return path


def _edited(source, target, edit):
    with zipfile.ZipFile(source) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    metadata = json.loads(entries["metadata.json"])
    edit(metadata)
    entries["metadata.json"] = json.dumps(metadata).encode()
    with zipfile.ZipFile(target, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return target


@pytest.mark.parametrize(("where", "name", "value", "message"), [
    ("parameters", "mode_alpha", "0.05", "mode_alpha (Mode test level) must be a number in "
                                         "(0, 1); got '0.05'"),
    ("parameters", "cluster_rule", "every", "cluster_rule (Cluster rule) must be one of"),
    ("parameters", "mode_null", ["mixture"], "mode_null (Mode test null) must be one of"),
    ("result", "mode_alpha", 1.5, "mode_alpha (Mode test level) must be a number in (0, 1)"),
    ("result", "mode_alpha", 0.2, "the fit's setting mode_alpha is 0.2, but its PNS1 mode "
                                  "clusters were made with 0.01"),
    ("result", "cluster_rule", "paper", "the fit's setting cluster_rule is 'paper', but its "
                                        "PNS1 mode clusters were made with 'tested'"),
    ("result", "mode_null", "mixture", "the fit's setting mode_null is 'mixture', but its "
                                       "PNS1 mode clusters were made with 'critical_kde'"),
])
def test_edited_cluster_settings_are_refused_naming_the_field(saved_session, tmp_path, where,
                                                              name, value, message):
    def edit(metadata):
        node = metadata["parameters"] if where == "parameters" else metadata["result"][
            "parameters"]
        node[name] = value

    path = _edited(saved_session, tmp_path / "edited.stpca", edit)
    with pytest.raises(SessionFileError) as info:
        load_session(path)
    assert str(info.value).startswith(f"{path}: damaged session file (")
    assert message in str(info.value)
