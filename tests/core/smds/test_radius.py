"""Tests for the Wasserstein radius r* (eq. (wasser)) and the random-state helper."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from stpca_gui.core._base.random import check_random_state
from stpca_gui.core.smds import radius as radius_module
from stpca_gui.core.smds.radius import (
    sample_sorted_distances,
    streamed_weighted_median,
    wasserstein_objective,
    wasserstein_radius,
    weighted_median,
)

# ----------------------------------------------------------------------------- random state


def test_check_random_state_accepts_none_int_seedsequence_generator() -> None:
    assert isinstance(check_random_state(None), np.random.Generator)
    a = check_random_state(7).standard_normal(5)
    b = check_random_state(np.int64(7)).standard_normal(5)
    np.testing.assert_array_equal(a, b)
    c = check_random_state(np.random.SeedSequence(7)).standard_normal(5)
    np.testing.assert_array_equal(a, c)
    g = np.random.default_rng(3)
    assert check_random_state(g) is g


@pytest.mark.parametrize("bad", [True, 1.5, "0", np.random.RandomState(0), [1, 2]])
def test_check_random_state_rejects_other_types(bad: object) -> None:
    with pytest.raises(TypeError):
        check_random_state(bad)  # type: ignore[arg-type]


def test_check_random_state_rejects_negative_seed() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        check_random_state(-1)


# ---------------------------------------------------------------------------- weighted median


def _brute_force_argmin(values: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """Smallest minimiser of Σ w|v - r| over the candidate set {v_k} (where it is attained)."""
    cand = np.sort(values)
    costs = np.array([np.sum(weights * np.abs(values - c)) for c in cand])
    best = costs.min()
    return float(cand[np.flatnonzero(costs <= best * (1 + 1e-12) + 1e-15)[0]]), float(best)


def test_weighted_median_small_cases() -> None:
    assert weighted_median([3.0, 1.0, 2.0], [1.0, 1.0, 1.0]) == 2.0
    # Heavy weight pulls the median.
    assert weighted_median([1.0, 2.0, 10.0], [1.0, 1.0, 5.0]) == 10.0
    # Exact half: every r in [1, 2] minimises; the lower end is returned.
    assert weighted_median([2.0, 1.0], [1.0, 1.0]) == 1.0
    # Zero weights are ignored.
    assert weighted_median([0.0, 5.0, 7.0], [0.0, 1.0, 0.0]) == 5.0
    # Ties in the values.
    assert weighted_median([4.0, 4.0, 4.0, 9.0], [1.0, 1.0, 1.0, 2.0]) == 4.0


def test_weighted_median_matches_brute_force() -> None:
    rng = np.random.default_rng(11)
    for _ in range(50):
        k = int(rng.integers(1, 40))
        v = np.round(rng.normal(size=k), 1)  # rounding creates ties
        w = rng.exponential(size=k) * (rng.random(k) > 0.2)
        if w.sum() == 0:
            w[0] = 1.0
        r = weighted_median(v, w)
        r_bf, best = _brute_force_argmin(v, w)
        assert np.sum(w * np.abs(v - r)) <= best * (1 + 1e-12) + 1e-15
        assert r == pytest.approx(r_bf)


def test_weighted_median_is_scale_equivariant_and_weight_scale_invariant() -> None:
    rng = np.random.default_rng(5)
    v, w = rng.gamma(2.0, size=101), rng.random(101)
    m = weighted_median(v, w)
    assert weighted_median(3.5 * v, w) == pytest.approx(3.5 * m)
    assert weighted_median(v, 1e3 * w) == m
    assert weighted_median(v + 2.0, w) == pytest.approx(m + 2.0)


@pytest.mark.parametrize(
    ("values", "weights"),
    [([], []), ([1.0, 2.0], [1.0]), ([1.0], [-1.0]), ([1.0], [0.0]), ([np.nan], [1.0])],
)
def test_weighted_median_rejects_bad_input(values: list, weights: list) -> None:
    with pytest.raises(ValueError):
        weighted_median(values, weights)


def _chunked(
    values: np.ndarray, weights: np.ndarray, size: int
) -> tuple[Callable[[], Iterator[tuple[np.ndarray, np.ndarray]]], list[int]]:
    """Replayable chunks of (values, weights) and a list that records every pass."""
    passes: list[int] = []

    def chunks() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        passes.append(1)
        for start in range(0, values.size, size):
            yield values[start : start + size], weights[start : start + size]

    return chunks, passes


@pytest.mark.parametrize("budget", [2, 3, 7, 50, 10_000])
def test_streamed_weighted_median_equals_in_memory(budget: int) -> None:
    rng = np.random.default_rng(budget)
    cases = [
        (rng.gamma(2.0, size=500), rng.random(500)),
        # Clustered values closer than any bin width, plus exact ties and huge outliers.
        (
            np.concatenate([1.0 + 1e-13 * rng.random(300), np.full(50, 2.0), [1e300, 1e12]]),
            np.concatenate([rng.random(300), np.ones(50), [5.0, 1.0]]),
        ),
        (np.full(40, 3.25), rng.random(40)),  # all equal
        (np.round(rng.exponential(size=300), 1), rng.integers(0, 3, 300).astype(float)),
    ]
    for v, w in cases:
        chunks, passes = _chunked(v, w, 37)
        assert streamed_weighted_median(chunks, budget) == weighted_median(v, w)
        if budget >= v.size or np.all(v == v[0]):
            assert len(passes) == 1
        else:
            assert len(passes) >= 2


def test_streamed_weighted_median_rejects_zero_total_weight() -> None:
    chunks, _ = _chunked(np.ones(5), np.zeros(5), 2)
    with pytest.raises(ValueError):
        streamed_weighted_median(chunks, 2)


# --------------------------------------------------------------------------------- sampling


@pytest.mark.parametrize("d", [1, 2, 3])
def test_sampled_distances_are_sorted_and_in_range(d: int) -> None:
    t, s = sample_sorted_distances(d, 30, random_state=0)
    assert t.shape == s.shape == (30 * 29 // 2,)
    assert np.all(np.diff(t) >= 0) and np.all(np.diff(s) >= 0)
    assert t[0] >= 0 and t[-1] <= np.pi * np.sqrt(d) + 1e-12
    assert s[0] >= 0 and s[-1] <= np.pi + 1e-12


@pytest.mark.parametrize("d", [1, 2, 3])
def test_sphere_points_are_uniform(d: int) -> None:
    # For uniform points on S^d, E[cos² δ] = 1/(d+1). Uniform hyperspherical angles (a
    # common mistake) give 0.375 instead of 1/3 for d = 2; observed sd here is < 0.003.
    _, s = sample_sorted_distances(d, 200, random_state=1)
    assert np.mean(np.cos(s) ** 2) == pytest.approx(1.0 / (d + 1), abs=0.012)
    assert np.mean(s) == pytest.approx(np.pi / 2, abs=0.03)


def test_torus_distances_d1_are_uniform_on_0_pi() -> None:
    t, _ = sample_sorted_distances(1, 200, random_state=2)
    assert np.mean(t) == pytest.approx(np.pi / 2, abs=0.05)
    assert np.mean(t < np.pi / 2) == pytest.approx(0.5, abs=0.03)


# ----------------------------------------------------------------------- objective / radius


def test_radius_minimises_the_objective_against_a_dense_grid() -> None:
    kw = {"d": 2, "n": 20, "n_rep": 5, "random_state": 3}
    r_star = wasserstein_radius(**kw)
    grid = np.linspace(0.5, 3.0, 2501)
    f_grid = wasserstein_objective(grid, **kw)
    f_star = wasserstein_objective(r_star, **kw)
    assert f_star <= f_grid.min() + 1e-12
    # The objective is convex and piecewise linear: the grid argmin is next to r*.
    assert abs(grid[np.argmin(f_grid)] - r_star) <= grid[1] - grid[0] + 1e-12
    # And r* is a local minimum of the exact objective.
    eps = 1e-6
    assert wasserstein_objective(r_star - eps, **kw) >= f_star
    assert wasserstein_objective(r_star + eps, **kw) >= f_star


def test_objective_is_convex_and_starts_at_mean_torus_distance() -> None:
    kw = {"d": 3, "n": 15, "n_rep": 4, "random_state": 9}
    grid = np.linspace(0.0, 4.0, 401)
    f = wasserstein_objective(grid, **kw)
    assert np.all(np.diff(f, 2) >= -1e-12)
    # At r = 0 the sphere collapses: W1 is the mean torus distance.
    gens = np.random.default_rng(9).spawn(4)
    mean_t = np.mean([sample_sorted_distances(3, 15, g)[0].mean() for g in gens])
    assert f[0] == pytest.approx(mean_t, rel=1e-12)
    assert isinstance(wasserstein_objective(1.0, **kw), float)
    assert wasserstein_objective(np.ones((2, 3)), **kw).shape == (2, 3)


@pytest.mark.parametrize(
    ("d", "n", "n_rep", "budget"), [(2, 20, 5, 500), (3, 30, 7, 64), (1, 10, 3, 2)]
)
def test_bounded_memory_path_gives_the_identical_result(
    d: int, n: int, n_rep: int, budget: int
) -> None:
    full = wasserstein_radius(d, n, n_rep, random_state=4)
    streamed = wasserstein_radius(d, n, n_rep, random_state=4, max_pairs_in_memory=budget)
    assert streamed == full


def test_radius_is_reproducible_and_seed_dependent() -> None:
    a = wasserstein_radius(2, 30, 5, random_state=1)
    assert wasserstein_radius(2, 30, 5, random_state=1) == a
    assert wasserstein_radius(2, 30, 5, random_state=np.random.default_rng(1)) == a
    assert wasserstein_radius(2, 30, 5, random_state=2) != a


def test_single_pair_is_the_ratio() -> None:
    gen = np.random.default_rng(8).spawn(1)[0]
    t, s = sample_sorted_distances(2, 2, gen)
    assert wasserstein_radius(2, 2, 1, random_state=8) == pytest.approx(t[0] / s[0])


# Observed with n = 100, n_rep = 100 over 200 seeds: d = 1: 1.0000 ± 0.0006,
# d = 2: 1.5153 ± 0.0013, d = 3: 1.8868 ± 0.0016. Tolerances are about 6 sd.
@pytest.mark.parametrize(
    ("d", "expected", "tol"), [(1, 1.0, 0.004), (2, 1.515, 0.008), (3, 1.887, 0.01)]
)
def test_paper_setting_values(d: int, expected: float, tol: float) -> None:
    r = wasserstein_radius(d, n=100, n_rep=100, random_state=2024)
    assert r == pytest.approx(expected, abs=tol)


def test_uniform_angle_points_are_on_the_sphere_with_uniform_angles() -> None:
    from stpca_gui.core.smds.radius import _uniform_angle_points

    x = _uniform_angle_points(np.random.default_rng(3), 20_000, 3)
    assert np.allclose(np.linalg.norm(x, axis=1), 1.0)
    # The first colatitude is uniform on [0, π] (mean π/2, variance π²/12), unlike on the
    # uniform sphere, where cos of it has variance 1/(d+1) = 1/4 rather than 1/2.
    colatitude = np.arccos(x[:, 0])
    assert np.mean(colatitude) == pytest.approx(np.pi / 2, abs=0.03)
    assert np.var(colatitude) == pytest.approx(np.pi**2 / 12, rel=0.03)
    assert np.var(x[:, 0]) == pytest.approx(0.5, abs=0.02)


@pytest.mark.parametrize(("d", "paper"), [(2, 1.47), (3, 1.79)])
def test_uniform_angle_sampling_gives_the_papers_printed_radius(d: int, paper: float) -> None:
    from stpca_gui.core.smds.smds import RADIUS_SEED, default_initial_radius

    r = wasserstein_radius(d, random_state=RADIUS_SEED, sphere_sampling="uniform-angles")
    assert round(r, 2) == paper
    assert default_initial_radius(d, sphere_sampling="uniform-angles") == r
    assert default_initial_radius(d) > r + 0.03  # the exact r* is larger
    with pytest.raises(ValueError, match="sphere_sampling"):
        wasserstein_radius(d, sphere_sampling="gaussian")


def test_d1_theory_r_is_one() -> None:
    # On T^1 and S^1_r the pairwise distances are uniform on [0, π] and [0, π r]: r* = 1.
    for seed in (0, 1, 2):
        assert wasserstein_radius(1, n=60, n_rep=20, random_state=seed) == pytest.approx(
            1.0, abs=0.02
        )


def test_radius_grows_with_dimension() -> None:
    r = [wasserstein_radius(d, n=40, n_rep=10, random_state=0) for d in (1, 2, 3, 4)]
    assert all(b > a for a, b in itertools.pairwise(r))
    # For d >= 2 the radius equating the maximal distances, sqrt(d), is too small.
    assert all(x > np.sqrt(d) for d, x in zip((2, 3, 4), r[1:], strict=True))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"d": 0},
        {"d": -1},
        {"d": 1.5},
        {"d": True},
        {"d": "2"},
        {"d": 2, "n": 1},
        {"d": 2, "n": 2.0},
        {"d": 2, "n_rep": 0},
        {"d": 2, "max_pairs_in_memory": 1},
    ],
)
def test_radius_input_validation(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        wasserstein_radius(**kwargs)


def test_objective_rejects_negative_or_nonfinite_r() -> None:
    with pytest.raises(ValueError):
        wasserstein_objective(-0.1, 2, n=5, n_rep=1)
    with pytest.raises(ValueError):
        wasserstein_objective([1.0, np.inf], 2, n=5, n_rep=1)


def test_pair_distances_in_blocks_equal_those_in_one_piece(monkeypatch):
    # At large d the pairs are handled a block at a time (bounded memory); the distances,
    # hence r*, must not change by a bit.
    whole = sample_sorted_distances(9, 40, 3)
    monkeypatch.setattr(radius_module, "_PAIR_BLOCK_ENTRIES", 50)  # 5 pairs a block
    blocked = sample_sorted_distances(9, 40, 3)
    for one, other in zip(whole, blocked, strict=True):
        np.testing.assert_array_equal(one, other)


@pytest.mark.parametrize("d", [3, 40])
def test_replicates_on_the_kernel_threads_give_the_serial_r_star(d, monkeypatch):
    # The replicates are drawn in waves on the kernel threads; each has its own generator
    # and they are consumed in order, so r* is that of one replicate at a time, to the bit
    # (also when the pairs do not fit in memory and are replayed).
    parallel = [wasserstein_radius(d, n=30, n_rep=9, random_state=5),
                wasserstein_radius(d, n=30, n_rep=9, random_state=5, max_pairs_in_memory=500)]
    monkeypatch.setattr(radius_module, "worker_count", lambda: 1)
    serial = [wasserstein_radius(d, n=30, n_rep=9, random_state=5),
              wasserstein_radius(d, n=30, n_rep=9, random_state=5, max_pairs_in_memory=500)]
    assert parallel == serial
