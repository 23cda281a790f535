"""Whether a file is meant to be one of the package's own (a session or a model file),
told without reading it as one: standard library only, so the app can ask before it loads
anything heavy."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

__all__ = ["STPCA_SUFFIX", "looks_like_stpca_file"]

#: The extension of sessions and model files.
STPCA_SUFFIX = ".stpca"


def looks_like_stpca_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is meant to be a session or model file: named ``*.stpca``, or a ZIP
    archive whose first entry is ``metadata.json`` (as the desktop's MIME type tells)."""
    path = Path(path)
    if path.suffix.lower() == STPCA_SUFFIX:
        return True
    try:
        with open(path, "rb") as handle:
            head = handle.read(43)
    except OSError:
        return False
    return head[:4] == b"PK\x03\x04" and head[30:43] == b"metadata.json" and \
        zipfile.is_zipfile(path)
