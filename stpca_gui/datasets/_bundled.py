"""What the bundled data sets share: reading their compressed tables, freezing their arrays."""

from __future__ import annotations

import lzma
from importlib import resources

import numpy as np
from numpy.typing import NDArray


def bundled_text(file_name: str) -> str:
    """The text of the xz-compressed ASCII table ``file_name`` in this package's ``data``."""
    packed = resources.files(__package__).joinpath("data", file_name).read_bytes()
    return lzma.decompress(packed).decode("ascii")


def read_only(values: NDArray) -> NDArray:
    """A contiguous, read-only array of ``values``, so one loaded data set can be shared."""
    values = np.ascontiguousarray(values)
    values.flags.writeable = False
    return values
