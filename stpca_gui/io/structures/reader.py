"""Torsion angles of structures and trajectories, read with MDAnalysis.

The quadruples of atoms are found once (:func:`plan_torsions`); then the frames of each
trajectory file are read in blocks (:func:`read_frames`: ``trajectory.timeseries`` of only
the atoms the torsions use for DCD, frame by frame with each frame's time for the other
formats) and ``MDAnalysis.lib.distances.calc_dihedrals`` computes every torsion of the
block in one call. Memory holds one block of coordinates and the output table, whatever
the trajectory's length. Torsions are computed from the coordinates as stored (no
minimum-image wrapping, as ``nuclinfo`` does): molecules must be whole.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...core import ProgressEvent
from .dihedral_sets import DIHEDRAL_SETS, SET_RESIDUES, default_angles
from .runs import FileFrames, inspect_frames
from .selections import quoted_selection, select_atoms
from .settings import CUSTOM_SET, DihedralSettings, StructureError

__all__ = ["DIHEDRALS_STAGE", "INSTALL_HINT", "TorsionBlocks", "TorsionPlan",
           "close_trajectory", "frame_range", "load_trajectory", "open_topology",
           "open_universe", "plan_torsions", "read_frames", "require_mdanalysis",
           "residue_class"]

#: How to get the optional reader, repeated wherever a structure is opened without it.
INSTALL_HINT = ("reading structures and trajectories needs MDAnalysis, part of stpca-gui's "
                "install but missing here: install it with pip install 'stpca-gui[structures]' "
                "(or, in a checkout, uv sync)")
#: Coordinates (float32 values) held per block of frames: 16 MB.
BLOCK_FLOATS = 4_000_000
#: The largest block of frames read at once.
MAX_BLOCK_FRAMES = 4096

ProgressCallback = Callable[[ProgressEvent], bool | None]
#: The ``stage`` of the progress events of a reading.
DIHEDRALS_STAGE = "dihedrals"


def _quiet_reader_cleanup(unraisable: Any, previous: Callable[[Any], None]) -> None:
    """``sys.unraisablehook`` that drops the one known-harmless report: an MDAnalysis
    reader whose ``__init__`` failed on a corrupt file, closing attributes it never made
    when it is collected (``Exception ignored in ReaderBase.__del__``). Anything else
    goes to the previous hook."""
    where = getattr(unraisable.object, "__qualname__", "")
    module = getattr(unraisable.object, "__module__", "") or ""
    if (where.endswith("__del__") and module.startswith("MDAnalysis")
            and issubclass(unraisable.exc_type, AttributeError)):
        return
    previous(unraisable)


def require_mdanalysis() -> Any:
    """The ``MDAnalysis`` module, or a StructureError saying how to install it.

    The first call also silences MDAnalysis' noise when a corrupt file fails to open
    (see :func:`_quiet_reader_cleanup`)."""
    try:
        import MDAnalysis
    except ImportError:
        raise StructureError(INSTALL_HINT) from None
    hook = sys.unraisablehook
    if getattr(hook, "__name__", "") != "stpca_quiet_reader_cleanup":
        def stpca_quiet_reader_cleanup(unraisable: Any) -> None:
            _quiet_reader_cleanup(unraisable, hook)

        sys.unraisablehook = stpca_quiet_reader_cleanup
    return MDAnalysis


def _problem(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _check_files(files: Iterable[Path]) -> None:
    for file in files:
        if not file.is_file():
            raise StructureError(f"{file}: no such file")


def open_topology(topology: str | Path) -> Any:
    """An ``MDAnalysis.Universe`` of a topology or structure file alone (a PSF has no
    coordinates: its trajectories come with :func:`load_trajectory`).

    Raises
    ------
    StructureError
        MDAnalysis is missing, or the file is missing, unreadable or has no atoms.
    """
    mda = require_mdanalysis()
    path = Path(topology)
    _check_files([path])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            universe = mda.Universe(str(path))
    except MemoryError:
        raise StructureError(f"{path}: too large to read in the memory available") from None
    except Exception as exc:  # MDAnalysis raises many kinds for files it cannot parse
        raise StructureError(f"{path}: cannot be read as a structure: {_problem(exc)}"
                             ) from None
    if universe.atoms.n_atoms == 0:
        raise StructureError(f"{path}: the topology has no atoms")
    return universe


def load_trajectory(universe: Any, path: str | Path, topology: str | Path = "",
                    name: str | None = None) -> FileFrames:
    """Load one trajectory file into ``universe`` (closing the one before) and check it
    (:func:`~stpca_gui.io.structures.runs.inspect_frames`).

    Raises
    ------
    StructureError
        A missing or unreadable file, one of another atom count than the topology, or one
        whose frames cannot be read (naming the file).
    """
    file = Path(path)
    _check_files([file])
    close_trajectory(universe)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            universe.load_new(str(file))
    except MemoryError:
        raise StructureError(f"{file}: too large to read in the memory available") from None
    except Exception as exc:
        text = _problem(exc)
        if "same number of atoms" in text:
            found = text.rsplit("Number of atoms", 1)[-1].strip()
            text = (f"its frames have {found} atoms, but the topology "
                    f"{Path(topology).name or 'read'} has {universe.atoms.n_atoms:,}: it "
                    "does not match the topology")
        raise StructureError(f"{file}: cannot be read as a trajectory: {text}") from None
    return inspect_frames(universe.trajectory, file, name)


def close_trajectory(universe: Any) -> None:
    """Close the universe's trajectory file, if it has one (safe to call twice)."""
    trajectory = getattr(universe, "_trajectory", None)
    if trajectory is not None:
        try:
            trajectory.close()
        except Exception:  # a reader that never opened its file
            pass


