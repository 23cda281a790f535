"""Colour-blind-safe colours for points, labels, scores and selections.

Up to eight labels use the Okabe–Ito palette (distinguishable with the common colour-vision
deficiencies); more labels use matplotlib's 20 colours of ``tab20``, so no two of up to 20
labels share a colour (past 20 they repeat). PNS1 is an angle, so it uses a cyclic,
perceptually uniform colormap whose ends meet; selection groups reuse the palette and
unselected points are grey.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import LinearSegmentedColormap, to_rgba_array
from numpy.typing import ArrayLike, NDArray

from ..model.dataset import encode_labels
from ..model.selection import MAX_GROUPS

#: Okabe & Ito (2008), without black: orange, sky blue, bluish green, yellow, blue,
#: vermillion, reddish purple, grey.
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
           "#999999")
#: Colours of 9 to 20 labels: matplotlib's tab20 (ten hues, a dark and a light shade each).
MANY_LABELS_COLORMAP = "tab20"
#: Colour of selection group k (1-based) is SELECTION_PALETTE[(k - 1) % len].
SELECTION_PALETTE = ("#D55E00", "#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
NEUTRAL = "#7f7f7f"
CURVE_COLOR = "#000000"
MEAN_COLOR = "#D55E00"
#: Anchors of the cyclic colormap of PNS1, around the circle (Okabe–Ito blue, reddish
#: purple, vermillion, orange, bluish green): every colour between them stands out on a
#: white background (twilight_shifted, used before, is near white at PNS1 = 0, where the
#: scores are densest).
CYCLIC_ANCHORS = ("#0072B2", "#CC79A7", "#D55E00", "#E69F00", "#009E73")
#: Levels of the cyclic colormap. 64 steps around the circle read as continuous, and few
#: distinct colours let the score plot stamp each colour's markers at once.
CYCLIC_LEVELS = 64
#: Sequential colormap of the stress per point (perceptually uniform, colour-blind safe).
STRESS_COLORMAP = "viridis"
#: The stress colour scale tops out at this quantile of the values, so a few badly placed
#: points do not squeeze all others into the darkest colour.
STRESS_COLOR_QUANTILE = 0.99
#: Alpha of points outside the selection while a selection exists.
DIMMED_ALPHA = 0.18

def label_palette(n_labels: int) -> NDArray[np.float64]:
    """RGBA (n_labels, 4) of the labels with codes 0, 1, …: Okabe–Ito up to eight labels,
    tab20 up to twenty (all different), then tab20 again."""
    if n_labels <= len(PALETTE):
        return to_rgba_array(PALETTE)[:n_labels]
    colours = colormaps[MANY_LABELS_COLORMAP].colors
    return to_rgba_array([colours[k % len(colours)] for k in range(n_labels)])


def label_colors(labels: ArrayLike) -> NDArray[np.float64]:
    """RGBA per sample from categorical labels (any values): the colour of the label's code
    (natural order of the names, :func:`~stpca_gui.model.dataset.encode_labels`) in
    :func:`label_palette`."""
    codes, names = encode_labels(labels)
    return label_palette(len(names))[codes]


def cyclic_colormap() -> LinearSegmentedColormap:
    """The cyclic colormap of PNS1 (:data:`CYCLIC_ANCHORS`, its ends meeting), resampled
    to :data:`CYCLIC_LEVELS` levels."""
    return LinearSegmentedColormap.from_list(
        "stpca-cyclic", [*CYCLIC_ANCHORS, CYCLIC_ANCHORS[0]], N=CYCLIC_LEVELS)


def cyclic_colors(angles: ArrayLike, period: float = 2.0 * np.pi) -> NDArray[np.float64]:
    """RGBA per sample of a periodic quantity (e.g. PNS1, whose period is 2π·scale)."""
    phase = np.mod(np.asarray(angles, dtype=np.float64) / period + 0.5, 1.0)
    return cyclic_colormap()(phase)


def stress_colormap():
    """The colormap of "stress per point", resampled to :data:`CYCLIC_LEVELS` levels."""
    return colormaps[STRESS_COLORMAP].resampled(CYCLIC_LEVELS)


def stress_scale_max(values: ArrayLike) -> float:
    """Top of the stress colour scale: the :data:`STRESS_COLOR_QUANTILE` quantile."""
    values = np.asarray(values, dtype=np.float64)
    return float(np.quantile(values, STRESS_COLOR_QUANTILE)) if values.size else 0.0


class PointColoring:
    """The colours of one colouring mode as a code per sample and a palette.

    A view of 10⁶ samples draws a subset of them (:mod:`.display_subset`), so colours are
    looked up only for the samples drawn, from codes computed once per data set, result and
    mode: a selection then costs a table lookup per drawn sample instead of recomputing
    every sample's colour (labels alone need a sort of all n labels).

    Parameters
    ----------
    mode : {"label", "pns1", "stress", "selection", …}
        "label" colours by ``labels`` (or their ``label_codes``), "pns1" by the cyclic
        colormap of ``pns1``, "stress" by the sequential colormap of ``point_stress`` (up
        to its 99 % quantile), "sequential" by the same colormap of ``values`` from their
        least to their largest (e.g. time), "selection" by the selection groups given to
        :meth:`colors`; any other mode, or a mode without its data, gives one neutral
        colour.
    n : int
        Number of samples.
    labels, label_codes, pns1, pns1_period, point_stress, values
        The data of the modes; ``label_codes`` (codes in natural order of the names, as
        :func:`~stpca_gui.model.dataset.encode_labels` gives them) saves encoding ``labels``.
    """

    def __init__(self, mode: str, *, n: int, labels: ArrayLike | None = None,
                 label_codes: ArrayLike | None = None, pns1: ArrayLike | None = None,
                 pns1_period: float = 2.0 * np.pi,
                 point_stress: ArrayLike | None = None,
                 values: ArrayLike | None = None) -> None:
        self.n = int(n)
        self.by_groups = False
        self.codes: NDArray[np.intp] | None = None
        if mode == "label" and (labels is not None or label_codes is not None):
            codes = (encode_labels(labels)[0] if label_codes is None
                     else np.asarray(label_codes))
            self.codes = codes
            self.palette = label_palette(int(codes.max()) + 1 if codes.size else 1)
        elif mode == "pns1" and pns1 is not None:
            phase = np.mod(np.asarray(pns1, dtype=np.float64) / pns1_period + 0.5, 1.0)
            # What the colormap resampled to CYCLIC_LEVELS does with a phase in [0, 1).
            self.codes = np.minimum((phase * CYCLIC_LEVELS).astype(np.intp), CYCLIC_LEVELS - 1)
            self.palette = cyclic_colormap()(np.arange(CYCLIC_LEVELS))
        elif mode == "stress" and point_stress is not None:
            values = np.asarray(point_stress, dtype=np.float64)
            top = max(stress_scale_max(values), 1e-300)
            self.codes = np.minimum((values / top * CYCLIC_LEVELS).astype(np.intp),
                                    CYCLIC_LEVELS - 1)
            self.palette = stress_colormap()(np.arange(CYCLIC_LEVELS))
        elif mode == "sequential" and values is not None:
            values = np.asarray(values, dtype=np.float64)
            lo, hi = (float(values.min()), float(values.max())) if values.size else (0, 1)
            phase = (values - lo) / (hi - lo) if hi > lo else np.zeros_like(values)
            self.codes = np.minimum((phase * CYCLIC_LEVELS).astype(np.intp),
                                    CYCLIC_LEVELS - 1)
            self.palette = stress_colormap()(np.arange(CYCLIC_LEVELS))
        elif mode == "selection":
            self.by_groups = True
            self.palette = group_palette()
        else:
            self.palette = to_rgba_array(NEUTRAL if mode != "label" else PALETTE[4])

    def colors(self, groups: ArrayLike | None, index: ArrayLike | None = None
               ) -> NDArray[np.float64]:
        """RGBA (k, 4) of the samples ``index`` (default: all n), those outside a non-empty
        selection dimmed (so the selection stands out in every mode).

        Parameters
        ----------
        groups : array_like of int, shape (n,), or None
            Selection group of every sample (0 = none).
        index : array_like of int, optional
            The samples wanted.
        """
        rows = slice(None) if index is None else np.asarray(index, dtype=np.intp)
        size = self.n if index is None else len(rows)
        group_of = None if groups is None else np.asarray(groups)[rows]
        if self.by_groups and group_of is not None:
            rgba = self.palette[group_of.astype(np.intp)]
        elif self.codes is not None:
            rgba = self.palette[self.codes[rows]]
        else:
            fallback = self.palette[0] if not self.by_groups else to_rgba_array(NEUTRAL)[0]
            rgba = np.tile(fallback, (size, 1))
        rgba = np.asarray(rgba, dtype=np.float64)  # every branch made a new array
        if group_of is not None and _any_selected(groups):
            rgba[group_of == 0, 3] = DIMMED_ALPHA
        return rgba


def _any_selected(groups: ArrayLike) -> bool:
    return bool(np.any(np.asarray(groups)))


def group_palette() -> NDArray[np.float64]:
    """RGBA of selection group numbers 0 (not selected, grey) to 6, indexed by group."""
    palette = to_rgba_array(SELECTION_PALETTE)
    return np.vstack([to_rgba_array(NEUTRAL),
                      palette[np.arange(MAX_GROUPS) % len(palette)]])


class SampleColors:
    """The colours of every sample for a colouring and a selection, computed on demand.

    ``np.asarray(colors)`` gives all n rows (so it stands in for an (n, 4) array);
    :meth:`at` gives the rows of a subset, which is what views of many samples draw.
    """

    def __init__(self, coloring: PointColoring, groups: ArrayLike | None) -> None:
        self.coloring = coloring
        self.groups = groups

    @property
    def n(self) -> int:
        return self.coloring.n

    @property
    def shape(self) -> tuple[int, int]:
        return (self.coloring.n, 4)

    def __len__(self) -> int:
        return self.coloring.n

    def at(self, index: ArrayLike | None = None) -> NDArray[np.float64]:
        """RGBA (k, 4) of the samples ``index`` (default: all)."""
        return self.coloring.colors(self.groups, index)

    def without_selection(self) -> SampleColors:
        """The same colouring with nothing selected (nothing dimmed, groups grey)."""
        return SampleColors(self.coloring, None)

    def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray:
        rgba = self.at()
        return rgba if dtype is None else rgba.astype(dtype)


def point_colors(
    mode: str,
    *,
    n: int,
    labels: ArrayLike | None = None,
    pns1: ArrayLike | None = None,
    pns1_period: float = 2.0 * np.pi,
    groups: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """RGBA (n, 4) for a colouring mode, with non-selected points dimmed when a selection
    exists (so the selection stands out in every mode).

    Falls back to a neutral colour when the data for the mode is missing (no labels, no
    fit yet). See :class:`PointColoring` for the colours of a subset.
    """
    coloring = PointColoring(mode, n=n, labels=labels, pns1=pns1, pns1_period=pns1_period)
    return coloring.colors(groups)
