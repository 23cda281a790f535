"""Free-energy landscape over two scores: F = −kT ln p from a weighted 2-D histogram.

The probability of a cell is the (weighted) share of the frames in it; F is shown relative
to its minimum (the most populated cell has F = 0), in units of kT or, at a temperature,
in kJ/mol or kcal/mol. Cells without frames have no free energy: they are left blank (NaN,
drawn transparent), never 0 nor the maximum. The bins per axis follow the smaller width of
the Freedman–Diaconis and Sturges rules unless a number is given, and the figure states
which. PNS1 is an angle: on its axis the bins tile exactly one period, so
the first and the last bin are neighbours, and the contour lines continue across the seam.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from numpy.typing import ArrayLike, NDArray

from ..model.energy_units import AUTOMATIC_BINS, AUTOMATIC_MAX_BINS, BOLTZMANN, ENERGY_UNITS
from ..model.frame_weights import check_weights
from .mpl_common import FigurePlot, as_mask, as_rgba, fresh_axes, pns_label, style_axes
from .partial_redraw import PartialRedraw
from .regions import points_in_polygon, points_in_rectangle

__all__ = ["AUTOMATIC_BINS", "BOLTZMANN", "ENERGY_UNITS", "FreeEnergyGrid", "FreeEnergyLandscape",
           "FreeEnergyPlot",
           "automatic_bin_width", "bin_edges", "check_weights", "free_energy", "free_energy_grid"]

#: The quartiles of the Freedman–Diaconis rule come from an even subset of this many
#: values at most.
IQR_SAMPLE = 100_000
#: Colormap of F (sequential, perceptually uniform); low F (populated) dark.
COLORMAP = "viridis"
#: Contour lines at these steps of F, in kT (converted into the unit shown).
CONTOUR_STEP_KT = 1.0
#: Selected frames are marked on the landscape up to this many (an even subset beyond).
MARKED_UP_TO = 3000
#: z-order of the marks of the selected frames (above the image and the contours).
_MARKS_Z = 3.0


def automatic_bin_width(x: NDArray[np.float64]) -> tuple[float, str]:
    """The bin width of the automatic choice (:data:`AUTOMATIC_BINS`) for the values ``x``,
    and the rule that gave it.

    The Freedman–Diaconis width 2·IQR·n^(−1/3) alone is far too wide for multimodal data
    (the interquartile range spans the gaps between basins: three well-separated states of
    300 frames got 6 bins over the period, one basin drawn); Sturges' range/(log₂ n + 1)
    resolves them at small n and is the wider of the two at large n (numpy's "auto").
    Scott's 3.49·σ·n^(−1/3) stands in for Freedman–Diaconis when the IQR is 0.
    """
    n = max(x.size, 1)
    if not x.size:
        return 0.0, "Sturges"
    # The quartiles of an even subset of at most IQR_SAMPLE values: their error is far
    # below a bin's width, and 10⁶ frames redraw without two full partitions.
    sample = x[::max(1, x.size // IQR_SAMPLE)]
    q75, q25 = np.percentile(sample, [75, 25])
    width, rule = 2.0 * (q75 - q25) * n ** (-1 / 3), "Freedman–Diaconis"
    if not width > 0:
        width, rule = 3.49 * float(np.std(x)) * n ** (-1 / 3), "Scott"
    sturges = float(np.ptp(x)) / (np.log2(n) + 1.0)
    if sturges > 0 and not width <= sturges:
        width, rule = sturges, "Sturges"
    return width, rule


def bin_edges(values: ArrayLike, bins: int | None = None, period: float | None = None
              ) -> tuple[NDArray[np.float64], str]:
    """Edges of the bins of one axis, and the rule that chose their number.

    Parameters
    ----------
    values : array_like, shape (n,)
    bins : int, optional
        A number of bins; default: :data:`AUTOMATIC_BINS` (see
        :func:`automatic_bin_width`).
    period : float, optional
        The axis is an angle of this period: the bins tile [−period/2, period/2).
    """
    x = np.asarray(values, dtype=np.float64)
    if period is not None:
        lo, hi = -0.5 * float(period), 0.5 * float(period)
    elif x.size:
        lo, hi = float(x.min()), float(x.max())
        if hi <= lo:
            lo, hi = lo - 0.5, hi + 0.5
    else:
        lo, hi = -0.5, 0.5
    if bins is not None:
        count = int(bins)
        if count < 1:
            raise ValueError(f"the number of bins must be ≥ 1, got {bins}")
        rule = "set"
    else:
        width, rule = automatic_bin_width(x)
        count = int(np.ceil((hi - lo) / width)) if width > 0 else 1
        if count > AUTOMATIC_MAX_BINS:  # a rule asking for more is capped, and said so
            count, rule = AUTOMATIC_MAX_BINS, f"{rule}, capped"
    return np.linspace(lo, hi, count + 1), rule


@dataclass(frozen=True)
class FreeEnergyGrid:
    """A free-energy landscape on a grid of cells.

    Attributes
    ----------
    x_edges, y_edges : ndarray
        Cell edges (nx + 1 and ny + 1 values).
    energy : ndarray, shape (ny, nx)
        F of each cell relative to the lowest, NaN where no frame (of positive weight) is.
    unit : str
        One of :data:`ENERGY_UNITS`.
    temperature : float or None
        In kelvin (None for kT).
    rules : (str, str)
        How the numbers of bins of x and y were chosen.
    periodic : (bool, bool)
        Whether each axis is an angle whose bins tile one period.
    """

    x_edges: NDArray[np.float64]
    y_edges: NDArray[np.float64]
    energy: NDArray[np.float64]
    unit: str
    temperature: float | None
    rules: tuple[str, str]
    periodic: tuple[bool, bool]

    @property
    def kt(self) -> float:
        """kT in the grid's unit (1 for kT)."""
        return 1.0 if self.temperature is None else BOLTZMANN[self.unit] * self.temperature

    def value_at(self, x: float, y: float) -> float:
        """F of the cell holding (x, y) (NaN outside the grid or in an empty cell)."""
        i = np.searchsorted(self.x_edges, x, side="right") - 1
        j = np.searchsorted(self.y_edges, y, side="right") - 1
        if not (0 <= i < self.energy.shape[1] and 0 <= j < self.energy.shape[0]):
            return float("nan")
        return float(self.energy[j, i])

    def description(self) -> str:
        """What the figure shows and how: unit, temperature, bins and their rule."""
        unit = "kT" if self.temperature is None else f"{self.unit} at {self.temperature:g} K"
        nx, ny = len(self.x_edges) - 1, len(self.y_edges) - 1
        rules = (self.rules[0] if self.rules[0] == self.rules[1]
                 else f"{self.rules[0]} / {self.rules[1]}")
        return f"F = −kT ln p in {unit} · 2-D histogram {nx} × {ny} bins ({rules})"


def _cell_index(values: NDArray[np.float64], edges: NDArray[np.float64], periodic: bool
                ) -> NDArray[np.intp]:
    """The bin of each value (uniform edges); periodic values wrap into the period."""
    lo, hi, count = edges[0], edges[-1], len(edges) - 1
    scaled = values - lo
    scaled *= count / (hi - lo)
    np.floor(scaled, out=scaled)
    index = scaled.astype(np.intp)
    if periodic:
        np.remainder(index, count, out=index)
    else:
        np.clip(index, 0, count - 1, out=index)
    return index


def free_energy_grid(x: ArrayLike, y: ArrayLike, *, weights: ArrayLike | None = None,
                     bins: int | tuple[int | None, int | None] | None = None,
                     x_period: float | None = None, y_period: float | None = None,
                     unit: str = "kT", temperature: float = 300.0) -> FreeEnergyGrid:
    """The free-energy landscape of frames at (x, y).

    Parameters
    ----------
    x, y : array_like, shape (n,)
    weights : array_like, shape (n,), optional
        Per-frame weights (e.g. from enhanced sampling), checked by :func:`check_weights`.
    bins : int or (int, int), optional
        Bins per axis; default (None) by :func:`bin_edges`' rule.
    x_period, y_period : float, optional
        The axis is an angle of this period (PNS1: ``2π·circle_radius_``).
    unit : {"kT", "kJ/mol", "kcal/mol"}
    temperature : float, default 300
        In kelvin; ignored for kT.
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError("x and y must have the same length")
    if unit not in ENERGY_UNITS:
        raise ValueError(f"unit must be one of {', '.join(ENERGY_UNITS)}; got {unit!r}")
    if unit != "kT" and not (np.isfinite(temperature) and temperature > 0):
        raise ValueError(f"the temperature must be a positive number of kelvin, got "
                         f"{temperature}")
    w = None if weights is None else check_weights(weights, x.size)
    bx, by = bins if isinstance(bins, tuple) else (bins, bins)
    x_edges, x_rule = bin_edges(x, bx, x_period)
    y_edges, y_rule = bin_edges(y, by, y_period)
    nx, ny = len(x_edges) - 1, len(y_edges) - 1
    cell = (_cell_index(y, y_edges, y_period is not None) * nx
            + _cell_index(x, x_edges, x_period is not None))
    mass = np.bincount(cell, weights=w, minlength=nx * ny).reshape(ny, nx)
    kt = 1.0 if unit == "kT" else BOLTZMANN[unit] * float(temperature)
    with np.errstate(divide="ignore"):
        energy = -kt * np.log(mass)
    energy[mass <= 0] = np.nan
    if np.isfinite(energy).any():
        energy -= np.nanmin(energy)
    return FreeEnergyGrid(x_edges, y_edges, energy, unit,
                          None if unit == "kT" else float(temperature), (x_rule, y_rule),
                          (x_period is not None, y_period is not None))


def _periodic_padding(grid: FreeEnergyGrid) -> tuple[NDArray, NDArray, NDArray]:
    """Cell centres and energies with a periodic axis extended by one cell on each side
    (the other end's cells), so contour lines run on across the seam."""
    xc = 0.5 * (grid.x_edges[:-1] + grid.x_edges[1:])
    yc = 0.5 * (grid.y_edges[:-1] + grid.y_edges[1:])
    energy = grid.energy
    if grid.periodic[0]:
        step = grid.x_edges[-1] - grid.x_edges[0]
        xc = np.concatenate([[xc[-1] - step], xc, [xc[0] + step]])
        energy = np.concatenate([energy[:, -1:], energy, energy[:, :1]], axis=1)
    if grid.periodic[1]:
        step = grid.y_edges[-1] - grid.y_edges[0]
        yc = np.concatenate([[yc[-1] - step], yc, [yc[0] + step]])
        energy = np.concatenate([energy[-1:], energy, energy[:1]], axis=0)
    return xc, yc, energy


@dataclass
class FreeEnergyPlot:
    """What :func:`free_energy` drew: the grid, the image, the contour set, the colour bar."""

    grid: FreeEnergyGrid
    image: AxesImage
    contours: object | None
    colorbar: object | None


def free_energy(ax: Axes, scores: ArrayLike, i: int = 0, j: int = 1, *,
                weights: ArrayLike | None = None, weights_name: str | None = None,
                period: float | None = None, bins: int | None = None, unit: str = "kT",
                temperature: float = 300.0, colorbar: bool = True,
                axis_names: tuple[str, str] | None = None) -> FreeEnergyPlot:
    """Draw the free-energy landscape of PNS_(i+1) and PNS_(j+1) into ``ax``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Drawn into as it is (the caller clears it).
    scores : array_like, shape (n, d)
        PNS scores, column 0 = PNS1 (an angle of period ``period``).
    i, j : int
        0-based components of the x and y axes (different).
    weights : array_like, shape (n,), optional
        Per-frame weights; ``weights_name`` names them on the figure.
    period : float, optional
        The period of PNS1 (``2π·circle_radius_``): with it, a PNS1 axis is periodic.
    bins, unit, temperature
        As :func:`free_energy_grid`.
    colorbar : bool, default True
        Add a colour bar of F.
    axis_names : (str, str), optional
        Axis labels (default PNS labels).

    Returns
    -------
    FreeEnergyPlot

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> plot = free_energy(fig.add_subplot(), model.scores_, 0, 1,
    ...                    period=2 * np.pi * model.pns_.circle_radius_)  # doctest: +SKIP
    """
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim != 2 or values.shape[1] < 2:
        raise ValueError(f"scores must have shape (n, d) with d ≥ 2, got {values.shape}")
    d = values.shape[1]
    if not (0 <= i < d and 0 <= j < d) or i == j:
        raise ValueError(f"components must be two different indices in 0..{d - 1}, got "
                         f"({i}, {j})")
    grid = free_energy_grid(values[:, i], values[:, j], weights=weights, bins=bins,
                            x_period=period if i == 0 else None,
                            y_period=period if j == 0 else None,
                            unit=unit, temperature=temperature)
    style_axes(ax)
    ax.grid(False)
    cmap = colormaps[COLORMAP].with_extremes(bad=(0.0, 0.0, 0.0, 0.0))  # empty: blank
    finite = grid.energy[np.isfinite(grid.energy)]
    top = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    extent = (grid.x_edges[0], grid.x_edges[-1], grid.y_edges[0], grid.y_edges[-1])
    image = ax.imshow(np.ma.masked_invalid(grid.energy), origin="lower", extent=extent,
                      aspect="auto", interpolation="nearest", cmap=cmap, vmin=0.0, vmax=top,
                      zorder=1)
    contours = None
    step = CONTOUR_STEP_KT * grid.kt
    levels = np.arange(step, top, step)
    if levels.size and min(grid.energy.shape) > 1:
        xc, yc, energy = _periodic_padding(grid)
        contours = ax.contour(xc, yc, np.ma.masked_invalid(energy), levels=levels[:40],
                              colors="white", linewidths=0.6, alpha=0.8, zorder=2)
    ax.set_xlim(extent[:2])
    ax.set_ylim(extent[2:])
    names = axis_names or (pns_label(i), pns_label(j))
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    unit_text = "kT" if grid.temperature is None else grid.unit
    bar = None
    if colorbar:
        bar = ax.figure.colorbar(image, ax=ax, pad=0.01)
        bar.set_label(f"F ({unit_text})", fontsize=9)
        bar.ax.tick_params(labelsize=8)
    note = grid.description()
    if weights is not None:
        note += f" · weights: {weights_name or 'given'}"
    note += f" · contours every {CONTOUR_STEP_KT:g} kT · blank: no frames"
    ax.set_title(note, fontsize=7, loc="left", wrap=True)
    return FreeEnergyPlot(grid, image, contours, bar)


class FreeEnergyLandscape(FigurePlot):
    """The app's landscape view in a given figure
    (:class:`~stpca_gui.plotting.mpl_common.FigurePlot`): :func:`free_energy` of two
    components, the selected frames marked on top, and the frames inside a drawn region."""

    def __init__(self, figure: Figure) -> None:
        super().__init__(figure)
        self._scores = np.empty((0, 2))
        self._pair = (0, 1)
        self._xy: NDArray[np.float64] | None = None
        self._plot: FreeEnergyPlot | None = None
        self._marks: PathCollection | None = None

    @property
    def plot(self) -> FreeEnergyPlot | None:
        """What the last :meth:`draw` drew (None before)."""
        return self._plot

    @property
    def positions(self) -> NDArray[np.float64]:
        """Data coordinates (n, 2) of the frames on the landscape."""
        if self._xy is None:
            self._xy = np.ascontiguousarray(self._scores[:, self._pair])
        return self._xy

    @property
    def n_marked(self) -> int:
        """How many selected frames are marked."""
        return 0 if self._marks is None else len(self._marks.get_offsets())

    def draw(self, scores: ArrayLike, i: int, j: int, *, colors: ArrayLike | None = None,
             selected: ArrayLike | None = None, **options) -> FreeEnergyPlot:
        """Draw the landscape of PNS_(i+1), PNS_(j+1) (``options`` as :func:`free_energy`)
        and mark the selected frames."""
        values = np.asarray(scores, dtype=np.float64)
        self._ax = fresh_axes(self.figure)
        self._plot = free_energy(self._ax, values, i, j, **options)
        self._scores, self._pair = values, (i, j)
        self._xy = None  # the points' coordinates, made when a region asks for them
        self._marks = self._ax.scatter([], [], s=9, edgecolors="black", linewidths=0.4,
                                       zorder=_MARKS_Z)
        self._partial = PartialRedraw(self._ax, _MARKS_Z - 0.1)
        self.update_colors(colors, selected)
        return self._plot

    def update_colors(self, colors: ArrayLike | None, selected: ArrayLike | None) -> None:
        """Mark the selected frames (an even subset of :data:`MARKED_UP_TO` when more) in
        their colours."""
        if self._marks is None:
            raise RuntimeError("draw the landscape before marking a selection")
        n = self._scores.shape[0]
        chosen = np.flatnonzero(as_mask(selected, n))
        if chosen.size > MARKED_UP_TO:
            chosen = chosen[np.linspace(0, chosen.size - 1, MARKED_UP_TO).astype(np.intp)]
        rgba = (colors.at(chosen) if hasattr(colors, "at")
                else as_rgba(colors, n, "#D55E00")[chosen])
        rgba = np.array(rgba, dtype=np.float64).reshape(-1, 4)
        rgba[:, 3] = 1.0
        self._marks.set_offsets(self._scores[np.ix_(chosen, self._pair)])
        self._marks.set_facecolor(rgba)

    def points_in_polygon(self, vertices: ArrayLike) -> NDArray[np.bool_]:
        """Frames inside a polygon (a lasso) in data coordinates."""
        return points_in_polygon(self.positions, vertices)

    def points_in_rectangle(self, x0: float, y0: float, x1: float, y1: float
                            ) -> NDArray[np.bool_]:
        """Frames inside a rectangle in data coordinates (boundary included)."""
        return points_in_rectangle(self.positions, x0, y0, x1, y1)
