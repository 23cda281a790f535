"""An output folder written as a whole: what a command writes into a folder, never more.

Every writer of a set of files into a folder (``stpca fit --out``, ``representatives``,
``reproduce``, ``export-script``, the app's exports) goes through :func:`output_folder`:

- no output replaces an input of the same command (:func:`~.clash.check_outputs`: same
  path, or same device and inode);
- the folder keeps a manifest, :data:`MANIFEST_NAME`, of the files stpca-gui wrote into it
  (name, size, modification time and SHA-256, by the kind of writer). Before writing, the
  folder is refused with :class:`ForeignFilesError` when it holds files the manifest does not
  list, or listed files changed since (a user's own ``clusters.csv``, an edited table): the
  command line allows it with ``--overwrite``, the app asks. Files not named like an output
  are never touched, even then;
- the files an earlier run of the same kind wrote and this run does not (``cluster_7.pdb``
  of a run that had more clusters) are removed after the new set is in place, so the folder
  never mixes two runs;
- the set itself is written with :func:`~.atomic.atomic_file_set`: all files replaced or
  none. The manifest is part of the set.

For outputs placed among a user's files (a script beside its data copy), ``whole_folder``
is False: only the files the set would replace must be stpca-gui's own.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from .atomic import atomic_file_set, check_file_set, remove_orphans
from .clash import OutputClashError, check_outputs, same_file
from .digest import file_sha256

__all__ = ["MANIFEST_NAME", "ForeignFilesError", "check_output_folder", "output_folder"]

#: The manifest of an output folder (hidden; JSON).
MANIFEST_NAME = ".stpca-outputs.json"
#: A manifest larger than this is not one of ours (read as absent: every file is foreign).
_MANIFEST_LIMIT = 4 * 2**20
#: The hidden temporaries of :mod:`.atomic` (never a user's file).
_TEMPORARY = re.compile(r"\A\..*\.[0-9a-f]{12}\.(tmp|old)", re.DOTALL)
#: Foreign files named in a message.
_SHOWN = 5

PathLike = str | os.PathLike[str]


class ForeignFilesError(OutputClashError):
    """The output folder holds files stpca-gui did not write (or that changed since).

    Attributes
    ----------
    folder : pathlib.Path
    names : list of str
        The foreign entries, sorted.
    """

    def __init__(self, folder: Path, names: list[str], option: str) -> None:
        self.folder, self.names = folder, names
        shown = ", ".join(names[:_SHOWN]) + (f" and {len(names) - _SHOWN} more"
                                             if len(names) > _SHOWN else "")
        super().__init__(
            f"{folder}: refusing to write into a folder holding files stpca-gui did not "
            f"write or that changed since it wrote them ({shown}); choose a new or empty "
            f"folder, or {option} to write anyway (files not named like an output are kept)")


def _record(path: Path) -> dict[str, object]:
    status = os.stat(path)
    return {"sha256": file_sha256(path), "size": status.st_size,
            "mtime_ns": status.st_mtime_ns}


def _read_manifest(folder: Path) -> dict[str, dict[str, dict[str, object]]]:
    """The manifest's writers (kind → name → record); empty when absent or not ours."""
    path = folder / MANIFEST_NAME
    try:
        status = path.lstat()
        if not stat.S_ISREG(status.st_mode) or status.st_size > _MANIFEST_LIMIT:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    writers = data.get("writers") if isinstance(data, dict) else None
    if not isinstance(writers, dict):
        return {}
    valid: dict[str, dict[str, dict[str, object]]] = {}
    for kind, files in writers.items():
        if isinstance(kind, str) and isinstance(files, dict):
            valid[kind] = {name: entry for name, entry in files.items()
                           if _plain_name(name) and isinstance(entry, dict)
                           and isinstance(entry.get("sha256"), str)}
    return valid


def _plain_name(name: object) -> bool:
    return (isinstance(name, str) and name not in ("", ".", "..", MANIFEST_NAME)
            and "/" not in name and "\\" not in name and "\0" not in name)


class _Verdicts(dict):
    """Whether files are the ones their manifest entries describe, each file read at most
    once per writing (the check and the stale files' removal ask about the same files)."""

    def unchanged(self, path: Path, entry: Mapping[str, object]) -> bool:
        """Whether ``path`` is the regular file the manifest ``entry`` describes."""
        key = (path.name, entry.get("sha256"), entry.get("size"), entry.get("mtime_ns"))
        if key not in self:
            self[key] = _unchanged(path, entry)
        return self[key]


def _unchanged(path: Path, entry: Mapping[str, object]) -> bool:
    try:
        status = path.lstat()
    except OSError:
        return False
    if not stat.S_ISREG(status.st_mode) or status.st_size != entry.get("size"):
        return False
    if status.st_mtime_ns == entry.get("mtime_ns"):
        return True
    try:
        return file_sha256(path) == entry["sha256"]
    except OSError:
        return False


