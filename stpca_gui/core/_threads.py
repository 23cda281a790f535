"""Keeping BLAS out of the way of the compiled kernels' threads.

The heavy work of a fit runs in numba's own thread pool, which uses every core. Left alone,
OpenBLAS starts as many threads again for the small matrix operations in between
(L-BFGS updates, eigensolvers), and on a two-core machine the two pools then spin against
each other: measured 0.5 s stalls in a 300×300 eigendecomposition and seconds of L-BFGS
overhead at n = 5371, against milliseconds with one BLAS thread.

The loaded libraries are found once, when this module is imported (in practice by the
main thread, with numpy's and scipy's BLAS already loaded). ``threadpool_limits`` would
search them again at every call by opening each shared library listed in
``/proc/self/maps``; done from a worker thread while the main thread loads or unloads
libraries (Qt plugins, VTK modules), that search crashed the app's process in CI.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

import numpy  # noqa: F401  (loads numpy's BLAS before the search below)
import scipy.linalg  # noqa: F401  (loads scipy's BLAS before the search below)
from threadpoolctl import ThreadpoolController

P = ParamSpec("P")
R = TypeVar("R")

#: The BLAS and OpenMP libraries of this process, found once at import.
LOADED_LIBRARIES = ThreadpoolController()


def single_threaded_blas(function: Callable[P, R]) -> Callable[P, R]:
    """Run ``function`` with BLAS limited to one thread (restored afterwards)."""

    @wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with LOADED_LIBRARIES.limit(limits=1, user_api="blas"):
            return function(*args, **kwargs)

    return wrapper
