"""Histogram of the periodic PNS1 score with its circular kernel density estimate.

PNS1 is an angle times ``circle_radius_``, so it lives on a circle of circumference
``P = 2π·circle_radius_``; the histogram covers one period [−P/2, P/2) and the density
curve is the von Mises KDE of :mod:`stpca_gui.core.circstats.kde` (which wraps around the ends).
Heights are densities (1/rad): the histogram and the curve both integrate to 1.

The selected samples are drawn on top in the selection colour with the same scaling (their
bars are the part of each bar that is selected, and their curve, ``n_sel/n`` times their KDE
with the bandwidth of the whole sample, is the part of the curve they make up).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.colors import to_rgba, to_rgba_array
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from numpy.typing import ArrayLike, NDArray

from ..core.circstats.kde import BandwidthRule, binned_is_accurate, circular_bandwidth, circular_kde
from ..core.geometry.torus import wrap_angles
from .colors import CURVE_COLOR, NEUTRAL, SELECTION_PALETTE, label_palette
from .mpl_common import FigurePlot, as_mask, fresh_axes
from .partial_redraw import PartialRedraw

if TYPE_CHECKING:
    from ..core.circstats.mode_clustering import ModeClustering

#: Points of the density curves over one period.
KDE_POINTS = 512
#: More groups than this are not stacked (a bar of 20 slivers is unreadable): the histogram
#: is drawn in one neutral colour instead.
MAX_GROUPS = 20
#: Colour of the histogram when it is not split by groups.
HISTOGRAM_COLOR = "#bdbdbd"
SELECTION_COLOR = SELECTION_PALETTE[0]
#: Colour of the shaded range and the antimode lines.
RANGE_COLOR = SELECTION_PALETTE[1]
ANTIMODE_COLOR = "#444444"
#: Antimodes of the paper's rule (every mode, untested), when shown for comparison.
PAPER_ANTIMODE_COLOR = "#D55E00"
#: Legend entries that still fit inside the axes without hiding the bars.
_LEGEND_INSIDE_MAX = 8
#: Groups named in the legend at most: beyond, the largest less one and "k other groups"
#: (19 residue names filled a third of the histogram with a clipped legend).
LEGEND_GROUPS_MAX = 12
#: The bars of the groups the legend does not name, and their legend entry.
_OTHERS_STYLE = {"facecolor": "#e4e4e4", "edgecolor": NEUTRAL, "hatch": "///"}
#: z-orders: the histogram (stacked by group) is static; the selection's bars, its curve,
#: the density curve, the antimodes and, on top of them all, the legend (which names the
#: selection's size) are redrawn on a new selection, over a snapshot of what lies below
#: ``_STATIC_BELOW``. Below the curves and the dashed antimodes, the legend let them show
#: through its box.
_BARS_Z, _STATIC_BELOW, _SELECTION_BARS_Z, _LEGEND_Z = 2.0, 2.9, 3.0, 7.0


def periodic_range_mask(
    values: ArrayLike, lo: float, hi: float, period: float
) -> NDArray[np.bool_]:
    """Samples in the closed arc from ``lo`` up to ``hi`` of a periodic quantity.

    ``lo <= hi`` is the ordinary interval [lo, hi]; ``lo > hi`` is the range that wraps
    around the period: [lo, period/2) ∪ [−period/2, hi]. A range as long as the period
    holds every sample.
    """
    lo = float(lo)
    hi = float(hi)
    length = hi - lo if lo <= hi else hi - lo + period
    if length >= period:
        return np.ones(np.shape(values), dtype=bool)
    return np.mod(np.asarray(values, dtype=np.float64) - lo, period) <= length


class ScoreHistogram(FigurePlot):
    """Histogram + periodic KDE of PNS1 over one period, with a highlighted selection, in
    a given figure (:class:`~stpca_gui.plotting.mpl_common.FigurePlot`).

    Parameters
    ----------
    figure : matplotlib.figure.Figure
    shows_selection : bool, default True
        Whether the selection has a legend entry and a count (not in a report's figure).
    """

    def __init__(self, figure: Figure, shows_selection: bool = True) -> None:
        super().__init__(figure)
        # A figure for a report or a file has no selection: no legend entry, no count.
        self.shows_selection = shows_selection
        self._values = np.empty(0)
        self._bin_of = np.empty(0, dtype=np.intp)
        self._whole_binned: NDArray[np.float64] | None = None
        self._period = 2.0 * np.pi
        self._edges = np.linspace(-np.pi, np.pi, 2)
        self._grid = np.linspace(-np.pi, np.pi, KDE_POINTS + 1)
        self._bandwidth = 1.0
        self._selection_bars: BarContainer | None = None
        self._selection_line: Line2D | None = None
        self._kde_line: Line2D | None = None
        self._range_artists: list = []
        self._antimode_artists: list = []
        self._legend_entries: tuple[list, list[str]] = ([], [])
        self._legend_selection = ""

    # ------------------------------------------------------------------ access
    @property
    def values(self) -> NDArray[np.float64]:
        """The drawn values, wrapped into [−P/2, P/2)."""
        return self._values

    @property
    def period(self) -> float:
        return self._period

    @property
    def bandwidth(self) -> float:
        """Bandwidth (rad) of the density curves."""
        return self._bandwidth

    @property
    def edges(self) -> NDArray[np.float64]:
        """Bin edges, from −P/2 to P/2."""
        return self._edges

    @property
    def kde_line(self) -> Line2D | None:
        """Density curve of the whole sample."""
        return self._kde_line

    @property
    def selection_bars(self) -> BarContainer | None:
        """Bars of the selected samples (heights in the density units of the histogram)."""
        return self._selection_bars

    @property
    def selection_label(self) -> str:
        """The legend's entry of the selection, which says its size, e.g. "selection
        (n = 1,666, 33.3%)"; "" while nothing is selected or in a figure without a
        selection."""
        return self._legend_selection

    @property
    def selection_line(self) -> Line2D | None:
        """The selected samples' share of the density curve."""
        return self._selection_line

    # ----------------------------------------------------------------- drawing
    def draw(
        self,
        values: ArrayLike,
        period: float,
        group_codes: ArrayLike | None = None,
        selected: ArrayLike | None = None,
        bins: int = 40,
        bandwidth: float | BandwidthRule = "lcv",
        title: str | None = None,
        label: str = "PNS1 (rad)",
        group_names: Sequence[str] | None = None,
        group_colors: ArrayLike | None = None,
    ) -> None:
        """Draw the histogram, the density curve and the selection.

        Parameters
        ----------
        values : array_like, shape (n,)
            PNS1 scores (wrapped into one period).
        period : float
            Period of the values, ``2π·circle_radius_`` for PNS1.
        group_codes : array_like of int, shape (n,), optional
            Group of each sample, 0 … k−1 (e.g. label codes, names in natural order).
            The histogram is stacked by group, one series per group in the group's colour;
            with more than ``MAX_GROUPS`` groups it is drawn in one colour.
        selected : array_like of bool (n,) or of group numbers, optional
            Samples highlighted in the selection colour.
        bins : int, default 40
            Number of bins over one period.
        bandwidth : float or {"lcv", "silverman", "taylor"}, default "lcv"
            KDE bandwidth in the units of ``values``, or the rule of
            :func:`~stpca_gui.core.circstats.kde.circular_bandwidth` that chooses it. The default,
            likelihood cross-validation, follows separated clusters (modes of PNS1), which
            the rules of thumb smooth away.
        title : str, optional
        label : str, default "PNS1 (rad)"
            x-axis label.
        group_names : sequence of str, optional
            Legend name of each group code (default "group 1", "group 2", …).
        group_colors : array_like, shape (k, 4), optional
            Colour of each group code; default :func:`~stpca_gui.plotting.colors.label_palette`
            (the colours the other views give the same label codes).
        """
        period = float(period)
        if not np.isfinite(period) or period <= 0:
            raise ValueError(f"period must be positive, got {period}")
        if int(bins) < 1:
            raise ValueError(f"bins must be >= 1, got {bins}")
        v = wrap_angles(np.asarray(values, dtype=np.float64).ravel(), period)
        if v.size == 0:
            raise ValueError("no values to draw")
        n = v.size
        half = 0.5 * period
        self._values = v
        self._period = period
        self._edges = np.linspace(-half, half, int(bins) + 1)
        self._grid = np.linspace(-half, half, KDE_POINTS + 1)
        self._bandwidth = (circular_bandwidth(v, period, rule=bandwidth)
                           if isinstance(bandwidth, str) else float(bandwidth))
        self._range_artists = []
        self._antimode_artists = []
        width = self._edges[1] - self._edges[0]
        centres = 0.5 * (self._edges[:-1] + self._edges[1:])
        scale = 1.0 / (n * width)

        ax = fresh_axes(self.figure)
        self._ax = ax
        groups = self._groups(group_codes, n, group_names, group_colors)
        # Beyond LEGEND_GROUPS_MAX groups the legend names the largest; the others are one
        # series of bars, in the style of their legend entry.
        shown, others = (groups, []) if groups[0][1] is None else _legend_groups(groups)
        series = [(members, {"color": colour, "edgecolor": "white"})
                  for colour, _, members in shown]
        if others:
            series.append((np.logical_or.reduce([m for _, _, m in others]), _OTHERS_STYLE))
        bottom = np.zeros(centres.size)
        for members, style in series:
            counts, _ = np.histogram(v[members], bins=self._edges)
            heights = counts * scale
            ax.bar(centres, heights, width=width, bottom=bottom, linewidth=0.4,
                   zorder=_BARS_Z, **style)
            bottom = bottom + heights
        total_height = bottom

        self._whole_binned = None
        # The bin of every sample, found once: a new selection's bars are then one count.
        self._bin_of = np.minimum(np.floor((v + half) / width).astype(np.intp), int(bins) - 1)
        mask = as_mask(selected, n)
        sel_counts = self._selection_counts(mask)
        self._selection_bars = ax.bar(
            centres, sel_counts * scale, width=width, color=SELECTION_COLOR, alpha=0.85,
            edgecolor="white", linewidth=0.4, zorder=_SELECTION_BARS_Z)
        self._partial = PartialRedraw(ax, _STATIC_BELOW)

        density = circular_kde(v, self._grid, self._bandwidth, period, method="auto")
        (self._kde_line,) = ax.plot(self._grid, density, color=CURVE_COLOR, linewidth=1.6,
                                    zorder=5)
        (self._selection_line,) = ax.plot(self._grid, np.zeros_like(self._grid),
                                          color=SELECTION_COLOR, linewidth=1.4, zorder=4)
        self._set_selection_curve(mask)

        ax.set_xlim(-half, half)
        top = max(float(np.max(total_height)), float(np.max(density)))
        # Head room above the tallest bar keeps the legend clear of the data.
        ax.set_ylim(0.0, 1.6 * top if top > 0 else 1.0)
        ax.set_xlabel(label)
        ax.set_ylabel("density (1/rad)")
        if title:
            ax.set_title(title)

        legend_handles = []
        legend_labels = []
        if groups[0][1] is None:  # not split by group
            legend_handles.append(Patch(facecolor=groups[0][0]))
            legend_labels.append(f"histogram (n = {n})")
        else:
            legend_handles.extend(Patch(facecolor=colour) for colour, _, _ in shown)
            legend_labels.extend(f"{name} (n = {int(members.sum())})"
                                 for _, name, members in shown)
            if others:
                legend_handles.append(Patch(**_OTHERS_STYLE))
                legend_labels.append(f"{len(others)} other groups (n = "
                                     f"{sum(int(m.sum()) for _, _, m in others)})")
        legend_handles.append(Line2D([], [], color=CURVE_COLOR, linewidth=1.6))
        legend_labels.append(f"periodic KDE (bw {self._bandwidth:.3g})")
        self._legend_entries = (legend_handles, legend_labels)
        self._draw_legend(self._selection_entry(mask))

    def _selection_entry(self, mask: NDArray[np.bool_]) -> str:
        """The legend's label of the selection ``mask``: its size, like the groups' entries,
        or "" (no entry) when nothing is selected or the figure shows no selection."""
        count, n = int(mask.sum()), mask.size
        if not (self.shows_selection and count):
            return ""
        return f"selection (n = {count:,}, {100.0 * count / n:.1f}%)"

    def _draw_legend(self, selection: str) -> None:
        """The legend: the groups, the density curve and, when something is selected, the
        selection with its size (an entry for an empty selection would name nothing
        drawn)."""
        handles, labels = (list(entries) for entries in self._legend_entries)
        if selection:
            handles.append(Patch(facecolor=SELECTION_COLOR, alpha=0.85))
            labels.append(selection)
        old = self._ax.get_legend()
        if old is not None:
            old.remove()
        # "best" keeps the legend off the modes; the headroom above leaves it a place. It
        # is drawn over everything else (nothing shows through its box), and so it is
        # redrawn, its place searched again, with every new selection; the selected bars
        # and curve lie within the whole sample's, so its place stays where it was.
        if len(labels) > _LEGEND_INSIDE_MAX:
            # Many labels: a legend inside would hide bars; it goes beside the axes.
            legend = self._ax.legend(handles, labels, loc="upper left", fontsize=8,
                                     bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                                     frameon=False)
        else:
            legend = self._ax.legend(handles, labels, loc="best", fontsize=8,
                                     framealpha=0.85)
        legend.set_zorder(_LEGEND_Z)
        self._legend_selection = selection

    @staticmethod
    def _groups(
        codes: ArrayLike | None,
        n: int,
        names: Sequence[str] | None,
        colors: ArrayLike | None,
    ) -> list[tuple[tuple[float, float, float, float], str | None, NDArray[np.bool_]]]:
        """(opaque colour, legend name, member mask) per group that has members, by code."""
        everyone = [(to_rgba(HISTOGRAM_COLOR), None, np.ones(n, dtype=bool))]
        if codes is None:
            return everyone
        code = np.asarray(codes).ravel()
        if code.shape[0] != n:
            raise ValueError(f"group_codes must have {n} entries, got {code.shape[0]}")
        if not np.issubdtype(code.dtype, np.integer) or code.min() < 0:
            raise ValueError("group_codes must be non-negative integers")
        k = max(int(code.max()) + 1, len(names or ()))
        if k > MAX_GROUPS:
            return everyone
        legend = list(names or []) + [f"group {g + 1}" for g in range(len(names or ()), k)]
        rgba = label_palette(k) if colors is None else to_rgba_array(colors)
        if rgba.shape[0] < k:
            raise ValueError(f"group_colors must have a colour for each of the {k} groups")
        groups = []
        for g in range(k):
            members = code == g
            if members.any():
                groups.append(((*map(float, rgba[g, :3]), 1.0), legend[g], members))
        return groups

    def _set_selection_curve(self, mask: NDArray[np.bool_]) -> None:
        assert self._selection_line is not None
        n_sel = int(mask.sum())
        if n_sel == 0:
            self._selection_line.set_ydata(np.zeros_like(self._grid))
            self._selection_line.set_visible(False)
            return
        n = self._values.size
        share = n_sel / n
        # Redrawn on every selection: the binned estimate (error below 3e-4 of the peak,
        # invisible) is ten times faster than the exact sum for thousands of points.
        fast = binned_is_accurate(self._bandwidth, self._period) and n_sel > 200
        if fast and 2 * n_sel > n:
            # The estimate is linear in the sample: the selection's part of the whole
            # curve is the whole minus the part of the others, the smaller sample.
            others = ~mask
            rest = (n - n_sel) / n * self._binned_kde(self._values[others])
            part = np.maximum(self._binned_whole() - rest, 0.0)
        else:
            part = share * circular_kde(self._values[mask], self._grid, self._bandwidth,
                                        self._period, method="binned" if fast else "exact")
        self._selection_line.set_ydata(part)
        self._selection_line.set_visible(True)

    def _binned_kde(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        if values.size == 0:
            return np.zeros_like(self._grid)
        return circular_kde(values, self._grid, self._bandwidth, self._period,
                            method="binned")

    def _binned_whole(self) -> NDArray[np.float64]:
        """The binned density estimate of all samples (computed once per draw)."""
        if self._whole_binned is None:
            self._whole_binned = self._binned_kde(self._values)
        return self._whole_binned

    def update_selection(self, selected: ArrayLike | None) -> None:
        """Show a new selection: only the selection bars and curve, and the legend entry
        that names its size, change.

        Parameters
        ----------
        selected : array_like of bool (n,) or of group numbers, or None
        """
        if self._selection_bars is None:
            raise RuntimeError("draw the histogram before updating the selection")
        n = self._values.size
        mask = as_mask(selected, n)
        counts = self._selection_counts(mask)
        width = self._edges[1] - self._edges[0]
        heights = counts / (n * width)
        for patch, height in zip(self._selection_bars.patches, heights, strict=True):
            patch.set_height(height)
        self._set_selection_curve(mask)
        selection = self._selection_entry(mask)
        if selection == self._legend_selection:
            return
        if selection and self._legend_selection:  # only the selection's size changes
            self._ax.get_legend().get_texts()[-1].set_text(selection)
            self._legend_selection = selection
        else:  # the entry comes or goes
            self._draw_legend(selection)

    def _selection_counts(self, mask: NDArray[np.bool_]) -> NDArray[np.int64]:
        """Selected samples per bin."""
        return np.bincount(self._bin_of[mask], minlength=self._edges.size - 1)

    # ------------------------------------------------------------------ ranges
    def range_mask(self, lo: float, hi: float) -> NDArray[np.bool_]:
        """Samples whose value lies in [lo, hi]; ``lo > hi`` wraps around the period.

        Returns
        -------
        ndarray of bool, shape (n,)
        """
        return periodic_range_mask(self._values, lo, hi, self._period)

    def show_range(self, lo: float, hi: float) -> None:
        """Shade the range [lo, hi] (two pieces when it wraps around), replacing the last one."""
        self.clear_range()
        period = self._period
        half = 0.5 * period
        lo = float(lo)
        hi = float(hi)
        length = hi - lo if lo <= hi else hi - lo + period  # as in range_mask
        start = float(wrap_angles(np.array([lo]), period)[0])
        end = start + length
        if length >= period:
            pieces = [(-half, half)]
        elif end <= half:
            pieces = [(start, end)]
        else:
            pieces = [(start, half), (-half, end - period)]
        for a, b in pieces:
            self._range_artists.append(self._ax.axvspan(a, b, color=RANGE_COLOR, alpha=0.18,
                                                        linewidth=0, zorder=1))

    def clear_range(self) -> None:
        """Remove the shaded range."""
        for artist in self._range_artists:
            artist.remove()
        self._range_artists = []

    @property
    def range_spans(self) -> list:
        """The shaded patches of the current range (empty, one, or two when wrapping)."""
        return list(self._range_artists)

    def set_antimodes(self, positions: ArrayLike | None) -> None:
        """Draw dashed vertical lines at ``positions`` (e.g. antimodes between modes).

        Replaces the previous lines; None or an empty list removes them.
        """
        for artist in self._antimode_artists:
            artist.remove()
        self._antimode_artists = []
        if positions is None:
            return
        for x in wrap_angles(np.atleast_1d(np.asarray(positions, dtype=np.float64)),
                             self._period):
            self._antimode_artists.append(self._ax.axvline(
                float(x), color=ANTIMODE_COLOR, linestyle="--", linewidth=1.0, zorder=6))

    @property
    def antimode_lines(self) -> list:
        return list(self._antimode_artists)

    def show_mode_clusters(self, clusters: ModeClustering,
                           paper: ModeClustering | None = None) -> None:
        """Draw the antimodes of ``clusters`` (dashed; none when there is one cluster) and a
        note saying what they are: k̂ and the p-value of every step for tested clusters,
        "no cluster structure" for one. With ``paper``, its antimodes are added as dotted
        lines of another colour, the paper's untested rule for comparison.
        """
        self.set_antimodes(clusters.antimodes if clusters.has_structure else [])
        if paper is not None and paper.has_structure:
            for x in wrap_angles(np.asarray(paper.antimodes, dtype=np.float64), self._period):
                self._antimode_artists.append(self._ax.axvline(
                    float(x), color=PAPER_ANTIMODE_COLOR, linestyle=":", linewidth=1.2,
                    zorder=5.5))
        lines = [clusters.describe()]
        if paper is not None:
            lines.append(f"paper's rule (dotted): {paper.n_clusters} clusters, untested")
        # A left title: the layout keeps room for it, clear of the legend and the count.
        # Wrapped at the figure's right edge, whatever the panel's width (a fixed 62
        # characters still ran past it at 1280 × 800: "…k=2: p≤0.0" was cut off).
        self._ax.set_title("\n".join(lines), loc="left",
                           fontsize=7.5, color="#222222", wrap=True)

    @property
    def cluster_note(self) -> str:
        """The note on the clusters drawn ("" before :meth:`show_mode_clusters`)."""
        return self._ax.get_title(loc="left")



def _legend_groups(groups: list) -> tuple[list, list]:
    """The groups the legend names (all, or the largest :data:`LEGEND_GROUPS_MAX` − 1 in
    their order) and the others, summed up in one entry."""
    if len(groups) <= LEGEND_GROUPS_MAX:
        return list(groups), []
    sizes = [int(members.sum()) for _, _, members in groups]
    largest = set(sorted(range(len(groups)), key=lambda g: -sizes[g])[:LEGEND_GROUPS_MAX - 1])
    return ([group for g, group in enumerate(groups) if g in largest],
            [group for g, group in enumerate(groups) if g not in largest])
