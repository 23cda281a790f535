"""Text from data (column names, descriptions) made fit for one line of a label.

Light to import (the standard library only): the window uses it before the 3-D views,
and with them pyvista and VTK, are loaded.
"""

from __future__ import annotations


def one_line(text: object, limit: int, ellipsis: str = "…") -> str:
    """``text`` on one line (control characters become spaces) and at most ``limit``
    characters, cut with ``ellipsis``."""
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in str(text)).split())
    if len(flat) <= limit:
        return flat
    return flat[:limit - len(ellipsis)] + ellipsis
