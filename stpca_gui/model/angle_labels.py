"""Readable names of angle columns, and a short description of many columns.

A per-frame table of ``stpca dihedrals`` names each column ``SEGID:RESNAMERESID:ANGLE``
(``4AKE:ILE120:psi``). The app shows such a column as ``ILE120 ψ`` (the segment only when
the columns come from several), and describes a table of 66 such columns as "66 backbone
torsions φ, ψ of residues GLY7–ILE39" instead of listing every name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

#: Greek letters of the torsions of ``stpca dihedrals``' sets.
_GREEK = {"phi": "φ", "psi": "ψ", "omega": "ω", "alpha": "α", "beta": "β", "gamma": "γ",
          "delta": "δ", "epsilon": "ε", "zeta": "ζ", "eta": "η", "theta": "θ", "chi": "χ"}
_TORSION_NAME = re.compile(
    r"^(?P<segid>[^:]*):(?P<resname>[A-Za-z0-9+'*_-]*?)(?P<resid>-?\d+)(?P<icode>[A-Za-z]?)"
    r":(?P<angle>[A-Za-z]+\d*)$")
_ANGLE_KIND = re.compile(r"^(?P<base>[A-Za-z]+?)(?P<index>\d*)$")
#: Column names listed in a description when they are not torsions of residues.
LISTED_NAMES = 8


@dataclass(frozen=True)
class TorsionName:
    """A per-frame torsion column's parts: ``4AKE:ILE120:psi`` →
    ("4AKE", "ILE", 120, "psi")."""

    segid: str
    resname: str
    resid: int
    angle: str
    icode: str = ""

    @property
    def residue(self) -> str:
        """``ILE120`` (with the insertion code, if any)."""
        return f"{self.resname}{self.resid}{self.icode}"


def parse_torsion_name(name: str) -> TorsionName | None:
    """The parts of a ``SEGID:RESNAMERESID:ANGLE`` column name, or None for other names."""
    match = _TORSION_NAME.match(name.strip())
    if match is None:
        return None
    return TorsionName(match["segid"], match["resname"], int(match["resid"]),
                       match["angle"], match["icode"])


def greek(angle: str) -> str:
    """``psi`` → ``ψ``, ``chi1`` → ``χ1``; other names unchanged."""
    match = _ANGLE_KIND.match(angle)
    if match is None or match["base"].lower() not in _GREEK:
        return angle
    return _GREEK[match["base"].lower()] + match["index"]


def display_names(names: Sequence[str]) -> list[str]:
    """The names the app shows for columns: ``ILE120 ψ`` for torsion columns (with the
    segment, ``4AKE ILE120 ψ``, when the torsions come from several segments); other
    names unchanged."""
    parsed = [parse_torsion_name(str(name)) for name in names]
    segments = {p.segid for p in parsed if p is not None}
    several = len(segments) > 1
    return [str(name) if p is None else
            (f"{p.segid} " if several and p.segid else "") + f"{p.residue} {greek(p.angle)}"
            for name, p in zip(names, parsed, strict=True)]


def describe_columns(names: Sequence[str]) -> str:
    """A short account of the columns: every name when there are few, else for torsion
    columns their count, kinds and residue range, and for others the first names and how
    many more there are."""
    names = [str(name) for name in names]
    parsed = [parse_torsion_name(name) for name in names]
    if len(names) <= LISTED_NAMES and not all(p is not None for p in parsed):
        return ", ".join(names)
    torsions = [p for p in parsed if p is not None]
    if not torsions or len(torsions) < len(names):
        shown = ", ".join(names[:LISTED_NAMES])
        more = len(names) - LISTED_NAMES
        return shown + (f", … ({more} more)" if more > 0 else "")
    order = list(_GREEK.values())
    kinds = sorted(dict.fromkeys(greek(p.angle) for p in torsions),
                   key=lambda k: (order.index(k[0]) if k[:1] in order else len(order), k))
    residues = list(dict.fromkeys((p.segid, p.residue) for p in torsions))
    segments = list(dict.fromkeys(p.segid for p in torsions if p.segid))
    first, last = residues[0][1], residues[-1][1]
    span = first if first == last else f"{first}–{last}"
    where = (f" of {len(residues)} residues {span}" if len(residues) > 1
             else f" of residue {span}")
    if segments:
        where += f" (segment{'s' if len(segments) > 1 else ''} {', '.join(segments[:3])}"
        where += ", …)" if len(segments) > 3 else ")"
    kind = "backbone torsions" if set(kinds) <= {"φ", "ψ", "ω"} else "torsions"
    return f"{len(names)} {kind} {', '.join(kinds)}{where}"
