"""Landmarks: the points on which a large ST-PCA fit solves spherical MDS.

An exact SMDS fit costs O(n²) per stress evaluation and O(n²) memory, which ends around
n = 10⁴ on a desktop. A landmark fit solves SMDS on m ≪ n points and places every other
point on the sphere by the interpolation map T̂ of the paper (eq. interp), which costs
O(m) per point and needs no n × n matrix.

Choosing the landmarks
----------------------
The landmarks must cover the data, or points in a region without landmarks are placed
badly, and they must follow the data's density, or the stress (a mean over pairs, most of
them inside dense regions) is fitted to the wrong pairs. The rule, :data:`LANDMARK_METHODS`:

``"mixed"`` (default)
    5 % of the landmarks (at least one) by farthest-point (max–min) seeding on the torus
    distance, which reaches the regions the data reach, isolated groups included; the
    rest drawn uniformly at random from the remaining points, which follows the density.
``"maxmin"``
    All landmarks by farthest-point seeding.
``"random"``
    All landmarks uniformly at random.

Farthest-point seeding runs on a random pool of at most ``MAXMIN_POOL_FACTOR · m`` points,
so that choosing landmarks costs O(m² · d) rather than O(n · m · d). The choice is a pure
function of the data, m, the method and the seed.

Why 5 %: the stress that matters is the one over all pairs of samples, and random
landmarks fit it best because they are spread like the pairs. Measured with m = 1000
(all-pairs stress of the landmark fit; docs/landmarks.md has the whole table):

=============================== ========== ============== ============ ==========
data                             random     mixed, 5 %     mixed, 25 %  maxmin
=============================== ========== ============== ============ ==========
sunspots cycle 23, lag 3 (5371)  +0.6 %     +1.1 %         +0.9 %       +6.9 %
T⁴ clusters + 10 % background,   0.03039    0.03082        0.03283      0.11587
n = 50,000
=============================== ========== ============== ============ ==========

(the sunspots row against the exact fit). A few farthest points cost about 1 % of
stress and guarantee that a small group far from the rest gets a landmark of its own,
which random landmarks miss with probability (1 − group share)^m.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._base.jit import kernel
from .._base.parallel import map_parallel, row_blocks
from .._base.progress import CancelCheck
from ..geometry._torus_kernel import add_squared_distances_to_point
from ..geometry.torus import wrap_angles
from ._pair_squares import FAST_LOOPS

#: The ways landmarks are chosen, with the names shown to people.
LANDMARK_METHODS: dict[str, str] = {
    "mixed": "farthest points and random",
    "maxmin": "farthest points",
    "random": "random",
}
#: ``n_landmarks="auto"`` fits exactly up to this many samples at the paper's dimensions
#: (the sunspots cycle-23 series of the paper, n = 5371, stays exact: about 6 s on two
#: cores).
AUTO_EXACT_MAX_N = 6000
#: Above this dimension ``"auto"`` stays exact while n² · d ≤ AUTO_EXACT_MAX_N² · 7: an
#: exact fit's SMDS costs O(n² · d) per iteration, and more iterations at high d (CPU
#: seconds of exact SMDS at n = 2,000: 10.6 on T²⁰, 59.9 on T⁶⁶; 3,000 points of T⁶⁶:
#: the whole default fit 261 s exact, 60 s on 1,000 landmarks with the same PC1 to 0.05
#: point; docs/landmarks.md). T⁷ is the paper's largest torus (small RNA), so every fit at
#: the paper's dimensions is as it was.
AUTO_EXACT_REFERENCE_D = 7
#: Landmarks of an ``"auto"`` fit past :func:`auto_exact_max_n` samples.
AUTO_LANDMARKS = 1000
#: From this d on a landmark fit solves SMDS on one landmark set only. Measured on the
#: 3-state data at d = 66, n = 10⁴ (m = 1000): three single-set fits (seeds 0, 1, 2) gave
#: PNS1 scores with correlation ≥ 0.999997 to the default three-set fit's, sphere PC1
#: within 0.08 point (80.30–80.38 %) and all-pairs stresses within 0.4 %, while each set
#: cost 15–16 s of CPU (plus 2,000 validation placements): the sets reach the same answer.
#: 60 is a round cut-off below the one dimension measured (66); between T⁸ and T⁶⁰ the sets
#: are still compared (their stresses were 2–4 % apart at d = 20), and no d between 20 and
#: 66 was measured.
LANDMARK_SINGLE_SET_MIN_D = 60
#: Fewest landmarks a fit may ask for.
MIN_LANDMARKS = 50
#: Share of farthest-point landmarks in the ``"mixed"`` rule.
MAXMIN_SHARE = 0.05
#: Farthest-point seeding looks at a random pool of this many points per landmark.
MAXMIN_POOL_FACTOR = 50


def auto_exact_max_n(n_dims: int) -> int:
    """The most samples on T^n_dims that ``n_landmarks="auto"`` fits exactly: 6,000 up to
    T⁷, then fewer so that n² · d stays the same (2,509 on T⁴⁰, 1,954 on T⁶⁶), never
    fewer than :data:`AUTO_LANDMARKS` (as many landmarks as samples is the exact fit)."""
    if n_dims <= AUTO_EXACT_REFERENCE_D:
        return AUTO_EXACT_MAX_N
    scaled = int(AUTO_EXACT_MAX_N * (AUTO_EXACT_REFERENCE_D / n_dims) ** 0.5)
    return max(AUTO_LANDMARKS, scaled)


def landmark_sets(landmark_trials: int, n_dims: int) -> int:
    """The most landmark sets a landmark fit on T^n_dims solves SMDS on."""
    return landmark_trials if n_dims < LANDMARK_SINGLE_SET_MIN_D else 1


def resolve_n_landmarks(n_landmarks: int | str | None, n_samples: int,
                        n_dims: int) -> int | None:
    """The number of landmarks a fit of ``n_samples`` points on T^n_dims uses, or None
    for an exact fit."""
    if n_landmarks is None or n_landmarks == "exact":
        return None
    if n_landmarks == "auto":
        return None if n_samples <= auto_exact_max_n(n_dims) else AUTO_LANDMARKS
    m = int(n_landmarks)
    return None if m >= n_samples else m


def choose_landmarks(
    angles: NDArray[np.float64],
    n_landmarks: int,
    random_state: np.random.Generator,
    method: str = "mixed",
    check: CancelCheck | None = None,
) -> NDArray[np.intp]:
    """Indices of ``n_landmarks`` distinct samples, sorted, chosen by ``method``.

    Parameters
    ----------
    angles : ndarray, shape (n, d)
        Torus sample in radians.
    n_landmarks : int
        m, with 1 ≤ m ≤ n.
    random_state : numpy.random.Generator
    method : {"mixed", "maxmin", "random"}
        See :data:`LANDMARK_METHODS`.
    check : callable, optional
        Called between farthest-point steps; raises to cancel.
    """
    n = angles.shape[0]
    m = int(n_landmarks)
    if not 1 <= m <= n:
        raise ValueError(f"n_landmarks must be between 1 and n = {n}; got {m}")
    if method not in LANDMARK_METHODS:
        raise ValueError(f"unknown landmark method {method!r}; "
                         f"expected one of {', '.join(LANDMARK_METHODS)}")
    n_maxmin = {"mixed": max(1, round(MAXMIN_SHARE * m)), "maxmin": m, "random": 0}[method]
    chosen = np.empty(0, dtype=np.intp)
    if n_maxmin > 0:
        pool_size = min(n, MAXMIN_POOL_FACTOR * m)
        pool = (np.arange(n) if pool_size == n
                else np.sort(random_state.choice(n, size=pool_size, replace=False)))
        chosen = pool[_farthest_points(angles[pool], n_maxmin, random_state, check)]
    n_random = m - chosen.size
    if n_random > 0:
        rest = np.setdiff1d(np.arange(n), chosen, assume_unique=True)
        chosen = np.concatenate([chosen, random_state.choice(rest, size=n_random,
                                                             replace=False)])
    return np.sort(chosen.astype(np.intp))


@kernel(fastmath=FAST_LOOPS)
def _lower_to_squared_distances(xt: NDArray, i: int, start: int, stop: int,
                                nearest: NDArray, scratch: NDArray) -> None:
    # nearest[t] = min(nearest[t], δ²(x_t, x_i)) for t in [start, stop).
    count = stop - start
    for t in range(count):
        scratch[t] = 0.0
    add_squared_distances_to_point(xt, i, start, stop, scratch)
    for t in range(count):
        if scratch[t] < nearest[start + t]:
            nearest[start + t] = scratch[t]


def _farthest_points(
    points: NDArray[np.float64],
    count: int,
    random_state: np.random.Generator,
    check: CancelCheck | None,
) -> NDArray[np.intp]:
    """Max–min seeding: first the point farthest from a random point (an extreme of the
    data), then each time the point farthest from all chosen so far (torus distance).

    Squared distances are compared (the same order); each step is one compiled pass over
    the pool, its columns split over the kernel threads (at d = 426 the NumPy passes with
    their wrapping took 150 ms a step).
    """
    xt = np.ascontiguousarray(wrap_angles(points).T)
    blocks = row_blocks(xt.shape[1], blocks_per_thread=1)

    def squared_distances_to(i: int, nearest: NDArray[np.float64]) -> NDArray[np.float64]:
        def run(block: tuple[int, int]) -> None:
            lo, hi = block
            _lower_to_squared_distances(xt, i, lo, hi, nearest, np.empty(hi - lo))

        map_parallel(run, blocks)
        return nearest

    seed = int(random_state.integers(points.shape[0]))
    first = int(np.argmax(squared_distances_to(seed, np.full(xt.shape[1], np.inf))))
    chosen = [first]
    nearest = squared_distances_to(first, np.full(xt.shape[1], np.inf))
    for step in range(1, count):
        if check is not None and step % 64 == 0:
            check()
        nxt = int(np.argmax(nearest))
        if nearest[nxt] <= 0.0:
            # Fewer distinct points than asked for: the rest are drawn at random.
            break
        chosen.append(nxt)
        squared_distances_to(nxt, nearest)
    return np.asarray(chosen, dtype=np.intp)
