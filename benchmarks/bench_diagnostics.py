"""Time of the fit diagnostics (core.diagnostics.fit_diagnostics) beside the fit itself.

An exact fit of the clusters-t3 demo (n = 300) and a landmark fit (1000 landmarks) of
n = 10⁵ samples of T³ (the clusters-t3 mixture). Prints wall times in seconds; about a
minute on 2 cores. docs/diagnostics.md quotes the output.

Run: ``uv run python benchmarks/bench_diagnostics.py``
"""

from __future__ import annotations

import time

from stpca_gui.core import ScaledTorusPCA, make_demo
from stpca_gui.core.demos import make_clusters_t3
from stpca_gui.core.diagnostics import fit_diagnostics, point_stress


def _timed(label: str, function):
    start = time.perf_counter()
    value = function()
    print(f"{label:<48} {time.perf_counter() - start:7.2f} s", flush=True)
    return value


def main() -> None:
    fit_diagnostics(ScaledTorusPCA(random_state=0).fit(make_demo("clusters-t2").angles))  # JIT
    small = make_demo("clusters-t3", random_state=0).angles
    model = _timed("exact fit, n = 300", lambda: ScaledTorusPCA(random_state=0).fit(small))
    _timed("diagnostics of it", lambda: fit_diagnostics(model))
    big = make_clusters_t3(n_per_cluster=33_334, random_state=1).angles[:100_000]
    model = _timed(f"landmark fit, n = {len(big):,}, m = 1000", lambda: ScaledTorusPCA(
        random_state=0, n_landmarks=1000, torus_variance=False).fit(big))
    _timed("diagnostics of it (placed points from T̂)", lambda: fit_diagnostics(model))
    _timed("stress per point, every sample summed", lambda: point_stress(
        model.angles_, model.embedding_, model.radius_, model.landmark_indices_))


if __name__ == "__main__":
    main()
