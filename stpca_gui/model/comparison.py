"""Comparing ST-PCA with the other torus PCAs (*Analysis → Compare methods*), Qt-free: the
background task running the baseline methods and the rows the comparison shows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import BASELINES, BaselineResult, run_baselines
from .app_state import AppState
from .tasks import TaskState

__all__ = ["VARIANCE_NAMES", "MethodRow", "baselines_task", "method_rows"]

#: How the table names each kind of variance (``BaselineResult.convention``, and "sphere"
#: for an ST-PCA fit without its torus variance).
VARIANCE_NAMES = {"covariance": "covariance (PCA)", "torus": "torus (§3.5)",
                  "sphere": "sphere (PNS)"}


@dataclass(frozen=True)
class MethodRow:
    """One method of the comparison: its scores and the variance shares it reports.

    Attributes
    ----------
    name : str
    scores : ndarray, shape (n, q)
    ratio : ndarray, shape (q,)
        The shares the method reports, in the variance named by ``variance``.
    variance : str
        A key of :data:`VARIANCE_NAMES`.
    sphere_ratio : ndarray or None
        The PNS (sphere) shares, for the methods through a sphere (ST-PCA, T-PCA).
    axis_names : tuple of str
        The names of the first two scores.
    notes : tuple of str
        Caveats to show with the method's numbers.
    """

    name: str
    scores: np.ndarray
    ratio: np.ndarray
    variance: str
    sphere_ratio: np.ndarray | None = None
    axis_names: tuple[str, str] = ("PC1", "PC2")
    notes: tuple[str, ...] = ()


def baselines_task(angles: np.ndarray, state: TaskState) -> dict[str, BaselineResult]:
    """The background task: every baseline method on the data (Qt-free), handing over the
    methods done so far after each one, so the table fills while the rest run. A cancel
    stops the running method at its next check (T-PCA checks inside its fit)."""
    results: dict[str, BaselineResult] = {}
    names = list(BASELINES)
    for done, name in enumerate(names):
        state.progress(done / len(names), f"{name} ({done + 1} of {len(names)})…")
        results.update(run_baselines(angles, methods=[name],
                                     callback=lambda _event: state.cancelled))
        state.partial(dict(results))
    state.progress(1.0, f"{len(names)} methods done")
    return results


def method_rows(state: AppState, baselines: dict[str, BaselineResult]) -> list[MethodRow]:
    """ST-PCA and every baseline, each with the variance shares the paper reports for it:
    the torus variance (§3.5) for ST-PCA and T-PCA, the covariance shares for the others."""
    result = state.result
    torus = np.asarray(result.torus_ratio)
    has_torus = bool(np.all(np.isfinite(torus)))  # not computed when the fit skipped it
    rows = [MethodRow("ST-PCA", result.scores, torus if has_torus else result.sphere_ratio,
                      "torus" if has_torus else "sphere", result.sphere_ratio,
                      ("PNS1", "PNS2"))]
    for name, b in baselines.items():
        through_sphere = b.convention == "torus"
        rows.append(MethodRow(
            name, b.scores, b.reported_ratio, b.convention,
            b.explained_variance_ratio if through_sphere else None,
            ("PNS1", "PNS2") if through_sphere else ("PC1", "PC2"), b.notes))
    return rows
