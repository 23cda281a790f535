"""The guided tour's 2-D figures and its rendered equations (Qt-free).

One figure per step of :mod:`stpca_gui.model.tour`, drawn into a matplotlib figure it is
given: Euclidean PCA of the raw angles next to ST-PCA's scores, naive versus torus distance,
stress per SMDS iteration, stress versus radius (with r̂ of eq. smds3 and r* of eq. wasser),
the spread of the scores at each nested sphere (eq. PNS), the principal curve's angles
against PNS1 (eq. invmds2) and the explained variance (eq. totalvar, §3.5).
:func:`equation_png` renders a paper equation with matplotlib's mathtext.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable

import numpy as np
from matplotlib.figure import Figure, SubFigure
from numpy.typing import NDArray

from ..model.tour import (
    PaperEquation,
    TourData,
    TourStep,
    euclidean_pca_scores,
    naive_and_torus_distances,
    sphere_name,
)
from .colors import CURVE_COLOR, NEUTRAL, cyclic_colors, group_palette, label_colors
from .mpl_common import TICK_SIZE, style_axes
from .variance import SPHERE_COLOR, TORUS_COLOR

__all__ = ["FIGURE_KINDS", "FrameMarker", "draw_tour_figure", "equation_png", "step_colors"]

#: Colour of r̂ and of the current point, and of r*.
ESTIMATE_COLOR = "#0072B2"
START_COLOR = "#009E73"
#: Pairs drawn in the distance plot at most.
_MAX_PAIRS_DRAWN = 6000
#: Angles of the principal curve shown at most (one axes each).
_MAX_CURVE_ANGLES = 3
#: Samples drawn by a scatter at most.
_MAX_POINTS_DRAWN = 20_000
#: Components in the explained variance bars at most.
_MAX_COMPONENTS = 6


def step_colors(step: TourStep, data: TourData) -> NDArray[np.float64]:
    """RGBA per sample as the window colours them during ``step``."""
    result = data.result
    dataset = result.dataset
    if step.color_mode == "selection":
        return group_palette()[data.seam.groups()]
    if step.color_mode == "label" and dataset.has_labels:
        return label_colors(dataset.labels)
    return cyclic_colors(result.pns1, result.pns1_period)


def _drawn_rows(n: int) -> NDArray[np.intp]:
    """The samples a scatter draws: all of them up to :data:`_MAX_POINTS_DRAWN`, else a
    fixed random subset (the figures are small; drawing 10⁶ markers would take seconds)."""
    if n <= _MAX_POINTS_DRAWN:
        return np.arange(n)
    return np.sort(np.random.default_rng(0).choice(n, _MAX_POINTS_DRAWN, replace=False))


def _highlighted_last(groups: NDArray[np.int8]) -> NDArray[np.intp]:
    """The drawn samples, unselected first, so that highlighted points are on top."""
    rows = _drawn_rows(groups.size)
    return rows[np.argsort(groups[rows] != 0, kind="stable")]


def _scatter(ax, xy: NDArray[np.float64], colors: NDArray[np.float64],
             order: NDArray[np.intp], size: float) -> None:
    x = xy[:, 0]
    y = xy[:, 1] if xy.shape[1] > 1 else np.zeros_like(x)
    ax.scatter(x[order], y[order], c=colors[order], s=size, linewidths=0)


def _marker_size(n: int) -> float:
    return float(np.clip(900.0 / math.sqrt(max(n, 1)), 2.0, 30.0))


def draw_pca(figure: Figure | SubFigure, step: TourStep, data: TourData) -> None:
    """Euclidean PCA of the raw angles (left) next to ST-PCA's PNS scores (right)."""
    result = data.result
    angles = result.dataset.angles
    colors = step_colors(step, data)
    order = _highlighted_last(data.seam.groups())
    size = _marker_size(order.size)
    pca, ratio = euclidean_pca_scores(angles)
    left, right = figure.subplots(1, 2)
    _scatter(left, pca, colors, order, size)
    left.set_title(f"Euclidean PCA ({100 * ratio[0]:.0f} % on PC1)")
    left.set_xlabel("PC1")
    left.set_ylabel("PC2")
    _scatter(right, result.scores[:, :2], colors, order, size)
    right.set_title(f"ST-PCA ({100 * result.sphere_ratio[0]:.0f} % on PNS1)")
    right.set_xlabel("PNS1 (rad)")
    right.set_ylabel("PNS2 (rad)")
    for ax in (left, right):
        style_axes(ax)
        ax.title.set_size(TICK_SIZE + 1)


