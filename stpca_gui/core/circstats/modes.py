"""Clustering of a periodic sample (e.g. the PNS1 score) by the modes of its density (paper, §5).

Two rules. The default, ``method="tested"``, keeps only the modes the data support: the
number of modes k̂ comes from Silverman's critical-bandwidth test
(:mod:`~stpca_gui.core.circstats.silverman`) and the clusters' boundaries are the antimodes of
the paper's plug-in KDE, its least prominent modes merged away down to k̂ (the
domains of attraction of the modes of the KDE at the critical bandwidth for k̂ modes when
the plug-in KDE has fewer than k̂: :func:`clusters_for_test`); k̂ = 1 means no cluster
structure (``docs/mode_test.md``). :func:`pns1_mode_clusters`, the product's rule
for PNS1, first tests the data for uniformity on the torus. ``method="paper"`` is the
paper's rule: every local maximum of the KDE with the plug-in bandwidth.

The rules live in their own modules (:mod:`~stpca_gui.core.circstats.paper_modes`,
:mod:`~stpca_gui.core.circstats.tested_modes`, their result in
:mod:`~stpca_gui.core.circstats.mode_clustering`); their public names are importable from here
too. The rule for a fitted estimator, :func:`~stpca_gui.core.clusters.model_mode_clusters`,
sits above the method's steps, in :mod:`stpca_gui.core.clusters`.
"""

from __future__ import annotations

import dataclasses

from numpy.typing import ArrayLike

from .._base.progress import CancelCheck
from .._base.random import RandomStateLike
from .bandwidth import check_period, check_periodic_sample
from .mode_clustering import MODE_RULES, ConfusionTable, ModeClustering, ModeRule
from .paper_modes import (
    TWO_PI,
    BandwidthChoice,
    paper_mode_clusters,
    plug_in_bandwidth,
)
from .silverman import (
    DEFAULT_ALPHA,
    DEFAULT_K_MAX,
    DEFAULT_N_BOOT,
    Calibration,
    ModeTest,
    silverman_mode_test,
)
from .tested_modes import clusters_for_test, tested_mode_clusters

__all__ = [
    "MODE_RULES",
    "BandwidthChoice",
    "ConfusionTable",
    "ModeClustering",
    "ModeRule",
    "clusters_for_test",
    "periodic_mode_clusters",
    "plug_in_bandwidth",
    "pns1_mode_clusters",
]


def periodic_mode_clusters(
    angles: ArrayLike,
    period: float = TWO_PI,
    bandwidth: float | BandwidthChoice | None = None,
    labels: ArrayLike | None = None,
    *,
    method: ModeRule = "tested",
    alpha: float = DEFAULT_ALPHA,
    k_max: int = DEFAULT_K_MAX,
    n_boot: int = DEFAULT_N_BOOT,
    calibration: Calibration = "silverman",
    random_state: RandomStateLike = 0,
    grid_size: int | None = None,
    min_density: float = 1e-3,
    min_prominence: float = 1e-6,
    check: CancelCheck | None = None,
) -> ModeClustering:
    """Cluster a periodic sample by the modes of its density: the tested modes (default) or
    every mode of the KDE (``method="paper"``).

    ``method="tested"``: k̂ from :func:`~stpca_gui.core.circstats.silverman.silverman_mode_test`
    (``alpha``, ``k_max``, ``n_boot``, ``calibration``, ``random_state``), the clusters
    from :func:`clusters_for_test` (the paper rule's antimodes merged down to k̂, or the
    critical-bandwidth domains); ``bandwidth``, ``grid_size``, ``min_density`` and
    ``min_prominence`` belong to the paper's rule and must be left at their defaults.
    ``method="paper"``: the paper's rule,
    :func:`~stpca_gui.core.circstats.paper_modes.paper_mode_clusters` (its parameters are
    described there).
    """
    if method == "tested":
        if bandwidth is not None or grid_size is not None:
            raise ValueError("the tested rule chooses its own bandwidth and grid; "
                             "use method='paper' to give them")
        return tested_mode_clusters(angles, period, labels, alpha=alpha, k_max=k_max,
                                    n_boot=n_boot, calibration=calibration,
                                    random_state=random_state, check=check)
    if method != "paper":
        raise ValueError(f"unknown method {method!r}; use 'tested' or 'paper'")
    return paper_mode_clusters(angles, period, bandwidth, labels, grid_size=grid_size,
                               min_density=min_density, min_prominence=min_prominence,
                               check=check)



def pns1_mode_clusters(
    pns1: ArrayLike,
    period: float,
    *,
    torus_angles: ArrayLike | None = None,
    method: ModeRule = "tested",
    alpha: float = DEFAULT_ALPHA,
    labels: ArrayLike | None = None,
    stability: bool = False,
    random_state: RandomStateLike = 0,
    paper: ModeClustering | None = None,
    check: CancelCheck | None = None,
) -> ModeClustering:
    """The product's mode clusters of PNS1 (app, command line, sessions).

    With the tested rule and ``torus_angles`` (the data the PNS1 scores come from), the data
    are first tested for uniformity on the torus
    (:func:`~stpca_gui.core.circstats.torus_uniformity.torus_uniformity_test`): PNS1 of uniform data
    is not uniform on its circle (the ST-PCA map's geometry puts broad bumps on it), so a
    mode test of PNS1 alone would find "clusters" in noise at large n. When uniformity is
    not rejected at ``alpha`` the answer is one cluster, "no cluster structure"; otherwise
    the modes of PNS1 are tested (:func:`periodic_mode_clusters`). ``stability=True`` adds
    each cluster's bootstrap stability (:func:`~stpca_gui.core.circstats.cluster_stability.
    cluster_stability`). ``method="paper"`` gives the paper's clusters, untested. ``paper``:
    those clusters of the same PNS1 when the caller has them already
    (:func:`clusters_for_test`).
    """
    if method == "paper":
        clusters = periodic_mode_clusters(pns1, period, labels=labels, method="paper",
                                          check=check)
        return dataclasses.replace(clusters, stability=None)
    if method != "tested":
        raise ValueError(f"unknown method {method!r}; use 'tested' or 'paper'")
    from .cluster_stability import cluster_stability
    from .torus_uniformity import torus_uniformity_test

    period = check_period(period)
    x = check_periodic_sample(pns1)
    uniformity = None
    if torus_angles is not None:
        uniformity = torus_uniformity_test(torus_angles).p_value
    if uniformity is not None and uniformity >= alpha:
        test = ModeTest(n_modes=1, p_values=(), critical_bandwidths=(), alpha=float(alpha),
                        calibration="silverman", n_boot=DEFAULT_N_BOOT, k_max=DEFAULT_K_MAX,
                        period=period, n=x.size, uniformity_p_value=uniformity)
    else:
        test = silverman_mode_test(x, period, alpha=alpha, random_state=random_state,
                                   check=check)
        if uniformity is not None:
            test = dataclasses.replace(test, uniformity_p_value=uniformity)
    clusters = clusters_for_test(x, period, test, labels, paper=paper, check=check)
    if stability:
        plug_in = paper.bandwidth if paper is not None else plug_in_bandwidth(x, period)
        figures = cluster_stability(x, period, clusters.antimodes, clusters.n_clusters,
                                    bandwidth=plug_in,
                                    random_state=random_state, check=check)
        clusters = dataclasses.replace(clusters, stability=figures)
    return clusters
