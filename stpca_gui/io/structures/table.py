"""A table of torsions read from a structure, and writing it as CSV."""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from .. import atomic_path  # re-exported by io (wherever the atomic writers live)
from .reader import ProgressCallback, compute_torsions, frame_range, open_universe, plan_torsions
from .settings import DihedralSettings

__all__ = ["LABEL_CHOICES", "PROVENANCE_COLUMNS", "TorsionTable", "file_sha256", "read_torsions"]

#: The provenance columns of the tables of ``stpca dihedrals``: never angles; ``stpca fit``
#: carries them into scores.csv.
PROVENANCE_COLUMNS = ("frame", "segid", "resid", "resname")
#: Where the labels of pooled rows may come from (:meth:`TorsionTable.labels`).
LABEL_CHOICES = ("residue class", "residue name", "chain", "none")
#: Rows formatted at a time when writing CSV.
_WRITE_ROWS = 20_000


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB pieces."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for piece in iter(lambda: handle.read(1 << 20), b""):
            digest.update(piece)
    return digest.hexdigest()


@dataclass(frozen=True, eq=False)
class TorsionTable:
    """Torsion angles of a structure or trajectory, with their provenance.

    Pooled rows are frame-major: row ``i`` is residue ``i % R`` of frame ``frames[i // R]``
    (``R`` residues). The per-row provenance arrays are built when asked for, so the table
    itself holds the angles and one entry per frame and per residue.

    Attributes
    ----------
    angles : ndarray, shape (rows, columns)
        Degrees in (−180, 180].
    column_names : tuple of str
        Pooled: the angle names (``phi``, ``psi`` …). Per frame: ``SEGID:RESNAMERESID:ANGLE``
        per column (e.g. ``4AKE:LEU10:phi``), or the names of user-defined torsions.
    frames : ndarray of int, shape (frames,)
        The trajectory frames read (0-based).
    residues : dict of str to ndarray, or None
        Pooled only: ``segid``, ``resid``, ``resname`` and ``residue_class`` (Gly, Pro,
        pre-Pro, other) of the ``R`` residues of every frame.
    missing : tuple of str
        Torsions left out because they are not defined (chain ends, missing atoms), named
        like per-frame columns; pooled rows leave out the residues they belong to.
    settings : DihedralSettings
    topology : Path
    trajectories : tuple of Path
    n_frames_total : int
        Frames in the trajectory.
    """

    angles: NDArray[np.float64]
    column_names: tuple[str, ...]
    frames: NDArray[np.int64]
    residues: dict[str, NDArray] | None
    missing: tuple[str, ...]
    settings: DihedralSettings
    topology: Path
    trajectories: tuple[Path, ...] = ()
    n_frames_total: int = 1

    @property
    def pooled(self) -> bool:
        return self.residues is not None

    @property
    def n_rows(self) -> int:
        return int(self.angles.shape[0])

    def _per_row(self, name: str, rows: slice = slice(None)) -> NDArray:
        if self.residues is None:
            raise AttributeError(f"per-frame tables have no {name} column")
        values = self.residues[name]
        index = np.arange(self.n_rows)[rows]
        return values[index % len(values)]

    def frame_of_rows(self, rows: slice = slice(None)) -> NDArray[np.int64]:
        """The frame of each row in ``rows``."""
        index = np.arange(self.n_rows)[rows]
        per_frame = 1 if self.residues is None else len(self.residues["resid"])
        return self.frames[index // per_frame]

    @property
    def frame(self) -> NDArray[np.int64]:
        return self.frame_of_rows()

    @property
    def segid(self) -> NDArray[np.str_]:
        return self._per_row("segid")

    @property
    def resid(self) -> NDArray[np.int64]:
        return self._per_row("resid")

    @property
    def resname(self) -> NDArray[np.str_]:
        return self._per_row("resname")

    @property
    def residue_class(self) -> NDArray[np.str_]:
        return self._per_row("residue_class")

    def provenance(self, rows: slice = slice(None)) -> dict[str, NDArray]:
        """The provenance columns of ``rows``, by name (pooled: frame, segid, resid,
        resname; per frame: frame)."""
        columns = {"frame": self.frame_of_rows(rows)}
        if self.residues is not None:
            columns.update({name: self._per_row(name, rows)
                            for name in PROVENANCE_COLUMNS[1:]})
        return columns

    def labels(self, label_by: str) -> NDArray[np.str_] | None:
        """A label per row from one of :data:`LABEL_CHOICES`: the residue's Ramachandran
        class, name or chain (segment); None per frame or for ``"none"``."""
        if label_by not in LABEL_CHOICES:
            raise ValueError(f"labels come from one of {', '.join(LABEL_CHOICES)}, not "
                             f"{label_by!r}")
        if self.residues is None or label_by == "none":
            return None
        return self._per_row({"residue class": "residue_class", "residue name": "resname",
                              "chain": "segid"}[label_by])

    def header(self) -> list[str]:
        return [*(PROVENANCE_COLUMNS if self.pooled else PROVENANCE_COLUMNS[:1]),
                *self.column_names]

    def describe(self) -> str:
        """One line for the user: what was read and what was left out."""
        where = self.topology.name + "".join(f" + {p.name}" for p in self.trajectories)
        text = (f"{self.n_rows:,} rows × {len(self.column_names)} torsions "
                f"({self.settings.dihedral_set}, {self.settings.layout}, "
                f"{len(self.frames):,} of {self.n_frames_total:,} frames) from {where}")
        if self.missing:
            text += f"; {len(self.missing)} undefined torsions left out"
        return text

    def write_csv(self, path: str | Path) -> Path:
        """Write the table (provenance columns, then degrees) atomically."""
        target = Path(path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OSError(f"cannot create the folder of {target}: "
                          f"{exc.strerror or exc}") from None
        with atomic_path(target) as tmp, open(tmp, "w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(self.header())
            for first in range(0, self.n_rows, _WRITE_ROWS):
                rows = slice(first, first + _WRITE_ROWS)
                text = np.char.mod("%.6f", self.angles[rows]).tolist()
                columns = [c.tolist() for c in self.provenance(rows).values()]
                writer.writerows([*p, *a] for *p, a in zip(*columns, text, strict=True))
        return target


def read_torsions(topology: str | Path, trajectories: Sequence[str | Path] = (),
                  settings: DihedralSettings | None = None, *,
                  callback: ProgressCallback | None = None) -> TorsionTable:
    """Read the torsions of a structure or trajectory.

    Parameters
    ----------
    topology : path
        PDB, mmCIF, PSF, GRO, PRMTOP, … (anything MDAnalysis reads as a topology).
    trajectories : sequence of paths
        DCD, XTC, TRR, NetCDF, … read one after the other (none: the topology's own
        coordinates).
    settings : DihedralSettings, optional
        Default: pooled φ/ψ of every protein residue of every frame.
    callback : callable, optional
        Receives a :class:`~stpca_gui.core.ProgressEvent` (stage ``"dihedrals"``) per block
        of frames; returning True cancels (:class:`~stpca_gui.core.FitCancelled`).

    Raises
    ------
    StructureError
        Bad files, selections, sets or frame ranges (the message names the file).
    FitCancelled
        When the callback asked to stop.
    """
    settings = settings or DihedralSettings()
    settings.validate()
    universe = open_universe(topology, trajectories)
    where = str(topology)
    plan = plan_torsions(universe, settings, where)
    n_total = int(universe.trajectory.n_frames)
    frames = frame_range(settings, n_total, str(trajectories[-1]) if trajectories else where)
    values = compute_torsions(universe, plan, frames, callback)
    common = {"frames": np.asarray(frames, dtype=np.int64), "missing": plan.missing,
              "settings": settings, "topology": Path(topology),
              "trajectories": tuple(map(Path, trajectories)), "n_frames_total": n_total}
    if settings.layout != "pooled":
        return TorsionTable(values, plan.angle_names, residues=None, **common)
    residues = {"segid": plan.segid, "resid": plan.resid, "resname": plan.resname,
                "residue_class": plan.residue_class}
    return TorsionTable(values.reshape(len(frames) * len(plan.resid), -1), plan.angle_names,
                        residues=residues, **common)
