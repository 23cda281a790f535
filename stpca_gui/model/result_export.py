"""The files *File → Export Results…* writes: the result set of the command line
(:data:`~stpca_gui.io.export.RESULT_FILES`: scores, embedding, principal curve, summary) and
the app's selection, written as one set (all or none replaced) and never over an input.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..files.clash import check_outputs
from ..io import RESULT_FILES, write_results
from .analysis import AnalysisResult

__all__ = ["APP_RESULT_FILES", "SELECTION_FILE", "selection_table", "write_app_results"]

#: The app's selection: one row per sample, its row id and selection group (0 = none).
SELECTION_FILE = "selection.csv"
#: Every file of the app's result set, in the order written.
APP_RESULT_FILES: tuple[str, ...] = (*RESULT_FILES, SELECTION_FILE)


def selection_table(row_ids: NDArray[np.integer], groups: NDArray[np.integer]) -> str:
    """The text of :data:`SELECTION_FILE`: ``row,group`` then one line per sample.

    Raises
    ------
    ValueError
        When there is not one group per row id.
    """
    if np.shape(row_ids) != np.shape(groups):
        raise ValueError(f"{np.size(groups)} selection groups for {np.size(row_ids)} rows")
    lines = ["row,group"] + [f"{r},{g}" for r, g in zip(row_ids, groups, strict=True)]
    return "\n".join(lines) + "\n"


def write_app_results(result: AnalysisResult, groups: NDArray[np.integer],
                      folder: str | os.PathLike[str], *,
                      session: str | os.PathLike[str] | None = None) -> list[Path]:
    """Write :data:`APP_RESULT_FILES` of ``result`` and the selection ``groups`` into
    ``folder``.

    Parameters
    ----------
    result : AnalysisResult
        The fit; its data set gives the column names, row ids, labels and provenance, its
        clusters the ``cluster`` column and summary.json's clusters.
    groups : ndarray of int
        The selection group of every sample (0 = not selected).
    folder : path-like
        Created if needed.
    session : path-like, optional
        The session file open in the app, which no result file may replace.

    Returns
    -------
    list of pathlib.Path
        The files written.

    Raises
    ------
    OSError
        When a file would replace the data set's source file or the session
        (:class:`~stpca_gui.files.clash.OutputClashError`), or cannot be written; then no
        file of the set has changed.
    ValueError
        When ``groups`` does not have one entry per sample.
    """
    folder = Path(folder)
    dataset = result.dataset
    inputs = [("the open session", session or "")]
    if not dataset.is_demo:
        inputs.append(("the data set's source file", dataset.source))
    check_outputs([(f"the result file {name}", folder / name) for name in APP_RESULT_FILES],
                  inputs)
    selection = selection_table(dataset.row_ids, groups)
    return write_results(result.model, folder, dataset.column_names, dataset.row_ids,
                         labels=dataset.labels, provenance=dataset.provenance,
                         clusters=result.mode_clusters,
                         extra_files={SELECTION_FILE: selection}, source=str(dataset.source))
