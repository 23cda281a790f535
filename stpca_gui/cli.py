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
from .io import TableError, read_angle_table, write_results

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
PNS_MODES = ("seq.test", "small", "great", "bic")


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pns-mode", choices=PNS_MODES, default="seq.test",
                        help="how PNS chooses small or great subspheres (default: seq.test)")
    parser.add_argument("--optimizer", choices=("lbfgs", "paper"), default="lbfgs",
                        help="SMDS optimiser: lbfgs converges (default); paper emulates the "
                             "paper's R optim run")
    parser.add_argument("--radius", default="auto",
                        help="sphere radius: 'auto' (estimated) or a positive number")
    parser.add_argument("--curve-points", type=int, default=100,
                        help="points of the principal curve (default: 100)")
    parser.add_argument("--restarts", type=int, default=1,
                        help="SMDS starts (random restarts after the first; default 1)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument("--no-torus-variance", action="store_true",
                        help="skip the torus explained variance (n·d extra predictions)")
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
                       help="sunspots_births.csv (default: ../shared/data next to the source)")
    return parser


def _parse_radius(text: str) -> str | float:
    if text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"--radius must be 'auto' or a positive number, got {text!r}") from None


def _model(args: argparse.Namespace) -> ScaledTorusPCA:
    return ScaledTorusPCA(
        radius=_parse_radius(args.radius), pns_mode=args.pns_mode,
        n_curve_points=args.curve_points, random_state=args.seed, n_init=args.restarts,
        optimizer=args.optimizer, torus_variance=not args.no_torus_variance,
    )


def _percent(values: np.ndarray) -> str:
    return " / ".join("n/a" if np.isnan(v) else f"{100 * v:.1f}" for v in values)


def _print_summary(model: ScaledTorusPCA, title: str, elapsed: float) -> None:
    n, d = model.scores_.shape
    smds = model.smds_
    print(title)
    print(f"data             n = {n} points on T^{d}")
    print(f"SMDS             {model.optimizer}, {smds.n_iter_} iterations ({smds.message_})")
    print(f"radius           r* = {smds.initial_radius_:.4f} -> r = {model.radius_:.4f}")
    print(f"stress           {smds.initial_stress_:.5f} (start) -> {model.stress_:.5f}")
    print(f"PNS              {model.pns_mode}: {', '.join(model.pns_.sphere_types_) or '-'}")
    print(f"sphere variance  {_percent(model.explained_variance_ratio_)} % (PNS1 first)")
    print(f"torus variance   {_percent(model.torus_explained_variance_ratio_)} %")
    breaks = int(model.principal_curve_.breaks.sum())
    print(f"principal curve  {len(model.principal_curve_.angles)} points, {breaks} break(s)")
    stages = ", ".join(f"{k} {v:.2f}" for k, v in model.timings_.items())
    print(f"time             {elapsed:.2f} s ({stages})")


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
    model = _model(args)
    start = time.perf_counter()
    model.fit(table.angles)
    elapsed = time.perf_counter() - start
    _print_summary(model, f"input            {args.input} (columns "
                          f"{', '.join(table.column_names)})", elapsed)
    if args.out is not None:
        written = write_results(model, args.out, table.column_names, table.line_numbers,
                                input=str(args.input), columns=list(table.column_names),
                                degrees=args.degrees, rows_skipped=len(table.dropped))
        print(f"wrote            {', '.join(str(p) for p in written)}")
    return EXIT_OK


def _run_demo(args: argparse.Namespace) -> int:
    dataset = make_demo(args.name, random_state=args.data_seed)
    model = _model(args)
    start = time.perf_counter()
    model.fit(dataset.angles)
    elapsed = time.perf_counter() - start
    _print_summary(model, f"demo             {dataset.name} (data seed {args.data_seed}): "
                          f"{dataset.description}", elapsed)
    if args.out is not None:
        written = write_results(model, args.out, dataset.column_names, demo=dataset.name,
                                data_seed=args.data_seed)
        print(f"wrote            {', '.join(str(p) for p in written)}")
    return EXIT_OK


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
