"""Screenshots of the app's tested mode clusters (issue 22): a 2·10⁵-point data set with
background noise and the small RNA data. Run under a display (e.g. ``xvfb-run -a``):

    uv run python benchmarks/screens_modetest.py OUT_DIR [SMALL_RNA_CSV]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "xcb")


def _noise_table(path: Path, n: int = 200_000) -> None:
    """Three von Mises clusters on T² (20 % of the points each) in 40 % uniform noise."""
    rng = np.random.default_rng(0)
    centres = [(-2.0, 2.0), (0.5, -1.0), (2.2, 0.8)]
    parts, labels = [], []
    for k, (a, b) in enumerate(centres):
        m = n // 5
        parts.append(np.column_stack([rng.vonmises(a, 6.0, m), rng.vonmises(b, 6.0, m)]))
        labels += [f"c{k + 1}"] * m
    rest = n - len(labels)
    parts.append(rng.uniform(-np.pi, np.pi, (rest, 2)))
    labels += ["noise"] * rest
    angles = np.vstack(parts)
    with open(path, "w") as handle:
        handle.write("phi,psi,group\n")
        for (a, b), label in zip(angles, labels, strict=True):
            handle.write(f"{a:.6f},{b:.6f},{label}\n")


def main() -> None:
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from stpca_gui.gui.main_window import MainWindow
    from stpca_gui.model.table_import import ImportChoices, import_table

    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    small_rna = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.sessions.may_replace_work = lambda: True  # no "save your work?" between cases
    window.resize(1500, 950)
    window.show()
    noise = out / "noise200k.csv"
    _noise_table(noise)
    cases = [("mode_test_noise_200k", noise,
              ImportChoices(columns=("phi", "psi"), label_column="group"))]
    if small_rna is not None and small_rna.exists():
        cases.append(("mode_test_small_rna", small_rna, ImportChoices(
            columns=("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "chi"),
            label_column="cluster", degrees=True)))
    for name, path, choices in cases:
        dataset = import_table(path, choices)
        loop = QEventLoop()
        window.result_shown.connect(loop.quit)
        start = time.perf_counter()
        window.set_dataset(dataset)
        QTimer.singleShot(1_800_000, loop.quit)
        loop.exec()
        window.result_shown.disconnect(loop.quit)
        for _ in range(20):
            app.processEvents()
        window.state.set_color_mode("cluster")
        for _ in range(20):
            app.processEvents()
        print(name, f"{time.perf_counter() - start:.1f} s", window.state.result.mode_clusters
              .describe(), flush=True)
        for label, text in window.summary.rows():
            print(f"  {label}: {text}")
        window.export_window(out / f"{name}.png")
        window.exports.export_view("histogram", out / f"{name}_histogram.png", dpi=110)
        window.paper_antimodes_action.setChecked(True)
        for _ in range(20):
            app.processEvents()
        window.exports.export_view("histogram", out / f"{name}_histogram_paper.png", dpi=110)
        window.paper_antimodes_action.setChecked(False)
    noise.unlink()
    window.close()


if __name__ == "__main__":
    main()
