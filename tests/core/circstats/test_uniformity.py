"""Tests of the Watson, Giné F_n and Projected Anderson–Darling tests of circular uniformity."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from stpca_gui.core.circstats import uniformity as uf
from stpca_gui.core.circstats._uniformity_kernel import pair_sums_parallel, pair_sums_serial
from stpca_gui.core.circstats.uniformity import (
    UniformityTest,
    asymptotic_sf,
    gine_fn_statistic,
    gine_fn_test,
    pad_statistic,
    pad_test,
    sobolev_weights,
    uniformity_tests,
    watson_sf,
    watson_statistic,
    watson_test,
)
from stpca_gui.datasets import load_sunspots

TWO_PI = 2.0 * np.pi


def shortest_angles(theta: np.ndarray) -> np.ndarray:
    d = np.abs(theta[:, None] - theta[None, :])
    psi = np.minimum(np.mod(d, TWO_PI), TWO_PI - np.mod(d, TWO_PI))
    return psi[np.triu_indices(theta.size, 1)]


def direct_statistics(theta: np.ndarray) -> dict[str, float]:
    """The sphunif definitions written out with numpy (uncentred pair sums)."""
    n = theta.size
    psi = shortest_angles(theta)
    gine = 1.5 * n - 4 / (np.pi * n) * psi.sum() - np.pi / (2 * n) * np.sin(psi).sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        xlogx = np.where(psi > 0, psi * np.log(psi), 0.0)
    pad = (n - 2 * (n - 1) * np.log(TWO_PI)
           + 2 / (np.pi * n) * np.sum(xlogx + (TWO_PI - psi) * np.log(TWO_PI - psi)))
    u = np.sort(np.mod(theta, TWO_PI)) / TWO_PI
    i = np.arange(1, n + 1)
    watson = np.sum((u - (2 * i - 1) / (2 * n)) ** 2) - n * (u.mean() - 0.5) ** 2 + 1 / (12 * n)
    return {"Watson": watson, "Gine_Fn": gine, "PAD": pad}


def watson_pair_sum(theta: np.ndarray) -> float:
    n = theta.size
    psi = shortest_angles(theta)
    return 1 / 12 + 2 / n * np.sum(1 / 12 - psi * (TWO_PI - psi) / (8 * np.pi**2))


# --- Statistics -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 7, 40])
def test_statistics_match_direct_definitions(n: int) -> None:
    theta = np.random.default_rng(n).uniform(-np.pi, np.pi, n)
    expected = direct_statistics(theta)
    assert watson_statistic(theta) == pytest.approx(expected["Watson"], abs=1e-13)
    assert watson_statistic(theta) == pytest.approx(watson_pair_sum(theta), abs=1e-13)
    assert gine_fn_statistic(theta) == pytest.approx(expected["Gine_Fn"], abs=1e-12)
    assert pad_statistic(theta) == pytest.approx(expected["PAD"], abs=1e-12)


def test_parallel_pair_sums_match_serial() -> None:
    theta = np.random.default_rng(1).uniform(0, TWO_PI, 1001)
    serial = pair_sums_serial(theta)
    parallel = pair_sums_parallel(theta)
    assert np.allclose(serial, parallel, rtol=1e-12, atol=1e-8)
    expected = direct_statistics(theta)
    assert gine_fn_statistic(theta) == pytest.approx(expected["Gine_Fn"], abs=1e-10)
    assert pad_statistic(theta) == pytest.approx(expected["PAD"], abs=1e-10)


def test_ties_take_the_continuous_limit() -> None:
    theta = np.random.default_rng(2).uniform(0, TWO_PI, 60)
    tied = np.concatenate([theta, theta[:10]])
    jittered = np.concatenate([theta, theta[:10] + 1e-12])
    for statistic in (watson_statistic, gine_fn_statistic, pad_statistic):
        assert statistic(tied) == pytest.approx(statistic(jittered), abs=1e-9)


@pytest.mark.parametrize("name", ["Watson", "Gine_Fn", "PAD"])
def test_statistics_are_sobolev_v_statistics(name: str) -> None:
    """T = Σ_k w_k (2/n)|Σ_j exp(i k θ_j)|², which fixes the weights of the limit law."""
    theta = np.random.default_rng(3).uniform(0, TWO_PI, 25)
    k = np.arange(1, 200_001)
    weights = sobolev_weights(name, k.size)
    power = np.empty(k.size)
    for start in range(0, k.size, 20_000):
        block = k[start:start + 20_000, None] * theta[None, :]
        power[start:start + 20_000] = np.cos(block).sum(1) ** 2 + np.sin(block).sum(1) ** 2
    series = float(np.sum(weights * 2 * power / theta.size))
    statistic = {"Watson": watson_statistic, "Gine_Fn": gine_fn_statistic,
                 "PAD": pad_statistic}[name](theta)
    assert series == pytest.approx(statistic, abs=1e-3)


def test_weights_sum_to_the_null_means() -> None:
    for name, mean in (("Watson", 1 / 12), ("Gine_Fn", 1.5), ("PAD", 1.0)):
        weights = sobolev_weights(name, 1_000_000)
        assert 2 * weights.sum() == pytest.approx(mean, abs=1e-4)
    # Explicit first weights.
    assert sobolev_weights("Gine_Fn", 2) == pytest.approx([4 / np.pi**2, 1 / 6])
    with pytest.raises(ValueError):
        sobolev_weights("Kuiper", 3)  # type: ignore[arg-type]


def test_invariance_under_rotation_and_reflection() -> None:
    theta = np.random.default_rng(4).vonmises(0.5, 0.7, 300)
    base = uniformity_tests(theta)
    for transformed in (theta + 1.234, -theta, 2.0 - theta, theta + 100 * np.pi):
        other = uniformity_tests(transformed)
        for name in base:
            assert other[name].statistic == pytest.approx(base[name].statistic, abs=1e-10)
            assert other[name].p_value == pytest.approx(base[name].p_value, abs=1e-9)


# --- Null distributions -----------------------------------------------------------------------


def test_imhof_matches_watson_closed_form() -> None:
    series = uf._imhof_series("Watson", 10_000, True)
    for x in (0.02, 0.05, 0.1, 0.187, 0.3, 0.6):
        assert uf._imhof_sf(x, series) == pytest.approx(watson_sf(x), abs=1e-10)


def test_watson_quantiles() -> None:
    # Classical asymptotic critical values of U² (Stephens 1970): 0.152, 0.187, 0.267.
    assert watson_sf(0.152) == pytest.approx(0.10, abs=2e-3)
    assert watson_sf(0.187) == pytest.approx(0.05, abs=2e-3)
    assert watson_sf(0.267) == pytest.approx(0.01, abs=1e-3)
    assert watson_sf(0.0) == 1.0


@pytest.mark.parametrize("name", ["Gine_Fn", "PAD"])
def test_asymptotic_survival_function_is_a_tail_probability(name: str) -> None:
    xs = np.array([0.05, 0.3, 0.8, 1.5, 2.5, 4.0, 8.0])
    values = np.array([asymptotic_sf(name, x) for x in xs])  # type: ignore[arg-type]
    assert np.all((values >= 0) & (values <= 1))
    assert np.all(np.diff(values) < 0)
    assert values[0] > 0.999
    assert values[-1] < 1e-3
    shifted = asymptotic_sf(name, 1.5, tail_correction=True)  # type: ignore[arg-type]
    assert shifted == pytest.approx(values[3], abs=2e-4)
    assert shifted >= values[3]


def test_monte_carlo_agrees_with_asymptotics() -> None:
    rng = np.random.default_rng(5)
    theta = rng.vonmises(0.0, 0.15, 400)
    asym = uniformity_tests(theta)
    mc = uniformity_tests(theta, n_replicates=1000, random_state=6, calibration="monte_carlo")
    for name in asym:
        assert mc[name].method == "Monte Carlo"
        assert mc[name].n_replicates == 1000
        # The statistic's pair sums are split by the kernel thread count, so its last
        # bits may differ between machines (never between runs on one machine).
        assert mc[name].statistic == pytest.approx(asym[name].statistic, rel=1e-12)
        assert mc[name].p_value == pytest.approx(asym[name].p_value, abs=0.05)
    again = uniformity_tests(theta, n_replicates=1000, random_state=6,
                             calibration="monte_carlo")
    assert all(again[name].p_value == mc[name].p_value for name in mc)


# --- Tests ------------------------------------------------------------------------------------


def test_result_objects_and_single_tests() -> None:
    theta = np.random.default_rng(7).uniform(-np.pi, np.pi, 150)
    results = uniformity_tests(theta)
    assert list(results) == ["Watson", "Gine_Fn", "PAD"]
    for name, result in results.items():
        assert isinstance(result, UniformityTest)
        assert result.name == name
        assert result.method == "asymptotic"
        assert result.n_replicates is None
        assert 0.0 <= result.p_value <= 1.0
    assert watson_test(theta) == results["Watson"]
    assert gine_fn_test(theta) == results["Gine_Fn"]
    assert pad_test(theta) == results["PAD"]
    mc = pad_test(theta, n_replicates=99, random_state=1, calibration="monte_carlo")
    assert mc.method == "Monte Carlo" and mc.n_replicates == 99
    assert 0.01 <= mc.p_value <= 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        results["PAD"].p_value = 0.0  # type: ignore[misc]


def test_power_against_von_mises() -> None:
    theta = np.random.default_rng(8).vonmises(1.0, 1.0, 200)
    for result in uniformity_tests(theta).values():
        assert result.p_value < 0.01


def test_invalid_input() -> None:
    with pytest.raises(ValueError):
        uniformity_tests([1.0])
    with pytest.raises(ValueError):
        uniformity_tests([0.0, np.inf, 1.0])
    with pytest.raises(ValueError):
        uniformity_tests([0.0, 1.0, 2.0], calibration="bootstrap")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        uniformity_tests([0.0, 1.0, 2.0], n_replicates=0, calibration="monte_carlo")


def test_sunspots_cycle_23_matches_the_paper() -> None:
    theta = load_sunspots(cycle=23).theta
    assert theta.size == 5373
    theta = np.mod(theta + np.pi, TWO_PI) - np.pi
    results = uniformity_tests(theta)
    # Paper (sphunif::unif_test, asymptotic p-values): Giné 0.3215, Watson 0.3595.
    assert results["Watson"].p_value == pytest.approx(0.3595, abs=1e-4)
    assert results["Gine_Fn"].p_value == pytest.approx(0.3215, abs=1e-4)
    # PAD: 0.318 here; the paper's 0.7554 comes from sphunif zeroing the pair terms of tied
    # longitudes (429 tied pairs in this sample).
    assert results["PAD"].p_value == pytest.approx(0.318, abs=1e-3)


# --- PAD with tied data: sphunif's convention --------------------------------------------------


def sphunif_pad(theta: np.ndarray) -> float:
    """sphunif's PAD written out: ψ from the dot product of (cos, sin) computed with libm and
    clamped to [-1, 1], and NaN pair terms (ψ = 0 exactly) replaced by 0."""
    cos = np.array([math.cos(t) for t in theta])
    sin = np.array([math.sin(t) for t in theta])
    i, j = np.triu_indices(theta.size, 1)
    psi = np.arccos(np.clip(cos[i] * cos[j] + sin[i] * sin[j], -1.0, 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = psi * np.log(psi) + (TWO_PI - psi) * np.log(TWO_PI - psi)
    terms = np.where(np.isnan(terms), 0.0, terms)
    n = theta.size
    return 1 + 2 / (np.pi * n) * np.sum(terms - (TWO_PI * np.log(TWO_PI) - np.pi))


def tied_sample(n: int, seed: int) -> np.ndarray:
    """Angles recorded to 0.5° (many ties), in [0, 2π) as rotasym stores longitudes, with
    ties at 0 and just below 2π so that a run of ties crosses the seam."""
    degrees = np.random.default_rng(seed).integers(0, 720, n) / 2.0
    degrees[:4] = [0.0, 0.0, 359.5, 359.5]
    return degrees / 180 * np.pi


def test_sphunif_ties_drop_exactly_the_pairs_whose_psi_rounds_to_zero() -> None:
    theta = tied_sample(800, 3)
    cos = np.array([math.cos(t) for t in theta])
    sin = np.array([math.sin(t) for t in theta])
    i, j = np.triu_indices(theta.size, 1)
    zero = cos[i] * cos[j] + sin[i] * sin[j] >= 1.0
    expected = {(a, b) for a, b in zip(i[zero], j[zero], strict=True)}
    dropped = {tuple(pair) for pair in uf.sphunif_dropped_pairs(theta).tolist()}
    assert dropped == expected
    tied = int(np.sum(theta[i] == theta[j]))
    # Some tied pairs round to exactly 1 and some do not: the case the convention is about.
    assert 0 < len(dropped) < tied


def test_sphunif_pad_matches_the_written_out_definition() -> None:
    theta = tied_sample(500, 4)
    # Up to the tied pairs sphunif keeps: their ψ is arccos(1 − 2⁻⁵³) ≈ 1.5e-8 there, 0 here.
    assert pad_statistic(theta, ties="sphunif") == pytest.approx(sphunif_pad(theta), abs=1e-6)
    # The default counts every tie by its limit, so it is larger (each dropped pair would
    # have added 2π log 2π > 0).
    assert pad_statistic(theta) > pad_statistic(theta, ties="sphunif")


def test_without_ties_both_conventions_agree() -> None:
    theta = np.random.default_rng(5).uniform(0, TWO_PI, 300)
    assert uf.sphunif_dropped_pairs(theta).shape == (0, 2)
    assert pad_statistic(theta, ties="sphunif") == pad_statistic(theta)


def test_sphunif_ties_change_only_pad_and_only_the_observed_statistic() -> None:
    theta = tied_sample(300, 6)
    for calibration in ("asymptotic", "monte_carlo"):
        limit = uniformity_tests(theta, n_replicates=200, random_state=1,
                                 calibration=calibration)
        sphunif = uniformity_tests(theta, n_replicates=200, random_state=1,
                                   calibration=calibration, pad_ties="sphunif")
        for name in ("Watson", "Gine_Fn"):
            # The same test, up to the summation order of the parallel pair sums (the
            # threads' chunks may finish in any order: last-bit differences).
            same, other = limit[name], sphunif[name]
            assert dataclasses.replace(other, statistic=same.statistic,
                                       p_value=same.p_value) == same
            assert other.statistic == pytest.approx(same.statistic, rel=1e-12)
            assert other.p_value == pytest.approx(same.p_value, rel=1e-9, abs=1e-12)
        assert sphunif["PAD"].statistic == pytest.approx(pad_statistic(theta, "sphunif"))
        assert sphunif["PAD"].p_value >= limit["PAD"].p_value
    with pytest.raises(ValueError, match="tie convention"):
        uniformity_tests(theta, pad_ties="R")


def test_sphunif_ties_reproduce_the_papers_pad_p_value() -> None:
    """The paper's 0.7554 (Table 1) is sphunif on rotasym's longitudes (lon / 180 · π, full
    precision, in [0, 2π)): 355 of the 429 tied pairs round to ψ = 0 and are dropped."""
    sunspots = load_sunspots(cycle=23)
    theta = sunspots.longitude_degrees / 180 * np.pi
    i, j = np.triu_indices(theta.size, 1)
    assert int(np.sum(theta[i] == theta[j])) == uf.tied_pair_count(theta) == 429
    assert len(uf.sphunif_dropped_pairs(theta)) == 355
    results = uniformity_tests(theta, pad_ties="sphunif")
    assert results["PAD"].details == "sphunif ties: 355 of 429 tied pairs dropped"
    assert results["PAD"].p_value == pytest.approx(0.7554, abs=5e-5)
    assert results["Watson"].p_value == pytest.approx(0.3595, abs=1e-4)
    assert uniformity_tests(theta)["PAD"].p_value == pytest.approx(0.3181, abs=1e-4)


@pytest.mark.slow
def test_size_under_uniformity() -> None:
    alpha = 0.05
    rejections = dict.fromkeys(("Watson", "Gine_Fn", "PAD"), 0)
    seeds = 200
    for seed in range(seeds):
        theta = np.random.default_rng(1000 + seed).uniform(0, TWO_PI, 100)
        for name, result in uniformity_tests(theta).items():
            rejections[name] += result.p_value < alpha
    for count in rejections.values():
        # Binomial(200, 0.05): mean 10, sd 3.1.
        assert 2 <= count <= 20
