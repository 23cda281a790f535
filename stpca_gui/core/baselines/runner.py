"""The baseline methods by display name, :data:`BASELINES`, and :func:`run_baselines`, which
runs several of them on the same data with progress reports and cancel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from numpy.typing import ArrayLike

from .._base.progress import CancelCheck, FitCancelled, ProgressEvent
from ..geometry.validation import check_angles
from .dpca_plus import dihedral_pca_plus
from .euclidean import angular_pca, complex_dihedral_pca, dihedral_pca, euclidean_pca
from .result import BaselineResult
from .tpca_baseline import torus_pca

#: The stage of :func:`run_baselines`' progress reports.
BASELINES_STAGE = "baselines"

#: Display name → method; every method is called as ``method(angles, check=check)``.
BASELINES: dict[str, Callable[..., BaselineResult]] = {
    "Euclidean PCA": euclidean_pca,
    "aPCA": angular_pca,
    "dPCA": dihedral_pca,
    "complex dPCA": complex_dihedral_pca,
    "dPCA+": dihedral_pca_plus,
    "T-PCA (SI)": partial(torus_pca, ordering="SI"),
    "T-PCA (SO)": partial(torus_pca, ordering="SO"),
}


def run_baselines(
    angles: ArrayLike,
    methods: Sequence[str] | None = None,
    callback: Callable[..., bool | None] | None = None,
) -> dict[str, BaselineResult]:
    """Run several baseline methods on the same data.

    Parameters
    ----------
    angles : array_like, shape (n, d)
        Angles in radians.
    methods : sequence of str, optional
        Display names from :data:`BASELINES`; all of them (in registry order) by default.
    callback : callable, optional
        Receives a :class:`~stpca_gui.core._base.progress.ProgressEvent` (stage "baselines")
        at every cancel check inside each method (between its steps, and inside T-PCA's
        fit) and after each method; returning True cancels, midway through a method too.

    Returns
    -------
    dict
        Display name → :class:`BaselineResult`, in the order requested.

    Raises
    ------
    ValueError
        For an unknown method name or invalid data.
    FitCancelled
        When ``callback`` asked to stop.
    """
    names = list(BASELINES) if methods is None else list(methods)
    unknown = [m for m in names if m not in BASELINES]
    if unknown:
        raise ValueError(
            f"unknown baseline method(s) {unknown}; valid names are: {', '.join(BASELINES)}"
        )
    data = check_angles(angles)
    results: dict[str, BaselineResult] = {}
    for done, name in enumerate(names, start=1):
        results[name] = BASELINES[name](data, check=_cancel_check(
            callback, name, ProgressEvent(BASELINES_STAGE, (done - 1) / len(names),
                                          message=f"{name} ({done} of {len(names)})…")))
        if callback is not None and callback(ProgressEvent(
                BASELINES_STAGE, done / len(names),
                message=f"{name} done ({done} of {len(names)})")):
            raise FitCancelled(f"cancelled after {name}")
    return results


def _cancel_check(callback: Callable[..., bool | None] | None, name: str,
                  event: Any) -> CancelCheck | None:
    """The cancel check of method ``name``: hands ``event`` to ``callback`` and raises
    FitCancelled when it asks to stop (None without a callback)."""
    if callback is None:
        return None

    def check() -> None:
        if callback(event):
            raise FitCancelled(f"cancelled during {name}")

    return check
