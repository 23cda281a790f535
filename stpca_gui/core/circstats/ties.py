"""Ties in a periodic sample: the sample the tests for modes work on.

The tests for the number of modes assume a continuous sample, in which two equal values have
probability zero. Ties come in two kinds, and each is undone as what it is:

* **Copies** (a trajectory read twice, the same structure or frame twice in a pool): the
  copies are not new observations; counted as such they make every bump of the density look
  better supported than it is, and the test finds modes in them (a trajectory read ten times
  over gave 8 clusters where read once it gave 3). The tests use each distinct value once.
* **Rounding** (angles written to 0.1° or 1°): the distinct values lie on a lattice (every
  gap between neighbours a whole multiple of the smallest, δ) and the counts follow the
  density. Counting each value once would flatten the density (20 000 points from two modes,
  rounded to 1°, keep 264 values and one mode). When every value occurs a multiple of g times
  the sample is g copies and is counted once (each value c/g times, c its count); the copies
  left of each value are spread evenly over ±δ/2 around it: the sample's histogram at its own
  resolution, continuous again.

Values closer than :data:`TIE_TOLERANCE` of a period count as equal (the same angles through
the same arithmetic). When fewer than :data:`MIN_DISTINCT` distinct values are left, no test
is run and the sample is one cluster. The result carries a note saying what was done
(:func:`ties_note`); every point takes the cluster of its value.

For PNS1 scores the copies are rows of the torus data (:func:`distinct_rows`): the scores of
two equal rows need not be equal (the spherical MDS places the copies of a point
independently, up to its tolerance), so the product's rule
(:func:`~stpca_gui.core.circstats.modes.pns1_mode_clusters`) keeps one score per distinct row
before anything else. (Rows equal through rounding alone, which needs coarse rounding, few
angles and many points, are counted once too: a limit of this rule.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.row_slices import row_slices
from ..geometry.torus import wrap_angles

__all__ = [
    "MIN_DISTINCT",
    "TIE_TOLERANCE",
    "ContinuousSample",
    "DistinctSample",
    "continuous_sample",
    "distinct_rows",
    "distinct_sample",
    "lattice_step",
    "replication",
    "ties_note",
]

#: Values within this share of a period of each other are ties.
TIE_TOLERANCE = 1e-12
#: Fewest distinct values a test for the number of modes is run on.
MIN_DISTINCT = 10
#: Gaps within this share of the lattice step of a whole multiple of it are on the lattice.
_LATTICE_TOLERANCE = 1e-3


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


#: Rows per block of :func:`distinct_rows`' keys and checks.
_KEY_BLOCK = 16_384
#: Seed of the weights of :func:`distinct_rows`' row hashes (fixed: the grouping is exact
#: whatever the hashes, which only spare a sort of whole rows).
_HASH_SEED = 20_261_128


def _hash_weights(d: int) -> NDArray[np.uint64]:
    """Odd 64-bit weights of the d key columns of a row hash."""
    return np.random.default_rng(_HASH_SEED).integers(
        1, 2**63, size=d, dtype=np.uint64) | np.uint64(1)


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
    # The keys by blocks of rows (the same values), and the rows grouped by a 64-bit hash
    # of their keys' bytes, checked row by row against their group's first row: at
    # n = 10⁶, d = 66 the whole-array keys and np.unique of the rows made 4.2 copies of the
    # data (2.2 GB), the peak of a default fit followed by its clusters.
    keys = np.empty(theta.shape)
    weights = _hash_weights(keys.shape[1])
    hashes = np.empty(keys.shape[0], dtype=np.uint64)
    blocks = row_slices(keys.shape[0], _KEY_BLOCK)
    for block in blocks:
        keys[block] = np.rint(wrap_angles(theta[block], 2.0 * np.pi) / step) % round(
            2.0 * np.pi / step)
        hashes[block] = keys[block].view(np.uint64) @ weights  # wraps modulo 2⁶⁴
    _, first, inverse = np.unique(hashes, return_index=True, return_inverse=True)
    bits = keys.view(np.uint64)
    if not all(np.array_equal(bits[block], bits[first[inverse[block]]]) for block in blocks):
        # A collision: the rows grouped by their whole keys instead.
        rows = keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel()
        _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # number the distinct rows in the rows' order
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order], rank[inverse.ravel()]


def replication(counts: ArrayLike) -> int:
    """g: the largest number dividing every count, i.e. how many copies of one sample these
    counts are (1 for an ordinary sample)."""
    counts = np.asarray(counts, dtype=np.int64)
    return int(np.gcd.reduce(counts)) if counts.size else 1


def lattice_step(values: ArrayLike) -> float:
    """δ when the increasing ``values`` lie on a lattice (every gap between neighbours a
    whole multiple of the smallest gap δ, within 0.1 % of δ), else 0."""
    gaps = np.diff(np.asarray(values, dtype=np.float64))
    if gaps.size < 2 or gaps.min() <= 0.0:
        return 0.0
    step = float(gaps.min())
    ratio = gaps / step
    return step if np.all(np.abs(ratio - np.rint(ratio)) <= _LATTICE_TOLERANCE) else 0.0


@dataclass(frozen=True)
class ContinuousSample:
    """The sample the tests for modes use (module docstring).

    Attributes
    ----------
    values : ndarray, shape (m,)
        Without a lattice each distinct value once; on a lattice each value c/g times, its
        copies spread evenly over ±``spread``/2.
    n : int
        Size of the original sample.
    n_distinct : int
        Its number of distinct values.
    copies : int
        g: every value occurred a multiple of g times.
    spread : float
        δ, the lattice step the copies of a value were spread over (0 when the values are
        not on a lattice, or no ties were left).
    """

    values: NDArray[np.float64]
    n: int
    n_distinct: int
    copies: int
    spread: float

    @property
    def note(self) -> str:
        """:func:`ties_note` of this sample."""
        return ties_note(self.n, self.n_distinct, copies=self.copies, spread=self.spread,
                         kept=self.values.size)


def continuous_sample(distinct: DistinctSample, period: float) -> ContinuousSample:
    """The sample the tests use, from a sample's distinct values (module docstring)."""
    counts = np.bincount(distinct.inverse, minlength=distinct.n_distinct)
    copies = replication(counts)
    per_value = counts // copies
    values = distinct.values
    step = lattice_step(values)
    spread = 0.0
    if step > 0.0 and np.any(per_value > 1):
        spread = step
        starts = np.repeat(np.cumsum(per_value) - per_value, per_value)
        rank = np.arange(int(per_value.sum())) - starts
        share = (rank + 0.5) / np.repeat(per_value, per_value) - 0.5
        values = wrap_angles(np.repeat(values, per_value) + spread * share, period)
    return ContinuousSample(values=np.asarray(values, dtype=np.float64), n=distinct.n,
                            n_distinct=distinct.n_distinct, copies=copies, spread=spread)


