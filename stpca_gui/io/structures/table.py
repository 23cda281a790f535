"""A table of torsions read from a structure, and writing it as CSV."""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ...core.atomic import atomic_path
from .reader import ProgressCallback, compute_torsions, frame_range, open_universe, plan_torsions
from .settings import DihedralSettings

__all__ = ["PROVENANCE_COLUMNS", "TorsionTable", "file_sha256", "read_torsions"]

#: The provenance columns of the tables of ``stpca dihedrals``: never angles; ``stpca fit``
#: carries them into scores.csv.
PROVENANCE_COLUMNS = ("frame", "segid", "resid", "resname")
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

    Attributes
    ----------
    angles : ndarray, shape (rows, columns)
        Degrees in (−180, 180].
    column_names : tuple of str
        Pooled: the angle names (``phi``, ``psi`` …). Per frame: ``SEGID:RESNAMERESID:ANGLE``
        per column (e.g. ``4AKE:LEU10:phi``), or the names of user-defined torsions.
    frame : ndarray of int, shape (rows,)
        The trajectory frame (0-based) of each row.
    segid, resid, resname, residue_class : ndarray, shape (rows,), or None
        Pooled rows only: the residue, and its Ramachandran class (Gly, Pro, pre-Pro,
        other).
    missing : tuple of str
        Torsions left out because they are not defined (chain ends, missing atoms), named
        like per-frame columns; pooled rows leave out the residues they belong to.
    settings : DihedralSettings
    topology : Path
    trajectories : tuple of Path
    n_frames_total : int
        Frames in the trajectory (the table holds ``len(set(frame))`` of them).
    """

    angles: NDArray[np.float64]
    column_names: tuple[str, ...]
    frame: NDArray[np.int64]
    segid: NDArray[np.str_] | None
    resid: NDArray[np.int64] | None
    resname: NDArray[np.str_] | None
    residue_class: NDArray[np.str_] | None
    missing: tuple[str, ...]
    settings: DihedralSettings
    topology: Path
    trajectories: tuple[Path, ...] = ()
    n_frames_total: int = 1
    chain: NDArray[np.str_] | None = field(default=None, repr=False)

    @property
    def pooled(self) -> bool:
        return self.settings.layout == "pooled"

    @property
    def n_rows(self) -> int:
        return int(self.angles.shape[0])

    def provenance(self) -> dict[str, NDArray]:
        """The provenance columns of the rows, by name (pooled: frame, segid, resid,
        resname; per frame: frame)."""
        if not self.pooled:
            return {"frame": self.frame}
        return {"frame": self.frame, "segid": self.segid, "resid": self.resid,
                "resname": self.resname}

    def header(self) -> list[str]:
        return [*self.provenance(), *self.column_names]

    def describe(self) -> str:
        """One line for the user: what was read and what was left out."""
        frames = len(np.unique(self.frame))
        where = self.topology.name + "".join(f" + {p.name}" for p in self.trajectories)
        text = (f"{self.n_rows:,} rows × {len(self.column_names)} torsions "
                f"({self.settings.dihedral_set}, {self.settings.layout}, {frames:,} of "
                f"{self.n_frames_total:,} frames) from {where}")
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
        provenance = list(self.provenance().values())
        with atomic_path(target) as tmp, open(tmp, "w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(self.header())
            for first in range(0, self.n_rows, _WRITE_ROWS):
                rows = slice(first, first + _WRITE_ROWS)
                text = np.char.mod("%.6f", self.angles[rows]).tolist()
                columns = [np.asarray(c[rows]).tolist() for c in provenance]
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
    frame_numbers = np.asarray(frames, dtype=np.int64)
    common = {"missing": plan.missing, "settings": settings, "topology": Path(topology),
              "trajectories": tuple(map(Path, trajectories)), "n_frames_total": n_total}
    if settings.layout != "pooled":
        return TorsionTable(values, plan.angle_names, frame_numbers, None, None, None, None,
                            **common)
    residues, angles = len(plan.resid), len(plan.angle_names)
    per_residue = (len(frames), 1)
    return TorsionTable(
        angles=values.reshape(len(frames) * residues, angles),
        column_names=plan.angle_names,
        frame=np.repeat(frame_numbers, residues),
        segid=np.tile(plan.segid, per_residue).ravel(),
        resid=np.tile(plan.resid, per_residue).ravel(),
        resname=np.tile(plan.resname, per_residue).ravel(),
        residue_class=np.tile(plan.residue_class, per_residue).ravel(),
        **common)
