"""The small RNA data set as a demo: model data set, `stpca demo(s)` and the app's Demos menu."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.cli import main
from stpca_gui.core import wrap_angles
from stpca_gui.datasets import load_small_rna
from stpca_gui.model import Dataset
from stpca_gui.model.demos import DEMO_NAMES, SMALL_RNA, list_demos


def test_the_demo_is_the_seven_fitted_angles_labelled_by_cluster():
    data = Dataset.from_demo(SMALL_RNA)
    rna = load_small_rna()
    assert data.is_demo and data.name == SMALL_RNA
    assert data.column_names == ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "chi")
    np.testing.assert_array_equal(data.angles, wrap_angles(rna.fitted_angles))
    values, counts = np.unique(data.labels, return_counts=True)
    assert dict(zip(values.tolist(), counts.tolist(), strict=True)) == {"I": 59, "II": 88, "V": 43}
    assert "§5.2" in data.description and "pscsne" in data.description
    with pytest.raises(ValueError, match="real data"):
        Dataset.from_demo(SMALL_RNA, cluster_sd=0.5)


def test_listed_after_the_simulations():
    from stpca_gui import core

    assert DEMO_NAMES[-2:] == (SMALL_RNA, "adk-loop") and DEMO_NAMES[:3] == (
        "clusters-t2", "clusters-t3", "wrapped-normal-t2")
    assert dict(list_demos())[SMALL_RNA].startswith("Small RNA (paper §5.2)")
    # One name per fact: the core's are the simulations, the model's every demo (the
    # structure demo last: it is read through the structure dialog).
    assert DEMO_NAMES == (*core.SIMULATED_DEMO_NAMES, SMALL_RNA, "adk-loop")
    assert [name for name, _ in core.list_simulated_demos()] == list(core.SIMULATED_DEMO_NAMES)
    assert not hasattr(core, "DEMO_NAMES") and not hasattr(core, "list_demos")


def test_cli_lists_and_runs_it(tmp_path, capsys):
    assert main(["demos"]) == 0
    assert "small-rna" in capsys.readouterr().out
    out = tmp_path / "out"
    # The paper's procedure and great spheres: a quick fit of the same data.
    assert main(["demo", "small-rna", "--optimizer", "paper", "--pns-mode", "great",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "small-rna" in printed and "samples n         190" in printed
    assert "angles d          7" in printed
    scores = np.loadtxt(out / "scores.csv", delimiter=",", skiprows=1, dtype=str)
    assert scores.shape[0] == 190
    header = (out / "scores.csv").read_text().splitlines()[0]
    assert "label" in header


@pytest.mark.usefixtures("display")
def test_demos_menu_entry_loads_it(qtbot, window):
    menu = next(action.menu() for action in window.menuBar().actions()
                if action.text() == "&Demos")
    entry = next(action for action in menu.actions()
                 if "Small RNA (paper §5.2)" in action.text())
    entry.trigger()
    dataset = window.state.dataset
    assert dataset is not None and dataset.name == SMALL_RNA
    assert set(dataset.labels.tolist()) == {"I", "II", "V"}


def test_a_script_of_the_demo_reads_an_exact_copy(tmp_path):
    from stpca_gui.model import FitParameters
    from stpca_gui.model.script_export import python_script

    export = python_script(Dataset.from_demo(SMALL_RNA), FitParameters(),
                           script_path=tmp_path / "refit.py")
    assert export.data_origin == "copy" and "bundled small-rna" in export.note
    assert len(export.data_files) == 1 and "make_demo" not in export.script
