"""Comparison methods for toroidal data: the PCA variants (Euclidean PCA, aPCA, dPCA, complex
dPCA, dPCA+) and T-PCA's place among them (its own tests are in test_tpca.py)."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.core import circular_difference, make_demo, wrap_angles
from stpca_gui.core.baselines import (
    BASELINES,
    CONVENTIONS,
    BaselineResult,
    angular_pca,
    complex_dihedral_pca,
    dihedral_pca,
    dihedral_pca_plus,
    euclidean_pca,
    maximal_gap_cuts,
    run_baselines,
)

REAL_METHODS = ("Euclidean PCA", "aPCA", "dPCA", "dPCA+")
#: The methods that are standard PCA of some representation of the angles.
COVARIANCE_METHODS = (*REAL_METHODS, "complex dPCA")


def line(n: int = 201, shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Points on θ2 = 0.5 θ1 + 0.3, θ1 ∈ [-1, 1], translated by ``shift`` and wrapped."""
    t = np.linspace(-1.0, 1.0, n)
    return wrap_angles(np.column_stack([t, 0.5 * t + 0.3]) + np.asarray(shift))


@pytest.fixture(scope="module")
def cloud() -> np.ndarray:
    """A correlated, partly wrapped cloud on T³ (no special structure)."""
    rng = np.random.default_rng(7)
    raw = rng.normal(size=(400, 3)) @ np.array([[1.2, 0.0, 0.0], [0.8, 0.5, 0.0],
                                                [-0.4, 0.3, 0.7]])
    return wrap_angles(raw + np.array([2.5, -1.0, 0.4]))


def test_registry_names_and_signature():
    assert list(BASELINES) == ["Euclidean PCA", "aPCA", "dPCA", "complex dPCA", "dPCA+",
                               "T-PCA (SI)", "T-PCA (SO)"]
    data = line()
    for name, method in BASELINES.items():
        result = method(data)
        assert isinstance(result, BaselineResult)
        assert result.name == name
        # Each method says which variance its percentages are shares of.
        expected = "covariance" if name in COVARIANCE_METHODS else "torus"
        assert result.convention == expected and expected in CONVENTIONS
        assert result.reported_ratio.sum() == pytest.approx(1.0)


def test_a_result_names_a_known_convention_and_has_its_ratios():
    fields = dict(name="x", scores=np.zeros((3, 1)), explained_variance=np.ones(1),
                  explained_variance_ratio=np.ones(1), components=None, mean=np.zeros(1),
                  feature_labels=("θ1",))
    with pytest.raises(ValueError, match="convention must be one of"):
        BaselineResult(**fields, convention="sphere")
    with pytest.raises(ValueError, match="needs its ratios"):
        BaselineResult(**fields, convention="torus")
    torus = BaselineResult(**fields, convention="torus",
                           torus_explained_variance_ratio=np.ones(1), notes=["a caveat"])
    assert torus.reported_ratio is torus.torus_explained_variance_ratio
    assert torus.notes == ("a caveat",)
    assert not torus.reported_ratio.flags.writeable


def test_line_away_from_cut_is_one_dimensional():
    data = line()
    for method in (euclidean_pca, angular_pca, dihedral_pca_plus):
        result = method(data)
        np.testing.assert_allclose(result.explained_variance_ratio, [1.0, 0.0], atol=1e-12)
        np.testing.assert_allclose(np.abs(result.components[0]),
                                   np.array([1.0, 0.5]) / np.hypot(1.0, 0.5), atol=1e-10)
    # Uniform t on [-1, 1] has variance 1/3 (·n/(n-1)); along the line it is 1.25× that.
    t = np.linspace(-1.0, 1.0, 201)
    assert euclidean_pca(data).explained_variance[0] == pytest.approx(1.25 * np.var(t, ddof=1))


def test_line_across_the_cut_breaks_only_euclidean_pca():
    # θ1 crosses ±π at t = -0.5 and θ2 at t = +0.5: the wrapped line falls into three
    # pieces offset by (2π, 0) and (0, 2π), which plain PCA sees as a 2-D cloud.
    data = line(shift=(np.pi + 0.5, np.pi - 0.55))
    assert np.ptp(data[:, 0]) > 6.0 and np.ptp(data[:, 1]) > 6.0
    assert euclidean_pca(data).explained_variance_ratio[0] < 0.8
    for method in (angular_pca, dihedral_pca_plus):
        result = method(data)
        assert result.explained_variance_ratio[0] == pytest.approx(1.0, abs=1e-10)
    plus = dihedral_pca_plus(data)
    shifted = plus.extras["shifted_angles"]
    np.testing.assert_allclose(np.ptp(shifted, axis=0), [2.0, 1.0], atol=1e-9)
    np.testing.assert_allclose(wrap_angles(shifted), data, atol=1e-12)