def draw_distances(figure: Figure | SubFigure, step: TourStep, data: TourData) -> None:
    """Naive Euclidean distance of the raw angles against the torus distance, per pair."""
    naive, torus, first, second = naive_and_torus_distances(data.result.dataset.angles)
    seam = data.seam
    across = ((seam.plus[first] & seam.minus[second]) | (seam.minus[first] & seam.plus[second]))
    shown = np.arange(naive.size)
    if naive.size > _MAX_PAIRS_DRAWN:
        shown = np.random.default_rng(1).choice(naive.size, _MAX_PAIRS_DRAWN, replace=False)
        shown = np.union1d(shown, np.flatnonzero(across)[:_MAX_PAIRS_DRAWN // 4])
    ax = figure.subplots()
    style_axes(ax)
    plain = shown[~across[shown]]
    ax.scatter(naive[plain], torus[plain], s=4, color=NEUTRAL, alpha=0.35, linewidths=0,
               label="pairs of samples")
    seam_pairs = shown[across[shown]]
    if seam_pairs.size:
        ax.scatter(naive[seam_pairs], torus[seam_pairs], s=8, color=group_palette()[1],
                   linewidths=0, label="pairs across the seam")
    top = max(float(naive.max()), float(torus.max())) * 1.03
    ax.plot([0, top], [0, top], color=CURVE_COLOR, linestyle="--", linewidth=1,
            label="equal distances")
    d = data.result.dataset.n_angles
    ax.axhline(math.sqrt(d) * math.pi, color=START_COLOR, linewidth=1)
    ax.text(0.02 * top, math.sqrt(d) * math.pi, f"largest torus distance √{d}·π",
            va="bottom", fontsize=TICK_SIZE - 1, color=START_COLOR)
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("naive distance of the raw angles (rad)")
    ax.set_ylabel("torus distance (rad)")
    # Above the diagonal only the line of the largest distance: room for the legend.
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, 0.8), fontsize=TICK_SIZE - 1,
              frameon=False, markerscale=2)


class FrameMarker:
    """The marker of the shown SMDS frame on the stress curve, movable without a redraw of
    the rest (for the replay)."""

    def __init__(self, ax) -> None:
        (self.point,) = ax.plot([], [], "o", color=CURVE_COLOR, markersize=8)
        self.label = ax.annotate("", (0.0, 0.0), textcoords="offset points", xytext=(10, 10),
                                 fontsize=TICK_SIZE)

    def move(self, iteration: float, stress: float) -> None:
        """Put the marker at ``(iteration, stress)``."""
        self.point.set_data([iteration], [stress])
        self.label.xy = (iteration, stress)
        self.label.set_text(f"iteration {int(iteration)}\nstress {stress:.4f}")


def draw_stress_trace(figure: Figure | SubFigure, data: TourData,
                      frame: int | None = None) -> FrameMarker:
    """Stress per SMDS iteration, with the shown frame marked; returns the marker."""
    ax = figure.subplots()
    style_axes(ax)
    iterations, stress = data.trace[:, 0], data.trace[:, 1]
    ax.plot(iterations, stress, color=ESTIMATE_COLOR, linewidth=2)
    if stress.size and stress.max() > 3 * stress.min() > 0:
        ax.set_yscale("log")
    marker = FrameMarker(ax)
    if frame is not None and data.frames:
        marker.move(data.frames[frame].iteration, data.frames[frame].stress)
    ax.set_xlabel("optimiser iteration")
    ax.set_ylabel("stress (eq. 4)")
    ax.set_title("Spherical MDS converging")
    return marker


