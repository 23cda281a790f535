"""R-compatible BFGS minimiser: a Python port of R's ``vmmin``.

``optim(method = "BFGS")`` in R calls the C routine ``vmmin``, the variable-metric
method of J. C. Nash (*Compact Numerical Methods for Computers*, Algorithm 21).  It is
not the textbook BFGS with a Wolfe line search; it has its own, very simple rules:

* The search direction is ``t = -B g`` where ``B`` approximates the *inverse* Hessian.
  ``B`` starts as the identity and is reset to it whenever the method restarts.
* Line search: backtracking from step length 1, multiplying by ``stepredn = 0.2``,
  until the Armijo condition ``f <= Fmin + gradproj * step * acctol`` holds
  (``acctol = 1e-4``, ``gradproj = tᵀg < 0``) with ``f`` finite.  A non-finite ``f`` is
  simply a rejected trial.  The search gives up when the trial point is numerically equal
  to the current one in every coordinate, judged by ``10 + x_old == 10 + x_new``
  (``reltest = 10``).
* Stopping: after a line search, the change is "enough" only if
  ``f > abstol`` and ``|f - Fmin| > reltol * (|Fmin| + reltol)``.  When it is not, the
  new value is taken and the method restarts (``B = I``) unless it has just restarted, in
  which case it stops.  The stale gradient of the previous point is kept for that
  restart: ``vmmin`` does not recompute it, and neither does this port.
* Update: with ``s = step * t`` and ``y = g_new - g_old``, ``D1 = sᵀy``.  If ``D1 > 0``
  the BFGS inverse update ``B += (D2 s sᵀ - X sᵀ - s Xᵀ) / D1`` is applied with
  ``X = B y`` and ``D2 = 1 + yᵀX / D1``; otherwise the method restarts.  It also restarts
  when the search direction is not downhill and every ``2n + 1`` gradient evaluations.
* At most ``maxit`` iterations, where R's iteration counter starts at 1 after the
  initial gradient and is incremented at every gradient evaluation.

This module re-implements that logic step for step, so that a run with the same
objective, gradient, starting point and controls follows the same sequence of trial
points, the same acceptance decisions and the same restarts, and reports the same
function/gradient counts as R.

How the inverse Hessian is stored (O(min(maxit, n) · n) memory instead of R's n²/2) and how
faithful the port is to R's floating-point path are described in ``docs/vmmin.md``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.progress import FitCancelled

__all__ = [
    "ACCTOL",
    "DEFAULT_ABSTOL",
    "DEFAULT_MAXIT",
    "DEFAULT_RELTOL",
    "RELTEST",
    "STEPREDN",
    "ImplicitInverseHessian",
    "OptimizationCancelled",
    "VmminResult",
    "vmmin",
]

FloatArray = NDArray[np.float64]

#: Factor by which the step length is reduced after a rejected trial point (R: stepredn).
STEPREDN: Final[float] = 0.2
#: Armijo sufficient-decrease constant of the line search (R: acctol).
ACCTOL: Final[float] = 1e-4
#: Offset used to decide that a coordinate did not change (R: reltest).
RELTEST: Final[float] = 10.0
#: R's default ``reltol``: ``sqrt(.Machine$double.eps)`` (prints as 1.490116e-08).
DEFAULT_RELTOL: Final[float] = math.sqrt(sys.float_info.epsilon)
#: R's default ``abstol`` (``-Inf``: no absolute target).
DEFAULT_ABSTOL: Final[float] = -math.inf
#: R's default ``maxit`` for ``method = "BFGS"``.
DEFAULT_MAXIT: Final[int] = 100

#: ``message`` values of :class:`VmminResult`.
MESSAGE_CONVERGED: Final[str] = "converged"
MESSAGE_MAXIT: Final[str] = "maximum number of iterations reached"
MESSAGE_CALLBACK: Final[str] = "stopped by the callback"
MESSAGE_CANCELLED: Final[str] = "cancelled"
MESSAGE_NO_ITERATIONS: Final[str] = "maxit <= 0: no iterations performed"


#: Raise from a callback (or from the objective/gradient) to cancel :func:`vmmin`; it is
#: the project-wide :class:`~stpca_gui.core._base.progress.FitCancelled`. :func:`vmmin` catches it
#: and returns the best accepted point so far with ``converged=False`` and
#: ``message="cancelled"``; callers need not catch anything.
OptimizationCancelled = FitCancelled


@dataclass(frozen=True)
class VmminResult:
    """Outcome of :func:`vmmin`.

    Attributes
    ----------
    x : ndarray
        Final parameter vector (R's ``par``).
    fun : float
        Objective value reported for ``x`` (R's ``value``).
    n_fev : int
        Number of objective evaluations as R counts them (R's ``counts["function"]``);
        the initial evaluation counts as one.
    n_gev : int
        Number of gradient evaluations as R counts them (R's ``counts["gradient"]``);
        the initial evaluation counts as one.
    n_iter : int
        R's internal iteration counter (1 after the initial gradient, plus one per
        further gradient evaluation).
    converged : bool
        ``True`` iff R would report ``convergence = 0``: the stopping rule was met before
        ``maxit`` iterations.  ``False`` when ``maxit`` was reached or the run was stopped
        or cancelled through the callback.
    message : str
        Human-readable reason for stopping.
    """

    x: FloatArray
    fun: float
    n_fev: int
    n_gev: int
    n_iter: int
    converged: bool
    message: str


class ImplicitInverseHessian:
    """Inverse-Hessian approximation of ``vmmin`` stored as identity plus rank-two terms.

    After the updates ``(t_j, X_j, D1_j, D2_j)``, ``j = 1..k`` since the last reset, the
    matrix is::

        B = I + sum_j (D2_j t_j t_jᵀ - X_j t_jᵀ - t_j X_jᵀ) / D1_j

    which is exactly the dense matrix R's ``vmmin`` builds, because each term is the
    increment R adds to its matrix at that update (``X_j = B_{j-1} c_j`` is computed
    with the matrix as it was before the update, as in R).  Only ``O(k n)`` numbers are
    stored and a product costs ``O(k n)``.

    Parameters
    ----------
    n : int
        Dimension.
    initial_capacity : int, optional
        Number of updates to allocate room for initially; storage doubles as needed.
    """

    def __init__(self, n: int, initial_capacity: int = 8) -> None:
        if n < 1:
            raise ValueError(f"dimension must be positive, got {n}")
        capacity = max(1, int(initial_capacity))
        self._n = int(n)
        self._k = 0
        self._t = np.empty((capacity, self._n))
        self._x = np.empty((capacity, self._n))
        self._d1 = np.empty(capacity)
        self._d2 = np.empty(capacity)

    @property
    def n(self) -> int:
        """Dimension of the matrix."""
        return self._n

    @property
    def n_updates(self) -> int:
        """Number of rank-two updates applied since the last reset."""
        return self._k

    def reset(self) -> None:
        """Reset the matrix to the identity (R: ``B[i][j] = (i == j)``)."""
        self._k = 0

    def matvec(self, v: ArrayLike) -> FloatArray:
        """Return ``B v``.

        Parameters
        ----------
        v : array_like, shape (n,)
            Vector to multiply.

        Returns
        -------
        ndarray, shape (n,)
            The product, a new array.
        """
        v = np.asarray(v, dtype=np.float64)
        out = v.copy()
        k = self._k
        if k == 0:
            return out
        t = self._t[:k]
        x = self._x[:k]
        d1 = self._d1[:k]
        tv = t @ v
        xv = x @ v
        out += t.T @ ((self._d2[:k] * tv - xv) / d1)
        out -= x.T @ (tv / d1)
        return out

    def update(self, t: ArrayLike, c: ArrayLike, d1: float) -> tuple[FloatArray, float]:
        """Apply R's BFGS update for step ``t`` and gradient change ``c`` (``d1 = tᵀc``).

        The caller must only call this when ``d1 > 0`` (R restarts instead otherwise).

        Parameters
        ----------
        t : array_like, shape (n,)
            Step actually taken (``steplength * direction``).
        c : array_like, shape (n,)
            Change of the gradient over the step.
        d1 : float
            ``tᵀc``, positive.

        Returns
        -------
        X : ndarray, shape (n,)
            ``B c`` with the matrix before the update.
        d2 : float
            ``1 + cᵀX / d1``.
        """
        if not d1 > 0.0:
            raise ValueError(f"BFGS update needs d1 > 0, got {d1!r}")
        t = np.asarray(t, dtype=np.float64)
        c = np.asarray(c, dtype=np.float64)
        bx = self.matvec(c)
        d2 = 1.0 + float(bx @ c) / d1
        if self._k == self._t.shape[0]:
            self._grow()
        k = self._k
        self._t[k] = t
        self._x[k] = bx
        self._d1[k] = d1
        self._d2[k] = d2
        self._k = k + 1
        return bx, d2

    def to_dense(self) -> FloatArray:
        """Return ``B`` as a dense ``(n, n)`` array (for checks on small problems only).

        Returns
        -------
        ndarray, shape (n, n)
            Identity plus the stored updates, accumulated in the order they were made.
        """
        dense = np.eye(self._n)
        for j in range(self._k):
            t = self._t[j]
            x = self._x[j]
            dense += (self._d2[j] * np.outer(t, t) - np.outer(x, t) - np.outer(t, x)) / self._d1[j]
        return dense

    def _grow(self) -> None:
        capacity = 2 * self._t.shape[0]
        k = self._k
        for name in ("_t", "_x"):
            old = getattr(self, name)
            new = np.empty((capacity, self._n))
            new[:k] = old[:k]
            setattr(self, name, new)
        for name in ("_d1", "_d2"):
            old = getattr(self, name)
            new = np.empty(capacity)
            new[:k] = old[:k]
            setattr(self, name, new)


class _Evaluator:
    """Calls the user's objective and gradient, validating and copying their results.

    With a combined callable (``grad is True``) every call yields both the value and the
    gradient; the gradient of the most recent call is kept so that a gradient request at
    the point just evaluated (the only place ``vmmin`` asks for one after the start)
    costs nothing extra.
    """

    def __init__(
        self,
        fun: Callable[[FloatArray], Any],
        grad: Callable[[FloatArray], ArrayLike] | bool,
        n: int,
    ) -> None:
        if grad is True:
            self._combined = True
            self._grad: Callable[[FloatArray], ArrayLike] | None = None
        elif callable(grad):
            self._combined = False
            self._grad = grad
        else:
            raise TypeError(
                "grad must be a callable returning the gradient, or True when fun returns "
                "(value, gradient); finite-difference gradients are not supported"
            )
        self._fun = fun
        self._n = n
        self._last_x: FloatArray | None = None
        self._last_g: FloatArray | None = None

    def value(self, x: FloatArray) -> float:
        if not self._combined:
            return self._as_value(self._fun(x.copy()))
        out = self._fun(x.copy())
        try:
            fv, gv = out
        except (TypeError, ValueError):
            raise TypeError("with grad=True, fun must return a (value, gradient) pair") from None
        value = self._as_value(fv)
        self._last_g = self._as_gradient(gv)
        self._last_x = x.copy()
        return value

    def gradient(self, x: FloatArray) -> FloatArray:
        if not self._combined:
            assert self._grad is not None
            return self._as_gradient(self._grad(x.copy()))
        if self._last_x is None or not np.array_equal(self._last_x, x):
            self.value(x)
        assert self._last_g is not None
        return self._last_g

    @staticmethod
    def _as_value(value: Any) -> float:
        arr = np.asarray(value, dtype=np.float64)
        if arr.size != 1:
            raise ValueError(f"objective function returned {arr.size} values instead of 1")
        return float(arr.reshape(()))

    def _as_gradient(self, g: ArrayLike) -> FloatArray:
        arr = np.array(g, dtype=np.float64, copy=True).reshape(-1)
        if arr.size != self._n:
            raise ValueError(f"gradient evaluated to length {arr.size} not {self._n}")
        return arr


def vmmin(
    fun: Callable[[FloatArray], Any],
    grad: Callable[[FloatArray], ArrayLike] | bool,
    x0: ArrayLike,
    *,
    reltol: float = DEFAULT_RELTOL,
    abstol: float = DEFAULT_ABSTOL,
    maxit: int = DEFAULT_MAXIT,
    callback: Callable[[int, float, FloatArray], bool | None] | None = None,
) -> VmminResult:
    """Minimise ``fun`` with the variable-metric method of R's ``optim(method="BFGS")``.

    Follows R's ``vmmin`` step for step (see the module docstring): same line search,
    same acceptance and stopping rules, same inverse-Hessian updates and restarts, same
    evaluation counts.  The inverse Hessian is kept in low-rank form, so memory grows as
    ``O(min(maxit, n) · n)`` rather than ``O(n²)``.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> float``: the objective.  A non-finite value at a trial point is a
        rejected step; at ``x0`` it is an error.  When ``grad is True``, ``fun(x)`` must
        return ``(value, gradient)`` instead.
    grad : callable or True
        ``grad(x) -> ndarray`` of shape ``(n,)``: the gradient of ``fun`` (the preferred
        form).  ``True`` means ``fun`` returns both (SciPy's ``jac=True`` convention).
        ``vmmin`` evaluates the objective alone at every trial point of its line search,
        so with a combined callable the gradient computed at each *rejected* trial is
        wasted work; the one computed at an accepted point is reused, never recomputed.
        The reported counts are R's either way.
    x0 : array_like, shape (n,)
        Starting point.
    reltol : float, optional
        Relative convergence tolerance on the objective (R's ``control$reltol``).
        Default ``sqrt(machine epsilon)`` ≈ 1.490116e-08, as in R.
    abstol : float, optional
        Stop once the objective is at or below this value (R's ``control$abstol``).
        Default ``-inf``.
    maxit : int, optional
        Maximum number of iterations (R's ``control$maxit``), default 100.  With
        ``maxit <= 0`` only ``fun(x0)`` is evaluated, as in R.
    callback : callable, optional
        ``callback(iteration, fmin, x)``, called after every accepted step with R's
        iteration counter, the new objective value and a copy of the new point.  If it
        returns a true value the run stops and the best point so far is returned with
        ``converged=False``.  It may also raise :class:`OptimizationCancelled` (so may
        ``fun`` and ``grad``), in which case the best accepted point so far is returned
        with ``converged=False`` and ``message="cancelled"``.

    Returns
    -------
    VmminResult
        Final point and value, R's counts, iteration count, convergence flag and message.

    Raises
    ------
    ValueError
        If ``x0`` is not a non-empty 1-D vector, ``fun(x0)`` is not finite, or the
        objective/gradient return arrays of the wrong size.
    TypeError
        If ``grad`` is neither a callable nor ``True``.

    Notes
    -----
    The result equals R's ``optim(x0, fn, gr, method = "BFGS", control = list(reltol =
    reltol, abstol = abstol, maxit = maxit))`` with the default ``parscale`` and
    ``fnscale``: ``x`` is ``par``, ``fun`` is ``value``, ``(n_fev, n_gev)`` is ``counts``
    and ``converged`` is ``convergence == 0``.  Differences can only come from rounding
    in inner products (see docs/vmmin.md).

    Examples
    --------
    >>> import numpy as np
    >>> def fr(x):
    ...     return 100 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2
    >>> def grr(x):
    ...     return np.array([-400 * x[0] * (x[1] - x[0] ** 2) - 2 * (1 - x[0]),
    ...                      200 * (x[1] - x[0] ** 2)])
    >>> res = vmmin(fr, grr, [-1.2, 1.0])
    >>> res.n_fev, res.n_gev, res.converged
    (110, 43, True)
    """
    b = np.array(x0, dtype=np.float64, copy=True)
    if b.ndim == 0:
        b = b.reshape(1)
    if b.ndim != 1:
        raise ValueError(f"x0 must be a 1-D vector, got shape {b.shape}")
    n = b.size
    if n == 0:
        raise ValueError("x0 must not be empty")
    evaluator = _Evaluator(fun, grad, n)
    maxit = int(maxit)
    reltol = float(reltol)
    abstol = float(abstol)

    if maxit <= 0:
        return VmminResult(
            x=b,
            fun=evaluator.value(b),
            n_fev=0,
            n_gev=0,
            n_iter=0,
            converged=True,
            message=MESSAGE_NO_ITERATIONS,
        )

    f = evaluator.value(b)
    if not math.isfinite(f):
        raise ValueError("initial value in 'vmmin' is not finite")
    fmin = f
    funcount = gradcount = 1
    g = evaluator.gradient(b)
    iteration = 1
    ilast = gradcount
    inv_hessian = ImplicitInverseHessian(n)
    # Best accepted point so far (what a cancellation returns).
    best_x = b.copy()
    best_f = fmin

    def _result(x: FloatArray, value: float, converged: bool, message: str) -> VmminResult:
        return VmminResult(
            x=x,
            fun=value,
            n_fev=funcount,
            n_gev=gradcount,
            n_iter=iteration,
            converged=converged,
            message=message,
        )

    try:
        while True:
            if ilast == gradcount:
                inv_hessian.reset()
            x_start = b.copy()
            g_start = g
            t = -inv_hessian.matvec(g)
            gradproj = float(t @ g)

            if gradproj < 0.0:  # downhill: backtracking line search
                steplength = 1.0
                accpoint = False
                shifted_start = RELTEST + x_start
                while True:
                    b = x_start + steplength * t
                    count = int(np.count_nonzero(shifted_start == RELTEST + b))
                    if count < n:
                        f = evaluator.value(b)
                        funcount += 1
                        accpoint = math.isfinite(f) and (f <= fmin + gradproj * steplength * ACCTOL)
                        if not accpoint:
                            steplength *= STEPREDN
                    if count == n or accpoint:
                        break
                if accpoint:
                    best_x = b.copy()
                    best_f = f
                # Is the decrease worth another iteration?  (False also for NaN f.)
                enough = (f > abstol) and abs(f - fmin) > reltol * (abs(fmin) + reltol)
                if not enough:
                    count = n
                    fmin = f
                if count < n:  # progress: new gradient and BFGS update
                    fmin = f
                    g = evaluator.gradient(b)
                    gradcount += 1
                    iteration += 1
                    t = steplength * t
                    c = g - g_start
                    d1 = float(t @ c)
                    if d1 > 0.0:
                        inv_hessian.update(t, c, d1)
                    else:
                        ilast = gradcount  # restart with B = I
                elif ilast < gradcount:  # no progress: restart unless just restarted
                    count = 0
                    ilast = gradcount
                if accpoint and callback is not None:
                    if callback(iteration, fmin, b.copy()):
                        return _result(best_x, best_f, False, MESSAGE_CALLBACK)
            else:  # uphill direction: restart, or stop if B is already the identity
                count = 0
                if ilast == gradcount:
                    count = n
                else:
                    ilast = gradcount

            if iteration >= maxit:
                break
            if gradcount - ilast > 2 * n:
                ilast = gradcount  # periodic restart
            if count == n and ilast == gradcount:
                break
    except OptimizationCancelled:
        return _result(best_x, best_f, False, MESSAGE_CANCELLED)

    if iteration < maxit:
        return _result(b, fmin, True, MESSAGE_CONVERGED)
    return _result(b, fmin, False, MESSAGE_MAXIT)
