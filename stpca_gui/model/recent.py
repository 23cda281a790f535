"""The list of recently opened files, kept in a small JSON file."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

from ..files.atomic import atomic_write_text

__all__ = ["MAX_RECENT", "RecentFiles"]

#: Default number of entries kept.
MAX_RECENT = 10
_FORMAT_VERSION = 1


def _normalise(path: str | os.PathLike[str]) -> str:
    return os.path.normpath(os.path.abspath(os.path.expanduser(os.fspath(path))))


def _key(path: str) -> str:
    return os.path.normcase(path)


class RecentFiles:
    """Most recently used first, without duplicates, at most ``max_entries`` paths.

    Parameters
    ----------
    store : str or Path
        JSON file the list is kept in (the caller picks it, e.g. under the user's
        configuration folder). A missing, unreadable or corrupt file gives an empty list;
        loading never raises.
    max_entries : int, default :data:`MAX_RECENT`
    autosave : bool, default True
        Save after every change. :meth:`save` may then raise ``OSError`` from
        :meth:`add`, :meth:`remove`, :meth:`clear` and :meth:`prune`.

    Notes
    -----
    Paths are stored absolute and normalised; two spellings of the same path (relative,
    with ``..``, with ``~``) count as one entry.
    """

    def __init__(self, store: str | Path, max_entries: int = MAX_RECENT, *,
                 autosave: bool = True) -> None:
        if int(max_entries) < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries}")
        self.store = Path(store)
        self.max_entries = int(max_entries)
        self.autosave = autosave
        self._paths: list[str] = []
        self.load()

    def paths(self) -> list[str]:
        """The entries, most recent first (a copy)."""
        return list(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._paths))

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str | os.PathLike):
            return False
        key = _key(_normalise(path))
        return any(_key(p) == key for p in self._paths)

    # ------------------------------------------------------------------ changes
    def add(self, path: str | os.PathLike[str]) -> None:
        """Put ``path`` first (moving it there if already listed) and drop the oldest."""
        entry = _normalise(path)
        key = _key(entry)
        self._paths = [entry, *(p for p in self._paths if _key(p) != key)]
        del self._paths[self.max_entries:]
        self._changed()

    def remove(self, path: str | os.PathLike[str]) -> bool:
        """Forget ``path``; returns whether it was listed."""
        key = _key(_normalise(path))
        kept = [p for p in self._paths if _key(p) != key]
        if len(kept) == len(self._paths):
            return False
        self._paths = kept
        self._changed()
        return True

    def clear(self) -> None:
        """Forget every entry."""
        if self._paths:
            self._paths = []
            self._changed()

    def prune(self) -> list[str]:
        """Drop entries whose files no longer exist; returns the dropped paths."""
        gone = [p for p in self._paths if not os.path.isfile(p)]
        if gone:
            self._paths = [p for p in self._paths if p not in gone]
            self._changed()
        return gone

    # -------------------------------------------------------------- persistence
    def load(self) -> None:
        """Read the store; anything unreadable gives an empty list (never raises)."""
        self._paths = []
        try:
            data = json.loads(self.store.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return
        entries = data.get("recent") if isinstance(data, dict) else data
        if not isinstance(entries, list):
            return
        seen: set[str] = set()
        for item in entries:
            if not isinstance(item, str) or not item.strip():
                continue
            entry = _normalise(item)
            if _key(entry) not in seen:
                seen.add(_key(entry))
                self._paths.append(entry)
        del self._paths[self.max_entries:]

    def save(self) -> None:
        """Write the store atomically (:func:`~stpca_gui.files.atomic.atomic_write_text`).

        The folder is created when missing.

        Raises
        ------
        OSError
            When the folder cannot be created or written.
        """
        self.store.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"version": _FORMAT_VERSION, "recent": self._paths}, indent=2,
                          allow_nan=False)
        atomic_write_text(self.store, text + "\n")

    def _changed(self) -> None:
        if self.autosave:
            self.save()
