"""Command line interface: ``stpca fit``, ``transform``, ``info``, ``demo``, ``demos`` and
``reproduce``."""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__
from .core import (
    FitCancelled,
    ParamSpec,
    ScaledTorusPCA,
    load_model,
    make_demo,
)
from .core.circstats.mode_test import DEFAULT_ALPHA
from .core.circstats.modes import MODE_RULES, ModeClustering, model_mode_clusters
from .core.demos import CLUSTER_DEMOS, DEFAULT_CLUSTER_SD
from .core.scoring_only import SCORING_ONLY, model_kind
from .core.summary import fit_summary, mode_cluster_items
from .files.clash import check_outputs
from .io import (
    RESULT_FILES,
    AngleChunk,
    TableError,
    check_file_set,
    iter_angle_chunks,
    read_angle_table,
    write_results,
    write_score_stream,
)
from .io.structures.table import PROVENANCE_COLUMNS
from .io.tables import CHUNK_ROWS
from .model import Dataset, FitParameters
from .model.demos import DATA_DEMOS, DEMO_NAMES, list_demos

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
#: How long ``stpca transform --scheduler`` tries to reach the scheduler.
SCHEDULER_TIMEOUT = "20s"


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
    """One option per parameter the estimator offers (see :mod:`stpca_gui.core._base.params`)."""
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
    parser.add_argument("--cluster-rule", choices=MODE_RULES, default="tested",
                        help="PNS1 mode clusters: 'tested' keeps the modes a test supports "
                             "(default), 'paper' every mode of the plug-in KDE")
    parser.add_argument("--mode-alpha", type=_level, default=DEFAULT_ALPHA, metavar="A",
                        help=f"level of the test for the number of modes (default "
                             f"{DEFAULT_ALPHA})")
    parser.add_argument("--save-model", type=Path, default=None, metavar="MODEL",
                        help="write the fitted model to this file (e.g. model.stpca), for "
                             "`stpca transform`")
    parser.add_argument("--scoring-only", action="store_true",
                        help="with --save-model: write only what `stpca transform` needs "
                             "(landmarks and PNS geometry, no per-sample results); a much "
                             "smaller file")
    parser.add_argument("--save-session", type=Path, default=None, metavar="SESSION",
                        help="write the data and the fit as a session file (e.g. "
                             "work.stpca) that `stpca-gui SESSION` opens without refitting")


def _add_table_options(parser: argparse.ArgumentParser) -> None:
    """How the angles are read from a table (``fit`` and ``transform``)."""
    parser.add_argument("--columns", default=None,
                        help="comma-separated angle columns (default: all but --label)")
    parser.add_argument("--label", default=None, help="a label column kept for reference")
    parser.add_argument("--degrees", action="store_true", help="angles are in degrees")
    parser.add_argument("--drop-invalid", action="store_true",
                        help="skip rows with missing or non-numeric angles instead of failing")


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
    _add_table_options(fit)
    _add_model_options(fit)

    transform = commands.add_parser(
        "transform", help="score new angles with a saved model (stpca fit --save-model)",
        description="Score the rows of a table with a saved model: PNS scores through the "
                    "interpolation map. The table is read in chunks, so its length is not "
                    "limited by memory; scores.csv has the columns of `stpca fit`'s.")
    transform.add_argument("model", type=Path, help="a model file written by --save-model")
    transform.add_argument("input", type=Path, help="input table (header row optional)")
    _add_table_options(transform)
    transform.add_argument("--out", type=Path, required=True,
                           help="the scores table to write (CSV)")
    transform.add_argument("--chunk-rows", type=int, default=CHUNK_ROWS, metavar="N",
                           help=f"rows read and scored at a time (default: {CHUNK_ROWS})")
    transform.add_argument("--scheduler", default=None, metavar="ADDRESS",
                           help="score the chunks on a running dask scheduler, e.g. "
                                "tcp://10.0.0.5:8786 (needs stpca-gui[distributed] here and "
                                "stpca-gui on the workers)")

    info = commands.add_parser(
        "info", help="describe a saved model file (full or scoring-only)",
        description="Describe a model file written by `stpca fit --save-model`: its kind "
                    "(full, or scoring-only), what it was fitted on and what it can do.")
    info.add_argument("model", type=Path, help="a model file written by --save-model")

    demo = commands.add_parser(
        "demo", help="run ST-PCA on a built-in demo dataset and print a summary",
        description="Run ST-PCA on a built-in demo dataset.")
    demo.add_argument("name", nargs="?", default="clusters-t3", choices=DEMO_NAMES,
                      help="demo dataset (default: clusters-t3)")
    demo.add_argument("--data-seed", type=int, default=0, help="seed of the simulated data")
    demo.add_argument("--cluster-sd", type=float, default=None, metavar="SD",
                      help=f"standard deviation (radians) of the clusters of "
                           f"{' and '.join(CLUSTER_DEMOS)} (default: {DEFAULT_CLUSTER_SD:g}; "
                           "the paper does not state it)")
    _add_model_options(demo)

    commands.add_parser("demos", help="list the built-in demo datasets")

    script = commands.add_parser(
        "export-script", help="write a Python script that refits a saved session",
        description="Write a short Python script that reloads the session's data, refits "
                    "with the same settings and seed, and writes the results and figures "
                    "(python OUT.py --out DIR).")
    script.add_argument("session", type=Path, help="a session file saved by stpca-gui")
    script.add_argument("out", type=Path, help="the script to write (e.g. analysis.py)")

    _add_structure_commands(commands)

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


