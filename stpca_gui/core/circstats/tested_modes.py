"""The tested rule: as many clusters as the test for the number of modes finds, bounded where
the paper's density is lowest.

The number of clusters k̂ comes from the test for the number of modes
(:func:`~stpca_gui.core.circstats.mode_test.mode_test`, or Silverman's alone,
:func:`~stpca_gui.core.circstats.silverman.silverman_mode_test`); :func:`clusters_for_test`
places their boundaries at the antimodes of the paper rule's plug-in KDE
(:mod:`~stpca_gui.core.circstats.paper_modes`), its least prominent modes merged away down to
k̂, or, when that KDE has fewer than k̂ modes, at the domains of attraction of the modes of
the KDE at the critical bandwidth for k̂ modes. k̂ = 1 means no cluster structure
(``docs/mode_test.md``). Like the test, the boundaries are found from the sample with its
ties undone (:mod:`~stpca_gui.core.circstats.ties`); every point takes its value's cluster.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.progress import CancelCheck
from .._base.random import RandomStateLike
from ..geometry.torus import TWO_PI, wrap_angles
from .bandwidth import check_period, check_periodic_sample
from .mode_clustering import ModeClustering, arc_labels, checked_labels, classification
from .mode_test import DEFAULT_NULL, NullName, mode_test
from .paper_modes import TripledKde, paper_mode_clusters
from .prominence import align_antimodes, merge_shallowest_antimodes
from .silverman import (
    BinnedSample,
    Calibration,
    ModeTest,
    attraction_domains,
    binned_critical_bandwidth,
    silverman_mode_test,
    unit_angles,
)
from .ties import continuous_sample, distinct_sample

#: ``"excess_mass"``: :func:`~stpca_gui.core.circstats.mode_test.mode_test` (the product's);
#: ``"silverman"``: :func:`~stpca_gui.core.circstats.silverman.silverman_mode_test`.
ModeTestName = Literal["excess_mass", "silverman"]
MODE_TESTS: tuple[ModeTestName, ...] = ("excess_mass", "silverman")



def _modes_and_preceding_antimodes(
    maxima: NDArray[np.float64], minima: NDArray[np.float64], period: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Modes increasing in [−P/2, P/2), each with the antimode just before it (circularly)."""
    order, preceding = align_antimodes(maxima, minima, period)
    return wrap_angles(maxima, period)[order], wrap_angles(minima, period)[preceding]


def run_mode_test(
    angles: ArrayLike, period: float, *, test: ModeTestName = "excess_mass",
    alpha: float, k_max: int, n_boot: int, calibration: Calibration = "silverman",
    random_state: RandomStateLike = 0, check: CancelCheck | None = None,
    null: NullName = DEFAULT_NULL,
) -> ModeTest:
    """The test for the number of modes named ``test`` (``calibration`` belongs to
    Silverman's test alone, ``null`` to :func:`~stpca_gui.core.circstats.mode_test.
    mode_test`)."""
    if test == "silverman":
        if null != DEFAULT_NULL:
            raise ValueError("null belongs to the excess-mass test; use test='excess_mass'")
        return silverman_mode_test(angles, period, alpha=alpha, k_max=k_max, n_boot=n_boot,
                                   calibration=calibration, random_state=random_state,
                                   check=check)
    if test != "excess_mass":
        raise ValueError(f"unknown test {test!r}; use 'excess_mass' or 'silverman'")
    if calibration != "silverman":
        raise ValueError("calibration belongs to Silverman's test; use test='silverman'")
    return mode_test(angles, period, alpha=alpha, k_max=k_max, n_boot=n_boot,
                     random_state=random_state, check=check, null=null)


def tested_mode_clusters(
    angles: ArrayLike, period: float, labels: ArrayLike | None, *, alpha: float,
    k_max: int, n_boot: int, calibration: Calibration, random_state: RandomStateLike,
    check: CancelCheck | None, test: ModeTestName = "excess_mass",
    null: NullName = DEFAULT_NULL,
) -> ModeClustering:
    """The test's k̂ and :func:`clusters_for_test`'s boundaries."""
    period = check_period(period)
    x = check_periodic_sample(angles)
    true_labels = checked_labels(labels, x.size)
    result = run_mode_test(x, period, test=test, alpha=alpha, k_max=k_max, n_boot=n_boot,
                           calibration=calibration, random_state=random_state, check=check,
                           null=null)
    return clusters_for_test(x, period, result, true_labels, check=check)


