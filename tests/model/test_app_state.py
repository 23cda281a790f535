"""Application state: data set, result, selection, colour mode and view options."""

from __future__ import annotations

import numpy as np
import pytest
from recorder import Recorder

from stpca_gui.model import (
    AnalysisResult,
    AppState,
    Dataset,
    FitParameters,
)


def _fake_result(ds: Dataset) -> AnalysisResult:
    return AnalysisResult(model=None, parameters=FitParameters(), dataset=ds,  # type: ignore[arg-type]
                          wall_time=0.0, mode_clusters=None)  # type: ignore[arg-type]


def test_app_state_dataset_result_and_selection():
    state = AppState()
    log: list[tuple] = []
    state.dataset_changed.connect(lambda ds: log.append(("dataset", ds)))
    state.result_changed.connect(lambda r: log.append(("result", r)))
    state.view_options_changed.connect(lambda name: log.append(("views", name)))
    state.selection.changed.connect(lambda src: log.append(("selection", src)))

    t3 = Dataset.from_demo("clusters-t3")
    state.set_dataset(t3)
    assert state.dataset is t3 and state.result is None
    assert len(state.selection) == 300
    assert state.scatter_components == (0, 1) and state.torus_axes == (0, 1, 2)
    assert [entry[0] for entry in log] == ["dataset", "selection"]

    result = _fake_result(t3)
    state.set_result(result)
    assert state.result is result and log[-1] == ("result", result)
    state.set_result(result)  # same object: no signal
    assert sum(entry[0] == "result" for entry in log) == 1

    state.selection.apply([0, 1, 2], "add")
    state.set_scatter_components(2, 0)
    log.clear()

    t2 = Dataset.from_demo("wrapped-normal-t2")
    handler_saw: list = []
    state.dataset_changed.connect(
        lambda ds: handler_saw.append((state.result, len(state.selection))))
    state.set_dataset(t2)
    # Everything is consistent before the first signal; then the signals in order.
    assert handler_saw == [(None, 500)]
    assert [entry[0] for entry in log] == ["dataset", "result", "selection", "views", "views"]
    assert log[-2:] == [("views", "scatter_components"), ("views", "torus_axes")]
    assert state.result is None and not state.selection.mask().any()
    assert state.scatter_components == (0, 1) and state.torus_axes == (0, 1)
    assert not state.selection.can_undo

    with pytest.raises(ValueError, match="another data set"):
        state.set_result(_fake_result(t3))
    with pytest.raises(ValueError, match="another data set"):
        state.set_result(_fake_result(Dataset.from_demo("wrapped-normal-t2")))
    assert state.result is None
    state.set_dataset(t2)  # same data set: nothing happens
    assert log.count(("dataset", t2)) == 1


def test_app_state_colour_mode_and_view_options():
    state = AppState()
    modes = Recorder()
    views = Recorder()
    state.color_mode_changed.connect(modes)
    state.view_options_changed.connect(views)
    assert state.color_mode == "label"
    state.set_color_mode("label")
    state.set_color_mode("pns1")
    assert modes.calls == [("pns1",)]
    with pytest.raises(ValueError,
                       match="label, pns1, cluster, stress, time, trajectory, selection"):
        state.set_color_mode("rainbow")
    assert state.effective_color_mode == "selection"  # no result yet

    with pytest.raises(ValueError, match="no data set"):
        state.set_scatter_components(0, 1)
    state.set_dataset(Dataset(angles=np.random.default_rng(0).uniform(-3, 3, (20, 5))))
    views.calls.clear()
    state.set_torus_axes((4, 0, 2))
    state.set_torus_axes((4, 0, 2))
    state.set_scatter_components(3, 4)
    assert views.calls == [("torus_axes",), ("scatter_components",)]
    assert state.torus_axes == (4, 0, 2) and state.scatter_components == (3, 4)
    for bad in [(0, 1), (0, 0, 1), (0, 1, 5)]:
        with pytest.raises(ValueError, match="torus axes"):
            state.set_torus_axes(bad)
    for bad in [(1, 1), (0, 5)]:
        with pytest.raises(ValueError, match="scatter components"):
            state.set_scatter_components(*bad)
    state.set_color_mode("label")
    assert state.effective_color_mode == "selection"  # this data set has no labels
    state.set_dataset(Dataset.from_demo("clusters-t2"))
    assert state.effective_color_mode == "label"
