"""Every way we found that the paper's explained-variance percentages could have been computed.

Section 3.5 of the paper defines the sphere variance (eq. totalvar) and its torus analogue;
the published percentages (§4, Table 2) are not reproduced by the definition as printed
(``docs/variance_gap.md``). Each :class:`Convention` here is one reading of it, computed
from one fitted :class:`~stpca_gui.core.ScaledTorusPCA`; all share the projections of
:mod:`stpca_gui.core.prediction.projections` and
:func:`~stpca_gui.core.prediction.projections.nested_variance`, and differ only in what they
feed them. For the report of ``stpca reproduce`` only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from ..core import ScaledTorusPCA
from ..core.geometry.torus import torus_distance, wrap_angles
from ..core.prediction.projections import nested_variance, predict_projections, sphere_projections

__all__ = ["CONVENTIONS", "Convention", "FitLevels", "curve_projection", "evaluate"]


def _geodesic(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """Great-circle distance on the unit sphere between rows (stable at small angles)."""
    return 2.0 * np.arctan2(np.linalg.norm(a - b, axis=-1), np.linalg.norm(a + b, axis=-1))


def _euclidean(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """|a − b| of angles in [−π, π) taken as plain numbers: the torus distance without the
    wrap, which a coding slip gives."""
    return np.linalg.norm(a - b, axis=-1)


def curve_projection(curve: NDArray[np.float64], breaks: NDArray[np.bool_],
                     points: NDArray[np.float64]) -> NDArray[np.float64]:
    """The nearest point of a closed torus polyline to each point.

    Parameters
    ----------
    curve : ndarray, shape (m, d)
        Vertices in order; segment j joins vertex j to vertex j + 1 (mod m), the shorter
        way round the torus.
    breaks : ndarray of bool, shape (m,)
        Segments that are not part of the curve (prediction breaks).
    points : ndarray, shape (n, d)

    Returns
    -------
    ndarray, shape (n, d)
        Wrapped to [−π, π).
    """
    start = curve[~breaks]
    step = wrap_angles(np.roll(curve, -1, axis=0) - curve)[~breaks]          # (s, d)
    offset = wrap_angles(points[:, None, :] - start[None, :, :])             # (n, s, d)
    length2 = np.maximum(np.sum(step * step, axis=1), np.finfo(float).tiny)
    t = np.clip(np.einsum("nsd,sd->ns", offset, step) / length2, 0.0, 1.0)   # (n, s)
    gap = offset - t[:, :, None] * step[None, :, :]
    best = np.argmin(np.einsum("nsd,nsd->ns", gap, gap), axis=1)
    rows = np.arange(points.shape[0])
    return wrap_angles(start[best] + t[rows, best, None] * step[best])


@dataclass
class FitLevels:
    """One fit, and the projections every convention reads, computed once.

    Attributes
    ----------
    model : ScaledTorusPCA
        Fitted with ``torus_variance=True`` and without a torus-variance subsample (the
        conventions use every sample).
    """

    model: ScaledTorusPCA
    _by_order: dict[tuple[int, ...], tuple[NDArray, NDArray]] = field(
        default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not hasattr(self.model, "projections_") or (
                self.model.torus_variance_indices_ is not None):
            raise ValueError("the fit must have the torus variance of every sample")

    @property
    def angles(self) -> NDArray[np.float64]:
        """The data x_i, shape (n, d)."""
        return self.model.angles_

    @property
    def d(self) -> int:
        return int(self.model.n_features_in_)

    def levels(self, order: Sequence[int] | None = None) -> tuple[NDArray, NDArray]:
        """(ŷ^(k), x̂^(k)) for k = 0..d when the score columns are added in ``order``
        (default: PNS1 first, the model's own projections)."""
        key = tuple(range(self.d)) if order is None else tuple(int(k) for k in order)
        if key not in self._by_order:
            model = self.model
            sphere = sphere_projections(model.pns_, model.scores_, key)
            if key == tuple(range(self.d)):
                torus = model.projections_
            else:
                torus = predict_projections(model.pns_, model.match_, model.scores_,
                                            model.angles_, order=key)
            self._by_order[key] = (sphere, torus)
        return self._by_order[key]

    @cached_property
    def curve_points(self) -> NDArray[np.float64]:
        """Each x_i projected onto the traced principal curve S̃¹ (nearest point)."""
        curve = self.model.principal_curve_
        return curve_projection(curve.angles, curve.breaks, self.angles)


def _ratio(values: NDArray[np.float64]) -> NDArray[np.float64]:
    return values / np.sum(values)


# ------------------------------------------------------------------ the conventions
def _torus_shares(*, data_top: bool = False, curve: bool = False, unwrapped: bool = False,
                  reverse: bool = False) -> Callable[[FitLevels], NDArray]:
    """The torus ratios var^(k) / Σ var of §3.5, read one way.

    Parameters
    ----------
    data_top : bool
        x̂^(d) = x_i instead of T̃(ŷ_i).
    curve : bool
        x̂^(1) = the nearest point of the traced curve S̃¹ instead of T̃(ŷ^(1)).
    unwrapped : bool
        Euclidean distances of the coordinates instead of torus distances.
    reverse : bool
        The score columns added first residual first, PNS1 last.
    """
    def compute(f: FitLevels) -> NDArray:
        order = tuple(range(f.d - 1, -1, -1)) if reverse else None
        torus = f.levels(order)[1].copy()
        if curve:
            torus[1] = f.curve_points
        if data_top:
            torus[-1] = f.angles
        ratio = _ratio(nested_variance(torus, _euclidean if unwrapped else torus_distance))
        # var^(k) belongs to the k-th column added: reversed, PNS1 is the last one.
        return ratio[::-1] if reverse else ratio

    return compute


def _torus_residual(f: FitLevels) -> NDArray:
    """C_k = 1 − R_k / R_0 with R_k = Σ_i δ(x_i, x̂_i^(k))², and PC_k = C_k − C_(k−1)."""
    residual = np.array([np.sum(torus_distance(f.angles, level) ** 2)
                         for level in f.levels()[1]])
    return -np.diff(residual) / residual[0]


def _swap_last_two(ratio: NDArray) -> NDArray:
    """PC1 kept, the last two labels exchanged (which residual is called "PC2")."""
    swapped = ratio.copy()
    swapped[[-2, -1]] = ratio[[-1, -2]]
    return swapped


def _sphere_geodesic(f: FitLevels) -> NDArray:
    return _ratio(nested_variance(f.levels()[0], _geodesic))


def _sphere_radius(f: FitLevels) -> NDArray:
    radius = f.model.radius_
    return _ratio(nested_variance(radius * f.levels()[0],
                                  lambda a, b: radius * _geodesic(a / radius, b / radius)))


def _score_shares(f: FitLevels, *, scaled: bool, centred: bool) -> NDArray:
    scores = f.model.scores_
    if not scaled:
        scores = scores / f.model.pns_.score_scales_
    if centred:
        scores = scores - scores.mean(axis=0)
    return _ratio(np.mean(scores**2, axis=0))


@dataclass(frozen=True)
class Convention:
    """One way of computing the explained variance per component.

    Attributes
    ----------
    key : str
        Short label used in the report's tables, e.g. "T-b".
    space : {"torus", "sphere"}
    name : str
        What it computes, in a few words.
    compute : callable
        ``compute(levels)`` → the ratios per component (PC1 first), shape (d,).
    three_only : bool
        Whether it only differs from another convention on T³ (relabellings of PC2/PC3).
    """

    key: str
    space: str
    name: str
    compute: Callable[[FitLevels], NDArray[np.float64]]
    three_only: bool = False


def _swapped(compute: Callable[[FitLevels], NDArray]) -> Callable[[FitLevels], NDArray]:
    return lambda f: _swap_last_two(compute(f))


#: The conventions, in the report's order.
CONVENTIONS: tuple[Convention, ...] = (
    Convention("T-a", "torus", "§3.5 as printed: x̂^(k) = T̃(ŷ^(k)) for every k, "
               "x̂^(d) = T̃(ŷ_i) (ours)", _torus_shares()),
    Convention("T-b", "torus", "data at the top: x̂^(d) = x_i, the projection of x_i onto "
               "S̃^d = T^d", _torus_shares(data_top=True)),
    Convention("T-f", "torus", "x̂^(1) = the nearest point of the traced curve S̃¹",
               _torus_shares(curve=True)),
    Convention("T-fb", "torus", "T-f with x̂^(d) = x_i",
               _torus_shares(curve=True, data_top=True)),
    Convention("T-g", "torus", "residuals: C_k = 1 − Σδ(x_i, x̂^(k))²/Σδ(x_i, x̂^(0))², "
               "PC_k = C_k − C_(k−1)", _torus_residual),
    Convention("T-u", "torus", "T-a with Euclidean distances of the coordinates in [−π, π) "
               "(the differences not wrapped)",
               _torus_shares(unwrapped=True)),
    Convention("T-ub", "torus", "T-b with unwrapped distances",
               _torus_shares(unwrapped=True, data_top=True)),
    Convention("T-r", "torus", "components added in reverse order (first residual first)",
               _torus_shares(reverse=True), three_only=True),
    Convention("T-rb", "torus", "T-r with x̂^(d) = x_i",
               _torus_shares(reverse=True, data_top=True), three_only=True),
    Convention("T-a′", "torus", "T-a with PC2 and PC3 exchanged", _swapped(_torus_shares()),
               three_only=True),
    Convention("T-b′", "torus", "T-b with PC2 and PC3 exchanged",
               _swapped(_torus_shares(data_top=True)),
               three_only=True),
    Convention("S-c", "sphere", "eq. totalvar: geodesic distances between successive "
               "projections on the unit sphere", _sphere_geodesic),
    Convention("S-cr", "sphere", "eq. totalvar on S^d_r (distances × r̂)", _sphere_radius),
    Convention("S-d", "sphere", "shapes::pns percent: mean square of the radius-scaled "
               "scores (ours)", lambda f: _score_shares(f, scaled=True, centred=False)),
    Convention("S-du", "sphere", "mean square of the unscaled scores",
               lambda f: _score_shares(f, scaled=False, centred=False)),
    Convention("S-e", "sphere", "centred variance of the scaled scores",
               lambda f: _score_shares(f, scaled=True, centred=True)),
    Convention("S-eu", "sphere", "centred variance of the unscaled scores",
               lambda f: _score_shares(f, scaled=False, centred=True)),
)


def evaluate(levels: FitLevels, conventions: Sequence[Convention] = CONVENTIONS
             ) -> dict[str, NDArray[np.float64]]:
    """Ratios per component (PC1 first) of each convention that applies to the fit's d."""
    return {c.key: c.compute(levels) for c in conventions if levels.d >= 3 or not c.three_only}
