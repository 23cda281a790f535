"""Explained variance per PNS component, sphere (PNS) and torus side by side.

The torus share is the paper's eq. totalvar (section 3.5) computed on the torus.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from numpy.typing import ArrayLike

from .colors import PALETTE
from .mpl_common import TICK_SIZE, fresh_axes

#: Okabe–Ito blue for the sphere, orange for the torus.
SPHERE_COLOR = PALETTE[4]
TORUS_COLOR = PALETTE[0]
#: Value labels' font sizes (points): upright, and vertical when upright ones would run
#: into each other.
_UPRIGHT_SIZE = 8.0
_VERTICAL_SIZE = 6.5
#: Smallest font (points) for a label inside a narrow bar; the line height of the font
#: as a share of its size (DejaVu Sans, measured: a vertical label's width across its bar).
_SMALLEST_SIZE = 5.0
_LINE_HEIGHT = 1.25
#: Width of a digit or point as a share of the font size (DejaVu Sans, a little over).
_CHAR_WIDTH = 0.64
#: Share of the figure's width the axes take (the rest: y ticks and label).
_AXES_SHARE = 0.8
#: Bars taller than this (percent) carry their label inside, in white: upright labels,
#: and the longer vertical ones, which would run into the legend above the axes.
_INSIDE_ABOVE = 88.0
_INSIDE_ABOVE_VERTICAL = 55.0


def _percent(ratio: ArrayLike | None, name: str) -> np.ndarray | None:
    if ratio is None:
        return None
    values = np.asarray(ratio, dtype=np.float64).ravel()
    if values.size == 0:
        raise ValueError(f"{name} is empty")
    return 100.0 * values


#: Extra space (in component slots) before the "rest" group.
_REST_GAP = 0.6
#: Components drawn one by one; those after them are one "remaining" group (issue 32: at
#: d = 66 a bar per component made the tick labels a black band).
SHOWN_COMPONENTS = 10


def first_components(sphere_ratio: ArrayLike, torus_ratio: ArrayLike | None = None,
                     torus_remaining: float | None = None,
                     limit: int = SHOWN_COMPONENTS
                     ) -> tuple[np.ndarray, np.ndarray | None, str | None]:
    """The ratios of the first components and, when there are more, one last entry for
    all the others together, with that entry's tick label.

    Parameters
    ----------
    sphere_ratio, torus_ratio : array_like, shape (d,)
        As for :func:`draw_variance`; the torus ratios of the components after the
        computed ones are NaN.
    torus_remaining : float, optional
        ``torus_remaining_variance_ratio_``: the torus share of the components after the
        computed ones (0 or None when every component was computed).
    limit : int
        Most components drawn one by one. When the torus variance was computed for fewer
        (K), only K are: the remaining torus share covers the components after K.

    Returns
    -------
    sphere, torus : ndarray
        Ratios of the components drawn, the last one the sum of the rest when there is a
        rest (torus None when not given).
    rest_label : str or None
        ``"11–66"``: the components of the last entry (None without a rest).
    """
    sphere = np.asarray(sphere_ratio, dtype=np.float64).ravel()
    d = sphere.size
    torus = None if torus_ratio is None else np.asarray(torus_ratio, dtype=np.float64).ravel()
    computed = 0 if torus is None else int(np.count_nonzero(np.isfinite(torus)))
    shown = min(d, limit)
    if 0 < computed < shown:
        shown = computed
    if shown >= d:
        return sphere, torus, None
    sphere_out = np.append(sphere[:shown], sphere[shown:].sum())
    torus_out = None
    if torus is not None:
        rest = np.nansum(torus[shown:]) + float(torus_remaining or 0.0)
        torus_out = np.append(torus[:shown], rest if computed else np.nan)
    return sphere_out, torus_out, f"{shown + 1}–{d}"


def draw_variance(
    figure: Figure,
    sphere_ratio: ArrayLike,
    torus_ratio: ArrayLike | None = None,
    title: str = "Explained variance",
    torus_remaining: float | None = None,
    limit: int = SHOWN_COMPONENTS,
) -> Axes:
    """Grouped bar chart of the explained variance ratio per component, in percent.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        Cleared and drawn into.
    sphere_ratio : array_like, shape (d,)
        ``explained_variance_ratio_`` (fractions; shown ×100).
    torus_ratio : array_like, shape (d,), optional
        ``torus_explained_variance_ratio_``. None or all-NaN (not computed): only the
        sphere bars are drawn and the legend and title say so. Individual NaN entries
        get no bar.
    title : str
        Title; " (torus not computed)" is appended when the torus values are missing. An
        empty title (a view under a header that says it) draws none, and puts the legend
        above the axes, clear of the bars and their labels.
    torus_remaining : float, optional
        ``torus_remaining_variance_ratio_`` of a fit that computed the torus variance of
        its first components only.
    limit : int
        With more components than this, the first ``limit`` (or the computed ones, if
        fewer) are drawn and the others together as a last group, labelled with their
        range ("11–66"; :func:`first_components`).

    Returns
    -------
    matplotlib.axes.Axes
        The axes, whose ``containers`` hold the bar groups (sphere first).
    """
    sphere = _percent(sphere_ratio, "sphere_ratio")
    assert sphere is not None
    torus = _percent(torus_ratio, "torus_ratio")
    if torus is not None and torus.size != sphere.size:
        raise ValueError(f"torus_ratio has {torus.size} values, sphere_ratio has "
                         f"{sphere.size}")
    if sphere.size > 3:
        # As many groups as the figure's width holds with labels that do not collide.
        any_torus = torus is not None and bool(np.any(np.isfinite(torus)))
        limit = max(3, min(limit, _groups_that_fit(figure, sphere.size, any_torus)))
    sphere, torus, rest_label = first_components(
        sphere, torus, None if torus_remaining is None else 100.0 * torus_remaining, limit)
    d = sphere.size
    has_torus = torus is not None and bool(np.any(np.isfinite(torus)))

    ax = fresh_axes(figure)
    positions = np.arange(d, dtype=np.float64)
    if rest_label is not None:
        # A gap sets the rest (not a component) apart and gives its tick room.
        positions[-1] += _REST_GAP
    width = 0.4 if has_torus else 0.6
    offset = width / 2 if has_torus else 0.0
    label_kw = _value_label_style(figure, d, 2 if has_torus else 1)
    x_span = positions[-1] + 1.2 if d > 1 else 2.4
    label_kw["inside"] = _inside_label_style(
        figure, _AXES_SHARE * figure.bbox.width * width / x_span, label_kw["fontsize"])

    sphere_bars = ax.bar(positions - offset, sphere, width=width, color=SPHERE_COLOR,
                         label="sphere (PNS)", zorder=2)
    _label_bars(ax, sphere_bars, sphere, label_kw)
    handles = [Patch(facecolor=SPHERE_COLOR)]
    names = ["sphere (PNS)"]
    if has_torus:
        assert torus is not None
        finite = np.isfinite(torus)
        torus_bars = ax.bar(positions[finite] + offset, torus[finite], width=width,
                            color=TORUS_COLOR, label="torus", zorder=2)
        _label_bars(ax, torus_bars, torus[finite], label_kw)
        handles.append(Patch(facecolor=TORUS_COLOR))
        names.append("torus")
    else:
        handles.append(Patch(facecolor="none", edgecolor="none"))
        names.append("torus: not computed")
        if title:
            title = f"{title} (torus not computed)"

    # "PNS1", "PNS2", … while they fit side by side, else the component numbers alone.
    # (Capitals are wider than digits: one character more.)
    named = _fits(figure, x_span, len(f"PNS{d}") + 1, TICK_SIZE)
    ticks = [f"PNS{k + 1}" if named else f"{k + 1}" for k in range(d)]
    if rest_label is not None:
        # The slot is a component's: its range goes into the axis label.
        ticks[-1] = "rest"
        # The rest is not a component: its bars are hatched.
        for container in ax.containers:
            container.patches[-1].set_hatch("///")
            container.patches[-1].set_edgecolor("white")
    ax.set_xticks(positions, ticks, rotation=0 if d <= 12 else 90)
    ax.set_ylim(0.0, 100.0)
    # One component: room on the right for the legend beside the (100 %) bars.
    ax.set_xlim(-0.6, positions[-1] + 0.6 if d > 1 else 1.8)
    ax.set_ylabel("explained variance (%)" if title else "variance (%)")
    if rest_label is not None:
        # The longest wording that fits the figure's width.
        size = ax.xaxis.label.get_size()
        wordings = (f"PNS component (rest: PNS{rest_label} together)",
                    f"PNS component (rest: {rest_label})", f"rest: PNS{rest_label}")
        ax.set_xlabel(next((text for text in wordings
                            if _fits(figure, 1, len(text), size, share=0.95)), wordings[-1]))
    elif not named:
        ax.set_xlabel("PNS component")
    elif title:
        ax.set_xlabel("component")
    ax.grid(False, axis="x")
    if title:
        # Upper right: the ratios decrease with the component, so the right end is low.
        ax.legend(handles, names, loc="upper right", fontsize=8, framealpha=0.9)
        ax.set_title(title, loc="left")
    else:
        ax.legend(handles, names, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncols=2,
                  fontsize=8, frameon=False, borderaxespad=0.2, handlelength=1.2,
                  columnspacing=1.0)
    return ax


def _groups_that_fit(figure: Figure, components: int, with_torus: bool) -> int:
    """Components (all, or some and a rest group) whose vertical value labels fit side by
    side in the figure's width: neighbouring bars are 0.4 of a component's slot apart with
    the torus bars, 1 without."""
    label = _LINE_HEIGHT * _VERTICAL_SIZE * figure.dpi / 72.0
    slots = _AXES_SHARE * figure.bbox.width / (label / (0.4 if with_torus else 1.0))
    if components <= slots - 0.2:
        return components  # all of them, as drawn without a rest
    return int(slots - 1.2 - _REST_GAP)


def _fits(figure: Figure, slots: float, characters: int, points: float,
          share: float = _AXES_SHARE) -> bool:
    """Whether ``characters`` digits in a ``points`` font fit, side by side, in each of
    ``slots`` equal slots across ``share`` of the figure's width (default: its axes)."""
    slot = share * figure.bbox.width / slots
    return characters * _CHAR_WIDTH * points * figure.dpi / 72.0 <= 0.95 * slot


