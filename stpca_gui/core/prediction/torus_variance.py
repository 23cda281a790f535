"""The torus explained variance of section 3.5 for the components a user looks at.

The paper's var_T^(k) = Σ_i δ_T(x̂_i^(k−1), x̂_i^(k))², k = 1 … d, predicts every projection
of every sample on the torus: n·d predictions T̃ (eq. invmds2), each O(n_match·d) or more,
which is hours at d = 66 and n = 10⁴ (issue 32). Most of those components carry nothing
a user reads, so the estimate here is computed

* for the first K components only (:func:`torus_variance_components`): all of them when
  there are at most ``max_components`` (every d ≤ 10 by default, where nothing changes),
  else the fewest that cover ``coverage`` (99 %) of the sphere variance, at most
  ``max_components``. The components after K are reported together as *remaining*,
  Σ_i δ_T(x̂_i^(K), x̂_i^(d))²: the torus distance from the projection onto S^K to the
  point's own prediction, which is what the components after K add up to when their steps
  are orthogonal (it is the sum of their variances on the sphere, where PNS's residuals
  are; on the torus it is measured, docs/high_d_prediction.md);
* on a random sample of the points when n is large (``sample_sizes`` of
  :func:`estimate_torus_variance`), every ratio with its standard error, so that the
  sampling error is stated rather than hidden. With K < d the sums are ratio estimates
  with the squared PNS scores as auxiliary variable (:func:`auxiliary_ratio_estimates`):
  those are known for every point at no cost and follow the torus steps closely, so the
  same standard error needs a far smaller sample (docs/high_d_prediction.md).

The ratios are var_T^(k) / (Σ_{j ≤ K} var_T^(j) + remaining). Only consecutive levels are
held in memory: O(sample · d), never the (d + 1) × n × d stack of all projections.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..geometry.torus import circular_difference
from ..pns.pns import PrincipalNestedSpheres
from .prediction import SMDSMatch
from .projections import iterate_projections

__all__ = ["TORUS_VARIANCE_COVERAGE", "TORUS_VARIANCE_FIRST_SAMPLE",
           "TORUS_VARIANCE_PREDICTION_TOL", "TORUS_VARIANCE_SAMPLE", "TORUS_VARIANCE_TARGET_SE",
           "TorusVarianceEstimate", "auxiliary_ratio_estimates",
           "estimate_torus_variance", "ratio_standard_errors", "score_auxiliary",
           "stored_projection_summary", "torus_variance_components", "torus_variance_levels"]

#: Share of the sphere variance the components with a torus variance cover by default.
TORUS_VARIANCE_COVERAGE = 0.99
#: A landmark fit estimates the torus variance from this many random samples (the sums are
#: scaled to n). Measured on all sunspot births (n = 51,301): the ratios of four such
#: subsamples differ from those of all samples by at most 0.07 points (sd 0.05).
TORUS_VARIANCE_SAMPLE = 10_000
#: A torus variance of only the first components (d > ``max_torus_components``) starts on
#: this many random samples and doubles the sample until every ratio's standard error is
#: at most TORUS_VARIANCE_TARGET_SE (or the sample reaches TORUS_VARIANCE_SAMPLE or n).
#: The target is half a percentage point of a ratio. Chosen on the 3-state data of T⁶⁶
#: (n = 10⁴, K = 10), from each point's terms on 3,000 random points (a point's T̃ does
#: not depend on the others), resampled 2,000 times per size: PC1's stated standard error
#: (mean, and the spread of the estimates over the resamples) 0.34 / 0.34 point at 100
#: samples, 0.28 / 0.28 at 150, **0.24 / 0.24 at 200**, 0.20 / 0.20 at 300, 0.15 / 0.15
#: at 500; ±1.96 SE held PC1 and the remaining share 95 % of the time at every size. The
#: small components (0.1–0.5 %) are skewed: at 200 their stated errors are 84–100 % of
#: the spread on average (coverage 85–94 %; an error beyond 3 stated errors in 2–6 % of
#: the samples, 1–3 % at 500), but the errors themselves are at most 0.06 point in 99 %
#: of the samples (0.04 at 500). The fit's own sample moved them by up to 0.028 point
#: from its 500 points (3.8 stated errors), PC1 by 0.074 (0.3). T²⁰ likewise:
#: PC1 0.45 / 0.45 at 100 (13 % of the samples would double), 0.37 / 0.38 at 150,
#: 0.32 / 0.32 at 200, 0.20 / 0.21 at 500; at 200 every stated error 94–103 % of the
#: spread (coverage 91–96 %). The stage's T̃ work is proportional to the sample (200
#: instead of 500 points: 60 % less); before the ratio estimates it took 2,000 samples
#: for 0.5 point (docs/high_dimension.md).
TORUS_VARIANCE_FIRST_SAMPLE = 200
TORUS_VARIANCE_TARGET_SE = 0.005
#: T̃'s stopping tolerance (relative stress decrease) for the torus variance of the first
#: components (K < d), looser than a prediction's 1e-12: the sums need far less than the
#: solver's rounding. At high d most of T̃'s passes go to the end of its iteration, where
#: the minimum lies on a ridge of the torus distance and each damped step gains ~1e-6 of
#: the stress; where it starts matters little (each level starts from the level above).
#: Measured on the fit's 500 sampled points of the 3-state data, n = 10⁴, K = 10 (passes
#: over the partners and CG products per prediction, CPU s, largest move of a ratio or
#: the remaining share against 1e-12, in points of %):
#:
#: * d = 66: 1e-12 33.0 / 121, 28.7 s; 1e-7 21.4 / 90, 21.1 s, 4e-4; 1e-6 16.6 / 72,
#:   16.2 s, 1.4e-3; 1e-5 11.9 / 50, 11.2 s, 6.5e-3 (PC1's standard error 0.15);
#: * d = 20: 1e-12 9.5 / 47, 3.3 s; 1e-7 7.7 / 32, 2.5 s; 1e-5 6.3 / 24, 2.0 s, 1.3e-3.
#:
#: T̃'s answers themselves depend on the start: starting level K from the nearest sample
#: instead of level d's answer moved them by 1e-3 rad (median) and the ratios by up to
#: 0.011 point (d = 66, at 1e-7), more than 1e-5 moves them.
#:
#: 1e-4 against 1e-5 on the fit's first 200 sampled points (K = 10, n = 10⁴, same fit,
#: load 0.3): CPU s d = 426 71.8 → 48.9 (1e-3: 31.5), d = 66 4.3 → 2.9 (2.5), d = 20
#: 0.8 → 0.7 (0.6); the largest move of a ratio or the remaining share 0.016 / 0.011 /
#: 0.004 point at 1e-4 (PC1's standard error 0.20 / 0.23 / 0.40), 0.087 / 0.091 / 0.055 at
#: 1e-3 (too close to half a standard error).
TORUS_VARIANCE_PREDICTION_TOL = 1e-4

ProgressReport = Callable[[float, str], None]


def torus_variance_components(sphere_ratio: NDArray[np.float64], max_components: int,
                              coverage: float = TORUS_VARIANCE_COVERAGE) -> int:
    """K, the number of leading components whose torus variance is computed: all d when
    d ≤ ``max_components``, else the fewest whose sphere variance ratios add up to
    ``coverage``, at most ``max_components`` (at least 1)."""
    d = len(sphere_ratio)
    if d <= max_components:
        return d
    ratio = np.nan_to_num(np.asarray(sphere_ratio, dtype=np.float64), nan=0.0)
    covered = np.cumsum(ratio)
    needed = int(np.searchsorted(covered, coverage * covered[-1] - 1e-12)) + 1
    return int(min(max(needed, 1), max_components, d))


def torus_variance_levels(d: int, components: int) -> NDArray[np.intp]:
    """The nested-sphere levels predicted for ``components`` = K: 0 … K, and d when K < d."""
    levels = list(range(components + 1))
    if components < d:
        levels.append(d)
    return np.asarray(levels, dtype=np.intp)


@dataclass(frozen=True)
class TorusVarianceEstimate:
    """The torus variance of the first K components, summed over the n samples.

    Attributes
    ----------
    variance : ndarray, shape (K,)
        var_T^(k), k = 1 … K, scaled from the sample to all n samples.
    remaining : float
        Σ_i δ_T(x̂_i^(K), x̂_i^(d))², scaled likewise (0 when K = d).
    ratio, ratio_se : ndarray, shape (K,)
        var_T^(k) / total and its standard error from the sample (0 when every sample
        was used).
    remaining_ratio, remaining_ratio_se : float
    angle_contributions : ndarray, shape (K, d)
        Row k − 1: the share of var_T^(k) carried by each angle; rows sum to 1 (NaN where
        var_T^(k) = 0).
    sample : ndarray of int or None
        The sampled rows (sorted), None when every sample was used.
    projections : ndarray, shape (d + 1, s, d), or None
        x̂^(k) for k = 0 … d when every level was predicted (K = d), else None.
    """

    variance: NDArray[np.float64]
    remaining: float
    ratio: NDArray[np.float64]
    ratio_se: NDArray[np.float64]
    remaining_ratio: float
    remaining_ratio_se: float
    angle_contributions: NDArray[np.float64]
    sample: NDArray[np.intp] | None
    projections: NDArray[np.float64] | None


def ratio_standard_errors(terms: NDArray[np.float64], n_population: int
                          ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Ratio estimates Σ_i a_ij / Σ_i b_i and their standard errors from a simple random
    sample without replacement, b_i = Σ_j a_ij (Cochran, Sampling Techniques, §6.4: the
    linearised variance (1 − s/n) S_e² / (s b̄²), e_i = a_ij − R_j b_i).

    Parameters
    ----------
    terms : ndarray, shape (s, q)
        a_ij for the s sampled units.
    n_population : int
        n; the finite-population correction makes the error 0 when s = n.
    """
    s = terms.shape[0]
    per_unit = terms.sum(axis=1)
    total = per_unit.sum()
    if not total > 0.0:
        nan = np.full(terms.shape[1], np.nan)
        return nan, nan
    ratio = terms.sum(axis=0) / total
    if s < 2 or s >= n_population:
        return ratio, np.zeros_like(ratio)
    errors = terms - ratio[None, :] * per_unit[:, None]
    spread = np.sum(errors**2, axis=0) / (s - 1)
    mean_unit = total / s
    variance = (1.0 - s / n_population) * spread / (s * mean_unit**2)
    return ratio, np.sqrt(variance)


