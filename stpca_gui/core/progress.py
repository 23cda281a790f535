"""Progress reporting and cancellation shared by the long-running estimators.

The core never knows about Qt: a caller passes a plain callable, which may return ``True``
(or raise :class:`FitCancelled`) to ask the estimator to stop. The estimator then keeps the
best state reached so far and records that it was stopped early.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
