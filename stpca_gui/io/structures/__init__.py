"""Torsion angles from PDB/mmCIF files and MD trajectories, and cluster representatives.

Needs MDAnalysis, part of the install; importing this package does not import it: the
first reading does, and says how to install it when it is missing (:data:`INSTALL_HINT`).
"""

from .dihedral_sets import DIHEDRAL_SETS, default_angles
from .reader import INSTALL_HINT, open_topology, open_universe, require_mdanalysis, residue_class
from .reading import estimate_table_bytes, read_torsions
from .record import (
    check_fingerprints,
    check_structure_record,
    read_sidecar,
    record_runs,
    sidecar_path,
)
from .representatives import Representatives, torus_medoid, write_representatives
from .runs import TrajectoryRun, run_labels
from .selections import select_atoms
from .settings import (
    CUSTOM_SET,
    LAYOUTS,
    SET_NAMES,
    DihedralSettings,
    StructureError,
    check_torsion_name,
)
from .table import LABEL_CHOICES, PROVENANCE_COLUMNS, TorsionTable, file_sha256

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
    "TrajectoryRun",
    "check_fingerprints",
    "check_structure_record",
    "check_torsion_name",
    "default_angles",
    "estimate_table_bytes",
    "file_sha256",
    "open_topology",
    "open_universe",
    "read_sidecar",
    "read_torsions",
    "record_runs",
    "require_mdanalysis",
    "residue_class",
    "run_labels",
    "select_atoms",
    "sidecar_path",
    "torus_medoid",
    "write_representatives",
]
