"""Principal Nested Spheres (PNS; Jung, Dryden & Marron 2012), as in R ``shapes::pns``.

PNS fits a decreasing sequence of subspheres S^d ⊃ S^{d-1} ⊃ … ⊃ S^1 ⊃ {μ} to data on the
unit sphere S^d ⊂ R^{d+1}.  At each level the current data (unit vectors in R^m, m = d+1, d,
…, 3) are fitted by the subsphere ``{x : arccos(v·x) = r}`` minimising
``Σ_i (arccos(v·x_i) − r)²`` — a *small* sphere (r free, folded to r ≤ π/2 by flipping v) or
a *great* sphere (r = π/2).  The residuals ``ξ_i = arccos(v·x_i) − r`` (positive = farther
from the axis v) are the scores of that level; the data are then projected onto the
subsphere and mapped to the unit sphere S^{m-2} ⊂ R^{m-1} by the rotation ``R(v)`` that takes
v to the last basis vector (shapes' ``rotMat``: the smallest rotation, in the plane of v and
e_m), dropping the last coordinate and renormalising.  On the final circle S^1 the score is
the angle about the circular Fréchet mean (wrapped to [−π, π)).

Scores follow shapes' order, signs and units: column 0 is PNS1 (the circle angle), column
d−1 the residual of the first fit; column j is multiplied by the Euclidean radius of the
sphere on which it is measured (1, sin r_1, sin r_1 sin r_2, …), so that all scores are arc
lengths on the original unit sphere.

Conventions that cannot be fixed by the data
--------------------------------------------
* A great sphere's axis has no preferred sign.  In shapes it is whatever sign LAPACK gives
  the last singular vector used as starting value; here it is oriented towards the data mean
  (mean residual ≤ 0, ties broken by the third moment), a rotation-equivariant rule.  The
  residual column of a great-sphere level — and, because flipping the axis reflects the
  lower levels, the sign of PNS1 — may therefore be opposite to shapes'.
* The sign of PNS1 depends on the orientation of the coordinate system: rotating the data by
  a proper rotation (det +1) leaves every score unchanged; an improper one (det −1) flips
  PNS1.  Small-sphere residuals are invariant under any orthogonal map.

Data in a lower-dimensional subspace
------------------------------------
If the data span only a rank-ρ linear subspace of R^{d+1} (ρ < d + 1; numerical rank with
numpy's default tolerance, where shapes uses singular values < 1e-15), the first d + 1 − ρ
levels are great spheres whose axes are the null-space directions (last left-singular
vectors first, carried through the rotations of the previous levels), exactly as shapes
(≥ 1.2.7) reduces the null space.  These levels are listed in the fitted attributes like any
other level (type ``"great"``, p-values NaN); their residual columns are zero on the data.
The signs of these axes (LAPACK's) are arbitrary, and so is then the sign of PNS1.

Fitting
-------
Each subsphere is fitted by a damped (Levenberg–Marquardt-type) Riemannian Newton iteration
on the exact profile objective (r = mean angle for small spheres), the axis moving along
great circles, from several starts (the last singular vector of the data and the
smallest-variance direction of the centred data — shapes' two starts — the other principal
directions and the mean direction), keeping the lowest objective.  Fixed
points of shapes' tangent-space iteration are stationary points of the same objective, so
where shapes converges both reach the same subsphere; where shapes stops early (its
31-pass limit) this implementation reaches a lower objective.  The von Mises–Fisher bootstrap
of the sequential test fits all bootstrap samples (and starts) simultaneously, vectorised.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import chdtrc

from ._random import RandomStateLike, check_random_state
from .circular import circular_frechet_mean

__all__ = [
    "PrincipalNestedSpheres",
    "fit_subsphere",
    "rotation_to_north_pole",
    "subsphere_objective",
]

HALF_PI = 0.5 * np.pi
TWO_PI = 2.0 * np.pi

Mode = Literal["small", "great", "seq.test", "bic"]
_MODES = ("small", "great", "seq.test", "bic")

#: LM iteration limits (main fits / bootstrap fits).
_MAX_ITER = 200
_MAX_ITER_BOOT = 100
#: LM stops when the step on the sphere (radians) falls below this.
_STEP_TOL = 1e-11
#: Minimum number of samples.
_MIN_SAMPLES = 3


def _wrap(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """Wrap to [-π, π)."""
    w = np.mod(a + np.pi, TWO_PI) - np.pi
    return np.where(w >= np.pi, w - TWO_PI, w)


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
    cos_a = float(b[-1])
    if abs(cos_a - 1.0) < 1e-15:
        return np.eye(m)
    if abs(cos_a + 1.0) < 1e-15:
        return -np.eye(m)
    a = np.zeros(m)
    a[-1] = 1.0
    c = b - a * cos_a
    sin_a = float(np.linalg.norm(c))  # sin of the angle α between v and e_m, accurately
    c /= sin_a
    big_a = np.outer(a, c) - np.outer(c, a)
    return np.eye(m) + sin_a * big_a + (cos_a - 1.0) * (np.outer(a, a) + np.outer(c, c))


def _geodesic_angles(x: NDArray[np.float64], v: NDArray[np.float64]) -> NDArray[np.float64]:
    """arccos(x·v) computed stably as atan2(|x − (x·v)v|, x·v); rows of x unit vectors."""
    c = x @ v
    s = np.linalg.norm(x - c[:, None] * v[None, :], axis=1)
    return np.arctan2(s, c)


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
    return float(np.mean((_geodesic_angles(xa, v) - radius) ** 2))


# --------------------------------------------------------------------------------------------
# Batched subsphere fitting (Levenberg–Marquardt on the sphere)
# --------------------------------------------------------------------------------------------


def _initial_axes(x: NDArray[np.float64], extended: bool = False) -> NDArray[np.float64]:
    """Starting axes for each data set in the batch ``x`` (P, n, m) → (P, S, m).

    The starts are the last right-singular vector of the (uncentred) data and the
    smallest-variance direction of the centred data (shapes' two starts), and the normalised
    mean direction (replaced by the first start when the mean is ~0).  With ``extended``
    the other principal directions of the centred data are added (S = m + 2).
    """
    n = x.shape[1]
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


def _residuals(
    x: NDArray[np.float64], v: NDArray[np.float64], great: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Cosines, residuals, mean squared residual and tangent components for a batch.

    Returns ``c`` (P, n) = x·v, ``e`` (P, n) residuals, ``f`` (P,) and ``perp`` (P, n, m) =
    x − (x·v) v.
    """
    c = np.matmul(x, v[:, :, None])[:, :, 0]
    perp = x - c[:, :, None] * v[:, None, :]
    s = np.sqrt(np.matmul(perp * perp, np.ones(x.shape[2])))
    theta = np.arctan2(s, c)
    e = theta - HALF_PI if great else theta - theta.mean(axis=1, keepdims=True)
    f = np.einsum("pn,pn->p", e, e) / x.shape[1]
    return c, e, f, perp


def _lm_fit(
    x: NDArray[np.float64], v0: NDArray[np.float64], great: bool, max_iter: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Minimise the subsphere objective for a batch of problems (damped Riemannian Newton).

    The axis moves along great circles (exponential map).  The Hessian is exact: with
    ``g_i = ∇θ_i`` (unit tangent vectors) and ``Hess θ_i = cot θ_i (P − g_i g_iᵀ)`` on the
    unit sphere, ``½ Hess F = (1/n) [Σ G_i G_iᵀ + Σ e_i cot θ_i (P − g_i g_iᵀ)]`` where G_i
    is g_i centred over i for small spheres (the profiled radius) and g_i for great ones.
    Negative curvature is shifted away and a Levenberg–Marquardt parameter adapts to
    success/failure of each step (a step is accepted only if it lowers the objective).

    Parameters
    ----------
    x : ndarray, shape (P, n, m)
        Unit vectors, one data set per problem.
    v0 : ndarray, shape (P, m)
        Starting axes (unit vectors).
    great : bool
        Fix r = π/2 (great spheres) instead of profiling r out (small spheres).
    max_iter : int
        Maximum number of iterations.

    Returns
    -------
    v : ndarray, shape (P, m)
        Fitted axes (not folded).
    f : ndarray, shape (P,)
        Objective (mean squared residual) at ``v``.
    """
    p_count, n, m = x.shape
    v = v0 / np.linalg.norm(v0, axis=1, keepdims=True)
    c_a, e_a, f, perp_a = _residuals(x, v, great)
    lam = np.full(p_count, 1e-6)
    active = np.arange(p_count)
    eye = np.eye(m)
    ones_m = np.ones(m)
    for _ in range(max_iter):
        if active.size == 0:
            break
        xa = x[active] if active.size < p_count else x
        va = v[active]
        s = np.sqrt(np.matmul(perp_a * perp_a, ones_m))
        s_safe = np.maximum(s, 1e-150)
        g_i = perp_a / (-s_safe)[:, :, None]  # ∇θ_i, tangent at v
        big_g = g_i - g_i.mean(axis=1, keepdims=True) if not great else g_i
        w = e_a * c_a / s_safe  # e_i cot θ_i
        h = (
            np.matmul(big_g.transpose(0, 2, 1), big_g)
            - np.matmul((g_i * w[:, :, None]).transpose(0, 2, 1), g_i)
        ) / n
        vvt = va[:, :, None] * va[:, None, :]
        proj = eye[None] - vvt
        h += (w.sum(axis=1) / n)[:, None, None] * proj
        grad = np.matmul(g_i.transpose(0, 2, 1), e_a[:, :, None])[:, :, 0] / n
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
        c_new, e_new, f_new, perp_new = _residuals(xa, v_new, great)
        f_old = f[active]
        accept = f_new < f_old
        idx_acc = active[accept]
        v[idx_acc] = v_new[accept]
        f[idx_acc] = f_new[accept]
        lam[idx_acc] = np.maximum(lam[idx_acc] / 10.0, 1e-12)
        idx_rej = active[~accept]
        lam[idx_rej] = np.maximum(lam[idx_rej] * 10.0, 1e-4)
        c_a = np.where(accept[:, None], c_new, c_a)
        e_a = np.where(accept[:, None], e_new, e_a)
        perp_a = np.where(accept[:, None, None], perp_new, perp_a)
        # Convergence: tiny accepted step, no relative decrease, or hopeless damping.
        done = (
            (accept & (nd < _STEP_TOL))
            | (accept & (f_old - f_new <= 1e-15 * f_old))
            | (~accept & ((nd < _STEP_TOL) | (lam[active] > 1e12)))
        )
        if np.any(done):
            keep = ~done
            active = active[keep]
            c_a = c_a[keep]
            e_a = e_a[keep]
            perp_a = perp_a[keep]
    return v, f


def _fit_subspheres(
    x: NDArray[np.float64], great: bool, max_iter: int = _MAX_ITER, extended: bool = False
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

    Returns
    -------
    v : ndarray, shape (B, m)
        Axes, folded so that r ≤ π/2 (small spheres).
    r : ndarray, shape (B,)
        Geodesic radii.
    f : ndarray, shape (B,)
        Mean squared residuals.
    """
    b, _, m = x.shape
    starts = _initial_axes(x, extended)  # (B, S, m)
    n_starts = starts.shape[1]
    xr = np.repeat(x, n_starts, axis=0)
    v_all, f_all = _lm_fit(xr, starts.reshape(b * n_starts, m), great, max_iter)
    v_all = v_all.reshape(b, n_starts, m)
    f_all = f_all.reshape(b, n_starts)
    best = np.argmin(f_all, axis=1)
    v = v_all[np.arange(b), best]
    f = f_all[np.arange(b), best]
    if great:
        # A great sphere's axis has no preferred sign: orient it towards the data mean
        # (mean residual ≤ 0), ties broken by the third moment — a rotation-equivariant rule.
        t = np.einsum("bnm,bm->bn", x, v)
        key = np.where(np.abs(t.mean(axis=1)) > 1e-12, t.mean(axis=1), np.mean(t**3, axis=1))
        v = np.where((key < 0)[:, None], -v, v)
        r = np.full(b, HALF_PI)
    else:
        theta = np.arctan2(
            np.linalg.norm(x - np.einsum("bnm,bm->bn", x, v)[:, :, None] * v[:, None, :], axis=2),
            np.einsum("bnm,bm->bn", x, v),
        )
        r = theta.mean(axis=1)
        flip = r > HALF_PI
        v = np.where(flip[:, None], -v, v)
        r = np.where(flip, np.pi - r, r)
    return v, r, f


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
    xa = _check_sphere_data(x, "x")
    v, r, f = _fit_subspheres(xa[None], kind == "great", extended=True)
    return v[0], float(r[0]), float(f[0])


def _fit_one(x: NDArray[np.float64], great: bool) -> tuple[NDArray[np.float64], float, float]:
    v, r, f = _fit_subspheres(x[None], great, extended=True)
    return v[0], float(r[0]), float(f[0])


# --------------------------------------------------------------------------------------------
# Tests used by the sequential procedure
# --------------------------------------------------------------------------------------------


def _lrt_pvalue(res_great: NDArray[np.float64], res_small: NDArray[np.float64]) -> float:
    """Likelihood-ratio test of great vs small sphere (shapes' LRTpval, upper tail).

    ``stat = max(n log(Σ ξ_great² / Σ ξ_small²), 0)`` compared with χ²₁.
    """
    n = res_great.size
    ss_g = float(np.sum(res_great**2))
    ss_s = float(np.sum(res_small**2))
    if ss_g <= ss_s:
        stat = 0.0
    elif ss_s <= 0.0:
        stat = np.inf
    else:
        stat = n * np.log(ss_g / ss_s)
    return float(chdtrc(1, stat))  # chi-squared(1) survival function


def _sample_vmf_north(
    rng: np.random.Generator, m: int, size: tuple[int, int], kappa: float
) -> NDArray[np.float64]:
    """von Mises–Fisher samples on S^{m−1} ⊂ R^m with mean e_m (Wood 1994, vectorised)."""
    total = size[0] * size[1]
    kappa = float(max(kappa, 0.0))
    mm1 = m - 1.0
    b = mm1 / (2.0 * kappa + np.sqrt(4.0 * kappa * kappa + mm1 * mm1))
    x0 = (1.0 - b) / (1.0 + b)
    c = kappa * x0 + mm1 * np.log(1.0 - x0 * x0)
    w = np.empty(total)
    todo = np.arange(total)
    while todo.size:
        k = todo.size
        z = rng.beta(mm1 / 2.0, mm1 / 2.0, size=k)
        u = rng.random(k)
        ww = (1.0 - (1.0 + b) * z) / (1.0 - (1.0 - b) * z)
        with np.errstate(divide="ignore", invalid="ignore"):
            ok = kappa * ww + mm1 * np.log(1.0 - x0 * ww) - c >= np.log(u)
        w[todo[ok]] = ww[ok]
        todo = todo[~ok]
    w = np.clip(w, -1.0, 1.0)
    dirs = rng.standard_normal((total, m - 1))
    nrm = np.linalg.norm(dirs, axis=1)
    while np.any(nrm < 1e-10):  # pragma: no cover - probability ~0
        bad = nrm < 1e-10
        dirs[bad] = rng.standard_normal((int(bad.sum()), m - 1))
        nrm = np.linalg.norm(dirs, axis=1)
    dirs /= nrm[:, None]
    out = np.empty((total, m))
    out[:, :-1] = np.sqrt(np.maximum(1.0 - w * w, 0.0))[:, None] * dirs
    out[:, -1] = w
    return out.reshape(size[0], size[1], m)


def _radial_ratio(theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """mean / sd (ddof 1) of the radial distances, along the last axis."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return theta.mean(axis=-1) / theta.std(axis=-1, ddof=1)


def _vmf_test_pvalue(
    x: NDArray[np.float64],
    center_small: NDArray[np.float64],
    n_bootstrap: int,
    rng: np.random.Generator,
) -> float:
    """Parametric-bootstrap isotropy test (shapes' vMFtest).

    The statistic is mean/sd of the radial distances to the fitted small sphere's axis; the
    null distribution comes from ``n_bootstrap`` vMF samples with the approximate MLE of κ.
    """
    n, m = x.shape
    sumx = x.sum(axis=0)
    rbar = min(float(np.linalg.norm(sumx)) / n, 1.0 - 1e-12)
    kappa = (rbar * m - rbar**3) / (1.0 - rbar * rbar)
    xi_sample = float(_radial_ratio(_geodesic_angles(x, center_small)))
    if n_bootstrap <= 0:
        return float("nan")
    samples = _sample_vmf_north(rng, m, (n_bootstrap, n), kappa)
    v_b, _, _ = _fit_subspheres(samples, great=False, max_iter=_MAX_ITER_BOOT)
    c = np.einsum("bnm,bm->bn", samples, v_b)
    s = np.linalg.norm(samples - c[:, :, None] * v_b[:, None, :], axis=2)
    xi_boot = _radial_ratio(np.arctan2(s, c))
    return float(np.mean(xi_boot > xi_sample))


# --------------------------------------------------------------------------------------------
# Input validation
# --------------------------------------------------------------------------------------------


def _check_sphere_data(y: ArrayLike, name: str = "Y") -> NDArray[np.float64]:
    """Validate an (n, d+1) array of directions and renormalise its rows."""
    arr = np.asarray(y, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (n, d+1), got ndim={arr.ndim}")
    if arr.shape[1] < 2:
        raise ValueError(
            f"{name} must have at least 2 columns (points on S^d, d >= 1), got {arr.shape[1]}"
        )
    finite = np.all(np.isfinite(arr), axis=1)
    if not np.all(finite):
        bad = int(np.flatnonzero(~finite)[0])
        raise ValueError(f"{name} contains NaN or infinite values (first bad row: {bad})")
    norms = np.linalg.norm(arr, axis=1)
    zero = ~(norms > 0)
    if np.any(zero):
        bad = int(np.flatnonzero(zero)[0])
        raise ValueError(
            f"{name} contains a zero row (first bad row: {bad}); rows must be nonzero directions"
        )
    return arr / norms[:, None]


# --------------------------------------------------------------------------------------------
# Estimator
# --------------------------------------------------------------------------------------------


class PrincipalNestedSpheres:
    """Principal Nested Spheres for data on S^d (R ``shapes::pns`` semantics).

    Parameters
    ----------
    mode : {"seq.test", "small", "great", "bic"}, default "seq.test"
        How each subsphere is chosen (case-insensitive, so shapes' ``"BIC"`` is accepted).
        ``"small"``/``"great"``: always small / great spheres.  ``"seq.test"`` (shapes'
        default procedure): fit both; if the likelihood-ratio test of great vs small has
        p-value > ``alpha`` use the great sphere (testing continues at the next level);
        otherwise run the von Mises–Fisher parametric-bootstrap isotropy test — if its
        p-value > ``alpha`` the great sphere is used and every later level is great without
        further tests (the data are isotropic), else the small sphere is used.  ``"bic"``:
        the type with the smaller BIC, ``n log(mean ξ²) + k log n`` with k = dim + 1 (small)
        or dim (great), dim being the dimension of the sphere being reduced.
    alpha : float, default 0.1
        Significance level of both tests (``"seq.test"`` only).
    n_bootstrap : int, default 100
        Number of vMF bootstrap samples (shapes' ``R``).
    random_state : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the bootstrap.

    Attributes
    ----------
    n_features_in_ : int
        Ambient dimension d + 1.
    n_components_ : int
        Number of scores d.
    scores_ : ndarray, shape (n, d)
        PNS scores of the training data (see :meth:`transform`).
    explained_variance_ : ndarray, shape (d,)
        Uncentred variance ``mean(scores_[:, k] ** 2)`` of each score (as shapes).
    explained_variance_ratio_ : ndarray, shape (d,)
        ``explained_variance_ / explained_variance_.sum()``.
    total_variance_ : float
        ``explained_variance_.sum()``.
    centers_ : ndarray, shape (d − 1, d + 1)
        Axis v_k of each level k (first fit first) in the original coordinates (the
        fixtures' ``center_orig``).
    centers_local_ : list of ndarray
        The same axes in the coordinates of their own level: ``centers_local_[k]`` has
        length d + 1 − k (the fixtures' ``center_local``).
    radii_ : ndarray, shape (d − 1,)
        Geodesic radius r_k ∈ (0, π/2] of each subsphere (π/2 for great spheres).
    sphere_types_ : list of str
        ``"small"`` or ``"great"`` per level.
    p_values_ : ndarray, shape (d − 1, 2)
        Per level, the LRT p-value and the vMF-bootstrap p-value (NaN when not computed).
    objectives_ : ndarray, shape (d − 1,)
        Minimised objective ``mean_i (arccos(v_k·x_i) − r_k)²`` of each level.
    rotations_ : list of ndarray
        ``rotations_[k]`` = :func:`rotation_to_north_pole` of ``centers_local_[k]``.
    nested_radii_ : ndarray, shape (d,)
        Euclidean radii of the nested spheres S^d, S^{d-1}, …, S^1 as subsets of R^{d+1}:
        ``(1, sin r_1, sin r_1 sin r_2, …)`` (shapes' ``PNS$radii``).
    score_scales_ : ndarray, shape (d,)
        Factor applied to each score column (``nested_radii_[::-1]``).
    subsphere_center_points_ : ndarray, shape (d − 1, d + 1)
        Centre in R^{d+1} of each nested subsphere seen as a sphere of radius
        ``nested_radii_[k + 1]`` in an affine subspace.
    circle_mean_angle_ : float
        Fréchet mean, in [−π, π), of the angles on the final circle.
    circle_center_ : ndarray, shape (d + 1,)
        Centre of the principal circle in R^{d+1}.
    circle_radius_ : float
        Euclidean radius of the principal circle (``nested_radii_[-1]``).
    circle_basis_ : ndarray, shape (d + 1, 2)
        Orthonormal basis of the principal circle's plane: the circle is
        ``circle_center_ + circle_radius_ (cos φ b_1 + sin φ b_2)``, φ being the angle on the
        final circle (PNS1 = (φ − circle_mean_angle_) × circle_radius_, wrapped).
    mean_ : ndarray, shape (d + 1,)
        Backwards (PNS) mean, the inverse transform of the all-zero score vector.
    n_null_ : int
        Number of leading levels that only reduce a null space of the data (great spheres
        with zero residuals on the training data).
    """

    def __init__(
        self,
        mode: Mode = "seq.test",
        alpha: float = 0.1,
        n_bootstrap: int = 100,
        random_state: RandomStateLike = None,
    ) -> None:
        self.mode = mode
        self.alpha = alpha
        self.n_bootstrap = n_bootstrap
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting

    def fit(self, Y: ArrayLike, y: object = None) -> PrincipalNestedSpheres:
        """Fit the nested spheres.

        Parameters
        ----------
        Y : array_like, shape (n, d + 1)
            Points on S^d (rows are renormalised to unit length), d ≥ 1, n ≥ 3.
        y : ignored
            Present for scikit-learn API compatibility.

        Returns
        -------
        PrincipalNestedSpheres
            The fitted estimator.

        Raises
        ------
        ValueError
            For an unknown mode, bad ``alpha``/``n_bootstrap``, too few samples, zero rows or
            non-finite values (the message names the first bad row).
        """
        mode = self.mode.lower() if isinstance(self.mode, str) else self.mode  # "BIC" as in R
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {_MODES}, got {self.mode!r}")
        if not 0.0 <= float(self.alpha) <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {self.alpha}")
        if int(self.n_bootstrap) < 1:
            raise ValueError(f"n_bootstrap must be >= 1, got {self.n_bootstrap}")
        x = _check_sphere_data(Y)
        n, k = x.shape
        if n < _MIN_SAMPLES:
            raise ValueError(f"PNS needs at least {_MIN_SAMPLES} samples, got n={n}")
        rng = check_random_state(self.random_state)
        d = k - 1
        n_levels = d - 1

        # Rank of the data: a null space is reduced by great spheres (as shapes >= 1.2.7).
        # Left singular vectors of the k × n data matrix; all k of them are needed for the
        # null space, which needs full_matrices only when k > n.
        u_full, sv = np.linalg.svd(x.T, full_matrices=k > n)[:2]
        tol = sv[0] * max(n, k) * np.finfo(np.float64).eps
        rank = max(int(np.sum(sv > tol)), 2)
        n_null = k - rank
        null_axes = [u_full[:, k - 1 - j] for j in range(n_null)]

        centers_local: list[NDArray[np.float64]] = []
        rotations: list[NDArray[np.float64]] = []
        radii = np.empty(n_levels)
        types: list[str] = []
        pvals = np.full((n_levels, 2), np.nan)
        objectives = np.empty(n_levels)

        # Reduction levels (exact great spheres along the null-space directions).
        amb = np.eye(k)  # maps the current level's coordinates to the original ones
        for j, w in enumerate(null_axes):
            wl = amb.T @ w  # the null direction in the current coordinates (unit, exact)
            wl /= np.linalg.norm(wl)
            rot = rotation_to_north_pole(wl)
            centers_local.append(wl)
            rotations.append(rot)
            radii[j] = HALF_PI
            types.append("great")
            objectives[j] = 0.0
            amb = amb @ rot.T[:, :-1]
        cur = x @ amb if n_null else x.copy()
        if n_null:
            cur /= np.linalg.norm(cur, axis=1, keepdims=True)

        isotropic = False
        for lev in range(n_null, n_levels):
            m = cur.shape[1]
            if mode == "small":
                v, r, f = _fit_one(cur, great=False)
                kind = "small"
            elif mode == "great":
                v, r, f = _fit_one(cur, great=True)
                kind = "great"
            elif mode == "bic":
                v_s, r_s, f_s = _fit_one(cur, great=False)
                v_g, r_g, f_g = _fit_one(cur, great=True)
                tiny = np.finfo(np.float64).tiny
                dim = m - 1
                bic_s = n * np.log(max(f_s, tiny)) + (dim + 1) * np.log(n)
                bic_g = n * np.log(max(f_g, tiny)) + dim * np.log(n)
                if bic_s > bic_g:
                    v, r, f, kind = v_g, r_g, f_g, "great"
                else:
                    v, r, f, kind = v_s, r_s, f_s, "small"
            elif isotropic:
                v, r, f = _fit_one(cur, great=True)
                kind = "great"
            else:
                v_s, r_s, f_s = _fit_one(cur, great=False)
                v_g, r_g, f_g = _fit_one(cur, great=True)
                res_s = _geodesic_angles(cur, v_s) - r_s
                res_g = _geodesic_angles(cur, v_g) - r_g
                p1 = _lrt_pvalue(res_g, res_s)
                pvals[lev, 0] = p1
                if p1 > self.alpha:
                    v, r, f, kind = v_g, r_g, f_g, "great"
                else:
                    p2 = _vmf_test_pvalue(cur, v_s, int(self.n_bootstrap), rng)
                    pvals[lev, 1] = p2
                    if p2 > self.alpha:
                        v, r, f, kind = v_g, r_g, f_g, "great"
                        isotropic = True
                    else:
                        v, r, f, kind = v_s, r_s, f_s, "small"
            rot = rotation_to_north_pole(v)
            centers_local.append(v)
            rotations.append(rot)
            radii[lev] = r
            types.append(kind)
            objectives[lev] = f
            head = (cur @ rot.T)[:, :-1]
            h = np.linalg.norm(head, axis=1, keepdims=True)
            cur = head / np.where(h > 0, h, 1.0)  # a point on the axis has no projection

        self.n_features_in_ = k
        self.n_components_ = d
        self.n_null_ = n_null
        self.centers_local_ = centers_local
        self.rotations_ = rotations
        self.radii_ = radii
        self.sphere_types_ = types
        self.p_values_ = pvals
        self.objectives_ = objectives
        self.circle_mean_angle_ = circular_frechet_mean(np.arctan2(cur[:, 1], cur[:, 0]))

        # Geometry of the nested spheres in the original coordinates.
        nested = np.ones(d)
        for lev in range(n_levels):
            nested[lev + 1] = nested[lev] * np.sin(radii[lev])
        self.nested_radii_ = nested
        self.score_scales_ = nested[::-1].copy()
        amb = np.eye(k)
        centers = np.empty((n_levels, k))
        center_points = np.empty((n_levels, k))
        point = np.zeros(k)
        for lev in range(n_levels):
            centers[lev] = amb @ centers_local[lev]
            point = point + nested[lev] * np.cos(radii[lev]) * centers[lev]
            center_points[lev] = point
            amb = amb @ rotations[lev].T[:, :-1]
        self.centers_ = centers
        self.subsphere_center_points_ = center_points
        self.circle_center_ = point
        self.circle_radius_ = float(nested[-1])
        self.circle_basis_ = amb

        self.scores_ = self.transform(x)
        ev = np.mean(self.scores_**2, axis=0)
        self.explained_variance_ = ev
        self.total_variance_ = float(ev.sum())
        with np.errstate(invalid="ignore", divide="ignore"):
            self.explained_variance_ratio_ = ev / self.total_variance_
        self.mean_ = self.inverse_transform(np.zeros((1, d)))[0]
        return self

    def fit_transform(self, Y: ArrayLike, y: object = None) -> NDArray[np.float64]:
        """Fit and return the training scores (``scores_``).

        Parameters
        ----------
        Y : array_like, shape (n, d + 1)
            Points on S^d.
        y : ignored

        Returns
        -------
        ndarray, shape (n, d)
        """
        return self.fit(Y).scores_.copy()

    # ------------------------------------------------------------------ maps

    def _check_fitted(self) -> None:
        if not hasattr(self, "rotations_"):
            raise RuntimeError("PrincipalNestedSpheres is not fitted yet; call fit first")

    def transform(self, Y: ArrayLike) -> NDArray[np.float64]:
        """PNS scores of points on the sphere.

        Each point is projected through the fitted nested spheres: at level k the residual
        ``arccos(v_k·x) − r_k`` is recorded and the point is moved along the geodesic through
        the axis onto the subsphere; on the final circle the angle about
        ``circle_mean_angle_`` is wrapped to [−π, π).  Column j is multiplied by
        ``score_scales_[j]``.

        Parameters
        ----------
        Y : array_like, shape (m, d + 1)
            Points (rows renormalised to unit length).

        Returns
        -------
        ndarray, shape (m, d)
            Scores in shapes' order (column 0 = PNS1, column d − 1 = first residual).
            Points lying on an axis v_k have an undefined projection (NaN-free but arbitrary).
        """
        self._check_fitted()
        x = _check_sphere_data(Y)
        if x.shape[1] != self.n_features_in_:
            raise ValueError(
                f"Y has {x.shape[1]} columns, the model was fitted on {self.n_features_in_}"
            )
        d = self.n_components_
        out = np.empty((x.shape[0], d))
        cur = x
        for lev, rot in enumerate(self.rotations_):
            z = cur @ rot.T
            head = z[:, :-1]
            h = np.linalg.norm(head, axis=1)
            out[:, d - 1 - lev] = np.arctan2(h, z[:, -1]) - self.radii_[lev]
            cur = head / np.where(h > 0, h, 1.0)[:, None]
        out[:, 0] = _wrap(np.arctan2(cur[:, 1], cur[:, 0]) - self.circle_mean_angle_)
        return out * self.score_scales_[None, :]

    def inverse_transform(self, scores: ArrayLike) -> NDArray[np.float64]:
        """Map PNS scores back to the sphere (shapes' ``PNSe2s``; paper §3.3).

        Parameters
        ----------
        scores : array_like, shape (m, d)
            Scores in the units and order of :meth:`transform`.  The map is a bijection onto
            the sphere (minus the axes) for residuals with ``r_k + ξ_k ∈ (0, π)`` (ξ_k the
            unscaled residual); outside that range points are still mapped but
            :meth:`transform` will not return the same scores.

        Returns
        -------
        ndarray, shape (m, d + 1)
            Unit vectors.
        """
        self._check_fitted()
        s = np.asarray(scores, dtype=np.float64)
        if s.ndim == 1:
            s = s[None, :]
        d = self.n_components_
        if s.ndim != 2 or s.shape[1] != d:
            raise ValueError(f"scores must have shape (m, {d}), got {np.shape(scores)}")
        if not np.all(np.isfinite(s)):
            raise ValueError("scores contain NaN or infinite values")
        std = s / self.score_scales_[None, :]
        phi = self.circle_mean_angle_ + std[:, 0]
        cur = np.column_stack([np.cos(phi), np.sin(phi)])
        for lev in range(len(self.rotations_) - 1, -1, -1):
            ang = self.radii_[lev] + std[:, d - 1 - lev]
            z = np.column_stack([np.sin(ang)[:, None] * cur, np.cos(ang)])
            cur = z @ self.rotations_[lev]
        return cur

    # ------------------------------------------------------------------ plotting helpers

    def _check_level(self, dim: int) -> int:
        d = self.n_components_
        k = int(dim)
        if not 1 <= k <= d:
            raise ValueError(f"dim must be in 1..{d}, got {dim}")
        return k

    def nested_sphere_coordinates(self, Y: ArrayLike, dim: int = 2) -> NDArray[np.float64]:
        """Project points onto the nested subsphere S^dim, in its own coordinates.

        The first ``d - dim`` levels of the fit project the points onto the nested
        subsphere, which is a unit sphere S^dim in the coordinates of that level; those
        (dim + 1)-vectors are returned. With dim = 2 this is the "spherical view" of the
        paper's Figure T³ (b); for data on S² it is the data themselves.

        Parameters
        ----------
        Y : array_like, shape (m, d + 1)
        dim : int
            Dimension of the nested subsphere (1 ≤ dim ≤ d).

        Returns
        -------
        ndarray, shape (m, dim + 1)
            Unit vectors.
        """
        self._check_fitted()
        k = self._check_level(dim)
        cur = _check_sphere_data(Y)
        if cur.shape[1] != self.n_features_in_:
            raise ValueError(
                f"Y has {cur.shape[1]} columns, the model was fitted on {self.n_features_in_}"
            )
        for rot in self.rotations_[: self.n_components_ - k]:
            head = (cur @ rot.T)[:, :-1]
            h = np.linalg.norm(head, axis=1, keepdims=True)
            cur = head / np.where(h > 0, h, 1.0)
        return cur

    def nested_sphere_inverse(self, scores: ArrayLike, dim: int = 2) -> NDArray[np.float64]:
        """Map the leading ``dim`` scores into the coordinates of the nested S^dim.

        The counterpart of :meth:`nested_sphere_coordinates` for curves: e.g. a grid of PNS1
        values (zero PNS2) gives the principal circle drawn inside the nested 2-sphere.

        Parameters
        ----------
        scores : array_like, shape (m, dim)
            PNS1 … PNS_dim in the units of :meth:`transform`.
        dim : int

        Returns
        -------
        ndarray, shape (m, dim + 1)
        """
        self._check_fitted()
        k = self._check_level(dim)
        d = self.n_components_
        s = np.atleast_2d(np.asarray(scores, dtype=np.float64))
        if s.shape[1] != k:
            raise ValueError(f"scores must have shape (m, {k}), got {np.shape(scores)}")
        std = s / self.score_scales_[None, :k]
        phi = self.circle_mean_angle_ + std[:, 0]
        cur = np.column_stack([np.cos(phi), np.sin(phi)])
        for lev in range(len(self.rotations_) - 1, d - k - 1, -1):
            ang = self.radii_[lev] + std[:, d - 1 - lev]
            z = np.column_stack([np.sin(ang)[:, None] * cur, np.cos(ang)])
            cur = z @ self.rotations_[lev]
        return cur


    def subsphere_points(self, level: int, grid: ArrayLike) -> NDArray[np.float64]:
        """Points of a nested subsphere, mapped to the original sphere (for plotting).

        Parameters
        ----------
        level : int
            Dimension k of the nested subsphere S^k: 1 is the principal circle, 2 the nested
            2-sphere containing it, …, d the whole sphere.
        grid : array_like, shape (m, level), or shape (m,) when level = 1
            Values of the scores PNS1 … PNS_k (score units); the other scores are zero.

        Returns
        -------
        ndarray, shape (m, d + 1)
            ``inverse_transform`` of the zero-padded scores.
        """
        self._check_fitted()
        d = self.n_components_
        k = int(level)
        if not 1 <= k <= d:
            raise ValueError(f"level must be in 1..{d}, got {level}")
        g = np.asarray(grid, dtype=np.float64)
        if g.ndim == 1 and k == 1:
            g = g[:, None]
        if g.ndim != 2 or g.shape[1] != k:
            raise ValueError(f"grid must have shape (m, {k}), got {np.shape(grid)}")
        full = np.zeros((g.shape[0], d))
        full[:, :k] = g
        return self.inverse_transform(full)

    def principal_circle(self, m: int = 100, grid: ArrayLike | None = None) -> NDArray[np.float64]:
        """Sample the principal circle (the S^1 of PNS) on the original sphere.

        Parameters
        ----------
        m : int, default 100
            Number of points of the default grid: PNS1 from ``−π·circle_radius_`` to
            ``+π·circle_radius_`` inclusive (a closed curve; the first and last points
            coincide).
        grid : array_like, shape (m,), optional
            PNS1 values (score units) to use instead of the default grid.

        Returns
        -------
        ndarray, shape (m, d + 1)
            Points of the circle, ordered by PNS1.
        """
        self._check_fitted()
        if grid is None:
            if int(m) < 2:
                raise ValueError(f"m must be >= 2, got {m}")
            grid = np.linspace(-np.pi, np.pi, int(m)) * self.circle_radius_
        return self.subsphere_points(1, np.asarray(grid, dtype=np.float64).ravel())
