"""Consecutive slices of rows: how the core bounds the temporaries of a per-row computation.

A map over the n rows of an array that makes temporaries of its own size (a rotation, a
norm, a key per row) is run block by block, so that its temporaries are ``size`` rows, not
n (at n = 10⁶, d = 66 one n-sized temporary is 528 MB). The blocks depend on n and ``size``
only, never on the thread count, so that results are the same bit for bit however they run.
"""

from __future__ import annotations


def row_slices(n: int, size: int) -> list[slice]:
    """Slices of at most ``size`` consecutive rows covering ``range(n)``; one slice for
    n ≤ size (``slice(0, 0)`` for n = 0), so that small inputs take exactly the whole-array
    path."""
    size = max(1, int(size))
    return [slice(start, min(start + size, n)) for start in range(0, max(n, 1), size)]
