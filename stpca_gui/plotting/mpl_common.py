"""Small helpers shared by the matplotlib figure builders (Qt-free, no pyplot)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import to_rgba_array
from matplotlib.figure import Figure
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    from .partial_redraw import PartialRedraw

#: Colour of auxiliary lines (grids, zero lines) that must not compete with the data.
GRID_COLOR = "#d9d9d9"
#: Font sizes used by the figure builders.
TITLE_SIZE = 11
LABEL_SIZE = 10
TICK_SIZE = 9


def pns_label(k: int, unit: str = "rad") -> str:
    """Axis label of the k-th (0-based) PNS score, e.g. ``pns_label(0) == "PNS1 (rad)"``."""
    return f"PNS{int(k) + 1} ({unit})" if unit else f"PNS{int(k) + 1}"


def fresh_axes(figure: Figure) -> Axes:
    """Clear ``figure`` and return one styled axes filling it."""
    figure.clear()
    ax = figure.add_subplot(111)
    style_axes(ax)
    return ax


class FigurePlot:
    """A view's plot that owns the content of one figure: one styled axes, and the
    partial redraw that puts its fast updates on screen.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure to draw into (it is cleared; this object owns its content).

    Notes
    -----
    Methods change artists only; the caller asks the canvas to repaint
    (``figure.canvas.draw_idle()``) when it wants the change on screen.
    """

    def __init__(self, figure: Figure) -> None:
        self.figure = figure
        self._ax = fresh_axes(figure)
        self._partial: PartialRedraw | None = None

    @property
    def axes(self) -> Axes:
        """The axes the plot is drawn in."""
        return self._ax

    @property
    def partial_redraw(self) -> PartialRedraw | None:
        """Redraws the layers a fast update changes (the selection, the colours) over a
        snapshot of the rest (None before the first drawing)."""
        return self._partial


def style_axes(ax: Axes) -> None:
    """Common look: light grid below the data, no top/right spines, readable ticks."""
    ax.set_axisbelow(True)
    ax.grid(True, color=GRID_COLOR, linewidth=0.6)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=TICK_SIZE)
    ax.xaxis.label.set_size(LABEL_SIZE)
    ax.yaxis.label.set_size(LABEL_SIZE)
    ax.title.set_size(TITLE_SIZE)


def figure_has_content(fig: Figure) -> bool:
    """Whether any axes of ``fig`` holds data artists (collections, lines, patches, images).

    Auxiliary artists count as content too; an empty (cleared) figure or one holding only
    blank axes does not.
    """
    for ax in fig.axes:
        if ax.collections or ax.lines or ax.patches or ax.images:
            return True
    return False


def as_rgba(colors: ArrayLike | None, n: int, default: str) -> NDArray[np.float64]:
    """RGBA (n, 4) float array from per-sample colours, or ``default`` for all samples."""
    if colors is None:
        return np.tile(to_rgba_array(default), (n, 1))
    rgba = np.asarray(colors)
    if rgba.dtype.kind == "f" and rgba.ndim == 2 and rgba.shape == (n, 4):
        return np.asarray(rgba, dtype=np.float64)
    rgba = to_rgba_array(colors)
    if rgba.shape[0] == 1:
        return np.tile(rgba, (n, 1))
    if rgba.shape[0] != n:
        raise ValueError(f"expected {n} colours, got {rgba.shape[0]}")
    return rgba


def as_mask(selected: ArrayLike | None, n: int) -> NDArray[np.bool_]:
    """Boolean mask of length n (all False when ``selected`` is None).

    Accepts a boolean mask or an integer array of group numbers (> 0 means selected).
    """
    if selected is None:
        return np.zeros(n, dtype=bool)
    mask = np.asarray(selected)
    if mask.dtype != bool:
        mask = mask > 0
    mask = mask.ravel()
    if mask.shape != (n,):
        raise ValueError(f"selection must have {n} entries, got {mask.shape[0]}")
    return mask
