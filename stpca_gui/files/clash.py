"""Outputs must never replace inputs: the check every writer of a command or session runs.

Two paths name the same file when they resolve to the same path (symbolic links, ``..``
and relative paths followed) or, for files that exist, when they share device and inode
(hard links, bind mounts, case-insensitive file systems). A clash is refused before any
work with an :class:`OutputClashError` naming both.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["OutputClashError", "check_outputs", "same_file"]

PathLike = str | os.PathLike[str]


class OutputClashError(OSError):
    """An output would replace an input (or another output) of the same command."""


def same_file(first: PathLike, second: PathLike) -> bool:
    """Whether two paths name the same file (see the module docstring)."""
    a, b = Path(first), Path(second)
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        one, two = os.stat(a), os.stat(b)
    except OSError:
        return False  # at least one does not exist: only the resolved paths could clash
    return (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)


def check_outputs(outputs: Iterable[tuple[str, PathLike]],
                  inputs: Iterable[tuple[str, PathLike]]) -> None:
    """Refuse outputs that are one of the inputs, or the same file as another output.

    Parameters
    ----------
    outputs, inputs : iterable of (description, path)
        E.g. ``("the scores table", args.out)``, ``("the input table", args.input)``.
        Inputs given as ``None`` or ``""`` are skipped.

    Raises
    ------
    OutputClashError
        Naming the output, the input it would replace, and both paths.
    """
    outputs = [(what, Path(path)) for what, path in outputs]
    inputs = [(what, Path(path)) for what, path in inputs if path not in (None, "")]
    for k, (what, path) in enumerate(outputs):
        for source_what, source in inputs:
            if same_file(path, source):
                raise OutputClashError(
                    f"{path}: refusing to write {what} over {source_what} ({source}); "
                    "choose another output path")
        for other_what, other in outputs[k + 1:]:
            if same_file(path, other):
                raise OutputClashError(f"{path}: {what} and {other_what} ({other}) are the "
                                       "same file; choose different output paths")
