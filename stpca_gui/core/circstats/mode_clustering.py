"""The result of clustering a periodic sample by the modes of its density, shared by both rules.

:class:`ModeClustering` (labels, modes, antimodes, the density they come from and, with true
labels, the classification rate and :class:`ConfusionTable`) is what the paper's rule
(:mod:`~stpca_gui.core.circstats.paper_modes`) and the tested rule
(:mod:`~stpca_gui.core.circstats.tested_modes`) return; both label the points by the arcs
between consecutive antimodes (:func:`arc_labels`) and score them against true labels
(:func:`classification`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .rates import best_matching_rate
from .silverman import ModeTest

#: ``"tested"``: the modes the test supports (default); ``"paper"``: every mode of the KDE
#: with the plug-in bandwidth, as in the paper.
ModeRule = Literal["tested", "paper"]
MODE_RULES: tuple[ModeRule, ...] = ("tested", "paper")

#: A cluster with fewer points than this is flagged (:meth:`ModeClustering.small_clusters`).
#: Ten of the eleven false extra clusters the mixture null gave on 200 fits of the demos held
#: 1–3 points far out in a tail (docs/mode_test.md, "What the false extra clusters look
#: like"), and the mixture null fits no component this small
#: (:data:`~stpca_gui.core.circstats.mode_null.MIN_COMPONENT_POINTS`).
SMALL_CLUSTER_POINTS = 5


@dataclass(frozen=True)
class ConfusionTable:
    """Cross-tabulation of clusters (rows) against true labels (columns).

    Attributes
    ----------
    counts : ndarray of int, shape (K, L)
        ``counts[k, l]`` = number of points of cluster ``row_labels[k]`` whose true label is
        ``column_labels[l]``.
    row_labels : ndarray of int, shape (K,)
        Cluster ids ``0 … K−1``.
    column_labels : ndarray, shape (L,)
        The distinct true label values, sorted.
    matching : tuple of (int, object) pairs
        The best one-to-one assignment (cluster id, label value) found by the Hungarian
        algorithm; clusters or labels left out are unmatched.
    """

    counts: NDArray[np.int64]
    row_labels: NDArray[np.int64]
    column_labels: NDArray
    matching: tuple[tuple[int, object], ...]


@dataclass(frozen=True)
class ModeClustering:
    """Result of :func:`~stpca_gui.core.circstats.modes.periodic_mode_clusters`.

    Attributes
    ----------
    labels : ndarray of int, shape (n,)
        Cluster id of every point, ``0 … K−1`` in circular order (cluster k contains
        ``modes[k]``).
    modes : ndarray, shape (K,)
        The modes (local maxima of the density), increasing, in [−P/2, P/2).
    antimodes : ndarray, shape (K,)
        ``antimodes[k]`` is the antimode that starts the arc of cluster k (going in the
        increasing direction): cluster k is the arc from ``antimodes[k]`` to
        ``antimodes[(k + 1) % K]``, in [−P/2, P/2). With one cluster, the single antimode.
    bandwidth : float
        Gaussian kernel standard deviation, in data units, of the density whose antimodes
        bound the clusters (the tested rule: the plug-in bandwidth, or the critical one for
        k̂ modes when the plug-in density has fewer,
        :func:`~stpca_gui.core.circstats.tested_modes.clusters_for_test`).
    grid : ndarray, shape (m,)
        Equispaced evaluation points covering [−P/2, P/2).
    density : ndarray, shape (m,)
        That density on ``grid`` (integrates to about one over a period).
    period : float
        The period P.
    classification_rate : float or None
        With true labels: the fraction of points correctly classified under the best
        one-to-one matching of clusters to labels (Hungarian algorithm); points in unmatched
        clusters count as errors.
    confusion : ConfusionTable or None
        With true labels: clusters × labels table.
    method : {"tested", "paper"}
        The rule that made the clusters (``"paper"`` for results saved before the test).
    mode_test : ModeTest or None
        With the tested rule: the test behind k̂ (p-value of every step).
    stability : ndarray of float, shape (K,), or None
        When asked for: each cluster's mean bootstrap Jaccard similarity
        (:func:`~stpca_gui.core.circstats.cluster_stability.cluster_stability`).
    """

    labels: NDArray[np.int64]
    modes: NDArray[np.float64]
    antimodes: NDArray[np.float64]
    bandwidth: float
    grid: NDArray[np.float64]
    density: NDArray[np.float64]
    period: float
    classification_rate: float | None = None
    confusion: ConfusionTable | None = None
    method: str = "paper"
    mode_test: ModeTest | None = None
    stability: NDArray[np.float64] | None = None

    @property
    def n_clusters(self) -> int:
        """Number of clusters K."""
        return int(self.modes.size)

    @property
    def has_structure(self) -> bool:
        """Whether the clustering finds more than one cluster."""
        return self.n_clusters > 1

    def describe(self) -> str:
        """One line for people: the rule, the number of clusters and, for the tested rule,
        the p-value of every step (e.g. "3 clusters (tested, α = 0.05; k=1: p<0.004, …)")."""
        if self.mode_test is not None:
            verdict = self.mode_test.verdict()
            if not self.has_structure:
                return f"1 cluster — {verdict}"
            return f"{self.n_clusters} clusters — {verdict}"
        count = f"{self.n_clusters} cluster{'s' if self.n_clusters != 1 else ''}"
        return f"{count} (paper rule: every mode, bandwidth {self.bandwidth:.3g}, untested)"

    @property
    def sizes(self) -> NDArray[np.int64]:
        """Number of points in each cluster, shape (K,)."""
        return np.bincount(self.labels, minlength=self.n_clusters)

    def small_clusters(self) -> NDArray[np.int64]:
        """Indices of the clusters with fewer than :data:`SMALL_CLUSTER_POINTS` points
        (none when there is one cluster)."""
        if not self.has_structure:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(self.sizes < SMALL_CLUSTER_POINTS)

    def small_clusters_text(self) -> str:
        """What the app says of :meth:`small_clusters` ("" when there are none), e.g.
        "cluster 4 (1 point) has fewer than 5 points: …"; clusters are counted
        from 1, as the app shows them."""
        small = self.small_clusters()
        if small.size == 0:
            return ""
        named = [f"cluster {k + 1} ({size} point{'s' if size != 1 else ''})"
                 for k, size in zip(small, self.sizes[small], strict=True)]
        if len(named) == 1:
            return (f"{named[0]} has fewer than {SMALL_CLUSTER_POINTS} points: a mode this "
                    f"small can be a few points far out in a tail rather than a cluster")
        return (f"{', '.join(named[:-1])} and {named[-1]} have fewer than "
                f"{SMALL_CLUSTER_POINTS} points: modes this small can be a few points far out "
                f"in a tail rather than clusters")



def checked_labels(labels: ArrayLike | None, n: int) -> NDArray | None:
    if labels is None:
        return None
    true_labels = np.asarray(labels).ravel()
    if true_labels.shape != (n,):
        raise ValueError(f"labels must have shape ({n},), got {true_labels.shape}")
    return true_labels


def arc_labels(wrapped: NDArray[np.float64], antimodes: NDArray[np.float64],
                period: float) -> NDArray[np.int64]:
    """Cluster k = the arc from ``antimodes[k]`` to ``antimodes[k + 1]`` (circularly)."""
    if antimodes.size <= 1:
        return np.zeros(wrapped.size, dtype=np.int64)
    start = antimodes[0]
    bounds = np.mod(antimodes - start, period)
    rel = np.mod(wrapped - start, period)
    cluster = (np.searchsorted(bounds, rel, side="right") - 1).astype(np.int64)
    return np.clip(cluster, 0, antimodes.size - 1)



def classification(
    cluster: NDArray[np.int64], k: int, true_labels: NDArray
) -> tuple[float, ConfusionTable]:
    """Best one-to-one matching rate and the confusion table."""
    values, inverse = np.unique(true_labels, return_inverse=True)
    counts = np.bincount(cluster * values.size + inverse.ravel(),
                         minlength=k * values.size).reshape(k, values.size).astype(np.int64)
    matched, rows, cols = best_matching_rate(counts)
    matching = tuple((int(r), values[c].item() if hasattr(values[c], "item") else values[c])
                     for r, c in zip(rows, cols, strict=True))
    table = ConfusionTable(counts=counts, row_labels=np.arange(k, dtype=np.int64),
                           column_labels=values, matching=matching)
    return matched / cluster.size, table

