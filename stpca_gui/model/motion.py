"""The motion along a component: real frames nearest to evenly spaced points of it.

For component 1 the points are those of the **principal curve** (the fit's principal
circle mapped back to the torus, eq. invmds2), evenly spaced along the data's arc of
PNS1; for a component K > 1 they are the torus points of evenly spaced scores of
component K over the data's range, every other score 0 (``inverse_transform``). Each
point's **nearest frame on the torus** (geodesic distance √Σ wrap(θᵢ − φᵢ)², exact, from
a k-d tree of the frames on the periodic box [0, 2π)^d) is taken, in order, each frame
once: a movie of real conformations that follows the component, written by
:func:`~stpca_gui.io.structures.motion.write_frames` (multi-model PDB, DCD, XTC).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import cKDTree

from ..core import wrap_angles
from ..core.prediction.principal_curve import data_arc_offsets
from ..io.structures.representatives import torus_distances

__all__ = ["DEFAULT_MOTION_FRAMES", "MotionFrames", "motion_frames"]

#: Frames of a motion by default (fewer where the data have fewer distinct nearest frames).
DEFAULT_MOTION_FRAMES = 20
#: Points are spaced more densely, up to this many times the frames asked for, until that
#: many distinct frames are nearest to them.
_MOST_POINTS_PER_FRAME = 16


@dataclass(frozen=True)
class MotionFrames:
    """The frames of a motion along a component, in order.

    Attributes
    ----------
    component : int
        The component, 1…d.
    rows : ndarray of int, shape (m,)
        The data rows (frames) of the motion, in order, each once.
    targets : ndarray, shape (m, d)
        The point of the component (radians) each row is nearest to.
    positions : ndarray, shape (m,)
        Each point's position along the component (its PNS score K).
    distances : ndarray, shape (m,)
        Torus distance (radians) from each row to its point.
    points : int
        How many points were spaced along the component (m ≤ points).
    """

    component: int
    rows: NDArray[np.intp]
    targets: NDArray[np.float64]
    positions: NDArray[np.float64]
    distances: NDArray[np.float64]
    points: int


def _curve_points(model, n_points: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Evenly spaced points of the principal curve along the data's arc of PNS1, in order
    (angles, PNS1 values): between the curve's own points, on the torus geodesic joining
    the two neighbours (the segment the views draw)."""
    curve = vars(model).get("principal_curve_")
    if curve is None or len(curve.parameter) == 0:
        raise ValueError("the fit holds no principal curve (a scoring-only model has "
                         "none), so component 1 cannot be followed; refit the data")
    circumference = 2.0 * np.pi * model.pns_.circle_radius_
    offsets, length = data_arc_offsets(curve.parameter, model.scores_[:, 0], circumference)
    order = np.argsort(offsets, kind="stable")
    along = offsets[order]
    wanted = np.linspace(0.0, length, n_points)
    after = np.clip(np.searchsorted(along, wanted), 1, len(along) - 1) if len(along) > 1 else (
        np.zeros(n_points, dtype=np.intp))
    before = np.maximum(after - 1, 0)
    span = along[after] - along[before]
    share = np.divide(wanted - along[before], span, out=np.zeros(n_points), where=span > 0)
    share = np.clip(share, 0.0, 1.0)
    # Across a break of the curve (a jump, not drawn) the nearer end stands for the point.
    share = np.where(curve.breaks[order[before]], np.round(share), share)
    start, end = curve.angles[order[before]], curve.angles[order[after]]
    points = wrap_angles(start + share[:, None] * wrap_angles(end - start))
    half = circumference / 2.0
    parameter = np.mod(curve.parameter[order[before]] + share * span + half,
                       circumference) - half
    return points, parameter


def _component_points(model, component: int, n_points: int
                      ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Torus points of evenly spaced scores of a component over the data's range (every
    other score 0): (angles, scores)."""
    values = model.scores_[:, component - 1]
    positions = np.linspace(values.min(), values.max(), n_points)
    scores = np.zeros((n_points, model.scores_.shape[1]))
    scores[:, component - 1] = positions
    return np.asarray(model.inverse_transform(scores)), positions


def motion_frames(model, angles: NDArray[np.float64], component: int,
                  n_frames: int = DEFAULT_MOTION_FRAMES) -> MotionFrames:
    """The frames nearest to evenly spaced points of a component, in order.

    ``n_frames`` points are spaced along the component; where several share their nearest
    frame (each frame is written once), the points are spaced twice as densely, up to
    :data:`_MOST_POINTS_PER_FRAME` × ``n_frames`` points, until at least ``n_frames``
    distinct frames are found (a doubling can give a few more), or as many as the data allow.

    Parameters
    ----------
    model : ScaledTorusPCA
        A fitted model (of ``angles``).
    angles : ndarray, shape (n, d)
        The fitted angles (radians), one row per frame.
    component : int
        1…d: 1 follows the principal curve, K > 1 the component's scores.
    n_frames : int
        Frames wanted (≥ 2).

    Raises
    ------
    ValueError
        A component out of range (naming ``--component``), too few frames, a fit without
        a principal curve.
    """
    d = model.scores_.shape[1]
    if not 1 <= component <= d:
        raise ValueError(f"--component {component}: the fit has components 1…{d}")
    if n_frames < 2:
        raise ValueError(f"--frames {n_frames}: give at least 2")
    values = np.asarray(angles, dtype=np.float64)
    frames = _frame_tree(values)  # built once, asked again at each doubling
    points = n_frames
    while True:
        motion = _nearest_frames(model, values, frames, component, points)
        if len(motion.rows) >= n_frames or points >= _MOST_POINTS_PER_FRAME * n_frames:
            return motion
        points *= 2


def _in_box(angles: NDArray[np.float64]) -> NDArray[np.float64]:
    """Angles moved into the periodic box [0, 2π) of :func:`_frame_tree`."""
    shifted = np.mod(angles + np.pi, 2.0 * np.pi)
    shifted[shifted >= 2.0 * np.pi] = 0.0  # a rounding up to the box's edge
    return shifted


def _frame_tree(values: NDArray[np.float64]) -> cKDTree:
    """A k-d tree of the frames on the flat torus: on the box [0, 2π)^d with periodic
    edges its Euclidean distance is the torus geodesic distance, and its nearest
    neighbour is exact."""
    return cKDTree(_in_box(values), boxsize=2.0 * np.pi)


def _nearest_frames(model, values: NDArray[np.float64], frames: cKDTree, component: int,
                    n_points: int) -> MotionFrames:
    """Each point's nearest frame, in the points' order, each frame once."""
    if component == 1:
        targets, positions = _curve_points(model, n_points)
    else:
        targets, positions = _component_points(model, component, n_points)
    _, nearest = frames.query(_in_box(targets))
    # The first point of each frame keeps it: one model per frame.
    rows, kept = np.unique(nearest, return_index=True)
    order = np.argsort(kept)
    rows, kept = rows[order].astype(np.intp), kept[order]
    return MotionFrames(component, rows, targets[kept], positions[kept],
                        torus_distances(values[rows], targets[kept]), n_points)
