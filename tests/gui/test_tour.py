"""The guided tour: its steps and figures (Qt-free), the panel driving the window, and the
``--tour-export`` run."""

from __future__ import annotations

import io
import math
import subprocess
import sys

import numpy as np
import pytest
from gui_probes import FIT_TIMEOUT_MS

from stpca_gui.model import Dataset, FitParameters, run_analysis
from stpca_gui.model.tasks import TaskState
from stpca_gui.model.tour import (
    PAPER_EQUATIONS,
    SnapshotRecorder,
    euclidean_pca_scores,
    naive_and_torus_distances,
    prepare_tour,
    seam_split,
    tour_steps,
)

#: The numbered equations of the ST-PCA paper (stpca.tex, sections 2–3), in order: the tour
#: may only cite these, with these numbers.
PAPER_LABELS = {"eq:sdist": 1, "eq:mds": 2, "eq:gmds": 3, "eq:smds": 4, "eq:smds2": 5,
                "eq:smds3": 6, "eq:wasser": 7, "eq:PNS": 8, "eq:invmds2": 9, "eq:interp": 10,
                "eq:totalvar": 11}


@pytest.fixture(scope="module")
def t3_tour():
    """The clusters-t3 demo, fitted, with the tour's data."""
    result = run_analysis(Dataset.from_demo("clusters-t3"), FitParameters())
    return prepare_tour(result, TaskState())


@pytest.fixture(scope="module")
def t4_tour():
    """Loaded data on T⁴ without labels (two clusters, one across a seam)."""
    rng = np.random.default_rng(3)
    centres = np.array([[3.0, 0.5, -1.0, 2.0], [-1.0, -2.0, 1.0, 0.0]])
    angles = np.vstack([c + 0.3 * rng.standard_normal((40, 4)) for c in centres])
    dataset = Dataset(angles, source="t4.csv", description="two clusters on T⁴")
    result = run_analysis(dataset, FitParameters())
    return prepare_tour(result, TaskState())


# ------------------------------------------------------------------------- Qt-free
def test_paper_equations_are_the_papers_numbers():
    for label, equation in PAPER_EQUATIONS.items():
        assert PAPER_LABELS[label] == equation.number, label
        assert f"eq. ({equation.number})" in equation.citation
        assert equation.section.split()[0][0] in "23"  # sections 2 and 3 of the paper


@pytest.mark.parametrize("fixture", ["t3_tour", "t4_tour"])
def test_steps_explain_with_the_fits_numbers(fixture, request):
    data = request.getfixturevalue(fixture)
    steps = tour_steps(data)
    assert 5 <= len(steps) <= 8
    assert len({step.slug for step in steps}) == len(steps)
    for step in steps:
        assert step.title and step.equations
        sentences = step.text.count(". ") + 1
        assert 3 <= sentences <= 8, (step.slug, sentences)
        for label in step.equations:
            assert label in PAPER_LABELS
    texts = {step.slug: step.text for step in steps}
    result = data.result
    assert f"the fitted radius is {result.radius:.2f}" in texts["radius"]
    assert f"r* = {data.r_star:.2f}" in texts["radius"]
    assert f"{result.stress:.4f}" in texts["smds"]
    assert f"{100 * result.sphere_ratio[0]:.1f} %" in texts["variance"]
    # Every equation the paper numbers in sections 2-3 that the issue asks for is cited.
    cited = {label for step in steps for label in step.equations}
    assert {"eq:sdist", "eq:smds", "eq:smds2", "eq:smds3", "eq:wasser", "eq:PNS",
            "eq:invmds2", "eq:interp", "eq:totalvar"} <= cited


def test_euclidean_pca_tears_the_seam_apart_and_stpca_does_not(t3_tour):
    """The claim of the first step, checked: the samples on either side of the ±π seam
    (one cluster of clusters-t3, centred at θ3 = 3) are far apart in Euclidean PCA's
    scores and together in ST-PCA's."""
    seam = t3_tour.seam
    assert seam.angle == 2 and seam.crosses
    pca, _ = euclidean_pca_scores(t3_tour.result.dataset.angles)
    scores = t3_tour.result.scores[:, :2]

    def gap(xy):
        return float(np.linalg.norm(xy[seam.plus].mean(axis=0) - xy[seam.minus].mean(axis=0)))

    assert gap(pca) > 2.5
    assert gap(scores) < 0.3


def test_seam_split_and_distances_on_a_known_sample():
    angles = np.array([[0.0, math.pi - 0.1], [0.2, -math.pi + 0.1], [1.0, 0.0]])
    seam = seam_split(angles)
    assert seam.angle == 1
    assert seam.plus.tolist() == [True, False, False]
    assert seam.minus.tolist() == [False, True, False]
    assert seam.groups().tolist() == [1, 2, 0]
    naive, torus, first, second = naive_and_torus_distances(angles)
    assert list(zip(first, second, strict=True)) == [(0, 1), (0, 2), (1, 2)]
    # Across the seam: 0.2 apart in θ1 and 0.2 in θ2 the short way round.
    assert torus[0] == pytest.approx(math.hypot(0.2, 0.2))
    assert naive[0] == pytest.approx(math.hypot(0.2, 2 * math.pi - 0.2))
    assert torus[1] == pytest.approx(naive[1])  # no wrap: the same
    assert np.all(torus <= naive + 1e-12)


