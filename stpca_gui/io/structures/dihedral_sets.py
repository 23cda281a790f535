"""The named dihedral sets: which four atoms make each torsion of a residue.

Pure data (no MDAnalysis): a torsion is a list of *variants*, each four atoms given as
(residue offset, atom name); the first variant whose four atoms all exist in the residue
and its neighbours is used. Offsets −1 and +1 are the previous and next residue of the same
segment (resid − 1 and resid + 1), as in MDAnalysis' ``Ramachandran``.

Side-chain χ1/χ2 follow MDAnalysis' ``Janin`` (χ1 = N–CA–CB–{CG, CG1}, χ2 =
CA–CB–{CG, CG1}–{CD, CD1, OD1, ND1, SD}) and extend them: χ1 also for Ser (OG), Thr (OG1),
Cys (SG) and Val (CG1), and χ3/χ4 for Arg, Gln, Glu, Lys and Met (IUPAC-IUB 1970 names).
Nucleic-acid torsions follow ``MDAnalysis.analysis.nuclinfo.tors``; the pseudotorsions
η = C4′(i−1)–P–C4′–P(i+1) and θ = P–C4′–P(i+1)–C4′(i+1) are those of Wadley et al. (2007).
Atom names written with ``*`` for the prime (O3*) are read as O3′.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

__all__ = ["DIHEDRAL_SETS", "SET_RESIDUES", "TorsionDefinition", "default_angles"]

AtomRef = tuple[int, str]


@dataclass(frozen=True)
class TorsionDefinition:
    """One named torsion of a residue.

    Attributes
    ----------
    name : str
        Column name (``phi``, ``chi1``, ``alpha`` …).
    variants : tuple of four-atom tuples
        Alternatives in order of preference; each atom is (residue offset, atom name).
    """

    name: str
    variants: tuple[tuple[AtomRef, AtomRef, AtomRef, AtomRef], ...]


def _torsion(name: str, *atoms: tuple[int, str | tuple[str, ...]]) -> TorsionDefinition:
    """A torsion whose atoms may each have alternative names (every combination is a
    variant, in the order given)."""
    choices = [[(offset, n) for n in ((names,) if isinstance(names, str) else names)]
               for offset, names in atoms]
    return TorsionDefinition(name, tuple(product(*choices)))  # type: ignore[arg-type]


_CHI1_GAMMA = ("CG", "CG1", "OG", "OG1", "SG")
_BACKBONE = (
    _torsion("phi", (-1, "C"), (0, "N"), (0, "CA"), (0, "C")),
    _torsion("psi", (0, "N"), (0, "CA"), (0, "C"), (1, "N")),
    # MDAnalysis' Residue.omega_selection: the peptide bond to the next residue.
    _torsion("omega", (0, "CA"), (0, "C"), (1, "N"), (1, "CA")),
)
_CHI = (
    _torsion("chi1", (0, "N"), (0, "CA"), (0, "CB"), (0, _CHI1_GAMMA)),
    _torsion("chi2", (0, "CA"), (0, "CB"), (0, ("CG", "CG1")),
             (0, ("CD", "CD1", "OD1", "ND1", "SD"))),
    _torsion("chi3", (0, "CB"), (0, "CG"), (0, ("CD", "SD")), (0, ("NE", "OE1", "CE"))),
    _torsion("chi4", (0, "CG"), (0, "CD"), (0, ("NE", "CE")), (0, ("CZ", "NZ"))),
)
_RNA_BACKBONE = (
    _torsion("alpha", (-1, "O3'"), (0, "P"), (0, "O5'"), (0, "C5'")),
    _torsion("beta", (0, "P"), (0, "O5'"), (0, "C5'"), (0, "C4'")),
    _torsion("gamma", (0, "O5'"), (0, "C5'"), (0, "C4'"), (0, "C3'")),
    _torsion("delta", (0, "C5'"), (0, "C4'"), (0, "C3'"), (0, "O3'")),
    _torsion("epsilon", (0, "C4'"), (0, "C3'"), (0, "O3'"), (1, "P")),
    _torsion("zeta", (0, "C3'"), (0, "O3'"), (1, "P"), (1, "O5'")),
    # Purines O4'-C1'-N9-C4, pyrimidines O4'-C1'-N1-C2 (two variants, not four).
    TorsionDefinition("chi", (((0, "O4'"), (0, "C1'"), (0, "N9"), (0, "C4")),
                              ((0, "O4'"), (0, "C1'"), (0, "N1"), (0, "C2")))),
)
_RNA_PSEUDO = (
    _torsion("eta", (-1, "C4'"), (0, "P"), (0, "C4'"), (1, "P")),
    _torsion("theta", (0, "P"), (0, "C4'"), (1, "P"), (1, "C4'")),
)

#: The named sets and their torsions, in column order.
DIHEDRAL_SETS: dict[str, tuple[TorsionDefinition, ...]] = {
    "backbone": _BACKBONE,
    "chi": _CHI,
    "rna-backbone": _RNA_BACKBONE,
    "rna-pseudo": _RNA_PSEUDO,
}

#: The residues a set is read from (an MDAnalysis selection ANDed with the user's).
SET_RESIDUES = {"backbone": "protein", "chi": "protein", "rna-backbone": "nucleic",
                "rna-pseudo": "nucleic"}


def default_angles(set_name: str, *, omega: bool = False) -> tuple[str, ...]:
    """The torsions read by default: φ, ψ (and ω on request) of ``backbone``; χ1, χ2 of
    ``chi`` (Janin's plane; χ3/χ4 on request); every torsion of the other sets."""
    if set_name == "backbone":
        return ("phi", "psi", "omega") if omega else ("phi", "psi")
    if set_name == "chi":
        return ("chi1", "chi2")
    return tuple(t.name for t in DIHEDRAL_SETS[set_name])
