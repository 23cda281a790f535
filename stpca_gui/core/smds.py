"""Spherical multidimensional scaling of toroidal data (ST-PCA step 1).

Points x_1..x_n on the torus T^d are mapped to unit vectors y_1..y_n on S^d (shown on the
sphere of radius r) by minimising the stress of eq. (smds3) of the paper,

    stress(y, r) = 1 / (n (n - 1)) Σ_{i≠j} (δ_T(x_i, x_j) - r θ(y_i, y_j))²,

with θ the angle between y_i and y_j. Two optimisers are offered:

``"lbfgs"`` (default)
    L-BFGS on free vectors z_i (y_i = z_i / |z_i|) with an analytic gradient. When the radius
    is estimated, r is profiled out: for fixed y the optimal radius is Σ δθ / Σ θ², so the
    optimiser works on the concentrated stress, which is much better conditioned than
    treating r as one more variable. The stopping rule is relative: iterations end when the
    stress has decreased by less than ``tol`` (relative) over the last few iterations.

``"paper"``
    An emulation of what the ST-PCA paper ran: R's ``optim(method = "BFGS")`` on (z, r)
    with ``reltol = 5e-2``, started at the classical-MDS configuration and r = r* (the
    Wasserstein radius). That rule stops after two or three steps, far from convergence,
    and reproduces the published stresses (0.068 / 0.064 / 0.159); it exists so published
    analyses can be reproduced and compared with a converged fit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
import scipy.linalg
import scipy.optimize
from numpy.typing import ArrayLike, NDArray

from . import _smds_kernel as kernel
from ._random import check_random_state
from ._threads import single_threaded_blas
from .progress import FitCancelled, IterationCallback
from .radius import wasserstein_radius
from .torus import torus_pdist
from .validation import as_float_matrix, check_angles
from .vmmin import vmmin

#: Seed of the Monte Carlo estimate of r*, fixed so that r* is a property of d alone.
RADIUS_SEED = 0
#: Relative tolerance of R's optim that the paper used.
PAPER_RELTOL = 5e-2
#: Chunks per thread of the pair kernel: more than one evens out load imbalance.
_CHUNKS_PER_THREAD = 4
#: Below this many pairs the kernel runs single-threaded (see ``pair_sums_serial``).
_PARALLEL_MIN_PAIRS = 400_000
#: Above this n the classical-MDS start uses a sparse eigensolver instead of a full one.
_DENSE_EIGH_MAX_N = 1500
#: Stress below this fraction of the mean squared torus distance is rounding noise.
_EXACT_STRESS_REL = 1e-12
#: Block subspace iterations of the classical-MDS start for large n.
_START_SUBSPACE_ITERATIONS = 8
#: Iterations over which the relative stress decrease is measured by the stopping rule.
_STOP_WINDOW = 5


@lru_cache(maxsize=32)
def default_initial_radius(d: int) -> float:
    """Wasserstein radius r* of eq. (wasser) for T^d (n = 100, 100 replicates, fixed seed)."""
    return float(wasserstein_radius(d, n=100, n_rep=100, random_state=RADIUS_SEED))


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
        threads = kernel.numba.get_num_threads()
        self._chunks = kernel.balanced_chunks(self.n_samples, threads * _CHUNKS_PER_THREAD)
        n = self.n_samples
        self._parallel = threads > 1 and n * (n - 1) // 2 >= _PARALLEL_MIN_PAIRS
        # 2 / (n (n - 1)) turns a sum over unordered pairs into eq. (smds3)'s normalisation.
        self.pair_scale = 2.0 / (n * (n - 1))

    def parts(self, unit_vectors: NDArray[np.float64], *, gradient: bool = True) -> StressParts:
        """Evaluate the pair sums for unit vectors of shape (n, p)."""
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
        parts = self.parts(units)
        r = parts.optimal_radius() if radius is None else radius
        value = self.pair_scale * parts.pair_stress_sum(r)
        grad_y = self.pair_scale * (r * r * parts.grad_tt - 2.0 * r * parts.grad_dt)
        # d y / d z = (I - y yᵀ) / |z|; the kernel's gradient is tangent already, but the
        # projection removes the rounding drift along y.
        grad_y -= np.sum(grad_y * units, axis=1, keepdims=True) * units
        return value, grad_y / norms, r, parts


def classical_mds(
    angles: NDArray[np.float64],
    n_components: int,
    random_state: np.random.Generator,
    *,
    sphere_radius: float | None = None,
) -> NDArray[np.float64]:
    """Classical MDS of the torus distances, rows normalised to unit length.

    Parameters
    ----------
    angles : ndarray, shape (n, d)
    n_components : int
        Dimension of the embedding space (d + 1 for S^d).
    random_state : numpy.random.Generator
        Start vector of the sparse eigensolver and directions for degenerate rows.
    sphere_radius : float, optional
        None gives Torgerson's Euclidean classical MDS (double-centred -D²/2). A radius r
        gives its spherical analogue: the leading eigenvectors of the Gram matrix
        cos(min(δ/r, π)) of points on S^d_r (the matrix of the embedding theorem quoted in
        section 2.1 of the paper), which is exact when the distances are spherical.

    Notes
    -----
    Exactly one n×n matrix is allocated and transformed in place. Rows that land on the
    origin (no direction) get a random unit vector.
    """
    n = angles.shape[0]
    gram = torus_pdist(angles)
    if sphere_radius is None:
        np.square(gram, out=gram)
        row_means = gram.mean(axis=1)
        grand_mean = row_means.mean()
        gram -= row_means[:, None]
        gram -= row_means[None, :]
        gram += grand_mean
        gram *= -0.5
    else:
        gram /= sphere_radius
        np.minimum(gram, np.pi, out=gram)
        np.cos(gram, out=gram)
    k = min(n_components, n - 1)
    if n <= _DENSE_EIGH_MAX_N:
        values, vectors = scipy.linalg.eigh(gram, subset_by_index=(n - k, n - 1))
    else:
        values, vectors = leading_eigenpairs(gram, k, random_state)
    del gram
    order = np.argsort(values)[::-1]
    coords = vectors[:, order] * np.sqrt(np.clip(values[order], 0.0, None))
    config = np.zeros((n, n_components))
    config[:, :k] = coords
    return normalize_rows(config, random_state)


def leading_eigenpairs(
    matrix: NDArray[np.float64],
    k: int,
    random_state: np.random.Generator,
    *,
    oversample: int = 10,
    n_iter: int = _START_SUBSPACE_ITERATIONS,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Approximate largest eigenpairs of a symmetric matrix by block subspace iteration.

    A start configuration needs a few correct digits, not many; block products with the
    n×n matrix run in BLAS (which releases the GIL, so a GUI thread stays responsive, unlike
    ARPACK's Fortran driver) and ``oversample`` extra vectors make the convergence depend
    on the gap to the (k + oversample)-th eigenvalue rather than to the (k + 1)-th.
    """
    n = matrix.shape[0]
    width = min(n, k + oversample)
    basis, _ = np.linalg.qr(matrix @ random_state.standard_normal((n, width)))
    for _ in range(n_iter):
        basis, _ = np.linalg.qr(matrix @ basis)
    small = basis.T @ (matrix @ basis)
    values, rotation = np.linalg.eigh((small + small.T) / 2.0)
    order = np.argsort(values)[::-1][:k]
    return values[order], basis @ rotation[:, order]