def open_universe(topology: str | Path, trajectories: Sequence[str | Path] = ()) -> Any:
    """An ``MDAnalysis.Universe`` of a topology (PDB, mmCIF, PSF, GRO, PRMTOP …) and
    optional trajectory files (DCD, XTC, TRR, NetCDF …), read in order as one trajectory.

    Raises
    ------
    StructureError
        MDAnalysis is missing, a file is missing or unreadable, or the trajectory's atoms
        do not match the topology's (the message names the file).
    """
    files = [Path(p) for p in trajectories]
    universe = open_topology(topology)
    if files:
        for file in files:  # each checked alone: a message names the file at fault
            load_trajectory(universe, file, topology)
        close_trajectory(universe)
        if len(files) > 1:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                universe.load_new([str(f) for f in files])
    try:
        universe.trajectory  # noqa: B018 (MDAnalysis raises when there are no coordinates)
    except AttributeError:
        raise StructureError(f"{topology}: the topology holds no coordinates; give a "
                             "trajectory file too") from None
    return universe


def residue_class(resname: str, next_resname: str | None) -> str:
    """The classic Ramachandran class of a residue (Lovell et al. 2003): Gly, Pro, pre-Pro
    (followed by a proline) or other."""
    name = resname.upper()
    if name == "GLY":
        return "Gly"
    if name == "PRO":
        return "Pro"
    if next_resname is not None and next_resname.upper() == "PRO":
        return "pre-Pro"
    return "other"


@dataclass(frozen=True)
class TorsionPlan:
    """The quadruples of atoms of a reading, found once.

    Attributes
    ----------
    quadruples : ndarray of int, shape (q, 4)
        Atom indices (of ``universe.atoms``) of every torsion, in output order: for the
        pooled layout residue-major (``q = residues × angles``), for the per-frame layout
        one per column.
    angle_names : tuple of str
        The pooled layout's angle columns; for per-frame, the column names.
    segid, resid, resname, residue_class : ndarray, shape (residues,)
        The residues of the pooled rows (per frame, in this order); for per-frame, the
        residue of each column.
    missing : tuple of str
        Torsions left out, named like the per-frame columns (chain ends, missing atoms,
        residues without that torsion).
    """

    quadruples: NDArray[np.intp]
    angle_names: tuple[str, ...]
    segid: NDArray[np.str_]
    resid: NDArray[np.int64]
    resname: NDArray[np.str_]
    residue_class: NDArray[np.str_]
    missing: tuple[str, ...]


