"""The window at the dimension of real molecules (issue 32): T⁶⁶ and T⁴²⁶ per-frame torsion
tables. The description summarises the columns, the variance chart shows the first
components and the rest with readable ticks, the torus view starts on the angles that
move, the angles chart names the moving torsions and puts a clicked one on the torus,
the parameter panel estimates the fit's time, and a session keeps the choices.
Screenshots go to the test output (``gui/highdim-*.png``) to be looked at.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from gui_probes import click_artist, click_tab
from PySide6.QtCore import QCoreApplication
from test_tidy_window import chart_problems, form_problems, settle

from stpca_gui.core.torsion_states import make_torsion_states
from stpca_gui.model import AnalysisResult, Dataset, FitParameters

pytestmark = pytest.mark.usefixtures("display")

SIZES = ((1280, 800), (1600, 1000))


def torsion_dataset(n: int, d: int) -> tuple[Dataset, np.ndarray]:
    """Frames of make_torsion_states named like ``stpca dihedrals``' per-frame columns,
    and the moving torsions: those whose state means differ by more than 30°."""
    data = make_torsion_states(n, d, random_state=3, dwell=15)
    names = tuple(f"PROT:ALA{k // 2 + 1}:{('phi', 'psi')[k % 2]}" for k in range(d))
    means = np.array([np.angle(np.exp(1j * data.angles[data.labels == s]).mean(axis=0))
                      for s in np.unique(data.labels)])
    spread = np.abs(np.angle(np.exp(1j * (means - means[0])))).max(axis=0)
    dataset = Dataset(angles=data.angles, column_names=names, source="synthetic",
                      description=f"torsion states on T^{d}")
    return dataset, np.flatnonzero(spread > np.radians(30))


@pytest.fixture(scope="module")
def t66():
    """A fit of 150 frames on T⁶⁶ (great spheres: PNS's tests are not what is shown)."""
    dataset, moving = torsion_dataset(150, 66)
    parameters = FitParameters(pns_mode="great")
    model = parameters.to_estimator().fit(dataset.angles)
    result = AnalysisResult.from_fit(model, parameters, dataset, wall_time=0.0)
    return dataset, moving, result


def name_problems(figure) -> list[str]:
    """Overlapping names of the angles chart's bars, or texts leaving the figure."""
    renderer = figure.canvas.get_renderer()
    (ax,) = figure.axes
    names = [t for t in ax.get_yticklabels() if t.get_text()]
    boxes = sorted((t.get_window_extent(renderer) for t in names), key=lambda b: b.y0)
    problems = [f"names overlap at y = {a.y1:.0f}" for a, b in itertools.pairwise(boxes)
                if b.y0 < a.y1 - 0.5]
    page = figure.bbox
    for box in [*boxes, ax.xaxis.label.get_window_extent(renderer)]:
        if box.x0 < page.x0 - 1 or box.x1 > page.x1 + 1:
            problems.append("a text leaves the figure")
    return problems if len(names) >= 3 else ["fewer than 3 bars"]


def show(window, qtbot, dataset, result=None) -> None:
    window.set_dataset(dataset, fit=False)
    if result is not None:
        window.state.set_result(result)
    for _ in range(3):
        QCoreApplication.processEvents()


def test_t66_window_reads(window, qtbot, gui_dir, t66):
    dataset, moving, result = t66
    assert 4 <= moving.size <= 30
    show(window, qtbot, dataset, result)
    text = window.dataset_label.text()
    assert "66 backbone torsions φ, ψ of 33 residues ALA1–ALA33" in text
    assert "PROT:ALA2:phi" not in text
    # The torus starts on angles that move along the principal curve.
    assert set(window.state.torus_axes) <= set(moving.tolist())
    combos = window.torus_view.axis_combos
    assert [c.currentText() for c in combos] == [
        f"ALA{k // 2 + 1} {'φψ'[k % 2]}" for k in window.state.torus_axes]
    # The angles chart: PNS1's largest shares are moving torsions, by name.
    view = window.contributions_view
    angles_tab = window.result_tabs.indexOf(window.slots["contributions"])
    click_tab(qtbot, window.result_tabs, angles_tab)
    assert view.measure_kind == "torus variance share"
    assert set(view.columns[:3]) <= set(moving.tolist())
    for size in SIZES:
        settle(qtbot, window, size)
        view.canvas.draw()
        window.export_window(gui_dir / f"highdim-d66-angles-{size[0]}x{size[1]}.png")
        assert name_problems(view.figure) == []
        click_tab(qtbot, window.result_tabs, 0)
        settle(qtbot, window, size)
        window.export_window(gui_dir / f"highdim-d66-{size[0]}x{size[1]}.png")
        problems = form_problems(window) + chart_problems(window.variance_view.figure,
                                                          window.variance_view.title_text)
        assert problems == [], "\n".join(problems)
        ticks = [t.get_text() for t in window.variance_view.figure.axes[0].get_xticklabels()]
        assert ticks[-1] == "rest" and len(ticks) <= 11
        click_tab(qtbot, window.result_tabs, angles_tab)
    # Clicking a bar shows its angle on the torus, in place of the weakest one shown.
    hidden = next(k for k in view.columns if k not in window.state.torus_axes)
    bar = next(p for p in view.figure.axes[0].patches if p.get_gid() == str(hidden))
    click_artist(qtbot, view.canvas, bar)
    assert hidden in window.state.torus_axes
    assert window.torus_view._drawn_axes == window.state.torus_axes


def test_t66_session_keeps_the_choices(window, qtbot, tmp_path, t66):
    dataset, _, result = t66
    show(window, qtbot, dataset, result)
    window.contributions_view.set_component(1)
    axes = (0, 1, 2)
    window.state.set_torus_axes(axes)
    path = tmp_path / "t66.stpca"
    assert window.sessions.save_to(path)
    window.state.set_torus_axes((3, 4, 5))
    window.contributions_view.set_component(0)
    assert window.sessions.open_session(path)
    qtbot.waitUntil(lambda: window.state.result is not None, timeout=60_000)
    for _ in range(3):
        QCoreApplication.processEvents()
    assert window.state.torus_axes == axes
    assert window.contributions_view.component == 1


def test_t426_window_before_a_fit(window, qtbot, gui_dir):
    dataset, moving = torsion_dataset(300, 426)
    show(window, qtbot, dataset)
    assert "426 backbone torsions φ, ψ of 213 residues ALA1–ALA213" in \
        window.dataset_label.text()
    # Before a fit: the angles spread most, which are moving ones.
    assert set(window.state.torus_axes) <= set(moving.tolist())
    note = window.parameters.cost_label
    assert note.isVisible() and "estimate" in note.text()
    for size in SIZES:
        settle(qtbot, window, size)
        window.export_window(gui_dir / f"highdim-d426-{size[0]}x{size[1]}.png")
        assert form_problems(window) == []
        # The description does not push the parameter panel's Fit button out of sight.
        button = window.parameters.fit_button
        assert button.isVisible() and button.visibleRegion().boundingRect().height() == \
            button.height()
