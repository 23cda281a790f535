"""``stpca fit``, ``demo``, ``demos`` and ``info``: fit ST-PCA, print the summary, write
the results, the model and a session; describe a saved model."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..core import Interval, ScaledTorusPCA, make_demo
from ..core.circstats.mode_clustering import ModeClustering
from ..core.demos import CLUSTER_DEMOS, DEFAULT_CLUSTER_SD
from ..core.persistence import load_model_and_input_table
from ..core.scoring_only import SCORING_ONLY, model_kind
from ..core.summary import fit_summary, mode_cluster_items
from ..files.clash import check_outputs, same_file
from ..files.output_folder import check_output_folder
from ..io import read_angle_table, result_file_names, write_results
from ..io.preview import preview_table
from ..io.state_trajectories import state_trajectories
from ..io.table_reading import TableReading
from ..model import Dataset, FitParameters
from ..model.demos import DATA_DEMOS, DEMO_NAMES, STRUCTURE_DEMOS, list_demos
from ..model.structures import structure_demo_dataset
from .arguments import (
    add_fit_outputs,
    add_model_options,
    add_table_options,
    bounded_number,
    columns,
)
from .common import EXIT_OK, check_output_file, report_dropped
from .progress import FitProgress

#: What to try when a fit runs out of memory.
FIT_MEMORY_HINT = ("fit on landmarks (--landmarks N; an exact fit needs n × n matrices) or "
                   "on fewer rows or columns")


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``fit``, ``demo``, ``demos`` and ``info`` to the ``stpca`` parser."""
    fit = commands.add_parser(
        "fit", help="run ST-PCA on a table of angles",
        description="Run ST-PCA on angle columns of a CSV/TSV/whitespace-separated file.")
    fit.add_argument("input", type=Path, help="input table (header row optional)")
    add_table_options(fit)
    add_model_options(fit)
    add_fit_outputs(fit)
    fit.set_defaults(func=run_fit, memory_hint=FIT_MEMORY_HINT)

    demo = commands.add_parser(
        "demo", help="run ST-PCA on a built-in demo dataset and print a summary",
        description="Run ST-PCA on a built-in demo dataset.")
    demo.add_argument("name", nargs="?", default="clusters-t3", choices=DEMO_NAMES,
                      help="demo dataset (default: clusters-t3)")
    demo.add_argument("--data-seed", type=bounded_number(Interval(int, 0, None)), default=0,
                      help="seed of the simulated data")
    demo.add_argument("--cluster-sd", type=float, default=None, metavar="SD",
                      help=f"standard deviation (radians) of the clusters of "
                           f"{' and '.join(CLUSTER_DEMOS)} (default: {DEFAULT_CLUSTER_SD:g}; "
                           "the paper does not state it)")
    add_model_options(demo)
    add_fit_outputs(demo)
    demo.set_defaults(func=run_demo, memory_hint=FIT_MEMORY_HINT)

    demos = commands.add_parser("demos", help="list the built-in demo datasets",
                                description="List the built-in demo datasets.")
    demos.set_defaults(func=run_demos)

    info = commands.add_parser(
        "info", help="describe a saved model file (full or scoring-only)",
        description="Describe a model file written by `stpca fit --save-model`: its kind "
                    "(full, or scoring-only), what it was fitted on and what it can do.")
    info.add_argument("model", type=Path, help="a model file written by --save-model")
    info.set_defaults(func=run_info)


def run_fit(args: argparse.Namespace) -> int:
    """``stpca fit``."""
    # Recorded in a --save-session, so that an exported script reads the table again.
    options = {"columns": columns(args) or _angle_columns(args), "degrees": args.degrees,
               "label_column": args.label, "drop_invalid": args.drop_invalid}
    table = read_angle_table(args.input, **options)  # provenance columns carried
    report_dropped(table.dropped)
    if table.degrees_suspected:
        print(f"warning: {args.input}: values beyond 2π in magnitude; if the angles are in "
              "degrees, pass --degrees", file=sys.stderr)
    return _fit_and_report(
        args, table.angles, table.column_names, table.line_numbers,
        f"input            {args.input} (columns {', '.join(table.column_names)})",
        labels=table.labels,
        dataset=Dataset.from_table(table, degrees=args.degrees, options=options),
        provenance=table.provenance,
        reading=TableReading(tuple(table.column_names), args.degrees, args.label,
                             args.drop_invalid),
        input=str(args.input), columns=list(table.column_names), degrees=args.degrees,
        rows_skipped=len(table.dropped))


