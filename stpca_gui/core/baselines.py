"""Competing dimension-reduction methods for toroidal data (paper, sections 1 and 5).

The paper compares ST-PCA with the following methods. The first five are "standard PCA" in
some Euclidean or complex representation of the data, and their percentages of variance are
eigenvalue / trace of that representation's covariance matrix; T-PCA goes through a sphere,
as ST-PCA does:

``Euclidean PCA``
    Ordinary PCA of the raw angles in [-π, π), ignoring periodicity.
``aPCA``
    Angular PCA (Riccardi et al., 2009): each angle is centred at its circular mean, the
    deviations are wrapped to [-π, π) and ordinary PCA is applied to them.
``dPCA``
    Dihedral PCA (Mu et al., 2005): PCA of the 2d-dimensional embedding
    (cos θ_1, sin θ_1, …, cos θ_d, sin θ_d).
``complex dPCA``
    Complex dihedral PCA (Altis et al., 2007): eigen-decomposition of the Hermitian
    covariance matrix of z_k = exp(iθ_k).
``dPCA+``
    Dihedral PCA on the torus (Sittel et al., 2017): the periodic boundary of every angle is
    moved to its region of lowest density ("maximal gap shifting"), then ordinary PCA is
    applied to the shifted angles themselves (no sine/cosine embedding).
``T-PCA (SI)``, ``T-PCA (SO)``
    Torus PCA (Eltzner, Huckemann & Mardia, 2018; :mod:`~stpca_gui.core.tpca`): the torus is
    deformed onto S^d and principal nested spheres are fitted. Its percentages are shares of
    the torus variance of the paper's §3.5 (``convention="torus"``, as the paper's Table 2
    reports them); the sphere (PNS) shares are kept too.

Every method has the signature ``method(angles, *, check=None) -> BaselineResult`` (``check``
a :data:`~stpca_gui.core._base.progress.CancelCheck`, called between its steps and, for T-PCA,
inside its fit, so that a comparison can be cancelled midway) and is listed in
:data:`BASELINES` under its display name, so a caller can run all of them on the same data
(see :func:`run_baselines`); ``BaselineResult.convention`` says which variance its
percentages are shares of (:data:`CONVENTIONS`).  Covariances use the unbiased 1/(n-1)
normalisation; this changes no percentage.  The PCA variants order their scores by
decreasing variance (PC1 first) and sign every real loading vector so that its entry of
largest magnitude is positive.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._base.progress import CancelCheck, FitCancelled, ProgressEvent
from .circstats.circular import circular_frechet_mean
from .geometry.torus import TWO_PI, wrap_angles
from .geometry.validation import check_angles
from .tpca import TorusPCA

__all__ = [
    "BASELINES",
    "CONVENTIONS",
    "BaselineResult",
    "angular_pca",
    "complex_dihedral_pca",
    "dihedral_pca",
    "dihedral_pca_plus",
    "euclidean_pca",
    "maximal_gap_cuts",
    "run_baselines",
    "torus_pca",
]

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
        Display name of the method (a key of :data:`BASELINES`).
    scores : ndarray, shape (n, q), float
        Real principal-component scores, PC1 in column 0.  For complex dPCA these are the
        real parts of the complex scores (see :func:`complex_dihedral_pca`).
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


# --------------------------------------------------------------------------- helpers


def _angle_labels(d: int) -> list[str]:
    return [f"θ{j + 1}" for j in range(d)]


def _ratios(variances: NDArray[np.float64], method: str) -> NDArray[np.float64]:
    total = float(variances.sum())
    if not total > 0.0:
        raise ValueError(f"{method}: the data have zero total variance in this representation")
    return variances / total


def _real_pca(
    features: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Covariance PCA of real features.

    Returns
    -------
    scores : (n, p), variances : (p,), components : (p, p) rows, mean : (p,)
    """
    n, _ = features.shape
    mean = features.mean(axis=0)
    centred = features - mean
    cov = centred.T @ centred / (n - 1)
    values, vectors = np.linalg.eigh(cov)
    order = np.argsort(values)[::-1]
    values = np.clip(values[order], 0.0, None)
    vectors = vectors[:, order]
    pivot = np.argmax(np.abs(vectors), axis=0)
    signs = np.sign(vectors[pivot, np.arange(vectors.shape[1])])
    signs[signs == 0] = 1.0
    vectors = vectors * signs
    return centred @ vectors, values, vectors.T.copy(), mean


