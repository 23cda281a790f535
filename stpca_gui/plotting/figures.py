"""The app's five views of a fitted model as image files, drawn without a window.

The same builders draw them as in the app (scores scatter, PNS1 histogram with its KDE
and mode antimodes, explained variance, torus and sphere scenes), coloured as the app
colours a fresh result: by label when the data have labels, else by PNS1. Used by the
scripts that *File → Export as Python Script* writes.

The matplotlib figures need no display (Agg). The 3-D scenes need OpenGL: pyvista renders
them off-screen with a display, or with VTK's EGL or OSMesa back end;
:func:`can_render_off_screen` says whether that works here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ..core.circstats.mode_clustering import ModeRule
from ..core.circstats.mode_test import DEFAULT_NULL, NullName
from ..core.circstats.silverman import DEFAULT_ALPHA
from ..core.clusters import model_mode_clusters
from ..files.atomic import atomic_path
from ..model.dataset import encode_labels
from ..model.moving_angles import moving_axes
from .colors import PointColoring

__all__ = ["PLOT_FIGURES", "SCENE_FIGURES", "can_render_off_screen", "write_plot_figures",
           "write_scene_figures"]

#: Files of :func:`write_plot_figures` and :func:`write_scene_figures` (the app's export
#: names of the views).
PLOT_FIGURES = ("scores.png", "pns1_histogram.png", "variance.png")
SCENE_FIGURES = ("torus.png", "sphere.png")
FIGURE_SIZE = (6.0, 4.5)
SCENE_SIZE = (900, 700)


def _coloring(model: Any, labels: ArrayLike | None) -> PointColoring:
    """The app's default colouring of a result: labels when there are some, else PNS1."""
    pns1 = model.scores_[:, 0]
    period = 2.0 * np.pi * float(model.pns_.circle_radius_)
    if labels is not None:
        return PointColoring("label", n=len(pns1), labels=labels)
    return PointColoring("pns1", n=len(pns1), pns1=pns1, pns1_period=period)


def _save(figure: Figure, path: Path, dpi: int) -> Path:
    FigureCanvasAgg(figure)
    with atomic_path(path) as tmp:
        figure.savefig(tmp, dpi=dpi, format="png")
    return path


