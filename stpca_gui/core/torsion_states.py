"""Synthetic molecular-dynamics-like torsion data at high dimension (benchmarks, tests, demos).

A chain of ``d // 2`` residues, each with a backbone pair (φ, ψ), visits ``n_states``
conformational states. In every state each residue sits in one Ramachandran basin (α-helix,
β-strand or polyproline II); only a fraction of the residues (``moving_fraction``) change
basin between states, so most torsions barely move while a few carry the states apart — the
situation of a real trajectory, where a loop or a hinge moves and the rest of the protein
stays put. Angles scatter around their basin's centre with von Mises noise of concentration
``kappa``. Frames follow a sticky Markov chain over the states (mean dwell ``dwell`` frames),
so the rows are in time order like a trajectory's frames.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from stpca_gui.core._base.random import RandomStateLike, check_random_state
from stpca_gui.core.demos import DemoDataset
from stpca_gui.core.geometry.torus import wrap_angles

__all__ = ["BASINS", "make_torsion_states"]

#: Centres (φ, ψ) in degrees of the Ramachandran basins the residues choose from.
BASINS: dict[str, tuple[float, float]] = {
    "alpha": (-63.0, -43.0),
    "beta": (-120.0, 130.0),
    "ppII": (-75.0, 145.0),
}


def make_torsion_states(n_samples: int = 10_000, d: int = 66, n_states: int = 3, *,
                        moving_fraction: float = 0.25, kappa: float = 10.0,
                        dwell: float = 200.0,
                        random_state: RandomStateLike = 0) -> DemoDataset:
    """Frames of a peptide-like chain visiting ``n_states`` states, one row per frame.

    Parameters
    ----------
    n_samples : int, default 10000
        Number of frames ``n``.
    d : int, default 66
        Number of torsions; residue ``k`` has columns ``φk`` and ``ψk`` (an odd ``d`` ends
        with a lone φ).
    n_states : int, default 3
        Number of conformational states (≥ 1).
    moving_fraction : float, default 0.25
        Share of the residues whose basin differs between states (at least one residue
        moves when ``n_states`` > 1).
    kappa : float, default 10
        Von Mises concentration of every torsion around its basin centre (κ = 10 is a
        spread of about 18°).
    dwell : float, default 200
        Mean number of consecutive frames spent in a state (the chain's stickiness);
        the states are visited equally often in the long run.
    random_state : None, int or numpy.random.Generator, default 0
        Seed or generator.

    Returns
    -------
    DemoDataset
        ``angles`` (n, d) in radians, ``labels`` the state of every frame (0 … n_states−1),
        column names ``φ1, ψ1, φ2, …``.
    """
    if n_samples < 1 or d < 1 or n_states < 1:
        raise ValueError("n_samples, d and n_states must be at least 1")
    if not 0.0 <= moving_fraction <= 1.0:
        raise ValueError(f"moving_fraction must lie in [0, 1], got {moving_fraction}")
    if not (kappa > 0.0 and dwell >= 1.0):
        raise ValueError("kappa must be positive and dwell at least 1")
    rng = check_random_state(random_state)
    n_residues = (d + 1) // 2
    basin_names = list(BASINS)
    resting = rng.integers(len(basin_names), size=n_residues)
    basins = np.tile(resting, (n_states, 1))
    n_moving = 0 if n_states == 1 else max(1, round(moving_fraction * n_residues))
    moving = rng.choice(n_residues, size=n_moving, replace=False)
    for state in range(1, n_states):
        # Each moving residue takes another basin than in state 0 (and than the state before).
        shift = 1 + (state + rng.integers(len(basin_names) - 1, size=n_moving)) % (
            len(basin_names) - 1)
        basins[state, moving] = (basins[0, moving] + shift) % len(basin_names)
    centres = np.deg2rad(np.array([BASINS[name] for name in basin_names]))  # (3, 2)
    state_means = centres[basins].reshape(n_states, 2 * n_residues)[:, :d]

    labels = _sticky_chain(n_samples, n_states, dwell, rng)
    noise = rng.vonmises(0.0, kappa, size=(n_samples, d))
    angles = wrap_angles(state_means[labels] + noise)
    names = tuple(f"{'φψ'[j % 2]}{j // 2 + 1}" for j in range(d))
    description = (
        f"{n_states} conformational states of a {n_residues}-residue chain on T^{d}: "
        f"{n_moving} residues change Ramachandran basin between states, von Mises noise "
        f"κ = {kappa:g}, frames in time order (mean dwell {dwell:g} frames)"
    )
    return DemoDataset(name=f"torsion-states-t{d}", angles=angles, labels=labels,
                       description=description, column_names=names)


def _sticky_chain(n: int, n_states: int, dwell: float,
                  rng: np.random.Generator) -> NDArray[np.int64]:
    """A Markov chain that stays with probability 1 − 1/dwell and else jumps uniformly."""
    jumps = rng.random(n) < 1.0 / dwell
    targets = rng.integers(n_states, size=n)
    start = int(rng.integers(n_states))
    last_jump = np.maximum.accumulate(np.where(jumps, np.arange(n), -1))
    return np.where(last_jump >= 0, targets[np.maximum(last_jump, 0)], start).astype(np.int64)
