"""Live fits: the SMDS configuration reaches the sphere view as it converges.

Qt-free: the throttle of :class:`~stpca_gui.model.live_fit.LiveSMDS` (with an injected
clock), the snapshots of real fits, the projection of S^d. GUI (Xvfb): the sphere view
draws the snapshots of a running fit, one render each, and gives way to the result, or
back to the previous result when the fit is cancelled; a superseded fit draws nothing.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication

from stpca_gui.core.stpca import ProgressEvent
from stpca_gui.model import Dataset, FitParameters
from stpca_gui.model.live_fit import LiveSMDS, SMDSSnapshot
from stpca_gui.model.tasks import TaskState
from stpca_gui.plotting.live_smds import ConfigurationProjection

FIT_TIMEOUT_MS = 120_000


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def smds_event(iteration: int, stress: float, m: int = 5,
               landmarks: np.ndarray | None = None) -> ProgressEvent:
    units = np.zeros((m, 3))
    units[:, 0] = 1.0
    units[0, 0] = iteration  # marks the configuration (not a unit vector; not drawn here)
    return ProgressEvent("smds", 0.0, iteration, stress, configuration=units, radius=2.0,
                         landmarks=landmarks)


def test_throttle_delivers_first_last_and_at_most_one_per_interval() -> None:
    clock = FakeClock()
    got: list[SMDSSnapshot] = []
    delivery_times: list[float] = []

    def deliver(snapshot: SMDSSnapshot) -> None:
        got.append(snapshot)
        delivery_times.append(clock.now)

    live = LiveSMDS(deliver, interval=0.25, clock=clock)
    live.observe(ProgressEvent("smds-start", 0.0))
    for iteration in range(1, 31):  # one iteration every 0.04 s: 1.2 s of SMDS
        live.observe(smds_event(iteration, 1.0 / iteration))
        clock.now += 0.04
    assert got[0].iteration == 1 and got[0].first
    assert got[-1].iteration < 30  # the last one waits for the end of the stage
    live.observe(ProgressEvent("pns", 0.0))
    iterations = [s.iteration for s in got]
    assert iterations[-1] == 30 and not got[-1].first
    assert iterations == sorted(set(iterations))
    # Within the run (the final flush aside), deliveries are at least an interval apart,
    # so 1.2 s of iterations give at most 1 + 1.2 / 0.25 of them.
    gaps = np.diff(delivery_times[:-1])
    assert np.all(gaps >= 0.25 - 1e-9)
    assert 3 <= len(got) - 1 <= 1 + int(1.2 / 0.25)
    # The history is complete up to each snapshot, and each snapshot shows its own state.
    for snapshot in got:
        np.testing.assert_array_equal(snapshot.stress_history[:, 0],
                                      np.arange(1, snapshot.iteration + 1))
        assert snapshot.stress == pytest.approx(1.0 / snapshot.iteration)
        assert snapshot.units[0, 0] == snapshot.iteration
    # A second stage event does not deliver the last snapshot twice.
    live.observe(ProgressEvent("curve", 0.5))
    assert len(got) == len(iterations)


def test_a_new_run_starts_afresh_and_snapshots_do_not_share_arrays() -> None:
    clock = FakeClock()
    got: list[SMDSSnapshot] = []
    live = LiveSMDS(got.append, interval=0.25, clock=clock)
    first_set, second_set = np.array([3, 1, 4]), np.array([5, 9, 2])
    for landmarks in (first_set, second_set):
        live.observe(ProgressEvent("landmarks", 0.0))
        for iteration in range(1, 4):
            live.observe(smds_event(iteration, 1.0, m=3, landmarks=landmarks))
            clock.now += 1.0
    live.observe(ProgressEvent("interpolation", 0.0))
    assert [(s.first, s.iteration) for s in got] == [
        (True, 1), (False, 2), (False, 3), (True, 1), (False, 2), (False, 3)]
    np.testing.assert_array_equal(got[0].landmarks, first_set)
    np.testing.assert_array_equal(got[3].landmarks, second_set)
    assert len(got[3].stress_history) == 1  # the history restarted with the run
    # Partials are copies: what a receiver keeps never changes afterwards.
    first_set[:] = 0
    np.testing.assert_array_equal(got[0].landmarks, [3, 1, 4])
    assert len(got[0].stress_history) == 1 and len(got[2].stress_history) == 3
    for a, b in itertools.pairwise(got):
        assert not np.shares_memory(a.units, b.units)
        assert not np.shares_memory(a.stress_history, b.stress_history)


def test_fit_task_partials_of_a_landmark_fit_are_the_landmarks_configuration(clusters_t3):
    from stpca_gui.model.analysis import fit_task

    dataset = Dataset(angles=clusters_t3.angles, column_names=clusters_t3.column_names)
    params = FitParameters(n_landmarks=60, landmark_trials=2, torus_variance=False)
    partials: list[SMDSSnapshot] = []
    result = fit_task(dataset, params, TaskState(on_partial=partials.append),
                      live_interval=0.0)
    model = result.model
    assert all(isinstance(p, SMDSSnapshot) for p in partials)
    assert {p.units.shape for p in partials} == {(60, 4)}
    assert sum(p.first for p in partials) == 2  # one run per landmark set
    sets = [p.landmarks for p in partials if p.first]
    assert any(np.array_equal(s, model.landmark_indices_) for s in sets)
    # With no throttling every iteration arrives; the chosen set's last one is the result.
    chosen = [p for p in partials if np.array_equal(p.landmarks, model.landmark_indices_)]
    assert [p.iteration for p in chosen] == list(range(1, len(chosen) + 1))
    np.testing.assert_allclose(chosen[-1].units, model.smds_.embedding_, atol=1e-12)
    assert chosen[-1].radius == pytest.approx(model.radius_)
    np.testing.assert_array_equal(chosen[-1].stress_history[:, 1],
                                  [p.stress for p in chosen])


def test_fit_task_without_live_interval_sends_no_partials(clusters_t3):
    from stpca_gui.model.analysis import fit_task

    dataset = Dataset(angles=clusters_t3.angles[::3], column_names=clusters_t3.column_names)
    partials: list[object] = []
    fit_task(dataset, FitParameters(torus_variance=False),
             TaskState(on_partial=partials.append), live_interval=None)
    assert partials == []


def test_projection_of_higher_spheres_keeps_its_first_basis() -> None:
    rng = np.random.default_rng(0)
    # Points near e0 on S⁴, spread mostly along e1 and e2.
    raw = np.column_stack([np.full(200, 3.0), 1.0 * rng.normal(size=200),
                           0.5 * rng.normal(size=200), 0.05 * rng.normal(size=(200, 2))])
    start = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    projection = ConfigurationProjection(start)
    basis = projection.basis.copy()
    xyz = projection(start)
    np.testing.assert_allclose(np.linalg.norm(xyz, axis=1), 1.0)
    # The three axes span e0, e1, e2 (the directions the data use).
    np.testing.assert_allclose(np.linalg.norm(basis[:3], axis=0), 1.0, atol=0.02)
    moved = np.roll(start, 1, axis=1)
    projection(moved)
    np.testing.assert_array_equal(projection.basis, basis)
    assert "S⁴" in projection.note
    sphere2 = ConfigurationProjection(start[:, :3] / np.linalg.norm(start[:, :3], axis=1,
                                                                   keepdims=True))
    np.testing.assert_array_equal(sphere2(start[:, :3]), start[:, :3])
    assert sphere2.note == ""


# ------------------------------------------------------------------------------- GUI
gui = pytest.mark.usefixtures("display")


def sphere_pixels_drawn(view) -> float:
    """Fraction of the sphere view's pixels that are not white."""
    image = view.render_image()
    assert image is not None
    ptr = image.constBits()
    rgba = np.frombuffer(ptr, np.uint8, image.sizeInBytes()).reshape(
        image.height(), image.bytesPerLine())[:, :image.width() * (image.depth() // 8)]
    pixels = rgba.reshape(image.height(), image.width(), -1)[..., :3]
    return float(np.mean(np.any(pixels < 245, axis=-1)))


@gui
def test_live_scene_moves_its_points_in_place_and_draws_a_capped_subset() -> None:
    import pyvista as pv

    from stpca_gui.plotting.live_smds import LIVE_MAX_POINTS, LiveSMDSScene

    n = LIVE_MAX_POINTS + 500
    plotter = pv.Plotter(off_screen=True, window_size=(400, 300))
    scene = LiveSMDSScene(plotter)
    first, second = (tiny_snapshot(k, n).units[:, :3] for k in (1, 2))
    first /= np.linalg.norm(first, axis=1, keepdims=True)
    second /= np.linalg.norm(second, axis=1, keepdims=True)
    selected = np.zeros(n, dtype=bool)
    selected[[7, 11]] = True
    scene.show(first, "iteration 1", None, "red", selected)
    layer, cloud_points = scene.point_layer, scene.point_layer.cloud.GetPoints()
    actors = list(scene._actors)
    scene.show(second, "iteration 2", np.array([[1, 2.0], [2, 1.0]]))
    # The same actors and point arrays, the new coordinates (cloud and selection overlay).
    assert scene.point_layer is layer and scene._actors == actors
    assert layer.cloud.GetPoints() is cloud_points
    np.testing.assert_array_equal(layer.cloud.points, second[layer.subset.base])
    np.testing.assert_array_equal(layer.overlay.points, second[[7, 11]])
    assert layer.n_drawn == LIVE_MAX_POINTS
    assert scene.caption == f"iteration 2\nshowing {LIVE_MAX_POINTS:,} of {n:,} points"
    assert scene.frames == 2
    plotter.close()


@gui
def test_a_fit_is_drawn_live_then_replaced_by_its_result(qtbot, window, gui_dir):
    drawn: list[SMDSSnapshot] = []
    live_content: list[float] = []
    view_frames: list[int] = []

    def on_snapshot(snapshot, dataset):
        # Connected after the view's own slot: the view has drawn this snapshot.
        view = window.sphere_view
        drawn.append(snapshot)
        view_frames.append(view.live_draws)
        if len(drawn) == 1:
            assert view.showing_configuration
            live_content.append(sphere_pixels_drawn(view))
            window.grab().save(str(gui_dir / "live-fit.png"))

    window.controller.smds_snapshot.connect(on_snapshot)
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.load_demo("clusters-t3")
    view = window.sphere_view
    # First and last iteration at least; each snapshot drawn once, when it arrived.
    assert len(drawn) >= 2 and drawn[0].first and drawn[0].iteration == 1
    assert view_frames == list(range(1, len(drawn) + 1))
    result = window.state.result
    assert drawn[-1].iteration == result.model.smds_.n_iter_
    assert drawn[-1].units.shape == (300, 4)
    assert live_content[0] > 0.05  # a sphere with points, not a blank view
    # The result replaced the live drawing.
    assert not view.showing_configuration and not view.live_scene.shown
    assert view.scene.point_layer is not None and not view.scene.hidden
    assert view.note.text() == "projection onto the nested S² of S³"  # d = 3: S³, not S^3


def tiny_snapshot(iteration: int, n: int, first: bool = False) -> SMDSSnapshot:
    rng = np.random.default_rng(iteration)
    units = rng.normal(size=(n, 4))
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    history = np.column_stack([np.arange(1, iteration + 1), 1.0 / np.arange(1, iteration + 1)])
    return SMDSSnapshot(iteration, 1.0 / iteration, units, 1.5, None, history, first)


@gui
def test_each_snapshot_costs_one_render_and_clearing_restores_the_result(qtbot, window):
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.load_demo("clusters-t3")
    view = window.sphere_view
    plotter = view.plotter
    qtbot.waitUntil(lambda: plotter.smooth, timeout=3000)
    before = view.render_image()
    frames: list[bool] = []  # anti-aliasing of each frame the sphere view renders
    plotter.ren_win.AddObserver("EndEvent", lambda *_: frames.append(bool(
        plotter.renderer.GetUseFXAA())))
    n = window.state.dataset.n_samples
    for k in range(1, 5):
        frames.clear()
        view.show_configuration(tiny_snapshot(k, n, first=k == 1))
        qtbot.waitUntil(lambda: len(frames) >= 1, timeout=2000)
        QCoreApplication.processEvents()  # a second frame, had one been asked for
        assert frames == [False]
    layer = view.live_scene.point_layer
    np.testing.assert_allclose(np.linalg.norm(layer.xyz, axis=1), 1.0)
    assert plotter.hold_still  # no anti-aliased frame after each snapshot
    view.clear_configuration()
    assert not view.live_scene.shown and not view.scene.hidden
    qtbot.waitUntil(lambda: frames[-1] is True, timeout=plotter.STILL_DELAY_MS + 3000)
    assert view.render_image() == before


@gui
def test_cancel_during_smds_restores_the_previous_result(qtbot, window, monkeypatch):
    from stpca_gui.model import analysis as worker

    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.load_demo("clusters-t3")
    view = window.sphere_view
    previous = window.state.result
    qtbot.waitUntil(lambda: view.plotter.smooth, timeout=3000)
    before = view.render_image()

    gate = threading.Event()  # the fit waits at its second SMDS iteration for the cancel
    real_run_analysis = worker.run_analysis

    def gated_run_analysis(*args, callback, **kwargs):
        def gated(event):
            if event.stage == "smds" and event.iteration == 2:
                gate.wait(30)
            return callback(event)
        return real_run_analysis(*args, callback=gated, **kwargs)

    monkeypatch.setattr(worker, "run_analysis", gated_run_analysis)

    def on_snapshot(snapshot, dataset):
        window.cancel_fit()
        gate.set()

    window.controller.smds_snapshot.connect(on_snapshot)
    with qtbot.waitSignal(window.fit_ended, timeout=FIT_TIMEOUT_MS) as ended:
        window.fit()
    assert ended.args == ["cancelled"]
    assert view.live_draws >= 1
    assert window.state.result is previous
    assert not view.showing_configuration and not view.scene.hidden
    assert view.render_image() == before


@gui
def test_partials_of_a_superseded_fit_are_not_drawn(qtbot, window, monkeypatch):
    from stpca_gui.model import analysis as worker

    window.set_dataset(Dataset.from_demo("clusters-t3"), fit=False)
    window.controller.live_interval = 0.0  # every iteration is a partial result
    gate = threading.Event()
    calls = {"fits": 0}
    late: list[int] = []  # iterations the superseded fit reported after the new request
    real_run_analysis = worker.run_analysis

    def gated_run_analysis(*args, callback, **kwargs):
        calls["fits"] += 1
        superseded = calls["fits"] == 1

        def gated(event):
            if superseded and event.stage == "smds" and event.iteration >= 2:
                gate.wait(30)
                late.append(event.iteration)
            return callback(event)
        return real_run_analysis(*args, callback=gated, **kwargs)

    monkeypatch.setattr(worker, "run_analysis", gated_run_analysis)
    drawn: list[tuple[bool, int]] = []
    window.controller.smds_snapshot.connect(
        lambda snapshot, _dataset: drawn.append((snapshot.first, snapshot.iteration)))
    def supersede(snapshot, dataset):
        if not gate.is_set():
            window.fit()  # same data, a new fit: only the runner can tell the partials apart
            gate.set()

    window.controller.smds_snapshot.connect(supersede)
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.fit()
    assert late  # the first fit did send a partial after it was superseded ...
    assert drawn[0] == (True, 1)
    assert drawn[1] == (True, 1)  # ... but the next one drawn is the new fit's first
    assert [it for _, it in drawn[1:]] == list(range(1, len(drawn)))
