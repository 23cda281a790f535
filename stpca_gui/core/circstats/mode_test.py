"""How many modes does a periodic sample have? The product's test: excess mass and critical
bandwidth, calibrated by one bootstrap from a density with at most k modes.

k̂ is the first k = 1, 2, …, k_max whose hypothesis "at most k modes" is not rejected at
level α (closed testing of nested hypotheses: the chance of any false "more modes" is at
most α). The test of "at most k modes" draws B samples of the sample's size from a density
with at most k modes estimated from the sample (``null``), and compares two statistics of
the sample with their law over the same resamples:

* Silverman's p_k: the share of resamples whose KDE at the sample's critical bandwidth h_k
  (:mod:`~stpca_gui.core.circstats.silverman`; Silverman 1981) has more than k modes;
* the excess-mass p-value: the share of resamples whose excess mass Δ_{k+1}
  (:mod:`~stpca_gui.core.circstats.excess_mass`) is at least the sample's (Müller & Sawitzki
  1991; calibrated by a bootstrap from a null density, as Ameijeiras-Alonso, Crujeiras &
  Rodríguez-Casal 2019 proposed, and computed here on the circle).

The step rejects when p_k < 0.7·α or p_EM < 0.3·α (weighted Bonferroni,
:data:`TEST_WEIGHTS`): each statistic sees what the other misses. The critical bandwidth
grows with the distance a bump must travel to merge, so it finds small, well separated modes
(a 10 % mode 1.6 rad from a main one); the excess mass is measured in mass, so it finds modes
of similar size close together or spread evenly round the circle, where f_{h_1} is nearly flat
and Silverman's p_1 sees noise, and it ignores the sparse tails whose lone points make bumps of
any KDE.

The resampled density. ``null="critical_kde"`` (the default) is f_{h_k}, the KDE at the
critical bandwidth (Silverman's smoothed bootstrap): valid but conservative, most under
concentrated nulls (size 0.008–0.035 at α = 0.05, n = 500, six unimodal nulls), so it
misses modes it could find (two equal modes 1 rad apart, n = 500: "one mode" rejected in
0.49 of samples). ``null="mixture"``
(issue 34) is a von Mises mixture chosen by AIC and pulled onto at most k modes
(:mod:`~stpca_gui.core.circstats.mode_null`): its first step's size is within Monte Carlo
error of α in 17 of 18 measured cells and its power higher (``docs/mode_test.md``), but it
is not the default. Being near its level, it also finds a false extra mode near α of the
time where f_{h_k} seldom does: 5.5 % against 1.5 % of 200 fits of the three-cluster demos,
one of them the demo clusters-t2 with data seed 0, where one point 0.78 rad beyond its
cluster becomes a fourth cluster of one point; and its power for two equal modes 1 rad
apart at n = 500 is 0.79 (1000 samples), short of issue 34's 0.80.

Ties: the test assumes a continuous sample; copies of the sample are counted once and rounded
values spread over their rounding step (:mod:`~stpca_gui.core.circstats.ties`); with fewer
than :data:`~stpca_gui.core.circstats.ties.MIN_DISTINCT` distinct values it is not run
(k̂ = 1). The result's ``note`` says what was done.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.progress import CancelCheck
from .._base.random import RandomStateLike, check_random_state
from ..geometry.torus import TWO_PI
from ._excess_mass_kernel import excess_mass_statistic
from .bandwidth import check_period, check_periodic_sample
from .excess_mass import COARSE_LEVELS, FINE_LEVELS, binned_excess_mass, nearest_node_counts
from .mode_null import MixtureNull
from .silverman import (
    DEFAULT_ALPHA,
    DEFAULT_K_MAX,
    DEFAULT_N_BOOT,
    BinnedSample,
    ModeTest,
    binned_critical_bandwidth,
    check_test_parameters,
    coarse_probabilities,
    resample_counts,
    resamples_with_more_modes,
    sequential_mode_count,
    unit_angles,
    with_test_parameters,
)
from .ties import MIN_DISTINCT, continuous_sample, distinct_sample, ties_note

__all__ = [
    "DEFAULT_NULL",
    "NULLS",
    "TEST_WEIGHTS",
    "NullName",
    "StepOutcome",
    "StepPValues",
    "check_null",
    "mode_test",
    "run_step",
    "step_p_values",
]


#: The weighted Bonferroni split of a step's level: Silverman's p_k, the excess mass.
TEST_WEIGHTS = (0.7, 0.3)
NullName = Literal["critical_kde", "mixture"]
#: The densities a step can resample (module docstring), the default first.
NULLS: tuple[NullName, ...] = ("critical_kde", "mixture")
#: The density resampled unless another is asked for.
DEFAULT_NULL: NullName = "critical_kde"
#: Bootstrap resamples handled at once (memory: chunk × grid doubles).
_BOOT_CHUNK = 100


class StepPValues(tuple):
    """(Silverman's p_k, the excess-mass p-value) of one step."""

    __slots__ = ()

    @property
    def bandwidth(self) -> float:
        return float(self[0])

    @property
    def excess_mass(self) -> float:
        return float(self[1])

    @property
    def step(self) -> float:
        """The step's p-value: min(1, p_k / 0.7, p_EM / 0.3), the weighted Bonferroni
        combination of :data:`TEST_WEIGHTS`."""
        return min(1.0, self.bandwidth / TEST_WEIGHTS[0], self.excess_mass / TEST_WEIGHTS[1])


def step_p_values(
    sample: BinnedSample, theta: NDArray[np.float64], h_k: float, k: int, n_boot: int,
    rng: np.random.Generator, check: CancelCheck | None = None,
    density: NDArray[np.float64] | None = None,
) -> StepPValues:
    """The two p-values of "at most k modes" from the same ``n_boot`` resamples of
    ``density`` (on the test's grid; f_{h_k} if None), each as (1 + count) / (1 + B).

    ``sample`` is ``theta`` (angles of the unit circle) binned; resamples are drawn on the
    coarse grid of :func:`~stpca_gui.core.circstats.silverman.coarse_probabilities`, where
    the sample's excess mass is computed too, each point at its nearest node.
    """
    if density is None:
        density = sample.density(h_k)
    probabilities = coarse_probabilities(density, h_k)
    cells = probabilities.size
    counts = nearest_node_counts(theta, cells)
    observed = excess_mass_statistic(counts / counts.sum(), int(k), COARSE_LEVELS,
                                     FINE_LEVELS)
    more_modes = 0
    more_mass = 0
    for start in range(0, int(n_boot), _BOOT_CHUNK):
        if check is not None:
            check()
        rows = min(_BOOT_CHUNK, int(n_boot) - start)
        resampled = resample_counts(probabilities, sample.n, rows, rng)
        more_modes += resamples_with_more_modes(resampled, h_k, k)
        more_mass += int(np.count_nonzero(binned_excess_mass(resampled, k) >= observed))
    scale = 1.0 / (int(n_boot) + 1.0)
    return StepPValues(((more_modes + 1) * scale, (more_mass + 1) * scale))


class StepOutcome(NamedTuple):
    """One step "at most k modes": the critical bandwidth its null was built from, its two
    p-values, and whether the mixture could not be projected (f_{h_k} resampled instead)."""

    bandwidth: float
    p_values: StepPValues
    fell_back: bool


def run_step(sample: BinnedSample, theta: NDArray[np.float64], k: int, n_boot: int,
             rng: np.random.Generator, mixtures: MixtureNull | None,
             check: CancelCheck | None = None) -> StepOutcome:
    """The step "at most k modes" of :func:`mode_test`: resampling the mixture null of
    ``mixtures``, or f_{h_k} if it is None."""
    if mixtures is None:
        h_k = binned_critical_bandwidth(sample, k, check)
        return StepOutcome(h_k, step_p_values(sample, theta, h_k, k, n_boot, rng, check), False)
    h_k = mixtures.critical_bandwidth(k, check)
    choice = mixtures.for_step(k, check)
    p = step_p_values(sample, theta, h_k, k, n_boot, rng, check, choice.probabilities)
    return StepOutcome(h_k, p, choice.fell_back)


@with_test_parameters
def mode_test(
    angles: ArrayLike,
    period: float = TWO_PI,
    *,
    alpha: float = DEFAULT_ALPHA,
    k_max: int = DEFAULT_K_MAX,
    n_boot: int = DEFAULT_N_BOOT,
    random_state: RandomStateLike = 0,
    check: CancelCheck | None = None,
    null: NullName = DEFAULT_NULL,
) -> ModeTest:
    """Sequential test for the number of modes of a periodic sample (module docstring).

    Parameters
    ----------
    <test parameters>
    null : {"critical_kde", "mixture"}, default "critical_kde"
        The density each step resamples: the KDE at the critical bandwidth (conservative)
        or the von Mises mixture on the null's boundary (size near α in 17 of 18 measured
        cells and more power; a false extra mode, possibly of one lone point, in about α
        of samples: module docstring).

    Returns
    -------
    ModeTest
        ``method="excess_mass"``: ``raw_p_values`` holds Silverman's p_k and
        ``excess_mass_p_values`` the excess-mass p-value of every step,
        ``critical_bandwidths`` the h_k they were drawn from.
    """
    check_test_parameters(alpha, k_max, n_boot)
    check_null(null)
    period = check_period(period)
    distinct = distinct_sample(check_periodic_sample(angles), period)
    record = {"alpha": float(alpha), "calibration": null, "n_boot": int(n_boot),
              "k_max": int(k_max), "period": period, "n": distinct.n,
              "method": "excess_mass", "step_weights": TEST_WEIGHTS,
              "n_distinct": distinct.n_distinct if distinct.has_ties else None,
              "note": ties_note(distinct.n, distinct.n_distinct)}
    if distinct.n_distinct < MIN_DISTINCT:
        return ModeTest(n_modes=1, p_values=(), critical_bandwidths=(), **record)
    tested = continuous_sample(distinct, period)
    record["note"] = tested.note
    theta = unit_angles(tested.values, period)
    sample = BinnedSample(theta)
    rng = check_random_state(random_state)
    mixtures = MixtureNull(sample, theta) if null == "mixture" else None
    fell_back: list[int] = []
    bandwidths: list[float] = []
    silverman: list[float] = []
    excess: list[float] = []

    def step(k: int) -> float:
        h_k, p, fell = run_step(sample, theta, k, n_boot, rng, mixtures, check)
        if fell:
            fell_back.append(k)
        bandwidths.append(h_k * period / TWO_PI)
        silverman.append(p.bandwidth)
        excess.append(p.excess_mass)
        return p.step

    n_modes, steps = sequential_mode_count(step, alpha, k_max)
    if fell_back:
        record["note"] = " ".join(filter(None, [record["note"], _fallback_note(fell_back)]))
    return ModeTest(n_modes=n_modes, p_values=steps, critical_bandwidths=tuple(bandwidths),
                    raw_p_values=tuple(silverman), excess_mass_p_values=tuple(excess),
                    **record)


def check_null(null: object) -> None:
    """Refuse a ``null`` that is not one of :data:`NULLS`, naming it."""
    if not isinstance(null, str) or null not in NULLS:
        raise ValueError(f"unknown null {str(null)[:40]!r}; use one of {', '.join(NULLS)}")


def _fallback_note(steps: list[int]) -> str:
    named = ", ".join(f"at most {k}" for k in steps)
    return (f"Step{'s' if len(steps) > 1 else ''} {named}: no von Mises mixture with that "
            "many modes was found near the sample's fit, so the step resampled the KDE at the "
            "critical bandwidth (conservative).")
