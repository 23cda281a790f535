"""3-D scenes (torus cube / square / doughnut / circle, nested sphere) and 3-D export.

Everything renders off screen on the test X display; the PNGs are kept in ``test-output/``
for a person to look at.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import pyvista as pv
from matplotlib.colors import to_rgba

from stpca_gui.core import PrincipalCurve, ScaledTorusPCA, make_demo
from stpca_gui.core.demos import make_clusters
from stpca_gui.plotting.colors import DIMMED_ALPHA, NEUTRAL, label_colors, point_colors
from stpca_gui.plotting.export3d import save_plotter_image
from stpca_gui.plotting.scene3d import (
    opaque_over_white,
    rgba_uint8,
    selected_point_scale,
    selection_mask,
)
from stpca_gui.plotting.sphere_scene import SphereScene, circle_axis, sphere_view_data
from stpca_gui.plotting.torus_geometry import break_runs
from stpca_gui.plotting.torus_scene import TorusScene

WINDOW = (600, 500)


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def fit_t2():
    ds = make_demo("clusters-t2")
    return ds, ScaledTorusPCA(random_state=0).fit(ds.angles)


@pytest.fixture(scope="module")
def fit_t3():
    ds = make_demo("clusters-t3")
    return ds, ScaledTorusPCA(random_state=0).fit(ds.angles)


@pytest.fixture
def plotter(display):
    p = pv.Plotter(off_screen=True, window_size=WINDOW)
    yield p
    p.close()


def image(p) -> np.ndarray:
    return np.asarray(p.screenshot(return_img=True))[..., :3]


def non_background_fraction(img: np.ndarray) -> float:
    return float(np.mean(np.any(img < 245, axis=-1)))


def distinct_colors(img: np.ndarray) -> int:
    quantised = (img // 32).reshape(-1, 3)
    _, counts = np.unique(quantised, axis=0, return_counts=True)
    return int(np.sum(counts > 20))


def pixels_near(img: np.ndarray, color, tol: int = 40) -> int:
    rgb = np.asarray(rgba_uint8(color, 1)[0, :3], dtype=int)
    return int(np.sum(np.all(np.abs(img.astype(int) - rgb) <= tol, axis=-1)))


def assert_rendered(img: np.ndarray, min_fraction: float = 0.03, min_colors: int = 4) -> None:
    assert non_background_fraction(img) > min_fraction, "the view is (nearly) blank"
    assert distinct_colors(img) >= min_colors, "the view has too few colours"


def camera(p) -> np.ndarray:
    position = p.camera_position
    return np.array([position.position, position.focal_point, position.viewup])


def polylines(lines: pv.PolyData) -> list[np.ndarray]:
    out = []
    offset = 0
    cells = np.asarray(lines.lines)
    while offset < len(cells):
        k = cells[offset]
        out.append(np.asarray(lines.points[cells[offset + 1: offset + 1 + k]]))
        offset += k + 1
    return out


def polyline_ends(lines: pv.PolyData) -> np.ndarray:
    return np.vstack([p[[0, -1]] for p in polylines(lines)])


def segments(lines: pv.PolyData) -> np.ndarray:
    """Lengths of all segments of all polylines of a PolyData."""
    return np.concatenate([np.linalg.norm(np.diff(p, axis=0), axis=1) for p in polylines(lines)])


# ----------------------------------------------------------------------- cube (d = 3)


def test_cube_view_of_clusters_t3(plotter, fit_t3, output_dir):
    ds, model = fit_t3
    scene = TorusScene(plotter)
    colors = label_colors(ds.labels)
    scene.draw(model.angles_, model.principal_curve_, colors, column_names=ds.column_names)

    layer = scene.point_layer
    assert layer.cloud.n_points == ds.n_samples
    assert layer.cloud.n_verts == ds.n_samples
    np.testing.assert_array_equal(layer.colors(), rgba_uint8(colors, ds.n_samples))
    assert layer.actor.GetProperty().GetRenderPointsAsSpheres()
    np.testing.assert_allclose(scene.point_xyz, model.angles_)

    img = image(plotter)
    assert_rendered(img, 0.05, 5)
    for k in np.unique(ds.labels):  # every cluster's colour is on screen
        assert pixels_near(img, label_colors(ds.labels)[ds.labels == k][0], 40) > 50
    assert pixels_near(img, "black", 30) > 300  # curve, frame, labels
    save_plotter_image(plotter, output_dir / "torus-cube-clusters-t3.png")


@pytest.mark.parametrize("demo", ["clusters-t2", "clusters-t3"])
def test_curve_pieces_never_cross_the_cube(display, demo, fit_t2, fit_t3):
    ds, model = fit_t2 if demo == "clusters-t2" else fit_t3
    p = pv.Plotter(off_screen=True, window_size=WINDOW)
    try:
        scene = TorusScene(p)
        scene.draw(model.angles_, model.principal_curve_, layout="cube")
        lines = scene.curve_polydata
        assert lines is not None and lines.n_lines >= 1
        assert segments(lines).max() < 1.0
        assert np.all(np.abs(lines.points[:, :2]) <= np.pi + 1e-9)
        if ds.dim == 2:
            scene.draw(model.angles_, model.principal_curve_, layout="doughnut")
            assert segments(scene.curve_polydata).max() < 0.5
    finally:
        p.close()


def test_curve_breaks_are_kept_when_projecting(display):
    # A closed curve on T⁵ with one flagged break: every projection keeps it open there.
    # Column 3 (2t) lands exactly on the seam ±π, which must not draw a line either.
    t = np.linspace(-np.pi, np.pi, 80, endpoint=False)
    angles = np.column_stack([t, 0.5 * np.sin(t), np.cos(t), 2 * t, -t])
    breaks = np.zeros(80, dtype=bool)
    breaks[30] = True
    curve = PrincipalCurve(angles=angles, breaks=breaks, parameter=t, stress=np.zeros(80))
    runs = break_runs(angles[:, [0, 3]], breaks)
    assert len(runs) == 1 and len(runs[0]) == 80  # opened at the break only
    p = pv.Plotter(off_screen=True, window_size=WINDOW)
    try:
        scene = TorusScene(p)
        scene.draw(angles, curve, axes=(0, 3, 4))
        ends = polyline_ends(scene.curve_polydata)
        for j in (30, 31):  # the break's two points end polylines: they are not joined
            assert np.linalg.norm(ends - angles[j, [0, 3, 4]], axis=1).min() < 1e-6
        assert segments(scene.curve_polydata).max() < 1.0
    finally:
        p.close()


def test_camera_survives_redraw_and_resets_on_new_layout(plotter, fit_t3):
    ds, model = fit_t3
    scene = TorusScene(plotter)
    scene.draw(model.angles_, model.principal_curve_, label_colors(ds.labels))
    default = camera(plotter)
    custom = [(12.0, 3.0, -4.0), (0.5, 0.0, 0.0), (0.0, 0.0, 1.0)]
    plotter.camera_position = custom
    plotter.camera.zoom(1.7)
    before = camera(plotter)
    scene.draw(model.angles_, model.principal_curve_, point_colors("pns1", n=ds.n_samples,
                                                                   pns1=model.scores_[:, 0]))
    np.testing.assert_allclose(camera(plotter), before, atol=1e-9)
    # Other axes: a different view, so the default view comes back.
    scene.draw(model.angles_, model.principal_curve_, axes=(1, 0, 2))
    assert not np.allclose(camera(plotter), before)
    scene.draw(model.angles_, model.principal_curve_, axes=(0, 1, 2))
    np.testing.assert_allclose(camera(plotter), default, atol=1e-9)
    plotter.camera_position = custom
    scene.reset_camera()
    np.testing.assert_allclose(camera(plotter), default, atol=1e-9)


def test_square_keeps_its_zoom_on_redraw(plotter, fit_t2):
    _, model = fit_t2
    scene = TorusScene(plotter)
    scene.draw(model.angles_, model.principal_curve_, layout="square")
    plotter.camera.zoom(2.5)
    scale = plotter.camera.parallel_scale
    scene.draw(model.angles_, model.principal_curve_, "#999999", layout="square")
    assert plotter.camera.parallel_scale == pytest.approx(scale)


def test_update_colors_changes_pixels_and_adds_the_selection(plotter, fit_t3, output_dir):
    ds, model = fit_t3
    scene = TorusScene(plotter)
    scene.draw(model.angles_, model.principal_curve_, "#0072B2")
    before = image(plotter)
    red = "#D55E00"
    assert pixels_near(before, red, 25) < 20

    groups = np.where(ds.labels == 0, 1, 0)
    colors = point_colors("selection", n=ds.n_samples, groups=groups)
    scene.update_colors(colors, groups > 0)
    after = image(plotter)
    assert pixels_near(after, red, 25) > 200  # group 1 is drawn in SELECTION_PALETTE[0]
    assert np.mean(np.any(np.abs(after.astype(int) - before.astype(int)) > 30, axis=-1)) > 0.01
    # Dimmed points are drawn opaque, in the colour they would have over the white
    # background (translucent points would need the costly transparency pass).
    drawn = scene.point_layer.colors()
    assert np.all(drawn[:, 3] == 255)
    grey = np.array(to_rgba(NEUTRAL)[:3]) * 255
    faded = DIMMED_ALPHA * grey + (1 - DIMMED_ALPHA) * 255
    np.testing.assert_allclose(drawn[groups == 0, :3],
                               np.broadcast_to(faded, (int(np.sum(groups == 0)), 3)), atol=1.0)
    assert scene.point_layer.overlay_actor.GetVisibility()
    assert scene.point_layer.overlay.n_points == int(np.sum(groups))
    # Each point is drawn once: the cloud leaves out what the overlay draws.
    np.testing.assert_array_equal(scene.point_layer.shown_in_cloud(), groups == 0)
    save_plotter_image(plotter, output_dir / "torus-cube-clusters-t3-selection.png")

    scene.update_colors(label_colors(ds.labels), None)
    assert not scene.point_layer.overlay_actor.GetVisibility()
    assert scene.point_layer.shown_in_cloud().all()


@pytest.mark.parametrize("n", [5000, 100_000])
def test_update_colors_renders_once_and_rebuilds_nothing(plotter, n):
    # Timed by benchmarks/bench_updates.py; here: a recolouring keeps every actor and the
    # cloud's colour array (written in place) and renders exactly one frame.
    rng = np.random.default_rng(1)
    angles = rng.uniform(-np.pi, np.pi, (n, 3))
    scene = TorusScene(plotter)
    scene.draw(angles, colors=label_colors(rng.integers(0, 3, n)))
    plotter.screenshot(return_img=False)
    actors = dict(plotter.renderer.actors)
    layer = scene.point_layer
    colour_array = layer.cloud.GetPointData().GetArray(layer.SCALARS)
    frames: list[object] = []
    plotter.ren_win.AddObserver("EndEvent", lambda *_: frames.append(None))
    for _ in range(3):
        groups = (rng.random(n) < 0.05).astype(int)
        scene.update_colors(point_colors("selection", n=n, groups=groups), groups > 0)
        shown = layer.shown_in_cloud()
        if n <= scene.max_points:
            np.testing.assert_array_equal(shown, groups == 0)
        else:  # a display subset: unselected points up to the cap
            assert not (shown & (groups > 0)).any()
            assert shown.sum() + layer.overlay.n_points == scene.max_points
        assert layer.overlay.n_points == np.count_nonzero(groups)
    assert len(frames) == 3
    assert dict(plotter.renderer.actors) == actors
    assert layer.cloud.GetPointData().GetArray(layer.SCALARS) is colour_array


# ------------------------------------------------------------------------- d = 2, 1, > 3


def test_square_and_doughnut_of_clusters_t2(display, fit_t2, output_dir):
    ds, model = fit_t2
    colors = label_colors(ds.labels)
    for layout in ("square", "doughnut"):
        p = pv.Plotter(off_screen=True, window_size=WINDOW)
        try:
            scene = TorusScene(p)
            scene.draw(model.angles_, model.principal_curve_, colors, layout=layout,
                       column_names=ds.column_names)
            assert scene.layout == layout
            img = image(p)
            assert_rendered(img, 0.05, 5)
            for k in np.unique(ds.labels):
                assert pixels_near(img, colors[ds.labels == k][0], 40) > 30
            if layout == "square":
                assert p.camera.parallel_projection
                direction = np.subtract(p.camera.position, p.camera.focal_point)
                np.testing.assert_allclose(direction[:2], 0.0, atol=1e-9)
                assert direction[2] > 0
                np.testing.assert_allclose(scene.point_xyz[:, 2], 0.0)
            else:
                radius = np.hypot(np.hypot(scene.point_xyz[:, 0], scene.point_xyz[:, 1]) - 2.0,
                                  scene.point_xyz[:, 2])
                np.testing.assert_allclose(radius, radius[0])  # all on one torus
            save_plotter_image(p, output_dir / f"torus-{layout}-clusters-t2.png")
        finally:
            p.close()


def test_cube_layout_with_two_angles_draws_the_square(plotter, fit_t2):
    _, model = fit_t2
    scene = TorusScene(plotter)
    scene.draw(model.angles_, model.principal_curve_)
    assert scene.layout == "square"


def test_more_than_three_angles_with_chosen_axes(plotter, output_dir):
    means = np.array([[0, 1, 2, -2, 0.5], [2, -1, 0, 1, -2.5], [-2, 2.5, -1, 0, 1.5]])
    ds = make_clusters(means, 80, sd=0.3, random_state=3)
    t = np.linspace(-np.pi, np.pi, 90, endpoint=False)
    curve_angles = np.column_stack([t, np.sin(t), 0.5 * t, np.cos(2 * t), -t])
    curve = PrincipalCurve(angles=curve_angles, breaks=np.zeros(90, dtype=bool),
                           parameter=t, stress=np.zeros(90))
    scene = TorusScene(plotter)
    scene.draw(ds.angles, curve, label_colors(ds.labels), axes=(3, 0, 4),
               column_names=ds.column_names)
    assert scene.axes == (3, 0, 4)
    np.testing.assert_allclose(scene.point_xyz, ds.angles[:, [3, 0, 4]])
    assert segments(scene.curve_polydata).max() < 1.0
    assert_rendered(image(plotter), 0.03, 5)
    save_plotter_image(plotter, output_dir / "torus-cube-t5-axes-3-0-4.png")
    with pytest.raises(ValueError, match="distinct"):
        scene.draw(ds.angles, curve, axes=(0, 0, 1))
    with pytest.raises(ValueError, match="distinct"):
        scene.draw(ds.angles, curve, axes=(0, 1, 5))


def test_circle_for_one_angle(plotter, output_dir):
    rng = np.random.default_rng(2)
    angles = np.concatenate([rng.normal(1.0, 0.3, 60), rng.normal(-2.5, 0.2, 40)])[:, None]
    model = ScaledTorusPCA(random_state=0, n_bootstrap=10).fit(angles)
    scene = TorusScene(plotter)
    scene.draw(model.angles_, model.principal_curve_, "#0072B2")
    assert scene.layout == "circle"
    np.testing.assert_allclose(np.hypot(scene.point_xyz[:, 0], scene.point_xyz[:, 1]), 1.0)
    assert_rendered(image(plotter), 0.02, 3)
    save_plotter_image(plotter, output_dir / "torus-circle-t1.png")

    points3, circle3, mean3 = sphere_view_data(model, n_circle=50)
    np.testing.assert_allclose(points3[:, 2], 0.0)
    np.testing.assert_allclose(np.linalg.norm(points3, axis=1), 1.0)
    np.testing.assert_allclose(np.linalg.norm(circle3[:, :2], axis=1), 1.0)
    assert circle3.shape == (50, 3) and mean3.shape == (3,)


# -------------------------------------------------------------------------- sphere view


def test_sphere_view_data_for_t2_is_the_embedding(fit_t2):
    _, model = fit_t2
    points3, circle3, mean3 = sphere_view_data(model, n_circle=120)
    np.testing.assert_allclose(points3, model.embedding_, atol=1e-12)
    assert circle3.shape == (120, 3)
    np.testing.assert_allclose(mean3, model.pns_.mean_, atol=1e-12)


def test_sphere_view_data_for_t3_lies_on_the_nested_circle(fit_t3):
    _, model = fit_t3
    points3, circle3, mean3 = sphere_view_data(model)
    np.testing.assert_allclose(np.linalg.norm(points3, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(circle3, axis=1), 1.0, atol=1e-12)
    centre = model.pns_.centers_local_[-1]
    angle = np.arccos(np.clip(circle3 @ centre, -1, 1))
    np.testing.assert_allclose(angle, angle[0], atol=1e-9)
    np.testing.assert_allclose(angle[0], model.pns_.radii_[-1], atol=1e-9)
    np.testing.assert_allclose(np.arccos(np.clip(mean3 @ centre, -1, 1)), angle[0], atol=1e-9)
    axis, radius = circle_axis(circle3)
    assert abs(abs(axis @ centre) - 1.0) < 1e-9
    assert np.isclose(radius, min(angle[0], np.pi - angle[0]), atol=1e-9)
    # One period of PNS1 goes once round the circle.
    steps = np.linalg.norm(np.diff(np.vstack([circle3, circle3[:1]]), axis=0), axis=1)
    assert steps.max() < 3 * np.median(steps)


def test_sphere_scene_of_clusters_t3(plotter, fit_t3, output_dir):
    ds, model = fit_t3
    points3, circle3, mean3 = sphere_view_data(model)
    colors = label_colors(ds.labels)
    scene = SphereScene(plotter)
    scene.draw(points3, circle3, mean3, colors, title="clusters-t3: nested S²")
    assert scene.point_layer.cloud.n_points == ds.n_samples
    np.testing.assert_array_equal(scene.point_layer.colors(), rgba_uint8(colors, ds.n_samples))
    img = image(plotter)
    assert_rendered(img, 0.1, 6)
    assert pixels_near(img, "#D55E00", 30) > 30  # the backwards mean
    assert pixels_near(img, "black", 30) > 300  # the principal circle
    # The surface is the one translucent object, so plain blending is exact without the
    # costly order-independent transparency passes.
    translucent = [name for name, actor in plotter.renderer.actors.items()
                   if actor.GetProperty().GetOpacity() < 1]
    assert translucent == ["sphere-surface"]
    assert not plotter.renderer.GetUseOIT()
    save_plotter_image(plotter, output_dir / "sphere-clusters-t3.png")

    custom = [(0.0, -5.0, 1.0), (0.0, 0.0, 0.0), (0.0, 0.0, 1.0)]
    plotter.camera_position = custom
    before = camera(plotter)
    scene.draw(points3, circle3, mean3, "#999999")
    np.testing.assert_allclose(camera(plotter), before)

    grey = image(plotter)
    scene.update_colors(colors, ds.labels == 1)
    recoloured = image(plotter)
    assert np.mean(np.any(np.abs(recoloured.astype(int) - grey.astype(int)) > 30, -1)) > 0.005
    assert scene.point_layer.overlay.n_points == int(np.sum(ds.labels == 1))


def test_update_before_draw_is_an_error(plotter):
    with pytest.raises(RuntimeError):
        TorusScene(plotter).update_colors("red")
    with pytest.raises(RuntimeError):
        SphereScene(plotter).update_colors("red")


def test_colour_and_selection_inputs():
    assert rgba_uint8(None, 3).shape == (3, 4)
    np.testing.assert_array_equal(rgba_uint8("red", 2), [[255, 0, 0, 255]] * 2)
    np.testing.assert_array_equal(rgba_uint8(np.array([[0.0, 0.5, 1.0]]), 1),
                                  [[0, 128, 255, 255]])
    with pytest.raises(ValueError):
        rgba_uint8(np.zeros((3, 4)), 4)
    np.testing.assert_array_equal(selection_mask([0, 2], 4), [True, False, True, False])
    np.testing.assert_array_equal(selection_mask(np.array([1, 0, 1], bool), 3),
                                  [True, False, True])
    assert not selection_mask(None, 3).any()
    with pytest.raises(IndexError):
        selection_mask([5], 3)


# ------------------------------------------------------------------------------- export


def test_save_plotter_image_formats(plotter, fit_t3, tmp_path):
    ds, model = fit_t3
    scene = TorusScene(plotter)
    scene.draw(model.angles_, model.principal_curve_, label_colors(ds.labels),
               column_names=ds.column_names)
    magic = {".png": b"\x89PNG\r\n\x1a\n", ".pdf": b"%PDF", ".eps": b"%!PS"}
    for stem, ext in (("view", ".png"), ("view", ".svg"), ("view", ".pdf"), ("view", ".eps"),
                      ("upper", ".PNG")):
        written = save_plotter_image(plotter, tmp_path / f"{stem}{ext}")
        data = written.read_bytes()
        assert written == (tmp_path / f"{stem}{ext}").resolve()
        if ext.lower() == ".svg":
            assert b"<svg" in data
        else:
            assert data.startswith(magic[ext.lower()])
    big = save_plotter_image(plotter, tmp_path / "big.png", scale=2)
    small = tmp_path / "view.png"
    assert big.stat().st_size > small.stat().st_size
    with pytest.raises(ValueError, match="cannot save"):
        save_plotter_image(plotter, tmp_path / "view.jpg2")
    with pytest.raises(ValueError):
        save_plotter_image(plotter, tmp_path / "noextension")
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert leftovers == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["view.png", "view.svg", "view.pdf", "view.eps", "upper.PNG", "big.png"])


def test_save_plotter_image_replaces_atomically(plotter, tmp_path: Path):
    scene = TorusScene(plotter)
    scene.draw(np.zeros((3, 3)))
    target = tmp_path / "out.png"
    target.write_bytes(b"old")
    save_plotter_image(plotter, target)
    assert target.read_bytes().startswith(b"\x89PNG")
    assert len(list(tmp_path.iterdir())) == 1


# ------------------------------------------------------------------- the app's plotter


def test_scenes_draw_into_a_qt_interactor(display, qtbot, fit_t3):
    pyvistaqt = pytest.importorskip("pyvistaqt")
    ds, model = fit_t3
    widget = pyvistaqt.QtInteractor(None)
    qtbot.addWidget(widget)
    try:
        widget.resize(*WINDOW)
        widget.show()
        qtbot.waitExposed(widget)
        scene = TorusScene(widget)
        scene.draw(model.angles_, model.principal_curve_, label_colors(ds.labels))
        widget.camera.azimuth = 35.0
        before = camera(widget)
        scene.draw(model.angles_, model.principal_curve_, "#999999")
        np.testing.assert_allclose(camera(widget), before, atol=1e-9)
        scene.update_colors(label_colors(ds.labels), ds.labels == 2)
        assert_rendered(image(widget), 0.05, 5)
        scene.clear()
        sphere = SphereScene(widget)
        sphere.draw(*sphere_view_data(model), label_colors(ds.labels))
        assert_rendered(image(widget), 0.1, 5)
    finally:
        widget.close()


def test_selected_points_shrink_from_1_7_to_1_as_the_selection_grows():
    sizes = [selected_point_scale(k) for k in (0, 1, 300, 1000, 3000, 10_000, 10**6)]
    assert sizes[:3] == [1.7, 1.7, 1.7]
    assert sizes[-3:] == [1.0, 1.0, 1.0]
    assert np.all(np.diff(sizes) <= 0)
    assert 1.0 < selected_point_scale(1000) < 1.7


def test_opaque_over_white_is_what_white_shows_through():
    rgba = np.array([[0, 114, 178, 255], [0, 114, 178, 0], [200, 100, 0, 51]], dtype=np.uint8)
    out = opaque_over_white(rgba)
    assert out.dtype == np.uint8 and np.all(out[:, 3] == 255)
    np.testing.assert_array_equal(out[0], rgba[0])  # opaque: unchanged
    np.testing.assert_array_equal(out[1, :3], [255, 255, 255])  # transparent: the background
    np.testing.assert_array_equal(out[2, :3], [255 - 0.2 * 55, 255 - 0.2 * 155, 204])
