"""BLAS thread limits around the fits, without searching the loaded libraries again."""

from __future__ import annotations

import itertools
import threading

import pytest
import threadpoolctl

from stpca_gui.core._base.threads import loaded_libraries, single_threaded_blas


def _blas_threads() -> list[int]:
    return [info["num_threads"] for info in loaded_libraries().info() if info["user_api"] == "blas"]


def test_blas_is_single_threaded_inside_and_restored_after():
    before = _blas_threads()
    assert before, "numpy's BLAS was not found"

    @single_threaded_blas
    def inside() -> list[int]:
        return _blas_threads()

    assert inside() == [1] * len(before)
    assert _blas_threads() == before


def test_worker_threads_never_search_the_loaded_libraries(monkeypatch):
    # Searching /proc/self/maps from a worker thread crashed the app in CI.
    def no_search(self):
        raise AssertionError("the loaded libraries were searched again")

    loaded_libraries()  # the one search, made here as the app makes it: in the main thread
    monkeypatch.setattr(threadpoolctl.ThreadpoolController, "_load_libraries", no_search)
    results: list[object] = []

    @single_threaded_blas
    def work() -> int:
        return 42

    def run() -> None:
        try:
            results.append(work())
        except AssertionError as error:
            results.append(error)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert results == [42]


def test_kernel_threads_spread_calls_and_keep_order():
    from stpca_gui.core._base.parallel import map_parallel, row_blocks, worker_count

    caller = threading.current_thread().name
    names = map_parallel(lambda item: (item, threading.current_thread().name), range(40))
    assert [item for item, _ in names] == list(range(40))
    assert all(name == caller or name.startswith("stpca-kernel") for _, name in names)
    assert worker_count() >= 1
    blocks = row_blocks(1001)
    assert blocks[0][0] == 0 and blocks[-1][1] == 1001
    assert all(a[1] == b[0] for a, b in itertools.pairwise(blocks))
    assert row_blocks(0) == []


def test_a_call_from_a_kernel_thread_runs_inline_instead_of_waiting_on_the_pool():
    from stpca_gui.core._base.parallel import map_parallel

    nested = map_parallel(lambda item: sum(map_parallel(lambda x: x * item, range(5))),
                          range(8))
    assert nested == [10 * item for item in range(8)]


def test_errors_in_kernel_threads_reach_the_caller():
    from stpca_gui.core._base.parallel import map_parallel

    def fail(item: int) -> int:
        if item == 3:
            raise ValueError("block 3 failed")
        return item

    with pytest.raises(ValueError, match="block 3 failed"):
        map_parallel(fail, range(6))


def test_a_caller_never_waits_behind_another_callers_work():
    # A Monte Carlo run and a fit share the kernel threads: the second caller must finish
    # its own items while the first one's items still occupy every pool thread.
    from stpca_gui.core._base.parallel import map_parallel, worker_count

    release = threading.Event()
    started = threading.Semaphore(0)

    def blocking(item: int) -> int:
        started.release()
        assert release.wait(timeout=60), "never released"
        return item

    first = threading.Thread(target=map_parallel, args=(blocking, range(worker_count() + 2)))
    first.start()
    for _ in range(worker_count()):  # the first caller's items occupy the pool (and itself)
        assert started.acquire(timeout=60)
    squares: list[list[int]] = []
    second = threading.Thread(
        target=lambda: squares.append(map_parallel(lambda item: item * item, range(10))))
    second.start()
    second.join(timeout=30)  # queued behind the blocked items, it would still be waiting
    finished_while_blocked = not second.is_alive()
    release.set()
    first.join(timeout=60)
    second.join(timeout=60)
    assert finished_while_blocked and squares == [[i * i for i in range(10)]]
