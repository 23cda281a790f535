"""Compiled angle helpers shared by the kernels: one angle's wrapping to [-π, π) and a fast
``atan2`` for non-negative arguments.

The torus, SMDS and prediction kernels inline these into their hot loops (``inline=True``),
so they live here, beside no caller in particular, rather than in one kernel imported by
another.
"""

from __future__ import annotations

import math

from .._base.jit import kernel

_TWO_PI = 2.0 * math.pi
#: Fast-math flags of :func:`atan2_nonneg`: IEEE semantics for NaN/inf and signed zeros, but
#: contraction into FMA and reciprocal approximations of divisions by the same value.
_FAST = {"contract", "arcp"}

# Minimax rational approximation of atan on |x| <= 0.66 (Cephes coefficients), used with
# the reduction atan(t) = π/4 + atan((t - 1) / (t + 1)) above 0.66. Relative error below
# 3e-16 over the whole range, at about a third of the cost of libm's atan2 in the kernel.
_ATAN_P = (-8.750608600031904122785e-01, -1.615753718733365076637e01,
           -7.500855792314704667340e01, -1.228866684490136173410e02,
           -6.485021904942025371773e01)
_ATAN_Q = (2.485846490142306297962e01, 1.650270098316988542046e02,
           4.328810604912902668951e02, 4.853903996359136964868e02,
           1.945506571482613964425e02)
_P0, _P1, _P2, _P3, _P4 = _ATAN_P
_Q0, _Q1, _Q2, _Q3, _Q4 = _ATAN_Q
_PI_4 = math.pi / 4.0 + 3.061616997868382943065e-17
_PI_2 = math.pi / 2.0


@kernel(inline=True)
def wrap_angle(value: float) -> float:
    """Wrap one angle to [-π, π): the compiled twin of :func:`torus.wrap_angles` for kernels."""
    wrapped = (value + math.pi) % _TWO_PI - math.pi
    return wrapped - _TWO_PI if wrapped >= math.pi else wrapped


@kernel(fastmath=_FAST, inline=True)
def atan2_nonneg(a: float, b: float) -> float:
    """atan2(a, b) for a, b >= 0, in [0, π/2]; atan2(0, 0) = 0."""
    hi = max(a, b)
    lo = min(a, b)
    reduced = lo > 0.66 * hi
    numer = lo - hi if reduced else lo
    denom = lo + hi if reduced else hi
    x = numer / denom if denom > 0.0 else 0.0
    z = x * x
    p = (((_P0 * z + _P1) * z + _P2) * z + _P3) * z + _P4
    q = ((((z + _Q0) * z + _Q1) * z + _Q2) * z + _Q3) * z + _Q4
    angle = (_PI_4 if reduced else 0.0) + (x + x * z * p / q)
    return _PI_2 - angle if a > b else angle
