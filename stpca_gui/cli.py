"""Command line interface: ``stpca fit``, ``stpca demo`` and ``stpca demos``."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from . import __version__
from .core import DEMO_NAMES, FitCancelled, ScaledTorusPCA, list_demos, make_demo
from .core.params import ParamSpec
from .core.summary import fit_summary
from .io import RESULT_FILES, TableError, check_file_set, read_angle_table, write_results
from .model import FitParameters

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2


def _value_parser(spec: ParamSpec):
    """argparse ``type`` for a parameter that takes named values and/or numbers."""
    options, interval = spec.options(), spec.interval()

    def parse(text: str) -> object:
        if options is not None and options.accepts(text):
            return text
        if interval is not None:
            try:
                return int(text) if interval.kind is int else float(text)
            except ValueError:
                pass
        raise argparse.ArgumentTypeError(f"must be {spec.describe(typed=True)}, not {text!r}")

    return parse


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    """One option per parameter the estimator offers (see :mod:`stpca_gui.core.params`)."""
    group = parser.add_argument_group("ST-PCA settings")
    for spec in ScaledTorusPCA.parameter_specs():
        if not spec.offered:
            continue
        default = spec.app_default
        if spec.is_boolean():
            group.add_argument(spec.flag, dest=spec.name, default=default,
                               action=argparse.BooleanOptionalAction,
                               help=f"{spec.summary} (default: {'on' if default else 'off'})")
            continue
        options = spec.options()
        choices = options.values if options is not None and spec.interval() is None else None
        metavar = spec.flag.lstrip("-").upper().replace("-", "_")
        group.add_argument(spec.flag, dest=spec.name, default=default, choices=choices,
                           type=None if choices else _value_parser(spec),
                           metavar=None if choices else metavar,
                           help=(spec.summary if choices else
                                 f"{spec.summary} Allowed: {spec.describe(typed=True)}.")
                           .replace("%", "%%") + f" (default: {default})")
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for scores.csv, embedding.csv, principal_curve.csv and "
                             "summary.json")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stpca",
        description="Scaled Torus PCA (ST-PCA): dimension reduction for angular data.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    fit = commands.add_parser(
        "fit", help="run ST-PCA on a table of angles",
        description="Run ST-PCA on angle columns of a CSV/TSV/whitespace-separated file.")
    fit.add_argument("input", type=Path, help="input table (header row optional)")
    fit.add_argument("--columns", default=None,
                     help="comma-separated angle columns (default: all but --label)")
    fit.add_argument("--label", default=None, help="a label column kept for reference")
    fit.add_argument("--degrees", action="store_true", help="angles are in degrees")
    fit.add_argument("--drop-invalid", action="store_true",
                     help="skip rows with missing or non-numeric angles instead of failing")
    _add_model_options(fit)

    demo = commands.add_parser(
        "demo", help="run ST-PCA on a built-in demo dataset and print a summary",
        description="Run ST-PCA on a built-in demo dataset.")
    demo.add_argument("name", nargs="?", default="clusters-t3", choices=DEMO_NAMES,
                      help="demo dataset (default: clusters-t3)")
    demo.add_argument("--data-seed", type=int, default=0, help="seed of the simulated data")
    _add_model_options(demo)

    commands.add_parser("demos", help="list the built-in demo datasets")

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
    return parser


def _model(args: argparse.Namespace) -> ScaledTorusPCA:
    """The estimator with the settings of the command line (validated)."""
    specs = (spec for spec in ScaledTorusPCA.parameter_specs() if spec.offered)
    return FitParameters(**{spec.name: getattr(args, spec.name) for spec in specs}).to_estimator()


def _print_summary(model: ScaledTorusPCA, title: str, elapsed: float) -> None:
    print(title)
    for item in fit_summary(model):
        if item.shown:
            print(f"{item.label:<17} {item.text}")
    print(f"{'time: total':<17} {elapsed:.2f} s")


def _fit_and_report(
    args: argparse.Namespace,
    angles: np.ndarray,
    column_names: Sequence[str],
    row_ids: np.ndarray | None,
    title: str,
    labels: np.ndarray | None = None,
    **summary_extra: object,
) -> int:
    """Fit with the command line's settings, print the summary, write ``--out``."""
    model = _model(args)
    if args.out is not None:
        # A bad output folder fails now, not after minutes of fitting.
        check_file_set(args.out, RESULT_FILES)
    start = time.perf_counter()
    model.fit(angles)
    _print_summary(model, title, time.perf_counter() - start)
    if args.out is not None:
        written = write_results(model, args.out, column_names, row_ids, labels=labels,
                                **summary_extra)
        print(f"wrote            {', '.join(str(p) for p in written)}")
    return EXIT_OK


def _run_fit(args: argparse.Namespace) -> int:
    columns = [c.strip() for c in args.columns.split(",")] if args.columns else None
    table = read_angle_table(args.input, columns, degrees=args.degrees,
                             label_column=args.label, drop_invalid=args.drop_invalid)
    for _, reason in table.dropped[:10]:
        print(f"skipped: {reason}", file=sys.stderr)
    if len(table.dropped) > 10:
        print(f"skipped {len(table.dropped) - 10} more rows", file=sys.stderr)
    if table.degrees_suspected:
        print(f"warning: {args.input}: values beyond 2π in magnitude; if the angles are in "
              "degrees, pass --degrees", file=sys.stderr)
    return _fit_and_report(
        args, table.angles, table.column_names, table.line_numbers,
        f"input            {args.input} (columns {', '.join(table.column_names)})",
        labels=table.labels,
        input=str(args.input), columns=list(table.column_names), degrees=args.degrees,
        rows_skipped=len(table.dropped))


def _run_demo(args: argparse.Namespace) -> int:
    dataset = make_demo(args.name, random_state=args.data_seed)
    return _fit_and_report(
        args, dataset.angles, dataset.column_names, None,
        f"demo             {dataset.name} (data seed {args.data_seed}): {dataset.description}",
        demo=dataset.name, data_seed=args.data_seed)


def _run_list() -> int:
    for name, description in list_demos():
        print(f"{name:20s} {description}")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``stpca`` console script; returns the process exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "fit":
            return _run_fit(args)
        if args.command == "demo":
            return _run_demo(args)
        if args.command == "reproduce":
            from .reproduce import reproduce

            path = reproduce(args.out, quick=args.quick, sunspots=args.sunspots)
            print(f"wrote {path}")
            return EXIT_OK
        return _run_list()
    except (TableError, ValueError, OSError) as exc:
        print(f"stpca: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except FitCancelled:
        print("stpca: cancelled", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("stpca: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
