"""SHA-256 digests that identify data: of a file's bytes and of an angle array.

Sessions record both (the source table's and the embedded angles'), and exported scripts
check both, so there is one definition of each.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["angles_sha256", "file_sha256", "files_sha256"]


def angles_sha256(angles: ArrayLike) -> str:
    """SHA-256 of angles as little-endian float64 in row (C) order."""
    # Hashed through the array's buffer: no copy of its bytes.
    return hashlib.sha256(np.ascontiguousarray(angles, dtype="<f8").data).hexdigest()


def file_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a file's bytes.

    Raises
    ------
    OSError
        When the file cannot be read.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def files_sha256(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """SHA-256 of each file's bytes (:func:`file_sha256`), in order; a file named more than
    once (the same path again, a link, an alias) is read once, known by device and inode.

    Raises
    ------
    OSError
        When a file cannot be read.
    """
    digests: dict[tuple[int, int], str] = {}
    result = []
    for path in paths:
        status = os.stat(path)
        key = (status.st_dev, status.st_ino)
        if key not in digests:
            digests[key] = file_sha256(path)
        result.append(digests[key])
    return result