def clusters_for_test(
    angles: ArrayLike, period: float, test: ModeTest, labels: ArrayLike | None = None,
    *, paper: ModeClustering | None = None, check: CancelCheck | None = None,
) -> ModeClustering:
    """The clusters of a finished :class:`ModeTest`: ``test.n_modes`` (k̂) clusters.

    The test decides how many clusters there are; their boundaries come from the best
    density estimate at hand for locating features, the paper's KDE with the plug-in
    bandwidth for the density derivative
    (:func:`~stpca_gui.core.circstats.paper_modes.plug_in_bandwidth`):

    * if it has exactly k̂ modes, its antimodes (the clusters are then the paper rule's);
    * if it has more, its modes merged across their shallowest antimodes down to k̂
      (:func:`~stpca_gui.core.circstats.prominence.merge_shallowest_antimodes`);
    * if it has fewer (the plug-in bandwidth oversmooths), the domains of attraction of the
      modes of the wrapped-normal KDE at the critical bandwidth for k̂ modes.

    One cluster when k̂ is 1. The critical-bandwidth KDE has k̂ modes by construction but,
    being the least smoothed density with that many, it places the antimodes where the
    smallest of the k̂ bumps just survives rather than where the density is lowest; on the
    small RNA data its boundaries cost 3 points of 190 against the plug-in's
    (``docs/mode_test.md``).

    Parameters
    ----------
    angles : array_like, shape (n,)
        The sample the test was run on.
    period : float
        Its period.
    test : ModeTest
        The finished test (k̂ = ``test.n_modes``; its critical bandwidths for the fallback).
    labels : array_like, shape (n,), optional
        True labels, for the classification rate and the confusion table.
    paper : ModeClustering, optional
        The paper rule's clusters of the same sample with the default (plug-in) bandwidth,
        when the caller has them already (the app shows both rules): not computed again.
    check : callable, optional
        Cancel check, passed to the density scan.

    Returns
    -------
    ModeClustering
        ``method="tested"``, with ``test`` attached.

    Raises
    ------
    ValueError
        When ``paper`` is not the paper rule's clustering of a sample of this size.
    """
    period = check_period(period)
    x = check_periodic_sample(angles)
    true_labels = checked_labels(labels, x.size)
    if paper is not None and (paper.method != "paper" or paper.labels.size != x.size):
        raise ValueError("paper must be the paper rule's clusters of the same sample")
    distinct = distinct_sample(x, period)
    if distinct.has_ties:
        return _clusters_of_values(x, continuous_sample(distinct, period).values, period, test,
                                   true_labels, check)
    return _clusters_of_sample(x, period, test, true_labels, paper, check)


def _clusters_of_sample(
    x: NDArray[np.float64], period: float, test: ModeTest, true_labels: NDArray | None,
    paper: ModeClustering | None, check: CancelCheck | None,
) -> ModeClustering:
    """:func:`clusters_for_test` of a sample taken as continuous (ties undone or none)."""
    k = max(int(test.n_modes), 1)
    if k > 1:
        if paper is None:
            paper = paper_mode_clusters(x, period, check=check)
        if paper.n_clusters >= k:
            return _merged_plug_in_clusters(x, paper, test, true_labels)
    return _critical_clusters(x, period, test, true_labels)


def _clusters_of_values(
    x: NDArray[np.float64], tested: NDArray[np.float64], period: float, test: ModeTest,
    true_labels: NDArray | None, check: CancelCheck | None,
) -> ModeClustering:
    """The clusters of a sample ``x`` with ties: found from the ``tested`` sample (its ties
    undone), then every point takes the cluster of the arc its value lies in."""
    clusters = _clusters_of_sample(tested, period, test, None, None, check)
    cluster = (arc_labels(wrap_angles(x, period), clusters.antimodes, period)
               if clusters.n_clusters > 1 else np.zeros(x.size, dtype=np.int64))
    rate = confusion = None
    if true_labels is not None:
        rate, confusion = classification(cluster, clusters.n_clusters, true_labels)
    return dataclasses.replace(clusters, labels=cluster, classification_rate=rate,
                               confusion=confusion)


def _merged_plug_in_clusters(
    x: NDArray[np.float64], plug_in: ModeClustering, test: ModeTest,
    true_labels: NDArray | None,
) -> ModeClustering:
    """The paper rule's clusters with their least prominent modes merged down to k̂."""
    period = plug_in.period
    k = int(test.n_modes)
    modes, antimodes = plug_in.modes, plug_in.antimodes
    if plug_in.n_clusters > k:
        # The depths need the exact KDE at the extrema (the grid's would round them).
        kde = TripledKde.of(x, period, plug_in.bandwidth)
        kept_modes, kept_antimodes = merge_shallowest_antimodes(
            modes, kde.density(modes), antimodes, kde.density(antimodes), k, period)
        modes, antimodes = modes[kept_modes], antimodes[kept_antimodes]
    cluster = arc_labels(wrap_angles(x, period), antimodes, period)
    rate = confusion = None
    if true_labels is not None:
        rate, confusion = classification(cluster, k, true_labels)
    return dataclasses.replace(plug_in, labels=cluster, modes=modes, antimodes=antimodes,
                               classification_rate=rate, confusion=confusion,
                               method="tested", mode_test=test)


def _critical_clusters(
    x: NDArray[np.float64], period: float, test: ModeTest, true_labels: NDArray | None,
) -> ModeClustering:
    """Domains of attraction of the modes of the KDE at the critical bandwidth for k̂."""
    wrapped = wrap_angles(x, period)
    sample = BinnedSample(unit_angles(x, period))
    k = max(int(test.n_modes), 1)
    if len(test.critical_bandwidths) >= k:
        h = test.critical_bandwidths[k - 1] * TWO_PI / period
    else:  # the uniformity test stood in for the mode test: show the one-mode density
        h = binned_critical_bandwidth(sample, 1)
    node = period / sample.size
    grid = -0.5 * period + node * np.arange(sample.size)
    density = sample.density(h) * (TWO_PI / period)
    if k == 1:
        top = int(np.argmax(density))
        modes = np.array([grid[top]])
        antimodes = np.array([grid[int(np.argmin(density))]])
        cluster = np.zeros(x.size, dtype=np.int64)
    else:
        maxima, minima = attraction_domains(sample.derivative(h))
        modes, antimodes = _modes_and_preceding_antimodes(
            -0.5 * period + node * maxima, -0.5 * period + node * minima, period)
        cluster = arc_labels(wrapped, antimodes, period)
    rate = confusion = None
    if true_labels is not None:
        rate, confusion = classification(cluster, modes.size, true_labels)
    return ModeClustering(labels=cluster, modes=modes, antimodes=antimodes,
                          bandwidth=float(h * period / TWO_PI), grid=grid, density=density,
                          period=period, classification_rate=rate, confusion=confusion,
                          method="tested", mode_test=test)

