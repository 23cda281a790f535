"""Merging the least prominent modes of a periodic density, down to a given number.

Around the circle the modes (local maxima) and antimodes (local minima) of a density
alternate. The *depth* of an antimode is how far the density climbs on both sides before it
reaches a mode, ``min(f(left mode), f(right mode)) − f(antimode)``: the lower of the two
neighbouring modes' prominence above that valley. Removing the shallowest antimode merges
its two clusters into one whose mode is the higher of the two; repeating this until ``k``
modes are left is the 0-dimensional persistence of the superlevel sets of ``f`` (the mode
that dies is the one whose hill merges into a higher one at the highest level), so the
result does not depend on the order in which equal-looking bumps are found.

Used by the tested rule of :mod:`~stpca_gui.core.circstats.tested_modes` (the test says how many
clusters; the plug-in density says where their boundaries lie) and by
:mod:`~stpca_gui.core.circstats.cluster_stability`, which reapplies that rule to resamples.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["align_antimodes", "merge_shallowest_antimodes"]


def align_antimodes(
    modes: ArrayLike, antimodes: ArrayLike, period: float,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Orders of the modes (by wrapped position in [−P/2, P/2)) and of the antimode just
    before each of them, going round the circle in the increasing direction.

    Returns index arrays ``(mode_order, preceding)``: ``modes[mode_order[j]]`` is the j-th
    mode and ``antimodes[preceding[j]]`` the antimode that starts its arc.
    """
    modes = np.asarray(modes, dtype=np.float64)
    antimodes = np.asarray(antimodes, dtype=np.float64)
    wrapped = np.mod(modes + 0.5 * period, period) - 0.5 * period
    mode_order = np.argsort(wrapped, kind="stable")
    before = np.mod(modes[mode_order][:, None] - antimodes[None, :], period)
    return mode_order, np.argmin(before, axis=1)


def merge_shallowest_antimodes(
    modes: ArrayLike,
    mode_heights: ArrayLike,
    antimodes: ArrayLike,
    antimode_heights: ArrayLike,
    n_modes: int,
    period: float,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Merge the modes of a periodic density across their shallowest antimodes until
    ``n_modes`` are left (module docstring).

    Parameters
    ----------
    modes, mode_heights : array_like, shape (K,)
        Positions of the local maxima (any representative modulo ``period``) and the
        density there.
    antimodes, antimode_heights : array_like, shape (K,)
        Positions of the local minima and the density there; they alternate with the
        modes around the circle.
    n_modes : int
        How many modes to keep, 1 ≤ ``n_modes`` ≤ K.
    period : float
        The period P.

    Returns
    -------
    kept_modes, kept_antimodes : ndarray of int, shape (n_modes,)
        Indices into ``modes`` and ``antimodes``: the kept modes in increasing wrapped
        position, and for each the kept antimode that starts its arc (so cluster j is the
        arc from ``antimodes[kept_antimodes[j]]`` to ``antimodes[kept_antimodes[j + 1]]``).

    Raises
    ------
    ValueError
        When the counts differ or ``n_modes`` is out of range.
    """
    modes = np.asarray(modes, dtype=np.float64)
    antimodes = np.asarray(antimodes, dtype=np.float64)
    mode_heights = np.asarray(mode_heights, dtype=np.float64)
    antimode_heights = np.asarray(antimode_heights, dtype=np.float64)
    size = modes.size
    if not (antimodes.size == size == mode_heights.size == antimode_heights.size):
        raise ValueError("modes, antimodes and their heights must have the same length "
                         f"(got {size}, {antimodes.size}, {mode_heights.size}, "
                         f"{antimode_heights.size})")
    if not 1 <= int(n_modes) <= max(size, 1):
        raise ValueError(f"n_modes must lie in 1 … {size}, got {n_modes}")
    mode_order, preceding = align_antimodes(modes, antimodes, period)
    # Circular lists: antimode ring[j] lies between mode ring[j − 1] and mode ring[j].
    ring_modes = [int(i) for i in mode_order]
    ring_antimodes = [int(i) for i in preceding]
    while len(ring_modes) > int(n_modes):
        depths = [min(mode_heights[ring_modes[j - 1]], mode_heights[ring_modes[j]])
                  - antimode_heights[ring_antimodes[j]] for j in range(len(ring_modes))]
        j = int(np.argmin(depths))
        left = (j - 1) % len(ring_modes)
        lower = j if mode_heights[ring_modes[j]] < mode_heights[ring_modes[left]] else left
        # The merged arc runs from the antimode before ``left`` to the one after ``j``: the
        # surviving mode takes ``left``'s starting antimode.
        survivor = ring_modes[left if lower == j else j]
        ring_modes[left] = survivor
        del ring_modes[j]
        del ring_antimodes[j]
    order = np.argsort(np.mod(modes[ring_modes] + 0.5 * period, period), kind="stable")
    return (np.asarray(ring_modes, dtype=np.intp)[order],
            np.asarray(ring_antimodes, dtype=np.intp)[order])