def test_snapshot_recorder_keeps_first_last_and_even_spacing():
    recorder = SnapshotRecorder(max_frames=10)
    for k in range(1, 1001):
        recorder(k, 1.0 / k, np.zeros((2, 3)), 1.0)
    frames = recorder.frames()
    iterations = [f[0] for f in frames]
    assert len(frames) <= 10
    assert iterations[0] == 1 and iterations[-1] == 1000
    steps = np.diff(iterations[:-1])
    assert len(set(steps.tolist())) == 1  # evenly spaced but for the final frame
    assert len(recorder.trace) == 1000


def test_replay_and_radius_curve_agree_with_the_fit(t3_tour):
    data = t3_tour
    result = data.result
    # The replay is the fit: it ends at the fitted stress.
    assert data.frames[0].first and not data.frames[-1].first
    assert data.frames[-1].stress == pytest.approx(result.stress, rel=1e-9)
    assert data.trace[-1, 1] == pytest.approx(result.stress, rel=1e-9)
    assert np.all(np.diff(data.trace[:, 1]) <= 1e-12)  # the stress never rises
    # r̂ minimises the stress over r: the refit at r̂ keeps the fitted stress, and no other
    # radius of the curve does better (eq. smds3 against eq. smds2 at fixed r).
    _, stress = data.radius_curve()
    at_fit = data.nearest_radius_point(result.radius)
    assert at_fit.radius == pytest.approx(result.radius, abs=1e-4)
    assert at_fit.stress == pytest.approx(result.stress, rel=1e-3)
    assert stress.min() >= at_fit.stress * (1 - 1e-3)
    assert stress[0] > 10 * at_fit.stress  # too small a sphere
    assert data.r_star == pytest.approx(1.89, abs=0.02)  # the paper's r* for T³: 1.79–1.89


@pytest.mark.parametrize("fixture", ["t3_tour", "t4_tour"])
def test_figures_and_equations_have_real_content(fixture, request):
    from matplotlib.figure import Figure
    from matplotlib.image import imread

    from stpca_gui.plotting.mpl_common import figure_has_content
    from stpca_gui.plotting.tour_figures import draw_tour_figure, equation_png

    data = request.getfixturevalue(fixture)
    for step in tour_steps(data):
        figure = Figure(figsize=(4.6, 3.4), layout="constrained")
        draw_tour_figure(figure, step, data, frame=1, radius=data.result.radius)
        assert figure_has_content(figure), step.slug
        figure.savefig(io.BytesIO(), format="png")  # lays out and draws without error
        image = imread(io.BytesIO(equation_png(step.equation)))
        ink = image[..., 3] > 0.5
        assert image.shape[1] > 150 and ink.mean() > 0.01, step.equations[0]


def test_radius_figure_marks_the_fit_and_the_chosen_radius(t3_tour):
    from matplotlib.figure import Figure

    from stpca_gui.plotting.tour_figures import draw_stress_vs_radius

    figure = Figure()
    point = t3_tour.radius_points[0]
    draw_stress_vs_radius(figure, t3_tour, point.radius)
    ax = figure.axes[0]
    vertical = [line.get_xdata()[0] for line in ax.lines if len(set(line.get_xdata())) == 1
                and len(line.get_xdata()) == 2]
    assert t3_tour.result.radius in vertical and t3_tour.r_star in vertical
    marker = ax.lines[-1]
    assert marker.get_xdata()[0] == point.radius and marker.get_ydata()[0] == point.stress


# ------------------------------------------------------------------------- GUI
def _fitted(qtbot, window, demo="clusters-t3"):
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.load_demo(demo)
    return window


def _open_tour(qtbot, window):
    from stpca_gui.gui.tour import GuidedTour

    assert window.tour_action.isEnabled()
    window.tour_action.trigger()
    tour = window.tour
    assert isinstance(tour, GuidedTour)
    if tour.data is None:
        with qtbot.waitSignal(tour.ready, timeout=FIT_TIMEOUT_MS):
            pass
    return tour


