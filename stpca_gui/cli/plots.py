"""``stpca plot``: every figure of the app from a saved session, for scripted pipelines.

The figures are drawn by the same Qt-free builders as the app's views (matplotlib with
Agg; the torus with pyvista off screen), coloured and selected as the session was saved,
and written atomically, never over the session.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .arguments import bounded_number
from .common import EXIT_OK, check_output_file

#: The figures, as the app names its views.
KINDS = ("scores", "free-energy", "histogram", "time", "variance", "torus")
#: File suffixes a figure can be written as.
SUFFIXES = (".png", ".svg", ".pdf")


def _size(text: str) -> tuple[float, float]:
    try:
        width, height = (float(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must be WIDTHxHEIGHT in inches, e.g. 6x4.5; "
                                         f"got {text!r}") from None
    if not (1 <= width <= 40 and 1 <= height <= 40):
        raise argparse.ArgumentTypeError("width and height must lie in 1..40 inches")
    return width, height


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``plot`` to the ``stpca`` parser."""
    from ..model.app_state import COLOR_MODES
    from ..model.energy_units import AUTOMATIC_BINS, BINS_RANGE, ENERGY_UNITS, TEMPERATURE_RANGE

    plot = commands.add_parser(
        "plot", help="draw a figure of the app from a saved session",
        description="Draw one figure of the app from a session (stpca-gui's .stpca file) "
                    "with the app's own figure builders: scores (the scatter), free-energy "
                    "(−kT ln p over two components), histogram (PNS1), time (a component "
                    "against time, a line per trajectory), variance, torus (rendered off "
                    "screen). Colours, components and selection are the session's unless "
                    "given. PNG, SVG or PDF by the suffix of --out.")
    plot.add_argument("session", type=Path, help="a session file saved by stpca-gui")
    plot.add_argument("kind", choices=KINDS, help="the figure")
    plot.add_argument("--out", type=Path, required=True,
                      help="the file to write: .png, .svg or .pdf")
    plot.add_argument("--components", type=int, nargs=2, metavar=("I", "J"),
                      help="the components of scores and free-energy (1-based; default: "
                           "the session's); time uses I")
    plot.add_argument("--color", choices=tuple(COLOR_MODES),
                      help="colour by (default: the session's colour mode)")
    plot.add_argument("--size", type=_size, default=(6.0, 4.5), metavar="WxH",
                      help="figure size in inches (default 6x4.5)")
    plot.add_argument("--dpi", type=int, default=150, help="resolution (default 150)")
    plot.add_argument("--unit", choices=ENERGY_UNITS, default="kT",
                      help="free-energy unit (default kT)")
    plot.add_argument("--temperature", type=bounded_number(TEMPERATURE_RANGE), default=300.0,
                      help=f"temperature in K of kJ/mol and kcal/mol, "
                           f"{TEMPERATURE_RANGE.describe()} (default 300)")
    plot.add_argument("--bins", type=bounded_number(BINS_RANGE), default=None,
                      help=f"free-energy bins per axis, {BINS_RANGE.describe()} (default: "
                           f"{AUTOMATIC_BINS})")
    plot.add_argument("--weights", metavar="COLUMN",
                      help="free-energy: per-frame weights from this column of the data "
                           "(e.g. weight)")
    plot.set_defaults(func=run_plot)


