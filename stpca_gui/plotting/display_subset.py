"""Which samples the 3-D views draw when there are too many to draw them all.

Rendering 10⁶ sphere-shaded points with software OpenGL takes seconds per frame, so the
3-D views draw at most :data:`MAX_DRAWN_POINTS` of them, chosen by a rule that is
reproducible and keeps every selection visible:

* Every sample gets a *display rank*: its position in a random permutation of 0..n−1 drawn
  with the fixed seed :data:`DISPLAY_SEED` (so the rank depends on n only: the same data
  set is always drawn the same way, in every session).
* Without a selection the view draws the ``cap`` samples of lowest rank (a uniform random
  subset).
* With ``s`` selected samples it draws the selected ones first (all of them when
  ``s ≤ cap``, else the ``cap`` of lowest rank), then the unselected ones of lowest rank up
  to ``cap`` in all.

The unselected samples drawn are always among the ``cap`` of lowest rank (the *base*), so a
view keeps the base's geometry and only changes which of it is shown and the small overlay
of selected samples. Selections, the histogram, the mode clusters and exports use every
sample; only drawing is subsampled.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["DISPLAY_SEED", "MAX_DRAWN_POINTS", "DisplaySubset", "display_rank"]

#: Most points a 3-D view draws.
MAX_DRAWN_POINTS = 30_000
#: Seed of the permutation that ranks the samples for display.
DISPLAY_SEED = 20_260_423


@lru_cache(maxsize=2)
def _ranks(n: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    order = np.random.default_rng(DISPLAY_SEED).permutation(n)
    rank = np.empty(n, dtype=np.intp)
    rank[order] = np.arange(n)
    order.flags.writeable = False
    rank.flags.writeable = False
    return order, rank


def display_rank(n: int) -> NDArray[np.intp]:
    """The display rank of each of n samples (a permutation of 0..n−1, fixed seed)."""
    return _ranks(int(n))[1]


class DisplaySubset:
    """The samples a view draws out of n, for a cap, following the rule of this module.

    Parameters
    ----------
    n : int
        Number of samples.
    cap : int, default :data:`MAX_DRAWN_POINTS`
        Most samples drawn.

    Attributes
    ----------
    base : ndarray of int
        The samples of lowest display rank, in rank order (``arange(n)`` when all fit):
        every unselected sample drawn is one of them.
    """

    def __init__(self, n: int, cap: int = MAX_DRAWN_POINTS) -> None:
        self.n = int(n)
        self.cap = max(1, int(cap))
        self.complete = self.n <= self.cap
        if self.complete:
            self.base = np.arange(self.n)
        else:
            self.base = _ranks(self.n)[0][:self.cap]

    @property
    def n_drawn(self) -> int:
        """How many samples are drawn (whatever the selection)."""
        return min(self.n, self.cap)

    def label(self) -> str:
        """What a view says about it, e.g. "showing 100,000 of 1,000,000 points" ("" when
        every sample is drawn)."""
        if self.complete:
            return ""
        return f"showing {self.n_drawn:,} of {self.n:,} points"

    def split(self, selected: ArrayLike) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """The selected samples drawn and the positions in :attr:`base` of the unselected
        samples drawn.

        Parameters
        ----------
        selected : array_like of bool, shape (n,)

        Returns
        -------
        chosen : ndarray of int
            Indices (into all n samples) of the selected samples drawn, increasing.
        base_positions : ndarray of int
            Positions in :attr:`base` of the unselected samples drawn, increasing.
        """
        mask = np.asarray(selected, dtype=bool)
        if mask.shape != (self.n,):
            raise ValueError(f"selected must have shape ({self.n},), got {mask.shape}")
        if np.count_nonzero(mask) <= self.cap:
            chosen = np.flatnonzero(mask)
        else:
            chosen = self._first_selected_by_rank(mask)
        free = np.flatnonzero(~mask[self.base])
        return chosen, free[:self.n_drawn - chosen.size]

    def _first_selected_by_rank(self, mask: NDArray[np.bool_]) -> NDArray[np.intp]:
        """The ``cap`` selected samples of lowest rank (more than ``cap`` are selected),
        increasing: the permutation is scanned in blocks until enough are found, which for
        a selection of a fraction f of the samples reads about cap / f of them, not n."""
        order = _ranks(self.n)[0]
        found: list[NDArray[np.intp]] = []
        count, start, block = 0, 0, 4 * self.cap
        while count < self.cap:
            piece = order[start:start + block]
            hits = piece[mask[piece]]
            found.append(hits)
            count += hits.size
            start += block
            block *= 2
        return np.sort(np.concatenate(found)[:self.cap])

    def drawn(self, selected: ArrayLike) -> NDArray[np.intp]:
        """Indices of every sample drawn for this selection, increasing."""
        chosen, positions = self.split(selected)
        return np.sort(np.concatenate([chosen, self.base[positions]]))
