"""Data sets read from structures and trajectories, and their clusters taken back there.

Qt-free glue between :mod:`stpca_gui.io.structures` (MDAnalysis) and the app's
:class:`~stpca_gui.model.dataset.Dataset`: the dialog's and the CLI's reading
(:func:`read_structure_dataset`), the record that sessions and scripts keep
(``Dataset.structure``), and the representatives of a fit's clusters
(:func:`export_representatives`), taken from files checked against the record's
fingerprints.

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
    write_representatives,
)
from ..io.structures.frames import RunFrames
from ..io.structures.reader import ProgressCallback
from ..io.structures.representatives import output_names
from .dataset import Dataset

__all__ = ["LABEL_CHOICES", "dataset_from_torsions", "export_representatives", "frame_numbers",
           "read_structure_dataset", "structure_files_unchanged"]

#: Bytes per row a pooled data set adds to its angles (labels and provenance, as numpy
#: text and numbers), for the memory check before reading: counted generously.
_POOLED_ROW_BYTES = 160
_PER_FRAME_ROW_BYTES = 96


def _frozen(values: NDArray) -> NDArray:
    """``values`` made read-only, and the array owning its memory too (a view of a spent
    table's buffer), to hand over to a Dataset without a copy."""
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
    provenance = dataset.provenance or {}
    if "frame" not in provenance:
        raise StructureError(f"{where}: the data have no frame column, so their clusters "
                             "cannot be mapped back to a structure; read them with "
                             "stpca dihedrals or File → Open Structure or Trajectory…")
    frames = frame_numbers(provenance["frame"], where)
    rows = {**provenance, "frame": frames}
    # Outputs over inputs (or over a user's files) are refused before any file is read.
    given = [("the topology", topology),
             *(("a trajectory", path) for path in trajectories or ())]
    check_output_folder(out_dir, output_names(clusters, pooled="resid" in provenance),
                        inputs=[*inputs, *given], overwrite=overwrite, option=option)
    if dataset.structure is not None:
        record = check_structure_record(dataset.structure, where)
        topology, files = check_fingerprints(record, topology, trajectories,
                                             where=f"the data of {where}")
        given = dict(zip(record["trajectories"], map(str, files), strict=True))
        runs = [{**run, "files": [given.get(f, f) for f in run["files"]]}
                for run in record_runs(record)]
        if "trajectory" not in provenance and len(runs) == 1:
            rows["trajectory"] = np.full(len(frames), runs[0]["label"])
        source = RunFrames(topology, runs)
    elif topology is None:
        raise StructureError(f"{where}: give the topology (and trajectories) the angles "
                             "were read from")
    else:
        source = RunFrames.of_files(topology, trajectories or (),
                                    concatenate="trajectory" not in provenance)
    with source:
        return write_representatives(out_dir, source, dataset.angles, clusters, rows,
                                     atoms=atoms, where=where, inputs=inputs,
                                     overwrite=overwrite, option=option)


def frame_numbers(values: Any, where: str) -> NDArray[np.int64]:
    """The frame column as integers (a table's provenance is text), refusing others."""
    try:
        frames = np.asarray(values).astype(np.float64)
    except (TypeError, ValueError):
        raise StructureError(f"{where}: the frame column does not hold frame numbers"
                             ) from None
    if not np.all(np.isfinite(frames)) or np.any(frames != np.round(frames)) or (
            len(frames) and (frames.min() < 0 or frames.max() >= 2**53)):
        raise StructureError(f"{where}: the frame column does not hold frame numbers "
                             "(whole numbers from 0)")
    return frames.astype(np.int64)
