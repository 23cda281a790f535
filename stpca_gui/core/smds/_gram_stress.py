"""The SMDS pair sums at high dimension, from Gram blocks (BLAS) and torus distances kept.

:mod:`._smds_kernel` recomputes, for every pair and every evaluation, the torus distance
(d subtractions) and the chords (2p products) and then the gradient (another 4p products per
pair) in scalar loops. At d = 66 and m = 1,000 landmarks that was 59 ms per evaluation, at
d = 426 about a second. Here the same five sums (Σ δ², Σ δθ, Σ θ², ∇ Σ δθ, ∇ Σ θ²) are
built from

* the torus distances δ, computed once per sample (they do not depend on the
  configuration) and kept for the upper triangle, n²/2 numbers;
* the Gram matrix g_ij = y_i · y_j of the configuration, a matrix product per row block;
* a compiled pass over the pairs of the block turning g into θ = 2 atan2(|y_j − y_i|,
  |y_j + y_i|) (chords from |y_i|² + |y_j|² ∓ 2 g) and 1 / sin θ, and the sums;
* once the radius is known, one gradient for the combination the optimiser needs
  (r² ∇ Σ θ² − 2r ∇ Σ δθ) as matrix products of the pair weights with the configuration:
  ∇_{y_i} Σ_j c_ij θ_ij = −Σ_j w_ij (y_j − g_ij y_i), w_ij = c_ij / sin θ_ij.

Row blocks run on the kernel threads through :func:`~stpca_gui.core._base.parallel.map_parallel`
(numba and BLAS both release the GIL); every block returns its own partial sums, added in
block order, so results do not depend on the thread schedule. Memory: the kept distances
(the upper triangle, about 4 n² bytes) and, between the sums and the gradient, the Gram
matrix, θ and 1 / sin θ of the same triangle (12 n² bytes; 12 MB at n = 1,000).

The chords from the Gram matrix lose digits when two points nearly coincide (an absolute
error of about 1e-16 in |y_j − y_i|², so θ below about 1e-7 rad is not resolved), which the
scalar kernel avoids; the fits it serves (d above :data:`GRAM_MIN_DIMS`) have no such pairs
that matter to the stress, and the tests compare both paths.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .._base.jit import kernel
from .._base.parallel import map_parallel
from ..geometry._torus_kernel import add_squared_distances_to_point
from ..geometry.angle_math import atan2_nonneg
from ._pair_squares import FAST_LOOPS


@kernel(fastmath=FAST_LOOPS)
def _torus_distance_rows(xt: NDArray, row_start: int, row_stop: int, out: NDArray) -> None:
    # out[a, t] = δ(x_{row_start + a}, x_{row_start + t}) for t > a (zero elsewhere), the
    # squares summed over angles in order, as ``add_pair_squares`` does.
    n = xt.shape[1]
    for a in range(row_stop - row_start):
        i = row_start + a
        row = out[a]
        for t in range(row.shape[0]):
            row[t] = 0.0
        add_squared_distances_to_point(xt, i, i + 1, n, out[a, a + 1:])
        for t in range(a + 1, row.shape[0]):
            row[t] = math.sqrt(row[t])


@kernel(fastmath=FAST_LOOPS)
def _block_angles(gram: NDArray, delta: NDArray, squares: NDArray, row_start: int,
                  theta: NDArray, inv_sin: NDArray) -> tuple[float, float]:
    # gram, delta, theta, inv_sin: (rows, n - row_start), column t is point row_start + t;
    # only t > a (pairs i < j) is filled and summed.
    sum_dt = 0.0
    sum_tt = 0.0
    for a in range(gram.shape[0]):
        g_row = gram[a]
        d_row = delta[a]
        t_row = theta[a]
        s_row = inv_sin[a]
        sq_i = squares[row_start + a]
        sq_rest = squares[row_start:]
        for t in range(a + 1, g_row.shape[0]):
            g = g_row[t]
            sq = sq_i + sq_rest[t]
            norm_d = math.sqrt(max(sq - 2.0 * g, 0.0))
            norm_s = math.sqrt(max(sq + 2.0 * g, 0.0))
            angle = 2.0 * atan2_nonneg(norm_d, norm_s)
            sum_dt += d_row[t] * angle
            sum_tt += angle * angle
            # |y_j - y_i| = 2 sin(θ/2) and |y_j + y_i| = 2 cos(θ/2), so sin θ = |d||s|/2.
            sin_t = 0.5 * norm_d * norm_s
            t_row[t] = angle
            s_row[t] = 1.0 / sin_t if sin_t > 0.0 else 0.0
    return sum_dt, sum_tt


@kernel(fastmath=FAST_LOOPS)
def _block_weights(gram: NDArray, delta: NDArray, theta: NDArray, inv_sin: NDArray,
                   coef_b: float, coef_c: float, weight: NDArray, along: NDArray) -> None:
    # weight[a, t] = (coef_b δ + coef_c 2θ) / sin θ for t > a, 0 elsewhere: the weights of
    # ∇(coef_b Σ δθ + coef_c Σ θ²). along (n - row_start) receives Σ w g for both points
    # of every pair, the component along y_i that the gradient removes.
    for a in range(gram.shape[0]):
        w_row = weight[a]
        for t in range(a + 1):
            w_row[t] = 0.0
        g_row = gram[a]
        d_row = delta[a]
        t_row = theta[a]
        s_row = inv_sin[a]
        acc = 0.0
        for t in range(a + 1, g_row.shape[0]):
            w = (coef_b * d_row[t] + 2.0 * coef_c * t_row[t]) * s_row[t]
            w_row[t] = w
            wg = w * g_row[t]
            acc += wg
            along[t] += wg
        along[a] += acc


@dataclass(frozen=True)
class GramAngles:
    """One configuration's pair angles, block by block, from which gradients follow."""

    units: NDArray[np.float64]
    blocks: list[tuple[int, int]]
    #: Per block: the Gram matrix, θ and 1 / sin θ.
    arrays: list[tuple[NDArray, NDArray, NDArray]]


