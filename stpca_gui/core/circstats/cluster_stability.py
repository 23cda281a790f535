"""How stable is each mode cluster? Bootstrap Jaccard similarity of the tested clusters.

For each of ``n_boot`` bootstrap resamples of the periodic sample (one multinomial draw of
the sample's counts on the grid of :mod:`~stpca_gui.core.circstats.silverman`, O(grid) per resample
whatever n) the tested rule's boundaries (:func:`~stpca_gui.core.circstats.tested_modes.
clusters_for_test`) are found again with the same number of modes k̂: the antimodes of the
resample's KDE at the plug-in bandwidth, its shallowest ones merged away when it has more
than k̂ modes, or, when it has fewer, the domains of attraction of the modes at the
resample's critical bandwidth for k̂ modes. The plug-in bandwidth is the original sample's
(``bandwidth``), held fixed over the resamples: recomputing it needs the resampled points
themselves, O(n) each, where the rest is O(grid); and the KDE is the binned wrapped-normal
one of the test, not the paper's exact sum. Without ``bandwidth`` only the critical-bandwidth
domains are used (the rule before the plug-in boundaries). Every point of the *original*
sample then falls in one resampled cluster. A cluster C's stability
is the mean over resamples of its best Jaccard similarity with a resampled cluster,

    s(C) = mean_b max_j |C ∩ C*_bj| / |C ∪ C*_bj|,

Hennig's (2007) clusterwise bootstrap stability (``fpc::clusterboot``): the share of the
points of C and of its best counterpart that the two have in common; 1 when the cluster
comes back unchanged every time, near |C|/n when it merges with the rest; Hennig reads
values above 0.75 as stable and below 0.5 as dissolved. Points are placed at their nearest
node of the grid (2π/4096 of a period), which moves none of them across a boundary by more
than half a node.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.progress import CancelCheck
from .._base.random import RandomStateLike, check_random_state
from .bandwidth import check_period, check_periodic_sample
from .prominence import merge_shallowest_antimodes
from .silverman import (
    GRID_POINTS,
    BinnedSample,
    attraction_domains,
    binned_critical_bandwidth,
    unit_angles,
)

__all__ = ["DEFAULT_STABILITY_RESAMPLES", "cluster_stability"]

#: Default bootstrap resamples of the stability figure.
DEFAULT_STABILITY_RESAMPLES = 100


def _node_labels(antimodes_in_nodes: NDArray[np.float64], size: int) -> NDArray[np.int64]:
    """Cluster of every grid node: arcs between consecutive antimodes (node units)."""
    if antimodes_in_nodes.size <= 1:
        return np.zeros(size, dtype=np.int64)
    bounds = np.sort(antimodes_in_nodes)
    nodes = np.arange(size, dtype=np.float64)
    return np.mod(np.searchsorted(bounds, nodes, side="right") - 1, bounds.size)


def _boundaries(sample: BinnedSample, n_modes: int, plug_in: float | None
                ) -> NDArray[np.float64]:
    """The antimodes (node units) of the tested rule's ``n_modes`` clusters of a resample:
    those of its KDE at the plug-in bandwidth (radians), merged down to ``n_modes`` when it
    has more modes, else those of its KDE at its critical bandwidth for ``n_modes``."""
    if plug_in is not None:
        maxima, minima = attraction_domains(sample.derivative(plug_in))
        if maxima.size >= n_modes:
            density = sample.density(plug_in)
            nodes = np.arange(density.size + 1, dtype=np.float64)
            closed = np.append(density, density[0])  # periodic interpolation
            _, kept = merge_shallowest_antimodes(
                maxima, np.interp(maxima, nodes, closed), minima,
                np.interp(minima, nodes, closed), n_modes, float(density.size))
            return minima[kept]
    _, minima = attraction_domains(sample.derivative(binned_critical_bandwidth(sample, n_modes)))
    return minima


def cluster_stability(
    angles: ArrayLike,
    period: float,
    antimodes: ArrayLike,
    n_modes: int,
    *,
    n_boot: int = DEFAULT_STABILITY_RESAMPLES,
    bandwidth: float | None = None,
    random_state: RandomStateLike = 0,
    check: CancelCheck | None = None,
) -> NDArray[np.float64]:
    """Bootstrap stability of each cluster of a tested mode clustering (module docstring).

    Parameters
    ----------
    angles : array_like, shape (n,)
        The clustered sample.
    period : float
        Its period.
    antimodes : array_like, shape (K,)
        The clusters' starting antimodes (``ModeClustering.antimodes``), in data units,
        cluster k being the arc from ``antimodes[k]`` to ``antimodes[k + 1]``.
    n_modes : int
        k̂, the number of modes each resample is clustered into.
    n_boot : int, default 100
        Bootstrap resamples.
    bandwidth : float, optional
        The plug-in bandwidth of the sample (data units,
        :func:`~stpca_gui.core.circstats.paper_modes.plug_in_bandwidth`): the resamples' boundaries
        are then found by the tested rule's (module docstring). Without it, by the critical
        bandwidth alone.
    random_state : int, Generator or None, default 0
        Seed of the resampling.
    check : callable, optional
        Cancel check, called between resamples.

    Returns
    -------
    ndarray, shape (K,)
        Stability of cluster k in [0, 1] (all ones for a single cluster).
    """
    period = check_period(period)
    x = check_periodic_sample(angles)
    edges = np.sort(np.mod((np.asarray(antimodes, dtype=np.float64) + 0.5 * period)
                           * (GRID_POINTS / period), GRID_POINTS))
    if edges.size <= 1 or n_modes <= 1:
        return np.ones(max(edges.size, 1))
    theta = unit_angles(x, period)
    nearest = np.rint(theta * (GRID_POINTS / (2 * np.pi))).astype(np.int64) % GRID_POINTS
    histogram = np.bincount(nearest, minlength=GRID_POINTS).astype(np.float64)
    original = _node_labels(edges, GRID_POINTS)
    # Clusters are numbered from the antimode given first; the node labels use sorted edges.
    order = np.argsort(np.mod(np.asarray(antimodes, dtype=np.float64) + 0.5 * period, period))
    k = edges.size
    sizes = np.bincount(original, weights=histogram, minlength=k)
    rng = check_random_state(random_state)
    n = x.size
    plug_in = None if bandwidth is None else float(bandwidth) * 2 * np.pi / period
    total = np.zeros(k)
    for _ in range(int(n_boot)):
        if check is not None:
            check()
        counts = rng.multinomial(n, histogram / n).astype(np.float64)
        sample = BinnedSample.from_counts(counts, n)
        resampled = _node_labels(_boundaries(sample, int(n_modes), plug_in), GRID_POINTS)
        m = int(resampled.max()) + 1
        inter = np.zeros((k, m))
        np.add.at(inter, (original, resampled), histogram)
        other = inter.sum(axis=0)
        union = sizes[:, None] + other[None, :] - inter
        # (an empty cluster, which the tested rule never makes, scores 0, not NaN)
        jaccard = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
        total += jaccard.max(axis=1)
    stability_sorted = total / int(n_boot)
    result = np.empty(k)
    result[order] = stability_sorted
    return result
