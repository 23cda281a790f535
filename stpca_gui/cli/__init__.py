"""Command line interface: the ``stpca`` console script.

Commands: ``fit``, ``demo``, ``demos``, ``info``, ``transform``, ``export-script``,
``dihedrals``, ``representatives`` and ``reproduce``. One module per command group
(:mod:`.fitting`, :mod:`.transform`, :mod:`.sessions`, :mod:`.structures`,
:mod:`.reproduction`) registers its commands on the parser built by :mod:`.parser`; the
argument groups several commands share are declared once in :mod:`.arguments`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ..core import FitCancelled
from ..io import TableError
from .common import EXIT_ERROR, EXIT_OK, EXIT_USAGE
from .parser import build_parser

__all__ = ["EXIT_ERROR", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``stpca`` console script; returns the process exit code."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (TableError, ValueError, OSError) as exc:
        print(f"stpca: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except FitCancelled:
        print("stpca: cancelled", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("stpca: interrupted", file=sys.stderr)
        return 130