def _result_from_real(
    name: str,
    features: NDArray[np.float64],
    labels: Sequence[str],
    extras: Mapping[str, Any] | None = None,
) -> BaselineResult:
    scores, variances, components, mean = _real_pca(features)
    return BaselineResult(
        name=name,
        scores=scores,
        explained_variance=variances,
        explained_variance_ratio=_ratios(variances, name),
        components=components,
        mean=mean,
        feature_labels=tuple(labels),
        extras=dict(extras or {}),
    )


def _no_check() -> None:
    """The cancel check of a run nobody can cancel."""


def _circular_means(angles: NDArray[np.float64]) -> NDArray[np.float64]:
    """Extrinsic circular mean of every column: atan2(mean sin, mean cos), in [-π, π)."""
    return wrap_angles(np.arctan2(np.sin(angles).mean(axis=0), np.cos(angles).mean(axis=0)))


# --------------------------------------------------------------------------- methods


def euclidean_pca(angles: ArrayLike, *, check: CancelCheck | None = None) -> BaselineResult:
    """Ordinary PCA of the raw angles, ignoring periodicity.

    Parameters
    ----------
    angles : array_like, shape (n, d)
        Angles in radians; wrapped to [-π, π) before the analysis.

    Returns
    -------
    BaselineResult
        ``name="Euclidean PCA"``, q = d components; ``components`` has shape (d, d) and
        ``mean`` is the arithmetic mean of the wrapped angles.

    Raises
    ------
    ValueError
        From :func:`~stpca_gui.core.geometry.validation.check_angles` for invalid input.

    Notes
    -----
    The result depends on where the periodic cut lies: data crossing ±π are torn apart.
    """
    x = check_angles(angles)
    (check or _no_check)()
    return _result_from_real("Euclidean PCA", x, _angle_labels(x.shape[1]))


def angular_pca(
    angles: ArrayLike, *, center: Literal["circular", "frechet"] = "circular",
    check: CancelCheck | None = None,
) -> BaselineResult:
    """Angular PCA (aPCA, Riccardi et al., 2009).

    Every angle is centred at its circular mean μ_k, the deviations are wrapped,
    δ_k = wrap(θ_k − μ_k) ∈ [-π, π), and ordinary covariance PCA is applied to δ.

    Parameters
    ----------
    angles : array_like, shape (n, d)
        Angles in radians (any real values).
    center : {"circular", "frechet"}, default "circular"
        ``"circular"`` uses the usual (extrinsic) circular mean atan2(Σ sin θ, Σ cos θ);
        ``"frechet"`` the intrinsic (arc-length) Fréchet mean.  For a column whose mean
        resultant is exactly zero the circular mean is undefined and atan2 returns 0.

    Returns
    -------
    BaselineResult
        ``name="aPCA"``, q = d.  ``mean`` holds the arithmetic mean of the wrapped
        deviations (PCA centring).  Extras: ``"circular_mean"`` (d,) the centres μ_k and
        ``"centred_angles"`` (n, d) the wrapped deviations δ.

    Notes
    -----
    Rotating a column by a constant rotates its circular mean by the same constant, so the
    percentages are invariant under such rotations.
    """
    x = check_angles(angles)
    check = check or _no_check
    if center == "circular":
        mu = _circular_means(x)
    elif center == "frechet":
        mu = np.empty(x.shape[1])
        for k in range(x.shape[1]):
            check()
            mu[k] = circular_frechet_mean(x[:, k])
    else:
        raise ValueError(f"center must be 'circular' or 'frechet', got {center!r}")
    check()
    delta = wrap_angles(x - mu)
    return _result_from_real(
        "aPCA", delta, [f"{s} − μ" for s in _angle_labels(x.shape[1])],
        {"circular_mean": mu, "centred_angles": delta},
    )


def dihedral_pca(angles: ArrayLike, *, check: CancelCheck | None = None) -> BaselineResult:
    """Dihedral PCA (dPCA, Mu et al., 2005).

    Covariance PCA of the embedding T^d → R^{2d},
    θ ↦ (cos θ_1, sin θ_1, …, cos θ_d, sin θ_d).

    Parameters
    ----------
    angles : array_like, shape (n, d)
        Angles in radians.

    Returns
    -------
    BaselineResult
        ``name="dPCA"`` with q = 2d components (all reported; ratios are over all 2d
        eigenvalues, so the first d need not add up to 1).  ``components`` has shape
        (2d, 2d), columns in the interleaved order of ``feature_labels``.
        Extras: ``"embedding"`` (n, 2d).

    Notes
    -----
    Rotating one column by a constant rotates its (cos, sin) pair, an orthogonal map of the
    embedding, so the eigenvalues are invariant.
    """
    x = check_angles(angles)
    n, d = x.shape
    emb = np.empty((n, 2 * d))
    emb[:, 0::2] = np.cos(x)
    emb[:, 1::2] = np.sin(x)
    (check or _no_check)()
    labels = [f"{f} {s}" for s in _angle_labels(d) for f in ("cos", "sin")]
    return _result_from_real("dPCA", emb, labels, {"embedding": emb})


