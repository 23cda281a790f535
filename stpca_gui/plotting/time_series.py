"""Scores over time: one component against time, one line per trajectory.

Rows of a table read from trajectories carry ``trajectory`` and ``time`` (ps) columns; each
trajectory is one line in frame order, and the points are coloured like in every view
(label, mode cluster, …). Without time the row number is the time axis, and the axis says
so; without ``trajectory`` all rows are one run.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.axes import Axes
from numpy.typing import ArrayLike, NDArray

from ..io.coded import factorize
from .marker_collection import grouped_scatter
from .mpl_common import as_mask, as_rgba, pns_label, style_axes
from .partial_redraw import PartialRedraw

__all__ = ["TimeAxis", "TimePoints", "scores_over_time", "time_axis"]

#: Points are drawn up to this many (an even subset beyond; the lines keep every frame).
POINTS_UP_TO = 50_000
#: z-orders: the runs' lines are static; the points and the selection's outlines change
#: with a selection and are redrawn over a snapshot of what lies below ``_STATIC_BELOW``.
_LINES_Z, _STATIC_BELOW, _POINTS_Z, _SELECTED_Z = 1.0, 1.5, 2.0, 3.0


class TimeAxis:
    """The time of every row, the run it belongs to, and the axis label.

    Attributes
    ----------
    time : ndarray, shape (n,)
    runs : ndarray of int, shape (n,)
        The run (trajectory) of each row, coded 0, 1, … in order of first appearance.
    run_names : list of str
    label : str
    """

    def __init__(self, time: NDArray[np.float64], runs: NDArray[np.intp],
                 run_names: list[str], label: str) -> None:
        self.time, self.runs, self.run_names, self.label = time, runs, run_names, label


def time_axis(n: int, provenance: Mapping[str, ArrayLike] | None) -> TimeAxis:
    """The time axis of ``n`` rows from their carried columns (``time``, ``trajectory``);
    the row number where there is no time (or it is not a number)."""
    provenance = provenance or {}
    label = "row (the data have no time)"
    time = np.arange(n, dtype=np.float64)
    if "time" in provenance:
        try:
            time = np.asarray(provenance["time"]).astype(np.float64)
            label = "time (ps)"
        except ValueError:
            label = "row (the time column is not numbers)"
    if "trajectory" in provenance:
        # From codes (a pooled data set's run column is coded): no sort of n rows of text.
        runs, names = factorize(provenance["trajectory"])
        starts = np.flatnonzero(np.diff(runs, prepend=-1))  # where a run of equal codes begins
        _, first_start = np.unique(runs[starts], return_index=True)
        order = np.argsort(starts[first_start])
        rank = np.empty(len(order), dtype=np.intp)
        rank[order] = np.arange(len(order))
        return TimeAxis(time, rank[runs], [names[k] for k in order], label)
    return TimeAxis(time, np.zeros(n, dtype=np.intp), [""], label)


def scores_over_time(ax: Axes, scores: ArrayLike, component: int, axis: TimeAxis, *,
                     colors: ArrayLike | None = None, selected: ArrayLike | None = None,
                     period: float | None = None) -> TimePoints:
    """Draw score ``component`` (0-based) against time into ``ax``: a thin line per run,
    the frames as points in their colours, the selected ones outlined on top.

    A PNS1 line (``period`` given) is broken where it wraps around the period instead of
    crossing the plot. Returns the points, which :meth:`TimePoints.update_colors` recolours
    for a new selection without drawing the axes again.
    """
    values = np.asarray(scores, dtype=np.float64)
    values = values[:, None] if values.ndim == 1 else values
    y = values[:, component]
    n = len(y)
    style_axes(ax)
    for run in range(len(axis.run_names)):
        rows = np.flatnonzero(axis.runs == run)
        t, v = axis.time[rows], y[rows]
        if component == 0 and period is not None and v.size > 1:
            breaks = np.flatnonzero(np.abs(np.diff(v)) > 0.5 * period) + 1
            t, v = np.insert(t, breaks, np.nan), np.insert(v, breaks, np.nan)
        ax.plot(t, v, color="#9a9a9a", linewidth=0.5, zorder=_LINES_Z,
                label=axis.run_names[run] or None)
    shown = np.arange(n) if n <= POINTS_UP_TO else np.linspace(0, n - 1, POINTS_UP_TO
                                                                ).astype(np.intp)
    points = TimePoints(ax, np.column_stack([axis.time[shown], y[shown]]), shown, n)
    points.update_colors(colors, selected)
    ax.set_xlabel(axis.label)
    ax.set_ylabel(pns_label(component))
    if period is not None and component == 0:
        ax.set_ylim(-0.5 * period, 0.5 * period)
    runs = len(axis.run_names)
    if runs > 1:
        ax.set_title(f"{runs} trajectories, one line each", fontsize=8, loc="left")
    return points


class TimePoints:
    """The frames drawn by :func:`scores_over_time` (at most :data:`POINTS_UP_TO`), and the
    selected ones outlined on top; a new colouring or selection changes only these, and
    :attr:`partial_redraw` redraws them over a snapshot of the lines and axes.

    Parameters
    ----------
    ax : Axes
    xy : ndarray, shape (m, 2)
        Time and score of the points drawn.
    shown : ndarray of int, shape (m,)
        The rows they are, among ``n``.
    n : int
        The number of rows (of the colours and the selection).
    """

    def __init__(self, ax: Axes, xy: NDArray[np.float64], shown: NDArray[np.intp],
                 n: int) -> None:
        self._xy, self._shown, self._n = xy, shown, n
        size = float(np.clip(200.0 / np.sqrt(max(n, 1)), 1.0, 16.0))
        self.points = grouped_scatter(ax, xy[:, 0], xy[:, 1], size=size,
                                      colors=np.zeros((len(shown), 4)), linewidths=0,
                                      zorder=_POINTS_Z)
        self.overlay = grouped_scatter(ax, [], [], size=2 * size + 4,
                                       colors=np.empty((0, 4)), edgecolors="black",
                                       linewidths=0.4, zorder=_SELECTED_Z)
        self.partial_redraw = PartialRedraw(ax, _STATIC_BELOW)

    @property
    def n_highlighted(self) -> int:
        """How many points are drawn outlined as selected."""
        return len(self.overlay.get_offsets())

    def update_colors(self, colors: ArrayLike | None, selected: ArrayLike | None) -> None:
        """Colour the points (RGBA per row, or a ``colors.at(rows)`` colouring) and outline
        the selected ones."""
        rgba = (colors.at(self._shown) if hasattr(colors, "at")
                else as_rgba(colors, self._n, "#0072B2")[self._shown])
        chosen = as_mask(selected, self._n)[self._shown]
        self.points.set_facecolor(rgba)
        self.overlay.set_offsets(self._xy[chosen])
        self.overlay.set_facecolor(rgba[chosen])
