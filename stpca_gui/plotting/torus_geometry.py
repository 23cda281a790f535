"""Where torus data go in the 3-D scenes: the doughnut and circle embeddings of angles, and
torus curves split into drawable runs.

The glued cube's own cutting of curves at its faces is in :mod:`stpca_gui.plotting.curves`;
here a sampled curve is split only at its breaks (discontinuities of the prediction) and
unwrapped step by step, so that each run can be mapped through the periodic embeddings.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..core.geometry.torus import wrap_angles

__all__ = ["DOUGHNUT_MAJOR_RADIUS", "DOUGHNUT_MINOR_RADIUS", "break_runs",
           "circle_coordinates", "densify", "doughnut_coordinates"]

DOUGHNUT_MAJOR_RADIUS = 2.0
DOUGHNUT_MINOR_RADIUS = 1.0


def break_runs(
    angles: ArrayLike, breaks: ArrayLike | None = None, *, closed: bool = True
) -> list[NDArray[np.float64]]:
    """Split a sampled torus curve at its breaks, without cutting at the cube faces.

    Consecutive points of each run are unwrapped (each step is the shortest torus
    displacement), so the runs can be mapped through any periodic embedding (doughnut,
    circle) and drawn as polylines.

    Parameters
    ----------
    angles : array_like, shape (m, k)
    breaks : array_like of bool, shape (m,), optional
        ``breaks[j]`` suppresses the segment from point j to point j + 1 (mod m).
    closed : bool
        Join the last point back to the first.

    Returns
    -------
    list of ndarray, each of shape (p, k) with p >= 2
    """
    pts = np.atleast_2d(np.asarray(angles, dtype=np.float64))
    m = pts.shape[0]
    skip = np.zeros(m, dtype=bool) if breaks is None else np.asarray(breaks, dtype=bool).copy()
    if skip.shape != (m,):
        raise ValueError(f"breaks must have shape ({m},), got {skip.shape}")
    if not closed:
        skip[m - 1] = True
    if m < 2:
        return []
    if not skip.any():
        order = np.r_[np.arange(m), 0]
        runs_idx = [order]
    else:
        start = (int(np.flatnonzero(skip)[0]) + 1) % m
        runs_idx = []
        current = [start]
        for step in range(m):
            j = (start + step) % m
            if skip[j]:
                if len(current) >= 2:
                    runs_idx.append(np.array(current))
                current = [(j + 1) % m]
            else:
                current.append((j + 1) % m)
        if len(current) >= 2:
            runs_idx.append(np.array(current))
    runs = []
    for idx in runs_idx:
        seg = pts[idx]
        steps = wrap_angles(np.diff(seg, axis=0))
        runs.append(np.vstack([seg[:1], seg[:1] + np.cumsum(steps, axis=0)]))
    return runs


def densify(run: NDArray[np.float64], substeps: int) -> NDArray[np.float64]:
    """Linear subdivision of a polyline (in angle space)."""
    if substeps <= 1 or len(run) < 2:
        return run
    t = np.linspace(0.0, 1.0, substeps, endpoint=False)
    a, b = run[:-1], run[1:]
    dense = (a[:, None, :] + t[None, :, None] * (b - a)[:, None, :]).reshape(-1, run.shape[1])
    return np.vstack([dense, run[-1:]])


def doughnut_coordinates(
    phi1: ArrayLike, phi2: ArrayLike, *, major: float = DOUGHNUT_MAJOR_RADIUS,
    minor: float = DOUGHNUT_MINOR_RADIUS,
) -> NDArray[np.float64]:
    """Standard embedding of T² in R³ as a torus of revolution.

    Parameters
    ----------
    phi1, phi2 : array_like
        Angles around the symmetry (z) axis and around the tube.
    major, minor : float
        Distance of the tube's centre from the axis, and the tube radius.

    Returns
    -------
    ndarray, shape (..., 3)
        ``((R + r cos φ2) cos φ1, (R + r cos φ2) sin φ1, r sin φ2)``.
    """
    p1 = np.asarray(phi1, dtype=np.float64)
    p2 = np.asarray(phi2, dtype=np.float64)
    ring = major + minor * np.cos(p2)
    return np.stack([ring * np.cos(p1), ring * np.sin(p1), minor * np.sin(p2)], axis=-1)


def circle_coordinates(phi: ArrayLike, radius: float = 1.0, z: float = 0.0) -> NDArray:
    """Points ``(r cos φ, r sin φ, z)`` of a horizontal circle, shape (..., 3)."""
    p = np.asarray(phi, dtype=np.float64)
    return np.stack([radius * np.cos(p), radius * np.sin(p), np.full_like(p, z)], axis=-1)
