"""The user's cache folder, and copies made into it once.

Files the package ships are read from a copy here when reading them would write beside
them: the numba kernels of a read-only bundle (core/_base/bundle_cache.py), and the
structure demo's trajectories, next to which MDAnalysis stores an index of frame offsets
(``.NAME_offsets.npz``) — a write into the installed package, refused in a read-only one
and a change to a clone's files.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

__all__ = ["copy_once", "user_cache_root"]


def user_cache_root() -> Path:
    """``$XDG_CACHE_HOME/stpca-gui`` (``~/.cache/stpca-gui`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "stpca-gui"


def copy_once(source: Path | Sequence[Path], target: Path) -> None:
    """Copy the folder ``source`` (or the files ``source``) into the folder ``target``
    unless it exists; concurrent launches copy at most once each and the first rename
    wins. The copies are writable."""
    if target.is_dir():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        if isinstance(source, Path):
            shutil.copytree(source, staging, dirs_exist_ok=True)
        else:
            for path in source:
                shutil.copyfile(path, staging / path.name)
        # Writable copies of read-only files: numba rewrites an index when it adds a kernel.
        for path in (staging, *staging.rglob("*")):
            path.chmod(path.stat().st_mode | 0o200)
        try:
            staging.rename(target)
        except OSError:  # another launch won the race
            pass
    finally:
        shutil.rmtree(staging, ignore_errors=True)
