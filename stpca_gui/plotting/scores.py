"""Scatter plot of two PNS scores (the paper's scores plot), drawn into a given Figure.

Every sample is one point of a single collection; the selected samples are repeated in a
second, small collection drawn on top with larger markers, so a new colouring or a new
selection only replaces two colour arrays and one offsets array (no axes are rebuilt), and
only the two collections are redrawn (:mod:`.partial_redraw`), each colour with one stamped
marker (:mod:`.marker_collection`).

The principal circle is the set PNS2 = … = PNSd = 0, so in the PNS1–PNS2 plot it is the
horizontal line PNS2 = 0 (the black curve of the paper's scores plots).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.transforms import blended_transform_factory
from numpy.typing import ArrayLike, NDArray

from .colors import CURVE_COLOR, PALETTE
from .density_image import DensityGrid
from .marker_collection import ColorGroupedCollection, grouped_scatter
from .mpl_common import FigurePlot, as_mask, as_rgba, fresh_axes, pns_label
from .partial_redraw import PartialRedraw
from .regions import points_in_polygon, points_in_rectangle

#: Samples above which the points are rasterised in vector exports (SVG/PDF).
RASTERIZE_ABOVE = 5000
#: Samples above which the scatter is a density image (:mod:`.density_image`) instead of a
#: marker per sample; the selection is then an image of its own on top, with markers as
#: well up to ``OUTLINE_UP_TO`` selected samples, over a white veil that fades the rest.
DENSITY_ABOVE = 100_000
#: Opacity of the veil over the density image of all samples while a selection exists.
VEIL_ALPHA = 0.7
#: Colour of the outline of selected points.
SELECTED_EDGE = "#000000"
#: Selected points are outlined only up to this many (more outlines merge into a blot).
OUTLINE_UP_TO = 2000
#: z-orders: the principal-circle line, the points, the selected points on top. A new
#: colouring or selection redraws only what lies above ``_STATIC_BELOW``.
_CIRCLE_Z, _POINTS_Z, _SELECTED_Z = 1.5, 2.0, 3.0
_STATIC_BELOW = 1.9
#: z-orders of the density mode: the image of all samples is static; the veil and the
#: selection's image are redrawn with the selection markers.
_DENSITY_Z, _VEIL_Z, _SELECTION_IMAGE_Z = 1.0, 2.5, 2.9


def marker_size(n: int) -> float:
    """Marker area (points²) for n samples: big for small samples, ≥ 1 for huge ones."""
    return float(np.clip(300.0 / np.sqrt(max(n, 1)), 1.0, 25.0))


def selected_marker_size(n_selected: int, base: float) -> float:
    """Marker area of selected points: larger than ``base``, larger still for few points."""
    return float(max(2.5 * marker_size(n_selected), 2.0 * base, 4.0))


class ScoresScatter(FigurePlot):
    """PNS_i versus PNS_j scatter plot with a fast colour/selection update, in a given
    figure (:class:`~stpca_gui.plotting.mpl_common.FigurePlot`)."""

    def __init__(self, figure: Figure) -> None:
        super().__init__(figure)
        self._points: ColorGroupedCollection | None = None
        self._overlay: ColorGroupedCollection | None = None
        self._circle_line: Line2D | None = None
        self._xy = np.empty((0, 2))
        self._one_d = False
        self._size = marker_size(0)
        self._grid: DensityGrid | None = None
        self._base_image: AxesImage | None = None
        self._selection_image: AxesImage | None = None
        self._veil: Rectangle | None = None
        self._selection_counts = np.zeros((0, 0), dtype=np.int64)
        self._everyone: ArrayLike | None = None
        self._everyone_sums: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None

    # ------------------------------------------------------------------ access
    @property
    def points(self) -> ColorGroupedCollection | None:
        """The collection of all n points (None before :meth:`draw` and in density mode)."""
        return self._points

    @property
    def density(self) -> bool:
        """Whether the last :meth:`draw` showed a density image (more than
        :data:`DENSITY_ABOVE` samples) instead of a marker per sample."""
        return self._grid is not None

    @property
    def base_image(self) -> AxesImage | None:
        """Density mode: the image of all samples."""
        return self._base_image

    @property
    def selection_image(self) -> AxesImage | None:
        """Density mode: the image of the selected samples."""
        return self._selection_image

    @property
    def n_highlighted(self) -> int:
        """How many samples are shown as selected (markers, or cells of the selection
        image)."""
        if self._grid is not None:
            return int(self._selection_counts.sum())
        return 0 if self._overlay is None else len(self._overlay.get_offsets())

    @property
    def overlay(self) -> ColorGroupedCollection | None:
        """The collection of the selected points, drawn on top (None before :meth:`draw`)."""
        return self._overlay

    @property
    def positions(self) -> NDArray[np.float64]:
        """Data coordinates (n, 2) of the points (y = 0 for a single score)."""
        return self._xy

    @property
    def one_dimensional(self) -> bool:
        """Whether the last :meth:`draw` showed a single score as a 1-D strip."""
        return self._one_d

    # ----------------------------------------------------------------- drawing
    def draw(
        self,
        scores: ArrayLike,
        i: int = 0,
        j: int = 1,
        colors: ArrayLike | None = None,
        selected: ArrayLike | None = None,
        title: str | None = None,
        period: float | None = None,
        axis_names: tuple[str, str] | None = None,
    ) -> None:
        """Draw PNS_(i+1) against PNS_(j+1).

        Parameters
        ----------
        scores : array_like, shape (n, d) or (n,)
            PNS scores (column 0 = PNS1). With d = 1 the single score is drawn as a 1-D
            strip (y = 0, y axis hidden) and ``j`` is ignored.
        i, j : int
            0-based component indices of the x and y axes (must differ).
        colors : array_like, shape (n, 4), optional
            RGBA per sample (e.g. :func:`~stpca_gui.plotting.colors.point_colors`).
        selected : array_like of bool (n,) or of group numbers, optional
            Samples drawn larger, outlined and on top.
        title : str, optional
        period : float, optional
            Period of PNS1 (``2π·circle_radius_``): when the x axis is PNS1 it then spans
            exactly one period, [−period/2, period/2].
        axis_names : (str, str), optional
            Axis labels for scores of another method (e.g. ``("PC1", "PC2")``); the
            principal-circle line, which only PNS scores have, is then not drawn.
        """
        values = np.asarray(scores, dtype=np.float64)
        if values.ndim == 1:
            values = values[:, None]
        if values.ndim != 2 or values.shape[1] < 1:
            raise ValueError(f"scores must have shape (n, d), got {values.shape}")
        n, d = values.shape
        i = int(i)
        j = int(j)
        if not 0 <= i < d:
            raise ValueError(f"component index i={i} out of range for d={d}")
        self._one_d = d == 1
        if not self._one_d:
            if not 0 <= j < d:
                raise ValueError(f"component index j={j} out of range for d={d}")
            if i == j:
                raise ValueError("i and j must be different components")
        x = values[:, i]
        y = np.zeros(n) if self._one_d else values[:, j]
        self._xy = np.ascontiguousarray(np.column_stack([x, y]))
        mask = as_mask(selected, n)
        self._size = marker_size(n)

        ax = fresh_axes(self.figure)
        self._ax = ax
        self._circle_line = None
        self._grid = self._base_image = self._selection_image = self._veil = None
        if axis_names is None and (self._one_d or (i, j) == (0, 1)):
            self.draw_principal_circle_axis()
        if n > DENSITY_ABOVE:
            xlim = (-0.5 * period, 0.5 * period) if period is not None and i == 0 else None
            self._draw_density(colors, mask, xlim)
        else:
            rgba = as_rgba(colors, n, PALETTE[4])
            self._points = grouped_scatter(ax, x, y, size=self._size, colors=rgba,
                                           linewidths=0, zorder=_POINTS_Z)
            self._overlay = grouped_scatter(ax, x[mask], y[mask], size=self._size,
                                            colors=rgba[mask], edgecolors=SELECTED_EDGE,
                                            linewidths=0.5, zorder=_SELECTED_Z)
            self._style_overlay(int(mask.sum()))
            if n > RASTERIZE_ABOVE:
                self._points.set_rasterized(True)
                self._overlay.set_rasterized(True)
        self._partial = PartialRedraw(ax, _STATIC_BELOW)

        ax.set_xlabel(pns_label(i) if axis_names is None else axis_names[0])
        if self._one_d:
            ax.set_ylabel("")
            ax.set_ylim(-1.0, 1.0)
            ax.yaxis.set_visible(False)
            ax.spines["left"].set_visible(False)
            ax.grid(False, axis="y")
        else:
            ax.set_ylabel(pns_label(j) if axis_names is None else axis_names[1])
        if period is not None and i == 0:
            half = 0.5 * float(period)
            ax.set_xlim(-half, half)
        if title:
            ax.set_title(title)

    def _draw_density(self, colors: ArrayLike | None, mask: NDArray[np.bool_],
                      xlim: tuple[float, float] | None) -> None:
        """Density mode: images of all samples and of the selection, a veil between them."""
        ax = self._ax
        x, y = self._xy[:, 0], self._xy[:, 1]
        grid = DensityGrid(x, y, xlim or _padded_range(x),
                           (-1.0, 1.0) if self._one_d else _padded_range(y))
        self._grid = grid
        # The image of all samples does not change with the selection: its colours are
        # those of the colouring without the selection (see SampleColors).
        everyone = colors.without_selection() if hasattr(colors, "without_selection") else colors
        self._everyone = everyone
        self._everyone_sums = grid.sums(_colours_at(everyone, None, len(x)))
        image, _ = grid.image_of(*self._everyone_sums, opacity=(0.25, 0.9))
        style = {"extent": grid.extent, "origin": "lower", "interpolation": "nearest",
                 "aspect": "auto"}
        self._base_image = ax.imshow(image, zorder=_DENSITY_Z, **style)
        self._veil = ax.add_patch(Rectangle((0.0, 0.0), 1.0, 1.0, transform=ax.transAxes,
                                            facecolor="white", alpha=VEIL_ALPHA, linewidth=0,
                                            zorder=_VEIL_Z))
        self._selection_image = ax.imshow(np.zeros((grid.height, grid.width, 4)),
                                          zorder=_SELECTION_IMAGE_Z, **style)
        self._points = None
        self._overlay = grouped_scatter(ax, [], [], size=self._size, colors=np.empty((0, 4)),
                                        edgecolors=SELECTED_EDGE, linewidths=0.5,
                                        zorder=_SELECTED_Z)
        ax.set_xlim(grid.extent[:2])
        ax.set_ylim(grid.extent[2:])
        self._show_density_selection(colors, mask)

    def _show_density_selection(self, colors: ArrayLike | None,
                                mask: NDArray[np.bool_]) -> None:
        assert self._grid is not None and self._overlay is not None
        grid = self._grid
        chosen = np.flatnonzero(mask)
        if (2 * chosen.size > mask.size and chosen.size > OUTLINE_UP_TO
                and self._selected_keep_their_colours(colors)):
            # Most samples are selected: their sums are those of everyone minus the others'.
            others = np.flatnonzero(~mask)
            counts, sums = grid.sums(_colours_at(self._everyone, others, len(mask)), others)
            total_counts, total_sums = self._everyone_sums
            rgba = np.empty((0, 4))  # no markers for so many (> OUTLINE_UP_TO)
            image, counts = grid.image_of(total_counts - counts, total_sums - sums,
                                          opacity=(0.75, 1.0))
        else:
            rgba = _colours_at(colors, chosen, len(mask))
            image, counts = grid.image(rgba, chosen, opacity=(0.75, 1.0))
        self._selection_image.set_data(image)
        self._selection_counts = counts
        self._veil.set_visible(chosen.size > 0)
        # A few selected samples would be a few cells of the image: they get markers too.
        shown = chosen.size if chosen.size <= OUTLINE_UP_TO else 0
        self._overlay.set_offsets(self._xy[chosen[:shown]])
        self._overlay.set_facecolor(rgba[:shown])
        self._style_overlay(int(chosen.size))

    def _selected_keep_their_colours(self, colors: ArrayLike | None) -> bool:
        """Whether the selected samples have the colours of the image of all samples (a
        colouring by label or score; not by selection group)."""
        coloring = getattr(colors, "coloring", None)
        return (coloring is not None and not coloring.by_groups
                and getattr(self._everyone, "coloring", None) is coloring)

    def draw_principal_circle_axis(self) -> Line2D:
        """Draw the principal circle, PNS2 = 0: a thin black horizontal line at y = 0.

        Called by :meth:`draw` when the axes are PNS1–PNS2 (or for a single score).

        Returns
        -------
        matplotlib.lines.Line2D
        """
        if self._circle_line is not None:
            return self._circle_line
        ax = self._ax
        self._circle_line = ax.axhline(0.0, color=CURVE_COLOR, linewidth=0.9, zorder=_CIRCLE_Z,
                                       label="principal circle (PNS2 = 0)")
        # Named just outside the right end of the line, where it cannot hide any point.
        transform = blended_transform_factory(ax.transAxes, ax.transData)
        ax.text(1.01, 0.0, "principal\ncircle", transform=transform, ha="left",
                va="center", fontsize=7, color=CURVE_COLOR, clip_on=False,
                linespacing=1.0, zorder=_CIRCLE_Z)
        return self._circle_line

    def update_colors(self, colors: ArrayLike | None, selected: ArrayLike | None = None) -> None:
        """Recolour the points and show a new selection without rebuilding the axes.

        Parameters
        ----------
        colors : array_like, shape (n, 4), optional
            RGBA per sample (None: the default colour).
        selected : array_like of bool (n,) or of group numbers, optional
            Samples drawn larger and on top (None: no selection).
        """
        if self._overlay is None:
            raise RuntimeError("draw the scores before updating their colours")
        n = self._xy.shape[0]
        mask = as_mask(selected, n)
        if self._grid is not None:
            self._show_density_selection(colors, mask)
            return
        rgba = as_rgba(colors, n, PALETTE[4])
        self._points.set_facecolor(rgba)
        self._overlay.set_offsets(self._xy[mask])
        self._overlay.set_facecolor(rgba[mask])
        self._style_overlay(int(mask.sum()))

    def _style_overlay(self, n_selected: int) -> None:
        assert self._overlay is not None
        self._overlay.set_sizes([selected_marker_size(n_selected, self._size)])
        self._overlay.set_linewidths([0.5 if n_selected <= OUTLINE_UP_TO else 0.0])

    # --------------------------------------------------------------- selection
    def points_in_polygon(self, vertices: ArrayLike) -> NDArray[np.bool_]:
        """Samples inside a polygon (e.g. a lasso) given in data coordinates.

        Parameters
        ----------
        vertices : array_like, shape (k, 2)
            Polygon corners; it is closed automatically.

        Returns
        -------
        ndarray of bool, shape (n,)
        """
        return points_in_polygon(self._xy, vertices)

    def points_in_rectangle(self, x0: float, y0: float, x1: float, y1: float) -> NDArray[np.bool_]:
        """Samples inside the axis-aligned rectangle with corners (x0, y0), (x1, y1).

        The corners may come in any order; the boundary counts as inside.

        Returns
        -------
        ndarray of bool, shape (n,)
        """
        return points_in_rectangle(self._xy, x0, y0, x1, y1)


def _padded_range(values: NDArray[np.float64]) -> tuple[float, float]:
    """The range of the values with 2 % room on each side (never empty)."""
    lo, hi = float(np.min(values)), float(np.max(values))
    pad = 0.02 * (hi - lo) if hi > lo else 1.0
    return lo - pad, hi + pad


def _colours_at(colors: ArrayLike | None, index: NDArray[np.intp] | None, n: int
                ) -> NDArray[np.float64]:
    """RGBA of the samples ``index`` (None: all) from per-sample colours, one colour, None
    (the default) or :class:`~stpca_gui.plotting.colors.SampleColors`."""
    if hasattr(colors, "at"):
        return colors.at(index)
    rgba = as_rgba(colors, n, PALETTE[4])
    return rgba if index is None else rgba[index]
