"""PNS at high dimension: the levels far from PNS1 reduced in one step.

On S^d with d large, PNS fits d − 1 levels one by one, each with its tests. The levels
between the first and the last few carry little variance each (on a peptide trajectory the
noise of every torsion, spread over all d directions), and fitting them one by one costs
O(levels · starts · iterations · n · m²). Here they are reduced together: after the first
level is fitted (with its tests: on S^d it is often a small sphere far from a great one,
which rescales every later level), the data are brought down to the subsphere spanned by
their ``exact_levels + 1`` leading principal directions by great spheres whose axes are the
least-variance principal directions (uncentred second moment of the current points,
smallest first), and the last ``exact_levels`` levels are fitted one by one again, with
their tests. The residuals of the reduced levels are still measured (scores, variance).

This is exact when the points lie in that subspace (their residuals are then zero, as for
the null space of rank-deficient data), and a close approximation when the reduced
directions carry little variance: a sequence of great spheres of small residuals is,
to second order in the residuals, the sequence of least-variance principal directions.
Measured against fitting every level (docs/high_dimension.md, and
tests/core/pns/test_pns_reduction.py): PNS1 scores, explained variances and clusters agree
within the issue's tolerances at d = 20 and 66.

Both the reduced levels and, in ``transform``, any run of consecutive great spheres are
computed in one step rather than level by level (:func:`reduce_to_principal_subsphere`,
:func:`great_run_maps`, :func:`great_run_angles`): a great sphere's level is linear up to a
scale (rotate, drop the axis coordinate), and its residual arccos(v·x) − π/2 does not depend
on the point's length, so a run of L great levels is one product with the run's L axes and
one with the map to its last level, O(n · m · (L + m_end)) in BLAS instead of L passes of
NumPy over the n × m points. The lengths of the points at each level come from sums of
squares (no cancellation), so the residuals agree with the level-by-level computation to
rounding (about 1e-15 rad).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .subsphere import HALF_PI, HIGH_DIM, rotate_rows, rotation_to_north_pole, row_blocks

__all__ = ["EXACT_LEVELS", "GreatRun", "great_run_angles", "great_run_maps", "great_runs",
           "principal_axes", "reduce_to_principal_subsphere", "reduced_levels"]

#: Levels fitted one by one at the bottom of a reduced fit (those nearest PNS1). With 12,
#: the first reduced fits are on S^15; at d = 20 fitting 8 kept PNS1's share within
#: 0.07 points and 12 within 0.04 (docs/high_dimension.md).
EXACT_LEVELS = 12
#: Consecutive great levels that PNS's ``transform`` maps at once (:func:`great_runs`).
MIN_GREAT_RUN = 2


def reduced_levels(first: int, n_levels: int, exact_levels: int | None) -> range:
    """The levels a fit reduces: after the first fitted level ``first``, all but the last
    ``exact_levels`` of the ``n_levels`` (none when ``exact_levels`` is None or when no
    level lies between them)."""
    if exact_levels is None:
        return range(0)
    stop = n_levels - int(exact_levels)
    return range(first + 1, stop) if stop > first + 1 else range(0)


def principal_axes(x: NDArray[np.float64], count: int) -> NDArray[np.float64]:
    """The ``count`` least-variance principal directions of the unit rows of ``x`` (n, m):
    eigenvectors of the uncentred second moment xᵀx, smallest eigenvalue first; shape
    (count, m)."""
    _, vectors = np.linalg.eigh(x.T @ x)
    return np.ascontiguousarray(vectors[:, :count].T)


@dataclass(frozen=True)
class GreatRun:
    """A run of consecutive great-sphere levels as two linear maps of the run's first
    coordinates: ``axes`` (m, L), column j the axis of level j of the run (there, the
    point's coordinate along it is its distance from the level's great sphere), and
    ``to_last`` (m, m − L), the map to the coordinates of the level after the run."""

    axes: NDArray[np.float64]
    to_last: NDArray[np.float64]


def great_run_maps(rotations: list[NDArray[np.float64]]) -> GreatRun:
    """The linear maps of a run of great levels with these rotations (first level first):
    O(L · m²)."""
    m = rotations[0].shape[0]
    axes = np.empty((m, len(rotations)))
    to_level = np.eye(m)
    for j, rotation in enumerate(rotations):
        axes[:, j] = to_level @ rotation[-1]  # the level's axis (the rotation's last row)
        to_level = rotate_rows(to_level, rotation)[:, :-1]
    return GreatRun(axes, to_level)


def great_runs(rotations: list[NDArray[np.float64]], sphere_types: list[str]
               ) -> dict[int, tuple[int, GreatRun]]:
    """The runs of at least :data:`MIN_GREAT_RUN` consecutive great levels of a PNS fit
    above :data:`~stpca_gui.core.pns.subsphere.HIGH_DIM` coordinates, by first level: (the
    level after the run, its maps). Up to S⁷ every level is taken one by one."""
    runs: dict[int, tuple[int, GreatRun]] = {}
    lev = 0
    while lev < len(rotations):
        stop = lev
        while stop < len(rotations) and sphere_types[stop] == "great":
            stop += 1
        if stop - lev >= MIN_GREAT_RUN and rotations[lev].shape[0] > HIGH_DIM:
            runs[lev] = (stop, great_run_maps(rotations[lev:stop]))
        lev = max(stop, lev + 1)
    return runs


def great_run_angles(x: NDArray[np.float64], run: GreatRun
                     ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Geodesic angles arccos(v_j·x) of the points ``x`` (rows of any positive length, in
    the run's first coordinates) to the axis of each level of ``run``, (n, L), and the
    points at the level after the run, unit rows (n, m − L) (a point with nothing left is
    a zero row, as level by level). The angle at level j is atan2(|u_{j+1}|, u_j·v_j) with
    |u_{j+1}|² the squares of the coordinates after it summed."""
    along = x @ run.axes
    rest = x @ run.to_last
    rest_sq = np.einsum("ij,ij->i", rest, rest)
    after = np.empty_like(along)  # Σ of the squares after each level
    after[:, -1] = rest_sq
    if along.shape[1] > 1:
        after[:, :-1] = rest_sq[:, None] + np.cumsum(along[:, :0:-1] ** 2, axis=1)[:, ::-1]
    angles = np.arctan2(np.sqrt(after), along)
    length = np.sqrt(rest_sq)
    return angles, rest / np.where(length > 0, length, 1.0)[:, None]