class GramPairSums:
    """The pair sums of a fixed torus sample, evaluated through Gram blocks.

    Parameters
    ----------
    xt : ndarray, shape (d, n)
        Angles wrapped to [-π, π), one row per angle.
    chunk_starts : ndarray of int64
        Row boundaries of the blocks (equal pair counts, see
        :func:`._smds_kernel.balanced_chunks`).
    """

    def __init__(self, xt: NDArray[np.float64], chunk_starts: NDArray[np.int64]) -> None:
        self.n_samples = xt.shape[1]
        self._blocks = [(int(a), int(b)) for a, b in itertools.pairwise(chunk_starts)]
        n = self.n_samples

        def distances(block: tuple[int, int]) -> NDArray[np.float64]:
            start, stop = block
            out = np.zeros((stop - start, n - start))
            _torus_distance_rows(xt, start, stop, out)
            return out

        self._delta = map_parallel(distances, self._blocks)
        self.sum_dd = float(sum(np.sum(block * block) for block in self._delta))

    def sums(self, units: NDArray[np.float64], keep: bool
             ) -> tuple[float, float, float, GramAngles | None]:
        """Σ δ², Σ δθ, Σ θ² for unit vectors (n, p); with ``keep`` also the pair angles
        for :meth:`gradient`."""
        y = np.ascontiguousarray(units, dtype=np.float64)
        squares = np.einsum("ij,ij->i", y, y)

        def run(index: int) -> tuple[float, float, tuple[NDArray, NDArray, NDArray]]:
            start, stop = self._blocks[index]
            gram = y[start:stop] @ y[start:].T
            theta = np.empty_like(gram)  # filled for t > a, the only entries read
            inv_sin = np.empty_like(gram)
            sum_dt, sum_tt = _block_angles(gram, self._delta[index], squares, start,
                                           theta, inv_sin)
            return sum_dt, sum_tt, (gram, theta, inv_sin)

        parts = map_parallel(run, range(len(self._blocks)))
        sum_dt = 0.0
        sum_tt = 0.0
        for part in parts:
            sum_dt += part[0]
            sum_tt += part[1]
        angles = GramAngles(y, self._blocks, [part[2] for part in parts]) if keep else None
        return self.sum_dd, sum_dt, sum_tt, angles

    def gradient(self, angles: GramAngles, coef_b: float, coef_c: float
                 ) -> NDArray[np.float64]:
        """∇ (coef_b Σ δθ + coef_c Σ θ²) with respect to the unit vectors, tangent, (n, p).

        ∇_{y_i} θ_ij = −(y_j − g_ij y_i) / sin θ_ij, so the gradient is −W Y + (Σ_j w_ij
        g_ij) y_i for the symmetric weights W; with only the upper triangle U of W kept per
        block, W Y = U Y + Uᵀ Y, two products per block.
        """
        y = angles.units
        n, p = y.shape

        def run(index: int) -> tuple[NDArray, NDArray]:
            start, stop = angles.blocks[index]
            gram, theta, inv_sin = angles.arrays[index]
            weight = np.empty_like(gram)
            along = np.zeros(n - start)
            _block_weights(gram, self._delta[index], theta, inv_sin, coef_b, coef_c,
                           weight, along)
            # Rows i of the block gain Σ_{j>i} w_ij y_j; every later point j gains
            # Σ_{i in block} w_ij y_i.
            pulled = weight.T @ y[start:stop]
            pulled[:stop - start] += weight @ y[start:]
            return pulled, along

        parts = map_parallel(run, range(len(angles.blocks)))
        pulled = np.zeros((n, p))
        along = np.zeros(n)
        for (start, _), (block_pulled, block_along) in zip(angles.blocks, parts, strict=True):
            pulled[start:] += block_pulled
            along[start:] += block_along
        return along[:, None] * y - pulled
