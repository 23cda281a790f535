"""The clusters of a fit taken back to the structures: medoid frames as PDB files.

A per-frame fit has one row per frame: each cluster's representative is its medoid on the
torus (the member with the least sum of geodesic distances to the other members), written
as a PDB file of that frame, with ``clusters.csv`` (run, frame, time → cluster, distance to
the medoid). A pooled fit has one row per frame and residue: ``residue_clusters.csv``
counts how often each residue visits each cluster.
"""

from __future__ import annotations

import csv
import io
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ...core import wrap_angles
from ...files.output_folder import check_output_folder, output_folder
from .frames import RunFrames, run_of_rows
from .selections import quoted_selection, select_atoms
from .settings import StructureError

__all__ = ["EXACT_MEDOID_SIZE", "Representatives", "output_names", "torus_distances",
           "torus_medoid", "write_representatives"]

#: Clusters up to this size get their exact medoid (m² distances, in blocks); larger ones
#: the best of ``MEDOID_CANDIDATES`` members (each scored against every member).
EXACT_MEDOID_SIZE = 4000
MEDOID_CANDIDATES = 1000
_BLOCK_PAIRS = 2_000_000


def torus_distances(angles: ArrayLike, point: ArrayLike) -> NDArray[np.float64]:
    """Geodesic distances on the flat torus T^d from each row of ``angles`` to ``point``
    (radians): the Euclidean norm of the wrapped differences."""
    difference = wrap_angles(np.asarray(angles, dtype=np.float64) - np.asarray(point))
    return np.sqrt(np.einsum("ij,ij->i", difference, difference))


