"""``stpca export-script``: a Python script that refits a saved session."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .arguments import add_overwrite
from .common import EXIT_OK


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``export-script`` to the ``stpca`` parser."""
    script = commands.add_parser(
        "export-script", help="write a Python script that refits a saved session",
        description="Write a short Python script that reloads the session's data, refits "
                    "with the same settings and seed, and writes the results and figures "
                    "(python OUT.py --out DIR).")
    script.add_argument("session", type=Path, help="a session file saved by stpca-gui")
    script.add_argument("out", type=Path, help="the script to write (e.g. analysis.py)")
    add_overwrite(script)
    script.set_defaults(func=run_export_script)


def run_export_script(args: argparse.Namespace) -> int:
    """``stpca export-script``."""
    from ..model.script_export import export_script
    from ..model.session_file import load_session

    session = load_session(args.session)
    parameters = (session.result.parameters if session.result is not None
                  else session.parameters)
    export, written = export_script(session.dataset, parameters, args.out,
                                    inputs=(("the session file", str(args.session)),),
                                    overwrite=args.overwrite)
    if export.note:
        print(f"note: the script reads a copy of the data: {export.note}", file=sys.stderr)
    print(f"wrote {', '.join(str(path) for path in written)}")
    return EXIT_OK
