"""Other densities to resample the mode test's first step from (issue 34, fifth attempt),
measured by ``bench_mode_nulls.py``; none is in the product (docs/mode_test.md,
"Calibration", fifth attempt).

The product resamples "at most k modes" from f_{h_k}, the wrapped-normal KDE at the
critical bandwidth: the smoothest estimate with k modes, conservative under most unimodal
nulls. Each candidate here is another density with at most k modes, built from the sample:

* **Isotonic projection** of a sharper KDE f_{c·h_k} (c < 1, so closer to the truth than
  f_{h_k} but with noise bumps): the least-squares fit on the grid that increases from each
  antimode of f_{h_k} to the next mode and decreases from the mode to the next antimode
  (``scipy.optimize.isotonic_regression`` per piece). Noise bumps become plateaux.
* **Monotone rearrangement** of the same f_{c·h_k} on the same pieces: each piece's values
  sorted (increasing or decreasing). It keeps the measure of every level set within a piece,
  the quantity the excess mass is made of, and makes no plateau where f_{c·h_k} had none.
* **Trigonometric exponential family** (a sieve of generalised von Mises densities):
  log f(θ) = Σ_{j ≤ J} (a_j cos jθ + b_j sin jθ) − A, fitted by maximum likelihood to the
  sample on a grid of :data:`FIT_NODES` (Newton's method on a concave likelihood), for
  J = 1 … ``max_order``; among the fits with at most k modes the one of lowest BIC (penalty
  log n per parameter) or AIC (2 per parameter). J = 1 is the von Mises family.
* **A unimodal mixture of von Mises densities** (sixth attempt): m = 1 … 4 components
  fitted by EM to the sample on :data:`FIT_NODES` nodes, m by BIC (3m − 1 parameters), with
  (``"vm_mixture_uniform"``: BIC chooses) or without (``"vm_mixture"``) a uniform
  component, or by AIC without one (``"vm_mixture_aic"``); a fit with more than one mode is
  projected onto one mode by pulling its centres towards their weighted mean direction by the
  least factor that leaves one mode (bisection). The flat-topped and shoulder nulls are
  members of this family; the wrapped Cauchy is not.
* **The true density** (an oracle, for the simulations only): what an exact bootstrap would
  resample.

For each, :func:`null_p_values` gives Silverman's p_k (resamples whose KDE at the sample's
h_k has more than k modes) and the excess-mass p-value, exactly as the product computes them
from f_{h_k} (same coarse grid rule, same draws, same statistics).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.optimize import isotonic_regression

from stpca_gui.core.circstats import silverman as mt
from stpca_gui.core.circstats._excess_mass_kernel import excess_mass_statistic
from stpca_gui.core.circstats.excess_mass import (
    COARSE_LEVELS,
    FINE_LEVELS,
    binned_excess_mass,
    nearest_node_counts,
)
from stpca_gui.core.circstats.mode_null import VonMisesMixture, fit_vonmises_mixture

#: Grid of the exponential-family fit (its log density is then evaluated on the test's grid).
FIT_NODES = 1024
#: Newton iterations of one fit at most, and the gradient norm that stops them.
_NEWTON_STEPS = 60
_GRADIENT_TOL = 1e-9
#: Values below this share of the largest do not count as modes of a fitted density (the
#: far tails of a high-order fit ripple at round-off level).
_RIPPLE = 1e-9

TWO_PI = 2.0 * np.pi


def monotone_pieces(derivative: np.ndarray) -> list[tuple[np.ndarray, bool]]:
    """The grid's node indices cut into the monotone pieces of the density whose derivative
    is given: (nodes in order round the circle, increasing?) from each antimode to the next
    mode (increasing) and from that mode to the next antimode (decreasing)."""
    size = derivative.size
    modes, antimodes = mt.attraction_domains(derivative)
    marks = sorted([(float(m), True) for m in modes] + [(float(a), False) for a in antimodes])
    first = next(i for i, (_, is_mode) in enumerate(marks) if not is_mode)
    marks = marks[first:] + marks[:first]
    pieces = []
    for i, (start, is_mode) in enumerate(marks):
        end = marks[(i + 1) % len(marks)][0]
        if end <= start:
            end += size
        nodes = np.arange(int(np.ceil(start)), int(np.floor(end)) + 1) % size
        if nodes.size:
            pieces.append((nodes, not is_mode))
    return pieces


def isotonic_null(density: np.ndarray, pieces: list[tuple[np.ndarray, bool]]) -> np.ndarray:
    """The least-squares fit to ``density`` that is monotone on every piece (module
    docstring), normalised."""
    fitted = density.copy()
    for nodes, increasing in pieces:
        fitted[nodes] = isotonic_regression(density[nodes], increasing=increasing).x
    fitted = np.maximum(fitted, 0.0)
    return fitted / fitted.sum()


def rearranged_null(density: np.ndarray, pieces: list[tuple[np.ndarray, bool]]) -> np.ndarray:
    """``density`` with each piece's values sorted to make it monotone (module docstring),
    normalised."""
    fitted = density.copy()
    for nodes, increasing in pieces:
        ordered = np.sort(density[nodes])
        fitted[nodes] = ordered if increasing else ordered[::-1]
    return fitted / fitted.sum()


def _trig_features(order: int, nodes: int) -> np.ndarray:
    angle = np.arange(nodes) * (TWO_PI / nodes)
    j = np.arange(1, order + 1)[:, None]
    return np.vstack([np.cos(j * angle), np.sin(j * angle)])


def trig_family_fit(counts: np.ndarray, order: int, start: np.ndarray | None = None
                    ) -> tuple[np.ndarray, float]:
    """Maximum-likelihood natural parameters (a_1 … a_J, b_1 … b_J) of the trigonometric
    exponential family of order J for counts on equispaced nodes, and the log-likelihood
    (per radian, up to a constant)."""
    features = _trig_features(order, counts.size)
    n = counts.sum()
    moments = features @ counts / n
    eta = np.zeros(2 * order) if start is None else start.copy()

    def log_likelihood(parameters: np.ndarray) -> float:
        z = parameters @ features
        top = z.max()
        return float(parameters @ moments - top - np.log(np.mean(np.exp(z - top)) * TWO_PI))

    value = log_likelihood(eta)
    for _ in range(_NEWTON_STEPS):
        weights = np.exp(eta @ features - (eta @ features).max())
        weights /= weights.sum()
        mean = features @ weights
        gradient = moments - mean
        if np.max(np.abs(gradient)) < _GRADIENT_TOL:
            break
        covariance = (features * weights) @ features.T - np.outer(mean, mean)
        ridge = 1e-12 * max(np.trace(covariance), 1e-300)
        step = np.linalg.solve(covariance + ridge * np.eye(2 * order), gradient)
        length = 1.0
        while length > 1e-8:
            trial = log_likelihood(eta + length * step)
            if trial >= value - 1e-14:
                break
            length *= 0.5
        eta = eta + length * step
        value = trial
    return eta, value * n


def _fitted_probabilities(eta: np.ndarray, nodes: int) -> np.ndarray:
    z = eta @ _trig_features(eta.size // 2, nodes)
    density = np.exp(z - z.max())
    return density / density.sum()


def _maxima(probabilities: np.ndarray) -> int:
    step = np.roll(probabilities, -1) - probabilities
    step[np.abs(step) <= _RIPPLE * probabilities.max()] = 0.0
    signs = np.sign(step)
    signs = signs[signs != 0]
    return int(np.count_nonzero((signs > 0) & (np.roll(signs, -1) < 0)))


def trig_family_null(theta: np.ndarray, k: int, penalty: str, max_order: int
                     ) -> tuple[np.ndarray, int]:
    """Probabilities on the test's grid of the fit of lowest BIC or AIC (``penalty``) among
    orders 1 … ``max_order`` with at most k modes, and its order (module docstring)."""
    counts = nearest_node_counts(theta, FIT_NODES)
    n = counts.sum()
    per_parameter = np.log(n) if penalty == "bic" else 2.0
    best: tuple[float, np.ndarray] | None = None
    eta = None
    for order in range(1, max_order + 1):
        start = None if eta is None else np.concatenate(
            [eta[:order - 1], [0.0], eta[order - 1:], [0.0]])
        eta, log_likelihood = trig_family_fit(counts, order, start)
        probabilities = _fitted_probabilities(eta, mt.GRID_POINTS)
        if _maxima(probabilities) > k:
            continue
        criterion = -2.0 * log_likelihood + 2 * order * per_parameter
        if best is None or criterion < best[0]:
            best = (criterion, eta)
    if best is None:  # no order has at most k modes: the one-parameter family has one
        best = (np.inf, trig_family_fit(counts, 1)[0])
    return _fitted_probabilities(best[1], mt.GRID_POINTS), best[1].size // 2


#: Components of the von Mises mixtures tried.
MAX_COMPONENTS = 4


def vonmises_mixture_fit(counts: np.ndarray, components: int, uniform: bool
                         ) -> VonMisesMixture:
    """The product's EM fit (:func:`~stpca_gui.core.circstats.mode_null.fit_vonmises_mixture`)
    of ``components`` von Mises densities (and a uniform one if ``uniform``) to counts on
    equispaced nodes, started as the sixth attempt did: centres spread ±0.5 rad around the
    binned sample's mean direction."""
    angle = np.arange(counts.size) * (TWO_PI / counts.size)
    centre = np.angle(np.sum(counts * np.exp(1j * angle)))
    starts = centre + 0.5 * np.linspace(-1.0, 1.0, components) * (components > 1)
    return fit_vonmises_mixture(counts, starts, uniform)


