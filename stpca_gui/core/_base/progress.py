"""Progress reporting and cancellation shared by the long-running steps: the one vocabulary.

The core never knows about Qt: a caller passes a plain callable, which may return ``True``
(or raise :class:`FitCancelled`) to ask the estimator to stop. The estimator then keeps the
best state reached so far and records that it was stopped early.

Every long step reports a :class:`ProgressEvent` whose ``stage`` is a name the step itself
declares beside its code; the names shown to users are the app's business.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

#: ``callback(iteration, stress)``; a truthy return value asks the optimiser to stop.
IterationCallback = Callable[[int, float], bool | None]

#: ``snapshot(iteration, stress, units, radius)``: the configuration an optimiser has
#: reached, as unit vectors (rows; a fresh array the receiver may keep) and the sphere
#: radius, called before the iteration's :data:`IterationCallback`.
SnapshotCallback = Callable[[int, float, "NDArray[np.float64]", float], None]

#: ``check()``, called between blocks of a long computation; raises :class:`FitCancelled`
#: to stop it there (the computation then leaves no result behind).
CancelCheck = Callable[[], None]


class FitCancelled(Exception):
    """Raised by a progress callback to cancel a fit; the estimator keeps its best state."""


@dataclass(frozen=True)
class ProgressEvent:
    """One progress report of a long computation (a fit, a Monte Carlo test, baselines).

    Attributes
    ----------
    stage : str
        The step's name for what it is doing: one of the stages its module declares
        (:data:`~stpca_gui.core.stpca.FIT_STAGES`,
        :data:`~stpca_gui.core.circstats.uniformity.MONTE_CARLO_STAGE`,
        :data:`~stpca_gui.core.baselines.BASELINES_STAGE`, the app's "modes").
    fraction : float
        Progress of the current stage in [0, 1] (SMDS has no known end: its fraction stays
        at 0 until it finishes; ``iteration`` and ``stress`` tell how it goes).
    iteration : int
        Optimiser iteration (SMDS only; 0 otherwise).
    stress : float
        Current SMDS stress (NaN outside the SMDS stage).
    message : str
        Human-readable status line.
    configuration : ndarray, shape (m, d + 1), or None
        SMDS events only: the configuration the optimiser has reached, as unit vectors of
        the points being mapped (all n samples, or the m landmarks of a landmark fit). A
        new array per event, which the receiver may keep; None for the other stages.
    radius : float
        SMDS events only: the sphere radius of ``configuration`` (NaN otherwise).
    landmarks : ndarray of intp, shape (m,), or None
        SMDS events of a landmark fit only: the rows of the data whose configuration
        ``configuration`` is (in its row order); None in an exact fit and for the other
        stages. The same array for every event of one landmark set.
    """

    stage: str
    fraction: float
    iteration: int = 0
    stress: float = float("nan")
    message: str = ""
    configuration: NDArray[np.float64] | None = field(default=None, repr=False)
    radius: float = float("nan")
    landmarks: NDArray[np.intp] | None = field(default=None, repr=False)


#: ``callback(event)``; a truthy return value asks the computation to stop.
ProgressCallback = Callable[[ProgressEvent], bool | None]
