"""Reading the torsions of a topology and its trajectory files, run by run.

:func:`read_torsions` opens the topology once, finds the torsions' atoms, then loads each
trajectory file in turn (checking its atoms, frames and time), estimates the memory of the
whole table and refuses a reading that would not fit before allocating it, and reads the
frames into one preallocated array. Torsions that come out undefined (collinear atoms,
NaN coordinates) are left out and counted, never passed on as NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ...core import MEMORY_HEADROOM, FitCancelled, ProgressEvent, available_memory_bytes
from .reader import (
    DIHEDRALS_STAGE,
    ProgressCallback,
    TorsionBlocks,
    TorsionPlan,
    close_trajectory,
    frame_range,
    load_trajectory,
    open_topology,
    plan_torsions,
    read_frames,
)
from .runs import (
    FileFrames,
    TrajectoryRun,
    concatenated_label,
    inspect_frames,
    run_labels,
    run_segments,
)
from .settings import DihedralSettings, StructureError
from .table import TorsionTable

__all__ = ["estimate_table_bytes", "read_torsions"]

#: Frames listed in a message about undefined torsions.
_LISTED = 5


def estimate_table_bytes(rows: int, columns: int, row_bytes: int = 0) -> int:
    """Memory of a table of torsions: float64 angles and ``row_bytes`` more per row."""
    return int(rows) * (8 * int(columns) + int(row_bytes))


def _check_memory(rows: int, columns: int, row_bytes: int, frames: int, where: str) -> None:
    """Refuse, before allocating, a table larger than the memory available."""
    available = available_memory_bytes()
    if available is None:
        return
    needed = estimate_table_bytes(rows, columns, row_bytes)
    if needed <= MEMORY_HEADROOM * available:
        return
    raise StructureError(
        f"{where}: reading {frames:,} frames gives {rows:,} rows × {columns:,} torsions, about "
        f"{needed / 2**30:.1f} GiB, but only {available / 2**30:.1f} GiB of memory is "
        "available; read fewer frames (a larger --stride, an earlier --stop; Frames in the "
        "app) or fewer residues (a smaller --select; Residues in the app)")


def _runs(universe, topology: Path, trajectories: Sequence[Path], concatenate: bool
          ) -> list[TrajectoryRun]:
    """Load every file once to check it; the runs they make."""
    if not trajectories:
        try:
            trajectory = universe.trajectory
        except AttributeError:
            raise StructureError(f"{topology}: the topology holds no coordinates; give a "
                                 "trajectory file too") from None
        return [TrajectoryRun(topology.name, (), inspect_frames(trajectory, topology))]
    labels = run_labels(trajectories)
    files = [load_trajectory(universe, path, topology, label)
             for path, label in zip(trajectories, labels, strict=True)]
    if concatenate:
        return [TrajectoryRun(concatenated_label(trajectories), tuple(files))]
    return [TrajectoryRun(label, (part,)) for label, part in zip(labels, files, strict=True)]


def _load(universe, run: TrajectoryRun, part: FileFrames, topology: Path) -> None:
    """Make ``part`` the universe's trajectory (the topology's own frames stay)."""
    if run.files:
        load_trajectory(universe, part.path, topology, part.path.name)


def read_torsions(topology: str | Path, trajectories: Sequence[str | Path] = (),
                  settings: DihedralSettings | None = None, *,
                  callback: ProgressCallback | None = None, row_bytes: int = 0
                  ) -> TorsionTable:
    """Read the torsions of a structure or of trajectories, each file a run.

    Parameters
    ----------
    topology : path
        PDB, mmCIF, PSF, GRO, PRMTOP, … (anything MDAnalysis reads as a topology).
    trajectories : sequence of paths
        DCD, XTC, TRR, NetCDF, … of the topology's atoms: each a run of its own, or one run
        with ``settings.concatenate`` (none: the topology's own coordinates).
    settings : DihedralSettings, optional
        Default: pooled φ/ψ of every protein residue of every frame.
    callback : callable, optional
        Receives a :class:`~stpca_gui.core.ProgressEvent` (stage ``"dihedrals"``) per block
        of frames; returning True cancels (:class:`~stpca_gui.core.FitCancelled`).
    row_bytes : int
        Memory the caller will add per row (e.g. labels and provenance of a data set),
        counted when the reading is checked against the memory available.

    Raises
    ------
    StructureError
        Bad files, selections, sets or frame ranges, trajectories that do not match the
        topology, unreadable frames or times, or a table beyond the memory available (the
        message names the file).
    FitCancelled
        When the callback asked to stop.
    """
    settings = settings or DihedralSettings()
    settings.validate()
    topology = Path(topology)
    files = [Path(p) for p in trajectories]
    universe = open_topology(topology)
    try:
        plan = plan_torsions(universe, settings, str(topology))
        runs = _runs(universe, topology, files, settings.concatenate)
        ranges = [frame_range(settings, run.n_frames,
                              str(run.files[0].path) if len(run.files) == 1 else run.label)
                  for run in runs]
        n_frames = sum(map(len, ranges))
        per_frame = 1 if settings.layout != "pooled" else len(plan.resid)
        _check_memory(n_frames * per_frame, len(plan.quadruples) // per_frame, row_bytes,
                      n_frames, files[0].name if files else topology.name)
        return _read(universe, topology, plan, runs, ranges, settings, callback)
    finally:
        close_trajectory(universe)


def _read(universe, topology: Path, plan: TorsionPlan, runs: list[TrajectoryRun],
          ranges: list[range], settings: DihedralSettings,
          callback: ProgressCallback | None) -> TorsionTable:
    n_frames = sum(map(len, ranges))
    blocks = TorsionBlocks(universe, plan)
    angles = np.empty((n_frames, blocks.n_torsions), dtype=np.float64)
    times = np.empty(n_frames, dtype=np.float64)
    frames = np.empty(n_frames, dtype=np.int64)
    frame_run = np.empty(n_frames, dtype=np.intp)
    done = 0

    def on_block(count: int) -> None:
        nonlocal done
        done += count
        if callback is not None and callback(ProgressEvent(
                DIHEDRALS_STAGE, done / n_frames,
                message=f"torsions: frame {done:,} of {n_frames:,}")):
            raise FitCancelled("cancelled while reading torsions")

    slot = 0
    for k, (run, wanted) in enumerate(zip(runs, ranges, strict=True)):
        frames[slot:slot + len(wanted)] = wanted
        frame_run[slot:slot + len(wanted)] = k
        for part_index, local, position in run_segments(run, wanted):
            part = run.parts[part_index]
            _load(universe, run, part, topology)
            rows = slice(slot + position, slot + position + len(local))
            read_frames(universe.trajectory, blocks, local, part.path, angles[rows],
                        times[rows], run.has_time, on_block)
            if not run.has_time:  # the frame index in the run (numbered through its files)
                times[rows] = frames[rows]
        slot += len(wanted)
    notes = tuple(note for run in runs for note in run.notes)
    angles, plan, kept, more = _without_undefined(angles, plan, frames, frame_run, runs,
                                                  settings.layout == "pooled")
    table = TorsionTable(
        angles, plan.angle_names, frames, frame_run, times, residues=None,
        missing=plan.missing, settings=settings, topology=topology, runs=tuple(runs),
        kept=kept, notes=notes + more)
    if settings.layout != "pooled":
        return table
    residues = {"segid": plan.segid, "resid": plan.resid, "resname": plan.resname,
                "residue_class": plan.residue_class}
    pooled = len(table.angles) if kept is not None else n_frames * len(plan.resid)
    return replace(table, angles=table.angles.reshape(pooled, -1), residues=residues)


def _residue_label(plan: TorsionPlan, r: int) -> str:
    segid = str(plan.segid[r]).strip()
    residue = f"{plan.resname[r]}{plan.resid[r]}"
    return f"{segid}:{residue}" if segid and segid != "SYSTEM" else residue


def _without_undefined(angles: NDArray[np.float64], plan: TorsionPlan,
                       frames: NDArray[np.int64], frame_run: NDArray[np.intp],
                       runs: list[TrajectoryRun], pooled: bool
                       ) -> tuple[NDArray[np.float64], TorsionPlan, NDArray[np.int64] | None,
                                  tuple[str, ...]]:
    """Leave out undefined torsions (NaN from collinear atoms or NaN coordinates) of the
    (frames, q) array read: a column (pooled: a residue) undefined in every frame is left out
    like a torsion that is not defined; the rows (pooled: residues of a frame) holding other
    undefined values are left out, listed in ``missing`` by column and said in notes by
    file and frame.

    Returns
    -------
    angles, plan, kept, notes
        ``kept``: the positions of the rows kept among all rows (None when all are).
    """
    if np.isfinite(angles.min()) and np.isfinite(angles.max()):  # min/max propagate NaN
        return angles, plan, None, ()
    n_frames = len(angles)
    per = len(plan.resid) if pooled else 1
    width = angles.shape[1] // per  # angles per residue (pooled), 1 per frame
    undefined = (~np.isfinite(angles)).sum(axis=0)
    names = ([f"{_residue_label(plan, c // width)}:{plan.angle_names[c % width]}"
              for c in range(angles.shape[1])] if pooled else list(plan.angle_names))
    always = undefined == n_frames
    if pooled:
        gone = always.reshape(per, width).any(axis=1)
        keep_residues = np.flatnonzero(~gone)
        keep_columns = np.flatnonzero(np.repeat(~gone, width))
    else:
        keep_columns = np.flatnonzero(~always)
    missing = [*plan.missing, *(f"{names[c]} (undefined in every frame)"
                                for c in np.flatnonzero(always))]
    missing += [f"{names[c]} (undefined in {int(undefined[c]):,} frame(s))"
                for c in keep_columns if 0 < undefined[c] < n_frames]
    if len(keep_columns) == 0:
        raise StructureError(f"{_where(runs[0])}: every torsion is undefined in every frame "
                             "(degenerate geometry or NaN coordinates)")
    if len(keep_columns) < angles.shape[1]:
        angles = angles[:, keep_columns]
        if pooled:
            plan = replace(plan, segid=plan.segid[keep_residues], resid=plan.resid[keep_residues],
                           resname=plan.resname[keep_residues],
                           residue_class=plan.residue_class[keep_residues])
            per = len(keep_residues)
        else:
            plan = replace(plan, angle_names=tuple(plan.angle_names[c] for c in keep_columns))
    plan = replace(plan, missing=tuple(missing))
    finite = np.isfinite(angles.reshape(n_frames * per, -1)).all(axis=1)
    if finite.all():
        return angles, plan, None, ()
    kept = np.flatnonzero(finite)
    if len(kept) == 0:
        raise StructureError(f"{_where(runs[0])}: every row holds an undefined torsion "
                             "(degenerate geometry or NaN coordinates)")
    lost_slots = np.flatnonzero(~finite) // per
    notes = []
    for k, run in enumerate(runs):
        mine = lost_slots[frame_run[lost_slots] == k]
        if len(mine):
            slots = np.unique(mine)
            shown = ", ".join(str(int(f)) for f in frames[slots[:_LISTED]])
            notes.append(f"{_where(run)}: {len(mine):,} row(s) left out: torsions undefined "
                         f"(degenerate geometry or NaN coordinates) in {len(slots):,} "
                         f"frame(s) ({shown}{' …' if len(slots) > _LISTED else ''})")
    rows = angles.reshape(n_frames * per, -1)[kept]
    return rows, plan, kept.astype(np.int64), tuple(notes)


def _where(run: TrajectoryRun) -> str:
    """The file a run's messages name."""
    return str(run.files[0].path) if len(run.files) == 1 else run.label