def _value_label_style(figure: Figure, d: int, bars_per_component: int) -> dict:
    """Upright value labels when those of neighbouring bars fit side by side in the
    figure's width, else vertical ones in a smaller font."""
    widest = len("100.0") if d == 1 else len("00.0")
    if _fits(figure, d * bars_per_component, widest, _UPRIGHT_SIZE):
        return {"fontsize": _UPRIGHT_SIZE, "rotation": 0, "padding": 2}
    return {"fontsize": _VERTICAL_SIZE, "rotation": 90, "padding": 2}


def _inside_label_style(figure: Figure, bar_pixels: float, points: float) -> dict:
    """Rotation and font size of the labels written inside tall bars: they must fit the
    bar's width (white text past the edge looks clipped), upright when they can."""
    pixels_per_point = figure.dpi / 72.0
    if len("00.0") * _CHAR_WIDTH * points * pixels_per_point <= 0.9 * bar_pixels:
        return {"rotation": 0, "fontsize": points}
    # Vertical: the text's width across the bar is its line height; keep a pixel aside.
    fitting = (bar_pixels - 3.0) / (_LINE_HEIGHT * pixels_per_point)
    return {"rotation": 90, "fontsize": float(np.clip(fitting, _SMALLEST_SIZE, points))}


def _label_bars(ax: Axes, bars, values: np.ndarray, label_kw: dict) -> None:
    """Write each value on its bar: above it, or inside (centred, white) for tall bars."""
    label_kw = dict(label_kw)
    inside = label_kw.pop("inside", {})
    tall = values > (_INSIDE_ABOVE if label_kw["rotation"] == 0 else _INSIDE_ABOVE_VERTICAL)
    ax.bar_label(bars, labels=[f"{v:.1f}" if not t else "" for v, t in zip(values, tall,
                                                                          strict=True)],
                 **label_kw)
    ax.bar_label(bars, labels=[f"{v:.1f}" if t else "" for v, t in zip(values, tall,
                                                                      strict=True)],
                 label_type="center", color="white",
                 **{**label_kw, "padding": 0, **inside})
