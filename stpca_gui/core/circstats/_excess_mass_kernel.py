"""Compiled excess mass of binned samples on the circle (:mod:`.excess_mass`).

A binned sample is given as *pieces*: a cell holding mass (``length`` 1, ``mass`` > 0) or a
run of ``length`` empty cells (``mass`` 0). For a level λ every cell contributes
``mass − λ·cell``; the best sum over at most j disjoint arcs of cells is found by a linear
dynamic programme in each direction of the cut at cell 0:

* arcs that do not cross the cut are disjoint segments of the cells 0 … m − 1 (the largest
  sum of at most j segments);
* when an arc crosses the cut, the cells left out are at most j disjoint segments that do
  not, so the best sum is the total minus the smallest sum of at most j segments.

(The whole circle is one arc: its value is the total.) The programme runs over all levels at
once (the innermost loop), and a run of r empty cells is one step: all its cells are equally
negative, so a segment of largest sum ends before the run or takes only its last cell, and
one of smallest sum takes the whole run.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .._base.jit import kernel


@kernel()
def excess_masses(mass: NDArray, length: NDArray, cells: int, levels: NDArray, arcs: int,
                  out: NDArray) -> None:
    """``out[i, l]`` = E_i(levels[l]) for i = 0 … ``arcs``: the largest Σ (mass − λ·cell)
    over at most i disjoint arcs (E_0 = 0), with ``cell = 2π / cells``."""
    width = 2.0 * math.pi / cells
    n_levels = levels.size
    best_max = np.zeros((arcs + 1, n_levels))
    best_min = np.zeros((arcs + 1, n_levels))
    open_max = np.full((arcs + 1, n_levels), -np.inf)
    open_min = np.full((arcs + 1, n_levels), np.inf)
    shift = np.empty(n_levels)
    for lv in range(n_levels):
        shift[lv] = levels[lv] * width
    for piece in range(mass.size):
        q = mass[piece]
        r = length[piece]
        for i in range(arcs, 0, -1):
            for lv in range(n_levels):
                x = q - shift[lv]
                # largest sum: extend the open segment over the piece, or start one at its
                # last cell (the same thing for a single cell)
                grown = open_max[i, lv] + r * x
                fresh = best_max[i - 1, lv] + x
                c = grown if grown > fresh else fresh
                open_max[i, lv] = c
                if c > best_max[i, lv]:
                    best_max[i, lv] = c
                # smallest sum: the whole piece joins the open segment or a new one
                low = open_min[i, lv]
                before = best_min[i - 1, lv]
                c2 = (low if low < before else before) + r * x
                open_min[i, lv] = c2
                if c2 < best_min[i, lv]:
                    best_min[i, lv] = c2
    for lv in range(n_levels):
        total = 1.0 - levels[lv] * 2.0 * math.pi
        out[0, lv] = 0.0
        for i in range(1, arcs + 1):
            linear = best_max[i, lv]
            crossing = total - best_min[i, lv]
            out[i, lv] = linear if linear > crossing else crossing


@kernel()
def _gains(mass: NDArray, length: NDArray, cells: int, levels: NDArray, k: int,
           out: NDArray) -> None:
    """out[l] = E_{k+1} − E_k at levels[l]."""
    table = np.empty((k + 2, levels.size))
    excess_masses(mass, length, cells, levels, k + 1, table)
    for lv in range(levels.size):
        out[lv] = table[k + 1, lv] - table[k, lv]


@kernel()
def pieces_of(probabilities: NDArray, mass: NDArray, length: NDArray) -> int:
    """Encode cell probabilities as pieces (module docstring); returns their number."""
    count = 0
    run = 0
    for c in range(probabilities.size):
        q = probabilities[c]
        if q > 0.0:
            if run > 0:
                mass[count] = 0.0
                length[count] = run
                count += 1
                run = 0
            mass[count] = q
            length[count] = 1
            count += 1
        else:
            run += 1
    if run > 0:
        mass[count] = 0.0
        length[count] = run
        count += 1
    return count


@kernel()
def top_level(probabilities: NDArray, blocks: int) -> float:
    """1.5 × the largest mean density over ``blocks`` equal arcs: the highest level searched
    (single full cells of a fine grid lie far above any level where modes are told apart)."""
    cells = probabilities.size
    size = cells // blocks
    top = 0.0
    for b in range(blocks):
        s = 0.0
        for c in range(b * size, (b + 1) * size):
            s += probabilities[c]
        if s > top:
            top = s
    return 1.5 * top / (size * 2.0 * math.pi / cells)


@kernel()
def excess_mass_statistic(probabilities: NDArray, k: int, coarse: int, fine: int) -> float:
    """max over λ of E_{k+1}(λ) − E_k(λ) for cell probabilities summing to one: on
    ``coarse`` levels evenly spread below :func:`top_level`, then on ``fine`` levels within
    one coarse step of the best."""
    cells = probabilities.size
    mass = np.empty(cells)
    length = np.empty(cells, dtype=np.int64)
    count = pieces_of(probabilities, mass, length)
    mass = mass[:count]
    length = length[:count]
    top = top_level(probabilities, min(64, cells))
    step = top / coarse
    levels = np.empty(coarse)
    for lv in range(coarse):
        levels[lv] = (lv + 0.5) * step
    gains = np.empty(coarse)
    _gains(mass, length, cells, levels, k, gains)
    best_at = 0
    for lv in range(coarse):
        if gains[lv] > gains[best_at]:
            best_at = lv
    best = gains[best_at]
    centre = levels[best_at]
    closer = np.empty(fine)
    for lv in range(fine):
        closer[lv] = centre - step + (lv + 1) * (2.0 * step) / (fine + 1)
    gains_fine = np.empty(fine)
    _gains(mass, length, cells, closer, k, gains_fine)
    for lv in range(fine):
        if gains_fine[lv] > best:
            best = gains_fine[lv]
    return best if best > 0.0 else 0.0


@kernel()
def excess_mass_rows(counts: NDArray, k: int, coarse: int, fine: int, out: NDArray) -> None:
    """:func:`excess_mass_statistic` of every row of counts (each normalised by its total)."""
    for row in range(counts.shape[0]):
        total = 0.0
        for c in range(counts.shape[1]):
            total += counts[row, c]
        out[row] = excess_mass_statistic(counts[row] / total, k, coarse, fine)
