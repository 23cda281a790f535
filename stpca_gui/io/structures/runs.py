"""Trajectory files read as runs: their labels, frames, times and truncation.

Several trajectory files of one topology are *runs* (replicas, or parts of a long run read
separately): each file is a run of its own, its frames numbered from 0, unless they are
concatenated into one run (frames numbered through, as MDAnalysis' ``ChainReader`` does).
A run is labelled by its file's name, or by as much of its path as tells it from the
others that share the name.

Each file is checked when it is opened: its atoms against the topology's, its last frame
read (an XTC cut in the middle of a frame lists that frame but cannot read it: the cut
frame is left out and the run reported as truncated), and for DCD the frame count its
header declares (MDAnalysis counts the frames from the file's size, so a DCD cut in half
reads as a shorter, complete one). Times are MDAnalysis' (ps) where the format stores them;
files without time (PDB models, a single GRO) get the frame index instead, said so in
:attr:`TrajectoryRun.time_unit`.
"""

from __future__ import annotations

import os
import struct
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .settings import StructureError

__all__ = ["FileFrames", "TrajectoryRun", "concatenated_label", "dcd_frames",
           "inspect_frames", "run_labels", "run_segments"]

#: The time column's unit: picoseconds, or the frame index where a file has no time.
TIME_PS, TIME_FRAME_INDEX = "ps", "frame index"
#: Files named in a concatenated run's label before it is shortened.
_LABEL_FILES = 3


