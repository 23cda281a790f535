"""Prediction T̃ (sphere → torus) and interpolation T̂ (torus → sphere) of an SMDS fit.

Given the matched configurations x_1..x_n ∈ T^d and ŷ_1..ŷ_n ∈ S^d_r of a spherical MDS
fit, a new sphere point y is *predicted* on the torus by (paper, eq. invmds2)

    T̃(y) = argmin_x (1/n) Σ_i (δ_T(x, x_i) − δ_{S_r}(y, ŷ_i))²,

and a new torus point x is *interpolated* onto the sphere by the same stress with the roles
swapped (eq. interp). Both are solved numerically (compiled Levenberg–Marquardt, see
``_prediction_kernel``); starts default to the matched partner of the nearest sample, as
the paper recommends. From d = :data:`MATRIX_FREE_MIN_D` on, the kernels of
``_matrix_free_kernel`` solve the same problems without forming the d × d Newton model
(O(n·d) instead of O(n·d²) work per pass); T̂ then starts from the linear placement of the
partners' cosines, which is ten times closer to the minimiser than the nearest partner, and
places the points in blocks whose passes over the partners are matrix products
(``_block_placing``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.progress import ProgressEvent
from .._base.registry import model_file_class
from ..geometry.torus import wrap_angles
from ..geometry.validation import as_float_matrix
from . import _block_placing as block_placing
from . import _matrix_free_kernel as matrix_free
from . import _prediction_kernel as kernel

#: Levenberg–Marquardt iterations per query and relative stress decrease that stops them.
DEFAULT_MAX_ITER = 200
DEFAULT_TOL = 1e-12
#: T̂'s relative stress decrease that stops it: at the rounding of the stress, so that its
#: Newton iteration ends by the step-length rules of the kernel, within about 1e-12 of the
#: minimiser. At 1e-12 it could stop one step early where the damping still slowed the
#: last steps, up to 2e-8 short of the minimiser (tests/core/prediction/test_interpolation_kernel.py
#: measures the distance against an extended-precision reference; +1 % passes per point).
INTERPOLATION_TOL = 1e-16
#: Dimension from which T̂ and T̃ use the matrix-free kernels. Measured on the peptide-like
#: data of :mod:`~stpca_gui.core.torsion_states` with 1000 partners (CPU ms per query,
#: dense / matrix-free, machine busy): T̂ 0.21 / 0.32 at d = 12, 0.62 / 0.68 at d = 20,
#: 8.4 / 2.1 at d = 66; T̃ 0.58 / 0.69, 1.9 / 1.1, 19.6 / 7.3. Below it the dense kernels
#: are faster, and their answers (the paper's tables at d ≤ 7) stay as they were.
MATRIX_FREE_MIN_D = 20
#: Query × sample entries of one block of nearest-sample searches (32 MB of float64).
_BLOCK_ENTRIES = 1 << 22


def _blockwise_argbest(
    queries: NDArray[np.float64], best_of_rows: Callable[[slice], NDArray[np.intp]],
    n_samples: int,
) -> NDArray[np.intp]:
    """``best_of_rows`` over blocks of queries, so that the query × sample matrix of one
    block stays within :data:`_BLOCK_ENTRIES` whatever the number of queries."""
    n_queries = queries.shape[0]
    step = max(1, _BLOCK_ENTRIES // max(n_samples, 1))
    out = np.empty(n_queries, dtype=np.intp)
    for begin in range(0, n_queries, step):
        rows = slice(begin, min(n_queries, begin + step))
        out[rows] = best_of_rows(rows)
    return out


@model_file_class()
@dataclass(frozen=True)
class SMDSMatch:
    """The matched configurations of a spherical MDS fit.

    Attributes
    ----------
    angles : ndarray, shape (n, d)
        Torus sample, wrapped to [-π, π).
    embedding : ndarray, shape (n, d + 1)
        Unit vectors matched to ``angles``.
    radius : float
        Sphere radius r.
    """

    angles: NDArray[np.float64]
    embedding: NDArray[np.float64]
    radius: float

    def _unit_queries(self, points: ArrayLike) -> NDArray[np.float64]:
        values = as_float_matrix(np.atleast_2d(points), what="sphere points")
        if values.shape[1] != self.embedding.shape[1]:
            raise ValueError(
                f"sphere points must have {self.embedding.shape[1]} coordinates, "
                f"got {values.shape[1]}"
            )
        norms = np.linalg.norm(values, axis=1)
        if np.any(norms == 0.0):
            raise ValueError(f"sphere point at row {int(np.argmin(norms))} is the zero vector")
        return np.ascontiguousarray(values / norms[:, None])

    def nearest_sample_by_sphere(self, units: NDArray[np.float64]) -> NDArray[np.intp]:
        """Index of the sample whose ŷ_i is closest to each unit vector."""
        return _blockwise_argbest(units, lambda rows: np.argmax(
            units[rows] @ self.embedding.T, axis=1), self.embedding.shape[0])

    def predict(
        self,
        sphere_points: ArrayLike,
        start: ArrayLike | None = None,
        *,
        chain: bool = False,
        max_iter: int = DEFAULT_MAX_ITER,
        tol: float = DEFAULT_TOL,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """T̃: torus points for sphere points (any positive scale; rows are normalised).

        Parameters
        ----------
        sphere_points : array_like, shape (m, d + 1)
        start : array_like, shape (m, d) or (d,), optional
            Start angles. By default each query starts at the sample whose ŷ_i is nearest;
            with ``chain=True`` only the first query does and every later one starts from
            the previous answer (for tracing curves).
        chain : bool
            Warm-start consecutive queries from each other.
        max_iter, tol : int, float
            Levenberg–Marquardt limits per query.

        Returns
        -------
        angles : ndarray, shape (m, d)
            Predicted torus points in [-π, π).
        stress : ndarray, shape (m,)
            Attained value of the eq. (invmds2) objective per query.
        """
        units = self._unit_queries(sphere_points)
        d = self.angles.shape[1]
        if start is None:
            starts = self.angles[self.nearest_sample_by_sphere(units)]
        else:
            starts = np.broadcast_to(wrap_angles(as_float_matrix(
                np.atleast_2d(start), what="start angles")), (units.shape[0], d))
        starts = np.ascontiguousarray(starts, dtype=np.float64)
        if d >= MATRIX_FREE_MIN_D:
            return matrix_free.predict_torus_cg(units, self.angles, self.embedding,
                                                self.radius, starts, int(max_iter),
                                                float(tol), chain=chain)
        if chain:
            return kernel.predict_torus_chain(units, self.angles, self.embedding, self.radius,
                                              starts[0], int(max_iter), float(tol))
        return kernel.predict_torus(units, self.angles, self.embedding, self.radius, starts,
                                    int(max_iter), float(tol))

    def interpolate(
        self,
        torus_points: ArrayLike,
        *,
        max_iter: int = DEFAULT_MAX_ITER,
        tol: float = INTERPOLATION_TOL,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """T̂: unit vectors on S^d for new torus points (radians, any range).

        Each query starts at ŷ_j of the torus sample x_j nearest to it (from d =
        :data:`MATRIX_FREE_MIN_D` on, at the linear placement of the cosines, in blocks of
        queries, see ``_block_placing``).

        Returns
        -------
        units : ndarray, shape (m, d + 1)
        stress : ndarray, shape (m,)
            Attained value of the eq. (interp) objective per query.
        """
        points = as_float_matrix(np.atleast_2d(torus_points), what="torus points")
        if points.shape[1] != self.angles.shape[1]:
            raise ValueError(
                f"torus points must have {self.angles.shape[1]} angles, got {points.shape[1]}"
            )
        points = np.ascontiguousarray(wrap_angles(points))
        if points.shape[1] >= MATRIX_FREE_MIN_D:
            return block_placing.interpolate_sphere_blocks(
                points, self.angles, self.embedding, self.radius, int(max_iter), float(tol))
        return kernel.interpolate_sphere(points, self.angles, self.embedding, self.radius,
                                         int(max_iter), float(tol))


#: Points placed on the sphere by T̂ between two progress reports of a landmark fit.
PLACEMENT_BATCH = 4096


def place_on_sphere(
    match: SMDSMatch, angles: NDArray[np.float64], landmark_indices: NDArray[np.intp],
    report: Callable[[ProgressEvent], None],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Unit vectors of all samples: the landmarks' SMDS configuration, T̂ for the others.

    The others are placed :data:`PLACEMENT_BATCH` at a time (memory O(batch · m)), with a
    progress report, and so a chance to cancel, after each batch.
    """
    n, d = angles.shape
    embedding = np.empty((n, d + 1))
    stress = np.zeros(n)
    embedding[landmark_indices] = match.embedding
    others = np.setdiff1d(np.arange(n), landmark_indices, assume_unique=True)
    for begin in range(0, others.size, PLACEMENT_BATCH):
        rows = others[begin:begin + PLACEMENT_BATCH]
        embedding[rows], stress[rows] = match.interpolate(angles[rows])
        done = min(others.size, begin + PLACEMENT_BATCH)
        report(ProgressEvent("interpolation", done / others.size,
                             message=f"placing points on the sphere: {done:,} of {others.size:,}"))
    return embedding, stress
