"""A new data set of another size replaces the old result, selection and colours at once.

Issue 10, item 4: fitting a file of 59 rows and then opening one of 10 rows raised a psygnal
EmitLoopError in a view (colours of shape (59, 4) against 10 points).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from stpca_gui.model import Dataset

FIT_TIMEOUT_MS = 120_000

pytestmark = pytest.mark.usefixtures("display")


def small_dataset(n: int, *, seed: int, labelled: bool) -> Dataset:
    rng = np.random.default_rng(seed)
    centres = np.array([[0.5, 1.0, 2.0], [2.5, -1.0, 0.0]])
    groups = np.arange(n) % 2
    angles = np.angle(np.exp(1j * (centres[groups] + 0.2 * rng.standard_normal((n, 3)))))
    labels = np.array([f"g{g}" for g in groups]) if labelled else None
    return Dataset(angles=angles, column_names=("a", "b", "c"), labels=labels,
                   source=f"table-{n}.csv")


def fit(qtbot, window, dataset: Dataset) -> None:
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.set_dataset(dataset)


@pytest.mark.parametrize("color_mode", ["label", "pns1", "cluster", "selection"])
def test_smaller_dataset_after_a_fit_raises_nothing(qtbot, window, color_mode):
    fit(qtbot, window, small_dataset(59, seed=0, labelled=True))
    window.state.set_color_mode(color_mode)
    window.state.selection.apply(np.arange(59) % 3 == 0)
    with qtbot.capture_exceptions() as errors:
        fit(qtbot, window, small_dataset(10, seed=1, labelled=color_mode != "label"))
    assert errors == []
    assert window.state.result is not None and window.state.result.dataset.n_samples == 10
    assert len(window.state.selection.groups) == 10


def test_new_dataset_while_a_fit_runs_raises_nothing(qtbot, window):
    fit(qtbot, window, small_dataset(59, seed=0, labelled=True))
    with qtbot.capture_exceptions() as errors:
        window.set_dataset(small_dataset(80, seed=2, labelled=True))  # a fit starts
        fit(qtbot, window, small_dataset(10, seed=1, labelled=False))
    assert errors == []
    assert window.state.result.dataset.n_samples == 10
