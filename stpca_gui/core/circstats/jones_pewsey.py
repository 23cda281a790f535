"""The Jones–Pewsey family of unimodal densities on the circle, fitted by maximum likelihood.

Jones & Pewsey (2005, JASA 100:1422):

    f(θ; μ, κ, ψ) ∝ (cosh(κψ) + sinh(κψ)·cos(θ − μ))^(1/ψ),   κ ≥ 0, ψ ∈ ℝ,

symmetric about μ and unimodal for every (κ, ψ) (uniform at κ = 0). ψ → 0 gives the von Mises
density with concentration κ, ψ = −1 the wrapped Cauchy with ρ = tanh(κ/2), ψ = 1 the
cardioid, ψ = ±∞ … flatter or more peaked tops at the same spread: ψ shapes the top and
tails. The test for the number of modes (:mod:`~stpca_gui.core.circstats.mode_test`) resamples
the fitted member as its null for "one mode".

The fit works on counts on equispaced nodes of the circle (the sample binned: O(n) once,
then every likelihood evaluation costs O(nodes) whatever n), with the normalising constant
by the trapezoidal rule on the same nodes (spectrally accurate for a periodic density the
nodes resolve), μ, κ and ψ by bounded quasi-Newton (L-BFGS-B) from three starts (ψ = −1, 0, 1,
κ from the mean resultant length), ψ within :data:`PSI_BOUNDS`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import logsumexp

from ..geometry.torus import TWO_PI
from .bandwidth import approximate_concentration

__all__ = ["KAPPA_MAX", "PSI_BOUNDS", "JonesPewsey", "fit_jones_pewsey", "log_kernel"]

#: Bounds of the shape parameter ψ in the fit.
PSI_BOUNDS = (-3.0, 3.0)
#: Largest concentration in the fit (a von Mises of circular sd 0.01 rad).
KAPPA_MAX = 1e4
#: Below this |ψ| the von Mises limit κ·cos(θ − μ) is used (the exact form loses digits).
_PSI_ZERO = 1e-6


def log_kernel(theta: NDArray[np.float64], mu: float, kappa: float,
               psi: float) -> NDArray[np.float64]:
    """log of the unnormalised density (cosh(κψ) + sinh(κψ) cos(θ − μ))^(1/ψ), computed as
    (1/ψ)·log((e^{κψ}(1 + c) + e^{−κψ}(1 − c))/2), c = cos(θ − μ), without overflow."""
    c = np.cos(np.asarray(theta, dtype=np.float64) - mu)
    if abs(psi) < _PSI_ZERO:
        return kappa * c
    a = kappa * psi
    with np.errstate(divide="ignore"):
        inner = np.logaddexp(a + np.log(0.5 * (1.0 + c)), -a + np.log(0.5 * (1.0 - c)))
    return inner / psi


@dataclass(frozen=True)
class JonesPewsey:
    """A member of the Jones–Pewsey family on the unit circle (module docstring)."""

    mu: float
    kappa: float
    psi: float

    def log_density(self, theta: NDArray[np.float64], nodes: int = 4096) -> NDArray[np.float64]:
        """log f at ``theta``, normalised by the trapezoidal rule on ``nodes`` nodes."""
        grid = np.arange(nodes) * (TWO_PI / nodes)
        log_norm = logsumexp(log_kernel(grid, self.mu, self.kappa, self.psi)) + np.log(
            TWO_PI / nodes)
        return log_kernel(theta, self.mu, self.kappa, self.psi) - log_norm

    def node_probabilities(self, nodes: int) -> NDArray[np.float64]:
        """The density's mass at each of ``nodes`` equispaced nodes (node 0 at angle 0),
        f(θ_j)·(2π/nodes), summing to one."""
        log_f = log_kernel(np.arange(nodes) * (TWO_PI / nodes), self.mu, self.kappa, self.psi)
        weights = np.exp(log_f - log_f.max())
        return weights / weights.sum()


def _negative_log_likelihood(params: NDArray[np.float64], grid: NDArray[np.float64],
                             shares: NDArray[np.float64]) -> float:
    mu, kappa, psi = params
    log_f = log_kernel(grid, mu, kappa, psi)
    return float(logsumexp(log_f) - shares @ log_f)


def _kappa_start(mean_resultant: float) -> float:
    """The von Mises κ of a mean resultant length (Fisher's approximation of A⁻¹)."""
    return float(approximate_concentration(mean_resultant))


def fit_jones_pewsey(counts: NDArray[np.float64]) -> JonesPewsey:
    """Maximum-likelihood Jones–Pewsey density of counts on equispaced nodes of the unit
    circle (node j at angle 2πj/nodes; module docstring).

    Parameters
    ----------
    counts : ndarray, shape (nodes,)
        Non-negative weights, not all zero (e.g. a sample binned on the test's grid).

    Returns
    -------
    JonesPewsey
        μ in [0, 2π), κ in [0, :data:`KAPPA_MAX`], ψ within :data:`PSI_BOUNDS`.
    """
    counts = np.asarray(counts, dtype=np.float64)
    nodes = counts.size
    total = counts.sum()
    if nodes < 4 or total <= 0 or np.any(counts < 0):
        raise ValueError("counts must be non-negative, on at least 4 nodes, and not all zero")
    grid = np.arange(nodes) * (TWO_PI / nodes)
    shares = counts / total
    resultant = shares @ np.exp(1j * grid)
    mu0 = float(np.angle(resultant))
    kappa0 = min(_kappa_start(float(abs(resultant))), KAPPA_MAX)
    best = None
    for psi0 in (-1.0, 0.0, 1.0):
        # the von Mises start's κ matches the spread; for ψ ≠ 0 the same κ is close enough
        start = np.array([mu0, kappa0, psi0])
        result = minimize(_negative_log_likelihood, start, args=(grid, shares),
                          method="L-BFGS-B",
                          bounds=[(mu0 - np.pi, mu0 + np.pi), (0.0, KAPPA_MAX), PSI_BOUNDS])
        if best is None or result.fun < best.fun:
            best = result
    mu, kappa, psi = best.x
    return JonesPewsey(mu=float(np.mod(mu, TWO_PI)), kappa=float(kappa), psi=float(psi))