def _column_safe(text: str) -> str:
    """``text`` with separators, quotes and control characters (a file's segment or
    residue names are untrusted) replaced by ``?``."""
    return "".join("?" if (not c.isprintable() or c in ',;="') else c for c in text)


class _Residues:
    """Atom-name lookups of the residues of a universe and their sequence neighbours."""

    def __init__(self, universe: Any) -> None:
        self.universe = universe
        residues = universe.residues
        self.segids = np.asarray(residues.segids).astype(str)
        if hasattr(universe.atoms, "chainIDs"):
            # PDB files often have blank segment ids; the chain names the residue then.
            # The chain of each residue's first atom (residues without atoms have none).
            present, first = np.unique(universe.atoms.resindices, return_index=True)
            chains = np.full(len(residues), "", dtype=object)
            chains[present] = universe.atoms.chainIDs[first]
            chains = chains.astype(str)
            blank = (np.char.strip(self.segids) == "") | (self.segids == "SYSTEM")
            self.segids = np.where(blank & (np.char.strip(chains) != ""), chains,
                                   self.segids)
        self.resids = np.asarray(residues.resids, dtype=np.int64)
        self.resnames = np.asarray(residues.resnames).astype(str)
        self.segindices = np.asarray(residues.segindices)
        self._by_key = {(int(s), int(r)): k for k, (s, r) in
                        enumerate(zip(self.segindices, self.resids, strict=True))}
        self._names: dict[int, dict[str, int]] = {}

    def neighbour(self, k: int, offset: int) -> int | None:
        """The residue ``offset`` resids away from residue ``k`` in its segment."""
        if offset == 0:
            return k
        return self._by_key.get((int(self.segindices[k]), int(self.resids[k]) + offset))

    def atoms(self, k: int) -> dict[str, int]:
        """Atom index by name (``*`` read as a prime; the first of duplicated names)."""
        names = self._names.get(k)
        if names is None:
            atoms = self.universe.residues[k].atoms
            names = {}
            for name, index in zip(atoms.names, atoms.indices, strict=True):
                names.setdefault(str(name).replace("*", "'"), int(index))
            self._names[k] = names
        return names

    def label(self, k: int) -> str:
        """``SEGID:RESNAMERESID`` (without the segment when it has no name, or MDAnalysis'
        placeholder ``SYSTEM``); characters a table column cannot hold become ``?``."""
        segid = self.segids[k].strip()
        segid = "" if segid == "SYSTEM" else segid
        residue = f"{self.resnames[k]}{self.resids[k]}"
        return _column_safe(f"{segid}:{residue}" if segid else residue)

    def find(self, k: int, variants: Iterable[tuple[tuple[int, str], ...]]) -> list[int] | None:
        """The atom indices of the first variant whose atoms all exist, or None."""
        for variant in variants:
            found: list[int] = []
            for offset, name in variant:
                other = self.neighbour(k, offset)
                index = None if other is None else self.atoms(other).get(name)
                if index is None:
                    break
                found.append(index)
            else:
                return found
        return None


