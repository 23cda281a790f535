"""Keeping BLAS out of the way of the compiled kernels' threads.

The heavy work of a fit runs on the kernel threads (:mod:`.parallel`), one per core. Left
alone, OpenBLAS starts as many threads again for the small matrix operations in between
(L-BFGS updates, eigensolvers), and on a two-core machine the two pools then spin against
each other: measured 0.5 s stalls in a 300×300 eigendecomposition and seconds of L-BFGS
overhead at n = 5371, against milliseconds with one BLAS thread.

The loaded libraries are searched for once, by :func:`loaded_libraries`'s first call; later
calls, and every fit's limits, reuse that search. ``threadpool_limits`` would search again
at every call, walking the list of loaded shared libraries and opening each; done from a
worker thread while the main thread loads or unloads libraries (Qt plugins, VTK modules),
that search crashed the app's process in CI. A program that imports the core off its main
thread (the desktop app does, to show its window sooner) therefore calls
:func:`loaded_libraries` once from its main thread before the first fit; the command line
and scripts make the first call from the thread that fits.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

import numpy  # noqa: F401  (loads numpy's BLAS before the search below)
import scipy.linalg  # noqa: F401  (loads scipy's BLAS before the search below)
from threadpoolctl import ThreadpoolController

P = ParamSpec("P")
R = TypeVar("R")

_libraries: ThreadpoolController | None = None
_search_lock = threading.Lock()


def loaded_libraries() -> ThreadpoolController:
    """The BLAS and OpenMP libraries of this process, searched for on the first call only."""
    global _libraries
    with _search_lock:
        if _libraries is None:
            _libraries = ThreadpoolController()
        return _libraries


def single_threaded_blas(function: Callable[P, R]) -> Callable[P, R]:
    """Run ``function`` with BLAS limited to one thread (restored afterwards)."""

    @wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with loaded_libraries().limit(limits=1, user_api="blas"):
            return function(*args, **kwargs)

    return wrapper
