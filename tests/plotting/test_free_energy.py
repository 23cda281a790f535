"""The free-energy landscape: values at known points, blank empty cells, periodic PNS1,
weights (reweighting two equal basins 3:1 gives ΔF = kT ln 3) and selection by region."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from stpca_gui.model import Dataset
from stpca_gui.model.frame_weights import check_weights, frame_weights, weight_columns
from stpca_gui.plotting.free_energy import (
    BOLTZMANN,
    FreeEnergyLandscape,
    bin_edges,
    free_energy,
    free_energy_grid,
)


def two_basins(n_each: int = 500, seed: int = 0) -> np.ndarray:
    """Equal basins around (−1.5, 0) and (1.5, 0), each inside its own cell of a 4 × 1 grid
    on [−2, 2] × [−0.5, 0.5]."""
    rng = np.random.default_rng(seed)
    left = np.column_stack([rng.uniform(-1.9, -1.1, n_each), rng.uniform(-0.4, 0.4, n_each)])
    right = np.column_stack([rng.uniform(1.1, 1.9, n_each), rng.uniform(-0.4, 0.4, n_each)])
    # The corners fix the grid's range; the frame at (0.5, 0) has weight 0 below.
    corners = np.array([[-2.0, -0.5], [2.0, 0.5], [0.5, 0.0]])
    return np.vstack([left, right, corners])


def test_reweighting_two_equal_basins_three_to_one_gives_kt_ln3():
    points = two_basins()
    n = len(points)
    weights = np.where(points[:, 0] < 0, 3.0, 1.0)
    weights[-3:] = 0.0  # the corners only fix the range
    plain = free_energy_grid(points[:, 0], points[:, 1], bins=(4, 1),
                             weights=np.r_[np.ones(n - 3), 0.0, 0.0, 0.0])
    assert plain.value_at(-1.5, 0) == pytest.approx(0.0)
    assert plain.value_at(1.5, 0) == pytest.approx(0.0)
    grid = free_energy_grid(points[:, 0], points[:, 1], bins=(4, 1), weights=weights)
    assert grid.value_at(-1.5, 0) == pytest.approx(0.0)  # the minimum is 0
    assert grid.value_at(1.5, 0) == pytest.approx(np.log(3.0))
    kj = free_energy_grid(points[:, 0], points[:, 1], bins=(4, 1), weights=weights,
                          unit="kJ/mol", temperature=300.0)
    assert kj.value_at(1.5, 0) == pytest.approx(BOLTZMANN["kJ/mol"] * 300.0 * np.log(3.0))
    assert kj.value_at(1.5, 0) == pytest.approx(2.740, abs=1e-3)  # RT ln 3 at 300 K
    # Cells holding no frame, or only frames of weight 0, are blank.
    assert np.isnan(grid.value_at(-0.5, 0.0)) and np.isnan(grid.value_at(0.5, 0.0))


def test_counts_give_minus_ln_p_and_empty_cells_are_blank():
    # 8, 4, 2 frames and an empty cell in a row of 4 cells: F = ln(8/k).
    x = np.r_[np.full(8, 0.5), np.full(4, 1.5), np.full(2, 2.5), 0.0, 4.0]
    y = np.zeros_like(x)
    grid = free_energy_grid(x, y, bins=(4, 1))
    values = grid.energy[0]
    assert values[0] == pytest.approx(np.log(9 / 9))  # 8 + the frame at 0 = 9
    assert values[1] == pytest.approx(np.log(9 / 4))
    assert values[2] == pytest.approx(np.log(9 / 2))
    assert values[3] == pytest.approx(np.log(9 / 1))  # the frame at 4 (right edge)
    x2 = np.r_[np.full(5, 0.5), 3.5]
    grid2 = free_energy_grid(x2, np.zeros(6), bins=(4, 1))
    assert np.isnan(grid2.energy[0, 1]) and np.isnan(grid2.energy[0, 2])
    assert np.nanmin(grid2.energy) == 0.0


def test_pns1_bins_tile_one_period_and_wrap():
    period = 2 * np.pi
    edges, rule = bin_edges(np.array([0.1, 0.2]), 8, period)
    assert edges[0] == pytest.approx(-np.pi) and edges[-1] == pytest.approx(np.pi)
    assert rule == "set"
    # +π is the same angle as −π: it falls into the first bin, with the frames at −π.
    x = np.array([-np.pi, -np.pi + 0.01, np.pi])
    grid = free_energy_grid(x, np.zeros(3), bins=(8, 1), x_period=period)
    assert grid.value_at(-np.pi + 0.1, 0.0) == 0.0
    assert np.isnan(grid.energy[0, 1:]).all()


def test_three_separated_states_get_three_basins_not_one():
    """Freedman–Diaconis alone gave the clusters-t3 demo's PNS1 (three states, 300 frames)
    6 bins over the period, one basin; Sturges' narrower width separates them."""
    rng = np.random.default_rng(0)
    pns1 = np.concatenate([rng.normal(c, 0.15, 100) for c in (-1.8, 0.0, 1.8)])
    edges, rule = bin_edges(pns1, period=2 * np.pi)
    assert rule == "Sturges"
    assert len(edges) - 1 == int(np.ceil(2 * np.pi / (np.ptp(pns1) / (np.log2(300) + 1))))

    def basins(edges):  # runs of occupied bins
        occupied = np.flatnonzero(np.histogram(pns1, edges)[0])
        return len(np.split(occupied, np.flatnonzero(np.diff(occupied) > 1) + 1))

    assert basins(edges) == 3  # the bins between the states are empty (blank cells)
    iqr = np.subtract(*np.percentile(pns1, [75, 25]))
    old = int(np.ceil(2 * np.pi / (2 * iqr * 300 ** (-1 / 3))))
    assert basins(np.linspace(-np.pi, np.pi, old + 1)) < 3  # Freedman–Diaconis alone