def normalize_rows(
    vectors: NDArray[np.float64], random_state: np.random.Generator
) -> NDArray[np.float64]:
    """Scale rows to unit length, giving rows of (near) zero length a random direction."""
    out = np.array(vectors, dtype=np.float64)
    norms = np.linalg.norm(out, axis=1)
    scale = norms.max() if norms.size else 0.0
    degenerate = norms <= 1e-12 * max(scale, 1.0)
    if degenerate.any():
        out[degenerate] = random_state.standard_normal((int(degenerate.sum()), out.shape[1]))
        norms[degenerate] = np.linalg.norm(out[degenerate], axis=1)
    return out / norms[:, None]


@dataclass
class _RunResult:
    units: NDArray[np.float64]
    radius: float
    stress: float
    n_iter: int
    n_evaluations: int
    converged: bool
    cancelled: bool
    message: str
    initial_stress: float


class _ProgressRelay:
    """Turns optimiser iterations into user callback calls and stop requests."""

    def __init__(self, callback: IterationCallback | None, iteration_offset: int) -> None:
        self.callback = callback
        self.offset = iteration_offset
        self.cancelled = False

    def report(self, iteration: int, stress: float) -> bool:
        """Forward one iteration; return True when the caller asked to stop."""
        if self.callback is None:
            return False
        try:
            stop = bool(self.callback(self.offset + iteration, stress))
        except FitCancelled:
            stop = True
        self.cancelled = self.cancelled or stop
        return stop