def complex_dihedral_pca(angles: ArrayLike, *, check: CancelCheck | None = None
                         ) -> BaselineResult:
    """Complex dihedral PCA (Altis et al., 2007).

    Each angle is represented as z_k = exp(iθ_k) ∈ C.  With μ = mean(z), the Hermitian
    covariance C = E[(z − μ)(z − μ)^H] (d × d) has real eigenvalues λ_1 ≥ … ≥ λ_d ≥ 0 and
    unitary eigenvectors v_k; the complex scores are V_k = v_k^H (z − μ), with E|V_k|² = λ_k
    and E[V_j conj(V_k)] = 0 for j ≠ k.  The share of variance of component k is
    λ_k / tr C (tr C = Σ_k (1 − |μ_k|²)·n/(n−1) equals the trace of the dPCA covariance).

    Parameters
    ----------
    angles : array_like, shape (n, d)
        Angles in radians.

    Returns
    -------
    BaselineResult
        ``name="complex dPCA"``, q = d.  ``components`` (d, d) complex, rows v_k;
        ``mean`` the complex mean μ.  ``scores`` (n, d) real: the real parts Re V_k of the
        phase-fixed complex scores (see Notes).  Extras: ``"complex_scores"`` (n, d)
        complex V_k; ``"real_fraction"`` (d,) the share Var(Re V_k)/λ_k (between 1/2 and 1)
        of each component's variance carried by the real part.

    Notes
    -----
    An eigenvector is only defined up to a phase e^{iα}, which rotates its scores in the
    complex plane.  The phase is fixed so that the real part of V_k carries as much
    variance as possible (α = arg(E[V_k²]) / 2, i.e. the major axis of the cloud of V_k is
    the real axis), then the sign so that the largest-modulus loading has a positive real
    part; if the cloud is circular (E[V_k²] ≈ 0) the largest-modulus loading is made real
    and positive.  Plotting ``scores[:, 0]`` against ``scores[:, 1]`` therefore shows the
    dominant real direction of PC1 and PC2; the full complex scores (e.g. modulus and
    argument) are in ``extras["complex_scores"]``.
    """
    x = check_angles(angles)
    n, d = x.shape
    check = check or _no_check
    z = np.exp(1j * x)
    mu = z.mean(axis=0)
    zc = z - mu
    check()
    cov = zc.T @ zc.conj() / (n - 1)  # C_jk = E[(z_j − μ_j) conj(z_k − μ_k)]
    values, vectors = np.linalg.eigh(cov)
    order = np.argsort(values)[::-1]
    values = np.clip(values[order], 0.0, None)
    vectors = vectors[:, order]
    check()
    scores = zc @ vectors.conj()  # V_k = v_k^H (z − μ)
    for k in range(d):
        v = vectors[:, k]
        pseudo = np.sum(scores[:, k] ** 2) / (n - 1)
        pivot = int(np.argmax(np.abs(v)))
        if abs(pseudo) > 1e-10 * max(values[k], np.finfo(float).tiny):
            alpha = 0.5 * np.angle(pseudo)
            if (v[pivot] * np.exp(1j * alpha)).real < 0:
                alpha += np.pi
        else:
            alpha = -np.angle(v[pivot])
        vectors[:, k] = v * np.exp(1j * alpha)
        scores[:, k] = scores[:, k] * np.exp(-1j * alpha)
    real_var = np.sum(scores.real**2, axis=0) / (n - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        real_fraction = np.where(values > 0, real_var / np.where(values > 0, values, 1.0), 1.0)
    return BaselineResult(
        name="complex dPCA",
        scores=scores.real.copy(),
        explained_variance=values,
        explained_variance_ratio=_ratios(values, "complex dPCA"),
        components=vectors.T.copy(),
        mean=mu,
        feature_labels=tuple(f"exp(i{s})" for s in _angle_labels(d)),
        extras={"complex_scores": scores, "real_fraction": real_fraction},
    )


def maximal_gap_cuts(angles: ArrayLike, n_bins: int = 10) -> NDArray[np.float64]:
    """Periodic cut of every angle placed in its lowest-density region (histogram rule).

    Each column is binned into ``n_bins`` equal bins on [-π, π).  Among the bins with the
    smallest count, the longest circular run of consecutive such bins is taken (the first
    one if several are equally long) and the cut is placed at the centre of that run — for a
    single emptiest bin, at the centre of that bin, as in the paper's dPCA+ set-up.  If all
    bins have the same count there is no preferred region and the cut stays at -π.

    Parameters
    ----------
    angles : array_like, shape (n, d)
        Angles in radians.
    n_bins : int, default 10
        Number of histogram bins (the paper used 10).

    Returns
    -------
    ndarray, shape (d,)
        Cut angles in [-π, π).
    """
    x = check_angles(angles)
    bins = int(n_bins)
    if bins != n_bins or bins < 2:
        raise ValueError(f"n_bins must be an integer ≥ 2, got {n_bins!r}")
    width = TWO_PI / bins
    index = np.minimum(np.floor((x + np.pi) / width).astype(np.int64), bins - 1)
    cuts = np.empty(x.shape[1])
    for k in range(x.shape[1]):
        counts = np.bincount(index[:, k], minlength=bins)
        lowest = counts == counts.min()
        if lowest.all():
            cuts[k] = -np.pi
            continue
        # Longest circular run of lowest bins; start scanning just after a non-lowest bin.
        start0 = int(np.flatnonzero(~lowest)[0]) + 1
        best_start, best_len, run_start, run_len = 0, 0, 0, 0
        for step in range(bins):
            b = (start0 + step) % bins
            if lowest[b]:
                if run_len == 0:
                    run_start = b
                run_len += 1
                if run_len > best_len:
                    best_start, best_len = run_start, run_len
            else:
                run_len = 0
        cuts[k] = -np.pi + (best_start + 0.5 * best_len) * width
    return wrap_angles(cuts)


def dihedral_pca_plus(angles: ArrayLike, n_bins: int = 10, *,
                      check: CancelCheck | None = None) -> BaselineResult:
    """dPCA+ (Sittel et al., 2017): PCA of maximal-gap-shifted angles.

    For every angle the periodic boundary is moved to its region of lowest density (cut c_k
    from :func:`maximal_gap_cuts`, 10-bin histograms as in the paper); each angle is then
    represented on the interval of length 2π that starts or ends at the cut,

        θ'_k = c_k + ((θ_k − c_k) mod 2π) ∈ [c_k, c_k + 2π)      if c_k ≤ 0,
        θ'_k = c_k − ((c_k − θ_k) mod 2π) ∈ (c_k − 2π, c_k]       if c_k > 0,

    so the data are contiguous (no point crosses the boundary when there is a gap) and keep
    their original values modulo 2π; ordinary covariance PCA of θ' follows, directly on the
    angles and not on a sine/cosine embedding.

    Parameters
    ----------
    angles : array_like, shape (n, d)
        Angles in radians.
    n_bins : int, default 10
        Number of histogram bins used to locate the lowest-density region.

    Returns
    -------
    BaselineResult
        ``name="dPCA+"``, q = d.  Extras: ``"cuts"`` (d,) the cut angles c_k in
        [-π, π) and ``"shifted_angles"`` (n, d) the angles θ'.

    Notes
    -----
    Sittel et al. place the boundary in the maximal gap of the sampled angles; on finite
    samples without an empty arc the paper's histogram rule (emptiest of ``n_bins`` bins)
    is used, which is what is implemented here.  A constant shift per column does not
    change the PCA, so the choice of interval representative is immaterial.
    """
    x = check_angles(angles)
    check = check or _no_check
    cuts = maximal_gap_cuts(x, n_bins)
    check()
    up = np.mod(x - cuts, TWO_PI)
    down = np.mod(cuts - x, TWO_PI)
    shifted = np.where(cuts <= 0.0, cuts + up, cuts - down)
    check()
    return _result_from_real(
        "dPCA+", shifted, [f"{s}′" for s in _angle_labels(x.shape[1])],
        {"cuts": cuts, "shifted_angles": shifted},
    )


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
        feature_labels=tuple(_angle_labels(model.n_features_in_)),
        extras={"cuts": model.cuts_, "gaps": model.gaps_, "has_gap": model.has_gap_,
                "spreads": model.spreads_, "order": model.order_,
                "embedding": model.embedding_,
                "sphere_types": tuple(model.pns_.sphere_types_)},
        convention="torus",
        torus_explained_variance_ratio=model.torus_explained_variance_ratio_,
        notes=(model.gap_message_,) if model.gap_message_ else (),
    )


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
