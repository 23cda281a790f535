"""T-PCA (Eltzner, Huckemann & Mardia, 2018) as a baseline method: a wrapper of
:class:`~stpca_gui.core.tpca.TorusPCA` that reports the torus variance's shares.
"""

from __future__ import annotations

from numpy.typing import ArrayLike

from .._base.progress import CancelCheck
from ..tpca import TorusPCA
from .result import BaselineResult, angle_labels


def torus_pca(angles: ArrayLike, ordering: str = "SI", *,
              check: CancelCheck | None = None) -> BaselineResult:
    """T-PCA (Eltzner, Huckemann & Mardia, 2018) as a comparison method.

    :class:`~stpca_gui.core.tpca.TorusPCA` with its defaults and seed 0 (the PNS bootstrap
    is its only random step, so every run gives the same result).

    Parameters
    ----------
    angles : array_like, shape (n, d)
        Angles in radians.
    ordering : {"SI", "SO"}
        Angles ordered with the largest circular spread inside (SI) or outside (SO).
    check : callable, optional
        Cancel check, passed to :meth:`TorusPCA.fit <stpca_gui.core.tpca.TorusPCA.fit>`.

    Returns
    -------
    BaselineResult
        ``name="T-PCA (SI)"`` or ``"T-PCA (SO)"``, q = d, ``convention="torus"``:
        ``torus_explained_variance_ratio`` holds the torus shares (§3.5, what the paper
        reports), ``explained_variance``/``explained_variance_ratio`` the PNS (sphere) ones.
        ``components`` is None and ``mean`` the backwards mean on the torus.  ``notes``
        holds the warning about angles without a data gap, if any.  Extras: ``"cuts"``,
        ``"gaps"``, ``"has_gap"``, ``"spreads"`` (d,) per angle, ``"order"`` (d,) the
        columns as ψ_1 … ψ_d, ``"embedding"`` (n, d + 1) the deformed points on S^d and
        ``"sphere_types"`` the PNS subsphere types.
    """
    # The gap warning becomes a note of the result, which the callers show with it.
    model = TorusPCA(ordering=ordering, random_state=0).fit(angles, warn=False, check=check)
    return BaselineResult(
        name=f"T-PCA ({ordering})",
        scores=model.scores_,
        explained_variance=model.explained_variance_,
        explained_variance_ratio=model.explained_variance_ratio_,
        components=None,
        mean=model.mean_,
        feature_labels=tuple(angle_labels(model.n_features_in_)),
        extras={"cuts": model.cuts_, "gaps": model.gaps_, "has_gap": model.has_gap_,
                "spreads": model.spreads_, "order": model.order_,
                "embedding": model.embedding_,
                "sphere_types": tuple(model.pns_.sphere_types_)},
        convention="torus",
        torus_explained_variance_ratio=model.torus_explained_variance_ratio_,
        notes=(model.gap_message_,) if model.gap_message_ else (),
    )
