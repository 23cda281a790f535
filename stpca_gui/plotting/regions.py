"""Which points lie in a region drawn on a 2-D view (lasso polygon or rectangle).

Shared by every view that selects by region (the scores scatter, the free-energy landscape,
the scores over time), so "inside" means the same everywhere: the boundary of a rectangle
counts as inside; a polygon is closed automatically.
"""

from __future__ import annotations

import numpy as np
from matplotlib.path import Path
from numpy.typing import ArrayLike, NDArray

__all__ = ["points_in_polygon", "points_in_rectangle"]


def points_in_polygon(xy: NDArray[np.float64], vertices: ArrayLike) -> NDArray[np.bool_]:
    """Mask of the points ``xy`` (n, 2) inside the polygon ``vertices`` (k, 2).

    Fewer than three corners enclose nothing. Only the points in the polygon's bounding box
    get the exact test, so a small lasso on 10⁶ points is quick.
    """
    corners = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    inside = np.zeros(xy.shape[0], dtype=bool)
    if corners.shape[0] < 3 or xy.shape[0] == 0:
        return inside
    (xlo, ylo), (xhi, yhi) = corners.min(axis=0), corners.max(axis=0)
    x, y = xy[:, 0], xy[:, 1]
    candidates = np.flatnonzero((x >= xlo) & (x <= xhi) & (y >= ylo) & (y <= yhi))
    inside[candidates] = Path(corners).contains_points(xy[candidates])
    return inside


def points_in_rectangle(xy: NDArray[np.float64], x0: float, y0: float, x1: float,
                        y1: float) -> NDArray[np.bool_]:
    """Mask of the points ``xy`` (n, 2) in the axis-aligned rectangle with corners (x0, y0)
    and (x1, y1), given in any order; the boundary counts as inside."""
    xlo, xhi = sorted((float(x0), float(x1)))
    ylo, yhi = sorted((float(y0), float(y1)))
    x, y = xy[:, 0], xy[:, 1]
    return (x >= xlo) & (x <= xhi) & (y >= ylo) & (y <= yhi)
