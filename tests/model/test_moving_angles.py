"""The torus view's default angles: those that move (issue 32)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from stpca_gui.core.prediction.principal_curve import PrincipalCurve
from stpca_gui.core.torsion_states import make_torsion_states
from stpca_gui.model import AnalysisResult, AppState, Dataset, FitParameters
from stpca_gui.model.moving_angles import circular_spread, moving_axes


def torsion_states(d: int) -> tuple[Dataset, set[int]]:
    """T^d frames of three states and the torsions whose state means differ by > 30°."""
    data = make_torsion_states(300, d, random_state=3, dwell=15)
    means = np.array([np.angle(np.exp(1j * data.angles[data.labels == s]).mean(axis=0))
                      for s in np.unique(data.labels)])
    spread = np.abs(np.angle(np.exp(1j * (means - means[0])))).max(axis=0)
    return Dataset(angles=data.angles), set(np.flatnonzero(spread > np.radians(30)).tolist())


def result_with_curve(dataset: Dataset, moving: tuple[int, ...]) -> AnalysisResult:
    """A result whose principal curve turns the angles ``moving`` by 2 rad, the others by
    0.2 (the result holds the curve alone)."""
    t = np.linspace(-1.0, 1.0, 50)[:, None]
    angles = np.tile(0.1 * t, (1, dataset.n_angles))
    angles[:, list(moving)] = t
    curve = PrincipalCurve(angles=angles, breaks=np.zeros(50, dtype=bool),
                           parameter=t.ravel(), stress=np.zeros(50))
    return AnalysisResult(model=SimpleNamespace(principal_curve_=curve),  # type: ignore[arg-type]
                          parameters=FitParameters(), dataset=dataset, wall_time=0.0,
                          mode_clusters=None)  # type: ignore[arg-type]


def test_circular_spread_measures_how_far_an_angle_moves():
    angles = np.column_stack([np.zeros(100), np.linspace(-np.pi, np.pi, 100, endpoint=False),
                              np.repeat([-1.0, 1.0], 50)])
    spread = circular_spread(angles)
    assert spread[0] == 0.0 and spread[1] > 0.99 and 0.4 < spread[2] < 0.5


def test_default_axes_are_moving_torsions_before_and_after_a_fit():
    for d in (66, 426):
        dataset, moving = torsion_states(d)
        assert len(moving) >= 5
        assert set(moving_axes(dataset.angles)) <= moving
    state = AppState()
    state.set_dataset(dataset)
    assert set(state.torus_axes) <= moving
    # A result: the angles its curve moves most.
    state.set_result(result_with_curve(dataset, (5, 100, 400)))
    assert state.torus_axes == (5, 100, 400)
    # A choice stays for the next results, until "moving" is asked for.
    state.set_torus_axes((0, 1, 2))
    state.set_result(result_with_curve(dataset, (7, 8, 9)))
    assert state.torus_axes == (0, 1, 2)
    state.show_moving_torus_axes()
    assert state.torus_axes == (7, 8, 9)
    # Three angles or fewer: all of them, in order.
    small = Dataset(angles=np.zeros((10, 3)))
    state.set_dataset(small)
    assert state.torus_axes == (0, 1, 2)