def _level(text: str) -> float:
    """A significance level in (0, 1), for argparse."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"the level must be a number in (0, 1), got {text!r}")
    return value


def _add_structure_commands(commands: argparse._SubParsersAction) -> None:
    """``stpca dihedrals`` and ``stpca representatives`` (need stpca-gui[structures])."""
    from .io.structures import LAYOUTS, SET_NAMES

    dihedrals = commands.add_parser(
        "dihedrals", help="torsion angles of a PDB/mmCIF file or an MD trajectory, as a table",
        description="Read torsion angles (degrees) of a structure or trajectory with "
                    "MDAnalysis (stpca-gui[structures]) into a CSV table that `stpca fit "
                    "TABLE --degrees` reads as it is; its provenance columns (frame, segid, "
                    "resid, resname) are carried into scores.csv.")
    _add_structure_files(dihedrals)
    dihedrals.add_argument("--set", dest="dihedral_set", default="backbone", choices=SET_NAMES,
                           help="the torsions: backbone φ/ψ, side-chain chi (χ1/χ2; more with "
                                "--angles), rna-backbone α–ζ and χ, rna-pseudo η/θ, or custom "
                                "(--torsion) (default: backbone)")
    dihedrals.add_argument("--select", default="all",
                           help="residues, in MDAnalysis' selection language (default: all)")
    dihedrals.add_argument("--layout", default="pooled", choices=LAYOUTS,
                           help="pooled: a row per frame and residue; per-frame: a row per "
                                "frame, a column per torsion (default: pooled)")
    dihedrals.add_argument("--angles", default=None,
                           help="comma-separated torsions of the set, e.g. chi1,chi2,chi3")
    dihedrals.add_argument("--omega", action="store_true", help="backbone: also ω")
    dihedrals.add_argument("--torsion", action="append", default=[], metavar="NAME=S1;S2;S3;S4",
                           help="a user-defined torsion: four selections of one atom each "
                                "(repeatable; implies --set custom --layout per-frame)")
    dihedrals.add_argument("--start", type=int, default=None, help="first frame (0-based)")
    dihedrals.add_argument("--stop", type=int, default=None, help="stop before this frame")
    dihedrals.add_argument("--stride", type=int, default=1, help="every N-th frame")
    dihedrals.add_argument("--out", type=Path, required=True, help="the table to write (CSV)")

    representatives = commands.add_parser(
        "representatives", help="the frames or residues of a session's clusters",
        description="For a session fitted on torsions of a trajectory: per-frame data give "
                    "one PDB file per PNS1 mode cluster (its medoid frame on the torus) and "
                    "clusters.csv (frame, cluster, distance to the medoid); pooled data give "
                    "residue_clusters.csv (how often each residue visits each cluster).")
    representatives.add_argument("session", type=Path, help="a session file (e.g. work.stpca)")
    _add_structure_files(representatives)
    representatives.add_argument("--atoms", default="all",
                                 help="atoms written to the PDB files (default: all)")
    representatives.add_argument("--out", type=Path, required=True, help="output folder")


def _add_structure_files(command: argparse.ArgumentParser) -> None:
    """The structure and its trajectories, as MDAnalysis reads them."""
    command.add_argument("topology", type=Path, help="PDB, mmCIF, PSF, GRO, PRMTOP, …")
    command.add_argument("trajectories", type=Path, nargs="*", metavar="TRAJECTORY",
                         help="DCD, XTC, TRR, NetCDF, … read in order")


def _dihedral_settings(args: argparse.Namespace):
    from .io.structures import CUSTOM_SET, DihedralSettings

    custom = []
    for text in args.torsion:
        name, _, selections = text.partition("=")
        if not name.strip() or not selections:
            raise ValueError(f"--torsion {text!r}: write NAME=SEL1;SEL2;SEL3;SEL4")
        custom.append((name.strip(), tuple(s.strip() for s in selections.split(";"))))
    angles = tuple(a.strip() for a in args.angles.split(",")) if args.angles else None
    return DihedralSettings(
        dihedral_set=CUSTOM_SET if custom else args.dihedral_set, select=args.select,
        layout="per-frame" if custom else args.layout, start=args.start, stop=args.stop,
        stride=args.stride, angles=angles, omega=args.omega, custom=tuple(custom))


class _FrameProgress:
    """A progress bar on stderr for long trajectories (from the second block on)."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.shown = False

    def __call__(self, event) -> bool:
        if event.fraction < 1.0 or self.shown:
            self.shown = True
            filled = round(30 * event.fraction)
            print(f"\rreading [{'#' * filled}{'.' * (30 - filled)}] {100 * event.fraction:3.0f}%"
                  f"  {event.message}", end="", file=sys.stderr, flush=True)
        return False

    def close(self) -> None:
        if self.shown:
            print(file=sys.stderr)


