"""The one way the numerical kernels are compiled.

Every kernel is cached on disk (compiled once per install, then loaded), releases the GIL
(so the app stays responsive and :mod:`.parallel` can run kernels on several threads), and
uses numpy's error model: a division by zero gives inf or NaN, as in numpy, instead of
raising, which spares every division a branch into Python's exception machinery and
shortens the first run's compile time.

``inline=True`` (numba's ``inline="always"``) is kept for a few small helpers called inside
hot loops (``atan2_nonneg``, ``wrap_angle``, the torus distance of two rows, the subsphere
gradient, the mode scan). It does
not shorten compiling: numba copies the helper's IR into every call site, which cost as much
as the separate compilation it saved when tried on the prediction kernels' helpers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray


def kernel(*, fastmath: bool | set[str] = False, inline: bool = False) -> Callable[[Any], Any]:
    """Decorator compiling a function as a cached, GIL-free numba kernel."""
    return numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=fastmath,
                      inline="always" if inline else "never")


def kernel_array(values: NDArray) -> NDArray[np.float64]:
    """``values`` as the one array type kernels are compiled for: float64, C-contiguous,
    writable and aligned (copied only when it is not already).

    numba compiles a kernel once per combination of argument types, and read-only or
    non-contiguous arrays are types of their own: a read-only view passed to a kernel cost
    a second compilation of the whole prediction kernel on the first run.
    """
    return np.require(values, dtype=np.float64,
                      requirements=("C_CONTIGUOUS", "WRITEABLE", "ALIGNED"))