def test_dpca_single_angle_uniform_is_fifty_fifty():
    equispaced = np.linspace(-np.pi, np.pi, 360, endpoint=False)[:, None]
    result = dihedral_pca(equispaced)
    assert result.scores.shape == (360, 2)
    np.testing.assert_allclose(result.explained_variance_ratio, [0.5, 0.5], atol=1e-12)
    sample = np.random.default_rng(1).uniform(-np.pi, np.pi, size=(4000, 1))
    np.testing.assert_allclose(dihedral_pca(sample).explained_variance_ratio, [0.5, 0.5],
                               atol=0.04)


@pytest.mark.parametrize("sigma", [0.1, 0.3, 1.0])
def test_dpca_single_angle_wrapped_normal(sigma):
    # δ ~ N(0, σ²) wrapped, ρ = E cos δ = exp(-σ²/2): Var sin δ = (1 - ρ⁴)/2 (tangent) and
    # Var cos δ = (1 + ρ⁴)/2 - ρ² (radial), so PC1 = (1 + ρ²)/2 = (1 + exp(-σ²))/2:
    # above 95 % exactly when σ < 0.325, tending to 50 % as the data spread out.
    mu = 2.0
    sample = wrap_angles(mu + sigma * np.random.default_rng(2).normal(size=(20000, 1)))
    result = dihedral_pca(sample)
    expected = (1.0 + np.exp(-sigma**2)) / 2.0
    assert result.explained_variance_ratio[0] == pytest.approx(expected, abs=0.01)
    assert (result.explained_variance_ratio[0] > 0.95) == (sigma < 0.325)
    # PC1 is the tangent direction (-sin μ, cos μ) of the circle at the mean.
    tangent = np.array([-np.sin(mu), np.cos(mu)])
    assert abs(result.components[0] @ tangent) == pytest.approx(1.0, abs=0.02)


def test_complex_dpca_single_angle():
    sample = wrap_angles(1.0 + 0.7 * np.random.default_rng(3).normal(size=(500, 1)))
    result = complex_dihedral_pca(sample)
    assert result.scores.shape == (500, 1)
    assert result.extras["complex_scores"].shape == (500, 1)
    np.testing.assert_allclose(result.explained_variance_ratio, [1.0])
    z = np.exp(1j * sample[:, 0])
    assert result.explained_variance[0] == pytest.approx(
        500 / 499 * (1.0 - abs(z.mean()) ** 2))


def test_complex_dpca_matches_symmetrised_dpca_covariance(cloud):
    # With Σ the dPCA covariance and J the 90° rotation of each (cos, sin) pair, the
    # realification of the Hermitian covariance is Σ + J Σ Jᵀ: its spectrum is that of
    # complex dPCA with every eigenvalue doubled.
    emb = dihedral_pca(cloud).extras["embedding"]
    sigma = np.cov(emb, rowvar=False)
    d = cloud.shape[1]
    rot = np.kron(np.eye(d), np.array([[0.0, -1.0], [1.0, 0.0]]))
    spectrum = np.sort(np.linalg.eigvalsh(sigma + rot @ sigma @ rot.T))[::-1]
    complex_result = complex_dihedral_pca(cloud)
    np.testing.assert_allclose(spectrum[0::2], complex_result.explained_variance, atol=1e-12)
    np.testing.assert_allclose(spectrum[1::2], complex_result.explained_variance, atol=1e-12)
    assert complex_result.explained_variance.sum() == pytest.approx(np.trace(sigma))