def draw_stress_vs_radius(figure: Figure | SubFigure, data: TourData,
                          radius: float | None = None) -> None:
    """Stress of SMDS refitted at fixed radii, with r̂, r* and the chosen radius marked."""
    ax = figure.subplots()
    style_axes(ax)
    radii, stress = data.radius_curve()
    ax.plot(radii, stress, "o-", color=NEUTRAL, markersize=4, linewidth=1.5)
    if stress.size and stress.max() > 10 * stress.min() > 0:
        ax.set_yscale("log")
    r_hat = data.result.radius
    ax.axvline(r_hat, color=ESTIMATE_COLOR, linewidth=1.5,
               label=rf"$\hat{{r}}$ = {r_hat:.2f} (fit)")
    ax.axvline(data.r_star, color=START_COLOR, linewidth=1.5, linestyle="--",
               label=f"r* = {data.r_star:.2f} (eq. 7)")
    if radius is not None:
        point = data.nearest_radius_point(radius)
        ax.plot([point.radius], [point.stress], "o", color=CURVE_COLOR, markersize=9,
                label=f"r = {point.radius:.2f}: stress {point.stress:.4f}")
    ax.set_xlabel("sphere radius r")
    ax.set_ylabel("stress at fixed r (eq. 5)")
    ax.legend(loc="upper right", fontsize=TICK_SIZE - 1, frameon=False)
    if data.radius_subsampled:
        ax.set_title(f"refits on {len(data.radius_rows)} of {data.result.dataset.n_samples:,}"
                     " samples", fontsize=TICK_SIZE)


def draw_pns_levels(figure: Figure | SubFigure, step: TourStep, data: TourData) -> None:
    """The scores at each level of the nested spheres: distance from each subsphere, then
    the position along S¹ (PNS1), on one scale."""
    result = data.result
    scores = result.scores
    d = scores.shape[1]
    colors = step_colors(step, data)
    ax = figure.subplots()
    style_axes(ax)
    rng = np.random.default_rng(0)
    n = scores.shape[0]
    shown = _drawn_rows(n)
    pns = result.model.pns_
    types = list(pns.sphere_types_)
    labels = []
    for row, k in enumerate(range(d - 1, -1, -1)):
        jitter = rng.uniform(-0.28, 0.28, shown.size)
        ax.scatter(scores[shown, k], row + jitter, c=colors[shown], s=5, linewidths=0)
        spread = math.sqrt(float(np.mean(scores[:, k] ** 2)))
        if k == 0:
            labels.append(f"PNS1: along S¹\nrms {spread:.2f}")
        else:
            level = d - k  # the level fitted k-th from the top: S^{k} inside S^{k+1}
            kind = types[level - 1] if level - 1 < len(types) else ""
            labels.append(f"PNS{k + 1}: off {sphere_name(k)}" + (f" ({kind})" if kind else "")
                          + f"\nrms {spread:.2f}")
    ax.set_yticks(range(d))
    ax.set_yticklabels(labels, fontsize=TICK_SIZE - 1)
    ax.set_ylim(-0.6, d - 0.4)
    ax.axvline(0.0, color=CURVE_COLOR, linewidth=0.8)
    ax.set_xlabel("score (rad along the sphere)")
    ax.set_title(f"From {sphere_name(d)} down to S¹: the spread at each level",
                 fontsize=TICK_SIZE + 1)


def _wrapped_segments(x: NDArray[np.float64], y: NDArray[np.float64],
                      breaks: NDArray[np.bool_]) -> list[tuple[NDArray, NDArray]]:
    """Pieces of the closed curve (x, y) that do not jump across ±π or over a break."""
    x = np.append(x, x[0] + (x[1] - x[0]) * len(x) if len(x) > 1 else x[0])
    y = np.append(y, y[0])
    cut = np.flatnonzero((np.abs(np.diff(y)) > math.pi) | breaks[: len(y) - 1])
    starts = np.concatenate([[0], cut + 1])
    ends = np.concatenate([cut + 1, [len(y)]])
    return [(x[a:b], y[a:b]) for a, b in zip(starts, ends, strict=True) if b - a > 1]


def draw_curve_angles(figure: Figure | SubFigure, step: TourStep, data: TourData,
                      axes: tuple[int, ...] = (0, 1, 2)) -> None:
    """Each angle of the principal curve against PNS1, over the samples."""
    result = data.result
    dataset = result.dataset
    curve = result.curve
    colors = step_colors(step, data)
    shown = [a for a in axes if a < dataset.n_angles][:_MAX_CURVE_ANGLES]
    panels = figure.subplots(len(shown), 1, sharex=True, squeeze=False)[:, 0]
    order = np.argsort(curve.parameter)
    rows = _drawn_rows(dataset.n_samples)
    size = _marker_size(rows.size) * 0.6
    for ax, column in zip(panels, shown, strict=True):
        style_axes(ax)
        ax.scatter(result.pns1[rows], dataset.angles[rows, column], c=colors[rows], s=size,
                   linewidths=0)
        for xs, ys in _wrapped_segments(curve.parameter[order], curve.angles[order, column],
                                        curve.breaks[order]):
            ax.plot(xs, ys, color=CURVE_COLOR, linewidth=2.2)
        ax.set_ylim(-math.pi, math.pi)
        ax.set_yticks([-math.pi, 0, math.pi], ["−π", "0", "π"])
        ax.set_ylabel(dataset.column_names[column])
    panels[0].set_title("Principal curve (black) on each angle", fontsize=TICK_SIZE + 1)
    panels[-1].set_xlabel("PNS1 (rad)")
    half = result.pns1_period / 2
    panels[-1].set_xlim(-half, half)


