"""Matplotlib figure builders (scores scatter, PNS1 histogram, explained variance).

Everything renders off screen with the Agg canvas (no pyplot); the PNGs land in
``test-output/`` for a person to look at.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgba, to_rgba_array
from matplotlib.figure import Figure

from stpca_gui.core import ScaledTorusPCA, make_demo
from stpca_gui.core.circstats.kde import circular_kde
from stpca_gui.core.geometry.torus import wrap_angles
from stpca_gui.model.dataset import encode_labels
from stpca_gui.plotting.colors import (
    CURVE_COLOR,
    DIMMED_ALPHA,
    PALETTE,
    SELECTION_PALETTE,
    cyclic_colors,
    label_colors,
    label_palette,
    point_colors,
)
from stpca_gui.plotting.histogram import SELECTION_COLOR, ScoreHistogram, periodic_range_mask
from stpca_gui.plotting.mpl_common import figure_has_content, pns_label
from stpca_gui.plotting.scores import ScoresScatter
from stpca_gui.plotting.variance import SPHERE_COLOR, TORUS_COLOR, draw_variance


@pytest.fixture(scope="module")
def fitted():
    demo = make_demo("clusters-t3")
    model = ScaledTorusPCA(random_state=0, torus_variance=True).fit(demo.angles)
    return model, demo.labels


def new_figure(width=6.0, height=4.5) -> Figure:
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def render(fig: Figure, output_dir, name: str) -> np.ndarray:
    """Draw with Agg, save the PNG and return the RGBA pixels."""
    fig.canvas.draw()
    pixels = np.asarray(fig.canvas.buffer_rgba()).copy()
    fig.savefig(output_dir / name)
    assert (output_dir / name).stat().st_size > 5000
    return pixels


def ink_fraction(pixels: np.ndarray) -> float:
    """Share of pixels that are not (near) white."""
    return float(np.mean(np.any(pixels[..., :3] < 235, axis=-1)))


def distinct_colours(pixels: np.ndarray) -> int:
    return int(np.unique(pixels[..., :3].reshape(-1, 3) // 8, axis=0).shape[0])


def pixels_near(pixels: np.ndarray, colour, tol: int = 40) -> int:
    target = np.array(to_rgba(colour)[:3]) * 255
    return int(np.sum(np.all(np.abs(pixels[..., :3].astype(float) - target) < tol, axis=-1)))


# ----------------------------------------------------------------- scatter
def test_scores_scatter_draws_the_scores(fitted, output_dir):
    model, labels = fitted
    scores = model.scores_
    n = scores.shape[0]
    selected = np.zeros(n, dtype=bool)
    selected[[3, 50, 120, 250]] = True
    colors = point_colors("label", n=n, labels=labels)
    fig = new_figure()
    plot = ScoresScatter(fig)
    assert not figure_has_content(fig)
    period = 2 * np.pi * model.pns_.circle_radius_
    plot.draw(scores, colors=colors, selected=selected, title="clusters-t3: PNS scores",
              period=period)
    assert figure_has_content(fig)

    assert len(plot.axes.collections) == 2
    np.testing.assert_array_equal(plot.points.get_offsets(), scores[:, :2])
    np.testing.assert_allclose(plot.points.get_facecolors(), colors)
    np.testing.assert_array_equal(plot.overlay.get_offsets(), scores[selected][:, :2])
    assert plot.overlay.get_sizes()[0] > plot.points.get_sizes()[0]
    assert plot.overlay.get_linewidths()[0] > 0  # a few selected points are outlined
    assert plot.overlay.get_zorder() > plot.points.get_zorder()
    assert plot.axes.get_xlabel() == "PNS1 (rad)"
    assert plot.axes.get_ylabel() == "PNS2 (rad)"
    assert plot.axes.get_xlim() == pytest.approx((-period / 2, period / 2))
    # The principal circle is PNS2 = 0: one black horizontal line at y = 0.
    circle = [line for line in plot.axes.lines if line.get_color() == CURVE_COLOR]
    assert len(circle) == 1
    np.testing.assert_array_equal(circle[0].get_ydata(), [0, 0])

    pixels = render(fig, output_dir, "scores_scatter_clusters_t3.png")
    assert ink_fraction(pixels) > 0.03
    assert distinct_colours(pixels) > 40
    for colour in PALETTE[:3]:  # the three label colours are on the canvas
        assert pixels_near(pixels, colour) > 30


def test_update_colors_changes_only_colours_and_selection(fitted, output_dir):
    model, labels = fitted
    scores = model.scores_
    n = scores.shape[0]
    fig = new_figure()
    plot = ScoresScatter(fig)
    plot.draw(scores, colors=point_colors("label", n=n, labels=labels))
    axes_before = plot.axes
    points_before = plot.points
    xlim = plot.axes.get_xlim()

    groups = np.zeros(n, dtype=int)
    groups[scores[:, 0] > 1.0] = 1
    groups[scores[:, 0] < -1.5] = 2
    colors = point_colors("pns1", n=n, pns1=scores[:, 0],
                          pns1_period=2 * np.pi * model.pns_.circle_radius_, groups=groups)
    plot.update_colors(colors, groups)
    assert plot.axes is axes_before and plot.points is points_before
    assert plot.axes.get_xlim() == xlim
    np.testing.assert_allclose(plot.points.get_facecolors(), colors)
    np.testing.assert_array_equal(plot.overlay.get_offsets(), scores[groups > 0][:, :2])
    np.testing.assert_allclose(plot.overlay.get_facecolors(), colors[groups > 0])
    assert np.all(plot.points.get_facecolors()[groups == 0, 3] == DIMMED_ALPHA)
    pixels = render(fig, output_dir, "scores_scatter_selection.png")
    assert ink_fraction(pixels) > 0.03

    plot.update_colors(None, None)  # back to one colour, nothing selected
    assert len(plot.overlay.get_offsets()) == 0
    np.testing.assert_allclose(plot.points.get_facecolors(), to_rgba_array([PALETTE[4]] * n))


def draw_counter(fig: Figure) -> list[object]:
    """Collects the figure's full renders (Agg's ``draw_idle`` draws at once, too)."""
    draws: list[object] = []
    fig.canvas.mpl_connect("draw_event", draws.append)
    return draws


def artist_ids(fig: Figure) -> set[int]:
    return {id(artist) for ax in fig.axes for artist in ax.get_children()}


def test_update_colors_for_100k_points_changes_only_colours_and_overlay(output_dir):
    # Timed by benchmarks/bench_updates.py; here: no artist is rebuilt, nothing is rendered.
    rng = np.random.default_rng(0)
    n = 100_000
    scores = np.column_stack([rng.uniform(-2.8, 2.8, n), 0.3 * rng.standard_normal(n)])
    fig = new_figure()
    plot = ScoresScatter(fig)
    plot.draw(scores, colors=cyclic_colors(scores[:, 0], 5.6))
    fig.canvas.draw()
    selected = np.abs(scores[:, 0]) < 0.5
    colors = point_colors("selection", n=n, groups=selected.astype(int))
    artists, points = artist_ids(fig), plot.points
    draws = draw_counter(fig)
    plot.update_colors(colors, selected)
    assert draws == []
    assert artist_ids(fig) == artists and plot.points is points
    np.testing.assert_array_equal(plot.points.get_facecolors(), colors)
    np.testing.assert_array_equal(plot.overlay.get_offsets(), scores[selected])
    assert plot.overlay.get_linewidths()[0] == 0  # ~16 000 outlines would merge into a blot
    assert plot.overlay.get_sizes()[0] > plot.points.get_sizes()[0]
    pixels = render(fig, output_dir, "scores_scatter_100k.png")
    assert ink_fraction(pixels) > 0.1


def test_polygon_and_rectangle_masks_hand_computed():
    scores = np.array([[0.0, 0.0], [1.2, 1.2], [2.0, 0.5], [-1.0, -1.0], [0.5, 0.25]])
    plot = ScoresScatter(new_figure())
    plot.draw(scores)
    triangle = [(-0.5, -0.5), (2.5, -0.5), (-0.5, 2.5)]  # x > -0.5, y > -0.5, x + y < 2
    np.testing.assert_array_equal(plot.points_in_polygon(triangle),
                                  [True, False, False, False, True])
    square = [(0.75, 0.75), (2.5, 0.75), (2.5, -0.2), (0.75, -0.2)]  # any orientation
    np.testing.assert_array_equal(plot.points_in_polygon(square[::-1]),
                                  [False, False, True, False, False])
    assert not plot.points_in_polygon([(0, 0), (1, 1)]).any()  # not a polygon
    # Rectangles: corners in any order, boundary inclusive.
    np.testing.assert_array_equal(plot.points_in_rectangle(1.0, 1.0, -1.0, -1.0),
                                  [True, False, False, True, True])
    np.testing.assert_array_equal(plot.points_in_rectangle(0.4, 0.2, 2.5, 0.6),
                                  [False, False, True, False, True])


def test_other_component_pairs_and_bad_indices(fitted):
    model, _ = fitted
    plot = ScoresScatter(new_figure())
    plot.draw(model.scores_, i=0, j=2)
    np.testing.assert_array_equal(plot.points.get_offsets(), model.scores_[:, [0, 2]])
    assert plot.axes.get_ylabel() == "PNS3 (rad)"
    assert not plot.axes.lines  # PNS3 = 0 is not the principal circle
    plot.draw(model.scores_, i=2, j=1)
    assert plot.axes.get_xlabel() == pns_label(2)
    with pytest.raises(ValueError, match="different"):
        plot.draw(model.scores_, i=1, j=1)
    with pytest.raises(ValueError, match="range"):
        plot.draw(model.scores_, i=0, j=3)


def test_single_score_is_a_strip(output_dir):
    rng = np.random.default_rng(2)
    pns1 = np.concatenate([rng.normal(-1.5, 0.3, 150), rng.normal(1.0, 0.2, 150)])
    fig = new_figure(6.0, 2.0)
    plot = ScoresScatter(fig)
    selected = pns1 > 1.2
    plot.draw(pns1[:, None], colors=cyclic_colors(pns1, 2 * np.pi), selected=selected,
              period=2 * np.pi, title="d = 1: PNS1 only")
    assert plot.one_dimensional
    np.testing.assert_array_equal(plot.points.get_offsets(),
                                  np.column_stack([pns1, np.zeros_like(pns1)]))
    assert not plot.axes.yaxis.get_visible()
    assert plot.axes.get_ylabel() == ""
    np.testing.assert_array_equal(plot.points_in_rectangle(1.2, -0.5, 10, 0.5), selected)
    pixels = render(fig, output_dir, "scores_strip_d1.png")
    assert ink_fraction(pixels) > 0.01
    # A plain 1-D array works too.
    plot.draw(pns1)
    assert plot.one_dimensional


# --------------------------------------------------------------- histogram
def test_histogram_of_pns1(fitted, output_dir):
    model, labels = fitted
    pns1 = model.scores_[:, 0]
    n = pns1.size
    period = 2 * np.pi * model.pns_.circle_radius_
    selected = pns1 > 1.0
    fig = new_figure()
    hist = ScoreHistogram(fig)
    codes, _ = encode_labels(labels)
    hist.draw(pns1, period, group_codes=codes, selected=selected, bins=40,
              title="PNS1 (clusters-t3)", group_names=["cluster A", "cluster B", "cluster C"])
    ax = hist.axes
    assert ax.get_xlabel() == "PNS1 (rad)"
    assert ax.get_xlim() == pytest.approx((-period / 2, period / 2))
    np.testing.assert_allclose(hist.edges[[0, -1]], [-period / 2, period / 2])

    # 3 label groups stacked + the selection: 4 bar containers; total area 1 (density).
    assert len(ax.containers) == 4
    width = hist.edges[1] - hist.edges[0]
    stacked_top = np.max([[p.get_y() + p.get_height() for p in c.patches]
                          for c in ax.containers[:3]], axis=0)
    counts, _ = np.histogram(pns1, bins=hist.edges)
    np.testing.assert_allclose(stacked_top, counts / (n * width))
    assert np.sum(stacked_top) * width == pytest.approx(1.0)
    for container, colour in zip(ax.containers[:3], PALETTE[:3], strict=True):
        assert to_rgba(container.patches[0].get_facecolor())[:3] == pytest.approx(
            to_rgba(colour)[:3])
    sel_heights = np.array([p.get_height() for p in hist.selection_bars.patches])
    sel_counts, _ = np.histogram(pns1[selected], bins=hist.edges)
    np.testing.assert_allclose(sel_heights, sel_counts / (n * width))
    assert np.all(sel_heights <= stacked_top + 1e-12)

    # KDE curve integrates to 1, wraps (same value at both ends), matches core.circstats.kde.
    x, y = hist.kde_line.get_data()
    assert np.trapezoid(y, x) == pytest.approx(1.0, abs=1e-6)
    assert y[0] == pytest.approx(y[-1])
    np.testing.assert_allclose(y, circular_kde(pns1, x, hist.bandwidth, period), rtol=1e-9)
    xs, ys = hist.selection_line.get_data()
    assert hist.selection_line.get_visible()
    assert np.trapezoid(ys, xs) == pytest.approx(selected.mean(), abs=1e-6)
    assert np.all(ys <= y + 1e-12)

    hist.show_range(0.5, 1.8)
    hist.set_antimodes([-0.4, 1.2])
    pixels = render(fig, output_dir, "histogram_pns1_clusters_t3.png")
    assert ink_fraction(pixels) > 0.05
    assert pixels_near(pixels, SELECTION_PALETTE[0]) > 200
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0].startswith("cluster A")


def test_histogram_with_twelve_labels_draws_one_series_per_label(output_dir):
    # More labels than the Okabe–Ito palette has colours: no label may be merged into
    # another or lose its name (it used to read "L0 (n = …)" with one label missing).
    rng = np.random.default_rng(5)
    names_in_data = [f"site {k}" for k in (7, 3, 11, 0, 5, 9, 1, 10, 2, 8, 4, 6)]
    sizes = np.arange(10, 130, 10)  # 10, 20, …, 120: every count is different
    labels = np.concatenate([[name] * size for name, size in zip(names_in_data, sizes,
                                                                  strict=True)])
    order = rng.permutation(labels.size)
    labels = labels[order]
    centres = np.linspace(-np.pi, np.pi, 12, endpoint=False)
    values = np.concatenate([rng.normal(c, 0.15, size) for c, size in zip(centres, sizes,
                                                                           strict=True)])[order]
    codes, names = encode_labels(labels)
    assert sorted(names) == sorted(names_in_data) and len(set(codes)) == 12
    fig = new_figure()
    hist = ScoreHistogram(fig)
    hist.draw(values, 2 * np.pi, group_codes=codes, group_names=names, bins=48)

    ax = hist.axes
    assert len(ax.containers) == 12 + 1  # a series per label, and the selection
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    expected = [f"{name} (n = {int(np.sum(labels == name))})" for name in names]
    assert legend[:12] == expected
    palette = label_palette(12)
    assert len(np.unique(palette[:, :3], axis=0)) == 12
    series_colours = [to_rgba(c.patches[0].get_facecolor())[:3] for c in ax.containers[:12]]
    np.testing.assert_allclose(series_colours, palette[:, :3])
    # The points' colours agree with the series: label k has palette colour k everywhere.
    np.testing.assert_allclose(label_colors(labels), palette[codes])
    width = hist.edges[1] - hist.edges[0]
    for k, container in enumerate(ax.containers[:12]):
        heights = np.array([p.get_height() for p in container.patches])
        assert heights.sum() * width * labels.size == pytest.approx(np.sum(codes == k))
    pixels = render(fig, output_dir, "histogram_twelve_labels.png")
    for colour in palette:
        assert pixels_near(pixels, colour, 12) > 20, colour


def test_histogram_group_codes_are_checked():
    hist = ScoreHistogram(new_figure())
    with pytest.raises(ValueError, match="entries"):
        hist.draw(np.zeros(5), 2 * np.pi, group_codes=[0, 1])
    with pytest.raises(ValueError, match="non-negative"):
        hist.draw(np.zeros(2), 2 * np.pi, group_codes=[0.5, 1.0])
    hist.draw(np.zeros(30), 2 * np.pi, group_codes=np.arange(30))  # too many: one series
    assert len(hist.axes.containers) == 2


def test_histogram_update_selection_and_single_colour(fitted):
    model, _ = fitted
    pns1 = model.scores_[:, 0]
    period = 2 * np.pi * model.pns_.circle_radius_
    hist = ScoreHistogram(new_figure())
    # Without group codes (e.g. the cyclic PNS1 colouring): one series.
    hist.draw(pns1, period)
    assert len(hist.axes.containers) == 2
    assert not hist.selection_line.get_visible()
    assert all(p.get_height() == 0 for p in hist.selection_bars.patches)
    legend = [t.get_text() for t in hist.axes.get_legend().get_texts()]
    assert not any(t.startswith("selection") for t in legend)  # nothing selected: no entry
    assert hist.selection_label == ""
    selection_bars = hist.selection_bars
    mask = hist.range_mask(-1.0, 0.0)
    hist.update_selection(mask)
    legend = hist.axes.get_legend().get_texts()
    count, n = int(mask.sum()), pns1.size
    assert legend[-1].get_text() == hist.selection_label == (
        f"selection (n = {count:,}, {100 * count / n:.1f}%)")
    assert to_rgba(hist.axes.get_legend().get_patches()[-1].get_facecolor())[:3] == \
        to_rgba(SELECTION_COLOR)[:3]
    assert hist.selection_bars is selection_bars
    width = hist.edges[1] - hist.edges[0]
    counts, _ = np.histogram(pns1[mask], bins=hist.edges)
    np.testing.assert_allclose([p.get_height() for p in selection_bars.patches],
                               counts / (pns1.size * width))
    assert hist.selection_line.get_visible()
    hist.update_selection(None)
    assert not hist.selection_line.get_visible()
    assert hist.selection_label == ""
    assert len(hist.axes.get_legend().get_texts()) == len(legend) - 1


def test_range_masks_wrap_around_the_period():
    period = 4.0
    values = np.array([-1.9, -1.0, 0.0, 1.0, 1.9, 2.0 - 1e-9])
    hist = ScoreHistogram(new_figure())
    hist.draw(values, period)
    np.testing.assert_array_equal(hist.range_mask(-1.0, 1.0),
                                  [False, True, True, True, False, False])
    # lo > hi: the range runs from 1.5 up through ±2 to -1.5.
    np.testing.assert_array_equal(hist.range_mask(1.5, -1.5),
                                  [True, False, False, False, True, True])
    assert hist.range_mask(-2.0, 2.0).all()
    np.testing.assert_array_equal(periodic_range_mask(values + 3 * period, 1.5, -1.5, period),
                                  hist.range_mask(1.5, -1.5))
    np.testing.assert_allclose(wrap_angles([2.0, -2.0, 6.5], period), [-2.0, -2.0, -1.5])

    hist.show_range(-1.0, 1.0)
    assert len(hist.range_spans) == 1
    hist.show_range(1.5, -1.5)  # wraps: two pieces, [1.5, 2] and [-2, -1.5]
    spans = hist.range_spans
    assert len(spans) == 2
    extents = sorted((s.get_x(), s.get_x() + s.get_width()) for s in spans)
    assert extents == [pytest.approx((-2.0, -1.5)), pytest.approx((1.5, 2.0))]
    hist.clear_range()
    assert not hist.range_spans
    hist.set_antimodes([0.5, 2.5])
    positions = sorted(line.get_xdata()[0] for line in hist.antimode_lines)
    assert positions == pytest.approx([-1.5, 0.5])
    assert all(line.get_linestyle() == "--" for line in hist.antimode_lines)
    hist.set_antimodes(None)
    assert not hist.antimode_lines


def test_histogram_with_100k_samples(monkeypatch):
    # Timed by benchmarks/bench_updates.py; here: a selection rebuilds no artist, renders
    # nothing and evaluates the selection's density with the binned estimate only.
    from stpca_gui.plotting import histogram

    rng = np.random.default_rng(1)
    period = 2 * np.pi * 0.9
    values = wrap_angles(np.concatenate([rng.normal(-1.5, 0.4, 60_000),
                                         rng.normal(1.2, 0.3, 40_000)]), period)
    fig = new_figure()
    hist = ScoreHistogram(fig)
    hist.draw(values, period)
    # The first selection adds the legend's "selection" entry (a new legend, once); the
    # selections after it change only the selection's layers and that entry's text.
    hist.update_selection(hist.range_mask(-3.0, -2.0))
    artists = artist_ids(fig)
    draws = draw_counter(fig)
    methods = []

    def counted_kde(*args, method="exact", **kwargs):
        methods.append(method)
        return circular_kde(*args, method=method, **kwargs)

    monkeypatch.setattr(histogram, "circular_kde", counted_kde)
    for lo in (-2.0, -1.0, 0.5):
        mask = hist.range_mask(lo, lo + 1.5)
        hist.update_selection(mask)
        heights = [patch.get_height() for patch in hist._selection_bars.patches]
        assert sum(heights) * (hist._edges[1] - hist._edges[0]) == pytest.approx(
            mask.mean())
    assert set(methods) == {"binned"}
    assert draws == [] and artist_ids(fig) == artists
    x, y = hist.kde_line.get_data()
    assert np.trapezoid(y, x) == pytest.approx(1.0, abs=1e-4)


# ---------------------------------------------------------------- variance
def test_variance_bars(fitted, output_dir):
    model, _ = fitted
    fig = new_figure(5.5, 3.8)
    ax = draw_variance(fig, model.explained_variance_ratio_,
                       model.torus_explained_variance_ratio_)
    sphere, torus = ax.containers
    np.testing.assert_allclose([p.get_height() for p in sphere.patches],
                               100 * model.explained_variance_ratio_)
    np.testing.assert_allclose([p.get_height() for p in torus.patches],
                               100 * model.torus_explained_variance_ratio_)
    assert to_rgba(sphere.patches[0].get_facecolor()) == to_rgba(SPHERE_COLOR)
    assert to_rgba(torus.patches[0].get_facecolor()) == to_rgba(TORUS_COLOR)
    assert ax.get_ylim() == (0.0, 100.0)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["PNS1", "PNS2", "PNS3"]
    texts = {t.get_text() for t in ax.texts}
    assert f"{100 * model.explained_variance_ratio_[1]:.1f}" in texts
    assert f"{100 * model.torus_explained_variance_ratio_[0]:.1f}" in texts
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["sphere (PNS)", "torus"]
    pixels = render(fig, output_dir, "variance_clusters_t3.png")
    assert pixels_near(pixels, SPHERE_COLOR, tol=20) > 1000
    assert pixels_near(pixels, TORUS_COLOR, tol=20) > 1000


def test_variance_without_torus(output_dir):
    fig = new_figure(5.5, 3.8)
    ratio = np.array([0.62, 0.25, 0.08, 0.05])
    ax = draw_variance(fig, ratio, np.full(4, np.nan))
    assert len(ax.containers) == 1
    np.testing.assert_allclose([p.get_height() for p in ax.containers[0].patches],
                               100 * ratio)
    assert "not computed" in ax.get_title(loc="left")
    assert any("not computed" in t.get_text() for t in ax.get_legend().get_texts())
    render(fig, output_dir, "variance_no_torus.png")
    ax = draw_variance(fig, ratio)  # None behaves the same
    assert len(ax.containers) == 1
    with pytest.raises(ValueError, match="torus_ratio"):
        draw_variance(fig, ratio, [0.5, 0.5])


def test_variance_single_component(output_dir):
    fig = new_figure(4.5, 3.5)
    ax = draw_variance(fig, [1.0], [1.0])
    assert [p.get_height() for c in ax.containers for p in c.patches] == [100.0, 100.0]
    render(fig, output_dir, "variance_d1.png")


def test_variance_many_components(output_dir):
    d = 15
    ratio = np.geomspace(1, 0.01, d)
    ratio /= ratio.sum()
    fig = new_figure(8, 4)
    ax = draw_variance(fig, ratio, ratio[::-1])
    assert len(ax.containers) == 2
    render(fig, output_dir, "variance_15_components.png")


# ----------------------------------------------------------------- layering
def test_plotting_modules_do_not_use_pyplot():
    code = ("import sys\n"
            "import stpca_gui.plotting.scores, stpca_gui.plotting.histogram\n"
            "import stpca_gui.plotting.variance, stpca_gui.plotting.mpl_common\n"
            "print('matplotlib.pyplot' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_histogram_without_selection_has_no_selection_legend_or_count():
    values = np.random.default_rng(4).vonmises(0.0, 2.0, 400)
    shown = ScoreHistogram(new_figure())
    shown.draw(values, 2 * np.pi, bandwidth=0.3)
    static = ScoreHistogram(new_figure(), shows_selection=False)
    static.draw(values, 2 * np.pi, bandwidth=0.3)
    def labels(hist):
        return [t.get_text() for t in hist.axes.get_legend().get_texts()]

    def named(hist):
        return [label for label in labels(hist) if label.startswith("selection")]

    assert named(static) == [] and static.selection_label == ""
    # The app's histogram names the selection in its legend only while there is one.
    assert named(shown) == [] and shown.selection_label == ""
    shown.update_selection(values > 0)
    assert named(shown) == [shown.selection_label] == [
        f"selection (n = {np.sum(values > 0)}, {100 * np.mean(values > 0):.1f}%)"]
    assert len(labels(shown)) == 3  # one legend, not a second one
    shown.update_selection(None)
    assert named(shown) == [] and shown.selection_label == ""
    static.update_selection(values > 0)  # the bars still follow a selection if given one
    assert named(static) == [] and static.selection_label == ""


def test_many_groups_get_a_short_legend_inside_the_figure(output_dir):
    """Issue 31: a pooled structure table coloured by residue name gave a 19-entry legend
    that filled a third of the histogram and was clipped. The legend names the largest
    groups and sums up the others in one entry."""
    from stpca_gui.plotting.histogram import LEGEND_GROUPS_MAX

    rng = np.random.default_rng(4)
    sizes = np.arange(19, 0, -1) * 8  # 19 residue names, the first the most common
    codes = np.repeat(np.arange(19), sizes)
    pns1 = wrap_angles(rng.normal(0.0, 1.0, len(codes)) + 0.1 * codes)
    names = [f"RES{k}" for k in range(19)]
    for size in ((5.0, 3.2), (6.4, 4.0)):  # about a quarter of 1280 × 800 and 1600 × 1000
        fig = new_figure(*size)
        hist = ScoreHistogram(fig)
        hist.draw(pns1, 2 * np.pi, group_codes=codes, group_names=names,
                  title="PNS1 by residue name")
        labels = [t.get_text() for t in hist.axes.get_legend().get_texts()]
        assert len(labels) == LEGEND_GROUPS_MAX + 1  # the groups shown, "other", the KDE
        assert labels[:LEGEND_GROUPS_MAX - 1] == [
            f"RES{k} (n = {sizes[k]})" for k in range(LEGEND_GROUPS_MAX - 1)]
        others = sizes[LEGEND_GROUPS_MAX - 1:]
        assert labels[LEGEND_GROUPS_MAX - 1] == (f"{len(others)} other groups "
                                                 f"(n = {others.sum()})")
        # The other groups' bars are one series in the style of their legend entry, not
        # eight colours the legend does not explain.
        bars = hist.axes.containers[:-1]  # the last: the selection
        assert len(bars) == LEGEND_GROUPS_MAX
        pooled = bars[-1].patches
        entry = hist.axes.get_legend().legend_handles[LEGEND_GROUPS_MAX - 1]
        assert {p.get_hatch() for p in pooled} == {entry.get_hatch()} == {"///"}
        assert to_rgba(pooled[0].get_facecolor()) == to_rgba(entry.get_facecolor())
        width = hist.edges[1] - hist.edges[0]
        assert sum(p.get_height() for p in pooled) * width * len(codes) == pytest.approx(
            others.sum())
        render(fig, output_dir, f"histogram_many_groups_{int(size[0] * 100)}.png")
        box = hist.axes.get_legend().get_window_extent()
        figure_box = fig.bbox
        assert box.x0 >= figure_box.x0 and box.x1 <= figure_box.x1  # not clipped
        assert box.y0 >= figure_box.y0 and box.y1 <= figure_box.y1


@pytest.mark.parametrize("size", [(2.9, 1.9), (3.7, 2.5)], ids=["1280x800", "1600x1000"])
def test_the_shepard_key_covers_no_pairs(output_dir, size):
    """Issue 31: the Shepard plot's legend (lower right) overlapped the pairs drawn closer
    on the sphere. The key is a boxed text at the top left, over almost no pairs, and
    nothing leaves the panel's figure (about its size in the window at each size)."""
    from stpca_gui.core.diagnostics import fit_diagnostics
    from stpca_gui.plotting.diagnostics import draw_diagnostics

    model = ScaledTorusPCA(random_state=0, torus_variance=False).fit(
        make_demo("clusters-t2", random_state=0).angles)
    diagnostics = fit_diagnostics(model)
    fig = Figure(figsize=size, dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    ax = draw_diagnostics(fig, diagnostics, "shepard")
    render(fig, output_dir, f"shepard_{int(size[0] * 100)}.png")
    assert ax.get_legend() is None
    renderer = fig.canvas.get_renderer()
    key = next(t for t in ax.texts if "no distortion" in t.get_text())
    box = key.get_bbox_patch().get_window_extent(renderer)
    points = ax.transData.transform(np.column_stack([diagnostics.shepard.torus_distance,
                                                     diagnostics.shepard.sphere_distance]))
    covered = ((points[:, 0] >= box.x0) & (points[:, 0] <= box.x1)
               & (points[:, 1] >= box.y0) & (points[:, 1] <= box.y1))
    assert covered.mean() < 0.02
    for artist in (ax.title, ax.xaxis.label, ax.yaxis.label, key):
        extent = artist.get_window_extent(renderer)
        assert extent.x0 >= 0 and extent.x1 <= fig.bbox.x1 + 1, artist
        assert extent.y0 >= 0 and extent.y1 <= fig.bbox.y1 + 1, artist


@pytest.mark.parametrize("width", [3.2, 4.0, 6.0])
def test_the_cluster_note_stays_inside_a_narrow_histogram(width, output_dir):
    # At 1280 × 800 the note "3 clusters — 3 modes (α = 0.05; k=1: p=…, k=2: p≤0.0…" ran
    # past the figure's right edge: it wraps at the edge whatever the panel's width.
    from stpca_gui.core.circstats import periodic_mode_clusters

    rng = np.random.default_rng(2)
    values = np.concatenate([rng.normal(c, 0.2, 100) for c in (-2.0, 0.0, 1.8)])
    clusters = periodic_mode_clusters(values, 2 * np.pi, n_boot=99)
    assert clusters.n_clusters == 3
    fig = new_figure(width, 3.2)
    hist = ScoreHistogram(fig)
    hist.draw(values, 2 * np.pi, group_codes=clusters.labels, bins=40)
    hist.show_mode_clusters(clusters, paper=clusters)
    render(fig, output_dir, f"histogram_cluster_note_{width:g}in.png")
    renderer = fig.canvas.get_renderer()
    note = hist.axes._left_title  # the title at loc="left"
    box = note.get_window_extent(renderer)
    assert "3 clusters" in hist.cluster_note
    assert fig.bbox.x0 - 1 <= box.x0 and box.x1 <= fig.bbox.x1 + 1, (box, fig.bbox)
    assert box.y1 <= fig.bbox.y1 + 1


@pytest.mark.parametrize("width", [4.8, 5.6], ids=["1280x800", "1600x1000"])
def test_nothing_shows_through_the_legend_and_the_selection_size_clears_the_note(
        width, output_dir):
    """At 1280 × 800 the dashed antimode lines and the density curve were drawn over the
    legend's box, and the selection's size ("18 of 98 selected (18.4%)", right-aligned
    above the axes) was written over the end of the cluster note. The legend is drawn on
    top of everything and names the selection's size, like the groups' entries."""
    from stpca_gui.core.circstats import periodic_mode_clusters

    rng = np.random.default_rng(2)
    values = np.concatenate([rng.normal(c, 0.2, 100) for c in (-2.0, 0.0, 1.8)])
    clusters = periodic_mode_clusters(values, 2 * np.pi, n_boot=99)
    fig = new_figure(width, 3.4)
    hist = ScoreHistogram(fig)
    hist.draw(values, 2 * np.pi, bins=40)
    hist.show_mode_clusters(clusters, paper=clusters)
    selected = clusters.labels == clusters.labels[0]
    hist.update_selection(selected)
    render(fig, output_dir, f"histogram_legend_on_top_{width:g}in.png")
    ax = hist.axes
    legend = ax.get_legend()
    others = [a for a in ax.get_children() if a is not legend]
    assert legend.get_zorder() > max(a.get_zorder() for a in others)
    count = int(selected.sum())
    assert legend.get_texts()[-1].get_text() == (
        f"selection (n = {count}, {100 * count / values.size:.1f}%)")
    renderer = fig.canvas.get_renderer()
    note = ax._left_title.get_window_extent(renderer)
    for text in (*ax.texts, *fig.texts, ax.title, ax._right_title):
        if text.get_visible() and text.get_text():
            assert not note.overlaps(text.get_window_extent(renderer)), text.get_text()