def _run_dihedrals(args: argparse.Namespace) -> int:
    from .io.structures import read_torsions

    settings = _dihedral_settings(args)
    _check_output_file(args.out)
    progress = _FrameProgress()
    try:
        table = read_torsions(args.topology, args.trajectories, settings, callback=progress)
    finally:
        progress.close()
    table.write_csv(args.out)
    if table.missing:
        shown = ", ".join(table.missing[:5]) + (" …" if len(table.missing) > 5 else "")
        print(f"left out {len(table.missing)} undefined torsion(s): {shown}", file=sys.stderr)
    print(f"{table.describe()} in {time.perf_counter() - progress.start:.1f} s; "
          f"wrote {args.out}")
    return EXIT_OK


def _run_representatives(args: argparse.Namespace) -> int:
    from .model.session_file import load_session
    from .model.structures import export_representatives

    session = load_session(args.session)
    if session.result is None:
        raise ValueError(f"{args.session}: the session holds no fit, so no clusters")
    clusters = session.result.mode_clusters.labels
    record = session.dataset.structure
    if record is not None:
        from .io.structures import file_sha256

        given = [file_sha256(p) for p in [args.topology, *args.trajectories] if p.is_file()]
        if given != list(record["sha256"].values()):
            print(f"warning: {args.session} was read from other files "
                  f"({', '.join(record['sha256'])}); the frames written may not be the "
                  "fitted ones", file=sys.stderr)
    written = export_representatives(session.dataset, clusters, args.out, args.topology,
                                     args.trajectories, atoms=args.atoms)
    for cluster, frame in written.medoid_frames.items():
        print(f"cluster {cluster}: medoid frame {frame}")
    print(f"wrote {', '.join(str(p) for p in written.files)}")
    return EXIT_OK


def _model(args: argparse.Namespace) -> ScaledTorusPCA:
    """The estimator with the settings of the command line (validated)."""
    model = ScaledTorusPCA(**_settings(args))
    model._validate_params()
    return model


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
    dataset: Dataset | None = None,
    provenance: dict[str, np.ndarray] | None = None,
    **summary_extra: object,
) -> int:
    """Fit with the command line's settings, print the summary, write ``--out``.

    With ``--save-session`` the fit is made on ``dataset``'s angles (the app's data set
    of the same input), so that the session holds exactly the fit printed and written.
    """
    model = _model(args)
    _check_fit_outputs(args)
    if args.save_session is not None:
        _check_output_file(args.save_session)
        angles = dataset.angles
    if args.out is not None:
        # A bad output folder fails now, not after minutes of fitting.
        check_file_set(args.out, RESULT_FILES)
    if args.save_model is not None:
        _check_output_file(args.save_model)
    elif args.scoring_only:
        raise ValueError("--scoring-only chooses what --save-model writes; give "
                         "--save-model MODEL too")
    start = time.perf_counter()
    model.fit(angles)
    elapsed = time.perf_counter() - start
    _print_summary(model, title, elapsed)
    # The clusters the app shows: the tested rule on the data set's labels when there is one.
    cluster_labels = (dataset.labels if dataset is not None and dataset.has_labels
                      else labels)
    clusters = model_mode_clusters(model, method=args.cluster_rule, alpha=args.mode_alpha,
                                   labels=cluster_labels)
    for item in mode_cluster_items(clusters):
        if item.shown:
            print(f"{item.label:<17} {item.text}")
    if args.save_model is not None:
        args.save_model.parent.mkdir(parents=True, exist_ok=True)
        written = model.save(args.save_model, scoring_only=args.scoring_only)
        print(f"wrote            {written} "
              f"({'scoring-only model' if args.scoring_only else 'full model'})")
    if args.save_session is not None:
        args.save_session.parent.mkdir(parents=True, exist_ok=True)
        print(f"wrote            {_save_session(args, model, dataset, elapsed, clusters)}")
    if args.out is not None:
        written = write_results(model, args.out, column_names, row_ids, labels=labels,
                                provenance=provenance, clusters=clusters,
                                **summary_extra)
        print(f"wrote            {', '.join(str(p) for p in written)}")
    return EXIT_OK


