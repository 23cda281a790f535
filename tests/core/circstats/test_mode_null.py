"""The mode test's mixture null: a von Mises mixture by AIC, projected onto k modes (issue 34),
checked against known truths and an independent slow implementation of the whole step."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import i0e

from stpca_gui.core.circstats.bandwidth import _inverse_mean_resultant_length
from stpca_gui.core.circstats.excess_mass import excess_mass, nearest_node_counts
from stpca_gui.core.circstats.mode_null import (
    FIT_NODES,
    MixtureNull,
    _count_modes,
    fit_vonmises_mixture,
)
from stpca_gui.core.circstats.mode_test import mode_test, run_step
from stpca_gui.core.circstats.silverman import (
    GRID_POINTS,
    BinnedSample,
    binned_critical_bandwidth,
    coarse_probabilities,
    unit_angles,
)

TWO_PI = 2.0 * np.pi
GRID = np.arange(GRID_POINTS) * (TWO_PI / GRID_POINTS)


def _null(x: np.ndarray) -> tuple[BinnedSample, np.ndarray, MixtureNull]:
    theta = unit_angles(x, TWO_PI)
    sample = BinnedSample(theta)
    return sample, theta, MixtureNull(sample, theta)


def test_one_component_is_the_von_mises_maximum_likelihood_fit():
    """With one component EM is the von Mises MLE: μ the mean direction, A₁(κ) = R̄."""
    theta = np.mod(np.random.default_rng(0).vonmises(1.0, 3.0, 5000), TWO_PI)
    counts = nearest_node_counts(theta, FIT_NODES)
    fit = fit_vonmises_mixture(counts, np.array([0.0]))
    nodes = np.arange(FIT_NODES) * (TWO_PI / FIT_NODES)
    resultant = np.sum(counts * np.exp(1j * nodes)) / counts.sum()
    assert fit.means[0] == pytest.approx(np.angle(resultant), abs=1e-9)
    assert fit.concentrations[0] == pytest.approx(
        _inverse_mean_resultant_length(abs(resultant)), rel=1e-6)
    assert fit.concentrations[0] == pytest.approx(3.0, rel=0.05)


def test_em_recovers_a_two_component_mixture():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.vonmises(-1.0, 10.0, 14000), rng.vonmises(1.2, 4.0, 6000)])
    fit = fit_vonmises_mixture(nearest_node_counts(np.mod(x, TWO_PI), FIT_NODES),
                               np.array([-0.5, 0.5]))
    order = np.argsort(fit.means)
    np.testing.assert_allclose(fit.weights[order], [0.7, 0.3], atol=0.02)
    np.testing.assert_allclose(fit.means[order], [-1.0, 1.2], atol=0.05)
    np.testing.assert_allclose(fit.concentrations[order], [10.0, 4.0], rtol=0.1)


def test_em_with_a_uniform_component_recovers_its_weight_and_aic_counts_it():
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.vonmises(2.0, 6.0, 8000), rng.uniform(0.0, TWO_PI, 2000)])
    counts = nearest_node_counts(np.mod(x, TWO_PI), FIT_NODES)
    fit = fit_vonmises_mixture(counts, np.array([1.5]), uniform=True)
    assert fit.uniform_weight == pytest.approx(0.2, abs=0.02)
    assert fit.weights.sum() + fit.uniform_weight == pytest.approx(1.0)
    assert fit.means[0] == pytest.approx(2.0, abs=0.03)
    assert fit.concentrations[0] == pytest.approx(6.0, rel=0.1)
    nodes = np.arange(FIT_NODES) * (TWO_PI / FIT_NODES)
    assert np.sum(fit.density(nodes)) * TWO_PI / FIT_NODES == pytest.approx(1.0, abs=1e-9)
    plain = fit_vonmises_mixture(counts, np.array([1.5]))
    assert plain.uniform_weight is None and fit.aic < plain.aic  # one parameter more, paid
    assert fit.aic == pytest.approx(-2 * fit.log_likelihood + 2 * 3)


def test_aic_picks_one_component_for_one_mode_and_three_for_three():
    rng = np.random.default_rng(2)
    _, _, null = _null(rng.vonmises(0.5, 2.0, 3000))
    one = null.for_step(1)
    assert one.components == 1 and not one.projected and _count_modes(one.probabilities) == 1
    _, _, null = _null(np.concatenate([rng.vonmises(c, 12.0, 400)
                                            for c in (-2.0, 0.2, 2.3)]))
    three = null.for_step(3)
    assert three.components == 3 and not three.projected


@pytest.mark.parametrize("k", [1, 2])
def test_a_fit_with_more_modes_is_pulled_onto_exactly_k_modes(k):
    """Three clusters tested for "at most k": the fit (three modes) is projected, and the
    null resampled has exactly k modes, not fewer (the pull stops at the boundary)."""
    rng = np.random.default_rng(3)
    _, _, null = _null(np.concatenate([rng.vonmises(c, 12.0, 300)
                                            for c in (-2.0, 0.2, 2.3)]))
    choice = null.for_step(k)
    assert choice.projected and not choice.fell_back
    assert _count_modes(choice.probabilities) == k
    # The full fit has three modes: the projection moved it.
    assert _count_modes(null.fit(3).density(GRID)) == 3


def test_a_step_whose_fit_cannot_be_projected_resamples_the_kde_and_says_so(monkeypatch):
    """If the pulled groups keep more than k modes, the step is the default's (same draws,
    same p-values) and the note names the steps that fell back."""
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.vonmises(c, 12.0, 200) for c in (-2.0, 0.2, 2.3)])
    _, _, null = _null(x)
    projected = [k for k in (1, 2, 3)
                 if null.for_step(k).projected]
    assert projected[:2] == [1, 2]
    monkeypatch.setattr(MixtureNull, "_project", lambda self, fit, k, h_k: None)
    mixed = mode_test(x, n_boot=200, null="mixture")
    default = mode_test(x, n_boot=200)
    assert mixed.n_modes == default.n_modes == 3 and default.note == ""
    steps = len(projected)
    assert mixed.raw_p_values[:steps] == default.raw_p_values[:steps]
    assert mixed.excess_mass_p_values[:steps] == default.excess_mass_p_values[:steps]
    named = ", ".join(f"at most {k}" for k in projected)
    assert f"{named}: no von Mises mixture" in mixed.note
    assert "critical bandwidth" in mixed.note


def test_a_lone_point_beyond_a_light_tail_is_a_mode_for_the_mixture_only(test_data):
    """The demo the mixture over-counts: PNS1 with one point 3.7 sd beyond its cluster.
    The mixture's resamples rarely have such a point, so "at most 3 modes" is rejected by
    Silverman's p₃ (0.014); f_{h₃} puts the point's mass back into its resamples and finds
    the demo's 3 clusters. Over 200 demo fits the mixture over-counts in 5.5 % (about α, as
    an exact test does) and f_{h_k} in 1.5 % (bench_mode_steps.py --demo-seeds); this one
    is the app's default data seed, so docs/mode_test.md cites it."""
    stored = np.load(test_data / "paper_mode_clusters.npz")
    x, period = stored["clusters-t2_0/pns1"], float(stored["clusters-t2_0/period"])
    theta = unit_angles(x, period)
    sample = BinnedSample(theta)
    null = MixtureNull(sample, theta)
    choice = null.for_step(3)
    assert choice.components == 3 and not choice.projected
    fit = null.fit(3)
    assert np.sort(fit.weights) == pytest.approx([1 / 3] * 3, abs=0.01)
    gaps = np.abs(np.angle(np.exp(1j * (theta[:, None] - fit.means[None, :])))).min(axis=1)
    lone = np.argmax(gaps)
    assert theta[lone] == pytest.approx(5.97, abs=0.01)
    assert gaps[lone] * np.sqrt(fit.concentrations.min()) > 3.5  # sd units
    assert mode_test(x, period, n_boot=500, null="mixture").n_modes == 4
    assert mode_test(x, period, n_boot=500).n_modes == 3


