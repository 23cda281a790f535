"""Going back from a row's provenance (run label, frame) to the frame's coordinates.

A fit's rows say which run and frame they come from (the ``trajectory`` and ``frame``
columns); :class:`RunFrames` positions a universe at such a frame, loading the run's file
(or, for runs of concatenated files, the file holding the frame). The runs come from the
data's structure record (:func:`~stpca_gui.io.structures.record.record_runs`), or, for
data without one, from the files given, each a run as :func:`read_torsions` would read
them. Data read before runs existed have no ``trajectory`` column: their frames number
through all files, as one run.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .reader import close_trajectory, load_trajectory, open_topology
from .runs import concatenated_label, run_labels
from .settings import StructureError

__all__ = ["RunFrames", "run_of_rows"]


class RunFrames:
    """A universe that can be positioned at any frame of the runs of a reading.

    Parameters
    ----------
    topology : path
    runs : sequence of mapping
        Each with ``label``, ``files`` (paths, read in order; none: the topology's own
        frames) and ``frames`` (frames per file, or None: unknown, the files are then read
        as one chained trajectory).
    """

    def __init__(self, topology: str | Path, runs: Sequence[Mapping[str, Any]]) -> None:
        self.topology = Path(topology)
        self.universe = open_topology(self.topology)
        self.runs = {str(run["label"]): run for run in runs}
        self._loaded: tuple[str, int] | None = None

    @classmethod
    def of_files(cls, topology: str | Path, trajectories: Sequence[str | Path] = (), *,
                 concatenate: bool = False) -> RunFrames:
        """The runs :func:`read_torsions` makes of these files (each a run, or one run)."""
        files = [str(p) for p in trajectories]
        if not files:
            runs = [{"label": Path(topology).name, "files": [], "frames": None}]
        elif concatenate:
            runs = [{"label": concatenated_label(files), "files": files, "frames": None}]
        else:
            runs = [{"label": label, "files": [path], "frames": None}
                    for label, path in zip(run_labels(files), files, strict=True)]
        return cls(topology, runs)

    def inputs(self) -> list[tuple[str, Path]]:
        """The files read (the topology, every run's files), as outputs' inputs."""
        return [("the topology", self.topology),
                *(("a trajectory", Path(path)) for run in self.runs.values()
                  for path in run.get("files") or ())]

    def close(self) -> None:
        close_trajectory(self.universe)

    def __enter__(self) -> RunFrames:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _load(self, label: str, part: int) -> None:
        """Load file ``part`` of a run (-1: all its files chained); a run without files is
        the topology's own frames, loaded already."""
        files = list(self.runs[label]["files"])
        if not files or self._loaded == (label, part):
            return
        if part >= 0:
            load_trajectory(self.universe, files[part], self.topology)
        else:
            for file in files:  # each checked alone, then chained
                load_trajectory(self.universe, file, self.topology)
            close_trajectory(self.universe)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.universe.load_new([str(f) for f in files])
        self._loaded = (label, part)

    def _place(self, label: str, frame: int) -> tuple[int, int]:
        """(file of the run, frame in it) of a frame of a run; file -1 when the run's
        files are read chained (frames per file unknown) or it has none."""
        files, counts = self.runs[label]["files"], self.runs[label].get("frames")
        if len(files) == 1:
            return 0, frame
        if not files or not counts:
            return -1, frame
        offset = 0
        for part, count in enumerate(counts):
            if frame < offset + count:
                return part, frame - offset
            offset += count
        return len(counts) - 1, frame - offset + counts[-1]

    def n_frames(self, label: str) -> int:
        """Frames of a run."""
        run = self.runs[label]
        if run.get("frames") and len(run["frames"]) == max(1, len(run["files"])):
            return int(sum(run["frames"]))
        self._load(label, -1 if len(run["files"]) != 1 else 0)
        try:
            return int(self.universe.trajectory.n_frames)
        except AttributeError:
            raise StructureError(f"{self.topology}: the topology holds no coordinates; give "
                                 "the trajectory files too") from None

    def check(self, labels: ArrayLike, frames: ArrayLike, where: str) -> None:
        """Refuse rows whose run is not one of these or whose frame lies beyond it.

        Raises
        ------
        StructureError
            Naming the run (file) and the frame.
        """
        labels = np.asarray(labels).astype(str)
        frames = np.asarray(frames)
        for label in np.unique(labels):
            if label not in self.runs:
                known = ", ".join(list(self.runs)[:5])
                raise StructureError(f"{where}: the data have frames of the run {label!r}, "
                                     f"which is not among the runs of the files given "
                                     f"({known}): not the files the data were read from")
            mine = frames[labels == label]
            count = self.n_frames(label)
            if len(mine) and (mine.min() < 0 or mine.max() >= count):
                raise StructureError(f"{where}: the data have frame {int(mine.max())} of "
                                     f"{label}, but it has {count} frame(s): not the "
                                     "trajectory the data were read from")

    def goto(self, label: str, frame: int) -> Any:
        """The universe, positioned at ``frame`` of the run ``label``."""
        part, local = self._place(label, int(frame))
        self._load(label, part)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.universe.trajectory[local]
        return self.universe


def run_of_rows(runs: Any, provenance: Mapping[str, ArrayLike], n: int, where: str
                ) -> NDArray[np.str_]:
    """The run label of every row: the ``trajectory`` column, or the only run of ``runs``
    (a :class:`RunFrames`, or a source of one run without ``runs``).

    Raises
    ------
    StructureError
        No ``trajectory`` column and several runs: their frames cannot be told apart.
    """
    if "trajectory" in provenance:
        return np.asarray(provenance["trajectory"]).astype(str)
    known = list(getattr(runs, "runs", {"": None}))
    if len(known) != 1:
        raise StructureError(f"{where}: the data have no trajectory column, so their frames "
                             f"cannot be told apart among {len(known)} runs")
    return np.full(n, known[0])
