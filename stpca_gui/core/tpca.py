"""Torus PCA (T-PCA; Eltzner, Huckemann & Mardia 2018): deform the torus onto a sphere, then PNS.

The competitor of ST-PCA that also goes through the sphere (ST-PCA paper §1, §5.1, Tables 1
and 2). Every angle is cut open in its largest data gap, the angles are ordered by circular
spread ("SI" or "SO"), the torus is deformed onto S^d by hyperspherical coordinates with
halved polar angles (the map P below) and principal nested spheres are fitted to the
deformed points. Explained variance on the torus follows §3.5 of the ST-PCA paper with the
prediction T̃ replaced by P⁻¹. The choices the T-PCA paper leaves open, and where ours differ
from the authors' code, are in ``docs/tpca.md``.

With ψ ∈ [0, 2π)^d the cut and ordered angles (ψ_d innermost), P : T^d → S^d ⊂ R^{d+1} is

    x_1 = cos(ψ_1/2),
    x_j = Π_{l<j} sin(ψ_l/2) · cos(ψ_j/2),     2 ≤ j ≤ d − 1,
    x_d = Π_{l<d} sin(ψ_l/2) · cos ψ_d,
    x_{d+1} = Π_{l<d} sin(ψ_l/2) · sin ψ_d,

and the circle itself, x = (cos ψ_1, sin ψ_1), when d = 1.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._base.params import Estimator, Options, estimator, inherit_parameter, parameter
from ._base.progress import CancelCheck
from ._base.random import RANDOM_STATE, RandomStateLike
from .geometry.torus import TWO_PI, torus_distance, wrap_angles
from .geometry.validation import as_float_matrix, check_angles
from .pns.pns import PrincipalNestedSpheres
from .prediction.projections import level_scores, variance_attributes

__all__ = [
    "ORDERINGS",
    "TorusGapWarning",
    "TorusPCA",
    "circular_spread",
    "largest_gap_cuts",
    "sphere_to_torus",
    "spread_order",
    "structural_gap_threshold",
    "torus_to_sphere",
]

#: The orderings of the angles by circular spread: spread inside (the largest-spread angle is
#: the innermost, azimuthal ψ_d) and spread outside (it is the outermost, ψ_1).
ORDERINGS = ("SI", "SO")

#: Level of the largest-spacing test that decides whether an angle has a data gap at all
#: (:func:`structural_gap_threshold`).
GAP_TEST_LEVEL = 0.05

#: Angles that may lack a data gap (Eltzner et al. 2018, Remark 2.3).
MAX_ANGLES_WITHOUT_GAP = 2


class TorusGapWarning(UserWarning):
    """More angles than T-PCA allows have no data gap; its deformation tears the data."""


# --------------------------------------------------------------------------------------------
# The steps, as pure functions
# --------------------------------------------------------------------------------------------


def largest_gap_cuts(angles: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Cut point of every angle: the midpoint of its largest data gap.

    For column k with circularly sorted values s_1 ≤ … ≤ s_n, the gaps are s_{j+1} − s_j and
    s_1 + 2π − s_n; the cut is the midpoint of the largest one, so that the data lie as far
    from the cut as they can.

    Parameters
    ----------
    angles : array_like, shape (n, d)
        Angles in radians (wrapped to [-π, π)).

    Returns
    -------
    cuts : ndarray, shape (d,)
        Cut points in [-π, π).
    gaps : ndarray, shape (d,)
        Width of each largest gap, in (0, 2π].

    Notes
    -----
    Equal largest gaps (discrete or symmetric data) are broken by taking the first one in
    [-π, π) order, which a rotation of the column can change.
    """
    x = np.sort(wrap_angles(np.asarray(angles, dtype=np.float64)), axis=0)
    following = np.vstack([x[1:], x[:1] + TWO_PI])  # each value's circular successor
    widths = following - x
    j = np.argmax(widths, axis=0)
    columns = np.arange(x.shape[1])
    gaps = widths[j, columns]
    cuts = wrap_angles(x[j, columns] + 0.5 * gaps)
    return cuts, gaps


