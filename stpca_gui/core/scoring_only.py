"""Scoring-only models: a fitted ST-PCA without its per-sample results.

``transform`` and ``inverse_transform`` need the matched configurations the new points are
placed against (``match_``: the landmarks, or every sample of an exact fit), the PNS
geometry (``pns_`` without its scores) and the principal curve; the per-sample results of
the fit — the samples' angles, unit vectors and scores, the interpolation stress of each
placed point, the torus-variance projections — are for looking at the fit, not for scoring,
and at n = 2·10⁵ they are most of a model file (`benchmarks/bench_persist.py`).

A scoring-only model carries ``scoring_only_ = True`` and lacks those attributes; asking
for one raises :class:`ScoringOnlyError`, which says why (and, being an AttributeError,
keeps ``hasattr`` truthful).
"""

from __future__ import annotations

import copy
from typing import Any

# Written for ScaledTorusPCA, but without importing it: the model file format
# (persistence.py) uses this module and names no estimator.
FittedModel = Any  # a fitted ScaledTorusPCA

#: Fitted attributes of ScaledTorusPCA that hold one row (or index) per fitted sample.
SAMPLE_ATTRIBUTES = ("angles_", "embedding_", "scores_", "interpolation_stress_",
                     "landmark_indices_", "torus_variance_indices_", "projections_")
#: The same, of the PNS fit inside the model.
PNS_SAMPLE_ATTRIBUTES = ("scores_",)
#: The kinds of model file, as written in their metadata (``"kind"``).
FULL, SCORING_ONLY = "full", "scoring-only"


class ScoringOnlyError(AttributeError):
    """A per-sample result was asked of a model saved for scoring only."""


def scoring_copy(model: FittedModel) -> FittedModel:
    """A copy of the fitted ``model`` with only what scoring new data needs (shares the
    arrays it keeps with ``model``; ``model`` is left unchanged)."""
    model._check_fitted()
    lean = copy.copy(model)
    for name in SAMPLE_ATTRIBUTES:
        vars(lean).pop(name, None)
    pns = copy.copy(model.pns_)
    for name in PNS_SAMPLE_ATTRIBUTES:
        vars(pns).pop(name, None)
    lean.pns_ = pns
    lean.scoring_only_ = True
    return lean


def is_scoring_only(model: object) -> bool:
    """Whether ``model`` was saved (or copied) for scoring only."""
    return bool(vars(model).get("scoring_only_", False))


def model_kind(model: object) -> str:
    """:data:`SCORING_ONLY` or :data:`FULL`."""
    return SCORING_ONLY if is_scoring_only(model) else FULL


def missing_attribute(model: object, name: str) -> AttributeError:
    """The error for ``model.name`` when ordinary lookup failed: a :class:`ScoringOnlyError`
    naming what the model can still do, for a per-sample result of a scoring-only model."""
    if name in SAMPLE_ATTRIBUTES and is_scoring_only(model):
        return ScoringOnlyError(
            f"this ScaledTorusPCA was saved for scoring only (save(..., scoring_only=True) or "
            f"`stpca fit --scoring-only`): it has no per-sample result {name!r}. It can "
            "transform new angles and inverse_transform scores; refit on the data (or load "
            "the full model file) for the fit's own samples, scores and plots")
    return AttributeError(f"{type(model).__name__!r} object has no attribute {name!r}")