def vonmises_mixture_null(theta: np.ndarray, uniform: str = "never", penalty: str = "bic"
                          ) -> tuple[np.ndarray, int, bool]:
    """Probabilities on the test's grid of the von Mises mixture of lowest BIC or AIC
    (``penalty``; with a uniform component when ``uniform="choose"`` and the criterion prefers
    it), projected onto one mode (module docstring); its number of components, and whether it
    was projected."""
    counts = nearest_node_counts(theta, FIT_NODES)
    n = counts.sum()
    per_parameter = np.log(n) if penalty == "bic" else 2.0
    best = None
    for with_uniform in ((False, True) if uniform == "choose" else (False,)):
        for components in range(1, MAX_COMPONENTS + 1):
            fit = vonmises_mixture_fit(counts, components, with_uniform)
            criterion = (-2 * fit.log_likelihood
                         + (3 * components - 1 + with_uniform) * per_parameter)
            if best is None or criterion < best[0]:
                best = (criterion, fit)
    fit = best[1]
    angle = np.arange(mt.GRID_POINTS) * (TWO_PI / mt.GRID_POINTS)
    density = fit.density(angle)
    projected = _maxima(density / density.sum()) > 1
    if projected:
        centre = np.angle(np.sum(fit.weights * np.exp(1j * fit.means)))
        offsets = np.angle(np.exp(1j * (fit.means - centre)))
        low, high = 0.0, 1.0
        for _ in range(20):
            middle = 0.5 * (low + high)
            trial = fit.density(angle, centre + middle * offsets)
            low, high = (low, middle) if _maxima(trial / trial.sum()) > 1 else (middle, high)
        density = fit.density(angle, centre + low * offsets)
    return density / density.sum(), fit.means.size, projected


