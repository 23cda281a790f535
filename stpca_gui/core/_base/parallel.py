"""Running compiled kernels on every core with plain Python threads.

The kernels are compiled with ``nogil=True``, so a kernel called from several Python
threads at once runs on several cores. Splitting the work in Python instead of numba's
``prange`` costs nothing measurable at the block sizes used (a few hundred microseconds of
dispatch per call, against tens of milliseconds of work), and it keeps the kernels
serial: a ``parallel=True`` kernel took 3–15 s to compile on a 2-core machine, against
under a second for the same loop without it, and that compile time is what a user waits
for on the first run after installing.

The number of threads follows ``NUMBA_NUM_THREADS`` (default: the number of CPUs), as
numba's own pool did.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numba

T = TypeVar("T")
R = TypeVar("R")

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_in_worker = threading.local()


def _forget_pool_in_child() -> None:
    # A forked child inherits the pool object but not its threads: it must start its own.
    global _pool, _pool_lock
    _pool = None
    _pool_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_in_child)


def worker_count() -> int:
    """Threads that kernels run on (``NUMBA_NUM_THREADS``, default the number of CPUs)."""
    return max(1, int(numba.config.NUMBA_NUM_THREADS))


def _mark_worker() -> None:
    _in_worker.active = True


def _shared_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=worker_count(),
                                       thread_name_prefix="stpca-kernel",
                                       initializer=_mark_worker)
        return _pool


def map_parallel(function: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """``[function(item) for item in items]``, the calls spread over the kernel threads.

    The calling thread works too: it and up to ``worker_count() - 1`` pool threads take
    the items one at a time until none are left. A pool thread that starts late (the pool
    busy with another caller's work, say a Monte Carlo run beside a fit) finds nothing left
    and is not waited for, so concurrent callers never queue behind each other. Results
    keep the order of ``items``; the first exception raised by a call is raised here once
    the calls already running have ended. A call made from a pool thread runs its items
    in that thread.
    """
    items = list(items)
    helpers = min(worker_count(), len(items)) - 1
    if helpers <= 0 or getattr(_in_worker, "active", False):
        return [function(item) for item in items]
    results: list[R | None] = [None] * len(items)
    next_index = iter(range(len(items)))  # next() on it is atomic under the GIL
    stop = threading.Event()

    def drain() -> None:
        for index in next_index:
            if stop.is_set():
                return
            try:
                results[index] = function(items[index])
            except BaseException:
                stop.set()
                raise

    pool = _shared_pool()
    futures = [pool.submit(drain) for _ in range(helpers)]
    try:
        drain()
    finally:
        for future in futures:
            future.cancel()  # not started yet: nothing left for it to do
        pending = [future for future in futures if not future.cancelled()]
        for future in pending:
            future.exception()  # wait for the items it is working on
    for future in pending:
        if future.exception() is not None:
            raise future.exception()  # type: ignore[misc]
    return results  # type: ignore[return-value]


def row_blocks(n_rows: int, blocks_per_thread: int = 4) -> list[tuple[int, int]]:
    """Contiguous ``(start, stop)`` row ranges: a few per thread, so that threads that
    finish early take more blocks (the work per row varies)."""
    if n_rows <= 0:
        return []
    n_blocks = min(n_rows, worker_count() * blocks_per_thread)
    bounds = [n_rows * k // n_blocks for k in range(n_blocks + 1)]
    return [(bounds[k], bounds[k + 1]) for k in range(n_blocks)]
