"""Drawing many points: the 3-D views' display subset, the density scatter, subset colours.

The thresholds are monkeypatched down, so that small data sets exercise the large-n paths.
"""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.path import Path

from stpca_gui.core.circstats.kde import circular_kde
from stpca_gui.plotting import scores as scores_module
from stpca_gui.plotting.colors import (
    PointColoring,
    SampleColors,
    cyclic_colors,
    label_colors,
    point_colors,
)
from stpca_gui.plotting.density_image import DensityGrid
from stpca_gui.plotting.display_subset import DISPLAY_SEED, DisplaySubset, display_rank
from stpca_gui.plotting.histogram import ScoreHistogram
from stpca_gui.plotting.scores import ScoresScatter


# ------------------------------------------------------------------ display subset
def test_subset_is_the_lowest_ranks_of_a_fixed_permutation():
    subset = DisplaySubset(1000, cap=100)
    again = DisplaySubset(1000, cap=100)
    order = np.random.default_rng(DISPLAY_SEED).permutation(1000)
    np.testing.assert_array_equal(subset.base, order[:100])
    np.testing.assert_array_equal(subset.base, again.base)
    np.testing.assert_array_equal(display_rank(1000)[order], np.arange(1000))
    nothing = np.zeros(1000, dtype=bool)
    np.testing.assert_array_equal(subset.drawn(nothing), np.sort(order[:100]))
    assert subset.label() == "showing 100 of 1,000 points"
    assert DisplaySubset(100, cap=100).label() == ""


@pytest.mark.parametrize("n_selected", [1, 37, 100, 450])
def test_subset_holds_the_selection_up_to_the_cap(n_selected):
    n, cap = 1000, 100
    rng = np.random.default_rng(n_selected)
    selected = np.zeros(n, dtype=bool)
    selected[rng.choice(n, n_selected, replace=False)] = True
    subset = DisplaySubset(n, cap)
    drawn = subset.drawn(selected)
    assert drawn.size == cap and np.unique(drawn).size == cap
    rank = display_rank(n)
    chosen = np.flatnonzero(selected)
    if n_selected <= cap:
        assert np.isin(chosen, drawn).all()  # every selected point is drawn
        others = np.setdiff1d(drawn, chosen)
        unselected = np.flatnonzero(~selected)
        best = unselected[np.argsort(rank[unselected])[:cap - n_selected]]
        np.testing.assert_array_equal(np.sort(others), np.sort(best))
    else:
        expected = chosen[np.argsort(rank[chosen])[:cap]]
        np.testing.assert_array_equal(drawn, np.sort(expected))
    chosen_drawn, positions = subset.split(selected)
    assert not selected[subset.base[positions]].any()
    assert chosen_drawn.size + positions.size == cap


def test_point_layer_draws_the_subset_and_says_so(display):
    import pyvista as pv

    from stpca_gui.plotting.torus_scene import TorusScene

    rng = np.random.default_rng(0)
    angles = rng.uniform(-np.pi, np.pi, (400, 3))
    plotter = pv.Plotter(off_screen=True, window_size=(300, 300))
    try:
        scene = TorusScene(plotter)
        scene.max_points = 150
        labels = rng.integers(0, 3, 400)
        scene.draw(angles, colors=label_colors(labels))
        layer = scene.point_layer
        assert layer.cloud.n_points == 150 and layer.n_drawn == 150
        assert scene.subset_note == "showing 150 of 400 points"
        note = plotter.renderer.actors["torus-subset-note"]
        assert "showing 150 of 400 points" in [note.GetText(k) for k in range(4)]
        selected = np.zeros(400, dtype=bool)
        selected[rng.choice(400, 60, replace=False)] = True
        groups = selected.astype(np.int8)
        scene.update_colors(SampleColors(PointColoring("label", n=400, labels=labels),
                                         groups), selected)
        np.testing.assert_array_equal(np.sort(layer.overlay_indices), np.flatnonzero(selected))
        assert layer.overlay.n_points == 60
        shown = layer.shown_in_cloud()
        assert shown.sum() == 90 and not (shown & selected).any()
        # The overlay's colours are the selected points' own (label) colours.
        expected = (np.rint(label_colors(labels)[layer.overlay_indices, :3] * 255))
        np.testing.assert_array_equal(layer.overlay.point_data["rgba"][:, :3], expected)
        plotter.render()
        image = plotter.screenshot(return_img=True)
        assert len(np.unique(image.reshape(-1, 3), axis=0)) > 20  # drawn, not blank
    finally:
        plotter.close()


# ------------------------------------------------------------------ colours
def test_point_coloring_gives_the_colours_of_any_subset():
    rng = np.random.default_rng(1)
    n = 500
    pns1 = rng.uniform(-3, 3, n)
    labels = rng.choice(["a", "b", "c"], n)
    groups = np.zeros(n, dtype=np.int8)
    groups[:40] = 2
    index = rng.choice(n, 70, replace=False)
    for mode, kwargs, base in [("pns1", {"pns1": pns1}, cyclic_colors(pns1)),
                               ("label", {"labels": labels}, label_colors(labels))]:
        full = point_colors(mode, n=n, groups=groups, **kwargs)
        np.testing.assert_allclose(full[:, :3], base[:, :3])
        assert np.all(full[40:, 3] < 1) and np.all(full[:40, 3] == 1)  # others dimmed
        coloring = PointColoring(mode, n=n, **kwargs)
        np.testing.assert_array_equal(coloring.colors(groups, index), full[index])
        np.testing.assert_array_equal(np.asarray(SampleColors(coloring, groups)), full)


