"""Colour-blind-safe colours for points, labels, scores and selections.

Up to eight labels use the Okabe–Ito palette (distinguishable with the common colour-vision
deficiencies); more labels use matplotlib's 20 colours of ``tab20``, so no two of up to 20
labels share a colour (past 20 they repeat). PNS1 is an angle, so it uses a cyclic,
perceptually uniform colormap whose ends meet; selection groups reuse the palette and
unselected points are grey.
"""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import to_rgba_array
from numpy.typing import ArrayLike, NDArray

from ..model.dataset import encode_labels

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
CYCLIC_COLORMAP = "twilight_shifted"
#: Levels of the cyclic colormap. 64 steps around the circle read as continuous, and few
#: distinct colours let the score plot stamp each colour's markers at once.
CYCLIC_LEVELS = 64
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
    (order of first appearance) in :func:`label_palette`."""
    codes, names = encode_labels(labels)
    return label_palette(len(names))[codes]


def cyclic_colors(angles: ArrayLike, period: float = 2.0 * np.pi) -> NDArray[np.float64]:
    """RGBA per sample of a periodic quantity (e.g. PNS1, whose period is 2π·scale)."""
    phase = np.mod(np.asarray(angles, dtype=np.float64) / period + 0.5, 1.0)
    return colormaps[CYCLIC_COLORMAP].resampled(CYCLIC_LEVELS)(phase)


def selection_colors(groups: ArrayLike) -> NDArray[np.float64]:
    """RGBA per sample: grey outside every group, the group colour inside."""
    g = np.asarray(groups, dtype=np.int64)
    out = np.tile(to_rgba_array(NEUTRAL), (g.size, 1))
    palette = to_rgba_array(SELECTION_PALETTE)
    inside = g > 0
    out[inside] = palette[(g[inside] - 1) % len(palette)]
    return out


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
    fit yet).
    """
    if mode == "label" and labels is not None:
        rgba = label_colors(labels)
    elif mode == "pns1" and pns1 is not None:
        rgba = cyclic_colors(pns1, pns1_period)
    elif mode == "selection" and groups is not None:
        rgba = selection_colors(groups)
    else:
        rgba = np.tile(to_rgba_array(NEUTRAL if mode != "label" else PALETTE[4]), (n, 1))
    rgba = np.array(rgba, dtype=np.float64)
    if groups is not None:
        selected = np.asarray(groups) > 0
        if selected.any():
            rgba[~selected, 3] = DIMMED_ALPHA
    return rgba
