"""Lagged embeddings of angle series, including the paper's sunspots series."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.core import lagged_embedding
from stpca_gui.core.geometry.series import diagonal_fit
from stpca_gui.datasets import load_sunspots


def test_lagged_rows_and_wrapping():
    series = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    lagged = lagged_embedding(series, 3)
    assert lagged.shape == (3, 3)
    np.testing.assert_allclose(lagged[0], [0.0, 1.0, 2.0])
    np.testing.assert_allclose(lagged[2], [2.0, 3.0, 4.0 - 2 * np.pi])
    np.testing.assert_allclose(lagged_embedding(series, 1)[:, 0], np.mod(series + np.pi,
                                                                        2 * np.pi) - np.pi)


@pytest.mark.parametrize("series, lags, message", [
    ([0.0, 1.0], 3, "at least"), ([0.0, np.nan, 1.0], 1, "row 1"), ([0.0, 1.0], 0, "n_lags"),
])
def test_lagged_bad_input(series, lags, message):
    with pytest.raises(ValueError, match=message):
        lagged_embedding(series, lags)


def test_sunspots_cycle_23_lag_3():
    theta = load_sunspots(cycle=23).theta
    assert theta.size == 5373
    lagged = lagged_embedding(theta, 3)
    assert lagged.shape == (5371, 3)
    assert lagged.min() >= -np.pi and lagged.max() < np.pi


def test_sunspots_through_the_table_reader_and_dataset(tmp_path):
    from stpca_gui.io import read_angle_table
    from stpca_gui.model import Dataset

    # All cycles written as a CSV (repr keeps every bit), then filtered by the reader.
    sunspots = load_sunspots()
    path = tmp_path / "sunspots.csv"
    path.write_text("cycle,theta,phi\n" + "".join(
        f"{c},{t!r},{p!r}\n" for c, t, p in zip(sunspots.cycle.tolist(),
                                                sunspots.theta.tolist(), sunspots.phi.tolist(),
                                                strict=True)))
    table = read_angle_table(path, ["theta"], row_filter=("cycle", "23"))
    assert table.angles.shape == (5373, 1)
    np.testing.assert_array_equal(table.angles[:, 0],
                                  lagged_embedding(sunspots.of_cycle(23).theta, 1)[:, 0])
    lagged = Dataset.from_table(table).lagged(0, 3)
    assert lagged.angles.shape == (5371, 3)
    assert lagged.column_names == ("theta[t]", "theta[t+1]", "theta[t+2]")
    np.testing.assert_allclose(lagged.angles[1:, 0], lagged.angles[:-1, 1])
    # Row ids point at the file line of each window's first birth.
    assert lagged.row_ids[0] == table.line_numbers[0]


def test_row_filter_compares_numbers_and_text(tmp_path):
    from stpca_gui.io import TableError, read_angle_table

    path = tmp_path / "t.csv"
    path.write_text("cycle,kind,theta\n22,a,0.1\n23,b,0.2\n23.0,a,0.3\n23,a,0.4\n24,a,0.5\n")
    table = read_angle_table(path, ["theta"], row_filter=("cycle", "23"))
    np.testing.assert_allclose(table.angles[:, 0], [0.2, 0.3, 0.4])
    np.testing.assert_array_equal(table.line_numbers, [3, 4, 5])
    assert read_angle_table(path, ["theta"], row_filter=("kind", "a")).angles.shape == (4, 1)
    with pytest.raises(TableError, match="with cycle = 99"):
        read_angle_table(path, ["theta"], row_filter=("cycle", "99"))


def test_dataset_lagged_validation():
    from stpca_gui.model import Dataset

    dataset = Dataset.from_demo("clusters-t2")
    with pytest.raises(ValueError, match="column"):
        dataset.lagged(5, 3)
    with pytest.raises(ValueError, match="lags"):
        dataset.lagged(0, 0)
    assert dataset.lagged(1, 4).angles.shape == (297, 4)


def test_diagonal_fit_recovers_offsets_and_winding():
    t = np.linspace(-np.pi, np.pi, 300, endpoint=False)
    curve = np.column_stack([t, t + 3.0, 2.0 * t - 0.5, t + 0.2 * np.sin(t)])
    (s2, c2, r2_2), (s3, c3, r2_3), (_, _, r2_4) = diagonal_fit(np.angle(np.exp(1j * curve)))
    assert s2 == pytest.approx(1.0) and c2 == pytest.approx(3.0) and r2_2 == pytest.approx(1.0)
    assert s3 == pytest.approx(2.0) and c3 == pytest.approx(-0.5) and r2_3 == pytest.approx(1.0)
    assert 0.99 < r2_4 < 1.0 - 1e-4  # a wobble around the diagonal lowers R²