def plan_torsions(universe: Any, settings: DihedralSettings, where: str = "structure"
                  ) -> TorsionPlan:
    """The quadruples of atoms of ``settings`` in ``universe``.

    Parameters
    ----------
    universe : MDAnalysis.Universe
    settings : DihedralSettings
    where : str
        The file named in messages (the topology).

    Raises
    ------
    StructureError
        An invalid or empty selection, or no torsion of the set in it.
    """
    settings.validate()
    if settings.dihedral_set == CUSTOM_SET:
        return _plan_custom(universe, settings, where)
    chosen = select_atoms(universe, settings.select, where)
    shown = quoted_selection(settings.select)
    if chosen.n_atoms == 0:
        raise StructureError(f"{where}: the selection {shown} matches no atoms")
    kind = SET_RESIDUES[settings.dihedral_set]
    residues = chosen.residues.intersection(select_atoms(universe, kind, where).residues)
    if len(residues) == 0:
        raise StructureError(f"{where}: the selection {shown} holds no {kind} "
                             f"residue, so no {settings.dihedral_set} torsion")
    lookup = _Residues(universe)
    wanted = settings.angles or default_angles(settings.dihedral_set, omega=settings.omega)
    definitions = [t for t in DIHEDRAL_SETS[settings.dihedral_set] if t.name in wanted]
    rows: list[list[int]] = []
    kept: list[int] = []
    names: list[str] = []
    missing: list[str] = []
    for k in (int(i) for i in residues.resindices):
        found = [lookup.find(k, t.variants) for t in definitions]
        label = lookup.label(k)
        missing += [f"{label}:{t.name}" for t, q in zip(definitions, found, strict=True)
                    if q is None]
        if settings.layout == "pooled":
            if all(q is not None for q in found):
                kept.append(k)
                rows += found  # type: ignore[arg-type]
        else:
            for t, q in zip(definitions, found, strict=True):
                if q is not None:
                    kept.append(k)
                    rows.append(q)
                    names.append(f"{label}:{t.name}")
    if not rows:
        raise StructureError(
            f"{where}: no {'/'.join(t.name for t in definitions)} torsion is defined in the "
            f"selection {shown} ({len(missing)} left out, e.g. "
            f"{', '.join(missing[:3])})")
    keys = np.asarray(kept, dtype=np.intp)
    following = [lookup.neighbour(k, 1) for k in kept]
    classes = [residue_class(lookup.resnames[k], None if n is None else lookup.resnames[n])
               for k, n in zip(kept, following, strict=True)]
    return TorsionPlan(
        quadruples=np.asarray(rows, dtype=np.intp).reshape(-1, 4),
        angle_names=(tuple(t.name for t in definitions) if settings.layout == "pooled"
                     else tuple(names)),
        segid=lookup.segids[keys], resid=lookup.resids[keys], resname=lookup.resnames[keys],
        residue_class=np.asarray(classes, dtype=str), missing=tuple(missing))


def _plan_custom(universe: Any, settings: DihedralSettings, where: str) -> TorsionPlan:
    """User-defined torsions: four selections of one atom each."""
    rows = []
    for name, selections in settings.custom:
        quadruple = []
        for selection in selections:
            atoms = select_atoms(universe, selection, where)
            if atoms.n_atoms != 1:
                raise StructureError(f"{where}: torsion {name!r}: the selection "
                                     f"{quoted_selection(selection)} "
                                     f"matches {atoms.n_atoms} atoms, not one")
            quadruple.append(int(atoms.indices[0]))
        rows.append(quadruple)
    n = len(rows)
    blank = np.full(n, "", dtype=str)
    return TorsionPlan(np.asarray(rows, dtype=np.intp), tuple(n for n, _ in settings.custom),
                       blank, np.zeros(n, dtype=np.int64), blank, blank, ())


def frame_range(settings: DihedralSettings, n_frames: int, where: str) -> range:
    """The frames read, checked against the trajectory's length."""
    start = settings.start or 0
    stop = n_frames if settings.stop is None else settings.stop
    if start >= n_frames:
        raise StructureError(f"{where}: frames out of range: start {start}, but the "
                             f"trajectory has {n_frames} frame(s) (0–{n_frames - 1})")
    if stop > n_frames:
        raise StructureError(f"{where}: frames out of range: stop {stop}, but the "
                             f"trajectory has {n_frames} frame(s)")
    frames = range(start, stop, settings.stride)
    if len(frames) == 0:
        raise StructureError(f"{where}: the frame range {start}:{stop}:{settings.stride} "
                             "holds no frame")
    return frames


