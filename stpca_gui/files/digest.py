"""SHA-256 digests that identify data: of a file's bytes and of an angle array.

Sessions record both (the source table's and the embedded angles'), and exported scripts
check both, so there is one definition of each.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["angles_sha256", "file_sha256"]


def angles_sha256(angles: ArrayLike) -> str:
    """SHA-256 of angles as little-endian float64 in row (C) order."""
    return hashlib.sha256(np.ascontiguousarray(angles, dtype="<f8").tobytes()).hexdigest()


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
