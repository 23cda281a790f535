"""Fast selection updates of the matplotlib figures draw exactly what a full render draws.

Partial redraws (:mod:`stpca_gui.plotting.partial_redraw`) repaint only the layers a new
selection changes over a snapshot of the rest; colour-grouped collections
(:mod:`stpca_gui.plotting.marker_collection`) stamp one marker per colour. Both are speed
tricks, so these tests compare their pictures with the ordinary ones.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgba_array
from matplotlib.figure import Figure

from stpca_gui.model.dataset import encode_labels
from stpca_gui.plotting.colors import (
    CYCLIC_LEVELS,
    PALETTE,
    cyclic_colors,
    point_colors,
)
from stpca_gui.plotting.histogram import ScoreHistogram
from stpca_gui.plotting.marker_collection import MAX_GROUPS, color_groups, grouped_scatter
from stpca_gui.plotting.partial_redraw import PartialRedraw
from stpca_gui.plotting.scores import ScoresScatter


def agg_figure(width: float = 5.0, height: float = 4.0, dpi: int = 100) -> Figure:
    fig = Figure(figsize=(width, height), dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def pixels(fig: Figure) -> np.ndarray:
    return np.asarray(fig.canvas.buffer_rgba()).copy()


def full_render(fig: Figure) -> np.ndarray:
    fig.canvas.draw()
    return pixels(fig)


@pytest.fixture(scope="module")
def three_clusters():
    rng = np.random.default_rng(7)
    labels = np.repeat([0, 1, 2], 400)
    scores = np.column_stack([rng.normal(labels * 2.0 - 2.0, 0.3), rng.normal(0, 0.2, 1200),
                              rng.normal(0, 0.1, 1200)])
    return scores, labels


def selections(labels: np.ndarray) -> list[np.ndarray]:
    return [labels == 1, labels != 0, np.zeros(labels.size, dtype=bool), labels == 2]


@pytest.mark.parametrize("mode", ["label", "pns1"])
def test_partial_redraw_of_the_scores_equals_a_full_render(three_clusters, mode):
    scores, labels = three_clusters
    n = labels.size

    def colors(mask):
        return point_colors(mode, n=n, labels=labels, pns1=scores[:, 0],
                            groups=mask.astype(int))

    fig = agg_figure()
    scatter = ScoresScatter(fig)
    first = labels == 0
    scatter.draw(scores, colors=colors(first), selected=first, period=2 * np.pi)
    assert not scatter.partial_redraw.ready  # nothing rendered yet: no snapshot
    fig.canvas.draw()
    assert scatter.partial_redraw.ready
    for mask in selections(labels):
        scatter.update_colors(colors(mask), mask)
        assert scatter.partial_redraw.redraw()
        fast = pixels(fig)
        np.testing.assert_array_equal(fast, full_render(fig))
    # The picture did change between selections (the test is not comparing blanks).
    scatter.update_colors(colors(first), first)
    scatter.partial_redraw.redraw()
    assert np.mean(np.any(pixels(fig) != fast, axis=-1)) > 0.005


def test_partial_redraw_of_the_histogram_equals_a_full_render(three_clusters):
    scores, labels = three_clusters
    fig = agg_figure()
    hist = ScoreHistogram(fig)
    hist.draw(scores[:, 0], 2 * np.pi, group_codes=encode_labels(labels)[0],
              selected=labels == 0, bandwidth=0.1)
    hist.set_antimodes([-1.0, 1.0])
    fig.canvas.draw()
    for mask in selections(labels):
        # The legend, which names the selection's size, is redrawn with it on top.
        hist.update_selection(mask)
        assert hist.partial_redraw.redraw()
        np.testing.assert_array_equal(pixels(fig), full_render(fig))


def test_partial_redraw_falls_back_to_a_full_render_when_the_snapshot_is_stale():
    fig = agg_figure()
    ax = fig.add_subplot()
    (line,) = ax.plot([0, 1], [0, 1], zorder=3)
    fig.suptitle("drawn by the figure after the axes")
    partial = PartialRedraw(ax, 2.0)
    assert not partial.redraw()  # never rendered
    fig.canvas.draw()
    assert partial.redraw()
    fig.set_size_inches(6.0, 4.0)  # a resize: the snapshot has the old size
    assert not partial.ready
    fig.canvas.draw()
    assert partial.ready
    # Saving at another resolution neither replaces nor spoils the screen snapshot.
    fig.savefig(io.BytesIO(), format="png", dpi=37)
    line.set_ydata([1, 0])
    assert partial.redraw()
    np.testing.assert_array_equal(pixels(fig), full_render(fig))
    partial.invalidate()
    assert not partial.ready


def test_the_snapshot_marker_changes_neither_layout_nor_exports():
    def build(with_marker: bool) -> Figure:
        fig = agg_figure()
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 2], zorder=3)
        ax.set_xlabel("x")
        if with_marker:
            PartialRedraw(ax, 2.0)
        return fig

    plain, marked = build(False), build(True)
    renderer = plain.canvas.get_renderer()
    assert (plain.get_tightbbox(renderer).bounds
            == pytest.approx(marked.get_tightbbox(marked.canvas.get_renderer()).bounds))
    np.testing.assert_array_equal(full_render(plain), full_render(marked))
    for fmt in ("svg", "pdf"):
        out = io.BytesIO()
        marked.savefig(out, format=fmt)
        assert out.tell() > 1000


def test_grouped_markers_draw_what_a_scatter_draws(three_clusters):
    scores, labels = three_clusters
    colors = point_colors("label", n=labels.size, labels=labels)
    images = []
    for grouped in (False, True):
        fig = agg_figure()
        ax = fig.add_subplot()
        if grouped:
            grouped_scatter(ax, scores[:, 0], scores[:, 1], size=12.0, colors=colors,
                            linewidths=0)
        else:
            ax.scatter(scores[:, 0], scores[:, 1], s=12.0, c=colors, linewidths=0)
        images.append(full_render(fig)[..., :3].astype(int))
    plain, grouped = images
    # Stamped markers sit on whole pixels: edges may move by a pixel, nothing more. Seen
    # at 8 × 8 pixels (the scale at which the eye compares point clouds) they agree.
    differs = np.any(np.abs(plain - grouped) > 60, axis=-1)
    assert differs.mean() < 0.05
    h, w = (s // 8 * 8 for s in plain.shape[:2])

    def blocks(img):
        return img[:h, :w].reshape(h // 8, 8, w // 8, 8, 3).mean(axis=(1, 3))

    assert np.abs(blocks(plain) - blocks(grouped)).max() < 40
    for colour in to_rgba_array(PALETTE[:3])[:, :3] * 255:
        near_plain = np.all(np.abs(plain - colour) < 20, axis=-1).sum()
        near_grouped = np.all(np.abs(grouped - colour) < 20, axis=-1).sum()
        assert near_plain > 100
        assert near_grouped == pytest.approx(near_plain, rel=0.25)


def test_grouped_markers_stamp_once_per_colour(monkeypatch):
    rng = np.random.default_rng(0)
    xy = rng.normal(size=(3000, 2))
    few = to_rgba_array(PALETTE[:3])[rng.integers(0, 3, 3000)]
    fig = agg_figure()
    points = grouped_scatter(fig.add_subplot(), xy[:, 0], xy[:, 1], size=9.0, colors=few)
    # The Agg renderer binds its drawing methods per instance.
    renderer = fig.canvas.get_renderer()
    calls: list[int] = []
    original = renderer.draw_markers

    def counting(gc, marker_path, marker_trans, path, *args, **kwargs):
        calls.append(len(path.vertices))
        return original(gc, marker_path, marker_trans, path, *args, **kwargs)

    monkeypatch.setattr(renderer, "draw_markers", counting)
    fig.canvas.draw()
    # One call per colour, each with all the points of that colour.
    # (Tick marks are markers too, one per call.)
    expected = np.unique(few, axis=0, return_counts=True)[1]
    assert sorted(c for c in calls if c > 1) == sorted(expected.tolist())
    # More distinct colours than MAX_GROUPS: drawn path by path, as matplotlib does.
    calls.clear()
    many = np.column_stack([rng.uniform(size=(3000, 3)), np.ones(3000)])
    points.set_facecolor(many)
    fig.canvas.draw()
    assert len(np.unique(np.round(many * 255), axis=0)) > MAX_GROUPS
    assert [c for c in calls if c > 1] == []


def test_color_groups_partition_the_points():
    rng = np.random.default_rng(3)
    palette = to_rgba_array(PALETTE[:4])
    codes = rng.integers(0, 4, 500)
    colours, members = color_groups(palette[codes])
    assert len(colours) == len(members) == len(np.unique(codes))
    np.testing.assert_array_equal(np.sort(np.concatenate(members)), np.arange(500))
    for colour, index in zip(colours, members, strict=True):
        np.testing.assert_array_equal(palette[codes[index]], np.tile(colour, (len(index), 1)))
    # Groups come in order of first appearance.
    firsts = [index.min() for index in members]
    assert firsts == sorted(firsts)


def test_cyclic_colours_use_a_fixed_number_of_levels_and_wrap():
    angles = np.linspace(-np.pi, np.pi, 5001)
    rgba = cyclic_colors(angles)
    assert 0.9 * CYCLIC_LEVELS <= len(np.unique(rgba, axis=0)) <= CYCLIC_LEVELS
    np.testing.assert_allclose(rgba[0], rgba[-1])  # −π and π are the same angle