def write_plot_figures(model: Any, folder: str | Path, *, labels: ArrayLike | None = None,
                       dpi: int = 150, cluster_rule: ModeRule = "tested",
                       alpha: float = DEFAULT_ALPHA, null: NullName = DEFAULT_NULL
                       ) -> list[Path]:
    """Write scores.png, pns1_histogram.png and variance.png (matplotlib, Agg).

    Parameters
    ----------
    model : ScaledTorusPCA
        A fitted model.
    folder : str or path-like
        Created if needed.
    labels : array_like of str, shape (n,), optional
        A label per sample: colours and the histogram's stacked groups.
    dpi : int, default 150
    cluster_rule : {"tested", "paper"}, default "tested"
        Whose antimodes the histogram draws (:func:`~stpca_gui.core.clusters.
        model_mode_clusters`); with the tested rule the paper's are added, dotted.
    alpha : float, default 0.05
        Level of the tested rule.
    null : {"critical_kde", "mixture"}, default "critical_kde"
        What its mode test resamples
        (:func:`~stpca_gui.core.circstats.mode_test.mode_test`).

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    from .histogram import ScoreHistogram
    from .scores import ScoresScatter
    from .variance import draw_variance

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    scores = model.scores_
    pns1 = scores[:, 0]
    period = 2.0 * np.pi * float(model.pns_.circle_radius_)
    colors = _coloring(model, labels).colors(None)
    written = []

    figure = Figure(figsize=FIGURE_SIZE, layout="constrained")
    ScoresScatter(figure).draw(scores, 0, min(1, scores.shape[1] - 1), colors=colors)
    written.append(_save(figure, out / PLOT_FIGURES[0], dpi))

    figure = Figure(figsize=FIGURE_SIZE, layout="constrained")
    paper = model_mode_clusters(model, method="paper")
    if cluster_rule == "paper":
        clusters, paper = paper, None  # the paper rule's antimodes are drawn once
    else:  # the tested rule starts from the paper rule's clusters, drawn beside it
        clusters = model_mode_clusters(model, method=cluster_rule, alpha=alpha, null=null,
                                       stability=False, paper=paper)
    codes, names = (None, None) if labels is None else encode_labels(labels)
    histogram = ScoreHistogram(figure, shows_selection=False)
    histogram.draw(pns1, period, group_codes=codes, group_names=names,
                   bandwidth=clusters.bandwidth)
    histogram.show_mode_clusters(clusters, paper=paper)
    written.append(_save(figure, out / PLOT_FIGURES[1], dpi))

    figure = Figure(figsize=FIGURE_SIZE, layout="constrained")
    draw_variance(figure, model.explained_variance_ratio_,
                  model.torus_explained_variance_ratio_,
                  torus_remaining=getattr(model, "torus_remaining_variance_ratio_", None))
    written.append(_save(figure, out / PLOT_FIGURES[2], dpi))
    return written


def can_render_off_screen() -> bool:
    """Whether pyvista can render a scene off-screen here (a display, EGL or OSMesa)."""
    try:
        import pyvista as pv
        from vtkmodules.vtkCommonCore import vtkObject

        # Without a display VTK warns "bad X server connection" before it falls back to
        # EGL: expected while probing, so not shown to the user.
        warnings_shown = vtkObject.GetGlobalWarningDisplay()
        vtkObject.GlobalWarningDisplayOff()
        try:
            plotter = pv.Plotter(off_screen=True, window_size=(32, 32))
            plotter.add_mesh(pv.Sphere())
            image = plotter.screenshot(return_img=True)
            plotter.close()
        finally:
            vtkObject.SetGlobalWarningDisplay(warnings_shown)
    except Exception:  # any failure of VTK's OpenGL set-up means "no"
        return False
    return image is not None and image.size > 0 and int(image.max()) > int(image.min())


def write_scene_figures(model: Any, angles: ArrayLike, folder: str | Path, *,
                        column_names: Sequence[str], labels: ArrayLike | None = None
                        ) -> list[Path]:
    """Write torus.png (the data and the principal curve) and sphere.png (pyvista).

    Parameters
    ----------
    model : ScaledTorusPCA
        A fitted model.
    angles : array_like, shape (n, d)
        The angles it was fitted on.
    folder : str or path-like
        Created if needed.
    column_names : sequence of str
        Axis titles of the torus.
    labels : array_like of str, shape (n,), optional
        A label per sample, for the colours.

    Returns
    -------
    list of pathlib.Path
        The files written.

    The torus shows the app's default angles: the three the principal curve moves most
    when d > 3 (:func:`~stpca_gui.model.moving_angles.moving_axes`).

    Notes
    -----
    Check :func:`can_render_off_screen` first: without OpenGL, VTK fails in its own ways.
    """
    import pyvista as pv

    from .export3d import save_plotter_image
    from .sphere_scene import SphereScene, sphere_view_data
    from .torus_scene import TorusScene

    out = Path(folder)
    colors = _coloring(model, labels).colors(None)
    d = np.shape(angles)[1]
    written = []
    for name in SCENE_FIGURES:
        plotter = pv.Plotter(off_screen=True, window_size=SCENE_SIZE)
        try:
            plotter.set_background("white")
            if name == "torus.png":
                TorusScene(plotter).draw(angles, curve=model.principal_curve_, colors=colors,
                                         axes=moving_axes(angles, model.principal_curve_),
                                         column_names=column_names,
                                         layout="square" if d == 2 else "cube")
            else:
                points, circle, mean = sphere_view_data(model)
                SphereScene(plotter).draw(points, circle3=circle, mean3=mean, colors=colors)
            written.append(save_plotter_image(plotter, out / name))
        finally:
            plotter.close()
    return written
