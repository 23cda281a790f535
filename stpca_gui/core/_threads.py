"""Keeping BLAS out of the way of the compiled kernels' threads.

The heavy work of a fit runs in numba's own thread pool, which uses every core. Left alone,
OpenBLAS starts as many threads again for the small matrix operations in between
(L-BFGS updates, eigensolvers), and on a two-core machine the two pools then spin against
each other: measured 0.5 s stalls in a 300×300 eigendecomposition and seconds of L-BFGS
overhead at n = 5371, against milliseconds with one BLAS thread.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from threadpoolctl import threadpool_limits

P = ParamSpec("P")
R = TypeVar("R")


def single_threaded_blas(function: Callable[P, R]) -> Callable[P, R]:
    """Run ``function`` with BLAS limited to one thread (restored afterwards)."""

    @wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with threadpool_limits(limits=1, user_api="blas"):
            return function(*args, **kwargs)

    return wrapper
