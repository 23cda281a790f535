"""The launch demo's fit in a child process (stpca_gui/gui/head_start.py).

The window's first fit takes the child's result only when it is the same fit; anything
else fits in process, and a cancelled or failed head start leaves no child behind.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from stpca_gui.gui import head_start as head_start_module
from stpca_gui.gui.head_start import HeadStart
from stpca_gui.model import Dataset, FitParameters, run_analysis
from stpca_gui.model.tasks import TaskCancelled, TaskState

DEMO = "clusters-t2"


def _no_fallback(_state: TaskState):
    raise AssertionError("the head start's own result was expected")


def test_first_fit_takes_the_childs_result_equal_to_an_in_process_fit():
    head_start = HeadStart(DEMO)
    dataset = Dataset.from_demo(DEMO, random_state=0)
    task = head_start.take(dataset, FitParameters(), _no_fallback)
    assert task is not None
    result = task(TaskState())
    assert result.dataset is dataset  # the window's data set, not the child's copy
    assert not head_start._process.is_alive()
    local = run_analysis(dataset, FitParameters())
    np.testing.assert_allclose(result.scores, local.scores, rtol=0, atol=1e-9)
    assert result.radius == pytest.approx(local.radius, abs=1e-12)
    assert len(result.mode_clusters.modes) == len(local.mode_clusters.modes)
    # Only the first fit can take it.
    assert head_start.take(dataset, FitParameters(), _no_fallback) is None


def test_other_parameters_or_data_fit_in_process_and_stop_the_child():
    head_start = HeadStart(DEMO)
    dataset = Dataset.from_demo(DEMO, random_state=0)
    params = dataclasses.replace(FitParameters(), random_state=7)
    assert head_start.take(dataset, params, _no_fallback) is None
    assert not head_start._process.is_alive()

    other = HeadStart(DEMO)
    assert other.take(Dataset.from_demo(DEMO, random_state=1), FitParameters(),
                      _no_fallback) is None
    assert not other._process.is_alive()


def test_cancel_while_waiting_stops_the_child():
    head_start = HeadStart(DEMO)
    task = head_start.take(Dataset.from_demo(DEMO, random_state=0), FitParameters(),
                           _no_fallback)
    state = TaskState()
    state.cancel()
    with pytest.raises(TaskCancelled):
        task(state)
    assert not head_start._process.is_alive()


def test_a_failed_child_falls_back_to_the_in_process_fit():
    head_start = HeadStart("no-such-demo")  # the child fails: unknown demo
    dataset = dataclasses.replace(Dataset.from_demo(DEMO, random_state=0),
                                  source="demo:no-such-demo")
    fallen_back = []

    def fallback(state: TaskState):
        fallen_back.append(state)
        return "in-process"

    task = head_start.take(dataset, FitParameters(), fallback)
    state = TaskState()
    assert task(state) == "in-process"
    assert fallen_back == [state]


@pytest.mark.parametrize(("setting", "cores", "load", "expected"), [
    ("", 2, 0.3, True),      # an idle core for the child
    ("", 2, 1.5, False),     # both cores busy: the child would only queue
    ("", 1, 0.0, False),     # one core: nothing to gain
    ("", 8, 6.5, True),
    ("1", 1, 9.0, True),     # forced on
    ("0", 8, 0.0, False),    # forced off
])
def test_head_start_only_with_an_idle_core_unless_told(monkeypatch, setting, cores, load,
                                                        expected):
    monkeypatch.setenv(head_start_module.ENV, setting)
    monkeypatch.setattr(head_start_module.os, "sched_getaffinity", lambda _pid: set(range(cores)))
    monkeypatch.setattr(head_start_module.os, "getloadavg", lambda: (load, load, load))
    assert head_start_module.enabled() is expected


def test_a_structure_demo_gets_no_head_start(monkeypatch):
    """`stpca-gui --demo adk-loop` started a child that cannot fit a structure demo (about
    a second of imports on the idle core, then an error); a table demo still gets one."""
    started = []
    monkeypatch.setattr(head_start_module, "HeadStart", lambda demo: started.append(demo))
    assert head_start_module.for_demo("adk-loop") is None
    assert started == []
    head_start_module.for_demo(DEMO)
    assert started == [DEMO]
