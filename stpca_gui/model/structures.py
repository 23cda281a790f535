"""Data sets read from structures and trajectories, and their clusters taken back there.

Qt-free glue between :mod:`stpca_gui.io.structures` (MDAnalysis) and the app's
:class:`~stpca_gui.model.dataset.Dataset`: the dialog's and the CLI's reading
(:func:`read_structure_dataset`), the record that sessions and scripts keep
(``Dataset.structure``), the structure demo (:func:`structure_demo_dataset`), and what
goes back to the structures — the representatives of a fit's clusters
(:func:`export_representatives`), the motion along a component (:func:`export_motion`)
and the selected frames with their medoid (:func:`export_selection_frames`) — taken from
files checked against the record's fingerprints.

Reading keeps memory near the size of the data set it makes: the torsions are read into
one array, converted to radians in place and handed to the data set without a copy, and
the provenance columns are built once (``benchmarks/bench_dihedrals.py`` measures the
peak).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core import wrap_angles
from ..files.output_folder import check_output_folder
from ..io.coded import CodedColumn
from ..io.state_trajectories import frame_numbers as _frame_numbers
from ..io.structures import (
    LABEL_CHOICES,
    DihedralSettings,
    Representatives,
    StructureError,
    TorsionTable,
    check_fingerprints,
    check_structure_record,
    read_torsions,
    record_runs,
    torus_medoid,
    write_representatives,
)
from ..io.structures.frames import RunFrames, run_of_rows
from ..io.structures.motion import check_trajectory_output, write_frames
from ..io.structures.reader import ProgressCallback
from ..io.structures.representatives import output_names
from .dataset import Dataset
from .demos import structure_demo
from .motion import DEFAULT_MOTION_FRAMES, MotionFrames, motion_frames

__all__ = [
    "LABEL_CHOICES",
    "dataset_from_torsions",
    "export_motion",
    "export_representatives",
    "export_selection_frames",
    "frame_numbers",
    "read_structure_dataset",
    "structure_demo_dataset",
    "structure_files_unchanged",
]

#: Bytes per row a data set adds to its angles (labels and provenance, codes and small
#: integers; about 15 bytes pooled), for the memory check before reading: counted generously.
_POOLED_ROW_BYTES = 32
_PER_FRAME_ROW_BYTES = 32


def _frozen(values: NDArray | CodedColumn) -> NDArray | CodedColumn:
    """``values`` made read-only, and the array owning its memory too (a view of a spent
    table's buffer), to hand over to a Dataset without a copy (a CodedColumn is read-only
    already)."""
    if isinstance(values, CodedColumn):
        return values
    root = values
    while isinstance(root.base, np.ndarray):
        root = root.base
    root.setflags(write=False)
    values.setflags(write=False)
    return values


def dataset_from_torsions(table: TorsionTable, label_by: str = "residue class", *,
                          in_place: bool = False) -> Dataset:
    """The app's data set of a torsion table: radians, provenance and the record of the
    files (paths, SHA-256, runs) and settings that rebuild it.

    Parameters
    ----------
    table : TorsionTable
    label_by : str
        One of :data:`LABEL_CHOICES`.
    in_place : bool, keyword-only
        Convert the table's angles to radians in place and hand them to the data set (the
        table is spent): no copy of the largest array.
    """
    structure = table.structure_record(label_by)
    if in_place:
        angles = table.angles
        np.deg2rad(angles, out=angles)
        angles = _frozen(wrap_angles(angles, out=angles))  # the bits Dataset would give
    else:
        angles = np.deg2rad(table.angles)  # wrapped by Dataset, as exported scripts do
    labels = table.labels(label_by)
    description = table.describe()
    if table.notes:
        description += "; " + "; ".join(table.notes)
    return Dataset(
        angles=angles,
        column_names=table.column_names,
        labels=None if labels is None else _frozen(labels),
        source=str((table.trajectories[-1] if table.trajectories else table.topology).absolute()),
        description=description,
        dropped=(),
        unit_note="torsions in degrees, converted to radians",
        structure=structure,
        provenance={name: _frozen(values) for name, values in table.provenance().items()},
    )


def read_structure_dataset(topology: str | Path, trajectories: Sequence[str | Path] = (),
                           settings: DihedralSettings | None = None,
                           label_by: str = "residue class", *,
                           callback: ProgressCallback | None = None) -> Dataset:
    """Read torsions (:func:`~stpca_gui.io.structures.read_torsions`) into a data set.

    Raises
    ------
    StructureError
        Bad files, selection, set or frames, or a data set beyond the memory available (a
        ValueError naming the file).
    FitCancelled
        When ``callback`` returned True.
    """
    settings = settings or DihedralSettings()
    row_bytes = _POOLED_ROW_BYTES if settings.layout == "pooled" else _PER_FRAME_ROW_BYTES
    table = read_torsions(topology, trajectories, settings, callback=callback,
                          row_bytes=row_bytes)
    return dataset_from_torsions(table, label_by, in_place=True)


def structure_demo_dataset(name: str, *, callback: ProgressCallback | None = None
                           ) -> Dataset:
    """The data set of a demo of :data:`~stpca_gui.model.demos.STRUCTURE_DEMOS`, read from
    its bundled files as any structure (with provenance and the files' record)."""
    topology, runs, settings = structure_demo(name)
    return read_structure_dataset(topology, runs, settings, callback=callback)


def structure_files_unchanged(structure: Mapping[str, Any]) -> bool:
    """Whether every file of a ``Dataset.structure`` record is there with its SHA-256."""
    try:
        check_fingerprints(check_structure_record(structure, "the record"))
    except (StructureError, OSError):
        return False
    return True


def export_representatives(dataset: Dataset, clusters: np.ndarray, out_dir: str | Path,
                           topology: str | Path | None = None,
                           trajectories: Sequence[str | Path] | None = None, *,
                           atoms: str = "all", where: str | None = None,
                           inputs: Sequence[tuple[str, Any]] = (), overwrite: bool = False,
                           option: str = "pass --overwrite") -> Representatives:
    """Write the representatives of a fit's clusters (per-frame: medoid PDB files and
    clusters.csv; pooled: residue_clusters.csv).

    When the data set records its structure files (read from a structure, or from a
    ``stpca dihedrals`` table with its sidecar), the files are checked against the
    recorded SHA-256 first, and nothing is written when one differs.

    Parameters
    ----------
    dataset : Dataset
        The fitted data, with ``provenance`` (read from a structure, or a table of
        ``stpca dihedrals``).
    clusters : array of int, shape (n,)
        The cluster of every row (the session's PNS1 mode clusters).
    out_dir : path
    topology, trajectories : paths, optional
        The structure files, in the order they were read; default: those the data set
        was read from.
    atoms : str
        Selection of the atoms written to the PDB files.
    where : str, optional
        What the data are called in messages (e.g. the session file).
    inputs, overwrite, option
        More inputs (e.g. the session file) and the output folder's settings, as for
        :func:`~stpca_gui.io.structures.representatives.write_representatives`.

    Raises
    ------
    StructureError
        No provenance, files that are not the recorded ones or do not match the fitted
        frames, bad selections.
    """
    where = where or dataset.source
    rows = _frame_rows(dataset, where)
    # Outputs over inputs (or over a user's files) are refused before any file is read.
    given = [("the topology", topology),
             *(("a trajectory", path) for path in trajectories or ())]
    check_output_folder(out_dir, output_names(clusters, pooled="resid" in rows),
                        inputs=[*inputs, *given], overwrite=overwrite, option=option)
    with _frame_source(dataset, rows, topology, trajectories, where) as source:
        return write_representatives(out_dir, source, dataset.angles, clusters, rows,
                                     atoms=atoms, where=where, inputs=inputs,
                                     overwrite=overwrite, option=option)


def _frame_rows(dataset: Dataset, where: str) -> dict[str, Any]:
    """The data's provenance with its frames as integers; refused without frames."""
    provenance = dataset.provenance or {}
    if "frame" not in provenance:
        raise StructureError(f"{where}: the data have no frame column, so their clusters "
                             "cannot be mapped back to a structure; read them with "
                             "stpca dihedrals or File → Open Structure or Trajectory…")
    return {**provenance, "frame": frame_numbers(provenance["frame"], where)}


def _frame_source(dataset: Dataset, rows: dict[str, Any], topology: str | Path | None,
                  trajectories: Sequence[str | Path] | None, where: str) -> RunFrames:
    """The runs the data were read from, from the files given (default: the recorded
    ones), checked against the record's SHA-256 when there is one. Adds a ``trajectory``
    column to ``rows`` for data of one recorded run without one.

    Raises
    ------
    StructureError
        A file that is not the recorded one, or no topology for data without a record.
    """
    if dataset.structure is not None:
        record = check_structure_record(dataset.structure, where)
        topology, files = check_fingerprints(record, topology, trajectories,
                                             where=f"the data of {where}")
        given = dict(zip(record["trajectories"], map(str, files), strict=True))
        runs = [{**run, "files": [given.get(f, f) for f in run["files"]]}
                for run in record_runs(record)]
        if "trajectory" not in rows and len(runs) == 1:
            rows["trajectory"] = np.full(len(rows["frame"]), runs[0]["label"])
        return RunFrames(topology, runs)
    if topology is None:
        raise StructureError(f"{where}: give the topology (and trajectories) the angles "
                             "were read from")
    return RunFrames.of_files(topology, trajectories or (),
                              concatenate="trajectory" not in rows)


def _picks(source: RunFrames, rows: Mapping[str, Any], chosen: Sequence[int], where: str
           ) -> list[tuple[str, int]]:
    """(run, frame) of chosen data rows, once every row's run and frame are known to be in
    the files (:func:`~stpca_gui.io.structures.frames.run_of_rows`, ``RunFrames.check``)."""
    runs = run_of_rows(source, rows, len(rows["frame"]), where)
    source.check(runs, rows["frame"], where)
    return [(str(runs[i]), int(rows["frame"][i])) for i in chosen]


def _per_frame_rows(dataset: Dataset, where: str, what: str) -> dict[str, Any]:
    rows = _frame_rows(dataset, where)
    if "resid" in rows:
        raise StructureError(f"{where}: the rows are residues in frames (a pooled table), "
                             f"so {what} has no frame to take; fit a per-frame table "
                             "(stpca dihedrals --layout per-frame)")
    return rows


def export_motion(dataset: Dataset, model: Any, component: int, out: str | Path,
                  topology: str | Path | None = None,
                  trajectories: Sequence[str | Path] | None = None, *,
                  n_frames: int = DEFAULT_MOTION_FRAMES, atoms: str = "all",
                  where: str | None = None, inputs: Sequence[tuple[str, Any]] = (),
                  overwrite: bool = False, option: str = "pass --overwrite"
                  ) -> MotionFrames:
    """Write the motion along a component (:func:`~stpca_gui.model.motion.motion_frames`)
    as a trajectory file: the frames nearest to evenly spaced points of it, in order.

    Parameters
    ----------
    dataset, model
        The fitted per-frame data (with frame provenance) and their model.
    component : int
        1…d.
    out : path
        ``.pdb`` (a model per frame), ``.dcd`` or ``.xtc``.
    topology, trajectories, atoms, where, inputs, overwrite, option
        As for :func:`export_representatives`.
    n_frames : int
        Frames wanted (as many as the data allow).

    Raises
    ------
    StructureError
        Data without frames or of pooled rows, files that are not the recorded ones.
    ValueError
        A component out of range, a fit without a principal curve.
    """
    where = where or dataset.source
    rows = _per_frame_rows(dataset, where, "a motion")
    given = [("the topology", topology),
             *(("a trajectory", path) for path in trajectories or ())]
    check_trajectory_output(out, inputs=[*inputs, *given], overwrite=overwrite, option=option)
    motion = motion_frames(model, dataset.angles, component, n_frames)
    with _frame_source(dataset, rows, topology, trajectories, where) as source:
        write_frames(out, source, _picks(source, rows, motion.rows, where), atoms=atoms,
                     where=where, kind="motion", inputs=inputs, overwrite=overwrite,
                     option=option)
    return motion


def export_selection_frames(dataset: Dataset, selected: NDArray[np.bool_],
                            trajectory_out: str | Path, medoid_out: str | Path, *,
                            atoms: str = "all", inputs: Sequence[tuple[str, Any]] = (),
                            overwrite: bool = False, option: str = "pass --overwrite"
                            ) -> int:
    """Write the selected frames as a trajectory (in data order) and their medoid on the
    torus as a PDB file, from the files the data were read from (checked against the
    record). Returns the medoid's data row.

    Raises
    ------
    StructureError
        No frame selected, data without frames or of pooled rows, changed files.
    """
    where = dataset.source
    rows = _per_frame_rows(dataset, where, "a selection")
    chosen = np.flatnonzero(np.asarray(selected, dtype=bool))
    if chosen.size == 0:
        raise StructureError("no frame is selected")
    for path in (trajectory_out, medoid_out):  # refused before the medoid's m² distances
        check_trajectory_output(path, inputs=inputs, overwrite=overwrite, option=option)
    medoid = int(chosen[torus_medoid(dataset.angles[chosen])])
    with _frame_source(dataset, rows, None, None, where) as source:
        *picks, medoid_pick = _picks(source, rows, [*chosen, medoid], where)
        write_frames(trajectory_out, source, picks, atoms=atoms, where=where,
                     kind="selection", inputs=inputs, overwrite=overwrite, option=option)
        write_frames(medoid_out, source, [medoid_pick], atoms=atoms, where=where,
                     kind="selection medoid", inputs=inputs, overwrite=overwrite,
                     option=option)
    return medoid


def frame_numbers(values: Any, where: str) -> NDArray[np.int64]:
    """The frame column as integers (a table's provenance is text), refusing others
    (:func:`~stpca_gui.io.state_trajectories.frame_numbers`, as a StructureError)."""
    try:
        return _frame_numbers(values, where)
    except ValueError as exc:
        raise StructureError(str(exc)) from None
