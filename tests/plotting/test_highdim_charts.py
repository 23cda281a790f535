"""The variance chart and the angles chart at d = 66 and 426 (issue 32): the first
components and a "rest" group, readable ticks; the largest shares named."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from stpca_gui.plotting.contributions import component_measure, draw_contributions
from stpca_gui.plotting.text import MAX_NAME_LABEL, one_line
from stpca_gui.plotting.variance import SHOWN_COMPONENTS, draw_variance, first_components


def ratios(d: int, computed: int = 10) -> tuple[np.ndarray, np.ndarray, float]:
    """Decreasing sphere ratios, torus ratios of the first ``computed`` components and the
    remaining torus share, each summing to 1."""
    sphere = 0.7 ** np.arange(d) + 0.01
    sphere /= sphere.sum()
    torus = np.full(d, np.nan)
    torus[:computed] = 0.95 * sphere[:computed]
    return sphere, torus, 1.0 - np.nansum(torus)


def test_first_components_keep_the_totals():
    sphere, torus, remaining = ratios(66)
    shown_sphere, shown_torus, label = first_components(sphere, torus, remaining)
    assert label == "11–66" and shown_sphere.size == SHOWN_COMPONENTS + 1
    assert shown_sphere.sum() == pytest.approx(1.0) and shown_torus.sum() == pytest.approx(1.0)
    assert shown_torus[-1] == pytest.approx(remaining)
    # Torus variance of 4 components only: 4 shown, the rest from the 5th on.
    sphere, torus, remaining = ratios(66, computed=4)
    shown_sphere, shown_torus, label = first_components(sphere, torus, remaining)
    assert label == "5–66" and shown_sphere.size == 5
    assert shown_torus.sum() == pytest.approx(1.0)
    # Few components: unchanged.
    sphere, torus, _ = ratios(3, computed=3)
    same_sphere, same_torus, label = first_components(sphere, torus, 0.0)
    assert label is None and np.array_equal(same_sphere, sphere)
    assert np.array_equal(same_torus, torus)


@pytest.mark.parametrize("d", [66, 426])
@pytest.mark.parametrize("width", [2.9, 5.0], ids=lambda w: f"{w}in")
def test_variance_chart_at_high_d_reads(d, width, output_dir):
    figure = Figure(figsize=(width, 1.9), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    sphere, torus, remaining = ratios(d)
    ax = draw_variance(figure, sphere, torus, title="", torus_remaining=remaining)
    figure.canvas.draw()
    figure.savefig(output_dir / f"variance-d{d}-{width}in.png")
    ticks = [t for t in ax.get_xticklabels() if t.get_text()]
    shown = len(ticks) - 1
    assert [t.get_text() for t in ticks][-1] == "rest" and 5 <= shown <= SHOWN_COMPONENTS
    renderer = figure.canvas.get_renderer()
    for texts in (ticks, [t for t in ax.texts if t.get_text()]):  # ticks, value labels
        boxes = [t.get_window_extent(renderer) for t in texts]
        for a, b in itertools.combinations(boxes, 2):
            assert not (a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1), \
                "labels overlap"
    label = ax.xaxis.label
    assert f"{shown + 1}–{d}" in label.get_text()
    box, page = label.get_window_extent(renderer), figure.bbox
    assert page.x0 - 1 <= box.x0 and box.x1 <= page.x1 + 1, "the axis label is clipped"
    torus_bars = ax.containers[1]
    assert torus_bars.patches[-1].get_height() == pytest.approx(
        100 * (remaining + np.nansum(torus[shown:])))
    assert torus_bars.patches[-1].get_hatch()


def test_angles_chart_names_the_largest_shares(output_dir):
    d = 66
    shares = np.full((2, d), 0.2 / (d - 3))
    shares[0, [5, 9, 10]] = [0.3, 0.26, 0.25]
    shares[0] /= shares[0].sum()
    names = [f"RES{k // 2 + 7} {'φψ'[k % 2]}" for k in range(d)]
    measure = component_measure(shares, None, 0)
    figure = Figure(figsize=(3.0, 2.4), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    ax, columns = draw_contributions(figure, measure, names, shown=(9,))
    figure.savefig(output_dir / "angles-d66.png")
    assert columns[:3] == [5, 9, 10]
    by_height = sorted(ax.get_yticklabels(), key=lambda t: -t.get_position()[1])
    assert [t.get_text() for t in by_height[:3]] == [names[5], names[9], names[10]]
    assert [p.get_gid() for p in ax.patches][:3] == ["5", "9", "10"]
    assert "PNS1" in ax.get_xlabel() and "torus variance" in ax.get_xlabel()
    # Without torus variance: PNS1's curve ranges, in degrees; other components: nothing.
    ranges = np.radians(np.arange(d, dtype=float))
    curve = component_measure(None, ranges, 0)
    assert curve.kind == "curve range" and curve.values[-1] == pytest.approx(d - 1)
    assert component_measure(None, ranges, 1) is None


@pytest.mark.parametrize("width", [2.6, 2.9], ids=lambda w: f"{w}in")
def test_ten_components_or_fewer_are_not_grouped_when_they_fit(width):
    figure = Figure(figsize=(width, 1.9), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    sphere, torus, _ = ratios(7, computed=7)
    ax = draw_variance(figure, sphere, torus, title="")
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"PNS{k}" for k in range(1, 8)] \
        or [t.get_text() for t in ax.get_xticklabels()] == [str(k) for k in range(1, 8)]


def test_angles_chart_cuts_very_long_names_and_keeps_its_bars(recwarn):
    """10,000-character column names (untrusted tables) left the bars no room: the layout
    collapsed ('axes sizes collapsed to zero') and the names showed only their last letters."""
    names = [f"{k}" + " long name" * 1000 for k in range(3)]
    measure = component_measure(np.array([[0.5, 0.3, 0.2]]), None, 0)
    figure = Figure(figsize=(3.0, 1.6), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    ax, columns = draw_contributions(figure, measure, names)
    figure.canvas.draw()
    texts = [t.get_text() for t in ax.get_yticklabels()]
    assert texts == [one_line(names[k], MAX_NAME_LABEL) for k in columns]
    assert all(len(text) == MAX_NAME_LABEL and text.endswith("…") for text in texts)
    assert ax.get_position().width > 0.3  # the bars keep a real share of the figure
    assert not [w for w in recwarn if "collapsed" in str(w.message)]
