"""Atomic file writing: readers see either the old file or the whole new one, never a part.

Every writer of the package (model files, the recent-files store, figure and window
exports, 3-D view images) writes through :func:`atomic_path`: the content goes to a hidden
temporary file in the target's folder, which then replaces the target in one rename. The
temporary file is created with the mode the user's umask gives any new file (0644 under
umask 022), so the result is not left private as ``tempfile.mkstemp`` would make it.

Files that belong together (the result tables and summary of one fit) are written through
:func:`atomic_file_set`: all are written to temporaries first and replace their targets
only then, so either the whole set is new or none of it is.

Replacing a file keeps what the user set on it: an existing target's permission bits
(a private 0600 session stays private) and, for a symbolic link, the link itself (the
file it points to is replaced). The new content is flushed to the disk (``fsync``) before
the rename and the folder after it, so a crash leaves the old file or the new one. The
hidden temporaries of writes that were killed half-way are removed by the next write of
the same target (and by commands checking their outputs at their start): at once when
their name shows that the process that made them, on this machine, has ended; otherwise
once they are :data:`ORPHAN_AGE` seconds old.

The module needs only the standard library and lives in the bottom package
:mod:`stpca_gui.files`, so that every other package (the core's model files too) uses it.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import socket
import stat
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["ORPHAN_AGE", "atomic_file_set", "atomic_path", "atomic_write_text", "check_file_set",
           "remove_orphans"]

#: Attempts at a fresh temporary name before giving up (each name has 48 random bits).
_NAME_ATTEMPTS = 16
#: Seconds after its last change when a hidden temporary of a target counts as left over
#: by a killed write (a write in progress changes its file all the time).
ORPHAN_AGE = 15 * 60


#: This machine, in the temporaries' names (a process id means nothing elsewhere).
_HOST = hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:6]


def _hidden_name(target: Path, kind: str, suffix: str) -> Path:
    # The extension stays last: writers such as VTK's pick the format from it. The writer's
    # process id and host tell a later write whether the writer still runs.
    return target.with_name(f".{target.stem}.{secrets.token_hex(6)}.{kind}"
                            f"-{os.getpid()}-{_HOST}{suffix}")


def _writer_ended(name: str) -> bool:
    """Whether the temporary ``name`` was made by a process of this machine that has
    ended (False when the name does not say, or the process may run)."""
    found = re.search(r"\.(?:tmp|old)-(\d{1,10})-([0-9a-f]{6})", name)
    if found is None or found.group(2) != _HOST:
        return False
    pid = int(found.group(1))
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):
        return False  # e.g. another user's process: it exists
    return False


def _create_temporary(target: Path, suffix: str) -> Path:
    """Create an empty, hidden, uniquely named file beside ``target``; umask applies to it."""
    for _ in range(_NAME_ATTEMPTS):
        tmp = _hidden_name(target, "tmp", suffix)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return tmp
    raise FileExistsError(f"no free temporary name beside {target}")


def _link_backup(target: Path) -> Path | None:
    """A hidden hard link to the current ``target``, to put it back; None when impossible."""
    if not target.is_file():
        return None
    for _ in range(_NAME_ATTEMPTS):
        backup = _hidden_name(target, "old", target.suffix)
        try:
            os.link(target, backup)
        except FileExistsError:
            continue
        except OSError:
            return None  # e.g. a file system without hard links: no way back for this one
        return backup
    return None


def _final_target(path: Path) -> Path:
    """The file a write of ``path`` replaces: the target of a symbolic link (followed to
    its end), else ``path`` itself."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _existing_mode(target: Path) -> int | None:
    """Permission bits of an existing regular file ``target``, None when there is none."""
    try:
        status = os.stat(target)
    except OSError:
        return None
    return stat.S_IMODE(status.st_mode) if stat.S_ISREG(status.st_mode) else None


def _move_into_place(tmp: Path, target: Path) -> None:
    """Give the written ``tmp`` the target's permission bits, flush it and rename it onto
    ``target`` (the caller flushes the folder)."""
    mode = _existing_mode(target)
    if mode is not None:
        os.chmod(tmp, mode)
    _flush_to_disk(tmp)
    os.replace(tmp, target)


def _flush_to_disk(path: Path, *, folder: bool = False) -> None:
    """``fsync`` a file (or a folder, to make a rename in it durable); best effort for
    folders, which some systems cannot open."""
    try:
        fd = os.open(path, os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if folder else 0))
    except OSError:
        if folder:
            return
        raise
    try:
        os.fsync(fd)
    except OSError:
        if not folder:
            raise
    finally:
        os.close(fd)


def remove_orphans(target: str | os.PathLike[str], *, age: float = ORPHAN_AGE) -> list[Path]:
    """Remove the hidden temporaries that killed writes of ``target`` left beside it.

    Only files named as :func:`atomic_path` names the temporaries of exactly this target
    (``.<stem>.<12 hex digits>.tmp-<pid>-<host><suffix>`` or ``.old…``; older versions
    without pid and host) are removed: those of an ended process of this machine at once,
    the others once unchanged for ``age`` seconds. Returns the paths removed.
    """
    target = Path(target)
    pattern = re.compile(rf"\.{re.escape(target.stem)}\.[0-9a-f]{{12}}\.(tmp|old).*\Z",
                         re.DOTALL)
    removed = []
    now = time.time()
    try:
        candidates = list(target.parent.iterdir())
    except OSError:
        return removed
    for candidate in candidates:
        if not pattern.match(candidate.name):
            continue
        try:
            status = candidate.lstat()
            if stat.S_ISREG(status.st_mode) and (now - status.st_mtime >= age
                                                 or _writer_ended(candidate.name)):
                candidate.unlink()
                removed.append(candidate)
        except OSError:
            continue  # another writer's, or gone meanwhile: not ours to insist on
    return removed


@contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path`` in one rename.

    Parameters
    ----------
    path : str or path-like
        The file to create or replace; its folder must exist. A symbolic link is followed:
        the file it points to is replaced and the link stays. An existing file's
        permission bits are kept.
    suffix : str, optional
        Extension of the temporary file, by default the target's (e.g. a lower-case one
        for writers that only know ``.png``).

    Yields
    ------
    pathlib.Path
        An empty file in the same folder with the extension ``suffix``. The body writes it (or
        replaces it); when the body raises, the temporary file is removed, the target is
        left as it was, and the exception propagates.

    Raises
    ------
    OSError
        With a message naming the path when the folder is missing or not writable.
    """
    shown = Path(path)
    target = _final_target(shown)
    remove_orphans(target)
    try:
        tmp = _create_temporary(target, target.suffix if suffix is None else suffix)
    except OSError as exc:
        raise OSError(f"cannot write {shown}: {exc.strerror or exc}") from None
    try:
        yield tmp
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    try:
        _move_into_place(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        # The message names the user's file, not the temporary one.
        raise OSError(f"cannot write {shown}: {exc.strerror or exc}") from None
    _flush_to_disk(target.parent, folder=True)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8, newlines as given) to ``path`` atomically."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)


def check_file_set(folder: str | os.PathLike[str], names: Iterable[str]) -> None:
    """Check, without writing anything, that files ``names`` could be written into ``folder``.

    The folder may be missing if it can be created: its nearest existing ancestor must be a
    writable folder. Files that exist must be files (a folder of that name cannot be
    replaced). Used before long work, so that a bad output path fails at once.

    Raises
    ------
    OSError
        With a message naming the user's path when something stands in the way.
    """
    folder = Path(folder)
    existing = folder
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        where = "" if existing == folder else f" ({existing} is not a folder)"
        raise OSError(f"cannot write into {folder}: not a folder{where}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OSError(f"cannot write into {folder}: permission denied"
                      + ("" if existing == folder else f" to create it in {existing}"))
    if existing == folder:
        for name in names:
            target = folder / name
            if target.is_dir():
                raise OSError(f"cannot write {target}: a folder of that name is in the way")


@contextmanager
def atomic_file_set(
    folder: str | os.PathLike[str], names: Iterable[str]
) -> Iterator[dict[str, Path]]:
    """Write several files of one folder as a set: all of them are replaced, or none is.

    Parameters
    ----------
    folder : str or path-like
        The folder of the files; created (with its parents) when missing.
    names : iterable of str
        File names inside ``folder``.

    Yields
    ------
    dict of str to pathlib.Path
        An empty hidden temporary file in ``folder`` per name, to write. When the body
        raises, every temporary file is removed, no target changes and the exception
        propagates. When it returns, every target is replaced; if one replacement fails,
        the files already replaced are put back (old content restored, new files removed).

    Raises
    ------
    OSError
        With a message naming the user's path (never a temporary one) when the folder or
        one of the files cannot be written; :func:`check_file_set` runs first.
    """
    folder = Path(folder)
    names = list(names)
    check_file_set(folder, names)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(f"cannot create output folder {folder}: {exc.strerror or exc}") from None
    temporaries: dict[str, Path] = {}
    for name in names:
        remove_orphans(folder / name)
    try:
        for name in names:
            target = _final_target(folder / name)
            try:
                temporaries[name] = _create_temporary(target, target.suffix)
            except OSError as exc:
                raise OSError(f"cannot write {target}: {exc.strerror or exc}") from None
        yield temporaries
        check_file_set(folder, names)  # e.g. a folder created in the way meanwhile
        _replace_all(folder, temporaries)
    finally:
        for tmp in temporaries.values():
            tmp.unlink(missing_ok=True)


def _replace_all(folder: Path, temporaries: dict[str, Path]) -> None:
    """Move every temporary onto its target; on a failure, undo the moves already made."""
    done: list[tuple[Path, Path | None, bool]] = []
    backups: list[Path] = []
    try:
        for name, tmp in temporaries.items():
            target = _final_target(folder / name)
            existed = os.path.lexists(target)
            backup = _link_backup(target)
            if backup is not None:
                backups.append(backup)
            try:
                _move_into_place(tmp, target)
            except OSError as exc:
                restored = _undo(done)
                raise OSError(f"cannot write {target}: {exc.strerror or exc}; " + (
                    f"no file in {folder} was changed" if restored else
                    f"some files in {folder} may be new and others old")) from None
            done.append((target, backup, existed))
    finally:
        for backup in backups:
            backup.unlink(missing_ok=True)
    _flush_to_disk(folder, folder=True)


def _undo(done: list[tuple[Path, Path | None, bool]]) -> bool:
    """Put back the old files (or remove new ones) of ``done``; whether all went back."""
    restored = True
    for replaced, old, existed in reversed(done):
        try:
            if old is not None:
                os.replace(old, replaced)
            elif not existed:
                replaced.unlink(missing_ok=True)
            else:
                restored = False  # the old file had no backup: the new one stays
        except OSError:
            restored = False
    return restored
