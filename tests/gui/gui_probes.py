"""Probes of what the app drew, for the GUI tests and the GUI benchmarks (never used by the
app itself)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stpca_gui.gui.main_window import MainWindow
    from stpca_gui.model import Dataset

#: The longest a GUI test waits for a fit (or what follows one) before it fails.
FIT_TIMEOUT_MS = 120_000


def fit_shown(qtbot, window: MainWindow, dataset: Dataset) -> None:
    """Show ``dataset`` in ``window`` and wait until its fit is drawn in every view."""
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.set_dataset(dataset)


def highlight_counts(window: MainWindow) -> dict[str, int]:
    """How many samples each linked view draws highlighted, read from what it drew
    (tests and benchmarks check that a selection reaches every view).

    The 3-D views draw at most their display cap of points
    (:mod:`~stpca_gui.plotting.display_subset`), so they highlight at most that many.
    """
    hist = window.histogram_view.histogram
    bars = hist.selection_bars
    width = hist.edges[1] - hist.edges[0]
    hist_count = 0 if bars is None else round(
        sum(p.get_height() for p in bars.patches) * hist.values.size * width)

    def scene_count(scene) -> int:
        layer = scene.point_layer
        return layer.overlay.n_points if layer.overlay_actor.GetVisibility() else 0

    return {
        "scores": window.scores_view.scatter.n_highlighted,
        "histogram": hist_count,
        "torus": scene_count(window.torus_view.scene),
        "sphere": scene_count(window.sphere_view.scene),
    }


def click_tab(qtbot, tabs, index: int) -> None:
    """Click tab ``index`` of a QTabWidget, as a person does."""
    from PySide6.QtCore import Qt

    bar = tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    assert tabs.currentIndex() == index


def click_artist(qtbot, canvas, artist) -> None:
    """Click the middle of a drawn matplotlib artist on its Qt canvas, as a person does."""
    from PySide6.QtCore import QPoint, Qt

    canvas.draw()
    box = artist.get_window_extent()
    ratio = canvas.device_pixel_ratio
    x, y = 0.5 * (box.x0 + box.x1) / ratio, 0.5 * (box.y0 + box.y1) / ratio
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton,
                     pos=QPoint(round(x), round(canvas.height() - y)))
