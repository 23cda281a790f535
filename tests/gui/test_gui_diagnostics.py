"""The Diagnostics tab and the "stress per point" colour mode of the app, under Xvfb."""

from __future__ import annotations

import numpy as np
import pytest
from gui_probes import FIT_TIMEOUT_MS

pytest.importorskip("pytestqt")

from image_content import assert_has_content
from test_gui import fit_demo, process_pending_events

from stpca_gui.gui.views.base import current_colors
from stpca_gui.model import Dataset, FitParameters

pytestmark = pytest.mark.usefixtures("display")


def test_diagnostics_tab_and_stress_colour_mode(qtbot, window, gui_dir):
    fit_demo(qtbot, window, "clusters-t2")
    view = window.diagnostics_view
    qtbot.waitUntil(view.has_content, timeout=FIT_TIMEOUT_MS)
    diagnostics = window.state.diagnostics
    assert diagnostics is not None
    window.result_tabs.setCurrentWidget(window.slots["diagnostics"])
    for index, key in enumerate(("shepard", "profile", "points")):
        view.choice.setCurrentIndex(index)
        process_pending_events()
        path = gui_dir / f"diagnostics-{key}.png"
        window.exports.export_view("diagnostics", path, dpi=100)
        assert_has_content(path)
    # The Shepard points of this fit lie near the diagonal: its stress is small.
    shepard = diagnostics.shepard
    assert np.sqrt(shepard.mean_squared_residual) < 0.1 * shepard.torus_distance.mean()

    window.color_combo.setCurrentIndex(window.color_combo.findData("stress"))
    assert window.state.effective_color_mode == "stress"
    process_pending_events()
    rgba = np.asarray(current_colors(window.state)[0])
    # Points with more stress get other colours than points with less.
    rms = diagnostics.point_stress.rms_residual()
    low, high = np.argmin(rms), np.argmax(rms)
    assert not np.allclose(rgba[low], rgba[high])
    assert len(np.unique(rgba.round(3), axis=0)) > 10
    whole = gui_dir / "window-diagnostics-stress.png"
    window.export_window(whole)
    assert_has_content(whole, min_fraction=0.3, min_colors=200)


def test_flat_patch_is_said_in_the_result_panel(qtbot, window, gui_dir):
    # A tight patch of T⁴, like the backbone angles of a short, rigid loop.
    rng = np.random.default_rng(1)
    angles = rng.normal(size=(200, 4)) * 0.3 * 0.6 ** np.arange(4) + 1.0
    dataset = Dataset(angles=angles, column_names=tuple(f"a{k}" for k in range(4)),
                      source="synthetic", description="a tight patch of T⁴")
    window.parameters.set_parameters(FitParameters(random_state=0, torus_variance=False))
    window.set_dataset(dataset, fit=False)
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.fit()
    rows = dict(window.summary.rows())
    assert "Euclidean PCA" in rows["flat patch"]
    view = window.diagnostics_view
    qtbot.waitUntil(view.has_content, timeout=FIT_TIMEOUT_MS)
    window.result_tabs.setCurrentWidget(window.slots["diagnostics"])
    view.choice.setCurrentIndex(view.choice.findData("profile"))
    process_pending_events()
    assert "Flat patch" in view.figure.get_suptitle()
    path = gui_dir / "window-flat-patch.png"
    window.export_window(path)
    assert_has_content(path, min_fraction=0.3, min_colors=200)
