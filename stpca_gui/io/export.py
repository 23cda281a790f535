"""Writing ST-PCA results: CSV tables and a JSON summary, atomically."""

from __future__ import annotations

import csv
import io
import json
import platform
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import __version__
from ..core.circstats.mode_clustering import ModeClustering
from ..core.stpca import ScaledTorusPCA
from ..core.summary import fit_summary, mode_cluster_items, summary_json
from ..files.atomic import atomic_path
from ..files.output_folder import output_folder
from .coded import CodedColumn
from .state_trajectories import state_file_names, state_trajectories

#: The files :func:`write_results` writes, in order.
RESULT_FILES = ("scores.csv", "embedding.csv", "principal_curve.csv", "summary.json")


def result_file_names(provenance: Mapping[str, Any] | None = None) -> list[str]:
    """The files :func:`write_results` writes for data with this provenance (with clusters):
    :data:`RESULT_FILES`, and the state trajectories of rows that are frames."""
    return [*RESULT_FILES, *state_file_names(provenance)]


def _csv_text(header: Sequence[str] | None, columns: Sequence[Any]) -> str:
    # The csv module quotes labels holding commas or quotes; floats keep every digit.
    arrays = [np.asarray(c) for c in columns]
    if header is None and arrays and all(a.dtype.kind in "iuf" for a in arrays):
        return _numeric_csv_text(arrays)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    rows = list(zip(*(a.tolist() for a in arrays), strict=True))
    if header is not None:
        rows.insert(0, list(header))
    if not (any("\r" in str(cell) for cell in header or ())
            or any(_has_carriage_return(c) for c in columns)):
        writer.writerows(rows)
        return buffer.getvalue()
    # With "\n" as line end the csv module does not quote a lone "\r", which readers
    # take for a line break; "\r\n" makes it quote both, and each row's end is put back.
    quoting = csv.writer(buffer, lineterminator="\r\n")
    lines = []
    for row in rows:
        buffer.seek(0)
        buffer.truncate()
        quoting.writerow(row)
        lines.append(buffer.getvalue()[:-2] + "\n")
    return "".join(lines)


def _has_carriage_return(column: Any) -> bool:
    """Whether a text cell of ``column`` holds "\r": per column, in numpy (a coded column
    by its distinct values), not by a Python test of every cell (a table of 10⁶ rows with
    a label column: 2.86 → 2.63 s of CPU)."""
    if isinstance(column, CodedColumn):
        column = column.categories
    values = np.asarray(column)
    if values.dtype.kind in "biufc":
        return False
    if values.dtype.kind == "U":
        return bool(values.size) and bool(np.any(np.char.find(values, "\r") >= 0))
    return any(isinstance(value, str) and "\r" in value for value in values.ravel().tolist())


def _numeric_csv_text(columns: Sequence[NDArray]) -> str:
    """The rows of numeric columns as the csv module writes them (``repr`` of each Python
    int and float: every float round-trips), in a third less time: one ``%`` format per
    row instead of the writer's per-cell dispatch (a scores table of 10⁶ rows is
    formatted in seconds)."""
    line = ",".join(["%r"] * len(columns)) + "\n"
    return "".join(map(line.__mod__, zip(*(c.tolist() for c in columns), strict=True)))


def _scores_header(n_components: int, labelled: bool, provenance: Sequence[str] = ()
                   ) -> list[str]:
    """Columns of a scores table: the row id, the label when there is one, the provenance
    columns (frame, residue … of angles read from a structure), PNS1..PNSd."""
    return ["row", *(["label"] if labelled else []), *provenance,
            *[f"PNS{k + 1}" for k in range(n_components)]]


def _with_clusters(header: list[str], columns: list[Any],
                   clusters: ModeClustering | None) -> tuple[list[str], list[Any]]:
    """Add the ``cluster`` column (1 … K, PNS1's mode cluster of every row) when known."""
    if clusters is None:
        return header, columns
    return [*header, "cluster"], [*columns, clusters.labels + 1]


def _scores_columns(ids: NDArray[np.int64], labels: Any, scores: NDArray[np.float64],
                    provenance: Sequence[Any] = ()) -> list[Any]:
    for column in provenance:
        if len(column) != len(ids):
            raise ValueError(f"provenance columns must have {len(ids)} rows, not "
                             f"{len(column)}")
    if labels is None:
        return [ids, *provenance, *scores.T]
    labels = np.asarray(labels).astype(str)
    if labels.shape != (len(ids),):
        raise ValueError(f"labels must have shape ({len(ids)},), got {labels.shape}")
    return [ids, labels, *provenance, *scores.T]


