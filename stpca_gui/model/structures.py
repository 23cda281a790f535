"""Data sets read from structures and trajectories, and their clusters taken back there.

Qt-free glue between :mod:`stpca_gui.io.structures` (MDAnalysis) and the app's
:class:`~stpca_gui.model.dataset.Dataset`: the dialog's and the CLI's reading
(:func:`read_structure_dataset`), the record that sessions and scripts keep
(``Dataset.structure``), and the representatives of a fit's clusters
(:func:`export_representatives`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..io.structures import (
    LABEL_CHOICES,
    DihedralSettings,
    Representatives,
    StructureError,
    TorsionTable,
    file_sha256,
    open_universe,
    read_torsions,
    write_representatives,
)
from ..io.structures.reader import ProgressCallback
from .dataset import Dataset

__all__ = ["LABEL_CHOICES", "dataset_from_torsions", "export_representatives",
           "read_structure_dataset", "structure_files_unchanged"]

def dataset_from_torsions(table: TorsionTable, label_by: str = "residue class") -> Dataset:
    """The app's data set of a torsion table: radians, provenance and the record of the
    files (paths and SHA-256) and settings that rebuild it."""
    files = [table.topology, *table.trajectories]
    structure = {
        "topology": str(table.topology),
        "trajectories": [str(p) for p in table.trajectories],
        "sha256": {str(p): file_sha256(p) for p in files},
        "settings": table.settings.to_dict(),
        "label_by": label_by,
    }
    return Dataset(
        angles=np.deg2rad(table.angles),  # wrapped by Dataset, as exported scripts do
        column_names=table.column_names,
        labels=table.labels(label_by),
        source=str(table.trajectories[-1] if table.trajectories else table.topology),
        description=table.describe(),
        dropped=(),
        unit_note="torsions in degrees, converted to radians",
        structure=structure,
        provenance={name: np.asarray(values) for name, values in table.provenance().items()},
    )


def read_structure_dataset(topology: str | Path, trajectories: Sequence[str | Path] = (),
                           settings: DihedralSettings | None = None,
                           label_by: str = "residue class", *,
                           callback: ProgressCallback | None = None) -> Dataset:
    """Read torsions (:func:`~stpca_gui.io.structures.read_torsions`) into a data set.

    Raises
    ------
    StructureError
        Bad files, selection, set or frames (a ValueError naming the file).
    FitCancelled
        When ``callback`` returned True.
    """
    table = read_torsions(topology, trajectories, settings, callback=callback)
    return dataset_from_torsions(table, label_by)


def structure_files_unchanged(structure: dict[str, Any]) -> bool:
    """Whether every file of a ``Dataset.structure`` record is there with its SHA-256."""
    try:
        return all(Path(path).is_file() and file_sha256(path) == digest
                   for path, digest in structure["sha256"].items())
    except (OSError, KeyError, TypeError, AttributeError):
        return False


def export_representatives(dataset: Dataset, clusters: np.ndarray, out_dir: str | Path,
                           topology: str | Path | None = None,
                           trajectories: Sequence[str | Path] | None = None, *,
                           atoms: str = "all") -> Representatives:
    """Write the representatives of a fit's clusters (per-frame: medoid PDB files and
    clusters.csv; pooled: residue_clusters.csv).

    Parameters
    ----------
    dataset : Dataset
        The fitted data, with ``provenance`` (read from a structure, or a table of
        ``stpca dihedrals``).
    clusters : array of int, shape (n,)
        The cluster of every row (the session's PNS1 mode clusters).
    out_dir : path
    topology, trajectories : paths, optional
        The structure files; default: those the data set was read from.
    atoms : str
        Selection of the atoms written to the PDB files.

    Raises
    ------
    StructureError
        No provenance, files that do not match the fitted frames, bad selections.
    """
    provenance = dataset.provenance or {}
    if "frame" not in provenance:
        raise StructureError(f"{dataset.source}: the data have no frame column, so their "
                             "clusters cannot be mapped back to a structure; read them with "
                             "stpca dihedrals or File → Open Structure or Trajectory…")
    record = dataset.structure or {}
    if topology is None:
        if not record:
            raise StructureError(f"{dataset.source}: give the topology (and trajectory) the "
                                 "angles were read from")
        topology, trajectories = record["topology"], record["trajectories"]
    trajectories = list(trajectories or ())
    # Pooled rows map to residues (no coordinates are written), but their frames are still
    # checked against the trajectory.
    universe = open_universe(topology, trajectories)
    where = str(trajectories[-1]) if trajectories else str(topology)
    return write_representatives(out_dir, universe, dataset.angles, clusters, provenance,
                                 atoms=atoms, where=where)
