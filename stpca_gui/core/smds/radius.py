"""Data-independent choice of the sphere radius r* (paper, section 3.2, eq. (wasser)).

For ``n`` iid uniform points on the torus T^d and ``n`` iid uniform points on the sphere
S^d_r ⊂ R^{d+1}, let ``t_(1) ≤ … ≤ t_(N)`` and ``r s_(1) ≤ … ≤ r s_(N)`` be the ordered
``N = n(n-1)/2`` pairwise geodesic distances (``s`` are the distances on the unit sphere;
distances on S^d_r are exactly ``r`` times those).  The 1-Wasserstein distance between the
two empirical distributions is ``W1 = (1/N) Σ_k |t_(k) − r s_(k)|`` and r* minimises its
expectation, estimated with ``M = n_rep`` Monte Carlo replicates::

    Ŵ(r) = 1/(M N) Σ_{m,k} |t_mk − r s_mk| = 1/(M N) Σ_{m,k} s_mk |t_mk / s_mk − r|.

``Ŵ`` is convex and piecewise linear in ``r``, so its exact minimiser is a weighted median
of the ratios ``t_mk / s_mk`` with weights ``s_mk`` (pairs with ``s_mk = 0`` contribute the
constant ``t_mk`` and are dropped).  :func:`wasserstein_radius` computes that weighted median
exactly — no grid and no numerical optimiser — with memory bounded by
``max_pairs_in_memory`` (replicates are regenerated from per-replicate seeds and the median
is located by successive histogram refinement when the pairs do not fit).

Measured values of r* for d = 1, 2, 3 and why the paper prints smaller ones (its sphere
points were most likely drawn with uniform angles) are in ``docs/radius.md``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Iterator

import numpy as np
from numpy.typing import ArrayLike, NDArray

from stpca_gui.core._base.jit import kernel
from stpca_gui.core._base.parallel import map_parallel, worker_count
from stpca_gui.core._base.progress import CancelCheck
from stpca_gui.core._base.random import RandomStateLike, check_random_state
from stpca_gui.core.geometry._torus_kernel import torus_distance_rows
from stpca_gui.core.geometry.torus import wrap_angles

__all__ = [
    "SPHERE_SAMPLINGS",
    "sample_sorted_distances",
    "streamed_weighted_median",
    "wasserstein_objective",
    "wasserstein_radius",
    "weighted_median",
]

#: Default bound on the number of (ratio, weight) pairs held in memory at once.
DEFAULT_MAX_PAIRS_IN_MEMORY = 4_000_000

#: Bound on the number of (r value, pair) entries evaluated at once by the objective.
_OBJECTIVE_BLOCK_ENTRIES = 2_000_000


def _check_int(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    ivalue = int(value)
    if ivalue < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {ivalue}")
    return ivalue


def _check_args(d: object, n: object, n_rep: object) -> tuple[int, int, int]:
    return _check_int(d, "d", 1), _check_int(n, "n", 2), _check_int(n_rep, "n_rep", 1)


def _unit_sphere_distances(x: NDArray[np.float64], y: NDArray[np.float64]
                           ) -> NDArray[np.float64]:
    """Geodesic distances on the unit sphere between the rows of ``x`` and of ``y``.

    Uses ``2 atan2(|x - y|, |x + y|)``, accurate for both tiny and near-antipodal pairs
    (unlike ``arccos`` of the inner product).
    """
    diff = np.linalg.norm(x - y, axis=1)
    summ = np.linalg.norm(x + y, axis=1)
    return 2.0 * np.arctan2(diff, summ)


#: How the "uniform" sphere points of eq. (wasser) are drawn: "uniform" is the uniform
#: distribution on S^d (normalised Gaussians, the definition); "uniform-angles" draws
#: uniform hyperspherical angles, which reproduces the r* values printed in the paper
#: (docs/radius.md).
SPHERE_SAMPLINGS = ("uniform", "uniform-angles")


def _uniform_angle_points(rng: np.random.Generator, n: int, d: int) -> NDArray[np.float64]:
    """Points of S^d with colatitudes uniform on [0, π] and longitude uniform on [0, 2π)."""
    colatitudes = rng.uniform(0.0, np.pi, size=(n, d - 1))
    longitude = rng.uniform(0.0, 2.0 * np.pi, size=n)
    x = np.ones((n, d + 1))
    for k in range(d - 1):
        x[:, k] *= np.cos(colatitudes[:, k])
        x[:, k + 1:] *= np.sin(colatitudes[:, k])[:, None]
    x[:, d - 1] *= np.cos(longitude)
    x[:, d] *= np.sin(longitude)
    return x


def _uniform_sphere_points(rng: np.random.Generator, n: int, d: int) -> NDArray[np.float64]:
    """Uniform points of S^d: normalised standard Gaussian vectors."""
    z = rng.standard_normal(size=(n, d + 1))
    norms = np.linalg.norm(z, axis=1, keepdims=True)
    # A zero Gaussian vector has probability zero; redraw defensively if it ever happens.
    while np.any(norms == 0.0):
        bad = norms[:, 0] == 0.0
        z[bad] = rng.standard_normal(size=(int(bad.sum()), d + 1))
        norms = np.linalg.norm(z, axis=1, keepdims=True)
    return z / norms


def sample_sorted_distances(
    d: int, n: int, random_state: RandomStateLike = None, sphere_sampling: str = "uniform"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Sorted pairwise distances of one Monte Carlo replicate of eq. (wasser).

    Parameters
    ----------
    d : int
        Dimension of the torus T^d and of the sphere S^d (which lives in R^{d+1}).
    n : int
        Number of uniform points drawn on each space.
    random_state : None, int or numpy.random.Generator
        Source of randomness. The torus sample is drawn first, then the sphere sample.
    sphere_sampling : {"uniform", "uniform-angles"}, default "uniform"
        How the sphere points are drawn (:data:`SPHERE_SAMPLINGS`).

    Returns
    -------
    torus : ndarray, shape (n(n-1)/2,)
        Sorted torus geodesic distances of ``n`` uniform points on T^d = [-π, π)^d.
    sphere : ndarray, shape (n(n-1)/2,)
        Sorted geodesic distances of ``n`` points on the *unit* sphere S^d (uniform points
        are normalised standard Gaussian vectors); multiply by ``r`` for S^d_r.
    """
    d, n, _ = _check_args(d, n, 1)
    if sphere_sampling not in SPHERE_SAMPLINGS:
        raise ValueError(f"sphere_sampling must be one of {SPHERE_SAMPLINGS}, "
                         f"got {sphere_sampling!r}")
    rng = check_random_state(random_state)
    i, j = np.triu_indices(n, k=1)
    u = wrap_angles(rng.uniform(-np.pi, np.pi, size=(n, d)))
    torus = np.empty(i.size)
    _condensed_torus_distances(np.ascontiguousarray(u), torus)
    torus.sort()
    draw = _uniform_sphere_points if sphere_sampling == "uniform" else _uniform_angle_points
    sphere = np.sort(_in_pair_blocks(_unit_sphere_distances, draw(rng, n, d), i, j))
    return torus, sphere


