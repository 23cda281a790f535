"""Geometry of the flat torus T^d = [-π, π)^d.

Angles are wrapped to the half-open interval [-π, π); the geodesic distance is the
Euclidean norm of the coordinate-wise shortest angular differences (paper, section 2.1).
Distance matrices are filled by a compiled loop, so the output is the only large array.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._torus_kernel import fill_torus_cdist

TWO_PI = 2.0 * np.pi


def wrap_angles(angles: ArrayLike) -> NDArray[np.float64]:
    """Wrap angles (radians) to the interval [-π, π).

    Parameters
    ----------
    angles : array_like
        Angles in radians, any real values.

    Returns
    -------
    ndarray
        Float array of the same shape with every value in [-π, π).
    """
    a = np.asarray(angles, dtype=np.float64)
    wrapped = np.mod(a + np.pi, TWO_PI) - np.pi
    # np.mod can return exactly 2π for tiny negative inputs after rounding; fold it back.
    return np.where(wrapped >= np.pi, wrapped - TWO_PI, wrapped)


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


def torus_pdist(x: ArrayLike) -> NDArray[np.float64]:
    """Square matrix of pairwise torus geodesic distances of the rows of ``x``."""
    xa = np.atleast_2d(np.asarray(x, dtype=np.float64))
    dist = torus_cdist(xa, xa)
    np.fill_diagonal(dist, 0.0)
    return dist
