"""Command line interface: ``stpca demo NAME`` and ``stpca demos``."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from . import __version__
from .core import DEMO_NAMES, SphericalMDS, list_demos, make_demo

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stpca",
        description="Scaled Torus PCA (ST-PCA): dimension reduction for angular data.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    demo = commands.add_parser(
        "demo",
        help="run spherical MDS on a built-in demo dataset and print a summary",
        description="Run spherical MDS (ST-PCA step 1) on a built-in demo dataset.",
    )
    demo.add_argument("name", nargs="?", default="clusters-t3", choices=DEMO_NAMES,
                      help="demo dataset (default: clusters-t3)")
    demo.add_argument("--seed", type=int, default=0, help="seed of the simulated data")
    demo.add_argument("--optimizer", choices=("lbfgs", "paper"), default="lbfgs",
                      help="lbfgs: converged fit (default); paper: emulate the paper's R optim")
    demo.add_argument("--radius", default="auto",
                      help="sphere radius: 'auto' (estimated) or a positive number")

    commands.add_parser("demos", help="list the built-in demo datasets")
    return parser


def _parse_radius(text: str) -> str | float:
    if text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"--radius must be 'auto' or a positive number, got {text!r}") from None


def _run_demo(args: argparse.Namespace) -> int:
    dataset = make_demo(args.name, random_state=args.seed)
    smds = SphericalMDS(radius=_parse_radius(args.radius), optimizer=args.optimizer,
                        random_state=args.seed)
    start = time.perf_counter()
    smds.fit(dataset.angles)
    elapsed = time.perf_counter() - start
    n, d = dataset.angles.shape
    print(f"demo            {dataset.name} (seed {args.seed}): {dataset.description}")
    print(f"data            n = {n} points on T^{d}")
    print(f"optimizer       {args.optimizer} ({smds.message_})")
    print(f"radius          r* = {smds.initial_radius_:.4f} -> r = {smds.radius_:.4f}")
    print(f"stress          {smds.initial_stress_:.5f} (start) -> {smds.stress_:.5f}")
    print(f"iterations      {smds.n_iter_} ({smds.n_evaluations_} stress evaluations)")
    print(f"time            {elapsed:.3f} s")
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
        if args.command == "demo":
            return _run_demo(args)
        return _run_list()
    except ValueError as exc:
        print(f"stpca: error: {exc}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