def score_auxiliary(scores: NDArray[np.float64], components: int) -> NDArray[np.float64]:
    """The auxiliary variable of each step of the torus variance, per sample (n, q): the
    squared PNS score of components 1 … K and, when K < d, the squared scores of the
    components after K summed (the remaining step). Each is the sample's share of that
    step's variance on the sphere, which its torus step follows."""
    squared = np.asarray(scores, dtype=np.float64) ** 2
    d = squared.shape[1]
    columns = [squared[:, :components]]
    if components < d:
        columns.append(squared[:, components:].sum(axis=1, keepdims=True))
    return np.concatenate(columns, axis=1)


def auxiliary_ratio_estimates(
    terms: NDArray[np.float64], auxiliary: NDArray[np.float64],
    auxiliary_totals: NDArray[np.float64], n_population: int,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Totals T_j = Σ_i a_ij over the population, their shares T_j / Σ_k T_k and the shares'
    standard errors, from a simple random sample without replacement and an auxiliary
    variable b_ij known for every unit.

    Each total is the ratio estimate B_j Σ_s a_ij / Σ_s b_ij, B_j = Σ_all b_ij (Cochran,
    Sampling Techniques, §6.2–6.4): when a_ij is nearly proportional to b_ij its error is
    that of the residuals e_ij = a_ij − R̂_j b_ij, not of a_ij. A column whose auxiliary sum
    is not positive is estimated by the sample mean × n instead. The shares' errors are
    linearised: z_ij = (B_j / b̄_j) e_ij per unit (n (a_ij − ā_j) for a mean column),
    u_ij = z_ij − share_j Σ_k z_ik, SE_j = √((1 − s/n) S²(u_j) / s) / Σ_k T_k. With every
    unit sampled the totals are the sums and the errors 0.

    Parameters
    ----------
    terms, auxiliary : ndarray, shape (s, q)
        a_ij and b_ij of the s sampled units.
    auxiliary_totals : ndarray, shape (q,)
        B_j, summed over all n units.
    n_population : int
    """
    s, q = terms.shape
    sample_sums = terms.sum(axis=0)
    auxiliary_sums = auxiliary.sum(axis=0)
    by_ratio = (auxiliary_sums > 0.0) & (np.asarray(auxiliary_totals) > 0.0)
    totals = n_population * sample_sums / max(s, 1)
    linear = n_population * (terms - sample_sums / max(s, 1))
    for j in np.flatnonzero(by_ratio):
        ratio = sample_sums[j] / auxiliary_sums[j]
        totals[j] = auxiliary_totals[j] * ratio
        linear[:, j] = (auxiliary_totals[j] * s / auxiliary_sums[j]) * (
            terms[:, j] - ratio * auxiliary[:, j])
    grand_total = float(totals.sum())
    if not grand_total > 0.0:
        nan = np.full(q, np.nan)
        return totals, nan, nan
    shares = totals / grand_total
    if s < 2 or s >= n_population:
        return totals, shares, np.zeros(q)
    residuals = linear - shares[None, :] * linear.sum(axis=1, keepdims=True)
    spread = np.var(residuals, axis=0, ddof=1)
    return totals, shares, np.sqrt((1.0 - s / n_population) * spread / s) / grand_total


def estimate_torus_variance(
    pns: PrincipalNestedSpheres, match: SMDSMatch, angles: NDArray[np.float64],
    scores: NDArray[np.float64], components: int, *,
    sample_order: NDArray[np.intp] | None = None, sample_sizes: Sequence[int] = (),
    target_se: float = 0.0, keep_projections: bool = False,
    auxiliary: NDArray[np.float64] | None = None, tol: float | None = None,
    report: ProgressReport | None = None,
) -> TorusVarianceEstimate:
    """Estimate the torus variance of the first ``components`` components.

    Parameters
    ----------
    pns, match
        The fit's PNS and SMDS match (its prediction map T̃).
    angles, scores : ndarray, shapes (n, d)
        The samples' torus points and PNS scores.
    components : int
        K (see :func:`torus_variance_components`).
    sample_order : ndarray of int, optional
        Distinct rows in random order; the sample of size s is its first s rows. None:
        every sample, in order.
    sample_sizes : sequence of int
        Increasing sample sizes tried in turn, at most ``len(sample_order)`` (default: the
        whole order, or n).
    target_se : float
        The estimate stops at the first size where every ratio's standard error is at most
        this (0: only the last size counts).
    keep_projections : bool
        Keep x̂^(k) for every level (only when K = d).
    auxiliary : ndarray, shape (n, q), optional
        An auxiliary variable per sample and step (q = K, + 1 when K < d), e.g.
        :func:`score_auxiliary`: the sums are then ratio estimates
        (:func:`auxiliary_ratio_estimates`). None: the sample's sums scaled to n.
    tol : float, optional
        T̃'s stopping tolerance (default that of :meth:`SMDSMatch.predict`).
    report : callable, optional
        ``report(fraction, message)`` between batches of predictions; it may raise to stop.
    """
    n, d = angles.shape
    levels = torus_variance_levels(d, components)
    population = n if sample_order is None else len(sample_order)
    sizes = [min(int(size), population) for size in sample_sizes] or [population]
    if keep_projections and len(sizes) > 1:
        raise ValueError("projections are kept for one sample size only")
    terms = np.empty((len(levels) - 1, 0))
    contributions = np.zeros((len(levels) - 1, d))
    projections = None
    auxiliary_totals = None if auxiliary is None else auxiliary.sum(axis=0)
    sampled_rows: list[NDArray[np.intp]] = []
    estimate = None
    done = 0
    total_work = float(sizes[-1])
    for size in sizes:
        if size <= done:
            continue
        rows = (np.arange(done, size) if sample_order is None
                else np.sort(sample_order[done:size]))
        part_report = None if report is None else (
            lambda fraction, message, lo=done, hi=size: report(
                (lo + fraction * (hi - lo)) / total_work, message))
        new_terms, new_contributions, stack = _level_terms(
            pns, match, angles[rows], scores[rows], levels, keep_projections, part_report, tol)
        terms = np.concatenate([terms, new_terms], axis=1)
        contributions += new_contributions
        if stack is not None:
            projections = stack if projections is None else np.concatenate(
                [projections, stack], axis=1)
        done = size
        sampled_rows.append(rows)
        if auxiliary is None:
            _, se = ratio_standard_errors(terms.T, n)
        else:
            estimate = auxiliary_ratio_estimates(
                terms.T, auxiliary[np.concatenate(sampled_rows)], auxiliary_totals, n)
            se = estimate[2]
        if target_se > 0.0 and np.all(np.nan_to_num(se, nan=np.inf) <= target_se):
            break
    # Summed per level over contiguous rows, scaled to n and divided by their total, as
    # the paper's var_T^(k) always were here (the ratio estimator's own sums agree to
    # rounding).
    scaled = (n / done * np.array([np.sum(row) for row in terms]) if estimate is None
              else estimate[0])
    total = float(np.sum(scaled))
    ratio = scaled / total if total > 0 else np.full(len(scaled), np.nan)
    variance = scaled[:components]
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = contributions / contributions.sum(axis=1, keepdims=True)
    has_rest = components < d
    sample = None if sample_order is None else np.sort(sample_order[:done])
    return TorusVarianceEstimate(
        variance=variance, remaining=float(scaled[components]) if has_rest else 0.0,
        ratio=ratio[:components], ratio_se=se[:components],
        remaining_ratio=float(ratio[components]) if has_rest else 0.0,
        remaining_ratio_se=float(se[components]) if has_rest else 0.0,
        angle_contributions=shares[:components], sample=sample,
        projections=projections if keep_projections and not has_rest else None)


def _level_terms(
    pns: PrincipalNestedSpheres, match: SMDSMatch, angles: NDArray[np.float64],
    scores: NDArray[np.float64], levels: NDArray[np.intp], keep: bool,
    report: ProgressReport | None, tol: float | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None]:
    """Per step between consecutive levels and per sample, δ_T² (len(levels) − 1, s); per
    step, the squared angular differences summed over the samples per angle; and the
    stack of all levels when ``keep``."""
    s, d = angles.shape
    stack = np.empty((len(levels), s, d)) if keep else None
    descending = iterate_projections(pns, match, scores, angles, levels=levels,
                                     report=report, tol=tol)

    def kept() -> Iterator[NDArray[np.float64]]:
        for position, (_, points) in zip(range(len(levels) - 1, -1, -1), descending,
                                         strict=True):
            if stack is not None:
                stack[position] = points
            yield points

    terms, contributions = _step_terms(kept(), len(levels), s, d)
    return terms, contributions, stack


def _step_terms(descending: Iterator[NDArray[np.float64]], count: int, s: int, d: int
                ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """From ``count`` levels of s points on T^d, highest first: δ_T² of each step per
    sample (count − 1, s) and the squared angular differences of each step summed over
    the samples per angle (count − 1, d)."""
    terms = np.empty((count - 1, s))
    contributions = np.zeros((count - 1, d))
    above: NDArray[np.float64] | None = None
    for position, points in zip(range(count - 1, -1, -1), descending, strict=True):
        if above is not None:
            difference = circular_difference(points, above)
            squared = difference * difference
            # δ_T², rounded as torus_distance(points, above) ** 2 is (the squares once).
            terms[position] = np.sqrt(np.sum(squared, axis=-1)) ** 2
            contributions[position] = np.sum(squared, axis=0)
        above = points
    return terms, contributions


def stored_projection_summary(projections: NDArray[np.float64], n_population: int
                              ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The ratios' standard errors (d,) and the angle contributions (d, d) of a stack of
    every level (d + 1, s, d) computed on s of ``n_population`` samples: for fits saved
    before those were reported (model files of format 1)."""
    count, s, d = projections.shape
    terms, contributions = _step_terms(iter(projections[::-1]), count, s, d)
    _, se = ratio_standard_errors(terms.T, n_population)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = contributions / contributions.sum(axis=1, keepdims=True)
    return se, shares
