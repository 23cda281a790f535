"""Lagged embeddings of angle series, including the paper's sunspots series."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from stpca_gui.core import lagged_embedding

SUNSPOTS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "sunspots_births.csv"


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
    if not SUNSPOTS.exists():
        pytest.skip(f"sunspots data not found at {SUNSPOTS} (../shared is not next to the repo)")
    table = np.genfromtxt(SUNSPOTS, delimiter=",", names=True, dtype=None, encoding="utf-8")
    theta = np.asarray(table["theta"][table["cycle"] == 23], dtype=float)
    assert theta.size == 5373
    lagged = lagged_embedding(theta, 3)
    assert lagged.shape == (5371, 3)
    assert lagged.min() >= -np.pi and lagged.max() < np.pi
