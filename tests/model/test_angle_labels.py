"""Column names of torsion tables shown and described briefly (issue 32)."""

from __future__ import annotations

from stpca_gui.model.angle_labels import (
    describe_columns,
    display_names,
    greek,
    parse_torsion_name,
)

ADK_7_39 = [f"4AKE:{name}{resid}:{angle}" for resid, name in zip(
    range(7, 40), ["GLY", "ALA", "PRO", "GLY", "ALA", "GLY", "LYS", "GLY", "THR", "GLN", "ALA",
                   "GLN", "PHE", "ILE", "MET", "GLU", "LYS", "TYR", "GLY", "ILE", "PRO", "GLN",
                   "ILE", "SER", "THR", "GLY", "ASP", "MET", "LEU", "ARG", "ALA", "ALA", "VAL"],
    strict=True) for angle in ("phi", "psi")]


def test_torsion_names_parse_and_read_as_residue_and_greek_letter():
    name = parse_torsion_name("4AKE:ILE120:psi")
    assert (name.segid, name.resname, name.resid, name.angle) == ("4AKE", "ILE", 120, "psi")
    assert parse_torsion_name("theta1") is None
    assert parse_torsion_name("a:b:c:d") is None
    assert greek("chi2") == "χ2" and greek("omega") == "ω" and greek("width") == "width"
    assert display_names(["4AKE:ILE120:psi", "4AKE:GLY7:phi", "custom"]) == [
        "ILE120 ψ", "GLY7 φ", "custom"]
    # Torsions of several segments keep their segment.
    assert display_names(["A:ALA5:phi", "B:ALA5:phi"]) == ["A ALA5 φ", "B ALA5 φ"]


def test_sixty_six_backbone_torsions_are_described_in_one_line():
    assert len(ADK_7_39) == 66
    text = describe_columns(ADK_7_39)
    assert text == "66 backbone torsions φ, ψ of 33 residues GLY7–VAL39 (segment 4AKE)"
    # Every name would be ~1,000 characters: the description is a summary.
    assert len(", ".join(ADK_7_39)) > 900 and len(text) < 80


def test_other_columns_are_listed_when_few_and_cut_when_many():
    assert describe_columns(["phi", "psi"]) == "phi, psi"
    many = [f"theta{k + 1}" for k in range(426)]
    text = describe_columns(many)
    assert text.startswith("theta1, theta2,") and text.endswith("… (418 more)")
    side_chains = ["A:LEU3:chi1", "A:LEU3:chi2", "A:PHE9:chi1"]
    assert describe_columns(side_chains) == (
        "3 torsions χ1, χ2 of 2 residues LEU3–PHE9 (segment A)")
