"""The stress of SMDS (eq. smds3) that the optimisers minimise, with its gradient.

:class:`PairStress` holds a torus sample and evaluates, for a configuration of unit vectors
on S^d, the pair sums of the compiled kernel (:mod:`~stpca_gui.core.smds._smds_kernel`),
:class:`StressParts`, from which the stress at any radius, the optimal radius Σ δθ / Σ θ² and
the gradients follow. (:mod:`~stpca_gui.core.smds.pair_stress` measures the stress of a
finished configuration over all samples, in O(n) memory.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .._base.parallel import worker_count
from . import _smds_kernel as kernel
from ._gram_stress import GramPairSums

#: Chunks per thread of the pair kernel: more than one evens out load imbalance.
_CHUNKS_PER_THREAD = 4
#: Below this many pairs the kernel runs single-threaded (see ``pair_sums_serial``).
_PARALLEL_MIN_PAIRS = 400_000
#: From this many angles on, the pair sums come from Gram blocks and torus distances kept
#: (:mod:`._gram_stress`): the scalar kernel's per-pair loops over d and p cost more than
#: matrix products from here (measured in docs/high_dimension.md); below it the scalar
#: kernel keeps the fits at the paper's dimensions exactly as they were.
GRAM_MIN_DIMS = 16
#: Above this many points the Gram path's arrays (16 n² bytes, 268 MB at 4096) are not
#: worth it: the scalar kernel, which allocates nothing of size n², runs instead.
GRAM_MAX_N = 4096
#: Pairs per Gram block at most (memory per block: 24 bytes a pair).
_GRAM_BLOCK_PAIRS = 1 << 20


@dataclass(frozen=True)
class StressParts:
    """Sums over unordered pairs from which any stress Σ (δ - r θ)² follows."""

    sum_dd: float
    sum_dt: float
    sum_tt: float
    grad_dt: NDArray[np.float64] | None  # ∇_y Σ δθ, shape (n, p)
    grad_tt: NDArray[np.float64] | None  # ∇_y Σ θ², shape (n, p)

    def optimal_radius(self) -> float:
        """Radius minimising the stress for this configuration (Σ δθ / Σ θ²)."""
        return self.sum_dt / self.sum_tt if self.sum_tt > 0.0 else 1.0

    def pair_stress_sum(self, radius: float) -> float:
        """Σ_{i<j} (δ - r θ)², clipped at 0 against rounding."""
        value = self.sum_dd - 2.0 * radius * self.sum_dt + radius * radius * self.sum_tt
        return max(value, 0.0)


class PairStress:
    """Stress of a fixed torus sample against sphere configurations, with gradients.

    Parameters
    ----------
    angles : ndarray, shape (n, d)
        Angles already wrapped to [-π, π).
    """

    def __init__(self, angles: NDArray[np.float64]) -> None:
        self.n_samples, self.n_angles = angles.shape
        self._xt = np.ascontiguousarray(angles.T)
        threads = worker_count()
        self._chunks = kernel.balanced_chunks(self.n_samples, threads * _CHUNKS_PER_THREAD)
        n = self.n_samples
        self._parallel = threads > 1 and n * (n - 1) // 2 >= _PARALLEL_MIN_PAIRS
        self._gram: GramPairSums | None = None
        if self.n_angles >= GRAM_MIN_DIMS and n <= GRAM_MAX_N:
            blocks = max(2 * threads, -(-n * (n - 1) // 2 // _GRAM_BLOCK_PAIRS))
            self._gram = GramPairSums(self._xt, kernel.balanced_chunks(n, blocks))
        # 2 / (n (n - 1)) turns a sum over unordered pairs into eq. (smds3)'s normalisation.
        self.pair_scale = 2.0 / (n * (n - 1))

    def parts(self, unit_vectors: NDArray[np.float64], *, gradient: bool = True) -> StressParts:
        """Evaluate the pair sums for unit vectors of shape (n, p)."""
        if self._gram is not None:
            a, b, c, angles = self._gram.sums(unit_vectors, keep=gradient)
            if angles is None:
                return StressParts(a, b, c, None, None)
            return StressParts(a, b, c, self._gram.gradient(angles, 1.0, 0.0),
                               self._gram.gradient(angles, 0.0, 1.0))
        yt = np.ascontiguousarray(unit_vectors.T)
        if self._parallel:
            a, b, c, grad_b, grad_c = kernel.pair_sums(self._xt, yt, self._chunks, gradient)
        else:
            a, b, c, grad_b, grad_c = kernel.pair_sums_serial(self._xt, yt, gradient)
        if not gradient:
            return StressParts(a, b, c, None, None)
        return StressParts(a, b, c, grad_b.T, grad_c.T)

    def stress(self, unit_vectors: NDArray[np.float64], radius: float | None = None) -> float:
        """Eq. (smds3) stress; ``radius=None`` uses the optimal radius for the configuration."""
        parts = self.parts(unit_vectors, gradient=False)
        r = parts.optimal_radius() if radius is None else radius
        return self.pair_scale * parts.pair_stress_sum(r)

    def value_and_gradient(
        self, free_vectors: NDArray[np.float64], radius: float | None
    ) -> tuple[float, NDArray[np.float64], float, StressParts]:
        """Stress, its gradient with respect to the free vectors z, and the radius used.

        With ``radius=None`` the radius is profiled out (r = Σ δθ / Σ θ²); by the envelope
        theorem the gradient of the concentrated stress is then the partial gradient at
        that r, so one formula serves both cases.
        """
        norms = np.linalg.norm(free_vectors, axis=1, keepdims=True)
        units = free_vectors / norms
        if self._gram is not None:
            # One product pass for the combination r² ∇C − 2r ∇B, once r is known.
            a, b, c, angles = self._gram.sums(units, keep=True)
            parts = StressParts(a, b, c, None, None)
            r = parts.optimal_radius() if radius is None else radius
            grad_y = self.pair_scale * self._gram.gradient(angles, -2.0 * r, r * r)
        else:
            parts = self.parts(units)
            r = parts.optimal_radius() if radius is None else radius
            grad_y = self.pair_scale * (r * r * parts.grad_tt - 2.0 * r * parts.grad_dt)
        value = self.pair_scale * parts.pair_stress_sum(r)
        # d y / d z = (I - y yᵀ) / |z|; the kernel's gradient is tangent already, but the
        # projection removes the rounding drift along y.
        grad_y -= np.sum(grad_y * units, axis=1, keepdims=True) * units
        return value, grad_y / norms, r, parts