def _settings(args: argparse.Namespace) -> dict[str, object]:
    """The estimator's offered parameters as the command line set them."""
    specs = (spec for spec in ScaledTorusPCA.parameter_specs() if spec.offered)
    return {spec.name: getattr(args, spec.name) for spec in specs}


def _parameters(args: argparse.Namespace) -> FitParameters:
    """The command line's settings as the app's, for a session file."""
    return FitParameters(**_settings(args))


def _save_session(args: argparse.Namespace, model: ScaledTorusPCA, dataset: Dataset,
                  elapsed: float, clusters: ModeClustering) -> Path:
    """Write the fit of ``dataset`` as a session (model/session_file.py)."""
    from .model import AnalysisResult, AppState
    from .model.session_file import save_session, session_from_state

    parameters = _parameters(args)
    state = AppState()
    state.set_dataset(dataset)
    # The clusters printed; the session keeps no paper-rule clusters (the app computes them
    # when it opens the session).
    state.set_result(AnalysisResult(model=model, parameters=parameters, dataset=dataset,
                                    wall_time=elapsed, mode_clusters=clusters))
    session = session_from_state(state, parameters, {}, name=args.save_session.stem)
    return save_session(session, args.save_session)


def _check_fit_outputs(args: argparse.Namespace) -> None:
    """Refuse, before fitting, outputs that would replace the input table or each other."""
    outputs = [(f"the result file {name}", args.out / name) for name in RESULT_FILES
               ] if args.out is not None else []
    if args.save_model is not None:
        outputs.append(("the model file", args.save_model))
    if args.save_session is not None:
        outputs.append(("the session file", args.save_session))
    check_outputs(outputs, [("the input table", getattr(args, "input", None))])


def _check_output_file(path: Path) -> None:
    """Fail now, before long work, when ``path`` could not be written."""
    check_file_set(path.parent, [path.name])


def _columns(args: argparse.Namespace) -> list[str] | None:
    return [c.strip() for c in args.columns.split(",")] if args.columns else None


def _report_dropped(dropped: Sequence[tuple[int, str]], shown: int = 10) -> None:
    for _, reason in dropped[:shown]:
        print(f"skipped: {reason}", file=sys.stderr)
    if len(dropped) > shown:
        print(f"skipped {len(dropped) - shown} more rows", file=sys.stderr)


def _run_fit(args: argparse.Namespace) -> int:
    # Recorded in a --save-session, so that an exported script reads the table again.
    options = {"columns": _columns(args), "degrees": args.degrees, "label_column": args.label,
               "drop_invalid": args.drop_invalid}
    table = read_angle_table(args.input, **options, provenance_columns=PROVENANCE_COLUMNS)
    _report_dropped(table.dropped)
    if table.degrees_suspected:
        print(f"warning: {args.input}: values beyond 2π in magnitude; if the angles are in "
              "degrees, pass --degrees", file=sys.stderr)
    return _fit_and_report(
        args, table.angles, table.column_names, table.line_numbers,
        f"input            {args.input} (columns {', '.join(table.column_names)})",
        labels=table.labels,
        dataset=Dataset.from_table(table, degrees=args.degrees, options=options),
        provenance=table.provenance,
        input=str(args.input), columns=list(table.column_names), degrees=args.degrees,
        rows_skipped=len(table.dropped))


