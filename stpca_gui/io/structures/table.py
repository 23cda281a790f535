"""A table of torsions read from structures, its provenance, and writing it as CSV."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...files.digest import file_sha256, files_sha256
from .. import atomic_file_set  # re-exported by io (wherever the atomic writers live)
from ..coded import CodedColumn, smallest_integer_type
from ..tables import PROVENANCE_COLUMNS
from .record import sidecar_path, sidecar_text
from .runs import TrajectoryRun
from .settings import DihedralSettings

__all__ = ["FRAME_COLUMNS", "LABEL_CHOICES", "PROVENANCE_COLUMNS", "RESIDUE_COLUMNS",
           "TorsionTable", "file_sha256"]

#: The provenance of every row: its run (the trajectory file's label), the frame's index in
#: the run and its time (ps, or the frame index for files without time).
FRAME_COLUMNS = ("trajectory", "frame", "time")
#: The residue of a pooled row.
RESIDUE_COLUMNS = ("segid", "resid", "resname")
# Named, not sliced out of PROVENANCE_COLUMNS: that list also holds columns the reader
# never writes (a table's frame weights).
#: Where the labels of pooled rows may come from (:meth:`TorsionTable.labels`).
LABEL_CHOICES = ("residue class", "residue name", "chain", "none")
_LABEL_SOURCES = {"residue class": "residue_class", "residue name": "resname",
                  "chain": "segid"}
#: Rows formatted at a time when writing CSV.
_WRITE_ROWS = 20_000


def _smallest(values: NDArray) -> NDArray:
    """Integers in the smallest dtype that holds them."""
    if not values.size:
        return values
    return values.astype(smallest_integer_type(values.min(), values.max()), copy=False)


@dataclass(frozen=True, eq=False)
class TorsionTable:
    """Torsion angles of structures or trajectories, with their provenance.

    Rows are frame-major, the frames run after run: pooled rows are the ``R`` residues of
    each frame, per-frame rows one per frame. Rows whose torsions were undefined are left
    out (``kept``). The per-row provenance arrays are built when asked for, so the table
    itself holds the angles and one entry per frame and per residue.

    Attributes
    ----------
    angles : ndarray, shape (rows, columns)
        Degrees in (−180, 180].
    column_names : tuple of str
        Pooled: the angle names (``phi``, ``psi`` …). Per frame: ``SEGID:RESNAMERESID:ANGLE``
        per column (e.g. ``4AKE:LEU10:phi``), or the names of user-defined torsions.
    frames : ndarray of int, shape (F,)
        Every frame read: its index in its run (0-based).
    frame_run : ndarray of int, shape (F,)
        Every frame's run (an index of ``runs``).
    frame_time : ndarray of float, shape (F,)
        Every frame's time: ps, or the frame index in runs without time.
    residues : dict of str to ndarray, or None
        Pooled only: ``segid``, ``resid``, ``resname`` and ``residue_class`` (Gly, Pro,
        pre-Pro, other) of the ``R`` residues of every frame.
    missing : tuple of str
        Torsions left out because they are not defined (chain ends, missing atoms, or
        undefined in every frame read), named like per-frame columns; pooled rows leave
        out the residues they belong to.
    settings : DihedralSettings
    topology : Path
    runs : tuple of TrajectoryRun
    kept : ndarray of int, or None
        When rows were left out (undefined torsions in some frames): the position of each
        row among all (frame, residue) rows; None when every row is there.
    notes : tuple of str
        What the user should know: truncated trajectories, rows left out.
    """

    angles: NDArray[np.float64]
    column_names: tuple[str, ...]
    frames: NDArray[np.int64]
    frame_run: NDArray[np.intp]
    frame_time: NDArray[np.float64]
    residues: dict[str, NDArray] | None
    missing: tuple[str, ...]
    settings: DihedralSettings
    topology: Path
    runs: tuple[TrajectoryRun, ...]
    kept: NDArray[np.int64] | None = None
    notes: tuple[str, ...] = ()

    @property
    def pooled(self) -> bool:
        return self.residues is not None

    @property
    def n_rows(self) -> int:
        return int(self.angles.shape[0])

    @property
    def trajectories(self) -> tuple[Path, ...]:
        """Every trajectory file read, run after run."""
        return tuple(part.path for run in self.runs for part in run.files)

    @property
    def n_frames_total(self) -> int:
        """Frames in the trajectories (every run's)."""
        return sum(run.n_frames for run in self.runs)

    @property
    def _per_frame(self) -> int:
        return 1 if self.residues is None else len(self.residues["resid"])

    def _gather(self, rows: slice, per_frame: NDArray | None, per_residue: NDArray | None
                ) -> NDArray:
        """Per-row values of ``rows`` from one value per frame slot (``per_frame``) or per
        residue of a frame (``per_residue``), in their dtype. Every row there: by repeat
        and tile of the values themselves (index arrays, 16 bytes a row of fresh memory,
        cost more than the values at 2·10⁷ rows); rows dropped: through ``kept``."""
        per = self._per_frame
        if self.kept is not None:
            positions = self.kept[rows]
            if per_frame is not None:
                return per_frame[positions // per]
            return per_residue[positions % per]
        start, stop, _ = rows.indices(self.n_rows)
        first, last = start // per, -(-stop // per)
        cut = slice(start - first * per, stop - first * per)
        if per_frame is not None:
            values = per_frame[first:last]
            return (values if per == 1 else np.repeat(values, per))[cut]
        return np.tile(per_residue, last - first)[cut]

    def frame_of_rows(self, rows: slice = slice(None)) -> NDArray[np.int64]:
        """The frame (index in its run) of each row in ``rows``."""
        return self._gather(rows, self.frames, None)

    @property
    def frame(self) -> NDArray[np.int64]:
        return self.frame_of_rows()

    def _per_row(self, name: str, rows: slice = slice(None)) -> NDArray:
        if self.residues is None:
            raise AttributeError(f"per-frame tables have no {name} column")
        return self._gather(rows, None, self.residues[name])

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

    @property
    def run_labels(self) -> tuple[str, ...]:
        return tuple(run.label for run in self.runs)

    def _coded_residues(self, name: str) -> tuple[NDArray, NDArray[np.str_]]:
        """The codes (one per residue of a frame) and distinct values of a residue column."""
        assert self.residues is not None
        categories, codes = np.unique(self.residues[name].astype(str), return_inverse=True)
        return codes.ravel().astype(smallest_integer_type(0, len(categories) - 1)), categories

    def provenance(self, rows: slice = slice(None)) -> dict[str, NDArray | CodedColumn]:
        """The provenance columns of ``rows``, by name: trajectory, frame, time; pooled
        also segid, resid, resname. Text columns are :class:`~stpca_gui.io.coded.
        CodedColumn` (a byte a row), integers in the smallest dtype that holds them."""
        columns: dict[str, NDArray | CodedColumn] = {
            "trajectory": CodedColumn(
                self._gather(rows, self.frame_run.astype(
                    smallest_integer_type(0, len(self.runs) - 1)), None),
                np.asarray(self.run_labels, dtype=str)),
            "frame": self._gather(rows, _smallest(self.frames), None),
            "time": self._gather(rows, self.frame_time, None)}
        if self.residues is not None:
            for name in ("segid", "resname"):
                codes, categories = self._coded_residues(name)
                columns[name] = CodedColumn(self._gather(rows, None, codes), categories)
            columns["resid"] = self._gather(rows, None, _smallest(self.residues["resid"]))
            columns = {name: columns[name] for name in (*FRAME_COLUMNS, *RESIDUE_COLUMNS)}
        return columns

    def labels(self, label_by: str) -> CodedColumn | None:
        """A label per row from one of :data:`LABEL_CHOICES`: the residue's Ramachandran
        class, name or chain (segment), coded; None per frame or for ``"none"``."""
        if label_by not in LABEL_CHOICES:
            raise ValueError(f"labels come from one of {', '.join(LABEL_CHOICES)}, not "
                             f"{label_by!r}")
        if self.residues is None or label_by == "none":
            return None
        codes, categories = self._coded_residues(_LABEL_SOURCES[label_by])
        return CodedColumn(self._gather(slice(None), None, codes), categories)

    def header(self) -> list[str]:
        return [*FRAME_COLUMNS, *(RESIDUE_COLUMNS if self.pooled else ()), *self.column_names]

    def describe(self) -> str:
        """One line for the user: what was read, the runs, and what was left out."""
        where = self.topology.name
        files = self.trajectories
        if len(files) <= 3:
            where += "".join(f" + {p.name}" for p in files)
        else:
            where += f" + {len(files)} trajectory files"
        frames = len(self.frames)
        runs = len(self.runs)
        kind = (f"{runs} runs" if runs > 1 else
                "one run" + (f" of {len(self.runs[0].files)} concatenated files"
                             if len(self.runs[0].files) > 1 else ""))
        text = (f"{self.n_rows:,} rows × {len(self.column_names)} torsions "
                f"({self.settings.dihedral_set}, {self.settings.layout}, {kind}, "
                f"{frames:,} of {self.n_frames_total:,} frames) from {where}")
        untimed = [run.label for run in self.runs if not run.has_time]
        if untimed:
            text += (f"; time is the frame index ({', '.join(untimed[:3])} "
                     f"{'store' if len(untimed) > 1 else 'stores'} no time)")
        if self.missing:
            text += f"; {len(self.missing)} undefined torsions left out"
        return text

    def structure_record(self, label_by: str | None = None) -> dict[str, Any]:
        """The record of the files read (absolute paths), their fingerprints (SHA-256,
        reading every file once), runs and settings (see
        :mod:`~stpca_gui.io.structures.record`)."""
        # Absolute paths: the record is read again from elsewhere (a session, the app).
        files = [self.topology.absolute(), *(p.absolute() for p in self.trajectories)]
        record: dict[str, Any] = {
            "topology": str(files[0]),
            "trajectories": [str(p) for p in files[1:]],
            "sha256": dict(zip(map(str, files), files_sha256(files), strict=True)),
            "settings": self.settings.to_dict(),
            "runs": [run.to_dict() for run in self.runs],
            "notes": list(self.notes),
        }
        if label_by is not None:
            record["label_by"] = label_by
        return record

    def csv_text(self, rows: slice) -> str:
        """The CSV lines (no header) of ``rows``: provenance, then degrees to 6 places."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        provenance = self.provenance(rows)
        provenance["time"] = np.char.mod("%.9g", provenance["time"])
        text = np.char.mod("%.6f", self.angles[rows]).tolist()
        columns = [np.asarray(c).tolist() for c in provenance.values()]
        writer.writerows([*p, *a] for *p, a in zip(*columns, text, strict=True))
        return buffer.getvalue()

    def write_csv(self, path: str | Path) -> list[Path]:
        """Write the table and its sidecar ``PATH.structure.json`` (the structure record,
        fingerprints included), both or neither.

        Returns
        -------
        list of Path
            The table and the sidecar.
        """
        target = Path(path)
        sidecar = sidecar_path(target)
        record = sidecar_text(self.structure_record(), target)
        with atomic_file_set(target.parent, [target.name, sidecar.name]) as tmp:
            with open(tmp[target.name], "w", encoding="utf-8", newline="") as out:
                csv.writer(out, lineterminator="\n").writerow(self.header())
                for first in range(0, self.n_rows, _WRITE_ROWS):
                    out.write(self.csv_text(slice(first, first + _WRITE_ROWS)))
            tmp[sidecar.name].write_text(record, encoding="utf-8", newline="")
        return [target, sidecar]
