"""The excess mass on the circle against independent slow computations (issue 34)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from stpca_gui.core.circstats._excess_mass_kernel import excess_masses, pieces_of
from stpca_gui.core.circstats.excess_mass import (
    binned_excess_mass,
    excess_mass,
    nearest_node_counts,
)

TWO_PI = 2.0 * np.pi


def _brute_excess_mass(q: np.ndarray, level: float, arcs: int) -> float:
    """E_arcs(level) of cell probabilities by trying every set of cells: its value counts
    when the cells form at most ``arcs`` runs round the circle (the whole circle is one)."""
    m = q.size
    gain = q - level * TWO_PI / m
    best = 0.0
    for chosen in itertools.product((False, True), repeat=m):
        chosen = np.array(chosen)
        runs = 1 if chosen.all() else int(np.count_nonzero(chosen & ~np.roll(chosen, 1)))
        if 0 < runs <= arcs:
            best = max(best, float(gain[chosen].sum()))
    return best


def _kernel_excess_masses(q: np.ndarray, level: float, arcs: int) -> np.ndarray:
    mass, length = np.empty(q.size), np.empty(q.size, dtype=np.int64)
    count = pieces_of(q, mass, length)
    out = np.empty((arcs + 1, 1))
    excess_masses(mass[:count], length[:count], q.size, np.array([level]), arcs, out)
    return out[:, 0]


@pytest.mark.parametrize("seed", range(6))
def test_excess_mass_at_a_level_is_the_brute_force_best_set_of_arcs(seed):
    """Every set of at most j arcs of up to 11 cells, some of them empty (runs of empty cells
    are one step of the programme)."""
    rng = np.random.default_rng(seed)
    for _ in range(25):
        m = int(rng.integers(3, 12))
        q = rng.random(m) * (rng.random(m) < 0.6)
        q[rng.integers(m)] += 0.1
        q /= q.sum()
        level = float(rng.random() * 1.2 * q.max() * m / TWO_PI)
        found = _kernel_excess_masses(q, level, 3)
        for arcs in range(4):
            assert found[arcs] == pytest.approx(_brute_excess_mass(q, level, arcs), abs=1e-12)


def _points_excess_mass(x: np.ndarray, level: float, arcs: int) -> float:
    """E_arcs(level) of points on the circle with arcs ending at the points (no grid): every
    arc from a point up to a point, and (arcs = 2) every pair of disjoint such arcs."""
    x = np.sort(np.mod(x, TWO_PI))
    n = x.size
    start, stop = (a.ravel() for a in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    count = np.mod(stop - start, n) + 1
    value = count / n - level * np.mod(x[stop] - x[start], TWO_PI)
    best = max(0.0, float(value.max()), 1.0 - level * TWO_PI)
    if arcs >= 2:
        gap = n - count  # points left out by each arc, after its last point
        for i in range(value.size):
            if gap[i] == 0:
                continue
            offset_start = np.mod(start - stop[i] - 1, n)
            offset_stop = np.mod(stop - stop[i] - 1, n)
            fits = (offset_start < gap[i]) & (offset_stop < gap[i]) & (offset_start <= offset_stop)
            best = max(best, float(value[i] + value[fits].max()))
    return best


def test_binned_excess_mass_agrees_with_arcs_between_the_points():
    """On a fine grid (2¹⁶ nodes) the arcs between nodes and those between points differ by
    less than two nodes' width at each end: E_k agrees within that."""
    rng = np.random.default_rng(4)
    x = np.mod(np.concatenate([rng.vonmises(-1.0, 6.0, 25), rng.vonmises(1.4, 3.0, 20)]),
               TWO_PI)
    cells = 1 << 16
    counts = nearest_node_counts(x, cells)
    q = counts / counts.sum()
    tolerance = 4 * 2 * TWO_PI / cells  # arcs × ends × a node's width, times the level
    for level in (0.05, 0.15, 0.3, 0.6):
        binned = _kernel_excess_masses(q, level, 2)
        for arcs in (1, 2):
            exact = _points_excess_mass(x, level, arcs)
            assert binned[arcs] == pytest.approx(exact, abs=tolerance * max(level, 1.0))


def test_statistic_is_small_for_one_mode_and_the_smaller_bump_for_two():
    rng = np.random.default_rng(7)
    one = rng.vonmises(0.5, 4.0, 4000)
    two = np.concatenate([rng.vonmises(-1.5, 10.0, 3000), rng.vonmises(1.5, 10.0, 1000)])
    grid = TWO_PI * np.arange(1024) / 1024 - np.pi  # node 0 of unit_angles is −π
    density = 0.75 * np.exp(10.0 * np.cos(grid + 1.5)) + 0.25 * np.exp(10.0 * np.cos(grid - 1.5))
    population = binned_excess_mass(density, 1)
    # the smaller bump's mass above the level where joining the two costs as much
    assert 0.1 < population < 0.25
    assert excess_mass(two, 1) == pytest.approx(population, abs=0.02)
    assert excess_mass(one, 1) < 0.02
    assert excess_mass(two, 2) < 0.02
    # the same measure on another grid and turned round the circle: the same statistic
    assert excess_mass(two + 2.0, 1, cells=4096) == pytest.approx(excess_mass(two, 1), abs=0.01)


def test_binned_statistic_of_rows_and_bad_input():
    rng = np.random.default_rng(1)
    rows = rng.poisson(3.0, size=(3, 256)).astype(float)
    values = binned_excess_mass(rows, 1)
    assert values.shape == (3,)
    assert values[1] == pytest.approx(binned_excess_mass(rows[1], 1))
    assert binned_excess_mass(2 * rows[1], 1) == pytest.approx(values[1])  # normalised
    with pytest.raises(ValueError, match="k must"):
        binned_excess_mass(rows, 0)
    with pytest.raises(ValueError, match="non-negative"):
        binned_excess_mass(-rows, 1)
    with pytest.raises(ValueError, match="cells"):
        excess_mass(rng.random(10), 1, cells=1)
