"""The outcome of one baseline method, :class:`BaselineResult`, and what its percentages mean.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: What a method's percentages are shares of (``BaselineResult.convention``), as the paper's
#: Table 2 marks them.
CONVENTIONS: dict[str, str] = {
    "covariance": "standard PCA: eigenvalue / trace of the covariance of the method's "
                  "representation of the angles",
    "torus": "torus variance (§3.5): squared torus distances between the projections onto "
             "successive nested subspheres, mapped back to the torus",
}


def _readonly(value: Any) -> Any:
    """Return a read-only copy of an array (other values are returned unchanged)."""
    if isinstance(value, np.ndarray):
        out = np.array(value, copy=True)
        out.setflags(write=False)
        return out
    return value


@dataclass(frozen=True, eq=False)
class BaselineResult:
    """Outcome of one baseline dimension-reduction method.

    Attributes
    ----------
    name : str
        Display name of the method (a key of :data:`~stpca_gui.core.baselines.BASELINES`).
    scores : ndarray, shape (n, q), float
        Real principal-component scores, PC1 in column 0.  For complex dPCA these are the
        real parts of the complex scores (see
        :func:`~stpca_gui.core.baselines.complex_dihedral_pca`).
    explained_variance : ndarray, shape (q,)
        Variance of each component: the covariance eigenvalue, or for T-PCA the PNS
        (sphere) variance of each score.
    explained_variance_ratio : ndarray, shape (q,)
        ``explained_variance / explained_variance.sum()``: values in [0, 1] summing to 1.
    components : ndarray, shape (q, p), or None
        Loading vectors as rows (``components[k]`` belongs to PC k+1), over the ``p``
        features named by ``feature_labels``.  Complex for complex dPCA; None for T-PCA,
        whose components are nested subspheres, not directions.
    mean : ndarray, shape (p,)
        The centre subtracted in feature space before projecting (for T-PCA, the backwards
        mean mapped to the torus).
    feature_labels : tuple of str
        Names of the ``p`` features the loadings refer to (e.g. ``"cos θ1"`` for dPCA).
    extras : mapping of str to ndarray
        Method-specific outputs (read-only), documented by each method, e.g. the cuts of
        dPCA+ under ``"cuts"``.
    convention : str
        Which variance the method's percentages are shares of, a key of
        :data:`CONVENTIONS`: ``"covariance"`` (the PCA variants) or ``"torus"`` (T-PCA).
    torus_explained_variance_ratio : ndarray, shape (q,), or None
        The shares of the torus variance (§3.5), for methods that have one.
    notes : tuple of str
        Caveats about this result that a reader of its percentages should see (e.g. T-PCA
        on angles without a data gap).

    Notes
    -----
    All arrays are stored as read-only copies.
    """

    name: str
    scores: NDArray[np.float64]
    explained_variance: NDArray[np.float64]
    explained_variance_ratio: NDArray[np.float64]
    components: NDArray[Any] | None
    mean: NDArray[Any]
    feature_labels: tuple[str, ...]
    extras: Mapping[str, Any] = field(default_factory=dict)
    convention: str = "covariance"
    torus_explained_variance_ratio: NDArray[np.float64] | None = None
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.convention not in CONVENTIONS:
            raise ValueError(f"convention must be one of {list(CONVENTIONS)}, "
                             f"got {self.convention!r}")
        if self.convention == "torus" and self.torus_explained_variance_ratio is None:
            raise ValueError("a result reporting the torus variance needs its ratios")
        for name in ("scores", "explained_variance", "explained_variance_ratio",
                     "components", "mean", "torus_explained_variance_ratio"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _readonly(np.asarray(value)))
        object.__setattr__(self, "feature_labels", tuple(self.feature_labels))
        object.__setattr__(self, "notes", tuple(self.notes))
        object.__setattr__(
            self, "extras", MappingProxyType({k: _readonly(v) for k, v in self.extras.items()})
        )

    @property
    def n_components(self) -> int:
        """Number of components q."""
        return int(self.explained_variance.shape[0])

    @property
    def n_samples(self) -> int:
        """Number of data points n."""
        return int(self.scores.shape[0])

    @property
    def reported_ratio(self) -> NDArray[np.float64]:
        """The shares the method reports, in its :attr:`convention` (the paper's Table 2)."""
        if self.convention == "torus":
            return self.torus_explained_variance_ratio
        return self.explained_variance_ratio



def angle_labels(d: int) -> list[str]:
    """Names of d angles as features: θ1 … θd."""
    return [f"θ{j + 1}" for j in range(d)]