class TorsionBlocks:
    """The torsions of a plan computed from blocks of coordinates.

    Parameters
    ----------
    universe : MDAnalysis.Universe
    plan : TorsionPlan
    """

    def __init__(self, universe: Any, plan: TorsionPlan) -> None:
        used, inverse = np.unique(plan.quadruples, return_inverse=True)
        self.corners = inverse.reshape(-1, 4)
        self.atoms = universe.atoms[used]
        self.n_torsions = len(self.corners)
        per_frame = 3 * len(used) + 12 * self.n_torsions
        #: Frames per block: about BLOCK_FLOATS coordinates.
        self.block = int(max(1, min(MAX_BLOCK_FRAMES, BLOCK_FLOATS // per_frame)))

    def torsions(self, coordinates: NDArray[np.float32]) -> NDArray[np.float64]:
        """Degrees in (−180, 180], shape (frames, torsions), of atom-major coordinates
        (atoms, frames, 3)."""
        from MDAnalysis.lib.distances import calc_dihedrals

        frames = coordinates.shape[1]
        corner = np.take(coordinates, self.corners.T, axis=0)  # (4, q, frames, 3)
        with np.errstate(invalid="ignore", divide="ignore"):  # degenerate geometry: NaN
            values = calc_dihedrals(*(corner[j].reshape(-1, 3) for j in range(4)))
        values = values.reshape(self.n_torsions, frames).T
        np.rad2deg(values, out=values)
        values[values <= -180.0] += 360.0  # [−π, π] from calc_dihedrals; one value for ±180°
        return values


def read_frames(trajectory: Any, blocks: TorsionBlocks, frames: range, where: Path,
                angles: NDArray[np.float64], times: NDArray[np.float64], has_time: bool,
                on_block: Callable[[int], None] | None = None) -> None:
    """Read the torsions and times of ``frames`` of a trajectory into ``angles`` (shape
    (len(frames), q), degrees) and ``times`` (ps; the frame index when ``has_time`` is
    False).

    DCD files are read with MDAnalysis' compiled ``timeseries`` (only the atoms used);
    their time is linear in the frame index (the format stores a start and a step, no
    per-frame time). Other formats are read frame by frame, each with its own time.

    Raises
    ------
    StructureError
        A frame that cannot be read, or a time that is not a finite number (naming the
        file and the frame).
    """
    native = type(trajectory).__name__ == "DCDReader"
    block = blocks.block
    for first in range(0, len(frames), block):
        part = frames[first:first + block]
        rows = slice(first, first + len(part))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if native:
                coordinates = _timeseries(trajectory, blocks, part, where)
                if has_time:
                    origin = _frame(trajectory, part.start, where).time
                    times[rows] = origin + (np.asarray(part) - part.start) * trajectory.dt
            else:
                coordinates = _frame_by_frame(trajectory, blocks, part, where,
                                              times[rows] if has_time else None)
        if not has_time:
            times[rows] = part
        elif not np.all(np.isfinite(times[rows])):
            bad = part[int(np.flatnonzero(~np.isfinite(times[rows]))[0])]
            raise StructureError(f"{where}: frame {bad} has no readable time "
                                 f"({times[rows][part.index(bad)]}); the file is damaged")
        angles[rows] = blocks.torsions(coordinates)
        if on_block is not None:
            on_block(len(part))


def _frame(trajectory: Any, index: int, where: Path) -> Any:
    try:
        return trajectory[index]
    except Exception as exc:
        raise StructureError(f"{where}: frame {index} cannot be read ({_problem(exc)}); "
                             "the file is damaged") from None


def _timeseries(trajectory: Any, blocks: TorsionBlocks, part: range, where: Path
                ) -> NDArray[np.float32]:
    try:
        # Atom-major: each atom's block of frames is one contiguous run to copy.
        return trajectory.timeseries(atomgroup=blocks.atoms, start=part.start,
                                     stop=part.stop, step=part.step, order="afc")
    except Exception as exc:
        raise StructureError(f"{where}: frames {part.start}–{part[-1]} cannot be read "
                             f"({_problem(exc)}); the file is damaged") from None


def _frame_by_frame(trajectory: Any, blocks: TorsionBlocks, part: range, where: Path,
                    times: NDArray[np.float64] | None) -> NDArray[np.float32]:
    indices = blocks.atoms.indices
    coordinates = np.empty((len(indices), len(part), 3), dtype=np.float32)
    for j, frame in enumerate(part):
        ts = _frame(trajectory, frame, where)
        coordinates[:, j] = ts.positions[indices]
        if times is not None:
            times[j] = ts.time
    return coordinates