def result_tables(
    model: ScaledTorusPCA,
    column_names: Sequence[str],
    row_ids: NDArray[np.int64] | None = None,
    labels: Sequence[str] | NDArray[np.str_] | None = None,
    provenance: Mapping[str, Any] | None = None,
    clusters: ModeClustering | None = None,
) -> dict[str, str]:
    """CSV texts of the scores, embedding and principal curve of a fitted model.

    Parameters
    ----------
    model : ScaledTorusPCA
        A fitted model.
    column_names : sequence of str
        Names of the angle columns (for the curve table).
    row_ids : array of int, optional
        Identifier of each sample (e.g. its line in the input file); default 1..n.
    labels : sequence of str, optional
        A label per sample (the input's label column); written as the ``label`` column of
        the scores table, after ``row``.
    provenance : mapping of str to array, optional
        Columns copied into the scores table after the label (e.g. ``frame``, ``resid`` of
        torsions read from a structure).
    clusters : ModeClustering, optional
        PNS1's mode clusters of the rows; written as the last column of the scores table,
        ``cluster`` (1 … K).
    """
    n, d = model.scores_.shape
    ids = np.arange(1, n + 1) if row_ids is None else np.asarray(row_ids)
    carried = dict(provenance or {})
    scores = _csv_text(*_with_clusters(
        _scores_header(d, labels is not None, list(carried)),
        _scores_columns(ids, labels, model.scores_, [np.asarray(c) for c in carried.values()]),
        clusters))
    embedding = _csv_text(["row", *[f"y{k + 1}" for k in range(d + 1)]],
                          [ids, *model.embedding_.T])
    curve = model.principal_curve_
    curve_text = _csv_text(
        ["pns1", *column_names, "break_after", "stress"],
        [curve.parameter, *curve.angles.T, curve.breaks.astype(np.int64), curve.stress],
    )
    return {"scores.csv": scores, "embedding.csv": embedding, "principal_curve.csv": curve_text}


def _versions() -> dict[str, str]:
    import numba
    import scipy

    return {"stpca-gui": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "scipy": scipy.__version__, "numba": numba.__version__}


def summary_dict(model: ScaledTorusPCA, clusters: ModeClustering | None = None, *,
                 angle_names: Sequence[str] | None = None, **extra: Any) -> dict[str, Any]:
    """JSON-ready summary of a fitted model: :func:`~stpca_gui.core.summary.fit_summary`
    (with the angles' names), PNS1's mode clusters when given
    (:func:`~stpca_gui.core.summary.mode_cluster_items`), the versions of the software and
    ``extra`` (e.g. the input file)."""
    items = fit_summary(model, angle_names)
    if clusters is not None:
        items += mode_cluster_items(clusters)
    summary = summary_json(items)
    summary["versions"] = _versions()
    summary.update(extra)
    return summary


def summary_text(model: ScaledTorusPCA, clusters: ModeClustering | None = None, *,
                 angle_names: Sequence[str] | None = None, **extra: Any) -> str:
    """:func:`summary_dict` as strict JSON text (``null`` for missing numbers, never NaN).

    Raises
    ------
    ValueError
        When a value is not finite: the facts are converted at their source, so this only
        guards against a NaN slipping in again.
    """
    return json.dumps(summary_dict(model, clusters, angle_names=angle_names, **extra),
                      indent=2, allow_nan=False) + "\n"


