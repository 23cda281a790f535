"""Which angles drive a component: a bar chart of their largest shares (issue 32).

At d = 66 or 426 the question a user asks of PNS1 is which torsions move along it. Two
measures answer it (:func:`component_measure`):

* the share of the component's torus variance each angle carries
  (``ScaledTorusPCA.angle_contributions_``, computed for the first K components);
* for PNS1 when the torus variance was not computed, how far the principal curve moves
  each angle over the data's range of PNS1 (``PrincipalCurve.angle_ranges``), in degrees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import NDArray

from .colors import PALETTE
from .mpl_common import fresh_axes
from .text import MAX_NAME_LABEL, one_line

#: Bars drawn: the largest values.
SHOWN_BARS = 12
BAR_COLOR = PALETTE[0]
SHOWN_BAR_COLOR = PALETTE[5]
#: Font size (points) of the angles' names.
_NAME_SIZE = 8.0


@dataclass(frozen=True)
class ComponentMeasure:
    """Per angle, how much it drives one component, and what that number is."""

    values: NDArray[np.float64]
    #: "torus variance share" or "curve range".
    kind: str
    #: The axis label, e.g. "% of PNS1's torus variance".
    label: str
    #: Multiplier of the values for display (100 for shares in %, 1 for degrees).
    scale: float
    unit: str


def component_measure(contributions: NDArray[np.float64] | None,
                      curve_ranges: NDArray[np.float64] | None,
                      component: int) -> ComponentMeasure | None:
    """The measure of ``component`` (0-based): its row of ``contributions`` (K × d) when
    it has one, else for PNS1 the curve's range per angle (radians), else None."""
    if contributions is not None and component < len(contributions):
        return ComponentMeasure(np.asarray(contributions[component], dtype=np.float64),
                                "torus variance share",
                                f"% of PNS{component + 1}'s torus variance", 100.0, "%")
    if component == 0 and curve_ranges is not None:
        return ComponentMeasure(np.degrees(np.asarray(curve_ranges, dtype=np.float64)),
                                "curve range", "PNS1 curve's range (°)", 1.0, "°")
    return None


def largest_angles(values: NDArray[np.float64], count: int = SHOWN_BARS) -> NDArray[np.intp]:
    """Columns of the ``count`` largest finite values, largest first."""
    values = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=-np.inf)
    order = np.argsort(-values, kind="stable")[:count]
    return order[np.isfinite(values[order])]


def bars_that_fit(figure: Figure) -> int:
    """Bars whose names (8-point labels, a line apart) fit the figure's height: the axes
    take about 70 % of it (the rest: the x axis's ticks and label), at least 3."""
    line = _NAME_SIZE * 1.45 * figure.dpi / 72.0
    return max(3, int(0.7 * figure.bbox.height / line))


def draw_contributions(figure: Figure, measure: ComponentMeasure, names: Sequence[str],
                       shown: Sequence[int] = (), count: int = SHOWN_BARS
                       ) -> tuple[Axes, list[int]]:
    """Horizontal bars of the ``count`` largest values of ``measure`` (fewer when the
    figure's height holds fewer names), largest on top, each named by its angle; the
    angles in ``shown`` (on the torus view) in another colour.

    Returns
    -------
    axes : matplotlib.axes.Axes
    columns : list of int
        The angle of each bar, in the order of ``axes.patches`` (pickable: each bar's
        ``get_gid()`` is its column).
    """
    ax = fresh_axes(figure)
    count = min(count, bars_that_fit(figure))
    columns = [int(k) for k in largest_angles(measure.values, count)]
    values = measure.scale * measure.values[columns]
    positions = np.arange(len(columns))[::-1]
    colors = [SHOWN_BAR_COLOR if k in set(shown) else BAR_COLOR for k in columns]
    edges = ["black" if k in set(shown) else "none" for k in columns]
    bars = ax.barh(positions, values, color=colors, edgecolor=edges, linewidth=1.0, zorder=2)
    for bar, column in zip(bars, columns, strict=True):
        bar.set_picker(True)
        bar.set_gid(str(column))
    ax.set_yticks(positions, [one_line(names[k], MAX_NAME_LABEL) for k in columns])
    for label, column in zip(ax.get_yticklabels(), columns, strict=True):
        if column in set(shown):
            label.set_fontweight("bold")
    ax.bar_label(bars, labels=[f"{v:.0f}" for v in values], padding=2, fontsize=7)
    ax.set_xlabel(measure.label, wrap=True)  # the side column is about 290 px wide
    top = float(values.max()) if len(values) else 1.0
    ax.set_xlim(0.0, 1.18 * top if top > 0 else 1.0)
    ax.grid(False, axis="y")
    ax.tick_params(axis="y", labelsize=_NAME_SIZE)
    return ax, columns