# ------------------------------------------------------------- an independent slow step
def _slow_mixture_fit(x: np.ndarray, components: int) -> tuple[np.ndarray, ...]:
    """Maximum likelihood on the points themselves (no binning, no EM): Nelder–Mead then
    BFGS on (logits, means, log κ), from starts spread over the sample's quantiles."""
    def unpack(v):
        logits = np.concatenate([[0.0], v[:components - 1]])
        weights = np.exp(logits - logits.max())
        return (weights / weights.sum(), v[components - 1:2 * components - 1],
                np.exp(v[2 * components - 1:]))

    def negative(v):
        w, mu, kappa = unpack(v)
        kappa = np.minimum(kappa, 500.0)
        logs = (np.log(w)[:, None] - np.log(TWO_PI * i0e(kappa))[:, None]
                + kappa[:, None] * (np.cos(x[None, :] - mu[:, None]) - 1.0))
        top = logs.max(axis=0)
        return -np.sum(top + np.log(np.exp(logs - top).sum(axis=0)))

    starts = np.quantile(x, (np.arange(components) + 0.5) / components)
    v = np.concatenate([np.zeros(components - 1), starts, np.log(np.full(components, 4.0))])
    v = minimize(negative, v, method="Nelder-Mead",
                 options={"maxiter": 20000, "xatol": 1e-8, "fatol": 1e-10}).x
    v = minimize(negative, v, method="BFGS").x
    return (*unpack(v), -negative(v))


