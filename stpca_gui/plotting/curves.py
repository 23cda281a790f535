"""Cutting torus polylines into pieces that can be drawn inside the cube [-π, π)^d.

A curve on the torus that crosses a face of the cube continues on the opposite face: drawn
naively, the segment would cut straight across the cube. Each step between consecutive
points is taken along the shortest torus displacement, and where it leaves the cube the
piece ends on that face and the next piece starts on the opposite one. Segments flagged as
breaks (discontinuities of the prediction) are not drawn at all.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..core.geometry.torus import wrap_angles

_PI = np.pi


def periodic_pieces(
    points: ArrayLike,
    *,
    closed: bool = True,
    breaks: ArrayLike | None = None,
) -> list[NDArray[np.float64]]:
    """Split a torus polyline into pieces that stay inside [-π, π]^d.

    Parameters
    ----------
    points : array_like, shape (m, d)
        Angles in radians (wrapped internally).
    closed : bool
        Join the last point back to the first.
    breaks : array_like of bool, shape (m,), optional
        ``breaks[j]`` suppresses the segment from point j to point j + 1 (mod m).

    Returns
    -------
    list of ndarray, each of shape (k, d) with k >= 2
        Polylines to draw; consecutive points of a piece are joined by straight lines.
    """
    pts = wrap_angles(np.atleast_2d(np.asarray(points, dtype=np.float64)))
    m, d = pts.shape
    n_segments = m if closed else m - 1
    skip = np.zeros(m, dtype=bool) if breaks is None else np.asarray(breaks, dtype=bool)
    pieces: list[NDArray[np.float64]] = []
    current: list[NDArray[np.float64]] = []

    def flush() -> None:
        if len(current) >= 2:
            pieces.append(np.array(current))
        current.clear()

    for j in range(n_segments):
        start = pts[j]
        if skip[j]:
            flush()
            continue
        step = wrap_angles(pts[(j + 1) % m] - start)
        if current and np.any(np.abs(current[-1] - start) > _PI):
            # The previous step ended exactly on a face (value π) and this one starts from
            # the glued face (−π after wrapping): a new piece, not a line across the cube.
            flush()
        if not current:
            current.append(start.copy())
        # Parameters t in (0, 1] where the straight step meets a face of the cube.
        crossings: list[tuple[float, int, float]] = []
        for k in range(d):
            if step[k] > 0 and start[k] + step[k] > _PI:
                crossings.append(((_PI - start[k]) / step[k], k, _PI))
            elif step[k] < 0 and start[k] + step[k] < -_PI:
                crossings.append(((-_PI - start[k]) / step[k], k, -_PI))
        crossings.sort()
        position = start.copy()
        travelled = 0.0
        for t, k, face in crossings:
            position = position + (t - travelled) * step
            position[k] = face
            current.append(position.copy())
            flush()
            position[k] = -face  # continue from the glued opposite face
            current.append(position.copy())
            travelled = t
        current.append(position + (1.0 - travelled) * step)
    flush()
    if closed and len(pieces) >= 2 and not skip[m - 1] and not skip[0]:
        # The closing segment ends where the first piece starts: glue them into one piece.
        if np.allclose(pieces[-1][-1], pieces[0][0]):
            pieces[0] = np.vstack([pieces.pop()[:-1], pieces[0]])
    return pieces
