"""Live fits: the SMDS configuration as it converges, as partial results of the fit task.

:class:`SMDSSnapshot` is one state of the spherical MDS optimiser as a display needs it
(the unit vectors, the radius, which rows they belong to, the stress so far). A fit's
progress events (:class:`~stpca_gui.core.stpca.ProgressEvent` of stage "smds") carry a
configuration for every optimiser iteration, far more than a display can draw;
:class:`LiveSMDS` turns them into snapshots at a few per second, in the fit's own thread,
so that only those few cross into the GUI thread. Qt-free: the GUI's fit task hands the
snapshots to :meth:`~stpca_gui.model.tasks.TaskState.partial`, and a tour or a test can
build snapshots of its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ..core import ProgressEvent

__all__ = ["LIVE_INTERVAL", "LiveSMDS", "SMDSSnapshot"]

#: Seconds between two live snapshots: about four redraws a second, enough to see the
#: configuration move, and each redraw of the sphere view costs the GUI thread a render.
LIVE_INTERVAL = 0.25


@dataclass(frozen=True, eq=False)
class SMDSSnapshot:
    """One state of a spherical MDS optimisation, for a live display.

    Attributes
    ----------
    iteration : int
        Optimiser iteration (counted over the SMDS starts of one fit, as in the progress
        events).
    stress : float
        Stress of ``units`` at ``radius``.
    units : ndarray, shape (m, d + 1)
        The configuration as unit vectors on S^d (a display scales them itself).
    radius : float
        Sphere radius of the configuration (estimated or fixed).
    landmarks : ndarray of intp, shape (m,), or None
        The data rows of ``units`` in a landmark fit (row ``k`` of ``units`` is sample
        ``landmarks[k]``); None when ``units`` holds every sample in order.
    stress_history : ndarray, shape (k, 2)
        ``(iteration, stress)`` of every iteration of this run so far, this one last.
    first : bool
        The first snapshot of an SMDS run (a new fit, a new landmark set or a new start):
        a display starts afresh (new projection basis, new stress curve).
    """

    iteration: int
    stress: float
    units: NDArray[np.float64]
    radius: float
    landmarks: NDArray[np.intp] | None = None
    stress_history: NDArray[np.float64] = field(default_factory=lambda: np.empty((0, 2)))
    first: bool = False

    @property
    def dimension(self) -> int:
        """d of the sphere S^d the configuration lies on."""
        return int(self.units.shape[1]) - 1

    @property
    def n_points(self) -> int:
        """Number of configuration points (m)."""
        return int(self.units.shape[0])

    def rows(self, n_samples: int) -> NDArray[np.intp]:
        """The data rows of the points: ``landmarks``, or all of 0 … n − 1."""
        if self.landmarks is not None:
            return np.asarray(self.landmarks, dtype=np.intp)
        if n_samples != self.n_points:
            raise ValueError(f"the snapshot has {self.n_points} points, the data "
                             f"{n_samples} samples")
        return np.arange(n_samples, dtype=np.intp)


class LiveSMDS:
    """Turns a fit's progress events into throttled :class:`SMDSSnapshot` s.

    Feed it every event (:meth:`observe`); it delivers a snapshot for the first SMDS
    iteration of each run, then at most one per ``interval`` seconds, and the last
    iteration of a run when the next stage begins (so a display always shows the start and
    the converged configuration). Between deliveries only the latest configuration is kept.

    Parameters
    ----------
    deliver : callable
        Receives each :class:`SMDSSnapshot` (in the calling thread).
    interval : float, default :data:`LIVE_INTERVAL`
        Minimum seconds between two deliveries within a run.
    clock : callable, default :func:`time.monotonic`
        Current time in seconds (tests inject their own).
    """

    def __init__(self, deliver: Callable[[SMDSSnapshot], None],
                 interval: float = LIVE_INTERVAL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.deliver = deliver
        self.interval = float(interval)
        self.clock = clock
        self._history: list[tuple[int, float]] = []
        self._pending: ProgressEvent | None = None
        self._last_time = -float("inf")
        self._in_run = False
        #: Snapshots delivered so far.
        self.delivered = 0

    def observe(self, event: ProgressEvent) -> None:
        """Take one progress event of the fit."""
        if event.stage == "smds" and event.configuration is None:
            return  # an SMDS report without a configuration (none to show)
        if event.stage != "smds":
            if self._in_run:
                self.flush()
                self._in_run = False
            return
        first = not self._in_run
        if first:
            self._history = []
            self._in_run = True
        self._history.append((int(event.iteration), float(event.stress)))
        now = self.clock()
        if first or now - self._last_time >= self.interval:
            self._send(event, first, now)
        else:
            self._pending = event

    def flush(self) -> None:
        """Deliver the latest configuration if it has not been delivered yet."""
        if self._pending is not None:
            self._send(self._pending, False, self.clock())

    def _send(self, event: ProgressEvent, first: bool, now: float) -> None:
        self._pending = None
        self._last_time = now
        history = np.array(self._history, dtype=np.float64).reshape(-1, 2)
        # The history up to this event (a pending event may be older than the newest entry).
        history = history[history[:, 0] <= event.iteration]
        landmarks = None if event.landmarks is None else event.landmarks.copy()
        self.delivered += 1
        self.deliver(SMDSSnapshot(
            iteration=int(event.iteration), stress=float(event.stress),
            units=event.configuration, radius=float(event.radius), landmarks=landmarks,
            stress_history=history, first=first))
