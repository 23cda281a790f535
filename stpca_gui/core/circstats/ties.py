"""Ties in a periodic sample: the distinct values the tests for modes work on.

The tests for the number of modes assume a continuous sample, in which two equal values have
probability zero. Exact duplicates (a trajectory read twice, the same frame pooled from two
runs, a structure repeated) are not new observations: counted as such they make every bump of
the density look better supported than it is, and the test finds modes in them (a trajectory
read ten times over gave 8 clusters where read once it gave 3). So the tests and the
clusters' boundaries use each distinct value once; every point then takes the cluster of
its value. Values closer than :data:`TIE_TOLERANCE` of a period count as equal (the same
angles through the same arithmetic). When fewer than :data:`MIN_DISTINCT` distinct values
are left, no test is run and the sample is one cluster; the result carries a note saying
so (:func:`ties_note`).

For PNS1 scores the duplicates are rows of the torus data (:func:`distinct_rows`): the
scores of two equal rows need not be equal (the spherical MDS places the copies of a point
independently, up to its tolerance), so the product's rule
(:func:`~stpca_gui.core.circstats.modes.pns1_mode_clusters`) keeps one score per distinct
row before anything else.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..geometry.torus import wrap_angles

__all__ = ["MIN_DISTINCT", "TIE_TOLERANCE", "DistinctSample", "distinct_rows", "distinct_sample",
           "ties_note"]

#: Values within this share of a period of each other are ties.
TIE_TOLERANCE = 1e-12
#: Fewest distinct values a test for the number of modes is run on.
MIN_DISTINCT = 10


@dataclass(frozen=True)
class DistinctSample:
    """A periodic sample reduced to its distinct values.

    Attributes
    ----------
    values : ndarray, shape (m,)
        The distinct values, wrapped to [−P/2, P/2) and increasing.
    inverse : ndarray of int, shape (n,)
        ``values[inverse[i]]`` is point i's value.
    n : int
        Size of the original sample.
    """

    values: NDArray[np.float64]
    inverse: NDArray[np.intp]
    n: int

    @property
    def n_distinct(self) -> int:
        """Number of distinct values."""
        return int(self.values.size)

    @property
    def has_ties(self) -> bool:
        """Whether some values occur more than once."""
        return self.n_distinct < self.n


def distinct_sample(angles: ArrayLike, period: float) -> DistinctSample:
    """The distinct values of a periodic sample (module docstring).

    Parameters
    ----------
    angles : array_like, shape (n,)
        The sample, read modulo ``period``.
    period : float
        Its period.

    Returns
    -------
    DistinctSample
    """
    x = wrap_angles(np.asarray(angles, dtype=np.float64).ravel(), period)
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    tolerance = TIE_TOLERANCE * period
    new_group = np.ones(ordered.size, dtype=bool)
    new_group[1:] = np.diff(ordered) > tolerance
    group = np.cumsum(new_group) - 1
    if ordered.size > 1 and new_group[1:].any() and (
            ordered[0] + period - ordered[-1] <= tolerance):
        group[group == group[-1]] = 0  # the last group ties with the first across ±P/2
    inverse = np.empty(x.size, dtype=np.intp)
    inverse[order] = group
    firsts = np.flatnonzero(new_group)
    values = ordered[firsts[: int(group.max()) + 1]] if ordered.size else ordered
    return DistinctSample(values=values, inverse=inverse, n=int(x.size))


def distinct_rows(angles: ArrayLike) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The distinct rows of angles (radians, shape (n, d)) on the torus.

    Returns
    -------
    first, inverse : ndarray of int
        ``first[j]`` is the first row of the j-th distinct row (in the rows' order) and row i
        equals row ``first[inverse[i]]`` (angles within :data:`TIE_TOLERANCE`·2π, modulo 2π).
    """
    theta = np.asarray(angles, dtype=np.float64)
    theta = theta.reshape(theta.shape[0], -1)
    step = TIE_TOLERANCE * 2.0 * np.pi
    keys = np.ascontiguousarray(np.rint(wrap_angles(theta, 2.0 * np.pi) / step) % round(
        2.0 * np.pi / step))
    rows = keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # number the distinct rows in the rows' order
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order], rank[inverse.ravel()]


def ties_note(n: int, n_distinct: int, what: str = "values") -> str:
    """What the tests did with ties, for people ("" without ties); ``what`` names the
    things counted ("values" of a sample, "rows" of torus data)."""
    if n_distinct >= n:
        return ""
    if n_distinct < MIN_DISTINCT:
        return (f"only {n_distinct} distinct {what} among {n}: too few for the test for the "
                f"number of modes, which assumes a continuous sample (not run)")
    return (f"{n - n_distinct} of {n} {what} repeat another: the test for the number of modes "
            f"assumes a continuous sample and used the {n_distinct} distinct {what}")
