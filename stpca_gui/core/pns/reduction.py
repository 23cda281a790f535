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
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["EXACT_LEVELS", "principal_axes", "reduced_levels"]

#: Levels fitted one by one at the bottom of a reduced fit (those nearest PNS1). With 12,
#: the first reduced fits are on S^15; at d = 20 fitting 8 kept PNS1's share within
#: 0.07 points and 12 within 0.04 (docs/high_dimension.md).
EXACT_LEVELS = 12


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
