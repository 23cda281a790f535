"""The subsphere solver of Principal Nested Spheres: one least-squares subsphere per level.

A level of PNS (paper, eq. PNS and §3.3) fits the subsphere ``{x : arccos(v·x) = r}`` that
minimises ``Σ_i (arccos(v·x_i) − r)²`` to unit vectors — a small sphere (r free) or a great
sphere (r = π/2) — and rotates its axis to the north pole (shapes' ``rotMat``). The fit is a
damped Riemannian Newton iteration, batched over many data sets at once (the bootstrap of
:mod:`stpca_gui.core.pns.isotropy` fits all its samples together). See ``docs/pns.md``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.progress import CancelCheck
from .._base.row_slices import row_slices
from ..geometry.validation import reject_complex
from ._subsphere_kernel import objective_terms

__all__ = ["fit_subsphere", "project_to_subsphere", "rotate_rows", "rotation_to_north_pole",
           "subsphere_objective"]

HALF_PI = 0.5 * np.pi
#: Smallest spread (rad) of unit vectors PNS can fit: the largest angle from the first point
#: must reach it. Measured on 12 Gaussian points on S^3 scaled down: at a largest angle of
#: 2e-8–7e-8 the explained variance ratios are off by 0.01–0.1, identical points give NaN,
#: and from ~1e-7 on they agree with a wider copy of the same cloud to within 1e-3 (the
#: bootstrap's noise). It is ten times below the torus tolerance over a radius of 1–2, so
#: data that pass the torus check do not fail here in ST-PCA.
MIN_SPHERE_SPREAD = 1e-7

#: Levels in R^m with m above this are "high-dimensional": their fits start from the three
#: starts of shapes and the mean, not from every principal direction as well. Up to it
#: (every level of a fit on S^d with d ≤ 7) nothing differs from before.
HIGH_DIM = 8
#: Above this many points a level's starts are iterated on an evenly spaced subsample of this
#: size first (see :func:`fit_one_level`); up to it, on all the points as always.
START_SAMPLE = 20_000
#: The same above :data:`HIGH_DIM` coordinates, where an iteration costs O(n m²): a level
#: on S^66 of 10⁴ points then iterates its starts on 2,000 of them and passes over all the
#: points only to refine the best two solutions.
HIGH_DIM_START_SAMPLE = 2_000
#: Rows per block of the per-point maps (rotations, projections, geodesic angles, scores):
#: their temporaries are this many rows, not n (8.8 MB at m = 67; at n = 10⁶ an n × 67
#: temporary is 536 MB, and a level made four of them).
ROW_BLOCK = 16_384
#: Solutions of the subsample iterated further on all the points.
_REFINED_STARTS = 2
#: LM iteration limit of the main fits.
_MAX_ITER = 200
#: LM stops when the step on the sphere (radians) falls below this.
_STEP_TOL = 1e-11


# --------------------------------------------------------------------------------------------
# Geometry helpers
# --------------------------------------------------------------------------------------------


def rotation_to_north_pole(v: ArrayLike) -> NDArray[np.float64]:
    """Rotation matrix taking the unit vector ``v`` to the last basis vector (shapes' rotMat).

    Parameters
    ----------
    v : array_like, shape (m,)
        Axis (normalised internally), m ≥ 2.

    Returns
    -------
    ndarray, shape (m, m)
        ``R`` with ``R @ v = e_m``: the rotation by the angle between ``v`` and ``e_m`` in the
        plane they span (identity on its orthogonal complement).  As in shapes, ``v = e_m``
        gives the identity and ``v = −e_m`` gives ``−I``.
    """
    b = np.asarray(v, dtype=np.float64).ravel()
    b = b / np.linalg.norm(b)
    m = b.size
    plane = _rotation_plane(b)
    if plane is None:
        return np.eye(m)
    if isinstance(plane, float):
        return -np.eye(m)
    cos_a, sin_a, c = plane
    a = np.zeros(m)
    a[-1] = 1.0
    big_a = np.outer(a, c) - np.outer(c, a)
    return np.eye(m) + sin_a * big_a + (cos_a - 1.0) * (np.outer(a, a) + np.outer(c, c))


def _rotation_plane(
    b: NDArray[np.float64],
) -> tuple[float, float, NDArray[np.float64]] | float | None:
    """The plane of :func:`rotation_to_north_pole` for the unit vector ``b``: cos α, sin α
    and the unit vector c ⊥ e_m with b = cos α e_m + sin α c; None for b = e_m (identity),
    −1.0 for b = −e_m (−I)."""
    cos_a = float(b[-1])
    if abs(cos_a - 1.0) < 1e-15:
        return None
    if abs(cos_a + 1.0) < 1e-15:
        return -1.0
    c = b.copy()
    c[-1] = 0.0  # b − cos α e_m
    sin_a = float(np.linalg.norm(c))  # sin of the angle α between v and e_m, accurately
    return cos_a, sin_a, c / sin_a


def rotate_rows(
    x: NDArray[np.float64], rotation: NDArray[np.float64], inverse: bool = False
) -> NDArray[np.float64]:
    """``x @ rotation.T`` (or ``x @ rotation`` with ``inverse``) for a rotation of
    :func:`rotation_to_north_pole`.

    Up to m = :data:`HIGH_DIM` coordinates this is that matrix product; above, the rotation
    is applied as the rank-2 update it is (its axis is its last row), O(rows · m) instead
    of O(rows · m²): 2.6·10¹¹ multiply-adds fewer for the levels of a fit of 10⁴ points on
    S⁴²⁶.
    """
    m = rotation.shape[0]
    if m <= HIGH_DIM:
        return x @ rotation if inverse else x @ rotation.T
    plane = _rotation_plane(rotation[-1])
    if plane is None:
        return x.copy()
    if isinstance(plane, float):
        return -x
    cos_a, sin_a, c = plane
    if inverse:
        sin_a = -sin_a
    last = x[:, -1]
    along_c = x @ c
    out = x + (-sin_a * last + (cos_a - 1.0) * along_c)[:, None] * c[None, :]
    out[:, -1] += sin_a * along_c + (cos_a - 1.0) * last
    return out


def row_blocks(n: int) -> list[slice]:
    """Consecutive slices of :data:`ROW_BLOCK` rows covering ``range(n)`` (one slice for
    n ≤ ROW_BLOCK, so that small inputs take exactly the whole-array path)."""
    return row_slices(n, ROW_BLOCK)


def geodesic_angles(x: NDArray[np.float64], v: NDArray[np.float64]) -> NDArray[np.float64]:
    """arccos(x·v) computed stably as atan2(|x − (x·v)v|, x·v); rows of x unit vectors.

    Computed by blocks of rows (:func:`row_blocks`): its temporaries are ROW_BLOCK × m,
    not n × m, and each row's value is the same bit for bit.
    """
    out = np.empty(x.shape[0])
    for rows in row_blocks(x.shape[0]):
        block = x[rows]
        c = block @ v
        s = np.linalg.norm(block - c[:, None] * v[None, :], axis=1)
        out[rows] = np.arctan2(s, c)
    return out


def project_to_subsphere(x: NDArray[np.float64], rotation: NDArray[np.float64]
                         ) -> NDArray[np.float64]:
    """The unit rows of ``x`` (n, m) moved onto a level's subsphere, in its coordinates:
    rotated by ``rotation`` (axis to the north pole), the last coordinate dropped and
    renormalised; shape (n, m − 1), a new array. A point on the axis has no projection
    (its zero row is kept). Built by blocks of rows, so that its only n-sized allocation
    is the result."""
    out = np.empty((x.shape[0], x.shape[1] - 1))
    for rows in row_blocks(x.shape[0]):
        head = rotate_rows(x[rows], rotation)[:, :-1]
        h = np.linalg.norm(head, axis=1, keepdims=True)
        out[rows] = head / np.where(h > 0, h, 1.0)
    return out


def subsphere_objective(x: ArrayLike, center: ArrayLike, radius: float) -> float:
    """Mean squared residual ``mean_i (arccos(v·x_i) − r)²`` of a subsphere fit.

    Parameters
    ----------
    x : array_like, shape (n, m)
        Unit vectors (rows).
    center : array_like, shape (m,)
        Axis v (normalised internally).
    radius : float
        Geodesic radius r.

    Returns
    -------
    float
        The objective minimised by each PNS level (shapes' ``objfn``).
    """
    xa = np.asarray(x, dtype=np.float64)
    v = np.asarray(center, dtype=np.float64).ravel()
    v = v / np.linalg.norm(v)
    return float(np.mean((geodesic_angles(xa, v) - radius) ** 2))


# --------------------------------------------------------------------------------------------
# Batched subsphere fitting (Levenberg–Marquardt on the sphere)
# --------------------------------------------------------------------------------------------


def _initial_axes(x: NDArray[np.float64], extended: bool = False,
                  mean_start: bool = False) -> NDArray[np.float64]:
    """Starting axes for each data set in the batch ``x`` (P, n, m) → (P, S, m).

    The starts are the last right-singular vector of the (uncentred) data and the
    smallest-variance direction of the centred data (shapes' two starts), and the normalised
    mean direction (replaced by the first start when the mean is ~0).  With ``extended``
    the other principal directions of the centred data are added (S = m + 2), up to
    m = :data:`HIGH_DIM`. With ``mean_start`` the mean direction is the only start (the
    bootstrap samples of the isotropy test above m = :data:`HIGH_DIM`, where all three
    starts reach the same minimum).
    """
    if mean_start:
        mean = x.mean(axis=1)
        norm = np.linalg.norm(mean, axis=1, keepdims=True)
        if np.all(norm > 1e-8):
            return (mean / norm)[:, None, :]
    n, m = x.shape[1], x.shape[2]
    if m > HIGH_DIM:
        extended = False
        gram = np.matmul(x.transpose(0, 2, 1), x) / n
    else:
        gram = np.einsum("pni,pnj->pij", x, x) / n
    mean = x.mean(axis=1)
    cov = gram - mean[:, :, None] * mean[:, None, :]
    _, vec_g = np.linalg.eigh(gram)
    _, vec_c = np.linalg.eigh(cov)
    s1 = vec_g[:, :, 0]
    norm = np.linalg.norm(mean, axis=1, keepdims=True)
    ok = norm > 1e-8
    s3 = np.where(ok, mean / np.where(ok, norm, 1.0), s1)
    cov_starts = [vec_c[:, :, j] for j in range(vec_c.shape[2] if extended else 1)]
    return np.stack([s1, *cov_starts, s3], axis=1)


def _lm_fit(
    x: NDArray[np.float64], which: NDArray[np.int64], v0: NDArray[np.float64],
    great: bool | NDArray[np.bool_], max_iter: int, check: CancelCheck | None = None,
    parallel: bool = True,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Minimise the subsphere objective for a batch of problems (damped Riemannian Newton).

    The axis moves along great circles (exponential map).  The Hessian is exact: with
    ``g_i = ∇θ_i`` (unit tangent vectors) and ``Hess θ_i = cot θ_i (P − g_i g_iᵀ)`` on the
    unit sphere, ``½ Hess F = (1/n) [Σ G_i G_iᵀ + Σ e_i cot θ_i (P − g_i g_iᵀ)]`` where G_i
    is g_i centred over i for small spheres (the profiled radius) and g_i for great ones.
    Negative curvature is shifted away and a Levenberg–Marquardt parameter adapts to
    success/failure of each step (a step is accepted only if it lowers the objective).
    The sums over the points come from the compiled two-pass loop of
    :mod:`~stpca_gui.core.pns._subsphere_kernel` (memory O(problems × n)).

    Parameters
    ----------
    x : ndarray, shape (B, n, m)
        Unit vectors, B data sets.
    which : ndarray of int64, shape (P,)
        Data set of each problem (several starts share one data set).
    v0 : ndarray, shape (P, m)
        Starting axes (unit vectors).
    great : bool or ndarray of bool, shape (P,)
        Fix r = π/2 (great spheres) instead of profiling r out (small spheres), for every
        problem or per problem (each problem is iterated exactly as alone).
    max_iter : int
        Maximum number of iterations.
    check : callable, optional
        Called before each iteration; it raises to stop (cancel).
    parallel : bool
        Share the problems among the kernel threads when they are large enough.

    Returns
    -------
    v : ndarray, shape (P, m)
        Fitted axes (not folded).
    f : ndarray, shape (P,)
        Objective (mean squared residual) at ``v``.
    """
    p_count = which.size
    n, m = x.shape[1], x.shape[2]
    great = np.broadcast_to(np.asarray(great, dtype=np.bool_), (p_count,))
    v = v0 / np.linalg.norm(v0, axis=1, keepdims=True)
    f, gram, weighted, weight_sum, grad_sum = objective_terms(x, which, v, great, True,
                                                              parallel)
    lam = np.full(p_count, 1e-6)
    active = np.arange(p_count)
    eye = np.eye(m)
    for _ in range(max_iter):
        if active.size == 0:
            break
        if check is not None:
            check()
        va = v[active]
        h = (gram[active] - weighted[active]) / n
        vvt = va[:, :, None] * va[:, None, :]
        proj = eye[None] - vvt
        h += (weight_sum[active] / n)[:, None, None] * proj
        grad = grad_sum[active] / n
        scale = np.abs(np.trace(h, axis1=1, axis2=2)) / max(m - 1, 1) + 1e-300
        big = (np.abs(h).sum(axis=(1, 2)) + 1.0)[:, None, None]
        lam_min = np.linalg.eigvalsh(h + big * vvt)[:, 0]
        # Shift away negative curvature, add the adaptive damping, and a tiny absolute floor
        # keeping the system regular when the data are (numerically) a single point.
        mu = np.maximum(-lam_min, 0.0) * 1.01 + lam[active] * scale + 1e-14 * big[:, 0, 0]
        a_mat = h + mu[:, None, None] * proj + big * vvt
        step = -np.linalg.solve(a_mat, grad[:, :, None])[:, :, 0]
        step -= np.sum(step * va, axis=1, keepdims=True) * va
        nd = np.linalg.norm(step, axis=1)
        too_long = nd > HALF_PI
        if np.any(too_long):
            step[too_long] *= (HALF_PI / nd[too_long])[:, None]
            nd = np.minimum(nd, HALF_PI)
        safe = np.where(nd > 0, nd, 1.0)
        v_new = np.cos(nd)[:, None] * va + (np.sin(nd) / safe)[:, None] * step
        v_new /= np.linalg.norm(v_new, axis=1, keepdims=True)
        f_new, gram_new, weighted_new, weight_sum_new, grad_sum_new = objective_terms(
            x, which[active], v_new, great[active], True, parallel)
        f_old = f[active]
        accept = f_new < f_old
        idx_acc = active[accept]
        v[idx_acc] = v_new[accept]
        f[idx_acc] = f_new[accept]
        gram[idx_acc] = gram_new[accept]
        weighted[idx_acc] = weighted_new[accept]
        weight_sum[idx_acc] = weight_sum_new[accept]
        grad_sum[idx_acc] = grad_sum_new[accept]
        lam[idx_acc] = np.maximum(lam[idx_acc] / 10.0, 1e-12)
        idx_rej = active[~accept]
        lam[idx_rej] = np.maximum(lam[idx_rej] * 10.0, 1e-4)
        # Convergence: tiny accepted step, no relative decrease, or hopeless damping.
        done = (
            (accept & (nd < _STEP_TOL))
            | (accept & (f_old - f_new <= 1e-15 * f_old))
            | (~accept & ((nd < _STEP_TOL) | (lam[active] > 1e12)))
        )
        active = active[~done]
    return v, f


def fit_subspheres(
    x: NDArray[np.float64], great: bool, max_iter: int = _MAX_ITER, extended: bool = False,
    mean_start: bool = False, parallel: bool = True,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Best-of-several-starts subsphere fit for a batch of data sets.

    Parameters
    ----------
    x : ndarray, shape (B, n, m)
        Unit vectors.
    great : bool
        Great spheres (r = π/2) instead of small spheres.
    max_iter : int
        Iteration limit.
    extended : bool
        Use the extended set of starting axes (see :func:`_initial_axes`).
    mean_start : bool
        Start from the mean direction only (see :func:`_initial_axes`).
    parallel : bool
        Share the problems among the kernel threads (False when the caller runs several
        batches at once).

    Returns
    -------
    v : ndarray, shape (B, m)
        Axes, folded so that r ≤ π/2 (small spheres).
    r : ndarray, shape (B,)
        Geodesic radii.
    f : ndarray, shape (B,)
        Mean squared residuals.
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    b, _, m = x.shape
    starts = _initial_axes(x, extended, mean_start)  # (B, S, m)
    n_starts = starts.shape[1]
    which = np.repeat(np.arange(b, dtype=np.int64), n_starts)
    v_all, f_all = _lm_fit(x, which, starts.reshape(b * n_starts, m), great, max_iter,
                           parallel=parallel)
    v_all = v_all.reshape(b, n_starts, m)
    f_all = f_all.reshape(b, n_starts)
    best = np.argmin(f_all, axis=1)
    v = v_all[np.arange(b), best]
    f = f_all[np.arange(b), best]
    return _oriented(x, v, f, great)


def _oriented(
    x: NDArray[np.float64], v: NDArray[np.float64], f: NDArray[np.float64], great: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Fold small spheres to r ≤ π/2 and orient great spheres' axes; (v, r, f) per data set."""
    b = x.shape[0]
    if great:
        # A great sphere's axis has no preferred sign: orient it towards the data mean
        # (mean residual ≤ 0), ties broken by the third moment — a rotation-equivariant rule.
        t = np.einsum("bnm,bm->bn", x, v)
        key = np.where(np.abs(t.mean(axis=1)) > 1e-12, t.mean(axis=1), np.mean(t**3, axis=1))
        v = np.where((key < 0)[:, None], -v, v)
        r = np.full(b, HALF_PI)
    else:
        r = np.array([geodesic_angles(x[j], v[j]).mean() for j in range(b)])
        flip = r > HALF_PI
        v = np.where(flip[:, None], -v, v)
        r = np.where(flip, np.pi - r, r)
    return v, r, f


def _distinct_axes(
    v: NDArray[np.float64], f: NDArray[np.float64], limit: int
) -> NDArray[np.float64]:
    """Up to ``limit`` of the axes, best objective first, none within 1e-3 rad of another."""
    kept: list[NDArray[np.float64]] = []
    for k in np.argsort(f, kind="stable"):
        if all(np.linalg.norm(v[k] - w) > 1e-3 for w in kept):
            kept.append(v[k])
        if len(kept) == limit:
            break
    return np.array(kept)


def fit_subsphere(
    x: ArrayLike, kind: Literal["small", "great"] = "small"
) -> tuple[NDArray[np.float64], float, float]:
    """Least-squares subsphere of unit vectors (one PNS level).

    Parameters
    ----------
    x : array_like, shape (n, m)
        Unit vectors in R^m (rows renormalised), m ≥ 2.
    kind : {"small", "great"}
        Free radius (small sphere) or r = π/2 (great sphere).

    Returns
    -------
    center : ndarray, shape (m,)
        Axis v.  Small spheres are folded so that r ≤ π/2; a great sphere's axis is oriented
        towards the data mean (mean residual ≤ 0).
    radius : float
        Geodesic radius r.
    objective : float
        ``mean_i (arccos(v·x_i) − r)²`` at the solution.
    """
    if kind not in ("small", "great"):
        raise ValueError(f"kind must be 'small' or 'great', got {kind!r}")
    xa = check_sphere_data(x, "x")
    v, r, f = fit_subspheres(xa[None], kind == "great", extended=True)
    return v[0], float(r[0]), float(f[0])


def fit_one_level(
    x: NDArray[np.float64], great: bool, check: CancelCheck | None = None,
    high_dim: bool | None = None,
) -> tuple[NDArray[np.float64], float, float]:
    """One PNS level: the small or great subsphere of ``x`` (n, m) (:func:`fit_level`)."""
    return fit_level(x, (great,), check, high_dim)[0]


def fit_level(
    x: NDArray[np.float64], kinds: tuple[bool, ...], check: CancelCheck | None = None,
    high_dim: bool | None = None,
) -> list[tuple[NDArray[np.float64], float, float]]:
    """One PNS level: for each kind (great or not) the subsphere of ``x`` (n, m) with the
    lowest objective, from all starts; (axis, radius, objective) per kind.

    The kinds are fitted together, as one batch of problems shared among the kernel
    threads, each problem iterated exactly as alone (the same result as one kind at a
    time). Up to :data:`START_SAMPLE` points (:data:`HIGH_DIM_START_SAMPLE` with
    ``high_dim``) every start is iterated on all the points. Beyond, the starts (computed
    from all the points) are iterated on an evenly spaced subsample of that many points,
    and the best :data:`_REFINED_STARTS` distinct solutions of each kind are then iterated
    to convergence on all the points: the same minimum whenever the subsample ranks the
    local minima as the full data do, for a few passes over the full data instead of
    hundreds (docs/pns.md, "Fitting"). ``high_dim`` (default: m above :data:`HIGH_DIM`;
    PNS passes it for every level of a fit on S^d with d ≥ 8) also leaves out the
    principal directions from the starts. ``check`` (optional) is called before each
    iteration on all the points beyond ``START_SAMPLE`` (about 0.1 s each at n = 10⁶);
    it raises to stop.
    """
    xa = np.ascontiguousarray(x, dtype=np.float64)[None]
    n, m = xa.shape[1], xa.shape[2]
    if high_dim is None:
        high_dim = m > HIGH_DIM
    sample_size = HIGH_DIM_START_SAMPLE if high_dim else START_SAMPLE
    starts = _initial_axes(xa, extended=not high_dim)[0]
    kinds_great = np.asarray(kinds, dtype=np.bool_)
    if n > sample_size:
        sample = np.ascontiguousarray(
            xa[:, np.linspace(0, n - 1, sample_size).astype(np.int64)])
        great = np.repeat(kinds_great, len(starts))
        v_sample, f_sample = _lm_fit(sample, np.zeros(great.size, dtype=np.int64),
                                     np.tile(starts, (len(kinds), 1)), great, _MAX_ITER)
        per_kind = [_distinct_axes(v_sample[great == kind], f_sample[great == kind],
                                   _REFINED_STARTS) for kind in kinds_great]
        starts_all = np.concatenate(per_kind)
        great = np.repeat(kinds_great, [len(c) for c in per_kind])
        level_check = check
    else:
        starts_all = np.tile(starts, (len(kinds), 1))
        great = np.repeat(kinds_great, len(starts))
        level_check = None
    v_all, f_all = _lm_fit(xa, np.zeros(great.size, dtype=np.int64), starts_all, great,
                           _MAX_ITER, level_check)
    fits = []
    for kind in kinds_great:
        v_kind, f_kind = v_all[great == kind], f_all[great == kind]
        best = int(np.argmin(f_kind))
        v, r, f = _oriented(xa, v_kind[best:best + 1], f_kind[best:best + 1], bool(kind))
        fits.append((v[0], float(r[0]), float(f[0])))
    return fits


# --------------------------------------------------------------------------------------------
# Input validation
# --------------------------------------------------------------------------------------------


def sphere_rows(y: ArrayLike, name: str = "Y") -> tuple[NDArray[np.float64],
                                                      NDArray[np.float64]]:
    """Validate an (n, d+1) array of directions: the rows as float64 (not copied when they
    already are) and their Euclidean norms, all positive.

    Raises ValueError for complex or non-finite values, zero rows or fewer than 2 columns
    (naming the first bad row).
    """
    raw = np.asarray(y)
    reject_complex(raw, what=name)
    arr = np.asarray(raw, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (n, d+1), got ndim={arr.ndim}")
    if arr.shape[1] < 2:
        raise ValueError(
            f"{name} must have at least 2 columns (points on S^d, d >= 1), got {arr.shape[1]}"
        )
    norms = np.empty(arr.shape[0])
    for rows in row_blocks(arr.shape[0]):
        block = arr[rows]
        finite = np.all(np.isfinite(block), axis=1)
        if not np.all(finite):
            bad = rows.start + int(np.flatnonzero(~finite)[0])
            raise ValueError(f"{name} contains NaN or infinite values (first bad row: {bad})")
        norms[rows] = np.linalg.norm(block, axis=1)
    zero = ~(norms > 0)
    if np.any(zero):
        bad = int(np.flatnonzero(zero)[0])
        raise ValueError(
            f"{name} contains a zero row (first bad row: {bad}); rows must be nonzero directions"
        )
    return arr, norms


def check_sphere_data(
    y: ArrayLike, name: str = "Y", *, require_spread: bool = False
) -> NDArray[np.float64]:
    """Validate an (n, d+1) array of directions and renormalise its rows (a new array).

    With ``require_spread``, points that are all within :data:`MIN_SPHERE_SPREAD` of the
    first one (a fit would have no variation to explain) are rejected too.
    """
    arr, norms = sphere_rows(y, name)
    units = arr / norms[:, None]
    if require_spread:
        check_spread(units, name)
    return units


def check_spread(units: NDArray[np.float64], name: str = "Y") -> None:
    """Raise ValueError when every unit row lies within :data:`MIN_SPHERE_SPREAD` of the
    first one (nothing to analyse)."""
    if not len(units):
        return
    spread = max(float(np.max(_angles_to(units[rows], units[0])))
                 for rows in row_blocks(units.shape[0]))
    if spread < MIN_SPHERE_SPREAD:
        raise ValueError(
            f"all rows of {name} are the same point on the sphere: every point lies "
            f"within {spread:.2g} rad of the first one, less than the "
            f"{MIN_SPHERE_SPREAD:g} rad needed to analyse variation"
        )


def _angles_to(units: NDArray[np.float64], point: NDArray[np.float64]) -> NDArray[np.float64]:
    """Angles between unit rows and a unit vector, accurate for tiny angles (no arccos)."""
    return 2.0 * np.arctan2(np.linalg.norm(units - point, axis=1),
                            np.linalg.norm(units + point, axis=1))
