"""The uniformity tests of *Analysis → Uniformity tests*, Qt-free: the columns that can be
tested and the background task of one run."""

from __future__ import annotations

import numpy as np

from ..core.circstats.uniformity import UniformityTest, uniformity_tests
from .app_state import AppState
from .tasks import TaskState

__all__ = ["testable_columns", "uniformity_task"]


def testable_columns(state: AppState) -> list[tuple[str, np.ndarray]]:
    """(name, angles) of everything that can be tested: PNS1 (as an angle on the principal
    circle), the other scores, and the data's angle columns."""
    columns: list[tuple[str, np.ndarray]] = []
    result = state.result
    if result is not None:
        columns.append(("PNS1 (angle on the principal circle)",
                        result.pns1 / result.circle_radius))
        for k in range(1, result.scores.shape[1]):
            columns.append((f"PNS{k + 1}", result.scores[:, k]))
    if state.dataset is not None:
        for k, name in enumerate(state.dataset.column_names):
            columns.append((f"angle {name}", state.dataset.angles[:, k]))
    return columns


def uniformity_task(values: np.ndarray, calibration: str, n_replicates: int, pad_ties: str,
                    state: TaskState) -> dict[str, UniformityTest]:
    """The background task of one run (Qt-free; seed 0, so a run can be repeated)."""
    return uniformity_tests(values, n_replicates=n_replicates, random_state=0,
                            calibration=calibration, callback=state.callback,
                            pad_ties=pad_ties)
