"""The app's views talk through AppState only; its dialogs run their work as tasks.

Pictures go to ``test-output/gui/`` for a person to look at.
"""

from __future__ import annotations

import numpy as np
import pytest
from gui_probes import FIT_TIMEOUT_MS, click_tab, fit_shown
from PySide6.QtCore import Qt

pytest.importorskip("pytestqt")


from stpca_gui.model import Dataset

pytestmark = pytest.mark.usefixtures("display")



def twelve_labels() -> Dataset:
    """Twelve groups along a circle of T², labelled in a scrambled order, sizes 20…130."""
    rng = np.random.default_rng(2)
    sizes = np.arange(20, 140, 10)
    centres = np.linspace(-np.pi, np.pi, 12, endpoint=False)
    angles = np.concatenate([
        np.column_stack([rng.normal(c, 0.12, size), rng.normal(0.6 * np.sin(c), 0.12, size)])
        for c, size in zip(centres, sizes, strict=True)])
    names = [f"site {k}" for k in (7, 3, 11, 0, 5, 9, 1, 10, 2, 8, 4, 6)]
    labels = np.concatenate([[name] * size for name, size in zip(names, sizes, strict=True)])
    order = rng.permutation(labels.size)
    return Dataset(angles=angles[order], labels=labels[order], column_names=("phi", "psi"),
                   source="synthetic", description="twelve labelled groups")


# ---------------------------------------------------------------------- AppState channel
def test_twelve_labels_each_have_their_own_colour_and_legend_entry(qtbot, window, gui_dir):
    from stpca_gui.plotting.colors import label_palette

    dataset = twelve_labels()
    fit_shown(qtbot, window, dataset)
    assert window.state.effective_color_mode == "label"
    ax = window.histogram_view.histogram.axes
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    names = dataset.label_names()
    assert legend[:12] == [f"{name} (n = {int(np.sum(dataset.labels == name))})"
                           for name in names]
    colours = [c.patches[0].get_facecolor()[:3] for c in ax.containers[:12]]
    np.testing.assert_allclose(colours, label_palette(12)[:, :3])
    # The scatter gives every sample the colour of its label's histogram series.
    facecolors = window.scores_view.scatter.points.get_facecolors()
    if len(facecolors) == dataset.n_samples:
        np.testing.assert_allclose(facecolors[:, :3],
                                   label_palette(12)[dataset.label_codes(), :3])
    window.exports.export_view("histogram", gui_dir / "histogram-twelve-labels.png", dpi=100)
    window.export_window(gui_dir / "window-twelve-labels.png")
    assert (gui_dir / "window-twelve-labels.png").stat().st_size > 50_000


def test_scores_view_draws_and_writes_the_state_components(qtbot, window):
    fit_shown(qtbot, window, Dataset.from_demo("clusters-t3"))
    scores = window.state.result.scores
    view = window.scores_view
    assert (view.x_combo.currentIndex(), view.y_combo.currentIndex()) == (0, 1)
    view.x_combo.setCurrentIndex(2)  # the user's choice goes to the state…
    assert window.state.scatter_components == (2, 1)
    np.testing.assert_allclose(view.scatter.positions, scores[:, [2, 1]])  # …and is drawn
    window.state.set_scatter_components(1, 0)  # a change of the state shows in the combos
    assert (view.x_combo.currentIndex(), view.y_combo.currentIndex()) == (1, 0)
    np.testing.assert_allclose(view.scatter.positions, scores[:, [1, 0]])
    view.y_combo.setCurrentIndex(1)  # the x component: the axes swap
    assert window.state.scatter_components == (0, 1)
    window.set_dataset(Dataset.from_demo("clusters-t2"), fit=False)  # new data: reset
    assert view.x_combo.count() == 2 and window.state.scatter_components == (0, 1)


