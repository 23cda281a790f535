"""Geometry of the flat torus T^d = [-π, π)^d.

Angles are wrapped to the half-open interval [-π, π); the geodesic distance is the
Euclidean norm of the coordinate-wise shortest angular differences (paper, section 2.1).
Distance matrices are filled by a compiled loop, so the output is the only large array.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.progress import CancelCheck
from ._torus_kernel import fill_torus_cdist

TWO_PI = 2.0 * np.pi
#: Matrix entries filled between two cancel checks of :func:`torus_pdist` (about 30 ms).
_PDIST_BLOCK_ENTRIES = 1 << 22


def wrap_angles(angles: ArrayLike, period: float = TWO_PI, *,
                out: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    """Wrap angles to the half-open interval [-P/2, P/2), by default [-π, π).

    This is the project's one wrapping rule; every module wraps through it.

    Parameters
    ----------
    angles : array_like
        Angles (radians by default), any real values.
    period : float, default 2π
        The period ``P``; e.g. a score axis scaled to another period.
    out : ndarray of float64, optional
        Where to write the result (may be ``angles`` itself: wrapped in place, without a
        temporary of its size); the same values as without, bit for bit.

    Returns
    -------
    ndarray
        Float array of the same shape with every value in [-P/2, P/2).
    """
    a = np.asarray(angles, dtype=np.float64)
    half = 0.5 * period
    if out is not None:
        np.add(a, half, out=out)
        np.mod(out, period, out=out)
        np.subtract(out, half, out=out)
        out[out >= half] -= period
        return out
    wrapped = np.mod(a + half, period) - half
    # np.mod can return exactly P for tiny negative inputs after rounding; fold it back.
    return np.where(wrapped >= half, wrapped - period, wrapped)


def degrees_to_radians(angles: ArrayLike) -> NDArray[np.float64]:
    """Convert degrees to radians wrapped to [-π, π)."""
    return wrap_angles(np.deg2rad(np.asarray(angles, dtype=np.float64)))


def circular_difference(a: ArrayLike, b: ArrayLike) -> NDArray[np.float64]:
    """Shortest unsigned angular difference min(|a-b|, 2π-|a-b|), broadcasting."""
    diff = np.abs(wrap_angles(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)))
    return np.minimum(diff, TWO_PI - diff)


def torus_distance(x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
    """Geodesic distance on T^d between broadcastable arrays of points (last axis = d)."""
    diff = circular_difference(x, y)
    return np.sqrt(np.sum(diff * diff, axis=-1))


def torus_cdist(x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
    """Torus geodesic distances between every row of ``x`` and every row of ``y``.

    Parameters
    ----------
    x : array_like, shape (n, d)
    y : array_like, shape (m, d)

    Returns
    -------
    ndarray, shape (n, m)
        The only n×m allocation: distances are computed straight into it by a compiled,
        row-parallel loop, with no intermediate arrays.
    """
    xa = np.ascontiguousarray(wrap_angles(np.atleast_2d(x)))
    ya = np.ascontiguousarray(wrap_angles(np.atleast_2d(y)))
    if xa.shape[1] != ya.shape[1]:
        raise ValueError(
            f"points have different dimensions: {xa.shape[1]} and {ya.shape[1]} angles"
        )
    out = np.empty((xa.shape[0], ya.shape[0]))
    fill_torus_cdist(xa, ya, out)
    return out


def torus_pdist(
    x: ArrayLike, check: CancelCheck | None = None
) -> NDArray[np.float64]:
    """Square matrix of pairwise torus geodesic distances of the rows of ``x``.

    Parameters
    ----------
    x : array_like, shape (n, d)
    check : callable, optional
        Called before each block of rows is filled; it raises
        :class:`~stpca_gui.core._base.progress.FitCancelled` to stop (an n × n matrix takes
        seconds for tens of thousands of points). The result does not depend on it.
    """
    blocks = list(torus_pdist_blocks(x, check))
    return blocks[-1][1] if blocks else np.empty((0, 0))


def torus_pdist_blocks(
    x: ArrayLike, check: CancelCheck | None = None
) -> Iterator[tuple[slice, NDArray[np.float64]]]:
    """Fill the pairwise distance matrix by row blocks, yielding ``(rows, matrix)`` after each.

    The caller may transform ``matrix[rows]`` in place before the next block is filled
    (classical MDS does, so that its passes over the n × n matrix are cancellable too).
    ``check`` is called before each block. Every entry is computed exactly as
    :func:`torus_cdist` computes it.
    """
    xa = np.ascontiguousarray(wrap_angles(np.atleast_2d(np.asarray(x, dtype=np.float64))))
    n = xa.shape[0]
    dist = np.empty((n, n))
    step = max(1, _PDIST_BLOCK_ENTRIES // max(n, 1))
    for begin in range(0, n, step):
        if check is not None:
            check()
        rows = slice(begin, min(n, begin + step))
        fill_torus_cdist(xa[rows], xa, dist[rows])
        # The diagonal of these rows: exact zeros (the kernel may leave rounding there).
        index = np.arange(rows.start, rows.stop)
        dist[index, index] = 0.0
        yield rows, dist