def test_back_next_through_every_step_and_closing_restores_the_window(qtbot, window):
    from PySide6.QtCore import Qt

    _fitted(qtbot, window)
    state = window.state
    groups = np.zeros(state.selection.n_samples, dtype=np.int8)
    groups[:5] = 3
    state.selection.set_groups(groups)
    window.color_combo.setCurrentIndex(window.color_combo.findData("pns1"))
    sphere = window.views["sphere"]

    tour = _open_tour(qtbot, window)
    n = len(tour.steps)
    assert tour.panel.counter.text() == f"Step 1 of {n}"
    seen = []
    tour.step_shown.connect(seen.append)
    with qtbot.waitActive(window):
        window.activateWindow()
    for k in range(1, n):
        qtbot.keyClick(window, Qt.Key.Key_Right)  # the keyboard arrows, as a student would
        step = tour.steps[k]
        assert tour.panel.counter.text() == f"Step {k + 1} of {n}"
        assert tour.panel.title.text() == step.title
        assert sphere.showing_configuration == (step.sphere != "fit")
        assert state.color_mode == step.color_mode
        emphasised = {key for key, view in window.views.items() if view.styleSheet()}
        assert emphasised == set(step.views)
    assert not tour.panel.next_button.isEnabled()
    for _ in range(n - 1):
        tour.panel.back_button.click()
    assert seen == [*range(1, n), *range(n - 2, -1, -1)]
    # The first step selects the two sides of the seam (groups 1 and 2).
    assert set(np.unique(state.selection.groups)) == {0, 1, 2}

    with qtbot.waitSignal(tour.closed, timeout=5000):
        tour.panel.close_button.click()
    assert window.tour is None
    assert state.color_mode == "pns1"
    assert np.array_equal(state.selection.groups, groups)
    assert not sphere.showing_configuration
    assert sphere.scene.point_layer.actor.GetVisibility()  # the result is shown again
    assert not sphere.live_scene.shown
    assert all(not view.styleSheet() for view in window.views.values())
    assert window.findChild(type(tour.panel), "guided-tour") is None or not (
        tour.panel.isVisible())


def test_smds_replay_and_radius_slider_refit_through_the_task_runner(qtbot, window):
    _fitted(qtbot, window)
    tour = _open_tour(qtbot, window)
    sphere = window.views["sphere"]
    # The SMDS step replays every recorded frame once, ending at the fitted configuration.
    smds = next(k for k, step in enumerate(tour.steps) if step.sphere == "smds")
    tour._frame_timer.setInterval(0)
    draws = sphere.live_draws
    tour.go_to(smds)
    last = len(tour.data.frames) - 1
    qtbot.waitUntil(lambda: tour.frame == last, timeout=20_000)
    assert sphere.live_draws - draws == last + 1
    assert sphere._live_snapshot is tour.data.frames[-1]
    # The radius step: moving the slider refits SMDS at that radius in the tour's runner,
    # and the stress-versus-r figure and the sphere view show the refit.
    tour.go_to(smds + 1)
    assert tour.step.sphere == "radius"
    before = len(tour.data.radius_points)
    target = 1.3 * tour.data.result.radius
    with qtbot.waitSignal(tour.runner.started, timeout=5000), \
            qtbot.waitSignal(tour.radius_refitted, timeout=30_000) as refitted:
        tour.set_radius(target)
    radius = refitted.args[0]
    assert radius == pytest.approx(target, abs=0.02 * target)
    assert len(tour.data.radius_points) == before + 1
    point = tour.data.nearest_radius_point(radius)
    assert point.radius == radius and point.stress > tour.data.result.stress
    axes = tour.panel.figure.axes[0]  # redrawn with the new point marked
    assert axes.lines[-1].get_xdata()[0] == radius
    assert axes.lines[-1].get_ydata()[0] == point.stress
    assert radius in axes.lines[0].get_xdata()  # and on the curve
    assert sphere._live_snapshot is point.snapshot and point.snapshot.radius == radius
    tour.close()


def test_tour_fits_first_when_there_is_no_result(qtbot, window):
    window.set_dataset(Dataset.from_demo("clusters-t2"), fit=False)
    assert window.state.result is None
    window.when_prepared("sphere", lambda: None)
    qtbot.waitUntil(lambda: window.is_prepared("sphere"), timeout=30_000)
    window.tour_action.trigger()
    tour = window.tour
    with qtbot.waitSignal(tour.ready, timeout=FIT_TIMEOUT_MS):
        pass
    assert tour.data.result is window.state.result
    tour.close()


def test_tour_export_writes_a_png_per_step_and_an_index(tmp_path, display):
    from matplotlib.image import imread

    # A process of its own, as users run it: the app's event loop and exit are part of it.
    out = tmp_path / "tour"
    completed = subprocess.run(
        [sys.executable, "-m", "stpca_gui.gui.app", "--demo", "clusters-t2", "--tour-export",
         str(out), "--size", "1400x900"], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert f"wrote 7 tour steps and {out / 'tour.md'}" in completed.stdout
    assert "placeholder" not in completed.stderr  # every title can show the modified marker
    pngs = sorted(out.glob("step-*.png"))
    index = (out / "tour.md").read_text(encoding="utf-8")
    assert 5 <= len(pngs) <= 8
    for png in pngs:
        assert f"]({png.name})" in index
    assert index.count("\\tag{") >= len(pngs)
    images = [imread(png)[..., :3] for png in pngs]
    assert all(image.shape == images[0].shape for image in images)
    for image in images:
        assert image.std() > 0.1  # views, text and plots, not a blank window
    for a in range(len(images)):
        for b in range(a + 1, len(images)):
            changed = np.mean(np.any(np.abs(images[a] - images[b]) > 0.1, axis=-1))
            assert changed > 0.02, (pngs[a].name, pngs[b].name)


def test_tour_export_and_screenshot_exclude_each_other(tmp_path):
    from stpca_gui.gui.app import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--tour-export", str(tmp_path), "--screenshot", str(tmp_path / "x.png")])
    assert exit_info.value.code == 2