class _Progress:
    """A one-line progress bar on stderr: rows done, share of the input file, rate."""

    def __init__(self, total_bytes: int) -> None:
        self.total_bytes = max(1, total_bytes)
        self.start = time.perf_counter()
        self.rows = 0

    def update(self, rows: int, bytes_read: int) -> None:
        self.rows += rows
        fraction = min(1.0, bytes_read / self.total_bytes)
        filled = round(30 * fraction)
        rate = self.rows / max(time.perf_counter() - self.start, 1e-9)
        print(f"\rscoring [{'#' * filled}{'.' * (30 - filled)}] {100 * fraction:3.0f}%  "
              f"{self.rows:,} rows  {rate:,.0f} rows/s", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        print(file=sys.stderr)


def _submitted_ahead(chunks: Iterator[AngleChunk], submit: Callable[[AngleChunk], Any],
                     in_flight: int) -> Iterator[tuple[AngleChunk, Any]]:
    """Each chunk with its submitted job, in input order, ``in_flight`` jobs submitted
    before the oldest is handed on (so the next chunks are read and scored meanwhile)."""
    pending: deque[tuple[AngleChunk, Any]] = deque()
    for chunk in chunks:
        pending.append((chunk, submit(chunk)))
        if len(pending) >= in_flight:
            yield pending.popleft()
    yield from pending


def _chunk_scores(model: ScaledTorusPCA, chunk: AngleChunk) -> np.ndarray:
    return model.transform(chunk.angles) if len(chunk.angles) else chunk.angles


def _scores_here(model: ScaledTorusPCA, chunks: Iterator[AngleChunk]
                 ) -> Iterator[tuple[AngleChunk, np.ndarray]]:
    """Scores of the chunks in input order, each computed on a background thread while
    this one reads the next chunk and writes the last one's scores: the kernels release
    the GIL, so reading and writing no longer wait for the kernel threads nor they for
    it (on two cores a 400,000-row transform took 35 % less time than chunk by chunk)."""
    scorer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="stpca-score")
    try:
        for chunk, job in _submitted_ahead(
                chunks, lambda chunk: scorer.submit(_chunk_scores, model, chunk), 2):
            yield chunk, job.result()
    finally:
        scorer.shutdown(wait=True, cancel_futures=True)


def _scores_on_cluster(address: str, model: ScaledTorusPCA, chunks: Iterator[AngleChunk]
                       ) -> Iterator[tuple[AngleChunk, np.ndarray]]:
    """Scores of the chunks computed on the dask cluster at ``address``, in input order.

    The model goes to the workers once; a bounded number of chunks is in flight, so the
    input is still read as the scores come back, with a few chunks in memory.
    """
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("--scheduler needs dask.distributed, which is not installed: "
                         "install stpca-gui[distributed] (uv sync --extra distributed)"
                         ) from None
    try:
        client = Client(address, timeout=SCHEDULER_TIMEOUT)
    except (OSError, ValueError) as exc:
        raise OSError(f"cannot reach the dask scheduler at {address}: {exc}") from None
    with client:
        in_flight = max(2, 2 * sum(client.nthreads().values()))
        remote_model = client.scatter(model, broadcast=True)
        for chunk, future in _submitted_ahead(
                chunks, lambda chunk: client.submit(ScaledTorusPCA.transform, remote_model,
                                                    chunk.angles, pure=False)
                if len(chunk.angles) else None, in_flight):
            yield _collect(address, chunk, future)


def _collect(address: str, chunk: AngleChunk, future) -> tuple[AngleChunk, np.ndarray]:
    """The chunk and its scores, once the cluster has them."""
    if future is None:
        return chunk, chunk.angles
    try:
        return chunk, future.result()
    except (ValueError, OSError):
        raise
    except Exception as exc:  # lost workers, cancelled tasks: the cluster's own errors
        raise OSError(f"the dask cluster at {address} failed to score lines "
                      f"{chunk.line_numbers[0]}-{chunk.line_numbers[-1]}: "
                      f"{type(exc).__name__}: {exc}") from None


