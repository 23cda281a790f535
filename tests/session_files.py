"""Hand-edited copies of saved sessions, for the tests and benchmarks/structure_attacks.py."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np


def tampered_copy(session: Path, dst: Path, *,
                  edit: Callable[[dict], object] | None = None,
                  arrays: Mapping[str, np.ndarray] | None = None) -> Path:
    """A copy of ``session`` at ``dst`` with metadata.json changed by ``edit(metadata)`` and
    arrays replaced (entry name → array); every other entry copied as it is."""
    with zipfile.ZipFile(session) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "metadata.json" and edit is not None:
                metadata = json.loads(data)
                edit(metadata)
                data = json.dumps(metadata).encode()
            if arrays and info.filename in arrays:
                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, arrays[info.filename])
                data = buffer.getvalue()
            zout.writestr(info, data)
    return Path(dst)
