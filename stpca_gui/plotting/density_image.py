"""Scatter plots of very many points drawn as a density image (a coloured 2-D histogram).

A marker per sample costs its area in rasterisation on every render; at 10⁶ samples a score
plot would take seconds to draw and show an opaque blot. :class:`DensityGrid` puts every
sample into a cell of a fixed grid once, so that the image of any subset (the whole sample,
or the selection after each change) costs one ``bincount`` over the subset. A cell shows the
mean colour of its samples, with an opacity that grows with the logarithm of their number.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["DENSITY_BINS", "DensityGrid"]

#: Cells of the density image across and up the axes.
DENSITY_BINS = (400, 300)


class DensityGrid:
    """The cell of a fixed grid that each point falls into.

    Parameters
    ----------
    x, y : array_like, shape (n,)
        Data coordinates.
    xlim, ylim : (float, float)
        The extent of the grid; points outside go to the nearest border cell.
    bins : (int, int), default :data:`DENSITY_BINS`
        Cells across and up.
    """

    def __init__(self, x: ArrayLike, y: ArrayLike, xlim: tuple[float, float],
                 ylim: tuple[float, float], bins: tuple[int, int] = DENSITY_BINS) -> None:
        self.width, self.height = int(bins[0]), int(bins[1])
        x0, x1 = (float(v) for v in xlim)
        y0, y1 = (float(v) for v in ylim)
        if not (x1 > x0 and y1 > y0):
            raise ValueError(f"the grid needs a positive extent, got x {xlim}, y {ylim}")
        self.extent = (x0, x1, y0, y1)
        column = _cell_index(np.asarray(x, dtype=np.float64), x0, x1, self.width)
        row = _cell_index(np.asarray(y, dtype=np.float64), y0, y1, self.height)
        self.cells = (row * self.width + column).astype(np.int32)

    @property
    def n_cells(self) -> int:
        return self.width * self.height

    def counts(self, index: ArrayLike | None = None) -> NDArray[np.int64]:
        """Points per cell, shape (height, width), of all points or of ``index`` (indices
        or a boolean mask)."""
        cells = self.cells if index is None else self.cells[index]
        return np.bincount(cells, minlength=self.n_cells).reshape(self.height, self.width)

    def sums(self, rgb: ArrayLike, index: ArrayLike | None = None
             ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Points per cell (n_cells,) and the sums of their RGB colours (n_cells, 3).

        Parameters
        ----------
        rgb : array_like, shape (k, 3) or (k, 4)
            Colour of each of the points ``index`` (alpha is ignored).
        index : array_like of int or bool mask, optional
            The points (default all).
        """
        cells = self.cells if index is None else self.cells[index]
        colours = np.asarray(rgb, dtype=np.float64)
        if colours.shape[0] != cells.size:
            raise ValueError(f"{colours.shape[0]} colours for {cells.size} points")
        counts = np.bincount(cells, minlength=self.n_cells).astype(np.float64)
        sums = np.column_stack([np.bincount(cells, weights=colours[:, c],
                                            minlength=self.n_cells) for c in range(3)])
        return counts, sums

    def image_of(self, counts: ArrayLike, sums: ArrayLike,
                 opacity: tuple[float, float] = (0.3, 1.0)) -> tuple[NDArray[np.float64],
                                                                    NDArray[np.int64]]:
        """RGBA image (height, width, 4) from points per cell and colour sums (as
        :meth:`sums` gives them, or differences of those), and the points per cell."""
        counts = np.rint(np.asarray(counts, dtype=np.float64)).astype(np.int64)
        sums = np.asarray(sums, dtype=np.float64)
        filled = counts > 0
        out = np.zeros((self.n_cells, 4))
        out[filled, :3] = np.clip(sums[filled] / counts[filled, None], 0.0, 1.0)
        if filled.any():
            low, high = opacity
            level = np.log1p(counts[filled]) / np.log1p(counts.max())
            out[filled, 3] = low + (high - low) * level
        shape = (self.height, self.width)
        return out.reshape(*shape, 4), counts.reshape(shape)

    def image(self, rgb: ArrayLike, index: ArrayLike | None = None,
              opacity: tuple[float, float] = (0.3, 1.0)) -> tuple[NDArray[np.float64],
                                                                 NDArray[np.int64]]:
        """RGBA image (height, width, 4) of the points ``index`` (default all) and the
        points per cell.

        Parameters
        ----------
        rgb : array_like, shape (k, 3) or (k, 4)
            Colour of each of those points (alpha is ignored): a cell shows their mean.
        index : array_like of int or bool mask, optional
        opacity : (float, float)
            Opacity of a cell with one point and of the fullest cell; in between it grows
            with log(1 + count). Empty cells are transparent.
        """
        return self.image_of(*self.sums(rgb, index), opacity=opacity)


def _cell_index(values: NDArray[np.float64], lo: float, hi: float, cells: int
                ) -> NDArray[np.intp]:
    index = np.floor((values - lo) * (cells / (hi - lo))).astype(np.intp)
    return np.clip(index, 0, cells - 1)