def structural_gap_threshold(n: int, level: float = GAP_TEST_LEVEL) -> float:
    """Smallest largest gap that counts as a structural data gap among n angles.

    The largest spacing M_n of n uniform points on the circle satisfies
    P(M_n > 2π (ln n + x) / n) → 1 − exp(−e^{−x}) (its Gumbel limit), so a gap wider than

        g*(n) = 2π (ln n − ln(−ln(1 − level))) / n

    is larger than uniform sampling leaves with probability 1 − ``level``.

    Parameters
    ----------
    n : int
        Number of angles, ≥ 2.
    level : float
        Test level in (0, 1).

    Returns
    -------
    float
        g*(n) in radians (2π (ln n + 2.97) / n at the default level).
    """
    if n < 2:
        raise ValueError(f"a data gap needs at least 2 angles, got n={n}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    return TWO_PI * (math.log(n) - math.log(-math.log1p(-level))) / n


def circular_spread(angles: ArrayLike) -> NDArray[np.float64]:
    """Circular variance 1 − R̄ of every column, R̄ = |mean_i exp(iθ_ik)| (0: one point;
    near 1: spread round the circle).

    Parameters
    ----------
    angles : array_like, shape (n, d)

    Returns
    -------
    ndarray, shape (d,)
    """
    x = np.asarray(angles, dtype=np.float64)
    return 1.0 - np.hypot(np.cos(x).mean(axis=0), np.sin(x).mean(axis=0))


def spread_order(spreads: ArrayLike, ordering: str) -> NDArray[np.intp]:
    """The columns in the order ψ_1 (outermost) … ψ_d (innermost, the azimuth).

    Parameters
    ----------
    spreads : array_like, shape (d,)
        Circular spread of each column (:func:`circular_spread`).
    ordering : {"SI", "SO"}
        "SI", spread inside: spread increases from ψ_1 to ψ_d, the largest-spread angle is
        the full azimuthal circle. "SO", spread outside: the reverse.

    Returns
    -------
    ndarray of intp, shape (d,)
        ``order[j]`` is the column that becomes ψ_{j+1}. Equal spreads keep their column
        order (a stable sort), in both orderings.
    """
    s = np.asarray(spreads, dtype=np.float64)
    if ordering == "SI":
        return np.argsort(s, kind="stable")
    if ordering == "SO":
        return np.argsort(-s, kind="stable")
    raise ValueError(f"ordering must be one of {ORDERINGS}, got {ordering!r}")


def torus_to_sphere(psi: ArrayLike) -> NDArray[np.float64]:
    """The deformation P : [0, 2π)^d → S^d (module docstring).

    Parameters
    ----------
    psi : array_like, shape (n, d)
        Cut and ordered angles; ψ_1 … ψ_{d−1} are halved into polar angles in [0, π), ψ_d is
        the azimuth.

    Returns
    -------
    ndarray, shape (n, d + 1)
        Unit vectors.
    """
    p = np.asarray(psi, dtype=np.float64)
    n, d = p.shape
    polar = 0.5 * p[:, :-1]
    out = np.empty((n, d + 1))
    # The radius left for the coordinates after x_j: Π_{l≤j} sin(ψ_l/2).
    sines = np.cumprod(np.sin(polar), axis=1)
    ahead = np.hstack([np.ones((n, 1)), sines])
    out[:, : d - 1] = ahead[:, : d - 1] * np.cos(polar)
    out[:, d - 1] = ahead[:, -1] * np.cos(p[:, -1])
    out[:, d] = ahead[:, -1] * np.sin(p[:, -1])
    return out


def sphere_to_torus(x: ArrayLike) -> NDArray[np.float64]:
    """The inverse P⁻¹ : S^d → [0, 2π)^d of :func:`torus_to_sphere`.

    Each polar angle is ψ_j/2 = atan2(‖(x_{j+1}, …, x_{d+1})‖, x_j) and the azimuth is
    ψ_d = atan2(x_{d+1}, x_d): unlike arccos of a ratio this keeps full precision near the
    poles. Where P is singular (all the later coordinates zero) the angles it loses are
    returned as 0.

    Parameters
    ----------
    x : array_like, shape (n, d + 1)
        Points of S^d (need not be exactly unit).

    Returns
    -------
    ndarray, shape (n, d)
        ψ in [0, 2π).
    """
    y = np.asarray(x, dtype=np.float64)
    d = y.shape[1] - 1
    # tails[:, j] = ‖(x_{j+1}, …, x_{d+1})‖ (0-based columns j+1 … d).
    tails = np.sqrt(np.cumsum((y[:, ::-1] ** 2), axis=1)[:, ::-1])
    psi = np.empty((y.shape[0], d))
    psi[:, : d - 1] = 2.0 * np.arctan2(tails[:, 1:d], y[:, : d - 1])
    psi[:, d - 1] = np.arctan2(y[:, d], y[:, d - 1])
    return np.mod(psi, TWO_PI)


# --------------------------------------------------------------------------------------------
# Estimator
# --------------------------------------------------------------------------------------------


@estimator
class TorusPCA(Estimator):
    """Torus PCA (Eltzner, Huckemann & Mardia 2018) of angular data.

    ``fit`` cuts every angle in its largest data gap, orders the angles by circular spread,
    deforms the torus onto S^d (:func:`torus_to_sphere`) and fits principal nested spheres.

    Attributes
    ----------
    n_features_in_ : int
        Number of angles d.
    cuts_ : ndarray, shape (d,)
        Cut point of each angle (original column order), in [-π, π).
    gaps_ : ndarray, shape (d,)
        Width of the largest data gap of each angle (radians).
    gap_threshold_ : float
        :func:`structural_gap_threshold` for the n samples.
    has_gap_ : ndarray of bool, shape (d,)
        Whether each angle's largest gap exceeds ``gap_threshold_``.
    gap_message_ : str
        Why the deformation may tear the data (more than two angles without a data gap,
        Remark 2.3 of the T-PCA paper); empty otherwise. ``fit`` also warns with it
        (:class:`TorusGapWarning`).
    spreads_ : ndarray, shape (d,)
        Circular variance 1 − R̄ of each angle.
    order_ : ndarray of intp, shape (d,)
        ``order_[j]`` is the original column that becomes ψ_{j+1} (ψ_d innermost).
    embedding_ : ndarray, shape (n, d + 1)
        The deformed training points on S^d.
    pns_ : PrincipalNestedSpheres
        The PNS fit on ``embedding_``.
    scores_ : ndarray, shape (n, d)
        PNS scores, column 0 = PNS1 (an arc length on the principal circle).
    explained_variance_ : ndarray, shape (d,)
        Sphere (PNS) variance ``mean(scores_[:, k] ** 2)`` per component.
    explained_variance_ratio_ : ndarray, shape (d,)
        Sphere (PNS) explained variance ratio per component.
    torus_explained_variance_ : ndarray, shape (d,)
        var^(k) = Σ_i δ_T(x̂_i^(k−1), x̂_i^(k))², k = 1 … d, with x̂_i^(k) = P⁻¹(ŷ_i^(k)) the
        torus image of the projection of sample i onto the nested S^k and x̂^(0) the image
        of the backwards mean (ST-PCA paper §3.5 with T̃ replaced by P⁻¹).
    torus_explained_variance_ratio_ : ndarray, shape (d,)
        ``torus_explained_variance_ / torus_explained_variance_.sum()``.
    mean_ : ndarray, shape (d,)
        The backwards mean on the torus, P⁻¹ of the PNS mean, in [-π, π).
    """

    ordering: str = parameter(
        "SI", Options(ORDERINGS, labels=("spread inside", "spread outside")),
        doc="Order of the angles by circular spread 1 − R̄. \"SI\" (spread inside): the "
            "largest-spread angle is the innermost coordinate ψ_d, the azimuth, which the "
            "deformation keeps a full circle, and spread increases from ψ_1 to ψ_d. \"SO\" "
            "(spread outside): the largest-spread angle is the outermost ψ_1.")
    pns_mode: str = inherit_parameter(PrincipalNestedSpheres, "mode")
    alpha: float = inherit_parameter(PrincipalNestedSpheres, "alpha")
    n_bootstrap: int = inherit_parameter(PrincipalNestedSpheres, "n_bootstrap")
    random_state: RandomStateLike = parameter(
        None, *RANDOM_STATE,
        doc="Seed of the PNS bootstrap (the only random step).")

    # ------------------------------------------------------------------ fitting

    def fit(self, X: ArrayLike, y: object = None, *, warn: bool = True,
            check: CancelCheck | None = None) -> TorusPCA:
        """Fit T-PCA to angles ``X`` (n, d) in radians.

        Parameters
        ----------
        X : array_like, shape (n, d)
            Angles in radians (any range), n ≥ 3.
        y : ignored
        warn : bool, default True
            Warn (:class:`TorusGapWarning`) when more than two angles have no data gap. The
            message is kept in ``gap_message_`` either way.
        check : callable, optional
            Called between the steps of the fit and inside PNS; raises
            :class:`~stpca_gui.core._base.progress.FitCancelled` to stop (the estimator is then
            left as it was).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For bad parameters or data (non-2-D, NaN or inf naming the row and column,
            fewer than 3 samples, all samples the same torus point).
        """
        self._validate_params()
        check = _no_check if check is None else check
        angles = check_angles(X)
        n, d = angles.shape
        check()
        cuts, gaps = largest_gap_cuts(angles)
        check()
        spreads = circular_spread(angles)
        order = spread_order(spreads, self.ordering)
        threshold = structural_gap_threshold(n)
        has_gap = gaps > threshold
        message = _gap_message(gaps, has_gap, threshold)
        if message and warn:
            warnings.warn(message, TorusGapWarning, stacklevel=2)

        embedding = torus_to_sphere(_cut_and_order(angles, cuts, order))
        check()
        pns = PrincipalNestedSpheres(
            mode=self.pns_mode, alpha=self.alpha, n_bootstrap=self.n_bootstrap,
            random_state=self.random_state).fit(embedding, check=check)
        mean = _angles_on_torus(pns.mean_[None, :], order, cuts)[0]
        torus_var = _torus_variances(pns, pns.scores_, mean, order, cuts, check)

        # Only now, with nothing left that can fail on the data or be cancelled, does the
        # estimator change.
        self.n_features_in_ = d
        self.cuts_ = cuts
        self.gaps_ = gaps
        self.gap_threshold_ = threshold
        self.has_gap_ = has_gap
        self.gap_message_ = message
        self.spreads_ = spreads
        self.order_ = order
        self.embedding_ = embedding
        self.pns_ = pns
        self.mean_ = mean
        for name, value in variance_attributes(pns, torus_var).items():
            setattr(self, name, value)
        return self

    def fit_transform(self, X: ArrayLike, y: object = None) -> NDArray[np.float64]:
        """Fit and return ``scores_``."""
        return self.fit(X).scores_

    # ------------------------------------------------------------------ maps

    def _check_fitted(self) -> None:
        if not hasattr(self, "pns_"):
            raise RuntimeError("this TorusPCA is not fitted yet; call fit first")

    def _angles_on_torus(self, units: NDArray[np.float64]) -> NDArray[np.float64]:
        """Torus angles in [-π, π), original column order, of points on S^d (P⁻¹, uncut)."""
        return _angles_on_torus(units, self.order_, self.cuts_)

    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """PNS scores of torus points: the fitted cuts and order, P, then the PNS fit.

        Parameters
        ----------
        X : array_like, shape (m, d)
            Angles in radians. Points inside a training gap land near a pole of P.

        Returns
        -------
        ndarray, shape (m, d)
        """
        self._check_fitted()
        angles = wrap_angles(as_float_matrix(X, what="angle data"))
        if angles.shape[1] != self.n_features_in_:
            raise ValueError(f"angle data has {angles.shape[1]} columns, the model was fitted "
                             f"on {self.n_features_in_}")
        psi = _cut_and_order(angles, self.cuts_, self.order_)
        return self.pns_.transform(torus_to_sphere(psi))

    def inverse_transform(self, scores: ArrayLike) -> NDArray[np.float64]:
        """Torus points of scores: the PNS inverse map, then P⁻¹, uncut and unordered.

        Parameters
        ----------
        scores : array_like, shape (m, d)

        Returns
        -------
        ndarray, shape (m, d)
            Angles in [-π, π), in the original column order.
        """
        self._check_fitted()
        values = as_float_matrix(np.atleast_2d(scores), what="scores")
        return self._angles_on_torus(self.pns_.inverse_transform(values))


def _no_check() -> None:
    """The cancel check of a fit nobody can cancel."""


def _angles_on_torus(units: NDArray[np.float64], order: NDArray[np.intp],
                     cuts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Torus angles in [-π, π), original column order, of points on S^d (P⁻¹, uncut)."""
    psi = sphere_to_torus(units)
    angles = np.empty_like(psi)
    angles[:, order] = psi
    return wrap_angles(angles + cuts)


def _torus_variances(pns: PrincipalNestedSpheres, scores: NDArray[np.float64],
                     mean: NDArray[np.float64], order: NDArray[np.intp],
                     cuts: NDArray[np.float64], check: CancelCheck) -> NDArray[np.float64]:
    """var^(k), k = 1 … d (attribute ``torus_explained_variance_``), one level of
    projections in memory at a time, with a cancel check per level."""
    d = scores.shape[1]
    previous = mean[None, :]
    variances = np.empty(d)
    for k in range(1, d + 1):
        check()
        current = _angles_on_torus(pns.inverse_transform(level_scores(scores, k)), order, cuts)
        variances[k - 1] = np.sum(torus_distance(previous, current) ** 2)
        previous = current
    return variances


def _cut_and_order(angles: NDArray[np.float64], cuts: NDArray[np.float64],
                   order: NDArray[np.intp]) -> NDArray[np.float64]:
    """ψ = (θ − cut) mod 2π, columns in the order ψ_1 … ψ_d."""
    return np.mod(angles - cuts, TWO_PI)[:, order]


def _gap_message(gaps: NDArray[np.float64], has_gap: NDArray[np.bool_], threshold: float) -> str:
    """The warning for more than two angles without a data gap ("" when there are fewer)."""
    missing = np.flatnonzero(~has_gap)
    if missing.size <= MAX_ANGLES_WITHOUT_GAP:
        return ""
    listed = ", ".join(f"θ{k + 1} ({np.degrees(gaps[k]):.2f}°)" for k in missing)
    return (f"{missing.size} angles have no data gap wider than uniform data leave "
            f"({np.degrees(threshold):.2f}° at this n): {listed}. T-PCA assumes a gap in all "
            "angles but at most two (Eltzner et al. 2018, Remark 2.3); its deformation tears "
            "the data apart at these cuts.")
