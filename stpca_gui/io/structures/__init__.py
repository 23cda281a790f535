"""Torsion angles from PDB/mmCIF files and MD trajectories, and cluster representatives.

Needs the optional MDAnalysis (``pip install 'stpca-gui[structures]'``); importing this
package does not import it: the first reading does, and says how to install it when it is
missing (:data:`INSTALL_HINT`).
"""

from .dihedral_sets import DIHEDRAL_SETS, default_angles
from .reader import INSTALL_HINT, open_universe, require_mdanalysis, residue_class
from .representatives import Representatives, torus_medoid, write_representatives
from .settings import CUSTOM_SET, LAYOUTS, SET_NAMES, DihedralSettings, StructureError
from .table import LABEL_CHOICES, PROVENANCE_COLUMNS, TorsionTable, file_sha256, read_torsions

__all__ = [
    "CUSTOM_SET",
    "DIHEDRAL_SETS",
    "INSTALL_HINT",
    "LABEL_CHOICES",
    "LAYOUTS",
    "PROVENANCE_COLUMNS",
    "SET_NAMES",
    "DihedralSettings",
    "Representatives",
    "StructureError",
    "TorsionTable",
    "default_angles",
    "file_sha256",
    "open_universe",
    "read_torsions",
    "require_mdanalysis",
    "residue_class",
    "torus_medoid",
    "write_representatives",
]
