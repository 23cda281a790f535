"""What to read from a structure: the dihedral set, residues, layout and frames."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ..tables import PROVENANCE_COLUMNS
from .dihedral_sets import DIHEDRAL_SETS

__all__ = ["CUSTOM_SET", "LAYOUTS", "MAX_FRAME_INDEX", "SET_NAMES", "DihedralSettings",
           "StructureError", "check_torsion_name"]

#: The set of user-defined torsions (``DihedralSettings.custom``).
CUSTOM_SET = "custom"
SET_NAMES = (*DIHEDRAL_SETS, CUSTOM_SET)
LAYOUTS = ("pooled", "per-frame")
#: Frame numbers (start, stop, stride) beyond this are refused before any C reader sees
#: them (a 64-bit frame count would overflow there; no trajectory has 2⁴⁰ frames).
MAX_FRAME_INDEX = 2**40
#: The longest name of a user-defined torsion (a column of the table).
MAX_TORSION_NAME = 64
#: Characters a column name of a user-defined torsion may not hold: the table's and the
#: ``--columns`` list's separators, quotes, and the ``NAME=…`` separator.
_NAME_FORBIDDEN = re.compile(r'[,;="]')


class StructureError(ValueError):
    """A structure or trajectory cannot be read as asked; the message names the file."""


@dataclass(frozen=True)
class DihedralSettings:
    """How torsions are read from a structure (JSON-ready through :meth:`to_dict`).

    Attributes
    ----------
    dihedral_set : str
        ``backbone``, ``chi``, ``rna-backbone``, ``rna-pseudo`` or ``custom``.
    select : str
        Residues, in MDAnalysis' selection language (``"all"``, ``"resid 10:20"`` …).
    layout : str
        ``pooled`` (one row per frame and residue) or ``per-frame`` (one row per frame,
        a column per torsion).
    start, stop, stride : int
        Frames ``start, start + stride, …`` before ``stop`` (0-based; None: first/last).
    angles : tuple of str, optional
        The set's torsions to read (default: φ, ψ for backbone; χ1, χ2 for chi; all for the
        nucleic-acid sets).
    omega : bool
        ``backbone`` also reads ω.
    custom : tuple of (name, (sel1, sel2, sel3, sel4))
        User-defined torsions: four selections of one atom each (``custom`` set, read
        per frame).
    concatenate : bool
        Several trajectory files are read as one run, one after the other (frames
        numbered through, ``start/stop/stride`` over the whole); by default each file is a
        run of its own, and ``start/stop/stride`` apply to each.
    """

    dihedral_set: str = "backbone"
    select: str = "all"
    layout: str = "pooled"
    start: int | None = None
    stop: int | None = None
    stride: int = 1
    angles: tuple[str, ...] | None = None
    omega: bool = False
    custom: tuple[tuple[str, tuple[str, str, str, str]], ...] = ()
    concatenate: bool = False

    def validate(self) -> None:
        """Raise StructureError (a message for the user) for settings that cannot work."""
        if self.dihedral_set not in SET_NAMES:
            raise StructureError(f"unknown dihedral set {self.dihedral_set!r}; choose one of "
                                 f"{', '.join(SET_NAMES)}")
        if self.layout not in LAYOUTS:
            raise StructureError(f"unknown layout {self.layout!r}; choose pooled or per-frame")
        if not self.select.strip():
            raise StructureError("the selection is empty; use 'all' for every residue")
        for name, value in (("start", self.start), ("stop", self.stop)):
            if value is not None and value < 0:
                raise StructureError(f"frames out of range: {name} {value} is negative")
            if value is not None and value > MAX_FRAME_INDEX:
                raise StructureError(f"frames out of range: {name} {value:.3g} is beyond any "
                                     f"trajectory (at most {MAX_FRAME_INDEX:.3g})")
        if self.stride < 1:
            raise StructureError(f"the frame stride must be at least 1, not {self.stride}")
        if self.stride > MAX_FRAME_INDEX:
            raise StructureError(f"the frame stride {self.stride:.3g} is beyond any "
                                 f"trajectory (at most {MAX_FRAME_INDEX:.3g})")
        if self.start is not None and self.stop is not None and self.stop <= self.start:
            raise StructureError(f"frames out of range: stop {self.stop} is not after "
                                 f"start {self.start}")
        if self.dihedral_set == CUSTOM_SET:
            if not self.custom:
                raise StructureError("the custom set needs at least one torsion of four "
                                     "atom selections")
            if self.layout != "per-frame":
                raise StructureError("user-defined torsions are read per frame (layout "
                                     "per-frame)")
            names = [name for name, _ in self.custom]
            for name in names:
                check_torsion_name(name)
            if len(set(names)) != len(names):
                raise StructureError("two user-defined torsions have the same name")
            for name, selections in self.custom:
                if len(selections) != 4:
                    raise StructureError(f"torsion {name!r} needs four atom selections, "
                                         f"not {len(selections)}")
        elif self.angles is not None:
            known = [t.name for t in DIHEDRAL_SETS[self.dihedral_set]]
            unknown = [a for a in self.angles if a not in known]
            if unknown or not self.angles:
                raise StructureError(f"the {self.dihedral_set} set has the torsions "
                                     f"{', '.join(known)}; not {', '.join(unknown) or 'none'}")

    def to_dict(self) -> dict[str, Any]:
        """Plain values (lists for tuples) for a session or a script."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["angles"] = None if self.angles is None else list(self.angles)
        values["custom"] = [[name, list(selections)] for name, selections in self.custom]
        return values

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> DihedralSettings:
        """The settings of :meth:`to_dict` (also after a round trip through JSON)."""
        known = {f.name for f in fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown dihedral settings: {', '.join(sorted(unknown))}")

        def optional_int(key: str) -> int | None:
            value = values.get(key)
            return None if value is None else int(value)

        angles = values.get("angles")
        return cls(
            dihedral_set=str(values.get("dihedral_set", "backbone")),
            select=str(values.get("select", "all")),
            layout=str(values.get("layout", "pooled")),
            start=optional_int("start"), stop=optional_int("stop"),
            stride=int(values.get("stride", 1)),
            angles=None if angles is None else tuple(str(a) for a in angles),
            omega=bool(values.get("omega", False)),
            custom=tuple((str(name), tuple(str(s) for s in selections))  # type: ignore[misc]
                         for name, selections in values.get("custom", ())),
            concatenate=bool(values.get("concatenate", False)),
        )


def check_torsion_name(name: str) -> None:
    """Refuse a name of a user-defined torsion that would not survive as a table column:
    empty or too long, a provenance column's name (``frame``, ``time`` …), control or
    line-separating characters, or the separators ``, ; = "``.

    Raises
    ------
    StructureError
    """
    shown = repr(name if len(name) <= MAX_TORSION_NAME else name[:MAX_TORSION_NAME] + "…")
    if not name.strip() or name != name.strip():
        raise StructureError(f"the torsion name {shown} is empty or starts or ends with "
                             "spaces")
    if len(name) > MAX_TORSION_NAME:
        raise StructureError(f"the torsion name {shown} is longer than {MAX_TORSION_NAME} "
                             "characters")
    if name.lower() in PROVENANCE_COLUMNS:
        raise StructureError(f"the torsion name {shown} is the name of a provenance column "
                             f"({', '.join(PROVENANCE_COLUMNS)}); choose another")
    # Categories C* (control, format, …) and Z* but the space (line/paragraph separators).
    if any(unicodedata.category(c)[0] == "C" or (unicodedata.category(c)[0] == "Z"
                                                  and c != " ") for c in name):
        raise StructureError(f"the torsion name {shown} holds a control or line-separating "
                             "character")
    if _NAME_FORBIDDEN.search(name):
        raise StructureError(f"the torsion name {shown} holds one of , ; = \" (separators "
                             "of the table and of the command line)")
