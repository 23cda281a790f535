"""BLAS thread limits around the fits, without searching the loaded libraries again."""

from __future__ import annotations

import threading

import threadpoolctl

from stpca_gui.core._threads import loaded_libraries, single_threaded_blas


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
