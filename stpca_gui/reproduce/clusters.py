"""The one place where ``stpca reproduce`` finds mode clusters of first scores.

Every section calls :func:`mode_clusters` (or :func:`pns1_mode_clusters`), so the rule that
the whole report uses is chosen here once: the paper's rule (§5.2: the modes of the periodic
KDE with the plug-in bandwidth for the density derivative, every mode a cluster,
``method="paper"``). :func:`tested_pns1_clusters` gives the product's tested rule (issue 22,
docs/mode_test.md), shown beside the paper's numbers.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..core import ModeClustering, model_mode_clusters, periodic_mode_clusters


def mode_clusters(values: ArrayLike, period: float, labels: ArrayLike | None = None
                  ) -> ModeClustering:
    """Mode clusters of a periodic sample by the paper's rule (with the classification
    rate against ``labels`` when given)."""
    return periodic_mode_clusters(values, period=period, labels=labels, method="paper")


def pns1_mode_clusters(fit, labels: ArrayLike | None = None) -> ModeClustering:
    """Mode clusters of a fit's PNS1 scores (ST-PCA or T-PCA; period 2π · circle radius)."""
    return mode_clusters(fit.scores_[:, 0], 2 * np.pi * float(fit.pns_.circle_radius_), labels)


def tested_pns1_clusters(fit, labels: ArrayLike | None = None) -> ModeClustering:
    """The tested mode clusters of a fit's PNS1 (the app's rule; the torus uniformity test
    first when the fit kept its angles)."""
    return model_mode_clusters(fit, labels=labels, stability=False)
