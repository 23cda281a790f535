"""Text from data (column names, descriptions) made fit for one line of a label.

Light to import (the standard library only): the window uses it before the 3-D views,
and with them pyvista and VTK, are loaded.
"""

from __future__ import annotations

#: Longest column name drawn as a label (characters: an axis title, a bar's name); longer
#: names are cut with an ellipsis.
MAX_NAME_LABEL = 24


def one_line(text: object, limit: int, ellipsis: str = "…") -> str:
    """``text`` on one line (control characters become spaces) and at most ``limit``
    characters, cut with ``ellipsis``."""
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in str(text)).split())
    if len(flat) <= limit:
        return flat
    return flat[:limit - len(ellipsis)] + ellipsis


def cut_at_clause(text: object, limit: int) -> str:
    """``text`` on one line (as :func:`one_line`), and when longer than ``limit``, cut after
    the last whole sentence or clause that fits ("…" marks the cut), never inside a word
    or number: a demo's description cut at "(0, -1, 3), 10…" read as a wrong number."""
    flat = one_line(text, len(str(text)) + 1)
    if len(flat) <= limit:
        return flat
    head = flat[:limit - 2]
    for separator in (". ", "; ", ": ", ", ", " "):
        end = head.rfind(separator)
        if end > limit // 3:
            return head[:end + 1].rstrip(" ,;:") + " …"
    return head + " …"
