"""State trajectories for Markov-model tools: the cluster of every frame, per run, in frame
order.

A per-frame fit of torsions read from trajectories has one row per frame, and its rows say
where they come from (the ``trajectory`` and ``frame`` provenance columns). Markov-model
tools (deeptime, PyEMMA) take a list of integer arrays, one per trajectory, holding each
frame's discrete state; :func:`state_trajectories` builds them from a fit's clusters and
:meth:`StateTrajectories.files` gives the files ``stpca fit --out`` and the app's *Export
Results* write:

- ``states_1.npy`` … ``states_R.npy``: one per run, in the order the runs first appear in
  the data, each an ``int32`` array of the frames' states in frame order. **State s is
  cluster s + 1** (the tools index their count matrices by state from 0; people see the
  clusters as 1…K). PNS1's mode clusters assign every fitted frame, so no frame of a run is
  unclustered; frames that are not among the fitted rows (rows left out when the table
  was read) are not in the array: :attr:`StateTrajectories.gaps` counts where a run's
  frames jump by more than its usual step, and the callers say so.
- ``states.csv``: ``trajectory, frame, time, cluster`` (1…K), run after run in the order of
  the files, frames in order: the k-th run of the table is ``states_k.npy``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["STATES_TABLE", "StateTrajectories", "frame_numbers", "state_file_names",
           "state_trajectories"]

#: The table of every frame's run, frame, time and cluster.
STATES_TABLE = "states.csv"


def frame_numbers(values: Any, where: str) -> NDArray[np.int64]:
    """The frame column as integers (a table's provenance is text), refusing others.

    Raises
    ------
    ValueError
        Naming ``where``, for values that are not whole numbers from 0.
    """
    try:
        frames = np.asarray(values).astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: the frame column does not hold frame numbers") from None
    if not np.all(np.isfinite(frames)) or np.any(frames != np.round(frames)) or (
            len(frames) and (frames.min() < 0 or frames.max() >= 2**53)):
        raise ValueError(f"{where}: the frame column does not hold frame numbers "
                         "(whole numbers from 0)")
    return frames.astype(np.int64)


def _has_frames(provenance: Mapping[str, Any] | None) -> bool:
    """Whether rows are frames: a frame column, and no residue column (pooled rows are
    residues in frames, and a frame has no single cluster then)."""
    return bool(provenance) and "frame" in provenance and "resid" not in provenance


def _run_labels(provenance: Mapping[str, Any], n: int) -> NDArray[np.str_]:
    if "trajectory" in provenance:
        return np.asarray(provenance["trajectory"]).astype(str)
    return np.full(n, "trajectory")


def _array_name(k: int) -> str:
    """The state array of the k-th run (from 0)."""
    return f"states_{k + 1}.npy"


def state_file_names(provenance: Mapping[str, Any] | None) -> list[str]:
    """The files :meth:`StateTrajectories.files` writes for data with this provenance
    (none for data without frames, or pooled rows), known before any fit."""
    if not _has_frames(provenance):
        return []
    try:
        runs, _, _ = _frame_order(provenance, "the data")
    except ValueError:  # rows that are not one per frame: no state arrays
        return []
    return [STATES_TABLE, *map(_array_name, range(len(runs)))]


def state_arrays_problem(provenance: Mapping[str, Any] | None, where: str = "the data"
                         ) -> str | None:
    """Why data whose rows carry frames get no state arrays (a frame repeated within a
    run, a frame column that is not frame numbers), or None (state arrays, or rows that
    are not frames)."""
    if not _has_frames(provenance):
        return None
    try:
        _frame_order(provenance, where)
    except ValueError as problem:
        return str(problem)
    return None


@dataclass(frozen=True)
class StateTrajectories:
    """The frames of each run in frame order, with their states.

    Attributes
    ----------
    runs : tuple of str
        Run labels (the ``trajectory`` column), in the order they first appear.
    rows : tuple of ndarray of int
        Per run, the data rows of its frames, in frame order.
    frames : tuple of ndarray of int
        Per run, the frame numbers, ascending.
    states : tuple of ndarray of int32
        Per run, the state of every frame: its cluster − 1 (0…K−1).
    gaps : tuple of int
        Per run, how many times its frames jump by more than its most common step (frames
        missing from the fit; a Markov model would count a transition across them).
    """

    runs: tuple[str, ...]
    rows: tuple[NDArray[np.intp], ...]
    frames: tuple[NDArray[np.int64], ...]
    states: tuple[NDArray[np.int32], ...]
    gaps: tuple[int, ...]

    def files(self, times: ArrayLike | None = None) -> dict[str, bytes | str]:
        """The files' contents: ``states.csv`` (text) and the ``.npy`` arrays (bytes).

        Parameters
        ----------
        times : array, optional
            The ``time`` column of the data (one per row), copied into states.csv; the
            frame number where there is none.
        """
        time_of = None if times is None else np.asarray(times)
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["trajectory", "frame", "time", "cluster"])
        contents: dict[str, bytes | str] = {}
        for k, (run, rows, frames, states) in enumerate(
                zip(self.runs, self.rows, self.frames, self.states, strict=True)):
            shown_times = frames if time_of is None else time_of[rows]
            writer.writerows(zip([run] * len(rows), frames.tolist(), shown_times.tolist(),
                                 (states + 1).tolist(), strict=True))
            array = io.BytesIO()
            np.save(array, states, allow_pickle=False)
            contents[_array_name(k)] = array.getvalue()
        return {STATES_TABLE: buffer.getvalue(), **contents}

    def describe(self) -> str:
        """One line: the runs, their lengths and any gaps."""
        parts = [f"{name} {len(states)} frames" + (f" ({gaps} gap(s))" if gaps else "")
                 for name, states, gaps in zip(self.runs, self.states, self.gaps,
                                               strict=True)]
        return "; ".join(f"{_array_name(k)}: {part}" for k, part in enumerate(parts))


def _gaps(frames: NDArray[np.int64]) -> int:
    steps = np.diff(frames)
    if len(steps) == 0:
        return 0
    values, counts = np.unique(steps, return_counts=True)
    return int(np.count_nonzero(steps > values[np.argmax(counts)]))


def _frame_order(provenance: Mapping[str, Any], where: str
                 ) -> tuple[list[str], list[NDArray[np.intp]], list[NDArray[np.int64]]]:
    """The runs in the order they first appear, and per run its rows and frames in frame
    order.

    Raises
    ------
    ValueError
        A frame of a run appearing twice, or a frame column that is not frame numbers.
    """
    frames = frame_numbers(provenance["frame"], where)
    runs_of_rows = _run_labels(provenance, len(frames))
    names, first = np.unique(runs_of_rows, return_index=True)
    runs, rows, run_frames = [], [], []
    for name in names[np.argsort(first)]:
        mine = np.flatnonzero(runs_of_rows == name)
        mine = mine[np.argsort(frames[mine], kind="stable")]
        ordered = frames[mine]
        if np.any(np.diff(ordered) == 0):
            repeated = int(ordered[np.flatnonzero(np.diff(ordered) == 0)[0]])
            raise ValueError(f"{where}: frame {repeated} of {name} appears in more than "
                             "one row, so the rows are not one per frame")
        runs.append(str(name))
        rows.append(mine)
        run_frames.append(ordered)
    return runs, rows, run_frames


def state_trajectories(provenance: Mapping[str, Any] | None, clusters: ArrayLike, *,
                       where: str = "the data", strict: bool = True
                       ) -> StateTrajectories | None:
    """The state trajectories of a fit's rows, or None when the rows are not frames (no
    ``frame`` column, pooled rows of residues, or, unless ``strict``, rows that are not
    one per frame: what :func:`state_file_names` gives no files for).

    Parameters
    ----------
    provenance : mapping of str to array
        The data's provenance columns: ``frame`` and, for several runs, ``trajectory``.
    clusters : array of int, shape (n,)
        Every row's cluster label, 0…K−1 (PNS1's mode clusters).
    where : str
        The data, in messages.
    strict : bool
        Raise, rather than return None, for rows that are not one per frame.

    Raises
    ------
    ValueError
        Not one cluster per row; with ``strict``, a frame of a run appearing twice or a
        frame column that is not frame numbers.
    """
    if not _has_frames(provenance):
        return None
    labels = np.asarray(clusters).astype(np.int64)
    if labels.shape != np.shape(provenance["frame"]):
        raise ValueError(f"{where}: {labels.size} cluster labels for "
                         f"{np.size(provenance['frame'])} frames")
    try:
        runs, rows, frames = _frame_order(provenance, where)
    except ValueError:
        if strict:
            raise
        return None
    return StateTrajectories(tuple(runs), tuple(rows), tuple(frames),
                             tuple(labels[mine].astype(np.int32) for mine in rows),
                             tuple(_gaps(ordered) for ordered in frames))
