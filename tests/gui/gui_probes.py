"""Probes of what the app drew, for the GUI tests and the GUI benchmarks (never used by the
app itself)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stpca_gui.gui.main_window import MainWindow


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
