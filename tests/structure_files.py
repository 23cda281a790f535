"""What the structure tests read: MDAnalysis and its test files, and trajectory files
written from MDAnalysisTests' adenylate kinase (AdK).

A test module that imports this one is skipped where MDAnalysis or MDAnalysisTests is
not installed.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

mda = pytest.importorskip("MDAnalysis")
datafiles = pytest.importorskip("MDAnalysisTests.datafiles")
#: AdK's topology and its 98-frame trajectory, adk_dims.dcd.
PSF, DCD = datafiles.PSF, datafiles.DCD

#: adk_dims.dcd (98 frames) is cut before this frame into two files.
SPLIT = 49


def quiet_universe(*files):
    """An MDAnalysis Universe of ``files`` (paths or str), its reader's warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mda.Universe(*map(str, files))


def _write(universe, path: Path, frames: range, istart: int) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mda.Writer(str(path), universe.atoms.n_atoms, dt=universe.trajectory.dt,
                        istart=istart, nsavc=1) as writer:
            for frame in frames:
                universe.trajectory[frame]
                writer.write(universe.atoms)
    return path


def write_halves(folder: Path, names: tuple[str, str] = ("first.dcd", "second.dcd")
                 ) -> tuple[Path, Path]:
    """adk_dims.dcd (98 frames) written by MDAnalysis as two files, times continued
    (docs/structures.md's part1.dcd and part2.dcd: benchmarks/transcripts.py)."""
    universe = quiet_universe(PSF, DCD)
    first = _write(universe, folder / names[0], range(0, SPLIT), 1)
    second = _write(universe, folder / names[1], range(SPLIT, 98), SPLIT + 1)
    return first, second
