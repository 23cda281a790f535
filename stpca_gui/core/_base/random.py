"""Normalisation of user-supplied random states to :class:`numpy.random.Generator`."""

from __future__ import annotations

import numbers

import numpy as np

from .params import InstanceOf, Interval, Options

#: What the public functions accept as ``random_state``.
RandomStateLike = int | np.integer | np.random.Generator | np.random.SeedSequence | None
#: The same as parameter constraints (see :mod:`.params`).
RANDOM_STATE = (
    Options((None,), offered=False),
    Interval(int, 0, None),
    InstanceOf((np.random.Generator, np.random.SeedSequence), "a numpy Generator or SeedSequence"),
)


def check_random_state(random_state: RandomStateLike = None) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, numpy.random.SeedSequence or numpy.random.Generator
        ``None`` gives a freshly (OS-entropy) seeded generator; a non-negative integer or a
        seed sequence gives a new generator seeded with it (so equal seeds give equal
        streams); a generator is returned as is (it is *not* copied, so drawing from the
        result advances the caller's generator).

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    TypeError
        If ``random_state`` is of any other type (including ``bool`` and the legacy
        :class:`numpy.random.RandomState`).
    ValueError
        If ``random_state`` is a negative integer.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool | np.bool_):
        seed = int(random_state)
        if seed < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {seed}")
        return np.random.default_rng(seed)
    raise TypeError(
        "random_state must be None, a non-negative int, a numpy SeedSequence or a numpy "
        f"Generator, got {type(random_state).__name__}"
    )