def ties_note(n: int, n_distinct: int, what: str = "values", *, copies: int = 1,
              spread: float = 0.0, kept: int | None = None) -> str:
    """What the tests did with ties, for people ("" without ties); ``what`` names the
    things counted ("values" of a sample, "rows" of torus data); ``copies``, ``spread`` and
    ``kept`` (the tested sample's size) are :class:`ContinuousSample`'s."""
    if n_distinct >= n:
        return ""
    if n_distinct < MIN_DISTINCT:
        return (f"only {n_distinct} distinct {what} among {n}: too few for the test for the "
                f"number of modes, which assumes a continuous sample (not run)")
    head = (f"{n - n_distinct} of {n} {what} repeat another; the test for the number of "
            f"modes assumes a continuous sample")
    if spread <= 0.0:
        return f"{head} and used the {n_distinct} distinct {what}, each once"
    parts = [f"the {what} lie on a lattice of step {spread:.3g} (rounded data)"]
    if copies > 1:
        parts.append(f"every one occurs a multiple of {copies} times, so the sample was "
                     f"counted once ({n // copies} {what})")
    parts.append(f"the copies of each value were spread evenly over ±{spread / 2:.3g} "
                 f"({kept if kept is not None else n // copies} values tested)")
    return f"{head}: " + "; ".join(parts)
