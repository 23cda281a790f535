"""AdK's P-loop in two runs: a small structure demo shipped with the package.

Residues 4–16 of adenylate kinase (all atoms) over the 98 frames of MDAnalysisTests'
``adk_dims.dcd``, split into two runs of 49 frames written as XTC (times continued), with
the first frame as a gzipped PDB topology. ``stpca dihedrals`` of ``resid 7:13`` gives the
P-loop's 14 backbone torsions, the per-frame fit of docs/structures.md.
Source and licence: data/README.md. Rebuild (MDAnalysis and MDAnalysisTests needed):
``uv run python -m stpca_gui.datasets._adk_loop``.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

from ..files.user_cache import copy_once, user_cache_root

__all__ = ["ADK_LOOP_FILES", "ADK_LOOP_SELECTION", "adk_loop_files"]

#: The demo's files in the package's ``data`` folder: the topology, then the two runs.
#: The demo's name (``stpca-gui --demo adk-loop``).
ADK_LOOP = "adk-loop"
ADK_LOOP_FILES = ("adk_loop.pdb.gz", "adk_loop_1.xtc", "adk_loop_2.xtc")
#: The residues whose torsions the demo reads (the P-loop, GLY7–LYS13).
ADK_LOOP_SELECTION = "resid 7:13"
#: The atoms written: the P-loop and the residues its torsions reach, with side chains.
_ATOMS = "resid 4:16"
_SPLIT = 49


def adk_loop_files() -> tuple[Path, list[Path]]:
    """The demo's topology and its two trajectory files: copies in the user's cache
    (``$XDG_CACHE_HOME/stpca-gui/adk-loop-<digest>``), made once. MDAnalysis writes an
    index of frame offsets beside an XTC it reads: never into the package (read-only
    when installed so, and a clone's files would change), and a new package's files get
    a new folder."""
    shipped = [Path(str(resources.files(__package__).joinpath("data", name)))
               for name in ADK_LOOP_FILES]
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in shipped)).hexdigest()
    folder = user_cache_root() / f"adk-loop-{digest[:12]}"
    copy_once(shipped, folder)
    topology, *runs = (folder / name for name in ADK_LOOP_FILES)
    return topology, runs


def _build() -> None:  # pragma: no cover - run by hand, see the module docstring
    import warnings

    import MDAnalysis as mda
    from MDAnalysisTests.datafiles import DCD, PSF

    folder = Path(__file__).parent / "data"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        universe = mda.Universe(PSF, DCD)
        atoms = universe.select_atoms(_ATOMS)
        universe.trajectory[0]
        atoms.write(str(folder / ADK_LOOP_FILES[0]))
        for name, frames in ((ADK_LOOP_FILES[1], range(_SPLIT)),
                             (ADK_LOOP_FILES[2], range(_SPLIT, universe.trajectory.n_frames))):
            with mda.Writer(str(folder / name), atoms.n_atoms) as writer:
                for frame in frames:
                    universe.trajectory[frame]
                    writer.write(atoms)


if __name__ == "__main__":  # pragma: no cover
    _build()