def draw_explained_variance(figure: Figure | SubFigure, data: TourData) -> None:
    """Explained variance per component: ST-PCA on the sphere (eq. totalvar) and on the
    torus (§3.5), next to Euclidean PCA of the raw angles."""
    result = data.result
    pca_ratio = euclidean_pca_scores(result.dataset.angles)[1]
    series = [("ST-PCA, sphere", result.sphere_ratio, SPHERE_COLOR),
              ("ST-PCA, torus", result.torus_ratio, TORUS_COLOR),
              ("Euclidean PCA", pca_ratio, NEUTRAL)]
    series = [(name, np.asarray(ratio, dtype=np.float64)[:_MAX_COMPONENTS], color)
              for name, ratio, color in series if np.any(np.isfinite(ratio))]
    ax = figure.subplots()
    style_axes(ax)
    k = series[0][1].size
    width = 0.8 / len(series)
    for s, (name, ratio, color) in enumerate(series):
        positions = np.arange(k) + (s - (len(series) - 1) / 2) * width
        bars = ax.bar(positions, 100 * ratio, width=width, color=color, label=name, zorder=2)
        ax.bar_label(bars, labels=[f"{100 * v:.0f}" for v in ratio], fontsize=TICK_SIZE - 2,
                     padding=1)
    ax.set_xticks(np.arange(k), [f"{q + 1}" for q in range(k)])
    ax.set_xlabel("component (PNS k for ST-PCA, PC k for PCA)")
    ax.set_ylabel("explained variance (%)")
    ax.set_ylim(0, 112)
    ax.legend(loc="upper right", fontsize=TICK_SIZE - 1, frameon=False)


#: The figure of each step kind: ``draw(figure, step, data, **options)``.
FIGURE_KINDS: dict[str, Callable[..., None]] = {
    "pca": lambda figure, step, data, **_: draw_pca(figure, step, data),
    "distances": lambda figure, step, data, **_: draw_distances(figure, step, data),
    "smds": lambda figure, step, data, frame=None, **_: draw_stress_trace(figure, data,
                                                                           frame),
    "radius": lambda figure, step, data, radius=None, **_: draw_stress_vs_radius(
        figure, data, radius),
    "pns": lambda figure, step, data, **_: draw_pns_levels(figure, step, data),
    "curve": lambda figure, step, data, axes=(0, 1, 2), **_: draw_curve_angles(
        figure, step, data, axes),
    "variance": lambda figure, step, data, **_: draw_explained_variance(figure, data),
}


def draw_tour_figure(figure: Figure, step: TourStep, data: TourData, **options: object
                     ) -> object:
    """Clear ``figure`` and draw the figure of ``step``.

    ``options``: ``frame`` (index into ``data.frames``, for "smds"), ``radius`` (the chosen
    radius, for "radius") and ``axes`` (angles shown, for "curve"); others are ignored.
    Returns what the step's builder returns (the :class:`FrameMarker` for "smds").
    """
    figure.clear()
    return FIGURE_KINDS[step.figure](figure, step, data, **options)


def equation_png(equation: PaperEquation, *, fontsize: float = 12.0, dpi: int = 110,
                 color: str = "black") -> bytes:
    """The equation's mathtext lines rendered to a PNG (transparent background)."""
    lines = equation.mathtext
    height = 0.42 * len(lines) * fontsize / 12.0
    figure = Figure(figsize=(9.0, height))
    for k, line in enumerate(lines):
        figure.text(0.0, 1.0 - (k + 0.5) / len(lines), line, fontsize=fontsize,
                    va="center", ha="left", color=color)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", pad_inches=0.04,
                   transparent=True)
    return buffer.getvalue()
