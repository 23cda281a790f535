"""The files *File → Export Results…* writes: the result set of the command line
(:data:`~stpca_gui.io.export.RESULT_FILES`: scores, embedding, principal curve, summary) and
the app's selection, written as one set (all or none replaced) and never over an input.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..files.output_folder import ForeignFilesError, check_output_folder
from ..io import RESULT_FILES, result_file_names, write_results
from .analysis import AnalysisResult

__all__ = ["APP_RESULT_FILES", "ASKED", "SELECTION_FILE", "foreign_question", "selection_table",
           "write_app_results"]

#: How the app lets the user write into a folder holding others' files (for messages).
ASKED = "answer Write Anyway when the app asks"

#: The app's selection: one row per sample, its row id and selection group (0 = none).
SELECTION_FILE = "selection.csv"
#: Every file of the app's result set, in the order written.
APP_RESULT_FILES: tuple[str, ...] = (*RESULT_FILES, SELECTION_FILE)


def foreign_question(error: ForeignFilesError) -> str:
    """The question the app asks before writing into a folder holding others' files."""
    shown = ", ".join(error.names[:5]) + (f" and {len(error.names) - 5} more"
                                          if len(error.names) > 5 else "")
    return (f"{error.folder} holds files stpca-gui did not write or that changed since "
            f"({shown}). Write anyway? Files named like an output are replaced; the others "
            "are kept.")


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
                      session: str | os.PathLike[str] | None = None,
                      overwrite: bool = False) -> list[Path]:
    """Write :data:`APP_RESULT_FILES` of ``result`` and the selection ``groups`` into
    ``folder``, with the state trajectories of data whose rows are frames
    (:func:`~stpca_gui.io.export.result_file_names`).

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
    overwrite : bool
        Write even when the folder holds files stpca-gui did not write (the app asked).

    Returns
    -------
    list of pathlib.Path
        The files written (:func:`~stpca_gui.io.export.write_results`).

    Raises
    ------
    OSError
        As :func:`~stpca_gui.io.export.write_results` (then no file of the set has
        changed), and :class:`~stpca_gui.files.clash.OutputClashError` when a file would
        replace the data set's source file or the session.
    ValueError
        When ``groups`` does not have one entry per sample.
    """
    folder = Path(folder)
    dataset = result.dataset
    inputs = [("the open session", session or "")]
    if not dataset.is_demo:
        inputs.append(("the data set's source file", dataset.source))
    names = [*result_file_names(dataset.provenance), SELECTION_FILE]
    check_output_folder(folder, names, inputs=inputs, overwrite=overwrite,
                        option=ASKED)
    selection = selection_table(dataset.row_ids, groups)
    return write_results(result.model, folder, dataset.column_names, dataset.row_ids,
                         labels=dataset.labels, provenance=dataset.provenance,
                         clusters=result.mode_clusters,
                         extra_files={SELECTION_FILE: selection}, inputs=inputs,
                         overwrite=overwrite, option=ASKED, source=str(dataset.source))