class SphericalMDS:
    """Spherical MDS of points on the torus T^d onto the sphere S^d_r (eq. smds3).

    Parameters
    ----------
    radius : "auto" or float, default "auto"
        "auto" estimates r jointly with the configuration (eq. smds3); a positive float
        fixes it (eq. smds2).
    init : {"auto", "cmds", "spherical-cmds", "random"} or array of shape (n, d + 1)
        Start configuration, rows normalised to unit length. "cmds": Euclidean classical
        MDS of the torus distances into R^{d+1} (the paper's start). "spherical-cmds": the
        spherical classical MDS of the Gram matrix cos(δ/r) at the starting radius, which
        lands in the global optimum's basin more often (on ``clusters-t2`` with seed 0 the
        Euclidean start stalls at stress 0.0095, the spherical one reaches 0.0054). "auto"
        (default) is "spherical-cmds" for the "lbfgs" optimiser and "cmds" for "paper".
        "random": Gaussian directions.
    n_init : int, default 1
        Number of starts; starts after the first use random unit vectors. The fit with the
        lowest stress is kept.
    optimizer : {"lbfgs", "paper"}, default "lbfgs"
        "lbfgs" converges (see module docstring); "paper" emulates R ``optim`` BFGS with
        reltol 5e-2 as used in the ST-PCA paper, started at r = r*.
    tol : float, default 1e-5
        Relative stress decrease per iteration (averaged over the last five) below which
        "lbfgs" stops. Ignored by "paper", which uses ``PAPER_RELTOL``.
    max_iter : int, default 2000
        Maximum optimiser iterations per start.
    random_state : None, int or numpy.random.Generator
        Seeds the random restarts and the sparse eigensolver start.

    Attributes
    ----------
    embedding_ : ndarray, shape (n, d + 1)
        Unit vectors; the configuration on S^d_r is ``radius_ * embedding_``.
    radius_ : float
    stress_ : float
        Eq. (smds3) at ``embedding_`` and ``radius_``.
    n_iter_ : int
        Optimiser iterations of the kept start.
    n_evaluations_ : int
        Stress evaluations of the kept start.
    initial_radius_ : float
        Starting radius: r* of eq. (wasser) when ``radius="auto"``, else the fixed radius.
        The "lbfgs" optimiser profiles r out, so r* only matters for "paper".
    initial_stress_ : float
        Stress of the kept start's initial configuration at its optimal radius.
    converged_ : bool
        Whether the kept start met its stopping rule (False when cancelled or at max_iter).
    cancelled_ : bool
        Whether the progress callback stopped the fit; the best state so far is kept.
    """

    def __init__(
        self,
        radius: Literal["auto"] | float = "auto",
        init: Literal["auto", "cmds", "spherical-cmds", "random"] | ArrayLike = "auto",
        n_init: int = 1,
        optimizer: Literal["lbfgs", "paper"] = "lbfgs",
        tol: float = 1e-5,
        max_iter: int = 2000,
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.radius = radius
        self.init = init
        self.n_init = n_init
        self.optimizer = optimizer
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting
    @single_threaded_blas
    def fit(self, X: ArrayLike, y: None = None, callback: IterationCallback | None = None):
        """Map the torus sample ``X`` (n, d), radians, to the sphere.

        Parameters
        ----------
        X : array_like, shape (n, d)
            Angles in radians (any real values; they are wrapped to [-π, π)).
        y : ignored
        callback : callable, optional
            ``callback(iteration, stress)`` after every optimiser iteration; returning True
            or raising :class:`~stpca_gui.core.progress.FitCancelled` stops the fit, keeping
            the best configuration found so far.

        Returns
        -------
        self
        """
        fixed_radius = self._check_params()
        angles = check_angles(X)
        d = angles.shape[1]
        rng = check_random_state(self.random_state)
        objective = PairStress(angles)
        initial_radius = default_initial_radius(d) if fixed_radius is None else fixed_radius
        starts = self._initial_configurations(angles, initial_radius, rng)

        best: _RunResult | None = None
        cancelled = False
        iterations_so_far = 0
        for start in starts:
            relay = _ProgressRelay(callback, iterations_so_far)
            if self.optimizer == "paper":
                run = self._run_paper(objective, start, initial_radius, fixed_radius, relay)
            else:
                run = self._run_lbfgs(objective, start, fixed_radius, relay)
            iterations_so_far += run.n_iter
            if best is None or run.stress < best.stress:
                best = run
                self.initial_stress_ = run.initial_stress
            if run.cancelled:
                cancelled = True
                break
        assert best is not None

        self.n_features_in_ = d
        self.embedding_ = best.units
        self.radius_ = float(best.radius)
        self.stress_ = float(best.stress)
        self.n_iter_ = best.n_iter
        self.n_evaluations_ = best.n_evaluations
        self.converged_ = best.converged
        self.cancelled_ = cancelled
        self.message_ = best.message
        self.initial_radius_ = float(initial_radius)
        self.angles_ = angles
        return self

    def fit_transform(self, X: ArrayLike, y: None = None, callback=None) -> NDArray[np.float64]:
        """Fit and return ``embedding_``."""
        return self.fit(X, callback=callback).embedding_

    def _check_params(self) -> float | None:
        if isinstance(self.radius, str):
            if self.radius != "auto":
                raise ValueError(f"radius must be 'auto' or a positive number, got {self.radius!r}")
            fixed = None
        else:
            fixed = float(self.radius)
            if not (math.isfinite(fixed) and fixed > 0.0):
                raise ValueError(f"radius must be 'auto' or a positive number, got {self.radius!r}")
        if self.optimizer not in ("lbfgs", "paper"):
            raise ValueError(f"optimizer must be 'lbfgs' or 'paper', got {self.optimizer!r}")
        if int(self.n_init) != self.n_init or self.n_init < 1:
            raise ValueError(f"n_init must be a positive integer, got {self.n_init!r}")
        if int(self.max_iter) != self.max_iter or self.max_iter < 1:
            raise ValueError(f"max_iter must be a positive integer, got {self.max_iter!r}")
        if not (self.tol > 0.0):
            raise ValueError(f"tol must be positive, got {self.tol!r}")
        return fixed

    def _initial_configurations(
        self, angles: NDArray[np.float64], radius: float, rng: np.random.Generator
    ) -> Iterator[NDArray[np.float64]]:
        n, d = angles.shape
        if isinstance(self.init, str):
            kind = self.init
            if kind == "auto":
                kind = "cmds" if self.optimizer == "paper" else "spherical-cmds"
            if kind == "cmds":
                yield classical_mds(angles, d + 1, rng)
            elif kind == "spherical-cmds":
                yield classical_mds(angles, d + 1, rng, sphere_radius=radius)
            elif kind == "random":
                yield normalize_rows(rng.standard_normal((n, d + 1)), rng)
            else:
                raise ValueError(
                    "init must be 'auto', 'cmds', 'spherical-cmds', 'random' or an array, "
                    f"got {self.init!r}"
                )
        else:
            given = as_float_matrix(self.init, what="init")
            if given.shape != (n, d + 1):
                raise ValueError(
                    f"init must have shape (n_samples, n_angles + 1) = {(n, d + 1)}, "
                    f"got {given.shape}"
                )
            yield normalize_rows(given, rng)
        for _ in range(int(self.n_init) - 1):
            yield normalize_rows(rng.standard_normal((n, d + 1)), rng)

    # ------------------------------------------------------------ optimisers
    def _run_lbfgs(
        self,
        objective: PairStress,
        start: NDArray[np.float64],
        fixed_radius: float | None,
        relay: _ProgressRelay,
    ) -> _RunResult:
        shape = start.shape
        start_parts = objective.parts(start, gradient=False)
        start_radius = start_parts.optimal_radius() if fixed_radius is None else fixed_radius
        initial = objective.pair_scale * start_parts.pair_stress_sum(start_radius)
        # Stress is A - 2rB + r²C, so values below ~1e-12 of the mean squared distance are
        # rounding noise: such a start is already an isometric embedding.
        exact = _EXACT_STRESS_REL * objective.pair_scale * start_parts.sum_dd
        if initial <= exact:
            return _RunResult(
                units=start, radius=start_radius, stress=initial, n_iter=0, n_evaluations=1,
                converged=True, cancelled=False,
                message="the start configuration is already an isometric embedding",
                initial_stress=initial,
            )
        # L-BFGS-B's ftol is absolute for objectives below 1, so the stress is divided by its
        # initial value and the real stopping rule (relative decrease) lives in the callback.
        scale = initial
        evaluations = 0
        last: dict[str, object] = {}

        def fun(flat: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
            nonlocal evaluations
            evaluations += 1
            value, grad, _, parts = objective.value_and_gradient(flat.reshape(shape),
                                                                 fixed_radius)
            last["x"], last["parts"] = flat.copy(), parts
            return value / scale, grad.ravel() / scale

        history: list[float] = []
        stopped = {"converged": False}

        def on_iteration(intermediate_result: scipy.optimize.OptimizeResult) -> None:
            stress = float(intermediate_result.fun) * scale
            history.append(stress)
            if relay.report(len(history), stress):
                raise StopIteration
            if len(history) > _STOP_WINDOW:
                old = history[-1 - _STOP_WINDOW]
                if old - stress <= self.tol * _STOP_WINDOW * max(stress, 1e-300):
                    stopped["converged"] = True
                    raise StopIteration

        result = scipy.optimize.minimize(
            fun,
            start.ravel(),
            jac=True,
            method="L-BFGS-B",
            callback=on_iteration,
            options={"maxiter": int(self.max_iter), "maxcor": 20, "ftol": 0.0, "gtol": 1e-10,
                     "maxfun": 20 * int(self.max_iter)},
        )
        units = normalize_rows(result.x.reshape(shape), np.random.default_rng(0))
        # L-BFGS-B's last evaluation is normally at the returned point: reuse it rather
        # than paying one more pass over all pairs (which also delays a cancel).
        if "x" in last and np.array_equal(last["x"], result.x):
            parts = last["parts"]
        else:
            parts = objective.parts(units, gradient=False)
        radius = parts.optimal_radius() if fixed_radius is None else fixed_radius
        stress = objective.pair_scale * parts.pair_stress_sum(radius)
        exact = stress <= _EXACT_STRESS_REL * objective.pair_scale * parts.sum_dd
        converged = not relay.cancelled and (stopped["converged"] or result.success or exact)
        if relay.cancelled:
            message = "stopped by the progress callback"
        elif stopped["converged"]:
            message = f"relative stress decrease below tol={self.tol:g}"
        elif exact:
            message = "isometric embedding reached (stress at rounding level)"
        else:
            message = str(result.message)
        return _RunResult(
            units=units,
            radius=radius,
            stress=stress,
            n_iter=len(history),
            n_evaluations=evaluations,
            converged=bool(converged),
            cancelled=relay.cancelled,
            message=message,
            initial_stress=initial,
        )

    def _run_paper(
        self,
        objective: PairStress,
        start: NDArray[np.float64],
        initial_radius: float,
        fixed_radius: float | None,
        relay: _ProgressRelay,
    ) -> _RunResult:
        shape = start.shape
        size = start.size
        cache: dict[bytes, tuple[float, NDArray[np.float64]]] = {}

        def split(params: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
            if fixed_radius is None:
                return params[:size].reshape(shape), float(params[size])
            return params.reshape(shape), fixed_radius

        def evaluate(params: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
            key = params.tobytes()
            if key not in cache:
                cache.clear()
                free, r = split(params)
                value, grad_z, _, parts = objective.value_and_gradient(free, r)
                grad = grad_z.ravel()
                if fixed_radius is None:
                    d_radius = objective.pair_scale * (2.0 * r * parts.sum_tt - 2.0 * parts.sum_dt)
                    grad = np.append(grad, d_radius)
                cache[key] = (value, grad)
            return cache[key]

        params0 = start.ravel() if fixed_radius is not None else np.append(start.ravel(),
                                                                           initial_radius)
        result = vmmin(
            lambda p: evaluate(p)[0],
            lambda p: evaluate(p)[1],
            params0,
            reltol=PAPER_RELTOL,
            maxit=int(self.max_iter),
            # vmmin counts like R (1 before the first step); report accepted steps instead.
            callback=lambda it, f, _x: relay.report(it - 1, f),
        )
        free, r = split(np.asarray(result.x))
        units = normalize_rows(free, np.random.default_rng(0))
        return _RunResult(
            units=units,
            radius=float(r),
            stress=objective.stress(units, r),
            n_iter=int(result.n_iter) - 1,
            n_evaluations=int(result.n_fev),
            converged=bool(result.converged),
            cancelled=relay.cancelled,
            message=str(result.message),
            initial_stress=objective.stress(start, fixed_radius),
        )

    # ------------------------------------------------------------ utilities
    def stress_of(self, embedding: ArrayLike, radius: float | None = None) -> float:
        """Eq. (smds3) stress of another configuration against the fitted torus sample."""
        units = normalize_rows(as_float_matrix(embedding, what="embedding"),
                               np.random.default_rng(0))
        return PairStress(self.angles_).stress(units, radius)


StressCallable = Callable[[NDArray[np.float64]], float]
