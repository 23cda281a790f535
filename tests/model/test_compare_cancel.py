"""Cancelling a comparison midway (issue 25, item 7): every baseline method checks for a
cancel while it runs (T-PCA inside its fit), and the Compare dialog's task reaches them."""

from __future__ import annotations

import re

import numpy as np
import pytest

from stpca_gui.core import BASELINES, FitCancelled, TorusPCA, make_demo, run_baselines
from stpca_gui.model.comparison import baselines_task
from stpca_gui.model.tasks import TaskState


@pytest.fixture(scope="module")
def angles():
    return make_demo("clusters-t3", random_state=2).angles


class CountingCheck:
    """A cancel check that counts its calls and cancels at call ``cancel_at`` (never by
    default)."""

    def __init__(self, cancel_at: int | None = None) -> None:
        self.cancel_at = cancel_at
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1
        if self.calls == self.cancel_at:
            raise FitCancelled("cancelled by the test")


def test_tpca_checks_throughout_its_fit_and_stops_at_the_check(angles):
    counting = CountingCheck()
    checked = TorusPCA(random_state=0).fit(angles, check=counting)
    plain = TorusPCA(random_state=0).fit(angles)
    # Checks change nothing, and come from every part of the fit: before and inside PNS
    # (one per optimiser iteration) and per level of the torus variance.
    np.testing.assert_array_equal(checked.torus_explained_variance_ratio_,
                                  plain.torus_explained_variance_ratio_)
    np.testing.assert_array_equal(checked.scores_, plain.scores_)
    total = counting.calls
    assert total >= 3 + angles.shape[1] + 5
    for cancel_at in (1, total // 2, total):
        stopping = CountingCheck(cancel_at)
        model = TorusPCA(random_state=0)
        with pytest.raises(FitCancelled):
            model.fit(angles, check=stopping)
        assert stopping.calls == cancel_at  # stopped at the check that asked, not later
        assert not hasattr(model, "pns_")  # a cancelled fit leaves the estimator unfitted


@pytest.mark.parametrize("name", list(BASELINES))
def test_every_method_checks_while_it_runs(angles, name):
    events = []

    def cancel_at_once(event) -> bool:
        events.append(event)
        return True

    with pytest.raises(FitCancelled, match=re.escape(f"cancelled during {name}")):
        run_baselines(angles, methods=[name], callback=cancel_at_once)
    assert len(events) == 1 and events[0].stage == "baselines"


def test_cancel_during_tpca_stops_it_at_the_next_check(angles):
    calls = []

    def cancel_at_the_fourth(event) -> bool:
        calls.append(event.message)
        return len(calls) == 4

    with pytest.raises(FitCancelled, match=r"during T-PCA \(SO\)"):
        run_baselines(angles, methods=["dPCA", "T-PCA (SO)"], callback=cancel_at_the_fourth)
    # dPCA: one check inside and one event after it; T-PCA: stopped at its second check.
    assert len(calls) == 4
    assert calls[-1].startswith("T-PCA (SO) (2 of 2)")


class CancelDuring(TaskState):
    """A task state whose user presses Cancel while T-PCA (SI) runs, at its ``at``-th cancel
    check; it counts the checks made after that."""

    def __init__(self, at: int) -> None:
        super().__init__(on_partial=self._keep)
        self.at = at
        self.tpca_checks = 0
        self.shown: list[str] = []

    def _keep(self, results) -> None:
        self.shown = list(results)

    @property
    def cancelled(self) -> bool:
        if len(self.shown) == 5:  # the five PCA variants are done: T-PCA (SI) is running
            self.tpca_checks += 1
            if self.tpca_checks == self.at:
                self.cancel()
        return super().cancelled


@pytest.mark.parametrize("at", [1, 3])
def test_compare_dialog_task_cancel_reaches_the_running_method(angles, at):
    state = CancelDuring(at)
    with pytest.raises(FitCancelled):
        baselines_task(angles, state)
    assert state.tpca_checks == at  # the cancel was obeyed at the check that saw it
    assert "T-PCA (SI)" not in state.shown and len(state.shown) == 5