@pytest.mark.parametrize("name", COVARIANCE_METHODS)
def test_ratios_shapes_and_uncorrelated_scores(name, cloud):
    result = BASELINES[name](cloud)
    n, d = cloud.shape
    q = 2 * d if name == "dPCA" else d
    p = 2 * d if name == "dPCA" else d
    assert result.scores.shape == (n, q)
    assert result.explained_variance.shape == (q,)
    assert result.components.shape == (q, p)
    assert result.mean.shape == (p,)
    assert len(result.feature_labels) == p
    ratio = result.explained_variance_ratio
    assert ratio.sum() == pytest.approx(1.0)
    assert np.all((ratio >= 0) & (ratio <= 1)) and np.all(np.diff(ratio) <= 1e-15)
    if name == "complex dPCA":
        v = result.extras["complex_scores"]
        cov = v.T @ v.conj() / (n - 1)
        w = result.components
        np.testing.assert_allclose(w @ w.conj().T, np.eye(d), atol=1e-12)
        np.testing.assert_allclose(np.real(v), result.scores)
        fraction = result.extras["real_fraction"]
        assert np.all(fraction >= 0.5 - 1e-12) and np.all(fraction <= 1 + 1e-12)
    else:
        cov = np.cov(result.scores, rowvar=False)
        np.testing.assert_allclose(result.components @ result.components.T, np.eye(p),
                                   atol=1e-12)
    np.testing.assert_allclose(cov, np.diag(result.explained_variance), atol=1e-10)
    assert result.n_components == q and result.n_samples == n


@pytest.mark.parametrize("method", [angular_pca, dihedral_pca, complex_dihedral_pca])
def test_percentages_invariant_under_rotating_one_column(method, cloud):
    rotated = cloud.copy()
    rotated[:, 1] = wrap_angles(rotated[:, 1] + 3.0)  # many points cross ±π
    np.testing.assert_allclose(method(rotated).explained_variance_ratio,
                               method(cloud).explained_variance_ratio, atol=1e-10)


def test_euclidean_pca_is_not_rotation_invariant(cloud):
    rotated = cloud.copy()
    rotated[:, 1] = wrap_angles(rotated[:, 1] + 3.0)  # many points cross ±π
    before = euclidean_pca(cloud).explained_variance_ratio
    after = euclidean_pca(rotated).explained_variance_ratio
    assert np.max(np.abs(before - after)) > 0.01


def test_dpca_plus_cuts_land_in_the_gap():
    rng = np.random.default_rng(4)
    n = 2000
    col0 = rng.uniform(2.6, 0.9 + 2 * np.pi, size=n)  # empty arc (0.9, 2.6)
    col1 = rng.uniform(-2.5, 2.5, size=n)  # empty arc around ±π
    result = dihedral_pca_plus(np.column_stack([col0, col1]))
    cuts = result.extras["cuts"]
    assert 0.9 < cuts[0] < 2.6
    assert circular_difference(cuts[1], np.pi) < 0.64
    shifted = result.extras["shifted_angles"]
    assert np.ptp(shifted[:, 0]) < 2 * np.pi - 1.7 + 1e-9
    assert np.ptp(shifted[:, 1]) <= 5.0


def test_maximal_gap_cuts_histogram_rule():
    width = 2 * np.pi / 10
    centres = -np.pi + (np.arange(10) + 0.5) * width
    counts = np.array([3, 2, 4, 1, 5, 2, 3, 3, 2, 4])  # unique emptiest bin: index 3
    data = np.repeat(centres, counts)[:, None]
    assert maximal_gap_cuts(data)[0] == pytest.approx(centres[3])
    even = np.repeat(centres, 2)[:, None]  # all bins tie: the cut stays at -π
    assert maximal_gap_cuts(even)[0] == pytest.approx(-np.pi)
    with pytest.raises(ValueError, match="n_bins"):
        maximal_gap_cuts(data, n_bins=1)


@pytest.mark.parametrize("name", list(BASELINES))
def test_bad_input_is_rejected(name):
    method = BASELINES[name]
    data = line(n=10)
    data[2, 1] = np.nan
    with pytest.raises(ValueError, match="row 2, column 1"):
        method(data)
    with pytest.raises(ValueError, match="2-D"):
        method(np.zeros(5))
    with pytest.raises(ValueError, match="at least"):
        method(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="same point"):
        method(np.full((5, 2), 1.0))


def test_three_clusters_demo_runs_every_method():
    demo = make_demo("clusters-t2")
    n = demo.angles.shape[0]
    results = run_baselines(demo.angles)
    assert list(results) == list(BASELINES)
    for name, result in results.items():
        q = 4 if name == "dPCA" else 2
        assert result.scores.shape == (n, q)
        assert np.all(np.isfinite(result.scores))
        assert result.explained_variance_ratio.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="unknown baseline"):
        run_baselines(demo.angles, ["PCA"])


def test_result_is_read_only():
    result = angular_pca(line())
    with pytest.raises(ValueError):
        result.scores[0, 0] = 1.0
    with pytest.raises(TypeError):
        result.extras["cuts"] = np.zeros(2)  # type: ignore[index]
    with pytest.raises(AttributeError):
        result.name = "other"  # type: ignore[misc]
