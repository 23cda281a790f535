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
    Below :data:`COMPACT_LBFGS_MIN_DIMS` angles the optimiser is scipy's L-BFGS-B, from
    there on :func:`~stpca_gui.core.smds.lbfgs.minimize_lbfgs` (the same method without
    the bounds' machinery, its products on both threads).

``"paper"``
    An emulation of what the ST-PCA paper ran: R's ``optim(method = "BFGS")`` on (z, r)
    with ``reltol = 5e-2``, started at the classical-MDS configuration and r = r* (the
    Wasserstein radius). That rule stops after two or three steps, far from convergence,
    and reproduces the published stresses (0.068 / 0.064 / 0.159); it exists so published
    analyses can be reproduced and compared with a converged fit.

The stress and its gradient are :class:`~stpca_gui.core.smds.stress.PairStress`'s; the start
configuration is classical MDS (:func:`~stpca_gui.core.smds.classical.classical_mds`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import scipy.optimize
from numpy.typing import ArrayLike, NDArray

from .._base.params import ArrayLikeValue, Estimator, Interval, Options, estimator, parameter
from .._base.progress import CancelCheck, FitCancelled, IterationCallback, SnapshotCallback
from .._base.random import RANDOM_STATE, RandomStateLike, check_random_state
from .._base.registry import model_file_class
from .._base.threads import single_threaded_blas
from ..geometry.validation import as_float_matrix, check_angles
from .classical import classical_mds, normalize_rows
from .lbfgs import minimize_lbfgs
from .radius import wasserstein_radius
from .stress import PairStress
from .vmmin import vmmin

#: Seed of the Monte Carlo estimate of r*, fixed so that r* is a property of d alone.
RADIUS_SEED = 0
#: Relative tolerance of R's optim that the paper used.
PAPER_RELTOL = 5e-2
#: Stress below this fraction of the mean squared torus distance is rounding noise.
_EXACT_STRESS_REL = 1e-12
#: Iterations over which the relative stress decrease is measured by the stopping rule.
_STOP_WINDOW = 5
#: Corrections the L-BFGS optimisers keep (L-BFGS-B's ``maxcor``).
_LBFGS_MEMORY = 20
#: From this many angles on "lbfgs" runs :func:`~.lbfgs.minimize_lbfgs` (the compact
#: inverse Hessian as matrix products on both threads) instead of scipy's L-BFGS-B, whose
#: Fortran took 26 of the 50 s of CPU of SMDS on 1,000 landmarks of T⁴²⁶
#: (docs/high_dimension.md); below it the fits (every paper table, d ≤ 7) are unchanged.
COMPACT_LBFGS_MIN_DIMS = 20


#: r* per dimension d, computed once per process.
_INITIAL_RADII: dict[tuple[int, str], float] = {}


def default_initial_radius(d: int, check: CancelCheck | None = None,
                           sphere_sampling: str = "uniform") -> float:
    """Wasserstein radius r* of eq. (wasser) for T^d (n = 100, 100 replicates, fixed seed).

    ``check`` (optional) is called between Monte Carlo replicates and raises
    :class:`~stpca_gui.core._base.progress.FitCancelled` to stop; a cancelled estimate is not kept.
    ``sphere_sampling="uniform-angles"`` gives the paper's r* instead (1.474 for d = 2,
    1.791 for d = 3; :func:`~stpca_gui.core.smds.radius.wasserstein_radius`).
    """
    key = (d, sphere_sampling)
    if key not in _INITIAL_RADII:
        _INITIAL_RADII[key] = float(wasserstein_radius(
            d, n=100, n_rep=100, random_state=RADIUS_SEED, check=check,
            sphere_sampling=sphere_sampling))
    return _INITIAL_RADII[key]


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

    def __init__(self, callback: IterationCallback | None, iteration_offset: int,
                 snapshot: SnapshotCallback | None = None) -> None:
        self.callback = callback
        self.snapshot = snapshot
        self.offset = iteration_offset
        self.cancelled = False

    def report(self, iteration: int, stress: float,
               configuration: Callable[[], tuple[NDArray[np.float64], float]] | None = None,
               ) -> bool:
        """Forward one iteration; return True when the caller asked to stop.

        ``configuration()`` gives the iteration's unit vectors and radius; it is called
        only when a snapshot receiver was given.
        """
        if self.snapshot is not None and configuration is not None:
            units, radius = configuration()
            self.snapshot(self.offset + iteration, stress, units, radius)
        if self.callback is None:
            return False
        try:
            stop = bool(self.callback(self.offset + iteration, stress))
        except FitCancelled:
            stop = True
        self.cancelled = self.cancelled or stop
        return stop


#: SMDS optimisers: "lbfgs" converges, "paper" emulates the paper's R optim run.
OPTIMIZERS = ("lbfgs", "paper")
#: Start configurations of SMDS.
INIT_METHODS = ("auto", "cmds", "spherical-cmds", "random")


@model_file_class()
@estimator
class SphericalMDS(Estimator):
    """Spherical MDS of points on the torus T^d onto the sphere S^d_r (eq. smds3).

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
        Starting radius: the one ``initial_radius`` names when ``radius="auto"``, else the
        fixed radius.
        The "lbfgs" optimiser profiles r out, so r* only matters for "paper".
    initial_stress_ : float
        Stress of the kept start's initial configuration at its optimal radius.
    converged_ : bool
        Whether the kept start met its stopping rule (False when cancelled or at max_iter).
    cancelled_ : bool
        Whether the progress callback stopped the fit; the best state so far is kept.
    """

    radius: float | str = parameter(
        "auto", Options(("auto",), labels=("estimate",)), Interval(float, 0.0, None, "neither"),
        doc="Sphere radius: \"auto\" estimates r jointly with the configuration (eq. smds3); "
            "a positive number fixes it (eq. smds2).",
        label="Sphere radius")
    initial_radius: float | str = parameter(
        "auto", Options(("auto", "paper"), labels=("r* (eq. wasser)", "r* as in the paper")),
        Interval(float, 0.0, None, "neither"),
        doc="Radius the estimate of r starts from (ignored when the radius is fixed): "
            "\"auto\" is r* of eq. (wasser), exactly; \"paper\" is r* as the paper computed "
            "it (uniform hyperspherical angles on the sphere: 1.474 on T², 1.791 on T³, "
            "docs/radius.md); a number starts there. It matters for the \"paper\" "
            "optimiser, which stops near its start, and for the spherical classical-MDS "
            "start of \"lbfgs\".",
        label="Starting radius", advanced=True)
    init: str | ArrayLike = parameter(
        "auto", Options(INIT_METHODS), ArrayLikeValue("an array of shape (n, d + 1)"),
        doc="Start configuration, rows normalised to unit length. \"cmds\": Euclidean "
            "classical MDS of the torus distances into R^{d+1} (the paper's start). "
            "\"spherical-cmds\": the spherical classical MDS of the Gram matrix cos(δ/r) at "
            "the starting radius, which lands in the global optimum's basin more often (on "
            "clusters-t2 with seed 0 the Euclidean start stalls at stress 0.0095, the "
            "spherical one reaches 0.0054). \"auto\": \"spherical-cmds\" for the \"lbfgs\" "
            "optimiser and \"cmds\" for \"paper\". \"random\": Gaussian directions.")
    n_init: int = parameter(
        1, Interval(int, 1, 1000),
        doc="Number of SMDS starts; starts after the first use random unit vectors and the "
            "fit with the lowest stress is kept.",
        label="SMDS starts", cli_flag="--restarts", advanced=True)
    optimizer: str = parameter(
        "lbfgs", Options(OPTIMIZERS, labels=("converged (L-BFGS)", "paper (R optim, reltol 0.05)")),
        doc="SMDS optimiser: \"lbfgs\" converges (see the module docstring); \"paper\" "
            "emulates R optim BFGS with reltol 5e-2 as used in the ST-PCA paper, started at "
            "r = r*.",
        label="SMDS optimiser", advanced=True)
    tol: float = parameter(
        1e-5, Interval(float, 0.0, 1.0, "neither"),
        doc="Relative stress decrease per iteration (averaged over the last five) below which "
            "\"lbfgs\" stops. Ignored by \"paper\", which uses PAPER_RELTOL.",
        label="SMDS tolerance", advanced=True)
    max_iter: int = parameter(
        2000, Interval(int, 1, 1_000_000),
        doc="Maximum optimiser iterations per start.",
        label="SMDS iterations (max)", advanced=True)
    random_state: RandomStateLike = parameter(
        None, *RANDOM_STATE,
        doc="Seeds the random restarts and the sparse eigensolver start.")

    # ------------------------------------------------------------------ fitting
    @single_threaded_blas
    def fit(self, X: ArrayLike, y: None = None, callback: IterationCallback | None = None,
            *, check: CancelCheck | None = None, snapshot: SnapshotCallback | None = None):
        """Map the torus sample ``X`` (n, d), radians, to the sphere.

        Parameters
        ----------
        X : array_like, shape (n, d)
            Angles in radians (any real values; they are wrapped to [-π, π)).
        y : ignored
        callback : callable, optional
            ``callback(iteration, stress)`` after every optimiser iteration; returning True
            or raising :class:`~stpca_gui.core._base.progress.FitCancelled` stops the fit, keeping
            the best configuration found so far.
        check : callable, optional
            Called between blocks of the start configuration's work (r*, the classical-MDS
            matrix and eigensolve, the initial stress), before the first optimiser
            iteration; it raises
            :class:`~stpca_gui.core._base.progress.FitCancelled` to stop, which propagates: there
            is no best state yet. The result does not depend on it.
        snapshot : callable, optional
            ``snapshot(iteration, stress, units, radius)`` after every optimiser iteration,
            before ``callback``: the configuration reached, as unit vectors of shape
            (n, d + 1) in a new array, and the radius (with ``radius="auto"`` and the
            "lbfgs" optimiser, the optimal radius of the last configuration evaluated).
            For live displays and animations; the result does not depend on it.

        Returns
        -------
        self
        """
        fixed_radius = self._check_params()
        angles = check_angles(X)
        d = angles.shape[1]
        rng = check_random_state(self.random_state)
        objective = PairStress(angles)
        initial_radius = (self._start_radius(d, check) if fixed_radius is None
                          else fixed_radius)
        starts = self._initial_configurations(angles, initial_radius, rng, check)

        best: _RunResult | None = None
        cancelled = False
        iterations_so_far = 0
        for start in starts:
            relay = _ProgressRelay(callback, iterations_so_far, snapshot)
            if self.optimizer == "paper":
                run = self._run_paper(objective, start, initial_radius, fixed_radius, relay)
            else:
                # The first start's initial stress (a pass over all pairs) still belongs
                # to the start configuration, where a cancel raises.
                run = self._run_lbfgs(objective, start, fixed_radius, relay,
                                      check if best is None else None)
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
        """Validate the parameters; return the fixed radius, or None when it is estimated."""
        self._validate_params()
        return None if isinstance(self.radius, str) else float(self.radius)

    def _start_radius(self, d: int, check: CancelCheck | None) -> float:
        """The radius the estimate of r starts from (``initial_radius``)."""
        if self.initial_radius == "auto":
            return default_initial_radius(d, check)
        if self.initial_radius == "paper":
            return default_initial_radius(d, check, sphere_sampling="uniform-angles")
        return float(self.initial_radius)

    def _initial_configurations(
        self, angles: NDArray[np.float64], radius: float, rng: np.random.Generator,
        check: CancelCheck | None = None,
    ) -> Iterator[NDArray[np.float64]]:
        n, d = angles.shape
        if isinstance(self.init, str):
            kind = self.init
            if kind == "auto":
                kind = "cmds" if self.optimizer == "paper" else "spherical-cmds"
            if kind == "cmds":
                yield classical_mds(angles, d + 1, rng, check=check)
            elif kind == "spherical-cmds":
                yield classical_mds(angles, d + 1, rng, sphere_radius=radius, check=check)
            elif kind == "random":
                yield normalize_rows(rng.standard_normal((n, d + 1)), rng)
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
        check: CancelCheck | None = None,
    ) -> _RunResult:
        shape = start.shape
        start_parts = objective.parts(start, gradient=False)
        if check is not None:
            check()
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

        def configuration_of(flat: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
            units = normalize_rows(flat.reshape(shape), np.random.default_rng(0))
            if fixed_radius is not None:
                return units, fixed_radius
            parts = last.get("parts")
            if parts is None or not np.array_equal(last["x"], flat):
                parts = objective.parts(units, gradient=False)
            return units, float(parts.optimal_radius())

        def stop_after(flat: NDArray[np.float64], scaled_value: float) -> bool:
            """Report an iteration; True when the caller or the stopping rule ends the run."""
            stress = scaled_value * scale
            history.append(stress)
            if relay.report(len(history), stress, lambda: configuration_of(flat)):
                return True
            if len(history) > _STOP_WINDOW:
                old = history[-1 - _STOP_WINDOW]
                if old - stress <= self.tol * _STOP_WINDOW * max(stress, 1e-300):
                    stopped["converged"] = True
                    return True
            return False

        if objective.n_angles >= COMPACT_LBFGS_MIN_DIMS:
            result = minimize_lbfgs(
                fun, start.ravel(), memory=_LBFGS_MEMORY, max_iter=int(self.max_iter),
                max_evaluations=20 * int(self.max_iter), gtol=1e-10,
                callback=lambda _, flat, value: stop_after(flat, value))
        else:
            def on_iteration(intermediate_result: scipy.optimize.OptimizeResult) -> None:
                if stop_after(intermediate_result.x, float(intermediate_result.fun)):
                    raise StopIteration

            result = scipy.optimize.minimize(
                fun,
                start.ravel(),
                jac=True,
                method="L-BFGS-B",
                callback=on_iteration,
                options={"maxiter": int(self.max_iter), "maxcor": _LBFGS_MEMORY, "ftol": 0.0,
                         "gtol": 1e-10, "maxfun": 20 * int(self.max_iter)},
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

        def paper_configuration(params: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
            free, r = split(np.asarray(params))
            return normalize_rows(free, np.random.default_rng(0)), float(r)

        params0 = start.ravel() if fixed_radius is not None else np.append(start.ravel(),
                                                                           initial_radius)
        result = vmmin(
            lambda p: evaluate(p)[0],
            lambda p: evaluate(p)[1],
            params0,
            reltol=PAPER_RELTOL,
            maxit=int(self.max_iter),
            # vmmin counts like R (1 before the first step); report accepted steps instead.
            callback=lambda it, f, x: relay.report(it - 1, f, lambda: paper_configuration(x)),
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
