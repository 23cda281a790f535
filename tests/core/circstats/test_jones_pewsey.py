"""The Jones–Pewsey family and its maximum-likelihood fit on binned counts (issue 34: the
null of the mode test's first step)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import vonmises, wrapcauchy

from stpca_gui.core.circstats.excess_mass import nearest_node_counts
from stpca_gui.core.circstats.jones_pewsey import (
    PSI_BOUNDS,
    JonesPewsey,
    fit_jones_pewsey,
    log_kernel,
)

TWO_PI = 2.0 * np.pi
GRID = np.arange(4096) * (TWO_PI / 4096)


def _draw(member: JonesPewsey, n: int, rng: np.random.Generator) -> np.ndarray:
    """n points of a Jones–Pewsey density by rejection from the uniform (continuous angles,
    independent of the grid the fit uses)."""
    top = float(np.exp(member.log_density(np.array([member.mu]))[0]))
    out = np.empty(0)
    while out.size < n:
        theta = rng.uniform(0.0, TWO_PI, 4 * n)
        keep = rng.uniform(0.0, top, theta.size) < np.exp(member.log_density(theta))
        out = np.concatenate([out, theta[keep]])
    return out[:n]


def test_the_family_holds_von_mises_wrapped_cauchy_and_cardioid():
    """ψ → 0: von Mises κ; ψ = −1: wrapped Cauchy ρ = tanh(κ/2); ψ = 1: cardioid
    1 + 2ρ cos with ρ = tanh(κ)/2 (Jones & Pewsey 2005, §2)."""
    kappa, mu = 1.7, 0.4
    assert np.allclose(np.exp(JonesPewsey(mu, kappa, 1e-9).log_density(GRID)),
                       vonmises.pdf(GRID, kappa, loc=mu), rtol=1e-9, atol=1e-12)
    assert np.allclose(np.exp(JonesPewsey(mu, kappa, -1.0).log_density(GRID)),
                       wrapcauchy.pdf(np.mod(GRID - mu, TWO_PI), np.tanh(kappa / 2)),
                       rtol=1e-9)
    rho = np.tanh(kappa) / 2
    assert np.allclose(np.exp(JonesPewsey(mu, kappa, 1.0).log_density(GRID)),
                       (1 + 2 * rho * np.cos(GRID - mu)) / TWO_PI, rtol=1e-9)
    # the small-ψ branch meets the exact form continuously
    assert np.allclose(log_kernel(GRID, mu, kappa, 2e-6) - log_kernel(GRID, mu, kappa, 2e-6)[0],
                       log_kernel(GRID, mu, kappa, 0.0) - log_kernel(GRID, mu, kappa, 0.0)[0],
                       atol=1e-4)


@pytest.mark.parametrize(("kappa", "psi"), [(0.5, -3.0), (8.0, 3.0), (400.0, 2.0),
                                            (2.0, -1.0)])
def test_every_member_is_unimodal_and_sums_to_one(kappa, psi):
    p = JonesPewsey(1.0, kappa, psi).node_probabilities(4096)
    assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0)
    rises = np.diff(np.concatenate([p, p[:1]])) > 0
    assert np.count_nonzero(rises & ~np.roll(rises, -1)) == 1  # one maximum round the circle


@pytest.mark.parametrize(("mu", "kappa", "psi"), [(1.0, 2.0, 0.0), (5.5, 1.0986, -1.0),
                                                  (3.0, 8.0, 0.8), (0.2, 4.0, -2.0)])
def test_the_fit_recovers_known_parameters(mu, kappa, psi):
    """20 000 points drawn from a known member: the fit finds it (tolerances about 4 SE of
    the maximum-likelihood estimates at this n)."""
    truth = JonesPewsey(mu, kappa, psi)
    x = _draw(truth, 20_000, np.random.default_rng(3))
    fitted = fit_jones_pewsey(nearest_node_counts(x, 4096))
    assert abs(np.angle(np.exp(1j * (fitted.mu - mu)))) < 0.03
    assert fitted.kappa == pytest.approx(kappa, rel=0.08)
    assert fitted.psi == pytest.approx(psi, abs=0.25)
    # the fitted law is the truth's within 1.5 % in total variation
    assert 0.5 * np.abs(fitted.node_probabilities(4096)
                        - truth.node_probabilities(4096)).sum() < 0.015


def test_the_fit_is_bounded_and_refuses_bad_counts():
    """Data the family fits badly (two antipodal modes) still give a member inside the
    bounds, and counts that are no sample are refused."""
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.vonmises(0, 20, 500), rng.vonmises(np.pi, 20, 500)])
    fitted = fit_jones_pewsey(nearest_node_counts(np.mod(x, TWO_PI), 1024))
    assert PSI_BOUNDS[0] <= fitted.psi <= PSI_BOUNDS[1] and fitted.kappa >= 0
    for bad in (np.zeros(16), -np.ones(16), np.ones(3)):
        with pytest.raises(ValueError):
            fit_jones_pewsey(bad)