def reduce_to_principal_subsphere(
    x: NDArray[np.float64], count: int,
) -> tuple[list[NDArray[np.float64]], list[NDArray[np.float64]], NDArray[np.float64],
           NDArray[np.float64]]:
    """The ``count`` reduced levels of the unit rows ``x`` (n, m): great spheres along the
    least-variance principal directions, smallest first, each axis oriented towards the
    data (mean angle ≤ π/2, as a fitted great sphere's).

    Returns the axes in each level's own coordinates, the rotations, the objectives
    mean_i (θ_ij − π/2)² and the points at the level after them (unit rows, a new
    (n, m − count) array). Computed by blocks of rows; the axes are those of
    :func:`principal_axes`.
    """
    n, m = x.shape
    _, vectors = np.linalg.eigh(x.T @ x)
    reduced = np.ascontiguousarray(vectors[:, :count])
    probe = GreatRun(reduced, np.ascontiguousarray(vectors[:, count:]))
    angle_sum, square_sum = np.zeros(count), np.zeros(count)
    for rows in row_blocks(n):
        angles, _ = great_run_angles(x[rows], probe)
        angle_sum += angles.sum(axis=0)
        square_sum += ((angles - HALF_PI) ** 2).sum(axis=0)
    signs = np.where(angle_sum / n > HALF_PI, -1.0, 1.0)  # θ → π − θ: the same objective
    centers, rotations = [], []
    to_level = np.eye(m)  # the first coordinates → those of the current level
    for j in range(count):
        v = to_level.T @ (signs[j] * reduced[:, j])
        v /= np.linalg.norm(v)
        rotation = rotation_to_north_pole(v)
        centers.append(v)
        rotations.append(rotation)
        to_level = rotate_rows(to_level, rotation)[:, :-1]
    after = np.empty((n, m - count))
    for rows in row_blocks(n):
        block = x[rows] @ to_level
        length = np.linalg.norm(block, axis=1, keepdims=True)
        after[rows] = block / np.where(length > 0, length, 1.0)
    return centers, rotations, square_sum / n, after