def test_torus_axis_choosers_follow_the_state(qtbot, window):
    view = window.torus_view
    controls = (view.layout_combo, view.axes_label, view.moving_button, *view.axis_combos)
    # Before any data no empty boxes (four were shown beside an empty view), and the
    # figures say how to get data instead of showing empty axes from 0 to 1.
    assert all(widget.isHidden() for widget in controls)
    from stpca_gui.gui.views.mpl_views import NO_DATA_MESSAGE

    # Every figure, the ones in the tabs too (the free-energy tab showed empty axes, the
    # time, angles and diagnostics tabs nothing at all), once a person looks at it.
    tabs = [(window.scores_tabs, k) for k in range(window.scores_tabs.count())]
    tabs += [(window.result_tabs, k) for k in range(window.result_tabs.count())]
    for tab_widget, index in tabs:
        click_tab(qtbot, tab_widget, index)
    blanks = (window.scores_view, window.free_energy_view, window.time_view,
              window.histogram_view, window.variance_view, window.contributions_view,
              window.diagnostics_view)
    for blank in blanks:
        assert not blank.figure.axes, blank.title_text
        assert [t.get_text() for t in blank.figure.texts] == [NO_DATA_MESSAGE], \
            blank.title_text

    def choices(view):
        """The widgets of the view's rows of choices (its title aside)."""
        rows = view.control_rows()
        widgets = [row.itemAt(k).widget() for row in rows for k in range(row.count())]
        return [w for w in widgets if w is not None and w is not view.title]

    # Nor do they show empty boxes (the scores' x and y, the time's and the angles'
    # component, the free energy's two rows).
    assert sum(len(choices(view)) for view in blanks) >= 20
    assert all(w.isHidden() for view in blanks for w in choices(view))
    rng = np.random.default_rng(0)
    dataset = Dataset(angles=rng.vonmises(0.0, 2.0, (120, 5)), source="synthetic")
    window.set_dataset(dataset, fit=False)
    assert not any(widget.isHidden() for widget in controls[1:]) and controls[0].isHidden()
    assert not any(w.isHidden() for view in blanks for w in choices(view))
    # Before a fit the torus shows the angles of largest circular spread (issue 32).
    from stpca_gui.model.moving_angles import moving_axes

    default = tuple(moving_axes(dataset.angles))
    assert tuple(c.currentIndex() for c in view.axis_combos) == default
    assert window.state.torus_axes == default
    window.state.set_torus_axes((4, 0, 2))
    assert [c.currentIndex() for c in view.axis_combos] == [4, 0, 2]
    assert view._drawn_axes == (4, 0, 2)
    view.axis_combos[1].setCurrentIndex(3)  # what a pick in the list does
    view.axis_combos[1].activated.emit(3)
    assert window.state.torus_axes == (4, 3, 2) and view._drawn_axes == (4, 3, 2)
    # A programmatic change of a chooser (a repopulation, a layout pass) is no choice: the
    # next result would not show its moving angles (seen when the side column widened).
    window.state.show_moving_torus_axes()
    assert window.state.torus_axes == default and not window.state._torus_axes_chosen
    free = next(k for k in range(3) if default[k] + 1 < 5 and default[k] + 1 not in default)
    view.axis_combos[free].setCurrentIndex(default[free] + 1)
    assert window.state.torus_axes == default and not window.state._torus_axes_chosen
    view.axis_combos[free].setCurrentIndex(default[free])
    # A person's pick is: the keyboard's Down on a chooser picks the next angle.
    view.axis_combos[free].setFocus()
    qtbot.keyClick(view.axis_combos[free], Qt.Key.Key_Down)
    picked = tuple(a + (k == free) for k, a in enumerate(default))
    assert window.state.torus_axes == picked and view._drawn_axes == picked
    assert window.state._torus_axes_chosen


def test_summary_and_selection_label_follow_the_state(qtbot, window):
    fit_shown(qtbot, window, Dataset.from_demo("clusters-t2"))
    rows = dict(window.summary.rows())
    assert rows["samples n"] == "300"
    window.state.set_result(None)
    assert window.summary.rows() == []
    window.state.selection.active_group = 3
    assert "active group 3" in window.selection_label.text()


