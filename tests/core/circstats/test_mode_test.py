"""The product's test for the number of modes: excess mass and critical bandwidth from one
smoothed bootstrap (issue 34), with ties (issue 29, item 3)."""

from __future__ import annotations

import dataclasses
import inspect
import warnings

import numpy as np
import pytest

from stpca_gui.core import FitCancelled
from stpca_gui.core.circstats.excess_mass import excess_mass
from stpca_gui.core.circstats.mode_test import TEST_WEIGHTS, mode_test, step_p_values
from stpca_gui.core.circstats.silverman import (
    BinnedSample,
    binned_critical_bandwidth,
    coarse_probabilities,
    silverman_mode_test,
    unit_angles,
)

TWO_PI = 2.0 * np.pi


def _two_bumps(rng: np.random.Generator, n: int) -> np.ndarray:
    """Two overlapping bumps, so that both p-values of "one mode" lie well inside (0, 1)."""
    small = n // 4
    return np.concatenate([rng.vonmises(-0.5, 6.0, n - small), rng.vonmises(0.9, 6.0, small)])


def _slow_step_p_values(x: np.ndarray, draws: int, rng: np.random.Generator
                        ) -> tuple[float, float]:
    """Step 1 by the textbook smoothed bootstrap: resample the points, add wrapped-normal
    noise of sd h₁ (no grid, no Poisson counts), and count the resample's modes at h₁ and its
    excess mass on the test's grid."""
    theta = unit_angles(x, TWO_PI)
    sample = BinnedSample(theta)
    h_1 = binned_critical_bandwidth(sample, 1)
    cells = coarse_probabilities(sample.density(h_1), h_1).size
    observed = excess_mass(theta, 1, cells=cells)
    more_modes = more_mass = 0
    for _ in range(draws):
        y = np.mod(theta[rng.integers(0, x.size, x.size)] + h_1 * rng.standard_normal(x.size),
                   TWO_PI)
        more_modes += BinnedSample(y).modes(h_1) > 1
        more_mass += excess_mass(y, 1, cells=cells) >= observed
    return more_modes / draws, more_mass / draws


@pytest.mark.parametrize(("n", "seed"), [(200, 200), (6000, 0)])
def test_step_p_values_match_a_slow_smoothed_bootstrap(n, seed):
    """The grid resamples (multinomial below the grid size, Poisson counts above it) give the
    p-values of the direct smoothed bootstrap of points, within Monte Carlo error."""
    rng = np.random.default_rng(seed)
    x = _two_bumps(rng, n) if n < 1000 else rng.vonmises(0.3, 1.0, n)
    theta = unit_angles(x, TWO_PI)
    sample = BinnedSample(theta)
    h_1 = binned_critical_bandwidth(sample, 1)
    fast = step_p_values(sample, theta, h_1, 1, 2000, np.random.default_rng(1))
    slow = _slow_step_p_values(x, 300, np.random.default_rng(2))
    for fast_p, slow_p in zip(fast, slow, strict=True):
        assert 0.02 < slow_p < 0.98  # an informative case
        se = np.sqrt(slow_p * (1 - slow_p) / 300 + fast_p * (1 - fast_p) / 2000)
        assert abs(fast_p - slow_p) < 4 * se


def test_three_clusters_are_three_and_one_mode_is_one():
    rng = np.random.default_rng(1)
    three = np.concatenate([rng.vonmises(c, 12.0, 200) for c in (-2.0, 0.2, 2.3)])
    found = mode_test(three, n_boot=200)
    assert found.n_modes == 3 and found.method == "excess_mass"
    assert found.p_values[1] < 0.05 <= found.p_values[2]
    assert len(found.raw_p_values) == len(found.excess_mass_p_values) == 3
    w_bandwidth, w_mass = TEST_WEIGHTS
    for step, p_bandwidth, p_mass in zip(found.p_values, found.raw_p_values,
                                         found.excess_mass_p_values, strict=True):
        assert step == pytest.approx(min(1.0, p_bandwidth / w_bandwidth, p_mass / w_mass))
    one = mode_test(rng.vonmises(0.0, 2.0, 2000), n_boot=200)
    assert one.n_modes == 1 and "no cluster structure" in one.verdict()


def test_modes_spread_evenly_round_the_circle_are_found():
    """Four equal modes 1.5 rad apart (n = 500): f_{h₁} is nearly flat, Silverman's test alone
    sees one mode; the excess mass sees four even when calibrated by resampling f_{h₁}
    (power 1.00 against 0.09 before), and with the mixture null both parts see them."""
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.vonmises(c, 8.0, 125) for c in (-2.25, -0.75, 0.75, 2.25)])
    assert silverman_mode_test(x, n_boot=200).n_modes == 1
    smoothed = mode_test(x, n_boot=200)
    assert smoothed.n_modes == 4 and smoothed.calibration == "critical_kde"
    assert smoothed.excess_mass_p_values[0] < 0.01 < smoothed.raw_p_values[0]
    found = mode_test(x, n_boot=200, null="mixture")
    assert found.n_modes == 4 and found.calibration == "mixture"
    assert max(found.excess_mass_p_values[0], found.raw_p_values[0]) < 0.01


def test_a_small_distant_mode_is_found_by_the_bandwidth_part():
    """A 10 % mode 1.6 rad from the main one: the critical bandwidth grows with the distance
    a bump must travel to merge, while joining it costs little excess mass."""
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.vonmises(-0.8, 8.0, 1800), rng.vonmises(0.8, 8.0, 200)])
    found = mode_test(x, n_boot=200)
    assert found.n_modes == 2
    assert found.raw_p_values[0] < 0.01


def test_the_test_is_reproducible_and_cancellable():
    x = _two_bumps(np.random.default_rng(4), 300)
    assert mode_test(x, n_boot=100) == mode_test(x, n_boot=100)

    def stop() -> None:
        raise FitCancelled("stop")

    with pytest.raises(FitCancelled):
        mode_test(x, check=stop)


@pytest.mark.parametrize("bad", [{"alpha": 0.0}, {"alpha": 1.0}, {"k_max": 0}, {"n_boot": 0}])
def test_bad_parameters_are_refused(bad):
    with pytest.raises(ValueError):
        mode_test(np.linspace(0, 6, 50), **bad)


# ----------------------------------------------------------------------------------- ties
def test_values_on_two_points_are_not_tested_and_say_so():
    """Issue 29: 1000 values on 2 points gave 8 modes (Silverman's test, every step p ≤ 0.0025)."""
    x = np.r_[np.full(500, -1.0), np.full(500, 1.2)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = mode_test(x)
    assert found.n_modes == 1 and found.p_values == () and found.n_distinct == 2
    assert "only 2 distinct values among 1000" in found.note
    assert "not run" in found.verdict()


def test_a_sample_repeated_ten_times_is_tested_as_once():
    x = _two_bumps(np.random.default_rng(6), 300)
    once = mode_test(x)
    tenfold = mode_test(np.tile(x, 10))
    assert tenfold.n == 3000 and tenfold.n_distinct == 300
    assert "2700 of 3000 values repeat another" in tenfold.note
    assert dataclasses.replace(tenfold, n=300, n_distinct=None, note="") == once


def test_both_mode_tests_document_every_parameter_they_take():
    # Their shared numpydoc entries are filled in from one text (silverman.with_test_parameters).
    for test in (mode_test, silverman_mode_test):
        doc = test.__doc__
        assert "<test parameters>" not in doc
        for name in inspect.signature(test).parameters:
            assert f"\n    {name} : " in doc, (test.__name__, name)
