"""The app's result set (model/result_export.py, *File → Export Results…*), without Qt: which
files, what the selection file holds, and that no file replaces an input."""

from __future__ import annotations

import csv
from dataclasses import replace

import numpy as np
import pytest

from stpca_gui.files.clash import OutputClashError
from stpca_gui.io import RESULT_FILES
from stpca_gui.model import FitParameters, run_analysis
from stpca_gui.model.result_export import (
    APP_RESULT_FILES,
    SELECTION_FILE,
    selection_table,
    write_app_results,
)
from stpca_gui.model.table_import import ImportChoices, import_table


@pytest.fixture(scope="module")
def table_result(tmp_path_factory):
    """A fit of a small table read from a file (rows 2…41 of it), with labels."""
    folder = tmp_path_factory.mktemp("table")
    source = folder / "angles.csv"
    rng = np.random.default_rng(4)
    rows = [f"{a:.4f},{b:.4f},{'x' if k < 20 else 'y'}"
            for k, (a, b) in enumerate(rng.vonmises([[0.5, -2.0]] * 20 + [[2.5, 1.0]] * 20,
                                                    8.0))]
    source.write_text("phi,psi,group\n" + "\n".join(rows) + "\n")
    dataset = import_table(source, ImportChoices(columns=("phi", "psi"), label_column="group"))
    return run_analysis(dataset, FitParameters(torus_variance=False, n_curve_points=20))


def test_the_set_is_the_results_and_the_selection(table_result, tmp_path):
    groups = np.zeros(40, dtype=np.int8)
    groups[[0, 5, 39]] = [1, 2, 4]
    written = write_app_results(table_result, groups, tmp_path / "out")
    assert [path.name for path in written] == list(APP_RESULT_FILES)
    assert APP_RESULT_FILES == (*RESULT_FILES, SELECTION_FILE)
    with open(tmp_path / "out" / SELECTION_FILE, newline="") as handle:
        selection = list(csv.reader(handle))
    assert selection[0] == ["row", "group"]
    # The table's line numbers (the header is line 1) and each row's group.
    assert [int(row) for row, _ in selection[1:]] == list(range(2, 42))
    assert [int(group) for _, group in selection[1:]] == groups.tolist()
    with open(tmp_path / "out" / "scores.csv", newline="") as handle:
        scores = list(csv.reader(handle))
    assert scores[0] == ["row", "label", "PNS1", "PNS2", "cluster"]
    # The clusters shown in the app, numbered from 1.
    assert [int(row[-1]) for row in scores[1:]] == (
        table_result.mode_clusters.labels + 1).tolist()


def test_no_file_replaces_the_source_or_the_session(table_result, tmp_path):
    groups = np.zeros(40, dtype=np.int8)
    # A set written into the folder of a source named like one of its files.
    named_like = tmp_path / "scores.csv"
    named_like.write_text(open(table_result.dataset.source).read())
    clashing = replace(table_result, dataset=replace(table_result.dataset,
                                                     source=str(named_like)))
    with pytest.raises(OutputClashError, match="the data set's source file"):
        write_app_results(clashing, groups, tmp_path)
    session = tmp_path / "work" / "summary.json"
    session.parent.mkdir()
    session.write_text("the user's session")
    with pytest.raises(OutputClashError, match="the open session"):
        write_app_results(table_result, groups, session.parent, session=session)
    assert session.read_text() == "the user's session"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["scores.csv", "summary.json",
                                                          "work"]


def test_a_selection_of_another_size_is_refused(table_result, tmp_path):
    with pytest.raises(ValueError, match="39 selection groups for 40 rows"):
        write_app_results(table_result, np.zeros(39, dtype=np.int8), tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert selection_table(np.array([3, 7]), np.array([0, 2])) == "row,group\n3,0\n7,2\n"


def test_a_folder_of_the_users_files_asks_first_and_keeps_them(table_result, tmp_path):
    """Issue 29, item 1: the app's export refuses (and the window asks) before writing into
    a folder holding files stpca-gui did not write; Write Anyway replaces only the files
    named like an output; a second export then needs no question."""
    from stpca_gui.files.output_folder import ForeignFilesError
    from stpca_gui.model.result_export import foreign_question

    groups = np.zeros(40, dtype=np.int8)
    (tmp_path / "scores.csv").write_text("the user's scores")
    (tmp_path / "thesis.tex").write_text("the user's thesis")
    with pytest.raises(ForeignFilesError) as refused:
        write_app_results(table_result, groups, tmp_path)
    assert "scores.csv, thesis.tex" in foreign_question(refused.value)
    assert (tmp_path / "scores.csv").read_text() == "the user's scores"
    write_app_results(table_result, groups, tmp_path, overwrite=True)
    assert (tmp_path / "scores.csv").read_text().startswith("row,label,PNS1")
    assert (tmp_path / "thesis.tex").read_text() == "the user's thesis"
    (tmp_path / "thesis.tex").unlink()
    write_app_results(table_result, groups, tmp_path)  # its own files only: no question