def test_freedman_diaconis_by_default_and_stated_on_the_figure():
    rng = np.random.default_rng(1)
    scores = rng.normal(size=(4000, 3))
    edges, rule = bin_edges(scores[:, 1])
    iqr = np.subtract(*np.percentile(scores[:, 1], [75, 25]))
    width = 2 * iqr * 4000 ** (-1 / 3)
    assert rule == "Freedman–Diaconis"
    assert len(edges) - 1 == int(np.ceil(np.ptp(scores[:, 1]) / width))
    figure = Figure()
    FigureCanvasAgg(figure)
    plot = free_energy(figure.add_subplot(), scores, 1, 2, weights=np.ones(4000),
                       weights_name="w")
    title = plot.image.axes.get_title(loc="left")
    assert "Freedman–Diaconis" in title and "weights: w" in title and "kT" in title
    assert plot.contours is not None and plot.colorbar is not None
    figure.canvas.draw()
    image = np.asarray(figure.canvas.buffer_rgba())
    assert len(np.unique(image.reshape(-1, 4), axis=0)) > 50  # a real picture


@pytest.mark.parametrize(("values", "message"), [
    ([1.0, -0.5, 1.0], "row 12: -0.5 is negative"),
    ([1.0, 1.0, np.nan], "row 13: nan is not finite"),
    ([1.0, np.inf, 1.0], "row 12: inf is not finite"),
    (["1", "x", "2"], "row 12: 'x' is not a number"),
    ([0.0, 0.0, 0.0], "every weight is 0"),
])
def test_bad_weights_are_refused_naming_column_and_row(values, message):
    with pytest.raises(ValueError, match="weights column 'bias'") as caught:
        check_weights(values, 3, "bias", row_ids=[11, 12, 13])
    assert message in str(caught.value)


def test_weights_come_from_a_carried_column_of_the_data():
    angles = np.zeros((3, 2))
    dataset = Dataset(angles, provenance={"frame": np.array(["0", "1", "2"]),
                                          "weight": np.array(["1", "2.5", "0"])})
    assert weight_columns(dataset) == ["weight"]
    assert frame_weights(dataset, "weight").tolist() == [1.0, 2.5, 0.0]
    with pytest.raises(ValueError, match=r"no weights column .w.*: weight"):
        frame_weights(dataset, "w")


def test_region_on_the_landscape_selects_exactly_the_frames_inside():
    rng = np.random.default_rng(2)
    scores = rng.uniform(-1, 1, size=(5000, 3))
    figure = Figure()
    FigureCanvasAgg(figure)
    landscape = FreeEnergyLandscape(figure)
    landscape.draw(scores, 2, 1, selected=None)
    inside = landscape.points_in_rectangle(0.5, -0.2, -0.1, 0.3)
    expected = ((scores[:, 2] >= -0.1) & (scores[:, 2] <= 0.5)
                & (scores[:, 1] >= -0.2) & (scores[:, 1] <= 0.3))
    np.testing.assert_array_equal(inside, expected)
    triangle = np.array([[0, 0], [1, 0], [0, 1]])
    lasso = landscape.points_in_polygon(triangle)
    x, y = scores[:, 2], scores[:, 1]
    np.testing.assert_array_equal(lasso, (x > 0) & (y > 0) & (x + y < 1))
    landscape.update_colors(None, lasso)
    assert landscape.n_marked == int(lasso.sum())
