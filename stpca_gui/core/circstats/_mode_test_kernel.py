"""Compiled mode counting for the test for the number of modes (:mod:`.silverman`)."""

from __future__ import annotations

from numpy.typing import NDArray

from .._base.jit import kernel


@kernel()
def count_maxima_rows(derivatives: NDArray, flat: float, out: NDArray) -> None:
    """For every row (a density's derivative on the circle's nodes): the number of sign
    changes from + to −, going round once, skipping values at or below ``flat`` × the row's
    largest magnitude (round-off in empty arcs)."""
    rows, size = derivatives.shape
    for r in range(rows):
        scale = 0.0
        for i in range(size):
            value = abs(derivatives[r, i])
            if value > scale:
                scale = value
        limit = flat * scale
        first = 0
        previous = 0
        count = 0
        for i in range(size):
            value = derivatives[r, i]
            if abs(value) <= limit:
                continue
            sign = 1 if value > 0.0 else -1
            if first == 0:
                first = sign
            elif previous > 0 and sign < 0:
                count += 1
            previous = sign
        if previous > 0 and first < 0:  # the change across the end of the period
            count += 1
        out[r] = count
