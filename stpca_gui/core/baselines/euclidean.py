"""Standard PCA of a Euclidean or complex representation of the angles: Euclidean PCA, aPCA,
dPCA and complex dPCA (:mod:`stpca_gui.core.baselines` describes each).

Their percentages are eigenvalue / trace of the representation's covariance matrix (unbiased
1/(n-1) normalisation); scores are ordered PC1 first and every real loading vector is signed
so that its entry of largest magnitude is positive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.progress import CancelCheck
from ..circstats.circular import circular_frechet_mean
from ..geometry.torus import wrap_angles
from ..geometry.validation import check_angles
from .result import BaselineResult, angle_labels


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


def result_from_real(
    name: str,
    features: NDArray[np.float64],
    labels: Sequence[str],
    extras: Mapping[str, Any] | None = None,
) -> BaselineResult:
    """The covariance PCA of real features as the result of method ``name``."""
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


def no_check() -> None:
    """The cancel check of a run nobody can cancel."""


def _circular_means(angles: NDArray[np.float64]) -> NDArray[np.float64]:
    """Extrinsic circular mean of every column: atan2(mean sin, mean cos), in [-π, π)."""
    return wrap_angles(np.arctan2(np.sin(angles).mean(axis=0), np.cos(angles).mean(axis=0)))


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
    (check or no_check)()
    return result_from_real("Euclidean PCA", x, angle_labels(x.shape[1]))


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
    check = check or no_check
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
    return result_from_real(
        "aPCA", delta, [f"{s} − μ" for s in angle_labels(x.shape[1])],
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
    (check or no_check)()
    labels = [f"{f} {s}" for s in angle_labels(d) for f in ("cos", "sin")]
    return result_from_real("dPCA", emb, labels, {"embedding": emb})


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
    check = check or no_check
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
        feature_labels=tuple(f"exp(i{s})" for s in angle_labels(d)),
        extras={"complex_scores": scores, "real_fraction": real_fraction},
    )
