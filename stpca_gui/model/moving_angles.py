"""Which angles the 3-D torus shows by default: those that move.

At d = 66 the first three columns of a table of backbone torsions are three of the many
that barely move (issue 32); the torus view then shows a blob. Before a fit the angles
with the largest circular spread are shown, after it those along which the principal
curve moves most (over the data's range of PNS1), until the user picks others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    from ..core.prediction.principal_curve import PrincipalCurve

#: Angles drawn on the torus cube.
TORUS_AXES = 3
#: Rows the circular spread is measured on (evenly spaced): enough for three columns'
#: order, and no n × d temporaries for a million frames.
SPREAD_ROWS = 20_000


def circular_spread(angles: ArrayLike) -> NDArray[np.float64]:
    """Per column, 1 − the mean resultant length: 0 for a constant angle, near 1 for one
    spread round the circle (or split between two opposite values); on at most
    :data:`SPREAD_ROWS` evenly spaced rows."""
    values = np.asarray(angles, dtype=np.float64)
    if values.shape[0] > SPREAD_ROWS:
        values = values[np.linspace(0, values.shape[0] - 1, SPREAD_ROWS).astype(np.intp)]
    if values.shape[0] == 0:
        return np.zeros(values.shape[1])
    return 1.0 - np.hypot(np.cos(values).mean(axis=0), np.sin(values).mean(axis=0))


def largest(values: ArrayLike, count: int = TORUS_AXES) -> tuple[int, ...]:
    """The columns of the ``count`` largest finite values, in column order (ties: the
    first column)."""
    values = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=-np.inf)
    order = np.argsort(-values, kind="stable")[:count]
    return tuple(sorted(int(k) for k in order))


def moving_axes(angles: ArrayLike, curve: PrincipalCurve | None = None,
                count: int = TORUS_AXES) -> tuple[int, ...]:
    """The default angles of the torus view: the first ``count`` when there are no more,
    else those the principal ``curve`` moves most within the data's PNS1 range (with a
    fit; :meth:`~stpca_gui.core.prediction.principal_curve.PrincipalCurve.angle_ranges`),
    or those with the largest circular spread of the data (without)."""
    d = np.shape(angles)[1]
    if d <= count:
        return tuple(range(d))
    if curve is not None:
        return largest(curve.angle_ranges(), count)
    return largest(circular_spread(angles), count)