def null_p_values(theta: np.ndarray, h_k: float, k: int, probabilities: np.ndarray,
                  n_boot: int, rng: np.random.Generator) -> tuple[float, float]:
    """Silverman's p_k and the excess-mass p-value of "at most k modes" from ``n_boot``
    resamples of ``probabilities`` (on the test's grid), as the product computes them from
    f_{h_k}."""
    coarse = mt.coarse_probabilities(probabilities, h_k)
    counts = nearest_node_counts(theta, coarse.size)
    observed = excess_mass_statistic(counts / counts.sum(), k, COARSE_LEVELS, FINE_LEVELS)
    resampled = mt.resample_counts(coarse, theta.size, n_boot, rng)
    more_modes = mt.resamples_with_more_modes(resampled, h_k, k)
    more_mass = int(np.count_nonzero(binned_excess_mass(resampled, k) >= observed))
    scale = 1.0 / (n_boot + 1.0)
    return (more_modes + 1) * scale, (more_mass + 1) * scale


#: The candidates of :func:`first_step_nulls`, in the order of its p-value pairs.
CANDIDATES = ("product", "isotonic", "rearranged", "trig_bic", "trig_aic", "vm_mixture",
              "vm_mixture_uniform", "vm_mixture_aic", "truth")


def first_step_nulls(x: np.ndarray, n_boot: int, seed: int,
                     true_density: Callable[[np.ndarray], np.ndarray], sharper: float = 0.7,
                     max_order: int = 8, candidates: tuple[str, ...] = CANDIDATES
                     ) -> np.ndarray:
    """(Silverman's p₁, excess-mass p-value) of the first step for each of ``candidates``
    (names of :data:`CANDIDATES`, drawn in that order), one row each, for a sample ``x``
    (radians, no ties); the true density is a function of the angle in radians."""
    k = 1
    rng = np.random.default_rng(seed)
    theta = mt.unit_angles(x, TWO_PI)
    sample = mt.BinnedSample(theta)
    h_k = mt.binned_critical_bandwidth(sample, k)

    def sharp_fits() -> tuple[np.ndarray, list[tuple[np.ndarray, bool]]]:
        return sample.density(sharper * h_k), monotone_pieces(sample.derivative(h_k))

    def truth() -> np.ndarray:
        values = true_density(np.arange(mt.GRID_POINTS) * (TWO_PI / mt.GRID_POINTS) - np.pi)
        return values / values.sum()  # node 0 of the test's grid is at −π

    densities = {
        "product": lambda: sample.density(h_k) / sample.density(h_k).sum(),
        "isotonic": lambda: isotonic_null(*sharp_fits()),
        "rearranged": lambda: rearranged_null(*sharp_fits()),
        "trig_bic": lambda: trig_family_null(theta, k, "bic", max_order)[0],
        "trig_aic": lambda: trig_family_null(theta, k, "aic", max_order)[0],
        "vm_mixture": lambda: vonmises_mixture_null(theta)[0],
        "vm_mixture_uniform": lambda: vonmises_mixture_null(theta, "choose")[0],
        "vm_mixture_aic": lambda: vonmises_mixture_null(theta, penalty="aic")[0],
        "truth": truth,
    }
    return np.array([null_p_values(theta, h_k, k, densities[name](), n_boot, rng)
                     for name in candidates])