def _distance_sums(angles: NDArray[np.float64], candidates: NDArray[np.intp]
                   ) -> NDArray[np.float64]:
    """Sum of torus distances from each candidate row to every row, in blocks."""
    m = len(angles)
    step = max(1, _BLOCK_PAIRS // max(m, 1))
    sums = np.empty(len(candidates))
    for first in range(0, len(candidates), step):
        chosen = angles[candidates[first:first + step]]
        difference = wrap_angles(chosen[:, None, :] - angles[None, :, :])
        sums[first:first + step] = np.sqrt((difference ** 2).sum(axis=2)).sum(axis=1)
    return sums


def torus_medoid(angles: ArrayLike, seed: int = 0) -> int:
    """Row of ``angles`` (radians, shape (m, d)) with the least sum of torus geodesic
    distances to all rows: exact up to :data:`EXACT_MEDOID_SIZE` rows, else the best of
    :data:`MEDOID_CANDIDATES` random rows (``seed``)."""
    values = np.asarray(angles, dtype=np.float64)
    if values.ndim != 2 or len(values) == 0:
        raise ValueError("a medoid needs a non-empty (m, d) array of angles")
    m = len(values)
    if m <= EXACT_MEDOID_SIZE:
        candidates = np.arange(m)
    else:
        candidates = np.sort(np.random.default_rng(seed).choice(m, MEDOID_CANDIDATES,
                                                                  replace=False))
    return int(candidates[np.argmin(_distance_sums(values, candidates))])


@dataclass(frozen=True)
class Representatives:
    """What :func:`write_representatives` wrote.

    Attributes
    ----------
    files : list of Path
    medoid_frames : dict of int to int
        Per-frame fits: cluster number (1…K) → the frame of its medoid (empty for pooled
        fits).
    medoid_runs : dict of int to str
        Per-frame fits: cluster number (1…K) → the run (trajectory label) of its medoid.
    """

    files: list[Path]
    medoid_frames: dict[int, int]
    medoid_runs: dict[int, str] = field(default_factory=dict)


def _csv(header: list[str], rows: list[list[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


class _OneTrajectory:
    """The frames of a universe's own trajectory, as one run (for callers that hold a
    universe)."""

    def __init__(self, universe: Any) -> None:
        self.universe = universe

    def check(self, labels: Any, frames: NDArray[np.int64], where: str) -> None:
        n_frames = int(self.universe.trajectory.n_frames)
        if len(frames) and (frames.min() < 0 or frames.max() >= n_frames):
            raise StructureError(f"{where}: the fit has frame {int(frames.max())}, but the "
                                 f"trajectory has {n_frames} frame(s): not the fitted "
                                 "trajectory")

    def goto(self, label: str, frame: int) -> Any:
        self.universe.trajectory[int(frame)]
        return self.universe

    def inputs(self) -> list[tuple[str, str]]:
        files = [getattr(self.universe, "filename", None),
                 getattr(self.universe.trajectory, "filename", None)]
        return [("a structure file", str(f)) for f in files if isinstance(f, str | Path)]


def output_names(cluster_ids: ArrayLike, *, pooled: bool) -> list[str]:
    """The files :func:`write_representatives` writes for these clusters."""
    if pooled:
        return ["residue_clusters.csv"]
    # Clusters are numbered 1 … K for people (the labels 0 … K−1).
    return ["clusters.csv", *[f"cluster_{int(k) + 1}.pdb" for k in np.unique(cluster_ids)]]


def write_representatives(out_dir: str | Path, source: Any, angles: ArrayLike,
                          clusters: ArrayLike, provenance: Mapping[str, ArrayLike], *,
                          atoms: str = "all", where: str = "trajectory",
                          inputs: Sequence[tuple[str, Any]] = (), overwrite: bool = False,
                          option: str = "pass --overwrite") -> Representatives:
    """Write the representatives of a fit's clusters into ``out_dir`` (all files or none).

    Parameters
    ----------
    out_dir : path
    source : RunFrames or MDAnalysis.Universe
        The runs the angles were read from (:class:`~stpca_gui.io.structures.frames.RunFrames`),
        or a universe whose trajectory holds every frame (one run).
    angles : array, shape (n, d)
        The fitted angles, radians.
    clusters : array of int, shape (n,)
        Cluster of every row, 0-based (e.g. the PNS1 mode clusters' labels). The files
        number the clusters 1…K, as the scores tables and the app do: cluster label k is
        ``cluster_{k+1}.pdb`` and cluster k + 1 in clusters.csv and residue_clusters.csv.
    provenance : mapping
        ``frame`` per row (and ``trajectory``, the run, with a RunFrames of several runs;
        ``time`` is copied into clusters.csv); pooled rows also ``segid``, ``resid`` and
        ``resname``.
    atoms : str
        Selection of the atoms written to the PDB files.
    where : str
        The file named in messages.
    inputs, overwrite, option
        As for :func:`~stpca_gui.files.output_folder.output_folder`: ``out_dir`` is an
        output folder written as a whole (files of an earlier run removed), never over an
        input (the runs' files are added to ``inputs``), refused when it holds files
        stpca-gui did not write unless ``overwrite``.

    Raises
    ------
    StructureError
        Frames beyond their run, runs that are not there, or an atom selection matching
        nothing.
    OSError
        The folder cannot be written (nothing is left half written).
    """
    values = np.asarray(angles, dtype=np.float64)
    labels = np.asarray(clusters).astype(np.int64)
    frames = np.asarray(provenance["frame"]).astype(np.int64)
    if not len(values) == len(labels) == len(frames):
        raise ValueError("angles, clusters and frames must have one entry per row")
    runs = source if isinstance(source, RunFrames) else _OneTrajectory(source)
    run_of_row = run_of_rows(runs, provenance, len(frames), where)
    runs.check(run_of_row, frames, where)
    cluster_ids = np.unique(labels)
    inputs = [*inputs, *runs.inputs()]
    names = output_names(cluster_ids, pooled="resid" in provenance)
    settings = {"kind": "representatives", "inputs": inputs, "overwrite": overwrite,
                "option": option}
    check_output_folder(out_dir, names, **{k: v for k, v in settings.items() if k != "kind"})
    if "resid" in provenance:
        text = _residue_table(provenance, labels, cluster_ids)
        with output_folder(out_dir, names, **settings) as tmp:
            tmp["residue_clusters.csv"].write_text(text, encoding="utf-8", newline="")
        return Representatives([Path(out_dir) / "residue_clusters.csv"], {})
    universe = runs.goto(str(run_of_row[0]), int(frames[0])) if len(frames) else None
    group = select_atoms(universe, atoms, where)
    if group.n_atoms == 0:
        raise StructureError(f"{where}: the atom selection {quoted_selection(atoms)} "
                             "matches no atoms")
    medoids: dict[int, int] = {}
    distance = np.empty(len(values))
    for k in cluster_ids:
        members = np.flatnonzero(labels == k)
        medoid = members[torus_medoid(values[members])]
        medoids[int(k)] = int(medoid)
        distance[members] = torus_distances(values[members], values[medoid])
    carried = [name for name in ("trajectory", "time") if name in provenance]
    columns = [np.asarray(provenance[name]).tolist() for name in carried]
    rows = [[*(c[i] for c in columns), int(f), int(c) + 1, f"{np.degrees(d):.6f}",
             int(i == medoids[int(c)])]
            for i, (f, c, d) in enumerate(zip(frames, labels, distance, strict=True))]
    header = [*carried, "frame", "cluster", "distance_to_medoid_deg", "medoid"]
    with output_folder(out_dir, names, **settings) as tmp:
        tmp["clusters.csv"].write_text(_csv(header, rows), encoding="utf-8", newline="")
        for k, row in medoids.items():
            runs.goto(str(run_of_row[row]), int(frames[row]))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # e.g. missing PDB attributes filled in
                group.write(str(tmp[f"cluster_{k + 1}.pdb"]))
    return Representatives([Path(out_dir) / name for name in names],
                           {k + 1: int(frames[row]) for k, row in medoids.items()},
                           {k + 1: str(run_of_row[row]) for k, row in medoids.items()})


def _residue_table(provenance: Mapping[str, ArrayLike], labels: NDArray[np.int64],
                   cluster_ids: NDArray[np.int64]) -> str:
    """Residues × clusters: rows in that residue, per cluster."""
    keys = list(zip(*(np.asarray(provenance[c]).tolist()
                      for c in ("segid", "resid", "resname")), strict=True))
    residues = list(dict.fromkeys(keys))
    index = {key: r for r, key in enumerate(residues)}
    rows_of = np.array([index[key] for key in keys], dtype=np.intp)
    column = np.searchsorted(cluster_ids, labels)
    counts = np.zeros((len(residues), len(cluster_ids)), dtype=np.int64)
    np.add.at(counts, (rows_of, column), 1)
    header = ["segid", "resid", "resname", "rows", *[f"cluster_{k + 1}" for k in cluster_ids]]
    rows = [[*key, int(c.sum()), *c.tolist()] for key, c in zip(residues, counts, strict=True)]
    return _csv(header, rows)
