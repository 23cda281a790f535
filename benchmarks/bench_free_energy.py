"""Redraw of the free-energy landscape of 10⁶ frames (target ≤ 0.3 s).

Usage::

    uv run python benchmarks/bench_free_energy.py [--n N] [--repeats R]

What the app's *Free energy* tab does on a new result, a new pair of components or new
options: :meth:`FreeEnergyLandscape.draw` (the weighted 2-D histogram, the image, the
contours, the colour bar, the selection's marks) and a full Agg render of a 6 × 4.5 inch
figure at 100 dpi, the size of the view on a 1600 × 1000 window. PNS1 is periodic (its bins
tile one period). Reported: wall and CPU time per redraw (median of the repeats), unweighted
and weighted, with the load average (the machine is shared: CPU time is the steadier).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import fmt, load_average_text, markdown_table, pass_fail
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from stpca_gui.plotting.free_energy import FreeEnergyLandscape

TARGET_S = 0.3


def landscape_scores(n: int, seed: int = 0) -> np.ndarray:
    """Three components of two basins, PNS1 an angle of period 2π."""
    rng = np.random.default_rng(seed)
    pns1 = np.angle(np.exp(1j * rng.vonmises(0.5, 2.0, n)))
    pns2 = rng.normal(0.0, 0.3, n)
    pns2[: n // 3] += 1.0
    return np.column_stack([pns1, pns2, rng.normal(0.0, 0.1, n)])


def redraw_times(scores: np.ndarray, weights: np.ndarray | None, repeats: int
                 ) -> tuple[float, float]:
    figure = Figure(figsize=(6.0, 4.5), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    landscape = FreeEnergyLandscape(figure)
    selected = np.zeros(len(scores), dtype=bool)
    selected[::1000] = True
    walls, cpus = [], []
    for _ in range(repeats + 1):  # the first draw warms up caches and fonts
        wall, cpu = time.perf_counter(), time.process_time()
        landscape.draw(scores, 0, 1, selected=selected, weights=weights,
                       period=2 * np.pi)
        figure.canvas.draw()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return float(np.median(walls[1:])), float(np.median(cpus[1:]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    scores = landscape_scores(args.n)
    weights = np.random.default_rng(1).exponential(1.0, args.n)
    rows = []
    ok = True
    for name, w in (("unweighted", None), ("weighted", weights)):
        wall, cpu = redraw_times(scores, w, args.repeats)
        ok &= cpu <= TARGET_S
        rows.append([name, f"{args.n:,}", fmt(wall), fmt(cpu), pass_fail(cpu <= TARGET_S)])
    print(f"Free-energy redraw (target ≤ {TARGET_S} s CPU), load average "
          f"{load_average_text()}\n")
    print(markdown_table(["case", "frames", "wall s", "CPU s", "target"], rows))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
