"""Projections of a sample onto the nested spheres of PNS, on the sphere and on the torus.

Section 3.5 of the paper: ŷ_i^(k) is the projection of ŷ_i onto the nested sphere S^k
(k = d: ŷ_i itself; k = 0: the backwards mean μ̂), x̂_i^(k) = T̃(ŷ_i^(k)) its prediction on
the torus (eq. invmds2), and the variance explained by component k is
var^(k) = Σ_i δ(x̂_i^(k−1), x̂_i^(k))² (eq. totalvar on the sphere, its torus analogue on
the torus). :class:`~stpca_gui.core.stpca.ScaledTorusPCA` computes the torus variance
with these functions; ``order`` lets other orders of the components be evaluated (see
``docs/variance_gap.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..geometry.torus import torus_distance
from ..pns.pns import PrincipalNestedSpheres
from .prediction import SMDSMatch

__all__ = ["iterate_projections", "level_scores", "nested_variance", "predict_projections",
           "sphere_projections", "variance_attributes"]

#: Queries solved between two progress reports (and chances to cancel) in batch prediction.
PREDICTION_BATCH = 512

Distance = Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.float64]]
ProgressReport = Callable[[float, str], None]


def _check_order(order: Sequence[int] | None, d: int) -> NDArray[np.intp]:
    if order is None:
        return np.arange(d)
    values = np.asarray(order, dtype=np.intp)
    if values.shape != (d,) or sorted(values.tolist()) != list(range(d)):
        raise ValueError(f"order must be a permutation of 0..{d - 1}, got {list(order)}")
    return values


def level_scores(scores: NDArray[np.float64], k: int,
                 order: Sequence[int] | None = None) -> NDArray[np.float64]:
    """The scores of the projections onto level ``k``: the score columns ``order[:k]`` kept,
    the others zero.

    With the default order (0, 1, …, d − 1), column 0 being PNS1, level k is the nested
    sphere S^k of PNS: ``k = d`` keeps every score (the points themselves), ``k = 0`` none
    (the backwards mean).
    """
    d = scores.shape[1]
    kept = np.zeros_like(scores)
    columns = _check_order(order, d)[:k]
    kept[:, columns] = scores[:, columns]
    return kept


def sphere_projections(pns: PrincipalNestedSpheres, scores: NDArray[np.float64],
                       order: Sequence[int] | None = None) -> NDArray[np.float64]:
    """ŷ^(k) for k = 0, …, d: unit vectors of shape (d + 1, n, d + 1).

    Parameters
    ----------
    pns : PrincipalNestedSpheres
        A fitted PNS.
    scores : ndarray, shape (n, d)
        PNS scores of the samples (``pns.transform`` of their sphere points).
    order : sequence of int, optional
        The order in which score columns are added level by level (default: PNS1 first).
    """
    d = scores.shape[1]
    return np.stack([pns.inverse_transform(level_scores(scores, k, order))
                     for k in range(d + 1)])


def iterate_projections(
    pns: PrincipalNestedSpheres, match: SMDSMatch, scores: NDArray[np.float64],
    angles: NDArray[np.float64], *, levels: Sequence[int] | None = None,
    order: Sequence[int] | None = None, report: ProgressReport | None = None,
    tol: float | None = None,
) -> Iterator[tuple[int, NDArray[np.float64]]]:
    """(k, x̂^(k) = T̃(ŷ^(k))) for the ``levels`` k (default 0 … d), highest first.

    The highest level is predicted first, each sample starting from its torus point
    ``angles``; each lower level starts from the one above (the projections move little
    from level to level), and level 0, the backwards mean, is predicted once from the
    nearest sample and broadcast to every sample. Arguments as for
    :func:`predict_projections`; ``tol`` is T̃'s stopping tolerance (default
    :data:`~.prediction.DEFAULT_TOL`).
    """
    limits = {} if tol is None else {"tol": tol}
    n, d = scores.shape
    wanted = sorted({int(k) for k in (range(d + 1) if levels is None else levels)},
                    reverse=True)
    if not wanted or wanted[0] > d or wanted[-1] < 0:
        raise ValueError(f"levels must lie in 0..{d}, got {levels}")
    upper = [k for k in wanted if k > 0]
    total_batches = len(upper) * int(np.ceil(n / PREDICTION_BATCH)) + 1
    done = 0
    previous = angles
    for k in upper:
        units = pns.inverse_transform(level_scores(scores, k, order))
        level = np.empty((n, d))
        for begin in range(0, n, PREDICTION_BATCH):
            rows = slice(begin, min(n, begin + PREDICTION_BATCH))
            level[rows], _ = match.predict(units[rows], start=previous[rows], **limits)
            done += 1
            if report is not None:
                report(done / total_batches, f"torus variance: projections onto S^{k}")
        yield k, level
        previous = level
    if wanted[-1] == 0:
        mean_angles, _ = match.predict(pns.mean_[None, :], **limits)
        if report is not None:
            report(1.0, "torus variance: backwards mean")
        yield 0, np.broadcast_to(mean_angles[0], (n, d))


def predict_projections(
    pns: PrincipalNestedSpheres, match: SMDSMatch, scores: NDArray[np.float64],
    angles: NDArray[np.float64], *, order: Sequence[int] | None = None,
    report: ProgressReport | None = None,
) -> NDArray[np.float64]:
    """x̂^(k) = T̃(ŷ^(k)) for k = 0, …, d: torus points of shape (d + 1, n, d).

    Level d is predicted first, each sample starting from its torus point ``angles``; each
    lower level starts from the one above, and level 0, the backwards mean, is predicted
    once from the nearest sample (:func:`iterate_projections`). This holds all d + 1
    levels: :mod:`.torus_variance` keeps two at a time for large d.

    Parameters
    ----------
    pns, scores, order
        As for :func:`sphere_projections`.
    match : SMDSMatch
        The SMDS fit whose prediction map T̃ (eq. invmds2) is used.
    angles : ndarray, shape (n, d)
        The samples' torus points (the starts of level d).
    report : callable, optional
        ``report(fraction, message)`` after every :data:`PREDICTION_BATCH` predictions; it
        may raise to stop.
    """
    n, d = scores.shape
    projections = np.empty((d + 1, n, d))
    for k, level in iterate_projections(pns, match, scores, angles, order=order,
                                        report=report):
        projections[k] = level
    return projections


def variance_attributes(pns: PrincipalNestedSpheres,
                        torus_variance: NDArray[np.float64]) -> dict[str, Any]:
    """The fitted attributes every torus PCA reports from its PNS fit and the torus
    variance of the components: ``scores_``, ``explained_variance_`` and
    ``explained_variance_ratio_`` on the sphere; ``torus_explained_variance_`` and
    ``torus_explained_variance_ratio_`` (NaN when the total is not positive)."""
    total = float(np.sum(torus_variance))
    return {
        "scores_": pns.scores_,
        "explained_variance_": pns.explained_variance_,
        "explained_variance_ratio_": pns.explained_variance_ratio_,
        "torus_explained_variance_": torus_variance,
        "torus_explained_variance_ratio_": (torus_variance / total if total > 0
                                            else np.full(len(torus_variance), np.nan)),
    }


def nested_variance(levels: NDArray[np.float64],
                    distance: Distance = torus_distance) -> NDArray[np.float64]:
    """var^(k) = Σ_i distance(levels[k − 1, i], levels[k, i])² for k = 1, …, d.

    Parameters
    ----------
    levels : ndarray, shape (d + 1, n, p)
        Level 0 (the mean) to level d (the points) of every sample.
    distance : callable, default :func:`~stpca_gui.core.geometry.torus.torus_distance`
        Row-wise distance of two (n, p) arrays.

    Returns
    -------
    ndarray, shape (d,)
    """
    return np.array([np.sum(distance(levels[k - 1], levels[k]) ** 2)
                     for k in range(1, levels.shape[0])])
