"""Torsion angles of structures and trajectories, read with MDAnalysis.

The quadruples of atoms are found once (:func:`plan_torsions`); then the frames are read in
blocks (``trajectory.timeseries`` of only the atoms the torsions use) and
``MDAnalysis.lib.distances.calc_dihedrals`` computes every torsion of the block in one call.
Memory holds one block of coordinates and the output table, whatever the trajectory's
length. Torsions are computed from the coordinates as stored (no minimum-image wrapping,
as ``nuclinfo`` does): molecules must be whole.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...core import FitCancelled, ProgressEvent
from .dihedral_sets import DIHEDRAL_SETS, SET_RESIDUES, default_angles
from .settings import CUSTOM_SET, DihedralSettings, StructureError

__all__ = ["DIHEDRALS_STAGE", "INSTALL_HINT", "TorsionPlan", "open_universe", "plan_torsions",
           "require_mdanalysis", "residue_class"]

#: How to get the optional reader, repeated wherever a structure is opened without it.
INSTALL_HINT = ("reading structures and trajectories needs MDAnalysis: install it with "
                "pip install 'stpca-gui[structures]' (or, in a checkout, uv sync --extra "
                "structures)")
#: Coordinates (float32 values) held per block of frames: 16 MB.
BLOCK_FLOATS = 4_000_000
#: The largest block of frames read at once.
MAX_BLOCK_FRAMES = 4096

ProgressCallback = Callable[[ProgressEvent], bool | None]
#: The ``stage`` of the progress events of :func:`compute_torsions`.
DIHEDRALS_STAGE = "dihedrals"


def require_mdanalysis() -> Any:
    """The ``MDAnalysis`` module, or a StructureError saying how to install it."""
    try:
        import MDAnalysis
    except ImportError:
        raise StructureError(INSTALL_HINT) from None
    return MDAnalysis


def open_universe(topology: str | Path, trajectories: Sequence[str | Path] = ()) -> Any:
    """An ``MDAnalysis.Universe`` of a topology (PDB, mmCIF, PSF, GRO, PRMTOP …) and
    optional trajectory files (DCD, XTC, TRR, NetCDF …), read in order as one trajectory.

    Raises
    ------
    StructureError
        MDAnalysis is missing, a file is missing or unreadable, or the trajectory's atoms
        do not match the topology's (the message names the file).
    """
    mda = require_mdanalysis()
    files = [Path(topology), *map(Path, trajectories)]
    for file in files:
        if not file.is_file():
            raise StructureError(f"{file}: no such file")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            universe = mda.Universe(str(files[0]), *[str(f) for f in files[1:]])
    except Exception as exc:  # MDAnalysis raises many kinds for files it cannot parse
        named = files[0] if len(files) == 1 else ", ".join(map(str, files))
        text = " ".join(str(exc).split()) or type(exc).__name__
        if "same number of atoms" in text:
            text = (f"the trajectory does not match the topology ({text})")
        raise StructureError(f"{named}: cannot be read as a structure: {text}") from None
    if universe.atoms.n_atoms == 0:
        raise StructureError(f"{files[0]}: the topology has no atoms")
    try:
        universe.trajectory  # noqa: B018 (MDAnalysis raises when there are no coordinates)
    except AttributeError:
        raise StructureError(f"{files[0]}: the topology holds no coordinates; give a "
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
        placeholder ``SYSTEM``)."""
        segid = self.segids[k].strip()
        segid = "" if segid == "SYSTEM" else segid
        residue = f"{self.resnames[k]}{self.resids[k]}"
        return f"{segid}:{residue}" if segid else residue

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


def _select(universe: Any, selection: str, where: str) -> Any:
    try:
        return universe.select_atoms(selection)
    except Exception as exc:  # SelectionError, ValueError, … for a bad expression
        text = " ".join(str(exc).split())
        raise StructureError(f"{where}: the selection {selection!r} is not valid: "
                             f"{text}") from None


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
    chosen = _select(universe, settings.select, where)
    if chosen.n_atoms == 0:
        raise StructureError(f"{where}: the selection {settings.select!r} matches no atoms")
    kind = SET_RESIDUES[settings.dihedral_set]
    residues = chosen.residues.intersection(_select(universe, kind, where).residues)
    if len(residues) == 0:
        raise StructureError(f"{where}: the selection {settings.select!r} holds no {kind} "
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
            f"selection {settings.select!r} ({len(missing)} left out, e.g. "
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
            atoms = _select(universe, selection, where)
            if atoms.n_atoms != 1:
                raise StructureError(f"{where}: torsion {name!r}: the selection {selection!r} "
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


def compute_torsions(universe: Any, plan: TorsionPlan, frames: range,
                     callback: ProgressCallback | None = None) -> NDArray[np.float64]:
    """Every torsion of ``plan`` in every frame of ``frames``, in degrees (−180, 180].

    Returns
    -------
    ndarray, shape (len(frames), q)

    Raises
    ------
    FitCancelled
        When ``callback`` returned True.
    """
    from MDAnalysis.lib.distances import calc_dihedrals

    used, inverse = np.unique(plan.quadruples, return_inverse=True)
    corners = inverse.reshape(-1, 4)
    atoms = universe.atoms[used]
    q = len(corners)
    n = len(frames)
    per_frame = 3 * len(used) + 12 * q
    block = int(max(1, min(MAX_BLOCK_FRAMES, BLOCK_FLOATS // per_frame)))
    out = np.empty((n, q), dtype=np.float64)
    trajectory = universe.trajectory
    for first in range(0, n, block):
        part = frames[first:first + block]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # Atom-major: each atom's block of frames is one contiguous run to copy.
            coordinates = trajectory.timeseries(atomgroup=atoms, start=part.start,
                                                stop=part.stop, step=part.step, order="afc")
        corner = np.take(coordinates, corners.T, axis=0)  # (4, q, frames, 3), contiguous
        values = calc_dihedrals(*(corner[j].reshape(-1, 3) for j in range(4)))
        out[first:first + len(part)] = values.reshape(q, len(part)).T
        if callback is not None:
            done = first + len(part)
            if callback(ProgressEvent(DIHEDRALS_STAGE, done / n,
                                      message=f"torsions: frame {done:,} of {n:,}")):
                raise FitCancelled("cancelled while reading torsions")
    np.rad2deg(out, out=out)
    out[out <= -180.0] += 360.0  # calc_dihedrals gives [−π, π]; keep one value for ±180°
    return out

