"""Session files: save and open times and file sizes.

Usage::

    uv run python benchmarks/bench_session.py [--large-n 100000]
        [--workdir /tmp/stpca-bench-session]

Two sessions, each with a fitted result and a selection of 20 undoable changes of about
n/10 samples each (the most a session keeps):

1. the sunspots cycle-23 lag-3 series (n = 5371 on T³, exact fit, the paper's data);
2. ``--large-n`` points on T³ (three wrapped-normal clusters, 10 % uniform background),
   a landmark fit (1000 landmarks, no torus variance).

Per session: ``save_session`` and ``load_session`` wall time (best of 3), the time to
install the loaded session in a Qt-free ``AppState`` (``apply_session``), and the file size.
With ``--gui`` (needs a display, e.g. ``xvfb-run -a``), also in the app's window: opening
(reading, installing and drawing every view, until the GUI thread is free again) and
saving (with the views' cameras). Printed as Markdown.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from _common import sunspots_series

from stpca_gui.model import AppState, Dataset, FitParameters, run_analysis
from stpca_gui.model.session_file import (
    apply_session,
    load_session,
    save_session,
    session_from_state,
)


def t3_clusters(n: int, rng: np.random.Generator) -> np.ndarray:
    centres = np.array([[0.0, 0.0, 0.0], [2.0, -2.0, 1.0], [-2.0, 2.0, -1.0]])
    points = centres[rng.integers(0, 3, n)] + 0.3 * rng.standard_normal((n, 3))
    background = rng.random(n) < 0.1
    points[background] = rng.uniform(-np.pi, np.pi, (int(background.sum()), 3))
    return (points + np.pi) % (2 * np.pi) - np.pi


def best_of(fn, repeats: int = 3) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def measure(name: str, dataset: Dataset, parameters: FitParameters, folder: Path) -> list[str]:
    start = time.perf_counter()
    result = run_analysis(dataset, parameters)
    fit_time = time.perf_counter() - start
    state = AppState()
    state.set_dataset(dataset)
    state.set_result(result)
    rng = np.random.default_rng(1)
    n = dataset.n_samples
    for k in range(20):
        state.selection.active_group = 1 + k % 4
        state.selection.apply(rng.random(n) < 0.1, "add")
    session = session_from_state(state, parameters, {})
    path = folder / f"{name}.stpca"
    save_time, _ = best_of(lambda: save_session(session, path))
    load_time, loaded = best_of(lambda: load_session(path))
    apply_time, _ = best_of(lambda: apply_session(loaded, AppState()))
    same = np.array_equal(loaded.result.scores, result.scores)
    size = path.stat().st_size / 1e6
    return [name, f"{n:,}", f"{fit_time:.1f}", f"{save_time:.3f}", f"{load_time:.3f}",
            f"{apply_time:.3f}", f"{size:.1f}", "yes" if same else "NO"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large-n", type=int, default=100_000)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/stpca-bench-session"))
    parser.add_argument("--gui", action="store_true", help="also time the app's window")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    rows = [measure("sunspots-23-lag3", Dataset(sunspots_series()[0], source="sunspots"),
                    FitParameters(), args.workdir)]
    angles = t3_clusters(args.large_n, np.random.default_rng(0))
    rows.append(measure(f"t3-clusters-{args.large_n}", Dataset(angles, source="synthetic"),
                        FitParameters(n_landmarks=1000, torus_variance=False), args.workdir))
    header = ["session", "n", "fit s", "save s", "open s", "install s", "file MB",
              "scores identical"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if args.gui:
        print()
        print("| session | open in the window s | save from the window s |")
        print("|---|---|---|")
        for row in rows:
            opened, saved = measure_window(args.workdir / f"{row[0]}.stpca")
            print(f"| {row[0]} | {opened:.2f} | {saved:.3f} |")


def measure_window(path: Path) -> tuple[float, float]:
    """Seconds to open ``path`` in a prepared window (all views drawn) and to save it."""
    from PySide6.QtWidgets import QApplication

    from stpca_gui.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    window = MainWindow(recent_path=path.parent / "recent.json")
    window.resize(1500, 950)
    window.show()
    app.processEvents()
    start = time.perf_counter()
    assert window.sessions.open_session(path)
    app.processEvents()  # the matplotlib views draw when idle
    opened = time.perf_counter() - start
    start = time.perf_counter()
    assert window.sessions.save_to(path.with_name(f"{path.stem}-again.stpca"))
    saved = time.perf_counter() - start
    window.close()
    return opened, saved


if __name__ == "__main__":
    main()