# ---------------------------------------------------------------------- dialog tasks
def test_monte_carlo_runs_in_the_background_and_can_be_cancelled(qtbot, window):
    from PySide6.QtCore import QTimer

    from stpca_gui.core.circstats.uniformity import uniformity_tests

    fit_shown(qtbot, window, Dataset.from_demo("clusters-t2"))
    uniformity_tests(np.linspace(0, 6, 20), n_replicates=10, calibration="monte_carlo",
                     random_state=0)  # compile the kernel before timing anything
    dialog = window.uniformity_tests()
    qtbot.addWidget(dialog)
    dialog.calibration.setCurrentIndex(1)
    dialog.replicates.setValue(10_000)
    ticks: list[int] = []
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(len(ticks)))
    progress: list[float] = []
    dialog.runner.progress.connect(lambda report: progress.append(report.fraction))
    timer.start()
    with qtbot.waitSignal(dialog.results_shown, timeout=FIT_TIMEOUT_MS) as shown:
        dialog.run()
        assert dialog.progress.isVisible() and dialog.cancel_button.isVisible()
    timer.stop()
    results = shown.args[0]
    assert all(test.n_replicates == 10_000 for test in results.values())
    assert results["Watson"].p_value == pytest.approx(1 / 10_001)  # far from uniform
    # The GUI thread kept processing events while the replicates ran.
    assert len(ticks) > 0 and len(progress) > 1 and progress[-1] == 1.0
    assert dialog.table.rowCount() == 3 and not dialog.progress.isVisible()

    dialog.replicates.setValue(100_000)
    with qtbot.waitSignal(dialog.runner.progress, timeout=FIT_TIMEOUT_MS):
        dialog.run()
    with qtbot.waitSignal(dialog.runner.finished, timeout=FIT_TIMEOUT_MS) as finished:
        dialog.cancel_button.click()
    assert finished.args == ["cancelled"] and dialog.note.text() == "Cancelled."
    assert "10000 replicates" in dialog.table.item(0, 3).text()  # the last finished run
    dialog.close()


def start_a_long_monte_carlo(qtbot, window):
    """The uniformity dialog, running 100,000 replicates (its first progress received)."""
    fit_shown(qtbot, window, Dataset.from_demo("clusters-t2"))
    dialog = window.uniformity_tests()
    dialog.calibration.setCurrentIndex(1)
    dialog.replicates.setValue(100_000)
    with qtbot.waitSignal(dialog.runner.progress, timeout=FIT_TIMEOUT_MS):
        dialog.run()
    return dialog


def test_closing_a_dialog_cancels_its_task(qtbot, window):
    from stpca_gui.gui import tasks

    dialog = start_a_long_monte_carlo(qtbot, window)
    dialog.close()
    assert tasks._retired  # let go of, and stopping
    qtbot.waitUntil(lambda: not tasks._retired, timeout=FIT_TIMEOUT_MS)


def test_a_failing_comparison_is_a_message_box(qtbot, window, monkeypatch):
    from stpca_gui.gui import compare_dialog

    def explode(angles, state):
        raise RuntimeError("synthetic baseline failure")

    fit_shown(qtbot, window, Dataset.from_demo("clusters-t2"))
    monkeypatch.setattr(compare_dialog, "baselines_task", explode)
    dialog = window.compare_methods()
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(dialog.runner.failed, timeout=FIT_TIMEOUT_MS):
        pass
    boxes = [w for w in dialog.findChildren(compare_dialog.QWidget)
             if type(w).__name__ == "QMessageBox"]
    assert len(boxes) == 1 and boxes[0].text() == "RuntimeError: synthetic baseline failure"
    assert "Traceback" in boxes[0].detailedText()
    assert "failed" in dialog.status.text() and dialog.table.rowCount() == 1  # ST-PCA only
    boxes[0].close()
    dialog.close()


def test_closing_the_window_cancels_every_task(qtbot, window):
    from stpca_gui.gui import tasks

    dialog = start_a_long_monte_carlo(qtbot, window)
    window.fit()
    assert dialog.runner.busy and window.controller.busy
    window.close()  # returns once every task has stopped
    assert not tasks._retired
    assert all(runner._thread is None or runner._thread.isFinished()
               for runner in window.findChildren(tasks.TaskRunner))