def _angle_columns(args: argparse.Namespace) -> list[str]:
    """The columns of ``args.input`` that hold plausible angles, by the import dialog's
    rule (:func:`~stpca_gui.io.preview.preview_table`); says on stderr which, when it left
    some out, and why."""
    preview = preview_table(args.input, max_rows=0, label_column=args.label,
                            unit="degrees" if args.degrees else None)
    skipped = "; ".join(f"{name} ({reason})" for name, reason in preview.skipped_columns)
    if not preview.suggested_angle_columns:
        raise ValueError(f"{args.input}: no column holds plausible angles ({skipped}); "
                         "name the angle columns with --columns")
    if skipped:  # every column an angle: nothing to say
        print(f"angle columns    {', '.join(preview.suggested_angle_columns)}; left out: "
              f"{skipped} (choose others with --columns)", file=sys.stderr)
    return list(preview.suggested_angle_columns)


def run_demo(args: argparse.Namespace) -> int:
    """``stpca demo``."""
    options = {} if args.cluster_sd is None else {"cluster_sd": args.cluster_sd}
    if args.name in DATA_DEMOS or args.name in STRUCTURE_DEMOS:  # real data: no seed
        if options:
            raise ValueError(f"the demo {args.name!r} is real data: --cluster-sd does not "
                             "apply")
        data = (structure_demo_dataset(args.name) if args.name in STRUCTURE_DEMOS
                else Dataset.from_demo(args.name))
        return _fit_and_report(
            args, data.angles, data.column_names, None,
            f"demo             {args.name}: {data.description}", labels=data.labels,
            dataset=data, provenance=data.provenance, demo=args.name)
    dataset = make_demo(args.name, random_state=args.data_seed, **options)
    return _fit_and_report(
        args, dataset.angles, dataset.column_names, None,
        f"demo             {dataset.name} (data seed {args.data_seed}): {dataset.description}",
        dataset=Dataset.from_demo(args.name, random_state=args.data_seed, **options),
        demo=dataset.name, data_seed=args.data_seed, **options)


def run_demos(args: argparse.Namespace) -> int:
    """``stpca demos``."""
    for name, description in list_demos():
        print(f"{name:20s} {description}")
    return EXIT_OK


def run_info(args: argparse.Namespace) -> int:
    """``stpca info``."""
    model, record = load_model_and_input_table(args.model)
    reading = None if record is None else TableReading.from_record(record, args.model)
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
        ("fitted on", "(not recorded: `stpca transform` needs --columns and the unit)"
         if reading is None else
         f"columns {','.join(reading.columns)} in {reading.unit}"
         + (f", labels {reading.label_column}" if reading.label_column else "")),
    ]
    for label, text in lines:
        print(f"{label:<17} {text}")
    return EXIT_OK


def _parameters(args: argparse.Namespace) -> FitParameters:
    """The settings as the command line set them (the app's, for a session file)."""
    return FitParameters(**{spec.name: getattr(args, spec.name)
                            for spec in FitParameters.specs()})


def _model(args: argparse.Namespace) -> ScaledTorusPCA:
    """The estimator with the settings of the command line (validated with the others)."""
    parameters = _parameters(args)
    parameters.validate()
    return parameters.to_estimator()


def _save_session(args: argparse.Namespace, model: ScaledTorusPCA, dataset: Dataset,
                  elapsed: float, clusters: ModeClustering) -> Path:
    """Write the fit of ``dataset`` as a session (model/session_file.py)."""
    from ..model import AnalysisResult, AppState
    from ..model.session_file import save_session, session_from_state

    parameters = _parameters(args)
    state = AppState()
    state.set_dataset(dataset)
    # The clusters printed; the session keeps no paper-rule clusters (the app computes them
    # when it opens the session).
    state.set_result(AnalysisResult(model=model, parameters=parameters, dataset=dataset,
                                    wall_time=elapsed, mode_clusters=clusters))
    session = session_from_state(state, parameters, {}, name=args.save_session.stem)
    return save_session(session, args.save_session)


def _check_fit_outputs(args: argparse.Namespace, names: Sequence[str]) -> None:
    """Refuse, before fitting, outputs that would replace the input table or each other."""
    outputs = [(f"the result file {name}", args.out / name) for name in names
               ] if args.out is not None else []
    if args.save_model is not None:
        outputs.append(("the model file", args.save_model))
    if args.save_session is not None:
        outputs.append(("the session file", args.save_session))
    check_outputs(outputs, _fit_inputs(args))


