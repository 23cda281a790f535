"""The resampling densities of ``bench_mode_nulls.py`` (benchmarks/_mode_null_densities.py,
issue 34, fifth attempt): each has at most k modes, the rearrangement keeps the values it
sorts, the exponential-family fit is the von Mises maximum likelihood at order 1 and finds
the order of a density of that family, the von Mises mixture is the maximum likelihood at one
component and is pulled onto one mode, and the p-values from f_{h₁} follow the product's."""

from __future__ import annotations

import numpy as np
import pytest
from project_paths import load_benchmark
from scipy.special import i0e, i1e
from scipy.stats import vonmises

from stpca_gui.core.circstats.excess_mass import nearest_node_counts
from stpca_gui.core.circstats.mode_test import step_p_values
from stpca_gui.core.circstats.silverman import (
    GRID_POINTS,
    BinnedSample,
    _count_maxima,
    _signs,
    binned_critical_bandwidth,
    unit_angles,
)

TWO_PI = 2.0 * np.pi


nulls = load_benchmark("_mode_null_densities")


def _maxima(probabilities: np.ndarray) -> int:
    return _count_maxima(_signs((np.roll(probabilities, -1) - probabilities)[None, :])[0])


def _sample(k: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = np.linspace(-2.0, 2.0, k) if k > 1 else np.zeros(1)
    return np.concatenate([rng.vonmises(c, 6.0, n // k) for c in centres])


@pytest.mark.parametrize("k", [1, 2, 3])
def test_projection_and_rearrangement_have_the_modes_of_the_critical_bandwidth_kde(k):
    theta = unit_angles(_sample(k, 600, k), TWO_PI)
    sample = BinnedSample(theta)
    h_k = binned_critical_bandwidth(sample, k)
    pieces = nulls.monotone_pieces(sample.derivative(h_k))
    assert len(pieces) == 2 * k
    covered = np.concatenate([nodes for nodes, _ in pieces])
    assert np.array_equal(np.unique(covered), np.arange(GRID_POINTS))  # every node once
    sharp = sample.density(0.5 * h_k)
    assert sample.modes(0.5 * h_k) > k  # the sharper KDE has noise bumps to remove
    for fitted in (nulls.isotonic_null(sharp, pieces), nulls.rearranged_null(sharp, pieces)):
        assert fitted.sum() == pytest.approx(1.0)
        assert np.all(fitted >= 0.0)
        assert 1 <= _maxima(fitted) <= k
    rearranged = nulls.rearranged_null(sharp, pieces) * sharp.sum()
    for nodes, increasing in pieces:
        assert np.allclose(np.sort(rearranged[nodes]), np.sort(sharp[nodes]))
        steps = np.diff(rearranged[nodes])
        assert np.all(steps >= 0.0) if increasing else np.all(steps <= 0.0)


def test_order_one_is_the_von_mises_maximum_likelihood_on_the_grid():
    rng = np.random.default_rng(3)
    x = rng.vonmises(0.7, 3.0, 20000)
    counts = nearest_node_counts(np.mod(x, TWO_PI), nulls.FIT_NODES)
    eta, _ = nulls.trig_family_fit(counts, 1)
    kappa, mu = np.hypot(*eta), np.arctan2(eta[1], eta[0])
    # the continuous likelihood equation: I₁(κ)/I₀(κ) = R̄ (binning moves it by < 1e-4)
    resultant = abs(np.mean(np.exp(1j * x)))
    assert i1e(kappa) / i0e(kappa) == pytest.approx(resultant, abs=1e-4)
    assert mu == pytest.approx(np.angle(np.mean(np.exp(1j * x))), abs=1e-3)


def test_the_criteria_choose_the_von_mises_for_a_von_mises_sample():
    theta = unit_angles(np.random.default_rng(5).vonmises(0.0, 2.0, 3000), TWO_PI)
    for penalty in ("bic", "aic"):
        probabilities, order = nulls.trig_family_null(theta, 1, penalty, 6)
        assert order == 1
        angle = np.arange(GRID_POINTS) * (TWO_PI / GRID_POINTS) - np.pi
        truth = vonmises.pdf(angle, 2.0)
        assert np.abs(probabilities / (TWO_PI / GRID_POINTS) - truth).max() < 0.05


def test_the_exponential_family_null_keeps_at_most_k_modes_of_a_two_mode_sample():
    theta = unit_angles(_sample(2, 2000, 8), TWO_PI)
    one, _ = nulls.trig_family_null(theta, 1, "aic", 8)
    two, order = nulls.trig_family_null(theta, 2, "aic", 8)
    assert _maxima(one) == 1
    assert _maxima(two) == 2 and order >= 2


def test_the_products_row_follows_the_products_p_values():
    """Same law, other draws: within Monte Carlo error of the product's own step (a flat-topped
    sample whose p-values lie near 0.65 and 0.93)."""
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.vonmises(-0.45, 8.0, 200), rng.vonmises(0.45, 8.0, 200)])
    theta = unit_angles(x, TWO_PI)
    sample = BinnedSample(theta)
    h_1 = binned_critical_bandwidth(sample, 1)
    product = step_p_values(sample, theta, h_1, 1, 2000, np.random.default_rng(1))
    rows = nulls.first_step_nulls(x, 2000, 2, lambda angle: vonmises.pdf(angle, 1.0))
    assert rows.shape == (len(nulls.CANDIDATES), 2)
    se = np.sqrt(0.25 / 2000)
    assert abs(rows[0, 0] - product.bandwidth) < 4 * se + 1e-3
    assert abs(rows[0, 1] - product.excess_mass) < 4 * se + 1e-3
    assert 0.5 < product.bandwidth < 0.8 and 0.85 < product.excess_mass
    assert np.all((rows >= 1 / 2001) & (rows <= 1.0))


def test_the_mixture_fits_are_the_products():
    """The sixth attempt's fits are the product's EM, started as that attempt did."""
    from stpca_gui.core.circstats.mode_null import fit_vonmises_mixture

    rng = np.random.default_rng(6)
    x = np.concatenate([rng.vonmises(-1.0, 5.0, 14000), rng.uniform(-np.pi, np.pi, 6000)])
    counts = nearest_node_counts(np.mod(x, TWO_PI), nulls.FIT_NODES)
    fit = nulls.vonmises_mixture_fit(counts, 1, uniform=True)
    centre = np.angle(np.sum(counts * np.exp(1j * np.arange(counts.size) * TWO_PI
                                             / counts.size)))
    again = fit_vonmises_mixture(counts, np.array([centre]), uniform=True)
    assert fit.log_likelihood == again.log_likelihood
    assert fit.uniform_weight == pytest.approx(0.3, abs=0.02)
    assert fit.concentrations[0] == pytest.approx(5.0, rel=0.1)


def test_a_two_mode_mixture_is_projected_onto_one_mode():
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.vonmises(-0.6, 8.0, 1500), rng.vonmises(0.6, 8.0, 1500)])
    probabilities, components, projected = nulls.vonmises_mixture_null(unit_angles(x, TWO_PI))
    assert components >= 2 and projected
    assert _maxima(probabilities) == 1
    # the projection stops at the boundary: a little less pull gives two modes again
    assert probabilities.max() < 1.5 * np.median(probabilities[probabilities > 0.5 *
                                                                probabilities.max()])


def test_a_von_mises_sample_keeps_one_component_and_a_uniform_floor_is_found():
    rng = np.random.default_rng(8)
    x = rng.vonmises(0.0, 4.0, 3000)
    probabilities, components, projected = nulls.vonmises_mixture_null(unit_angles(x, TWO_PI))
    assert (components, projected) == (1, False)
    angle = np.arange(GRID_POINTS) * (TWO_PI / GRID_POINTS) - np.pi
    assert np.abs(probabilities * GRID_POINTS / TWO_PI - vonmises.pdf(angle, 4.0)).max() < 0.05
    floor = np.concatenate([rng.vonmises(0.0, 4.0, 2100), rng.uniform(-np.pi, np.pi, 900)])
    with_floor, _, _ = nulls.vonmises_mixture_null(unit_angles(floor, TWO_PI), "choose")
    per_radian = GRID_POINTS / TWO_PI
    assert with_floor.min() * per_radian == pytest.approx(0.3 / TWO_PI, rel=0.25)
    assert _maxima(with_floor) == 1
