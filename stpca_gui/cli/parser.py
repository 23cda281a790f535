"""The ``stpca`` argument parser, assembled from the command groups' modules.

Each command module has a ``register(commands)`` that adds its subcommands to the parser and
names the function running each with ``set_defaults(func=…)`` (and, optionally, what to try
when it runs out of memory: ``memory_hint=…``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import __version__
from . import fitting, plots, reproduction, sessions, structures, transform

#: The command groups, in the order ``stpca --help`` lists their commands.
COMMAND_GROUPS = (fitting, transform, sessions, plots, structures, reproduction)
DEBUG_HELP = "on failure, print the traceback too"


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``stpca`` command line, every subcommand included."""
    parser = argparse.ArgumentParser(
        prog="stpca",
        description="Scaled Torus PCA (ST-PCA): dimension reduction for angular data.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for group in COMMAND_GROUPS:
        group.register(commands)
    for command in commands.choices.values():
        # Also after the command (`stpca fit … --debug`); unset there unless given, so the
        # global flag is not overridden.
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                             help=DEBUG_HELP)
        command.set_defaults(input_dests=_input_dests(command))
    return parser


def _input_dests(command: argparse.ArgumentParser) -> tuple[str, ...]:
    """The command's positional file arguments but its output: the files it reads, which
    the guard names when a command fails unexpectedly."""
    return tuple(action.dest for action in command._actions
                 if not action.option_strings and action.type is Path
                 and action.dest != "out")
