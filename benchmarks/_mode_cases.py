"""The simulated samples of the mode-test benchmarks (``bench_modetest.py``,
``bench_mode_nulls.py``, ``bench_mode_steps.py``): unimodal nulls and von Mises mixtures on
the circle, and the product's step "at most k modes" they are tested by."""

from __future__ import annotations

import numpy as np

#: The least favourable unimodal nulls: two von Mises κ = 8 components (weights, distance
#: of the centres) just short of a second mode (the largest unimodal distances are 0.6995 for
#: equal weights and 1.069 for 0.8/0.2): the density is flat at its top or on a shoulder.
BOUNDARY_NULLS = {"flat top 0.5/0.5": (0.5, 0.69), "shoulder 0.8/0.2": (0.2, 1.05)}


def null_sampler(name: str, rng: np.random.Generator, n: int) -> np.ndarray:
    """n points (radians) of the unimodal null ``name`` (one of :data:`SIZE_NULLS`)."""
    if name.startswith("vonmises"):
        return rng.vonmises(0.0, float(name.split("=")[1]), n)
    if name == "wrapped_cauchy(0.5)":
        return np.mod(np.log(2.0) * rng.standard_cauchy(n) + np.pi, 2 * np.pi) - np.pi
    if name in BOUNDARY_NULLS:
        small, separation = BOUNDARY_NULLS[name]
        return mixture(rng, n, 2, separation, small, 8.0)
    raise ValueError(name)


#: Unimodal nulls of the size table.
SIZE_NULLS = ("vonmises=0.5", "vonmises=2", "vonmises=8", "wrapped_cauchy(0.5)",
              *BOUNDARY_NULLS)


def mixture(rng: np.random.Generator, n: int, k: int, separation: float, small: float,
             kappa: float) -> np.ndarray:
    """k von Mises components κ, centres ``separation`` apart; the last has weight ``small``."""
    weights = np.full(k, (1.0 - small) / (k - 1))
    weights[-1] = small
    counts = rng.multinomial(n, weights)
    centres = separation * (np.arange(k) - (k - 1) / 2.0)
    return np.concatenate([rng.vonmises(c, kappa, m) for c, m in zip(centres, counts,
                                                                      strict=True)])


def mixture_modes(k: int, separation: float, small: float, kappa: float,
                   nodes: int = 2**14) -> int:
    """Modes of the mixture density of :func:`mixture` (the truth k̂ can reach at large n)."""
    from scipy.stats import vonmises

    weights = np.full(k, (1.0 - small) / (k - 1))
    weights[-1] = small
    centres = separation * (np.arange(k) - (k - 1) / 2.0)
    grid = np.linspace(-np.pi, np.pi, nodes, endpoint=False)
    density = sum(w * vonmises.pdf(grid, kappa, loc=c) for w, c in zip(weights, centres,
                                                                       strict=True))
    return int(np.count_nonzero((density > np.roll(density, 1))
                                & (density >= np.roll(density, -1))))


#: Power cases: (components, separation of the centres in rad, weight of the last).
POWER_CASES = ((2, 1.0, 0.5), (2, 1.0, 0.1), (2, 1.5, 0.5), (2, 1.5, 0.1), (2, 1.6, 0.1),
               (2, 2.0, 0.1), (3, 1.0, 1 / 3), (3, 1.5, 1 / 3), (3, 2.0, 0.1), (4, 1.0, 0.25),
               (4, 1.5, 0.25), (4, 1.5, 0.1))


def step_p_values(x: np.ndarray, k: int, n_boot: int, seed: int, null: str = "mixture",
                  period: float = 2 * np.pi) -> tuple[float, float, float]:
    """Silverman's p_k, the excess-mass p-value and the step's p-value of "at most k modes"
    as ``mode_test(x, period, null=null, random_state=seed)`` computes them (for k = 1
    exactly; a later step draws from the step's own ``seed``), for a sample without ties."""
    from stpca_gui.core.circstats import mode_test as em
    from stpca_gui.core.circstats.mode_null import MixtureNull
    from stpca_gui.core.circstats.silverman import BinnedSample, unit_angles

    theta = unit_angles(x, period)
    sample = BinnedSample(theta)
    mixtures = MixtureNull(sample, theta) if null == "mixture" else None
    p = em.run_step(sample, theta, k, n_boot, np.random.default_rng(seed), mixtures).p_values
    return p.bandwidth, p.excess_mass, p.step
