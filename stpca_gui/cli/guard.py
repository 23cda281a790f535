"""The top-level guard: every failure of a command ends as one line on stderr and an exit
code, never a traceback (``stpca --debug`` prints the traceback too).

* the errors the package raises for bad input or files (``ValueError`` and its kin such as
  ``TableError``, ``OSError``): their message, which names the file, line or option;
* ``MemoryError``: that memory ran out, and what to try (each command declares its advice
  with ``set_defaults(memory_hint=…)``);
* ``KeyboardInterrupt``: "interrupted", exit 130 (the writers are atomic, so no partial
  output file is left);
* anything else (``OverflowError``, ``KeyError`` or ``TypeError`` from a damaged or
  hand-edited file, a bug): its kind and message, and the input files involved.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path

from ..core import FitCancelled, ScoringOnlyError
from .common import EXIT_ERROR, EXIT_INTERRUPTED

#: What to try when a command without advice of its own runs out of memory.
DEFAULT_MEMORY_HINT = "close other programs or run it on a machine with more memory"


def run_guarded(args: argparse.Namespace) -> int:
    """Run the command ``args.func(args)``; return its exit code, or that of its failure."""
    try:
        code = args.func(args)
        sys.stdout.flush()  # a closed pipe (`stpca demos | head -1`) fails here, guarded
        return code
    except BaseException as exc:
        if isinstance(exc, SystemExit):
            raise
        code, message = describe_failure(exc, args)
        if getattr(args, "debug", False):
            traceback.print_exc()
        if isinstance(exc, BrokenPipeError):
            _silence_stdout()
        if message:
            print(f"stpca: {message}", file=sys.stderr)
        return code


def describe_failure(exc: BaseException, args: argparse.Namespace) -> tuple[int, str]:
    """The exit code and the one-line message for the failure ``exc`` of a command."""
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED, "interrupted"
    if isinstance(exc, FitCancelled):
        return EXIT_ERROR, "cancelled"
    if isinstance(exc, BrokenPipeError):
        return EXIT_ERROR, ""  # the reader went away: nothing to tell it
    # The package's own refusals, memory guards included (InsufficientMemoryError is a
    # ValueError too, with the largest size that fits).
    if isinstance(exc, ValueError | OSError | ScoringOnlyError):
        return EXIT_ERROR, f"error: {_one_line(exc)}"
    if isinstance(exc, MemoryError):
        detail = f" ({_one_line(exc)})" if str(exc) else ""
        hint = getattr(args, "memory_hint", None) or DEFAULT_MEMORY_HINT
        return EXIT_ERROR, f"error: {args.command}: out of memory{detail}; {hint}"
    files = _input_files(args)
    involving = f" on {', '.join(files)}" if files else ""
    suspect = ("a number in the input or the options is too large for it"
               if isinstance(exc, OverflowError)
               else "a file may be damaged or edited by hand")
    return EXIT_ERROR, (f"error: {args.command} failed{involving}: {type(exc).__name__}: "
                        f"{_one_line(exc)}; {suspect} (`stpca --debug {args.command} …` "
                        "prints the traceback)")


def _one_line(exc: BaseException) -> str:
    """The exception's message on one line, at most 500 characters."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 500 else text[:499] + "…"


def _input_files(args: argparse.Namespace) -> list[str]:
    """The files the command was given to read (its positional path arguments)."""
    files: list[str] = []
    for dest in getattr(args, "input_dests", ()):
        value = getattr(args, dest, None)
        for path in value if isinstance(value, list) else [value]:
            if isinstance(path, Path):
                files.append(str(path))
    return files


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that Python's final flush does not fail again."""
    if sys.stdout is not sys.__stdout__:  # replaced (a test's capture): leave it
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