def _foreign(folder: Path, names: list[str], writers: Mapping[str, Mapping[str, Mapping]],
             whole_folder: bool, chosen: Iterable[str], verdicts: _Verdicts) -> list[str]:
    """Entries of ``folder`` that stpca-gui did not write (every entry, or those of
    ``names`` when not ``whole_folder``), except the ``chosen`` ones."""
    try:
        present = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise OSError(f"cannot read the output folder {folder}: {exc.strerror or exc}"
                      ) from None
    own = {}
    for files in writers.values():
        own.update(files)
    skipped = {MANIFEST_NAME, *chosen}
    considered = present if whole_folder else [n for n in present if n in set(names)]
    return [name for name in considered
            if name not in skipped and not _TEMPORARY.match(name)
            and not (name in own and verdicts.unchanged(folder / name, own[name]))]


def check_output_folder(folder: PathLike, names: Iterable[str], *,
                        inputs: Iterable[tuple[str, PathLike | None]] = (),
                        overwrite: bool = False, whole_folder: bool = True,
                        chosen: Iterable[str] = (), option: str = "pass --overwrite",
                        roles: Mapping[str, str] | None = None) -> None:
    """Check, before any work and without writing, what :func:`output_folder` checks.

    Raises
    ------
    OutputClashError
        An output is one of ``inputs``.
    ForeignFilesError
        The folder holds files stpca-gui did not write and ``overwrite`` is False.
    OSError
        The folder cannot be written.
    """
    _check(Path(folder), list(names), inputs=inputs, overwrite=overwrite,
           whole_folder=whole_folder, chosen=chosen, option=option, roles=roles,
           verdicts=_Verdicts())


def _check(folder: Path, names: list[str], *, inputs: Iterable[tuple[str, PathLike | None]],
           overwrite: bool, whole_folder: bool, chosen: Iterable[str], option: str,
           roles: Mapping[str, str] | None, verdicts: _Verdicts) -> None:
    roles = roles or {}
    check_outputs([(roles.get(name, f"the output {name}"), folder / name)
                   for name in [*names, MANIFEST_NAME]],
                  [(what, path) for what, path in inputs if path not in (None, "")])
    check_file_set(folder, [*names, MANIFEST_NAME])
    for name in [*names, MANIFEST_NAME]:
        remove_orphans(folder / name)  # a killed earlier run's temporaries, at the start
    if not overwrite:
        foreign = _foreign(folder, names, _read_manifest(folder), whole_folder, chosen,
                           verdicts)
        if foreign:
            raise ForeignFilesError(folder, foreign, option)


@contextmanager
def output_folder(folder: PathLike, names: Iterable[str], *, kind: str,
                  inputs: Iterable[tuple[str, PathLike | None]] = (),
                  overwrite: bool = False, whole_folder: bool = True,
                  chosen: Iterable[str] = (), option: str = "pass --overwrite",
                  roles: Mapping[str, str] | None = None) -> Iterator[dict[str, Path]]:
    """Write the files ``names`` into ``folder`` as the whole output of a ``kind`` of writer.

    Parameters
    ----------
    folder : path-like
        Created (with its parents) when missing.
    names : iterable of str
        The files of the set (plain names inside ``folder``).
    kind : str
        The writer (e.g. ``"representatives"``): files an earlier run of the same kind
        wrote and this one does not are removed afterwards; other kinds' files are kept.
    inputs : iterable of (description, path)
        The command's inputs: never replaced, never removed.
    overwrite : bool
        Write even into a folder holding files stpca-gui did not write (those named like
        an output are replaced; the others kept).
    whole_folder : bool
        Whether every file of the folder must be stpca-gui's (an output folder), or only
        those the set replaces (outputs placed among a user's files).
    chosen : iterable of str
        Names the user chose file by file (already asked about, e.g. a script's path):
        replaced whoever wrote them.
    option : str
        How the user allows foreign files, for the message (the app says how it asks).
    roles : mapping of str to str, optional
        What a file is, in messages (``{"analysis.py": "the script"}``); by default "the
        output NAME".

    Yields
    ------
    dict of str to pathlib.Path
        A hidden temporary per name to write (see :func:`~.atomic.atomic_file_set`).

    Raises
    ------
    OutputClashError, ForeignFilesError, OSError
        As :func:`check_output_folder`, before anything is written.
    """
    folder = Path(folder)
    names = list(names)
    inputs = [(what, path) for what, path in inputs if path not in (None, "")]
    verdicts = _Verdicts()
    _check(folder, names, inputs=inputs, overwrite=overwrite, whole_folder=whole_folder,
           chosen=chosen, option=option, roles=roles, verdicts=verdicts)
    writers = _read_manifest(folder)
    earlier = writers.get(kind, {})
    stale = {name: entry for name, entry in earlier.items()
             if name not in names and verdicts.unchanged(folder / name, entry)
             and not any(same_file(folder / name, path) for _, path in inputs)}
    with atomic_file_set(folder, [*names, MANIFEST_NAME]) as temporaries:
        yield {name: temporaries[name] for name in names}
        # Stale files stay listed until removed, so a kill before that leaves them ours.
        writers[kind] = {**stale, **{name: _record(temporaries[name]) for name in names}}
        temporaries[MANIFEST_NAME].write_text(
            json.dumps({"format": 1, "writers": writers}, indent=1, sort_keys=True) + "\n",
            encoding="utf-8")
    for name in stale:
        try:
            (folder / name).unlink()
        except OSError:
            continue  # gone meanwhile, or not removable: listed, so a later run tries again