def run_plot(args: argparse.Namespace) -> int:
    """``stpca plot``."""
    from ..files.clash import check_outputs
    from ..model import AppState
    from ..model.session_file import apply_session, load_session

    out = Path(args.out)
    if out.suffix.lower() not in SUFFIXES:
        raise ValueError(f"{out}: write a figure as {', '.join(SUFFIXES)} (by the suffix)")
    if not 20 <= args.dpi <= 1200:
        raise ValueError(f"--dpi must lie in 20..1200, got {args.dpi}")
    check_outputs([("the figure", out)], [("the session", args.session)])
    check_output_file(out)
    session = load_session(args.session)
    if session.result is None:
        raise ValueError(f"{args.session}: the session has no fit to draw; fit it first")
    state = AppState()
    apply_session(session, state)
    if args.color is not None:
        state.set_color_mode(args.color)
    if args.components is not None:
        d = session.dataset.n_angles
        i, j = args.components
        if not (1 <= i <= d and 1 <= j <= d):
            raise ValueError(f"--components: each must lie in 1..{d}, got {i} {j}")
        if args.kind != "time":
            state.set_scatter_components(i - 1, j - 1)
    if args.kind == "torus":
        _write_torus(state, out, args)
    else:
        _write_figure(state, out, args)
    print(f"wrote {out}")
    return EXIT_OK


def _write_figure(state, out: Path, args: argparse.Namespace) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..files.atomic import atomic_path
    from ..model.frame_weights import frame_weights
    from ..plotting.free_energy import FreeEnergyLandscape
    from ..plotting.histogram import ScoreHistogram
    from ..plotting.scores import ScoresScatter
    from ..plotting.state_colors import current_colors, current_groups
    from ..plotting.time_series import scores_over_time, time_axis
    from ..plotting.variance import draw_variance

    result, dataset = state.result, state.dataset
    colors, selected = current_colors(state)
    i, j = state.scatter_components
    figure = Figure(figsize=args.size, layout="constrained")
    FigureCanvasAgg(figure)
    if args.kind == "scores":
        ScoresScatter(figure).draw(result.scores, i, j, colors=colors, selected=selected,
                                   period=result.pns1_period)
    elif args.kind == "free-energy":
        weights = None if args.weights is None else frame_weights(dataset, args.weights)
        FreeEnergyLandscape(figure).draw(
            result.scores, i, j, colors=colors, selected=selected, weights=weights,
            weights_name=args.weights, period=result.pns1_period, bins=args.bins,
            unit=args.unit, temperature=args.temperature)
    elif args.kind == "histogram":
        codes, names = current_groups(state)
        clusters = result.mode_clusters
        histogram = ScoreHistogram(figure)
        histogram.draw(result.pns1, result.pns1_period, group_codes=codes,
                       selected=state.selection.mask(), group_names=names,
                       bandwidth=clusters.bandwidth)
        histogram.show_mode_clusters(clusters)
    elif args.kind == "time":
        component = 0 if args.components is None else args.components[0] - 1
        scores_over_time(figure.add_subplot(), result.scores, component,
                         time_axis(dataset.n_samples, dataset.provenance), colors=colors,
                         selected=selected, period=result.pns1_period)
    else:
        draw_variance(figure, result.sphere_ratio, result.torus_ratio)
    with atomic_path(out) as tmp:
        figure.savefig(tmp, dpi=args.dpi, format=out.suffix.lstrip(".").lower())


def _write_torus(state, out: Path, args: argparse.Namespace) -> None:
    from ..plotting.figures import can_render_off_screen

    if not can_render_off_screen():
        raise OSError("the torus needs OpenGL to render off screen (a display, EGL or "
                      "OSMesa); none works here")
    import pyvista as pv

    from ..plotting.export3d import save_plotter_image
    from ..plotting.state_colors import current_colors
    from ..plotting.torus_scene import TorusScene

    dataset, result = state.dataset, state.result
    colors, selected = current_colors(state)
    size = (int(args.size[0] * args.dpi), int(args.size[1] * args.dpi))
    plotter = pv.Plotter(off_screen=True, window_size=size)
    try:
        plotter.set_background("white")
        TorusScene(plotter).draw(dataset.angles, curve=result.curve, colors=colors,
                                 selected=selected, axes=tuple(state.torus_axes),
                                 column_names=dataset.column_names,
                                 layout="square" if dataset.n_angles == 2 else "cube")
        save_plotter_image(plotter, out)
    finally:
        plotter.close()
