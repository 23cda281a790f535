"""Exact circular Fréchet mean in O(n log n): the backwards mean on PNS's final circle
(paper, eq. PNS).

The (intrinsic) Fréchet mean of angles θ_1, …, θ_n on the unit circle minimises

    f(μ) = Σ_i d(μ, θ_i)²,   d(μ, θ) = min_k |μ − θ + 2πk| ∈ [0, π].

``f`` is piecewise quadratic in μ: its pieces are separated by the antipodes θ_i + π, where
``f`` has a concave kink, so every local minimum lies inside a piece, at the arithmetic mean of
the data unwrapped relative to that piece.  Unwrapping only adds multiples of 2π to individual
angles, hence every such mean is one of the ``n`` candidates ``mean(θ) + 2πk/n``
(k = 0, …, n − 1) taken modulo 2π — this is also the candidate set of ``geodmeanS1`` in
Jung's PNS code, which evaluates ``f`` at each candidate in O(n) (O(n²) in total).

Here the angles are sorted once and ``f`` is evaluated at every candidate in O(log n) with
prefix sums: for μ ∈ [0, 2π) the angles below μ − π are unwrapped by +2π and those at or
above μ + π by −2π, and

    f(μ) = Σ (θ_i + s_i − μ)²   with s_i ∈ {−2π, 0, 2π}

expands into prefix sums of θ and θ².  The few best candidates are then re-evaluated
directly (O(n) each) so that rounding in the prefix sums cannot change the choice, and the
winner is polished by one exact mean step.  Total cost O(n log n).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..geometry.torus import TWO_PI, wrap_angles

#: Number of best candidates (by the prefix-sum objective) re-evaluated exactly.
_N_RECHECK = 8


def circular_objective(mu: float | ArrayLike, angles: ArrayLike) -> NDArray[np.float64]:
    """Sum of squared geodesic (arc) distances from ``mu`` to ``angles``.

    Parameters
    ----------
    mu : float or array_like
        Candidate mean(s), radians.
    angles : array_like
        Data angles, radians (any real values), shape (n,).

    Returns
    -------
    ndarray
        ``Σ_i d(mu, θ_i)²`` with the same shape as ``mu`` (O(n) per candidate).
    """
    th = np.asarray(angles, dtype=np.float64).ravel()
    m = np.asarray(mu, dtype=np.float64)
    diff = wrap_angles(th[None, :] - m.reshape(-1, 1))
    return np.sum(diff * diff, axis=1).reshape(m.shape)


def circular_frechet_mean(angles: ArrayLike) -> float:
    """Exact intrinsic (geodesic) Fréchet mean of angles on the circle.

    Parameters
    ----------
    angles : array_like
        Angles in radians, shape (n,), n ≥ 1, finite.

    Returns
    -------
    float
        A global minimiser of ``Σ_i d(μ, θ_i)²`` (arc-length distance), wrapped to [-π, π).
        When several global minimisers tie exactly (e.g. two antipodal points), the one that
        comes first in the candidate order ``mean(θ mod 2π) + 2πk/n`` is returned.

    Raises
    ------
    ValueError
        If ``angles`` is empty or contains non-finite values.

    Notes
    -----
    O(n log n) time and O(n) memory; see the module docstring for the algorithm.
    """
    th = np.asarray(angles, dtype=np.float64).ravel()
    n = th.size
    if n == 0:
        raise ValueError("circular_frechet_mean needs at least one angle")
    if not np.all(np.isfinite(th)):
        raise ValueError("angles must be finite")
    th = np.sort(np.mod(th, TWO_PI))
    # np.mod may return exactly 2π for tiny negative inputs; fold to keep th in [0, 2π).
    th[th >= TWO_PI] -= TWO_PI
    th.sort()
    if n == 1:
        return float(wrap_angles(np.array(th[0])))

    # Work relative to the arithmetic mean to reduce cancellation in the prefix sums.
    base = float(np.mean(th))
    u = th - base
    cs1 = np.concatenate(([0.0], np.cumsum(u)))
    tot1 = cs1[-1]
    tot2 = float(np.dot(u, u))

    k = np.arange(n, dtype=np.float64)
    cand = np.mod(base + TWO_PI * k / n, TWO_PI)
    cand[cand >= TWO_PI] -= TWO_PI
    # Index ranges: [0, lo) get +2π, [hi, n) get −2π, the rest unchanged.
    lo = np.searchsorted(th, cand - np.pi, side="left")
    hi = np.searchsorted(th, cand + np.pi, side="left")
    n_lo = lo.astype(np.float64)
    n_hi = (n - hi).astype(np.float64)
    s1_lo = cs1[lo]
    s1_hi = tot1 - cs1[hi]
    c = cand - base  # candidate relative to base
    # Σ (u_i + s_i − c)² = Σ (u_i − c)² + Σ_lo (4π(u_i − c) + 4π²) + Σ_hi (−4π(u_i − c) + 4π²)
    f = (
        tot2
        - 2.0 * c * tot1
        + n * c * c
        + 2.0 * TWO_PI * (s1_lo - c * n_lo)
        + TWO_PI * TWO_PI * n_lo
        - 2.0 * TWO_PI * (s1_hi - c * n_hi)
        + TWO_PI * TWO_PI * n_hi
    )

    n_check = min(_N_RECHECK, n)
    best_idx = np.argpartition(f, n_check - 1)[:n_check] if n > n_check else np.arange(n)
    best_idx = np.sort(best_idx)  # keep candidate order for deterministic tie-breaking
    exact = circular_objective(cand[best_idx], th)
    mu = float(cand[best_idx[int(np.argmin(exact))]])
    # Polish: the minimiser of its piece is μ + mean of the wrapped deviations.
    mu_polished = mu + float(np.mean(wrap_angles(th - mu)))
    if circular_objective(mu_polished, th) <= circular_objective(mu, th):
        mu = mu_polished
    return float(wrap_angles(np.array(mu)))
