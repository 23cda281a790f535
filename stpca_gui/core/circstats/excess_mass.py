"""The excess mass of a sample on the circle: how much a (k + 1)-th mode would add.

Müller & Sawitzki (1991): for a level λ, the empirical excess mass of at most k arcs is

    E_k(λ) = max over disjoint arcs C_1 … C_k of Σ_j [ P_n(C_j) − λ·|C_j| ],

the mass the sample puts on k arcs beyond what a flat density at level λ would put there
(the whole circle counts as one arc). A density with k modes has k arcs where it exceeds any
level, so allowing a (k + 1)-th arc gains only noise; the statistic for "k modes" is the
largest gain over the levels,

    Δ_{k+1} = max_λ [ E_{k+1}(λ) − E_k(λ) ],

O(n^{-3/5}) under a density with k non-degenerate modes and of the order of the extra bump's
mass otherwise. Unlike the critical bandwidth it is measured in mass, so sparse tails, where
single points make bumps of any density estimate, add almost nothing (Cheng & Hall 1998).

Here the sample is counted on an equispaced grid of ``cells`` nodes (each point at its
nearest node), so arcs run between nodes; E_k at a level is exact for these counts (a dynamic
programme over the nodes, both ways round the circle: :mod:`._excess_mass_kernel`). The levels
searched are :data:`COARSE_LEVELS` evenly spread up to 1.5 times the largest mean density over
64 equal arcs, then :data:`FINE_LEVELS` within one coarse step of the best. The test for the
number of modes (:mod:`~stpca_gui.core.circstats.mode_test`) computes the statistic the same
way on the sample and on every resample.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..geometry.torus import TWO_PI
from ._excess_mass_kernel import excess_mass_rows, excess_mass_statistic
from .silverman import unit_angles

__all__ = ["COARSE_LEVELS", "FINE_LEVELS", "binned_excess_mass", "excess_mass",
           "nearest_node_counts"]


#: Levels of the first search.
COARSE_LEVELS = 64
#: Levels of the second search, within one coarse step of the first one's best.
FINE_LEVELS = 32


def nearest_node_counts(theta: NDArray[np.float64], cells: int) -> NDArray[np.float64]:
    """Points per node of ``cells`` equispaced nodes (node 0 at angle 0), each point of the
    unit circle counted at its nearest node."""
    nodes = np.rint(np.mod(theta, TWO_PI) * (cells / TWO_PI)).astype(np.int64) % cells
    return np.bincount(nodes, minlength=cells).astype(np.float64)


def binned_excess_mass(counts: ArrayLike, k: int) -> float | NDArray[np.float64]:
    """Δ_{k+1} of counts on equispaced nodes round the circle (module docstring).

    Parameters
    ----------
    counts : array_like, shape (cells,) or (rows, cells)
        Non-negative weights per node; each row is normalised by its total.
    k : int
        The number of modes of the hypothesis (k ≥ 1).

    Returns
    -------
    float or ndarray of shape (rows,)
    """
    if int(k) < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    table = np.ascontiguousarray(np.atleast_2d(np.asarray(counts, dtype=np.float64)))
    if table.shape[1] < 2 or np.any(table < 0) or np.any(table.sum(axis=1) <= 0):
        raise ValueError("counts must be non-negative, on at least 2 nodes, and not all zero")
    out = np.empty(table.shape[0])
    excess_mass_rows(table, int(k), COARSE_LEVELS, FINE_LEVELS, out)
    return float(out[0]) if np.ndim(counts) == 1 else out


def excess_mass(angles: ArrayLike, k: int, period: float = TWO_PI, cells: int = 1024) -> float:
    """The excess-mass statistic Δ_{k+1} of a periodic sample, for the hypothesis "k modes".

    Parameters
    ----------
    angles : array_like, shape (n,)
        The sample, read modulo ``period``.
    k : int
        The number of modes of the hypothesis (k ≥ 1).
    period : float, default 2π
        Its period.
    cells : int, default 1024
        Nodes of the grid the sample is counted on.

    Returns
    -------
    float
        A probability: the mass a (k + 1)-th arc adds at best.
    """
    if int(cells) < 2:
        raise ValueError(f"cells must be at least 2, got {cells}")
    if int(k) < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    counts = nearest_node_counts(unit_angles(angles, period), int(cells))
    return float(excess_mass_statistic(counts / counts.sum(), int(k), COARSE_LEVELS,
                                       FINE_LEVELS))
