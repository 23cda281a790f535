"""The ``stpca`` argument parser, assembled from the command groups' modules.

Each command module has a ``register(commands)`` that adds its subcommands to the parser and
names the function running each with ``set_defaults(func=…)``.
"""

from __future__ import annotations

import argparse

from .. import __version__
from . import fitting, reproduction, sessions, structures, transform

#: The command groups, in the order ``stpca --help`` lists their commands.
COMMAND_GROUPS = (fitting, transform, sessions, structures, reproduction)


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``stpca`` command line, every subcommand included."""
    parser = argparse.ArgumentParser(
        prog="stpca",
        description="Scaled Torus PCA (ST-PCA): dimension reduction for angular data.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for group in COMMAND_GROUPS:
        group.register(commands)
    return parser