@kernel(fastmath={"contract"})
def _condensed_torus_distances(x: NDArray, out: NDArray) -> None:
    # The pairs i < j in the order of np.triu_indices, without gathering their rows (at
    # d = 426 the NumPy gather and wrapping made r* cost 10 s of CPU; this, 0.2 s).
    pair = 0
    for i in range(x.shape[0]):
        for j in range(i + 1, x.shape[0]):
            out[pair] = torus_distance_rows(x, i, x, j)
            pair += 1


#: Coordinates of the pairs' rows (x[i], x[j] and their temporaries) handled at once by
#: :func:`_in_pair_blocks`: 256 kB a temporary, so that they stay in a core's cache (one
#: replicate's 4,950 pairs at d = 426: 9.9 ms in blocks of 2¹⁵ coordinates, 39.6 ms in
#: blocks of 2²⁰, the same distances to the bit).
_PAIR_BLOCK_ENTRIES = 1 << 15


def _in_pair_blocks(
    distance: Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.float64]],
    x: NDArray[np.float64], i: NDArray[np.intp], j: NDArray[np.intp],
) -> NDArray[np.float64]:
    """``distance(x[i], x[j])`` computed for blocks of pairs, so that the rows gathered for
    them and the temporaries stay within :data:`_PAIR_BLOCK_ENTRIES` coordinates however
    large d is (in one piece they took 0.9 GB at d = 4,000). Each pair's distance is a
    reduction over its own row, so the values are those of one piece, bit for bit."""
    rows = max(1, _PAIR_BLOCK_ENTRIES // x.shape[1])
    if i.size <= rows:
        return distance(x[i], x[j])
    out = np.empty(i.size)
    for start in range(0, i.size, rows):
        block = slice(start, start + rows)
        out[block] = distance(x[i[block]], x[j[block]])
    return out


def _replicate_generators(n_rep: int, random_state: RandomStateLike) -> list[np.random.Generator]:
    """Independent per-replicate generators, so that replicates can be regenerated."""
    return check_random_state(random_state).spawn(n_rep)


def weighted_median(values: ArrayLike, weights: ArrayLike) -> float:
    """Lower weighted median: the smallest minimiser of ``r ↦ Σ w_k |v_k − r|``.

    Parameters
    ----------
    values : array_like, shape (K,)
        Finite values.
    weights : array_like, shape (K,)
        Non-negative finite weights with a positive sum.

    Returns
    -------
    float
        The smallest ``v_k`` (in sorted order) whose cumulative weight reaches half of the
        total weight. When the cumulative weight hits exactly one half at ``v_k``, every
        ``r`` in ``[v_k, v_{k+1}]`` is a minimiser and ``v_k`` is returned.

    Raises
    ------
    ValueError
        On shape mismatch, empty input, negative/non-finite weights or zero total weight.
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    w = np.asarray(weights, dtype=np.float64).ravel()
    if v.shape != w.shape:
        raise ValueError(f"values and weights differ in length: {v.size} and {w.size}")
    if v.size == 0:
        raise ValueError("weighted_median of an empty array")
    if not (np.all(np.isfinite(v)) and np.all(np.isfinite(w))):
        raise ValueError("values and weights must be finite")
    if np.any(w < 0):
        raise ValueError("weights must be non-negative")
    total = float(w.sum())
    if total <= 0.0:
        raise ValueError("weights must have a positive sum")
    order = np.argsort(v, kind="stable")
    cum = np.cumsum(w[order])
    k = int(np.searchsorted(cum, 0.5 * total, side="left"))
    return float(v[order[min(k, v.size - 1)]])


def _ratios_and_weights(
    rng: np.random.Generator, d: int, n: int, sphere_sampling: str
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    t, s = sample_sorted_distances(d, n, rng, sphere_sampling)
    keep = s > 0.0
    return t[keep] / s[keep], s[keep]


def wasserstein_radius(
    d: int,
    n: int = 100,
    n_rep: int = 100,
    random_state: RandomStateLike = None,
    *,
    max_pairs_in_memory: int = DEFAULT_MAX_PAIRS_IN_MEMORY,
    check: CancelCheck | None = None,
    sphere_sampling: str = "uniform",
) -> float:
    """Radius r* of eq. (wasser): exact minimiser of the Monte Carlo mean 1-Wasserstein distance.

    Parameters
    ----------
    d : int
        Torus / sphere dimension, ``d >= 1``.
    n : int, default 100
        Points per replicate (``N = n(n-1)/2`` pairwise distances), ``n >= 2``.
    n_rep : int, default 100
        Monte Carlo replicates ``M``, ``n_rep >= 1``.
    random_state : None, int or numpy.random.Generator
        Seed or generator. One independent child generator is spawned per replicate, so
        the result for a given integer seed is reproducible and does not depend on
        ``max_pairs_in_memory``.
    max_pairs_in_memory : int, keyword-only
        Upper bound on the number of (ratio, weight) pairs kept at once. When
        ``n_rep * N`` exceeds it, replicates are regenerated in several passes and the
        weighted median is narrowed down with histograms; the answer is identical.
    check : callable, keyword-only, optional
        Called once per replicate before the replicates are drawn, one per kernel thread at
        a time; it raises
        :class:`~stpca_gui.core._base.progress.FitCancelled` to stop. The answer does not
        depend on it.
    sphere_sampling : {"uniform", "uniform-angles"}, keyword-only, default "uniform"
        How the sphere points are drawn: "uniform" follows eq. (wasser); "uniform-angles"
        reproduces the values printed in the paper (1.476 for d = 2, 1.794 for d = 3 with
        n = n_rep = 100; see docs/radius.md).

    Returns
    -------
    float
        The smallest minimiser over ``r >= 0`` of ``(1/(M N)) Σ_{m,k} |t_(k),m − r s_(k),m|``
        (the weighted median of ``t/s`` with weights ``s``). See the module docstring for
        typical values and why they differ from the numbers printed in the paper.

    Raises
    ------
    ValueError
        If ``d``, ``n`` or ``n_rep`` is not an integer of the allowed range, or
        ``max_pairs_in_memory < 2``.
    """
    d, n, n_rep = _check_args(d, n, n_rep)
    budget = _check_int(max_pairs_in_memory, "max_pairs_in_memory", 2)
    if sphere_sampling not in SPHERE_SAMPLINGS:
        raise ValueError(f"sphere_sampling must be one of {SPHERE_SAMPLINGS}, "
                         f"got {sphere_sampling!r}")
    generators = _replicate_generators(n_rep, random_state)
    # Keep the spawned states so that each pass replays exactly the same replicates.
    states = [g.bit_generator.state for g in generators]

    def replicate(index: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        generators[index].bit_generator.state = states[index]
        return _ratios_and_weights(generators[index], d, n, sphere_sampling)

    def replay() -> Iterator[tuple[NDArray[np.float64], NDArray[np.float64]]]:
        # Waves of replicates on the kernel threads, each from its own generator and
        # yielded in order: the same pairs, in the same order, as one at a time.
        wave = worker_count()
        for start in range(0, n_rep, wave):
            indices = range(start, min(n_rep, start + wave))
            if check is not None:
                for _ in indices:  # one check per replicate, on the calling thread
                    check()
            yield from map_parallel(replicate, indices)

    return streamed_weighted_median(replay, budget)


def _add_to_histogram(
    hist: tuple[NDArray[np.float64], ...], x: NDArray[np.float64], w: NDArray[np.float64]
) -> None:
    """Accumulate weights, minima and maxima of ``x`` per bin (in place)."""
    edges, bin_weight, bin_min, bin_max = hist
    n_bins = bin_weight.size
    idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, n_bins - 1)
    bin_weight += np.bincount(idx, weights=w, minlength=n_bins)
    np.minimum.at(bin_min, idx, x)
    np.maximum.at(bin_max, idx, x)


def streamed_weighted_median(
    chunks: Callable[[], Iterable[tuple[ArrayLike, ArrayLike]]], max_in_memory: int
) -> float:
    """Exact lower weighted median of data that can be replayed but may not fit in memory.

    Parameters
    ----------
    chunks : callable
        Each call returns an iterable over ``(values, weights)`` array pairs, the same data
        every time. Values must be finite and non-negative, weights non-negative.
    max_in_memory : int
        At most this many values (plus a fixed-size histogram) are held at once.

    Returns
    -------
    float
        Same result as :func:`weighted_median` of the concatenated data.

    Notes
    -----
    When the data fit, one pass suffices. Otherwise each pass bins the current candidates
    (values in a closed interval ``[lo, hi]``; the weight below ``lo`` is tracked), keeps the
    bin in which the cumulative weight reaches one half and shrinks the interval to the
    smallest and largest value of that bin. The candidate count strictly decreases, so the
    loop ends with the candidates fitting in memory or all equal.
    """
    budget = _check_int(max_in_memory, "max_in_memory", 2)
    n_bins = int(min(max(budget // 4, 2), 4096))
    lo, hi = 0.0, np.inf
    weight_below = 0.0
    half: float | None = None
    while True:
        if np.isinf(hi):
            # First pass: equal-width bins of u = x / (1 + x) ∈ [0, 1], mapped back to values.
            u = np.linspace(0.0, 1.0, n_bins + 1)
            with np.errstate(divide="ignore"):
                edges = u / (1.0 - u)
        else:
            edges = np.linspace(lo, hi, n_bins + 1)
        bin_weight = np.zeros(n_bins)
        bin_min = np.full(n_bins, np.inf)
        bin_max = np.full(n_bins, -np.inf)

        hist = (edges, bin_weight, bin_min, bin_max)
        kept_x: list[NDArray[np.float64]] = []
        kept_w: list[NDArray[np.float64]] = []
        count = 0
        pass_total = 0.0
        for values, weights in chunks():
            x = np.asarray(values, dtype=np.float64).ravel()
            w = np.asarray(weights, dtype=np.float64).ravel()
            pass_total += float(w.sum())
            inside = (x >= lo) & (x <= hi)
            x, w = x[inside], w[inside]
            count += x.size
            if count <= budget:
                kept_x.append(x)
                kept_w.append(w)
                continue
            for kx, kw in zip(kept_x, kept_w, strict=True):  # overflow: bin what was kept
                _add_to_histogram(hist, kx, kw)
            kept_x, kept_w = [], []
            _add_to_histogram(hist, x, w)
        if half is None:
            if pass_total <= 0.0:
                raise ValueError("weights must have a positive sum")
            half = 0.5 * pass_total
        if count <= budget:
            if count == 0:  # only reachable through rounding in the running sums
                return lo
            x = np.concatenate(kept_x)
            w = np.concatenate(kept_w)
            order = np.argsort(x, kind="stable")
            cum = weight_below + np.cumsum(w[order])
            k = int(np.searchsorted(cum, half, side="left"))
            return float(x[order[min(k, x.size - 1)]])
        nonempty = np.flatnonzero(np.isfinite(bin_min))
        cum = weight_below + np.cumsum(bin_weight[nonempty])
        pos = min(int(np.searchsorted(cum, half, side="left")), nonempty.size - 1)
        j = int(nonempty[pos])
        weight_below = float(cum[pos] - bin_weight[j])
        lo, hi = float(bin_min[j]), float(bin_max[j])
        if lo == hi:  # all remaining candidates are equal: that value is the median
            return lo


def wasserstein_objective(
    r: ArrayLike,
    d: int,
    n: int = 100,
    n_rep: int = 100,
    random_state: RandomStateLike = None,
) -> NDArray[np.float64] | float:
    """Monte Carlo mean 1-Wasserstein distance of eq. (wasser) as a function of ``r``.

    With the same ``d``, ``n``, ``n_rep`` and integer ``random_state`` it uses exactly the
    replicates of :func:`wasserstein_radius`, whose result is the minimiser of this function.

    Parameters
    ----------
    r : float or array_like
        Radius or radii (``>= 0``) at which to evaluate the objective.
    d, n, n_rep, random_state
        As in :func:`wasserstein_radius`.

    Returns
    -------
    float or ndarray
        ``(1/(M N)) Σ_{m,k} |t_(k),m − r s_(k),m|`` for each ``r`` (same shape as ``r``).
    """
    d, n, n_rep = _check_args(d, n, n_rep)
    r_arr = np.asarray(r, dtype=np.float64)
    flat = r_arr.ravel()
    if not np.all(np.isfinite(flat)) or np.any(flat < 0):
        raise ValueError("r must be finite and non-negative")
    n_pairs = n * (n - 1) // 2
    step = max(1, _OBJECTIVE_BLOCK_ENTRIES // n_pairs)
    acc = np.zeros(flat.size)
    for gen in _replicate_generators(n_rep, random_state):
        t, s = sample_sorted_distances(d, n, gen)
        for start in range(0, flat.size, step):
            block = flat[start : start + step]
            acc[start : start + step] += np.abs(t[None, :] - block[:, None] * s[None, :]).mean(
                axis=1
            )
    out = acc / n_rep
    return float(out[0]) if r_arr.ndim == 0 else out.reshape(r_arr.shape)
