"""Clustering of a periodic sample (e.g. the PNS1 score) by the modes of its density (paper, §5).

Two rules. The default, ``method="tested"``, keeps only the modes the data support: the
number of modes k̂ comes from the test for the number of modes
(:mod:`~stpca_gui.core.circstats.mode_test`) and the clusters' boundaries are the antimodes of
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

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.progress import CancelCheck
from .._base.random import RandomStateLike
from ..geometry.torus import TWO_PI
from .bandwidth import check_period, check_periodic_sample
from .mode_clustering import (
    MODE_RULES,
    ConfusionTable,
    ModeClustering,
    ModeRule,
    checked_labels,
    classification,
)
from .mode_test import DEFAULT_NULL, TEST_WEIGHTS, NullName, check_null
from .paper_modes import (
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
)
from .tested_modes import ModeTestName, clusters_for_test, run_mode_test, tested_mode_clusters
from .ties import (
    MIN_DISTINCT,
    continuous_sample,
    distinct_rows,
    distinct_sample,
    ties_note,
)

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
    test: ModeTestName = "excess_mass",
    null: NullName = DEFAULT_NULL,
    random_state: RandomStateLike = 0,
    grid_size: int | None = None,
    min_density: float = 1e-3,
    min_prominence: float = 1e-6,
    check: CancelCheck | None = None,
) -> ModeClustering:
    """Cluster a periodic sample by the modes of its density: the tested modes (default) or
    every mode of the KDE (``method="paper"``).

    ``method="tested"``: k̂ from :func:`~stpca_gui.core.circstats.mode_test.mode_test`
    (``alpha``, ``k_max``, ``n_boot``, ``random_state``, the density its steps resample
    ``null``; ``test="silverman"``: Silverman's
    test alone, :func:`~stpca_gui.core.circstats.silverman.silverman_mode_test`, with its
    ``calibration``), the clusters
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
                                    n_boot=n_boot, calibration=calibration, test=test,
                                    null=null, random_state=random_state, check=check)
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
    null: NullName = DEFAULT_NULL,
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
    the modes of PNS1 are tested (:func:`periodic_mode_clusters`; ``null``: the density
    its steps resample, :func:`~stpca_gui.core.circstats.mode_test.mode_test`).
    ``stability=True`` adds
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
    check_null(null)  # the uniformity gate records it without running the test
    from .cluster_stability import cluster_stability
    from .torus_uniformity import torus_uniformity_test

    period = check_period(period)
    x = check_periodic_sample(pns1)
    uniformity = None
    if torus_angles is not None:
        angles = np.asarray(torus_angles, dtype=np.float64).reshape(x.size, -1)
        first, inverse = distinct_rows(angles)
        if first.size < x.size:
            return _clusters_of_distinct_rows(
                x, period, angles, first, inverse, alpha=alpha, null=null, labels=labels,
                stability=stability, random_state=random_state, check=check)
        uniformity = torus_uniformity_test(angles).p_value
    if uniformity is not None and uniformity >= alpha:
        test = ModeTest(n_modes=1, p_values=(), critical_bandwidths=(), alpha=float(alpha),
                        calibration=null, n_boot=DEFAULT_N_BOOT, k_max=DEFAULT_K_MAX,
                        period=period, n=x.size, uniformity_p_value=uniformity,
                        method="excess_mass", step_weights=TEST_WEIGHTS)
    else:
        test = run_mode_test(x, period, alpha=alpha, k_max=DEFAULT_K_MAX,
                             n_boot=DEFAULT_N_BOOT, random_state=random_state, check=check,
                             null=null)
        if uniformity is not None:
            test = dataclasses.replace(test, uniformity_p_value=uniformity)
    clusters = clusters_for_test(x, period, test, labels, paper=paper, check=check)
    if stability:
        distinct = distinct_sample(x, period)
        tested = continuous_sample(distinct, period).values if distinct.has_ties else x
        plug_in = (paper.bandwidth if paper is not None and not distinct.has_ties
                   else plug_in_bandwidth(tested, period))
        figures = cluster_stability(tested, period, clusters.antimodes,
                                    clusters.n_clusters, bandwidth=plug_in,
                                    random_state=random_state, check=check)
        clusters = dataclasses.replace(clusters, stability=figures)
    return clusters


def _clusters_of_distinct_rows(
    x: NDArray[np.float64], period: float, angles: NDArray[np.float64],
    first: NDArray[np.intp], inverse: NDArray[np.intp], *, alpha: float, null: NullName,
    labels: ArrayLike | None, stability: bool, random_state: RandomStateLike,
    check: CancelCheck | None,
) -> ModeClustering:
    """:func:`pns1_mode_clusters` of torus data with repeated rows: everything is found from
    one score per distinct row (``first``), then every row takes its copy's cluster
    (:mod:`~stpca_gui.core.circstats.ties`)."""
    true_labels = checked_labels(labels, x.size)
    note = ties_note(x.size, first.size, "rows")
    if first.size < MIN_DISTINCT:
        test = ModeTest(n_modes=1, p_values=(), critical_bandwidths=(), alpha=float(alpha),
                        calibration=null, n_boot=DEFAULT_N_BOOT, k_max=DEFAULT_K_MAX,
                        period=period, n=x.size, method="excess_mass",
                        step_weights=TEST_WEIGHTS, n_distinct=int(first.size), note=note)
        clusters = clusters_for_test(x, period, test, true_labels, check=check)
        # one cluster: it is every resample's one cluster
        return dataclasses.replace(clusters, stability=np.ones(1) if stability else None)
    clusters = pns1_mode_clusters(x[first], period, torus_angles=angles[first], alpha=alpha,
                                  null=null, stability=stability, random_state=random_state,
                                  check=check)
    test = clusters.mode_test
    if test is not None:
        test = dataclasses.replace(test, n=x.size, n_distinct=int(first.size),
                                   note="; ".join(t for t in (note, test.note) if t))
    cluster = clusters.labels[inverse]
    rate = confusion = None
    if true_labels is not None:
        rate, confusion = classification(cluster, clusters.n_clusters, true_labels)
    return dataclasses.replace(clusters, labels=cluster, mode_test=test,
                               classification_rate=rate, confusion=confusion)
