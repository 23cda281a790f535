"""What the commands share when they run: exit codes and early output checks."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..files.atomic import remove_orphans
from ..io import check_file_set

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
#: Ctrl-C, as shells report a process ended by SIGINT (128 + 2).
EXIT_INTERRUPTED = 130


def check_output_file(path: Path) -> None:
    """Fail now, before long work, when ``path`` could not be written; remove the hidden
    temporaries a killed earlier write of it left."""
    check_file_set(path.parent, [path.name])
    remove_orphans(path)


def report_dropped(dropped: Sequence[tuple[int, str]], shown: int = 10) -> None:
    """The rows ``--drop-invalid`` skipped, the first ``shown`` by reason, on stderr."""
    for _, reason in dropped[:shown]:
        print(f"skipped: {reason}", file=sys.stderr)
    if len(dropped) > shown:
        print(f"skipped {len(dropped) - shown} more rows", file=sys.stderr)
