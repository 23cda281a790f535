"""The molecular-dynamics views of the app: the free-energy landscape beside the scores."""

from __future__ import annotations

import numpy as np
import pytest
from gui_probes import click_tab, fit_shown
from image_content import assert_has_content

pytest.importorskip("pytestqt")

from stpca_gui.core import make_demo
from stpca_gui.model import Dataset

pytestmark = pytest.mark.usefixtures("display")



def weighted_demo(weights: np.ndarray) -> Dataset:
    demo = make_demo("clusters-t3", random_state=0)
    return Dataset(demo.angles, labels=demo.labels, source="weighted",
                   provenance={"weight": np.array([f"{w:g}" for w in weights])})


def show_landscape(qtbot, window):
    click_tab(qtbot, window.scores_tabs, 1)
    view = window.free_energy_view
    qtbot.waitUntil(lambda: view.landscape.partial_redraw is not None
                    and view.landscape.partial_redraw.ready, timeout=10_000)
    return view


def test_landscape_tab_draws_and_selects_the_frames_inside(qtbot, window, gui_dir):
    fit_shown(qtbot, window, weighted_demo(np.ones(300)))
    view = window.free_energy_view
    assert not view._drawn  # hidden: drawn when shown
    view = show_landscape(qtbot, window)
    grid = view.landscape.plot.grid
    assert np.nanmin(grid.energy) == 0.0 and np.isnan(grid.energy).any()
    assert "Freedman–Diaconis" in view.landscape.axes.get_title(loc="left")
    scores = window.state.result.scores
    view.select_rectangle(-1.0, -0.3, 1.0, 0.4)
    inside = ((scores[:, 0] >= -1) & (scores[:, 0] <= 1)
              & (scores[:, 1] >= -0.3) & (scores[:, 1] <= 0.4))
    assert inside.any()
    np.testing.assert_array_equal(window.state.selection.mask(), inside)
    assert view.landscape.n_marked == int(inside.sum())
    # A selection made elsewhere is marked on the landscape.
    window.state.selection.apply(np.arange(10), "replace")
    assert view.landscape.n_marked == 10
    # The pair of components is the scatter's: choosing another redraws the landscape.
    window.state.set_scatter_components(0, 2)
    assert view.picker.drawn == (0, 2) and view.picker.y_combo.currentIndex() == 2
    assert view.landscape.axes.get_ylabel().startswith("PNS3")
    assert window.scores_view.picker.drawn == (0, 2)
    path = gui_dir / "view-free-energy.png"
    window.exports.export_view("free_energy", path, dpi=100)
    assert_has_content(path)


def test_weights_column_changes_the_landscape_and_bad_weights_are_said(qtbot, window):
    weights = np.ones(300)
    weights[:100] = 5.0
    fit_shown(qtbot, window, weighted_demo(weights))
    view = show_landscape(qtbot, window)
    plain = view.landscape.plot.grid.energy.copy()
    assert view.weights_combo.count() == 2
    view.weights_combo.setCurrentIndex(1)
    weighted = view.landscape.plot.grid.energy
    assert view.weights_column == "weight"
    assert "weights: weight" in view.landscape.axes.get_title(loc="left")
    assert not np.allclose(np.nan_to_num(plain, nan=-1), np.nan_to_num(weighted, nan=-1))
    weights[7] = -1.0
    fit_shown(qtbot, window, weighted_demo(weights))
    view = show_landscape(qtbot, window)
    view.weights_combo.setCurrentIndex(1)
    assert "weights column 'weight', row 8: -1 is negative" in view.message.text()
    assert view.message.isVisible() and view.weights_column is None


def runs_demo(with_time: bool = True) -> Dataset:
    """clusters-t3 as two trajectories of 150 frames, 10 ps apart."""
    demo = make_demo("clusters-t3", random_state=0)
    provenance = {"trajectory": np.repeat(["a.xtc", "b.xtc"], 150)}
    if with_time:
        provenance["time"] = np.array([f"{t:g}" for t in np.tile(np.arange(150) * 10.0, 2)])
    return Dataset(demo.angles, labels=demo.labels, source="runs", provenance=provenance)


def show_time(qtbot, window):
    click_tab(qtbot, window.scores_tabs, 2)
    view = window.time_view
    qtbot.waitUntil(lambda: view._drawn, timeout=10_000)
    return view


def test_time_view_selects_a_time_range_in_every_trajectory(qtbot, window, gui_dir):
    fit_shown(qtbot, window, runs_demo())
    view = show_time(qtbot, window)
    ax = view.figure.axes[0]
    assert ax.get_xlabel() == "time (ps)"
    assert len(ax.lines) == 2  # a line per trajectory
    view.select_time_range(300.0, 495.0)
    time = np.tile(np.arange(150) * 10.0, 2)
    expected = (time >= 300) & (time <= 495)
    np.testing.assert_array_equal(window.state.selection.mask(), expected)
    assert expected.sum() == 2 * 20
    # A selection recolours the points in place (as the scatter does), not the axes.
    assert view.figure.axes[0] is ax and view.points.n_highlighted == 40
    np.testing.assert_allclose(np.sort(view.points.overlay.get_offsets()[:, 0]),
                               np.sort(time[expected]))
    window.state.selection.apply(np.arange(5), "replace")
    assert view.figure.axes[0] is ax and view.points.n_highlighted == 5
    # Time and trajectory are colour modes of every view.
    window.state.set_color_mode("trajectory")
    assert window.state.effective_color_mode == "trajectory"
    window.state.set_color_mode("time")
    assert window.state.effective_color_mode == "time"
    path = gui_dir / "view-time.png"
    window.exports.export_view("time", path, dpi=100)
    assert_has_content(path)


def test_time_view_without_time_uses_the_row_number_and_says_so(qtbot, window):
    fit_shown(qtbot, window, runs_demo(with_time=False))
    view = show_time(qtbot, window)
    assert view.figure.axes[0].get_xlabel() == "row (the data have no time)"
    window.state.set_color_mode("time")
    assert window.state.effective_color_mode == "selection"  # no time column
