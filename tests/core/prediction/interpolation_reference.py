"""A slow reference for T̂ (eq. interp), independent of the compiled kernel.

Each torus point is placed by scipy's Levenberg–Marquardt (``least_squares``, tolerances
1e-15) on the residuals r θ(y/|y|, ŷ_i) − δ_T(x, x_i) in the ambient coordinates, started
at the ŷ of each of the few landmarks nearest to x (the paper's start is the nearest); the
lowest stress wins. The winner is then polished by Newton's method in extended precision
(``numpy.longdouble``, 64-bit mantissa on x86): the analytic tangent gradient, a central-
difference Hessian in an orthonormal tangent basis, steps until they fall below 1e-17.
The answer is thus the stationary point to about 1e-16 / (smallest Hessian eigenvalue),
far below what a float64 solver can resolve, so that the kernel's error (and the old
kernel's) can be measured against it.

Used by ``tests/core/prediction/test_interpolation_kernel.py`` and
``benchmarks/bench_interpolation_agreement.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import least_squares

from stpca_gui.core.geometry.torus import torus_cdist
from stpca_gui.core.prediction import SMDSMatch

_WIDE = np.longdouble
#: Central-difference step of the Hessian (radians): its truncation error (h²) and its
#: rounding (eps_longdouble / h) both stay far below what Newton's fixed point depends on.
_HESSIAN_STEP = 1e-7
_POLISH_STEPS = 30
_POLISH_TOL = 1e-17


@dataclass(frozen=True)
class ReferencePlacement:
    """One reference placement: the unit vector, its stress (eq. interp, extended
    precision), the norm of the tangent gradient there and the Hessian's eigenvalues."""

    unit: NDArray[np.float64]
    stress: float
    gradient_norm: float
    hessian_eigenvalues: NDArray[np.float64]


def _angles_to(y: NDArray, embedding: NDArray) -> NDArray:
    # 2 atan2(|y − ŷ|, |y + ŷ|): accurate at every angle, unlike arccos near 0 and π.
    return 2.0 * np.arctan2(np.sqrt(((y - embedding) ** 2).sum(axis=1)),
                            np.sqrt(((y + embedding) ** 2).sum(axis=1)))


def stress_and_gradient(embedding: NDArray, radius, targets: NDArray, y: NDArray
                        ) -> tuple[NDArray, NDArray]:
    """Mean stress at the unit vector ``y`` and its tangent gradient, in the precision of
    the arguments (partners that y coincides with contribute no gradient)."""
    theta = _angles_to(y, embedding)
    residual = radius * theta - targets
    sine = np.sin(theta)
    usable = sine > 1e-12
    cosine = embedding @ y
    directions = -(embedding - cosine[:, None] * y[None, :])
    directions[usable] /= sine[usable, None]
    directions[~usable] = 0.0
    gradient = 2.0 * radius * (residual[:, None] * directions).mean(axis=0)
    return np.mean(residual**2), gradient


def _tangent_basis(y: NDArray[np.float64]) -> NDArray[np.float64]:
    """Columns orthonormal to the unit vector y (from a QR factorisation)."""
    p = y.shape[0]
    q, _ = np.linalg.qr(np.column_stack([y, np.eye(p)]))
    return q[:, 1:p]


def _move(y: NDArray, direction: NDArray, length) -> NDArray:
    """The point ``length`` along the great circle from y towards the unit tangent
    ``direction``."""
    return y * np.cos(length) + direction * np.sin(length)


def _polish(embedding: NDArray, radius, targets: NDArray, y: NDArray[np.float64]
            ) -> ReferencePlacement:
    """Newton's method in extended precision from the unit vector y to the stationary
    point nearby (a minimum, or a saddle point if y is near one)."""
    e, r, t = embedding.astype(_WIDE), _WIDE(radius), targets.astype(_WIDE)
    y_wide = y.astype(_WIDE) / np.sqrt((y.astype(_WIDE) ** 2).sum())
    hessian = np.zeros((y.size - 1, y.size - 1))
    for _ in range(_POLISH_STEPS):
        basis = _tangent_basis(y_wide.astype(np.float64)).astype(_WIDE)
        basis -= y_wide[:, None] * (y_wide @ basis)[None, :]  # tangent in wide precision
        basis /= np.sqrt((basis**2).sum(axis=0))
        _, gradient = stress_and_gradient(e, r, t, y_wide)
        for a in range(basis.shape[1]):
            plus = stress_and_gradient(e, r, t, _move(y_wide, basis[:, a], _HESSIAN_STEP))[1]
            minus = stress_and_gradient(e, r, t, _move(y_wide, basis[:, a], -_HESSIAN_STEP))[1]
            hessian[:, a] = (basis.T @ (plus - minus)).astype(np.float64) / (2 * _HESSIAN_STEP)
        hessian = 0.5 * (hessian + hessian.T)
        step = -np.linalg.solve(hessian, (basis.T @ gradient).astype(np.float64))
        length = np.linalg.norm(step)
        if length > 0.0:
            y_wide = _move(y_wide, basis @ (step / length).astype(_WIDE), _WIDE(length))
            y_wide /= np.sqrt((y_wide**2).sum())
        if length < _POLISH_TOL:
            break
    stress, gradient = stress_and_gradient(e, r, t, y_wide)
    return ReferencePlacement(y_wide.astype(np.float64), float(stress),
                              float(np.sqrt((gradient.astype(np.float64) ** 2).sum())),
                              np.linalg.eigvalsh(hessian))


def stationary_point_near(match: SMDSMatch, point: NDArray[np.float64],
                          start: NDArray[np.float64]) -> ReferencePlacement:
    """The stationary point of eq. (interp) for ``point`` that Newton's method reaches from
    the unit vector ``start`` (in extended precision)."""
    targets = torus_cdist(point[None, :], match.angles)[0]
    return _polish(match.embedding, match.radius, targets, start)


def reference_placement(match: SMDSMatch, point: NDArray[np.float64], n_starts: int = 5
                        ) -> ReferencePlacement:
    """T̂ of one torus point: the lowest of the Levenberg–Marquardt minima from the
    ``n_starts`` nearest landmarks, polished in extended precision."""
    targets = torus_cdist(point[None, :], match.angles)[0]
    embedding, radius = match.embedding, match.radius

    def residuals(v: NDArray[np.float64]) -> NDArray[np.float64]:
        return radius * _angles_to(v / np.linalg.norm(v), embedding) - targets

    best: tuple[float, NDArray[np.float64]] | None = None
    for nearest in np.argsort(targets, kind="stable")[:n_starts]:
        solution = least_squares(residuals, embedding[nearest], method="lm", xtol=1e-15,
                                 ftol=1e-15, gtol=1e-15, max_nfev=5000)
        value = float(np.mean(solution.fun**2))
        if best is None or value < best[0]:
            best = (value, solution.x / np.linalg.norm(solution.x))
    assert best is not None
    return _polish(embedding, radius, targets, best[1])