def _slow_step_p_values(x: np.ndarray, components: int, draws: int,
                        rng: np.random.Generator) -> tuple[float, float]:
    """Step 1 of ``mode_test`` by the textbook route, for a sample whose fit has one mode:
    fit the mixture of ``components`` to the points, draw points from it (numpy's von Mises
    sampler), count modes at the sample's critical bandwidth on the fine grid and take the
    excess mass of the points. (Which m AIC picks depends on the local optimum found; EM
    from the product's starts and this optimiser find different ones at m ≥ 3, so the
    number of components is the product's.)"""
    weights, means, kappas, _ = _slow_mixture_fit(x, components)
    density = sum(w * np.exp(k * np.cos(GRID + np.pi - mu))
                  / (TWO_PI * np.i0(k)) for w, mu, k in zip(weights, means, kappas, strict=True))
    assert _count_modes(density) == 1  # the case this reference covers: no projection
    theta = unit_angles(x, TWO_PI)
    sample = BinnedSample(theta)
    h = binned_critical_bandwidth(sample, 1)
    cells = coarse_probabilities(density, h).size
    observed = excess_mass(theta, 1, cells=cells)
    more_modes = more_mass = 0
    for _ in range(draws):
        component = rng.choice(weights.size, size=x.size, p=weights)
        y = unit_angles(rng.vonmises(means[component], kappas[component]), TWO_PI)
        more_modes += BinnedSample(y).modes(h) > 1
        more_mass += excess_mass(y, 1, cells=cells) >= observed
    return more_modes / draws, more_mass / draws


def test_the_step_matches_an_independent_slow_implementation():
    """A flat-topped unimodal sample (two κ = 8 components 0.7 rad apart, n = 400): the
    product's step 1 (EM on binned counts, grid resamples) against direct maximum
    likelihood on the points and point resamples, within Monte Carlo error."""
    rng = np.random.default_rng(15)  # p-values near 0.4 and 0.2: the check can fail
    x = np.concatenate([rng.vonmises(-0.35, 8.0, 200), rng.vonmises(0.35, 8.0, 200)])
    sample, theta, null = _null(x)
    fast = run_step(sample, theta, 1, 2000, np.random.default_rng(1), null).p_values
    choice = null.for_step(1)
    assert choice.components == 2 and not choice.projected
    slow = _slow_step_p_values(x, choice.components, 400, np.random.default_rng(2))
    for fast_p, slow_p in zip(fast, slow, strict=True):
        assert 0.02 < slow_p < 0.98  # an informative case
        se = np.sqrt(slow_p * (1 - slow_p) / 400 + fast_p * (1 - fast_p) / 2000)
        assert abs(fast_p - slow_p) < 4 * se


# ------------------------------------------------------------------ the null as a setting
def test_the_clusters_record_the_null_their_test_resampled():
    """``null`` reaches the test from the clustering functions, and the answer of the
    uniformity gate (no test run) records it too, so a session knows what was asked."""
    from stpca_gui.core.circstats.modes import periodic_mode_clusters, pns1_mode_clusters
    from stpca_gui.core.circstats.tested_modes import run_mode_test

    rng = np.random.default_rng(5)
    x = np.concatenate([rng.vonmises(c, 12.0, 150) for c in (-2.0, 0.2, 2.3)])
    clusters = periodic_mode_clusters(x, null="mixture")
    expected = mode_test(x, null="mixture")
    assert clusters.mode_test.calibration == "mixture"
    assert clusters.mode_test.p_values == expected.p_values
    assert clusters.n_clusters == expected.n_modes == 3
    noise = rng.uniform(-np.pi, np.pi, (400, 3))
    for rows in (noise, np.repeat(noise, 2, axis=0)):  # the distinct rows' path too
        gated = pns1_mode_clusters(rows[:, 0], TWO_PI, torus_angles=rows, null="mixture")
        assert gated.mode_test.uniform and gated.mode_test.calibration == "mixture"
    with pytest.raises(ValueError, match="unknown null 'kde'; use one of critical_kde, "
                                         "mixture"):
        pns1_mode_clusters(noise[:, 0], TWO_PI, torus_angles=noise, null="kde")
    with pytest.raises(ValueError, match="null belongs to the excess-mass test"):
        run_mode_test(x, TWO_PI, test="silverman", alpha=0.05, k_max=4, n_boot=50,
                      null="mixture")