def write_results(
    model: ScaledTorusPCA,
    out_dir: str | Path,
    column_names: Sequence[str],
    row_ids: NDArray[np.int64] | None = None,
    *,
    labels: Sequence[str] | NDArray[np.str_] | None = None,
    provenance: Mapping[str, Any] | None = None,
    clusters: ModeClustering | None = None,
    extra_files: Mapping[str, str | bytes] | None = None,
    inputs: Sequence[tuple[str, Any]] = (),
    overwrite: bool = False,
    chosen: Sequence[str] = (),
    option: str = "pass --overwrite",
    **summary_extra: Any,
) -> list[Path]:
    """Write scores.csv, embedding.csv, principal_curve.csv and summary.json into a folder,
    and, for rows that are frames of trajectories (one row per frame) with clusters, the
    state trajectories (:mod:`~stpca_gui.io.state_trajectories`: ``states.csv``,
    ``states_k.npy``; the names :func:`result_file_names` lists; none for rows whose
    frames repeat in a run, whose results are written all the same).

    Parameters
    ----------
    model, column_names, row_ids, labels, provenance, clusters
        As for :func:`result_tables`; the clusters also go to summary.json.
    out_dir : str or path-like
        The folder; created if needed.
    extra_files : mapping of str to str or bytes, optional
        More files of the set (name to text, or to bytes), e.g. the app's
        ``selection.csv`` (the state trajectories are written without being asked).
    inputs, overwrite, chosen, option
        As for :func:`~stpca_gui.files.output_folder.output_folder`: the folder is an
        output folder written as a whole, never over an input, refused when it holds files
        stpca-gui did not write unless ``overwrite``.
    **summary_extra
        Added to summary.json (e.g. the input file).

    Returns
    -------
    list of pathlib.Path
        The files written.

    Raises
    ------
    OSError
        Naming the user's path when a file cannot be written; the set is written with
        :func:`~stpca_gui.files.atomic.atomic_file_set`, so then no file has changed.
        :class:`~stpca_gui.files.output_folder.ForeignFilesError` (an OSError) for a
        folder holding files stpca-gui did not write.
    """
    folder = Path(out_dir)
    texts: dict[str, str | bytes] = dict(
        result_tables(model, column_names, row_ids, labels, provenance, clusters))
    texts["summary.json"] = summary_text(model, clusters, angle_names=column_names,
                                         **summary_extra)
    states = None if clusters is None else state_trajectories(
        provenance, clusters.labels, where=str(summary_extra.get("input", "the data")),
        strict=False)
    if states is not None:
        texts.update(states.files((provenance or {}).get("time")))
    texts.update(extra_files or {})
    with output_folder(folder, texts, kind="results", inputs=inputs, overwrite=overwrite,
                       chosen=chosen, option=option) as temporaries:
        for name, tmp in temporaries.items():
            content = texts[name]
            if isinstance(content, bytes):
                tmp.write_bytes(content)
            else:
                tmp.write_text(content, encoding="utf-8", newline="")
    return [folder / name for name in texts]


#: A block of :func:`write_score_stream`: row ids, labels or None, scores, and (when the
#: stream has provenance columns) those columns' values of the block, in order.
ScoreRows = (tuple[NDArray[np.int64], Any, NDArray[np.float64]]
             | tuple[NDArray[np.int64], Any, NDArray[np.float64], Sequence[Any]])


def write_score_stream(path: str | Path, n_components: int, parts: Iterable[ScoreRows], *,
                       labelled: bool = False, provenance: Sequence[str] = ()) -> int:
    """Write a scores table (the columns of ``scores.csv``) from consecutive row blocks.

    Parameters
    ----------
    path : str or path-like
        The CSV file; its folder is created if needed.
    n_components : int
        Score columns (PNS1..PNSd).
    parts : iterable of (row ids, labels or None, scores)
        Consecutive blocks, consumed one at a time: a table of any length is written with
        one block in memory.
    labelled : bool
        Whether the blocks carry labels (a ``label`` column after ``row``).
    provenance : sequence of str
        Names of provenance columns written after the label (e.g. ``trajectory``,
        ``frame``, ``time`` of a ``stpca dihedrals`` table); then every block has a fourth
        item, those columns' values.

    Returns
    -------
    int
        Rows written.

    Raises
    ------
    OSError
        Naming ``path`` when it cannot be written. The file is written atomically: when
        anything raises before the end (a bad row of the input, an interrupt), no file is
        left and an old one is kept.
    """
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(f"cannot create the folder of {target}: {exc.strerror or exc}") from None
    rows = 0
    with atomic_path(target) as tmp, open(tmp, "w", encoding="utf-8", newline="") as handle:
        handle.write(_csv_text(_scores_header(n_components, labelled, provenance), []))
        for ids, labels, scores, *carried in parts:
            columns = [np.asarray(c) for c in carried[0]] if provenance else []
            if len(columns) != len(provenance):
                raise ValueError(f"each block must carry the {len(provenance)} provenance "
                                 "column(s) of the header")
            handle.write(_csv_text(None, _scores_columns(ids, labels, scores, columns)))
            rows += len(ids)
    return rows