@dataclass(frozen=True)
class FileFrames:
    """What one trajectory file holds.

    Attributes
    ----------
    path : Path
    n_frames : int
        Frames that can be read (a cut last frame left out).
    declared : int or None
        Frames the file's header declares (DCD), when it says.
    has_time : bool
        Whether the format stores times (else the frame index stands for time).
    notes : tuple of str
        Truncation, said for the user.
    """

    path: Path
    n_frames: int
    declared: int | None
    has_time: bool
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TrajectoryRun:
    """One run: a label and the file(s) read for it, one after the other.

    Attributes
    ----------
    label : str
        Unique among the runs of a reading: the ``trajectory`` column's value.
    files : tuple of FileFrames
        Its files (one, or several concatenated); empty when the frames are the
        topology's own coordinates (e.g. the models of a PDB file).
    topology_frames : FileFrames or None
        The topology's own frames, when ``files`` is empty.
    """

    label: str
    files: tuple[FileFrames, ...]
    topology_frames: FileFrames | None = None

    @property
    def parts(self) -> tuple[FileFrames, ...]:
        """The files whose frames make the run, in order."""
        return self.files if self.files else (self.topology_frames,)  # type: ignore[return-value]

    @property
    def n_frames(self) -> int:
        return sum(part.n_frames for part in self.parts)

    @property
    def has_time(self) -> bool:
        return all(part.has_time for part in self.parts)

    @property
    def time_unit(self) -> str:
        return TIME_PS if self.has_time else TIME_FRAME_INDEX

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(note for part in self.parts for note in part.notes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: label, files (paths), frames per file, time unit, notes."""
        return {"label": self.label,
                "files": [str(part.path.absolute()) for part in self.files],
                "frames": [part.n_frames for part in self.parts],
                "declared_frames": [part.declared for part in self.parts],
                "time": self.time_unit, "notes": list(self.notes)}


def _tail(path: Path, depth: int) -> str:
    """The last ``depth`` parts of a path (never its root), joined by ``/``."""
    parts = path.parts[1:] if path.is_absolute() else path.parts
    return "/".join(parts[-depth:])


def run_labels(paths: Sequence[str | Path]) -> list[str]:
    """A label per path: its file name, or as much of its path as tells it from the others
    with the same name (``run1/traj.xtc``, ``run2/traj.xtc``); the same file given twice
    gets ``#2``, ``#3`` … after its name."""
    absolute = [Path(os.path.abspath(p)) for p in paths]
    labels = []
    for path in absolute:
        others = {q for q in absolute if q != path and q.name == path.name}
        depth = 1
        while any(_tail(q, depth) == _tail(path, depth) for q in others):
            depth += 1
        labels.append(_tail(path, depth))
    seen: dict[str, int] = {}
    unique = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        unique.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return unique


def concatenated_label(paths: Sequence[str | Path]) -> str:
    """The label of files read as one run: their names joined by ``+`` (the first and
    the last of more than three)."""
    names = [Path(p).name for p in paths]
    if len(names) <= _LABEL_FILES:
        return "+".join(names)
    return f"{names[0]}+…+{names[-1]} ({len(names)} files)"


def dcd_frames(path: Path, trajectory: Any) -> tuple[int | None, bool]:
    """What a DCD file's header says: the frames it declares (NSET; None when 0) and
    whether bytes of a cut frame follow the last complete one (MDAnalysis counts the
    frames from the file's size and drops them). (None, False) for other formats and for
    DCD variants this does not parse (64-bit record markers)."""
    if type(trajectory).__name__ != "DCDReader":
        return None, False
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
        size = path.stat().st_size
    except OSError:
        return None, False
    for order in "<>":
        if len(head) < 104 or struct.unpack(f"{order}i", head[:4])[0] != 84 or \
                head[4:8] != b"CORD":
            continue
        control = struct.unpack(f"{order}20i", head[8:88])
        declared = control[0] if control[0] > 0 else None
        fixed, charmm = control[8], control[19] != 0
        extra = 56 if charmm and control[10] == 1 else 0
        dims = 4 if charmm and control[11] == 1 else 3
        title = struct.unpack(f"{order}i", head[92:96])[0]
        offset = 92 + title + 8  # the title block: its length, the text, its length again
        if offset + 12 > len(head):
            return declared, False
        atoms = struct.unpack(f"{order}i", head[offset + 4:offset + 8])[0]
        offset += 12 + (4 * (atoms - fixed) + 8 if fixed else 0)
        first = (atoms + 2) * dims * 4 + extra
        frame = (atoms - fixed + 2) * dims * 4 + extra
        if atoms <= 0 or frame <= 0 or size < offset + first:
            return declared, False
        return declared, (size - offset - first) % frame != 0
    return None, False


def _read_error(where: Path, frame: int, exc: BaseException) -> StructureError:
    detail = " ".join(str(exc).split()) or type(exc).__name__
    return StructureError(f"{where}: frame {frame} cannot be read ({detail}); the file is "
                          "damaged")


def _has_time(trajectory: Any) -> bool:
    """Whether the format stores times (MDAnalysis warns when it makes one up)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        time = trajectory.ts.time
    return time is not None and not any("dt information" in str(w.message) for w in caught)


def inspect_frames(trajectory: Any, path: Path, name: str | None = None) -> FileFrames:
    """The frames of the trajectory just loaded from ``path``, checked as described in the
    module's docstring.

    Raises
    ------
    StructureError
        A file without frames, or whose frames cannot be read (naming it and the frame).
    """
    name = name or path.name
    count = int(trajectory.n_frames)
    if count < 1:
        raise StructureError(f"{path}: the trajectory holds no frame")
    notes = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            trajectory[count - 1]
        except Exception as exc:  # MDAnalysis' readers raise OSError, EOFError, ValueError…
            try:
                if count < 2:
                    raise exc
                trajectory[count - 2]
            except Exception:
                raise _read_error(path, count - 1, exc) from None
            count -= 1
            notes.append(f"{name} is truncated: its last frame is cut off; {count:,} complete "
                         "frame(s) read")
        try:
            trajectory[0]
        except Exception as exc:
            raise _read_error(path, 0, exc) from None
    declared, cut = dcd_frames(path, trajectory)
    of_declared = (f" of the {declared:,} its header declares"
                   if declared is not None and declared > count else "")
    if cut:
        notes.append(f"{name} is truncated: its last frame is cut off; {count:,} complete "
                     f"frame(s) read{of_declared}")
    elif of_declared:
        notes.append(f"{name} holds {count:,} frame(s), but its header declares "
                     f"{declared:,}: it may have been cut short")
    return FileFrames(path, count, declared, _has_time(trajectory), tuple(notes))


def run_segments(run: TrajectoryRun, frames: range) -> list[tuple[int, range, int]]:
    """Where the frames of a run (numbered through its files) lie: (part index, frames of
    that part, position of its first frame in ``frames``) for every part holding some."""
    segments = []
    offset = 0
    step = frames.step
    for k, part in enumerate(run.parts):
        low, high = offset, offset + part.n_frames
        first = max(0, -(-(low - frames.start) // step))
        last = max(0, -(-(high - frames.start) // step))
        inside = frames[first:last]
        if len(inside):
            segments.append((k, range(inside.start - offset, inside.stop - offset, step),
                             first))
        offset = high
    return segments
