"""L-BFGS without bounds whose inverse-Hessian products are a few matrix products.

SMDS on m landmarks at high d optimises m × (d + 1) free coordinates (427,000 at d = 426,
m = 1,000). scipy's L-BFGS-B handles bounds, which SMDS does not have, at the price of a
Cauchy point, a subspace minimisation and the update of its middle matrix in every
iteration: its Fortran (``setulb``, one thread) took 36 ms a call, 72 ms an iteration, 26 s
of the 50 s of the landmark stage at T⁴²⁶ (docs/high_dimension.md), more than the stress
evaluations.

Here the inverse Hessian is kept in the compact form of Byrd, Nocedal & Schnabel (1994,
*Math. Programming* 63, eq. 3.1): with the last k steps S and gradient changes Y (k × N,
rows), R the upper triangle of S Yᵀ (chronological order), D its diagonal and
γ = sᵀy / yᵀy of the newest pair,

    H g = γ g + Sᵀ p + γ Yᵀ q,   q = −R⁻¹ (S g),   p = R⁻ᵀ ((D + γ Y Yᵀ) R⁻¹ (S g) − γ Y g).

S and Y are rows of one (2 · memory) × N array W, so that an iteration reads W twice: once
for W g_new and W y (one product with two right-hand sides; S yᵀ and Y yᵀ are the new
column of the small matrices), once for the direction Wᵀ (p, γq); everything else is
O(memory²) or a few O(N) vector operations. Both products run over fixed column blocks
on the kernel threads (partial sums added in block order, so the result does not depend
on the thread count). The line search is scipy's (strong Wolfe conditions, c1 = 1e-4,
c2 = 0.9), which starts at the full step, as L-BFGS-B's does; the first step is scaled
to unit length, as L-BFGS-B scales it. A failed line search clears the memory and retries
along the steepest descent; a second failure in a row stops.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.optimize
from numpy.typing import NDArray

from .._base.parallel import map_parallel

FloatArray = NDArray[np.float64]
#: fun(x) -> (value, gradient): the objective and its gradient in one call.
ValueAndGradient = Callable[[FloatArray], tuple[float, FloatArray]]

#: Columns of W per block of the two products (fixed, so that results do not depend on the
#: number of threads): 8,192 columns of 40 rows are 2.6 MB of W, within a core's cache,
#: which W g and W y of one block share (one thread, N = 427,000: 10.5 ms for both
#: against 19.5 ms in blocks of 65,536 columns and 9.5 ms for W g alone).
_COLUMN_BLOCK = 1 << 13
#: A pair (s, y) enters the memory only if sᵀy > this · yᵀy (else the curvature it
#: carries is not positive to rounding, as in L-BFGS-B).
_CURVATURE_EPS = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class LbfgsResult:
    """Outcome of :func:`minimize_lbfgs`."""

    x: FloatArray
    fun: float
    n_iter: int
    n_evaluations: int
    #: True when the gradient test or the caller's callback ended the run.
    success: bool
    message: str


class CompactInverseHessian:
    """The L-BFGS inverse Hessian of the last ``memory`` pairs, in compact form.

    Parameters
    ----------
    n : int
        Number of variables N.
    memory : int
        Pairs kept (L-BFGS-B's ``maxcor``).
    """

    def __init__(self, n: int, memory: int) -> None:
        self.memory = int(memory)
        self._w = np.zeros((2 * self.memory, n))  # rows: s of each slot, then y of each slot
        self._sy = np.zeros((self.memory, self.memory))  # s_i · y_j by slot
        self._yy = np.zeros((self.memory, self.memory))
        self._order: list[int] = []  # slots, oldest first
        self._blocks = [(lo, min(n, lo + _COLUMN_BLOCK)) for lo in range(0, n, _COLUMN_BLOCK)]

    @property
    def n_pairs(self) -> int:
        return len(self._order)

    def clear(self) -> None:
        self._order = []

    def products(self, *vectors: FloatArray) -> FloatArray:
        """W vᵢ for every given vector, shape (2 · memory, count): rows of free slots are
        meaningless."""
        rhs = np.stack(vectors, axis=1)

        def run(block: tuple[int, int]) -> FloatArray:
            lo, hi = block
            return self._w[:, lo:hi] @ rhs[lo:hi]

        parts = map_parallel(run, self._blocks)
        total = parts[0]
        for part in parts[1:]:
            total += part
        return total

    def direction(self, gradient: FloatArray, w_gradient: FloatArray) -> FloatArray:
        """−H g, given ``w_gradient`` = W g (:meth:`products`)."""
        k = len(self._order)
        if k == 0:
            return -gradient
        m = self.memory
        order = np.asarray(self._order)
        newest = order[-1]
        gamma = self._sy[newest, newest] / self._yy[newest, newest]
        sy = self._sy[np.ix_(order, order)]
        upper = np.triu(sy)
        s_g = w_gradient[order]
        y_g = w_gradient[m + order]
        r_inv_sg = scipy.linalg.solve_triangular(upper, s_g, lower=False)
        inner = np.diag(sy) * r_inv_sg + gamma * (self._yy[np.ix_(order, order)] @ r_inv_sg)
        p = scipy.linalg.solve_triangular(upper, inner - gamma * y_g, lower=False, trans="T")
        coefficients = np.zeros(2 * m)
        coefficients[order] = -p
        coefficients[m + order] = gamma * r_inv_sg
        out = np.empty_like(gradient)

        def run(block: tuple[int, int]) -> None:
            lo, hi = block
            np.matmul(coefficients, self._w[:, lo:hi], out=out[lo:hi])
            out[lo:hi] -= gamma * gradient[lo:hi]

        map_parallel(run, self._blocks)
        return out

    def add(self, step: FloatArray, change: FloatArray, w_change: FloatArray,
            curvature: float) -> int:
        """Keep the pair (s, y) = (``step``, ``change``), replacing the oldest when full;
        ``w_change`` = W y before the replacement, ``curvature`` = sᵀy. Returns the slot."""
        m = self.memory
        slot = self._order.pop(0) if len(self._order) == m else len(self._order)
        self._w[slot] = step
        self._w[m + slot] = change
        others = np.asarray(self._order, dtype=np.intp)
        self._order.append(slot)
        self._sy[others, slot] = w_change[others]  # s_i · y_new
        self._yy[others, slot] = self._yy[slot, others] = w_change[m + others]
        self._sy[slot, slot] = curvature
        self._yy[slot, slot] = float(change @ change)
        return slot

    def row_products(self, slot: int, vector: FloatArray) -> tuple[float, float]:
        """s · v and y · v of one slot."""
        return float(self._w[slot] @ vector), float(self._w[self.memory + slot] @ vector)


def minimize_lbfgs(
    fun: ValueAndGradient,
    x0: FloatArray,
    *,
    memory: int = 20,
    max_iter: int = 1000,
    max_evaluations: int = 20_000,
    gtol: float = 1e-10,
    callback: Callable[[int, FloatArray, float], bool] | None = None,
) -> LbfgsResult:
    """Minimise a smooth function without bounds by L-BFGS (compact inverse Hessian).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (value, gradient)``.
    x0 : ndarray, shape (N,)
    memory : int
        Pairs kept (L-BFGS-B's ``maxcor``).
    max_iter, max_evaluations : int
        Limits on iterations and on calls of ``fun``.
    gtol : float
        Stop when the largest gradient component is at most this (L-BFGS-B's ``pgtol``).
    callback : callable, optional
        ``callback(iteration, x, value)`` after every iteration; a true result stops the
        run (reported as a success: the caller's stopping rule was met).
    """
    x = np.array(x0, dtype=np.float64).ravel()
    evaluations = 0
    last: dict[str, object] = {}

    def evaluate(point: FloatArray) -> tuple[float, FloatArray]:
        nonlocal evaluations
        if "x" in last and np.array_equal(last["x"], point):
            return last["f"], last["g"]  # type: ignore[return-value]
        evaluations += 1
        value, grad = fun(point)
        last.update(x=point.copy(), f=float(value), g=np.asarray(grad, dtype=np.float64))
        return last["f"], last["g"]  # type: ignore[return-value]

    f, g = evaluate(x)
    hessian = CompactInverseHessian(x.size, memory)
    w_g = np.zeros((2 * hessian.memory,))
    iteration = 0
    failed_before = False
    message = "maximum number of iterations reached"
    success = False
    while iteration < max_iter:
        if float(np.max(np.abs(g))) <= gtol:
            message, success = "gradient below gtol", True
            break
        if evaluations >= max_evaluations:
            message = "maximum number of evaluations reached"
            break
        direction = hessian.direction(g, w_g)
        if hessian.n_pairs == 0:
            direction /= max(float(np.linalg.norm(direction)), 1e-300)
        with warnings.catch_warnings():
            # A failed search says so through its result (handled below), not a warning.
            warnings.filterwarnings(
                "ignore", message="(The line search algorithm|Rounding errors prevent)")
            alpha = scipy.optimize.line_search(
                lambda p: evaluate(p)[0], lambda p: evaluate(p)[1], x, direction,
                gfk=g, old_fval=f)[0]
        if alpha is None:
            if hessian.n_pairs == 0 or failed_before:
                message = "the line search found no acceptable step"
                break
            failed_before = True
            hessian.clear()
            continue
        failed_before = False
        step = alpha * direction
        x_new = x + step
        f_new, g_new = evaluate(x_new)
        change = g_new - g
        w_both = hessian.products(g_new, change)
        w_g = w_both[:, 0]
        curvature = float(step @ change)
        if curvature > _CURVATURE_EPS * float(change @ change):
            slot = hessian.add(step, change, w_both[:, 1], curvature)
            w_g[slot], w_g[hessian.memory + slot] = hessian.row_products(slot, g_new)
        x, f, g = x_new, f_new, g_new
        iteration += 1
        if callback is not None and callback(iteration, x, f):
            message, success = "stopped by the callback", True
            break
    return LbfgsResult(x=x, fun=f, n_iter=iteration, n_evaluations=evaluations,
                       success=success, message=message)
