"""Command line interface: the ``stpca`` console script.

Commands: ``fit``, ``demo``, ``demos``, ``info``, ``transform``, ``export-script``,
``plot``, ``dihedrals``, ``representatives``, ``motion`` and ``reproduce``. One module per command
group (:mod:`.fitting`, :mod:`.transform`, :mod:`.sessions`, :mod:`.plots`,
:mod:`.structures`, :mod:`.reproduction`) registers its commands on the parser built by
:mod:`.parser`; the argument groups several commands share are declared once in
:mod:`.arguments`, and :mod:`.guard` turns every failure into a one-line message.
"""

from __future__ import annotations

from collections.abc import Sequence

from .common import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from .guard import run_guarded
from .parser import build_parser

__all__ = ["EXIT_ERROR", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``stpca`` console script; returns the process exit code.

    Every failure of a command is one line on stderr and exit code 1 (130 when
    interrupted); ``--debug`` prints the traceback too (:mod:`.guard`).
    """
    return run_guarded(build_parser().parse_args(argv))
