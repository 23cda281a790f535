"""Mode clusters of a fitted estimator's first PNS score: the product's rule for a model.

:func:`model_mode_clusters` reads what the clustering needs from a fitted
:class:`~stpca_gui.core.stpca.ScaledTorusPCA` (the PNS1 scores, their period 2π·r₁ and the
angles it was fitted on) and hands them to
:func:`~stpca_gui.core.circstats.modes.pns1_mode_clusters`. It sits with the estimators,
above the method's steps: :mod:`~stpca_gui.core.circstats` knows no estimator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from numpy.typing import ArrayLike

from ._base.progress import CancelCheck
from .circstats.mode_test import DEFAULT_NULL, NullName
from .circstats.modes import ModeClustering, ModeRule, pns1_mode_clusters
from .circstats.silverman import DEFAULT_ALPHA
from .geometry.torus import TWO_PI

if TYPE_CHECKING:
    from .stpca import ScaledTorusPCA

__all__ = ["model_mode_clusters"]



def model_mode_clusters(
    model: ScaledTorusPCA,
    *,
    method: ModeRule = "tested",
    alpha: float = DEFAULT_ALPHA,
    null: NullName = DEFAULT_NULL,
    labels: ArrayLike | None = None,
    stability: bool = True,
    paper: ModeClustering | None = None,
    check: CancelCheck | None = None,
) -> ModeClustering:
    """:func:`~stpca_gui.core.circstats.modes.pns1_mode_clusters` of a fitted
    :class:`~stpca_gui.core.stpca.ScaledTorusPCA`: its PNS1 scores, their period and, for the
    uniformity test, the angles it was fitted on.
    """
    period = TWO_PI * float(model.pns_.circle_radius_)
    return pns1_mode_clusters(model.scores_[:, 0], period,
                              torus_angles=getattr(model, "angles_", None), method=method,
                              alpha=alpha, null=null, labels=labels, stability=stability,
                              paper=paper, check=check)