# ------------------------------------------------------------------ density scatter
def _agg_figure() -> Figure:
    figure = Figure(figsize=(5, 4), dpi=80)
    FigureCanvasAgg(figure)
    return figure


def test_density_grid_counts_and_mean_colours():
    x = np.array([0.05, 0.06, 0.95, 0.5])
    y = np.array([0.05, 0.04, 0.95, 0.5])
    grid = DensityGrid(x, y, (0.0, 1.0), (0.0, 1.0), bins=(10, 10))
    counts = grid.counts()
    assert counts.sum() == 4 and counts[0, 0] == 2 and counts[9, 9] == 1
    rgb = np.array([[1.0, 0, 0], [0, 0, 1.0], [0, 1.0, 0], [1.0, 1.0, 1.0]])
    image, cells = grid.image(rgb, opacity=(0.5, 1.0))
    np.testing.assert_allclose(image[0, 0], [0.5, 0.0, 0.5, 1.0])  # mean colour, fullest
    assert image[9, 9, 3] == pytest.approx(0.5 + 0.5 * np.log(2) / np.log(3))
    assert image[3, 3, 3] == 0.0 and cells.sum() == 4


def test_scatter_switches_to_density_past_the_threshold(monkeypatch):
    monkeypatch.setattr(scores_module, "DENSITY_ABOVE", 300)
    monkeypatch.setattr(scores_module, "OUTLINE_UP_TO", 500)
    rng = np.random.default_rng(2)
    small = ScoresScatter(_agg_figure())
    small.draw(rng.normal(size=(300, 2)))
    assert not small.density and small.points is not None
    n = 2000
    values = rng.normal(size=(n, 2))
    colors = SampleColors(PointColoring("label", n=n, labels=rng.choice(["a", "b"], n)), None)
    plot = ScoresScatter(_agg_figure())
    plot.draw(values, colors=colors)
    assert plot.density and plot.points is None and plot.base_image is not None
    assert not plot._veil.get_visible() and plot.n_highlighted == 0
    plot.figure.canvas.draw()
    # A selection: its own image counts every selected sample; few get markers as well.
    selected = values[:, 0] > 1.0
    groups = selected.astype(np.int8)
    plot.update_colors(SampleColors(colors.coloring, groups), groups)
    assert plot.n_highlighted == selected.sum()
    assert plot._veil.get_visible()
    assert len(plot.overlay.get_offsets()) == selected.sum()
    assert plot.partial_redraw.redraw()  # the static image is not redrawn
    many = values[:, 0] > -1.5  # more than OUTLINE_UP_TO: the image alone
    plot.update_colors(SampleColors(colors.coloring, many.astype(np.int8)), many)
    assert plot.n_highlighted == many.sum() > scores_module.OUTLINE_UP_TO
    assert len(plot.overlay.get_offsets()) == 0
    image = plot.selection_image.get_array()
    assert image[..., 3].max() > 0.7
    # (Computed as everyone minus the others: the same image as from the selected alone.)
    chosen = np.flatnonzero(many)
    direct, _ = plot._grid.image(colors.coloring.colors(None, chosen), chosen,
                                 opacity=(0.75, 1.0))
    np.testing.assert_allclose(image, direct, atol=1e-9)


def test_lasso_tests_every_point():
    rng = np.random.default_rng(3)
    values = rng.normal(size=(5000, 2))
    plot = ScoresScatter(_agg_figure())
    plot.draw(values)
    polygon = np.array([[-1.0, -1.0], [1.5, -0.5], [0.5, 1.5], [-0.5, 0.2]])
    expected = Path(polygon).contains_points(values)
    assert expected.sum() > 100
    np.testing.assert_array_equal(plot.points_in_polygon(polygon), expected)


def test_histogram_selection_bars_count_all_selected_samples():
    rng = np.random.default_rng(4)
    period = 2 * np.pi * 0.8
    values = rng.uniform(-0.5 * period, 0.5 * period, 3000)
    hist = ScoreHistogram(_agg_figure())
    hist.draw(values, period, bandwidth=0.3)
    mask = hist.range_mask(-1.0, 0.7)
    hist.update_selection(mask)
    counts, _ = np.histogram(hist.values[mask], bins=hist.edges)
    width = hist.edges[1] - hist.edges[0]
    heights = np.array([p.get_height() for p in hist.selection_bars.patches])
    np.testing.assert_allclose(heights * values.size * width, counts)
    assert hist.selection_label.startswith(f"selection (n = {mask.sum():,}, ")
    # More than half selected: the selection's curve is the whole minus the others'.
    for lo, hi in [(-1.0, 0.7), (-2.4, 1.9)]:
        mask = hist.range_mask(lo, hi)
        hist.update_selection(mask)
        direct = mask.mean() * circular_kde(hist.values[mask], hist.selection_line.get_xdata(),
                                            0.3, period, method="binned")
        np.testing.assert_allclose(hist.selection_line.get_ydata(), direct,
                                   atol=1e-9 * direct.max())
    assert 2 * mask.sum() > mask.size