def _run_transform(args: argparse.Namespace) -> int:
    check_outputs([("the scores table", args.out)],
                  [("the input table", args.input), ("the model file", args.model)])
    model = load_model(args.model)
    _check_output_file(args.out)
    if args.chunk_rows < 1:
        raise ValueError(f"--chunk-rows must be a positive integer; got {args.chunk_rows}")
    column_names, chunks = iter_angle_chunks(
        args.input, _columns(args), degrees=args.degrees, label_column=args.label,
        drop_invalid=args.drop_invalid, chunk_rows=args.chunk_rows)
    d = model.n_features_in_
    if len(column_names) != d:
        raise ValueError(
            f"{args.input}: {len(column_names)} angle column(s) ({', '.join(column_names)}), "
            f"but the model {args.model} was fitted on {d} angles; choose {d} with --columns")
    progress = _Progress(args.input.stat().st_size)
    dropped: list[tuple[int, str]] = []
    warned = False

    def parts():
        nonlocal warned
        scored = (_scores_on_cluster(args.scheduler, model, chunks) if args.scheduler
                  else _scores_here(model, chunks))
        for chunk, scores in scored:
            dropped.extend(chunk.dropped)
            if chunk.degrees_suspected and not warned:
                warned = True
                print(f"\nwarning: {args.input}: values beyond 2π in magnitude; if the "
                      "angles are in degrees, pass --degrees", file=sys.stderr)
            progress.update(len(chunk.line_numbers), chunk.bytes_read)
            yield chunk.line_numbers, chunk.labels, scores

    try:
        rows = write_score_stream(args.out, d, parts(), labelled=args.label is not None)
    finally:
        progress.close()
    _report_dropped(dropped)
    elapsed = time.perf_counter() - progress.start
    print(f"scored {rows:,} rows of {args.input} with {args.model} ({model_kind(model)} "
          f"model) in {elapsed:.1f} s ({rows / max(elapsed, 1e-9):,.0f} rows/s); "
          f"wrote {args.out}")
    return EXIT_OK


def _run_demo(args: argparse.Namespace) -> int:
    options = {} if args.cluster_sd is None else {"cluster_sd": args.cluster_sd}
    if args.name in DATA_DEMOS:  # real data: no seed, labels of their own
        data = Dataset.from_demo(args.name, **options)
        return _fit_and_report(
            args, data.angles, data.column_names, None,
            f"demo             {args.name}: {data.description}", labels=data.labels,
            dataset=data, demo=args.name)
    dataset = make_demo(args.name, random_state=args.data_seed, **options)
    return _fit_and_report(
        args, dataset.angles, dataset.column_names, None,
        f"demo             {dataset.name} (data seed {args.data_seed}): {dataset.description}",
        dataset=Dataset.from_demo(args.name, random_state=args.data_seed, **options),
        demo=dataset.name, data_seed=args.data_seed, **options)


def _run_export_script(args: argparse.Namespace) -> int:
    # The session file format comes from the `sessions` branch (stpca_gui.model.session_file).
    from .model.script_export import export_script
    from .model.session_file import load_session

    session = load_session(args.session)
    parameters = (session.result.parameters if session.result is not None
                  else session.parameters)
    clusters = session.result.mode_clusters if session.result is not None else None
    export, written = export_script(session.dataset, parameters, args.out,
                                    inputs=(("the session file", str(args.session)),),
                                    clusters=clusters)
    if export.note:
        print(f"note: the script reads a copy of the data: {export.note}", file=sys.stderr)
    print(f"wrote {', '.join(str(path) for path in written)}")
    return EXIT_OK


def _run_info(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    scoring_only = model_kind(model) == SCORING_ONLY
    ratios = ", ".join(f"{100 * r:.1f}" for r in model.explained_variance_ratio_)
    partners = model.match_.angles.shape[0]
    lines = [
        ("model", f"{args.model} ({args.model.stat().st_size / 2**20:.2f} MB)"),
        ("kind", "scoring-only: transform and inverse_transform; no per-sample results"
         if scoring_only else "full: the fit's per-sample results, and scoring"),
        ("angles", str(model.n_features_in_)),
        *([] if scoring_only else [("samples", f"{model.angles_.shape[0]:,}")]),
        ("placed against", f"{partners:,} matched points (the landmarks of a landmark fit, "
                           "every sample of an exact fit)"),
        ("sphere radius r", f"{model.radius_:.6g}"),
        ("PNS variance %", ratios),
    ]
    for label, text in lines:
        print(f"{label:<17} {text}")
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
        if args.command == "transform":
            return _run_transform(args)
        if args.command == "info":
            return _run_info(args)
        if args.command == "demo":
            return _run_demo(args)
        if args.command == "export-script":
            return _run_export_script(args)
        if args.command == "dihedrals":
            return _run_dihedrals(args)
        if args.command == "representatives":
            return _run_representatives(args)
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