def _companions(args: argparse.Namespace) -> list[str]:
    """The model and session files this fit writes into its --out folder, by name."""
    return [path.name for path in (args.save_model, args.save_session)
            if path is not None and same_file(path.parent, args.out)]


def _fit_inputs(args: argparse.Namespace) -> list[tuple[str, Path | None]]:
    """The files a fit reads (none for a demo)."""
    return [("the input table", getattr(args, "input", None))]


def _print_summary(model: ScaledTorusPCA, title: str, elapsed: float,
                   column_names: Sequence[str]) -> None:
    print(title)
    for item in fit_summary(model, column_names):
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
    reading: TableReading | None = None,
    **summary_extra: object,
) -> int:
    """Fit with the command line's settings, print the summary, write ``--out``.

    With ``--save-session`` the fit is made on ``dataset``'s angles (the app's data set
    of the same input), so that the session holds exactly the fit printed and written.
    ``reading`` (how the table was read; the demos' columns in radians by default) is
    recorded in ``--save-model``'s file for ``stpca transform``.
    """
    if reading is None:
        reading = TableReading(tuple(column_names), degrees=False)
    model = _model(args)
    result_names = result_file_names(provenance)
    _check_fit_outputs(args, result_names)
    if args.save_session is not None:
        check_output_file(args.save_session)
        angles = dataset.angles
    if args.out is not None:
        # A bad output folder fails now, not after minutes of fitting.
        check_output_folder(args.out, result_names, inputs=_fit_inputs(args),
                            overwrite=args.overwrite, chosen=_companions(args))
    if args.save_model is not None:
        check_output_file(args.save_model)
    elif args.scoring_only:
        raise ValueError("--scoring-only chooses what --save-model writes; give "
                         "--save-model MODEL too")
    start = time.perf_counter()
    progress = FitProgress()
    try:
        model.fit(angles, callback=progress)
    finally:  # the progress line ends before the summary, an error or "interrupted"
        progress.close()
    elapsed = time.perf_counter() - start
    _print_summary(model, title, elapsed, column_names)
    # The clusters the app shows: the tested rule on the data set's labels when there is one.
    cluster_labels = (dataset.labels if dataset is not None and dataset.has_labels
                      else labels)
    clusters = _parameters(args).mode_cluster_settings().clusters(model, labels=cluster_labels)
    for item in mode_cluster_items(clusters):
        if item.shown:
            print(f"{item.label:<17} {item.text}")
    if args.save_model is not None:
        args.save_model.parent.mkdir(parents=True, exist_ok=True)
        written = model.save(args.save_model, scoring_only=args.scoring_only,
                             input_table=reading.record())
        print(f"wrote            {written} "
              f"({'scoring-only model' if args.scoring_only else 'full model'})")
    if args.save_session is not None:
        args.save_session.parent.mkdir(parents=True, exist_ok=True)
        print(f"wrote            {_save_session(args, model, dataset, elapsed, clusters)}")
    if args.out is not None:
        written = write_results(model, args.out, column_names, row_ids, labels=labels,
                                provenance=provenance, clusters=clusters,
                                inputs=[*_fit_inputs(args),
                                        ("the model file", args.save_model),
                                        ("the session file", args.save_session)],
                                overwrite=args.overwrite, chosen=_companions(args),
                                **summary_extra)
        print(f"wrote            {', '.join(str(p) for p in written)}")
        _print_states(provenance, clusters, str(summary_extra.get("input", "the data")))
    return EXIT_OK


def _print_states(provenance: dict[str, np.ndarray] | None, clusters: ModeClustering,
                  where: str) -> None:
    """Which state file is which run (and any frames missing from a run), for Markov-model
    tools; why there are none for rows with frames that are not one per frame."""
    try:
        states = state_trajectories(provenance, clusters.labels, where=where)
    except ValueError as problem:
        print(f"warning: no state arrays: {problem}", file=sys.stderr)
        return
    if states is None:
        return
    print(f"{'state arrays':<17} {states.describe()}")
    if any(states.gaps):
        print("warning: frames are missing from the fitted rows of a run (gaps above); a "
              "Markov model counts transitions across them: split the state arrays there",
              file=sys.stderr)
