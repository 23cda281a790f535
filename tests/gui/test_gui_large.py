"""The window's large-n paths (display subset, density scatter, landmark fits), exercised on
small data with the thresholds lowered."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from gui_probes import FIT_TIMEOUT_MS, highlight_counts

pytest.importorskip("pytestqt")

from image_content import assert_has_content
from test_gui import figures_rendered

from stpca_gui.model import FitParameters
from stpca_gui.plotting import scores as scores_module

pytestmark = pytest.mark.usefixtures("display")

CAP = 120


def test_views_draw_subsets_and_densities_but_select_all_points(qtbot, window, monkeypatch,
                                                                gui_dir, tmp_path):
    monkeypatch.setattr(scores_module, "DENSITY_ABOVE", 200)
    for view in (window.torus_view, window.sphere_view):
        view.scene.max_points = CAP
    # A landmark fit, as the app makes for tables past the "auto" threshold.
    params = dataclasses.replace(window.parameters.parameters(), n_landmarks=60,
                                 torus_variance=False)
    window.parameters.set_parameters(params)
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.load_demo("clusters-t3")
    qtbot.waitUntil(lambda: figures_rendered(window))
    n = window.state.dataset.n_samples
    assert "landmarks: 60 of 300" in window.stage_label.text()
    assert ("landmarks", "60 of 300 (mixed)") in window.summary.rows()
    for view in (window.torus_view, window.sphere_view):
        assert view.scene.subset_note == f"showing {CAP} of {n} points"
        assert view.scene.point_layer.cloud.n_points == CAP
    scatter = window.scores_view.scatter
    assert scatter.density and scatter.points is None

    lo, hi = np.quantile(window.state.result.pns1, [0.1, 0.8])
    window.histogram_view.select_range(lo, hi)
    mask = window.state.selection.mask()
    count = int(mask.sum())
    assert CAP < count < n
    assert highlight_counts(window) == {"scores": count, "histogram": count,
                                         "torus": CAP, "sphere": CAP}
    assert f"{count:,} selected" in window.selection_label.text()
    # The lasso tests all points, not the drawn ones.
    xy = scatter.positions
    box = np.array([[-10.0, -10.0], [10.0, -10.0], [10.0, 10.0], [-10.0, 10.0]])
    window.scores_view.select_polygon(box)
    assert window.state.selection.n_selected == n
    window.state.selection.undo()
    assert window.state.selection.n_selected == count
    np.testing.assert_array_equal(scatter.points_in_polygon(box), np.ones(len(xy), bool))

    # A new colour mode redraws the density image with the mode's colours.
    before = scatter.base_image.get_array().copy()
    window.state.set_color_mode("pns1")
    assert not np.array_equal(scatter.base_image.get_array(), before)

    window.export_window(gui_dir / "large-n-paths.png")
    assert_has_content(gui_dir / "large-n-paths.png")
    written = window.exports.export_results(tmp_path / "results")
    selection = next(p for p in written if p.name == "selection.csv")
    groups = np.loadtxt(selection, delimiter=",", skiprows=1, dtype=int)[:, 1]
    assert groups.size == n and int((groups > 0).sum()) == count


def test_app_parameters_default_to_automatic_landmarks(window):
    assert window.parameters.parameters().n_landmarks == FitParameters().n_landmarks == "auto"


def test_progress_shows_the_landmark_stages(window):
    from stpca_gui.core import ProgressEvent

    status = window.fit_status
    status.show_busy(True)
    status.show_progress(ProgressEvent("landmarks", 0.0, message="choosing 1500 landmarks"))
    assert window.stage_label.text() == "choosing 1500 landmarks"
    status.show_progress(ProgressEvent("interpolation", 0.25))
    assert window.stage_label.text() == "Placing points"
    assert status.progress.value() == 25
    status.show_busy(False)
