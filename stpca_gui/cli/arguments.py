"""The argument groups that several commands share, each declared once.

``fit`` and ``demo`` take the application's settings (one option per ``parameter()``
declaration of the estimator and of PNS1's mode clusters) and the fit's outputs; ``fit``
and ``transform`` read tables alike; ``dihedrals`` and ``representatives`` read the same
structure and trajectory files.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from ..core import Interval, ParamSpec
from ..model import FitParameters
from ..model.analysis import SETTINGS_DECLARATIONS


def value_parser(spec: ParamSpec):
    """argparse ``type`` for a declared parameter that takes named values and/or numbers,
    checked against the declaration when parsed (a bad value is a usage error naming the
    flag)."""
    options, interval = spec.options(), spec.interval()

    def parse(text: str) -> object:
        if options is not None and options.accepts(text):
            return text
        if interval is not None and (value := _number_in(text, interval)) is not None:
            return value
        raise argparse.ArgumentTypeError(f"must be {spec.describe(typed=True)}, not {text!r}")

    return parse


def bounded_number(interval: Interval):
    """argparse ``type`` for a number option checked against ``interval`` when parsed, so
    that ``--stride 10**30`` is a usage error naming the flag, not an overflow later."""

    def parse(text: str) -> int | float:
        value = _number_in(text, interval)
        if value is None:
            raise argparse.ArgumentTypeError(f"must be {interval.describe()}, not {text!r}")
        return value

    return parse


def _number_in(text: str, interval: Interval) -> int | float | None:
    """``text`` as a number of ``interval``, or None."""
    try:
        value = int(text) if interval.kind is int else float(text)
    except ValueError:
        return None
    return value if interval.accepts(value) else None


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """One option per setting the application offers, in a group per declaration: the
    estimator's parameters and PNS1's mode clusters' (see
    :data:`~stpca_gui.model.analysis.SETTINGS_DECLARATIONS`)."""
    declared = [(title, FitParameters.specs(declaration))
                for title, declaration in SETTINGS_DECLARATIONS]
    flags = {spec.name: spec.flag for _, specs in declared for spec in specs}
    for title, specs in declared:
        group = parser.add_argument_group(title)
        for spec in specs:
            _add_setting(group, spec, flags)


def in_flags(text: str, flags: dict[str, str]) -> str:
    """``text`` with the library's names of other parameters (``max_torus_components``)
    written as their command line flags (``--torus-components``).

    Only names with an underscore are replaced: one-word names (``radius``) are also
    words of the prose.
    """
    def flag(match: re.Match[str]) -> str:
        return flags.get(match.group(0), match.group(0))

    return _SNAKE_NAME.sub(flag, text)


#: A library parameter name as it stands in a summary: words joined by underscores.
_SNAKE_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def _add_setting(group: argparse._ArgumentGroup, spec: ParamSpec,
                 flags: dict[str, str]) -> None:
    """The option of one declared parameter, with its default, allowed values and help
    (naming other parameters by their flags)."""
    default = spec.app_default
    summary = in_flags(spec.summary, flags)
    if spec.is_boolean():
        group.add_argument(spec.flag, dest=spec.name, default=default,
                           action=argparse.BooleanOptionalAction,
                           help=f"{summary} (default: {'on' if default else 'off'})")
        return
    options = spec.options()
    choices = options.values if options is not None and spec.interval() is None else None
    metavar = spec.flag.lstrip("-").upper().replace("-", "_")
    group.add_argument(spec.flag, dest=spec.name, default=default, choices=choices,
                       type=None if choices else value_parser(spec),
                       metavar=None if choices else metavar,
                       help=(summary if choices else
                             f"{summary} Allowed: {in_flags(spec.describe(typed=True), flags)}.")
                       .replace("%", "%%") + f" (default: {default})")


def add_overwrite(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--overwrite``: write into an output folder holding files stpca-gui did not write
    (see :mod:`stpca_gui.files.output_folder`)."""
    parser.add_argument("--overwrite", action="store_true",
                        help="write into an output folder even when it holds files "
                             "stpca-gui did not write (those named like an output are "
                             "replaced, the others kept; inputs are never replaced)")


def add_fit_outputs(parser: argparse.ArgumentParser) -> None:
    """Where a fit's results, model and session go (``fit`` and ``demo``)."""
    group = parser.add_argument_group("outputs")
    group.add_argument("--out", type=Path, default=None,
                       help="folder for scores.csv, embedding.csv, principal_curve.csv and "
                            "summary.json, written as a whole (files of an earlier run "
                            "removed; a folder holding other files is refused)")
    add_overwrite(group)
    group.add_argument("--save-model", type=Path, default=None, metavar="MODEL",
                       help="write the fitted model to this file (e.g. model.stpca), for "
                            "`stpca transform`")
    group.add_argument("--scoring-only", action="store_true",
                       help="with --save-model: write only what `stpca transform` needs "
                            "(landmarks and PNS geometry, no per-sample results); a much "
                            "smaller file")
    group.add_argument("--save-session", type=Path, default=None, metavar="SESSION",
                       help="write the data and the fit as a session file (e.g. "
                            "work.stpca) that `stpca-gui SESSION` opens without refitting")


def add_table_options(parser: argparse.ArgumentParser, *, as_fitted: bool = False) -> None:
    """How the angles are read from a table (``fit`` and ``transform``).

    With ``as_fitted`` (``transform``) the defaults are those the model file recorded:
    ``--degrees`` and ``--radians`` leave ``degrees`` None when neither is given, and
    ``--override`` lets options that differ from the record through.
    """
    group = parser.add_argument_group("reading the table")
    if as_fitted:
        group.add_argument("--columns", default=None,
                           help="comma-separated angle columns (default: those the model "
                                "was fitted on)")
        group.add_argument("--label", default=None,
                           help="a label column kept for reference (default: the model's, "
                                "when the table has it)")
        unit = group.add_mutually_exclusive_group()
        unit.add_argument("--degrees", action="store_const", const=True, default=None,
                          help="angles are in degrees (default: the model's unit)")
        unit.add_argument("--radians", dest="degrees", action="store_const", const=False,
                          help="angles are in radians (default: the model's unit)")
    else:
        group.add_argument("--columns", default=None,
                           help="comma-separated angle columns (default: the columns that "
                                "hold plausible angles; the others are listed with why)")
        group.add_argument("--label", default=None, help="a label column kept for reference")
        group.add_argument("--degrees", action="store_true", help="angles are in degrees")
    group.add_argument("--drop-invalid", action="store_true",
                       help="skip rows with missing or non-numeric angles instead of failing")
    if as_fitted:
        group.add_argument("--override", action="store_true",
                           help="score the --columns and unit given even where they differ "
                                "from those the model was fitted on")


def add_structure_files(command: argparse.ArgumentParser) -> None:
    """The structure and its trajectories, as MDAnalysis reads them."""
    command.add_argument("topology", type=Path, help="PDB, mmCIF, PSF, GRO, PRMTOP, …")
    command.add_argument("trajectories", type=Path, nargs="*", metavar="TRAJECTORY",
                         help="DCD, XTC, TRR, NetCDF, … of the topology's atoms: each file a "
                              "run of its own (see --concatenate), in the order given")


def columns(args: argparse.Namespace) -> list[str] | None:
    """The ``--columns`` list, or None for all."""
    return [c.strip() for c in args.columns.split(",")] if args.columns else None
