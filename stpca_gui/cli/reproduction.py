"""``stpca reproduce``: the paper's analyses beside ours, as a Markdown report."""

from __future__ import annotations

import argparse
from pathlib import Path

from .arguments import add_overwrite
from .common import EXIT_OK


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``reproduce`` to the ``stpca`` parser."""
    repro = commands.add_parser(
        "reproduce", help="run the paper's analyses and write a Markdown report",
        description="Run the paper's simulations and sunspots analyses; write report.md "
                    "with our numbers beside the paper's, and figures.")
    repro.add_argument("--out", type=Path, default=Path("reproduction"),
                       help="output folder (default: ./reproduction)")
    repro.add_argument("--quick", action="store_true",
                       help="one simulation seed and the sunspots subsample only")
    repro.add_argument("--sunspots", type=Path, default=None,
                       help="a sunspots_births CSV to use instead of the bundled data set")
    add_overwrite(repro)
    repro.set_defaults(func=run_reproduce)


def run_reproduce(args: argparse.Namespace) -> int:
    """``stpca reproduce``."""
    from ..reproduce import reproduce

    path = reproduce(args.out, quick=args.quick, sunspots=args.sunspots,
                     overwrite=args.overwrite)
    print(f"wrote {path}")
    return EXIT_OK
