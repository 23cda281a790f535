"""Compiled loops of the circular uniformity tests (Watson U², Giné's F_n, PAD).

The O(n²) pair sums of Giné's F_n and the Projected Anderson–Darling statistic, one pass
over the pairs for both (O(n) memory, parallel over rows), Watson's U² of sorted values, and
all three statistics for many Monte Carlo replicates at once (parallel over replicates).
The statistics themselves are defined in :mod:`stpca_gui.core.circstats.uniformity`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .._base.jit import kernel
from .._base.parallel import map_parallel, row_blocks

_PI = math.pi
_TWO_PI = 2.0 * math.pi
_HALF_PI = 0.5 * math.pi
_TWO_OVER_PI = 2.0 / math.pi
#: Null mean of the PAD pair term t log t + (2π − t) log(2π − t), t ~ U(0, π).
_PAD_PAIR_MEAN = _TWO_PI * math.log(_TWO_PI) - _PI


#: Floating-point flags of the pair loops: reassociation lets LLVM vectorise the sums.
_FAST = {"contract", "reassoc", "nsz"}
#: ln 2 split in a high part (exact in k·ln2_hi for |k| < 2^11) and a low part, and the
#: minimax coefficients of log(1 + f) = f − f²/2 + s (f²/2 + R(s²)), s = f/(2 + f), on
#: √2/2 ≤ 1 + f < √2, all from fdlibm's e_log.c (Sun Microsystems, freely redistributable).
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01


@kernel(fastmath=_FAST)
def _xlogx_sum(x: NDArray, count: int, mantissa_bits: NDArray, exponents: NDArray) -> float:
    """Σ x log x over x[:count] (x ≥ 0 and not subnormal; 0 log 0 = 0).

    A branch-free version of fdlibm's logarithm (measured relative error below 6e-16), so
    that the loops vectorise: libm's log is called one element at a time and costs about
    three times as much here.
    """
    bits = x.view(np.int64)
    for t in range(count):
        b = bits[t]
        high = b >> 32
        k = (high >> 20) - 1023
        high = high & 0xFFFFF
        half = (high + 0x95F64) & 0x100000  # normalise the mantissa to [√2/2, √2)
        mantissa_bits[t] = ((high | (half ^ 0x3FF00000)) << 32) | (b & 0xFFFFFFFF)
        exponents[t] = k + (half >> 20)
    mantissa = mantissa_bits.view(np.float64)
    total = 0.0
    for t in range(count):
        f = mantissa[t] - 1.0
        s = f / (2.0 + f)
        dk = exponents[t]
        z = s * s
        w = z * z
        r = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7))) + w * (_LG2 + w * (_LG4 + w * _LG6))
        hfsq = 0.5 * f * f
        total += x[t] * (dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f))
    return total


@kernel(fastmath=_FAST)
def _row_sums(
    theta: NDArray, cosines: NDArray, sines: NDArray, i: int, buffer: NDArray,
    mantissa_bits: NDArray, exponents: NDArray,
) -> tuple:
    """Centred pair terms of row i against j > i: (ψ − π/2, sin ψ − 2/π, PAD term − mean).

    ``buffer``, ``mantissa_bits`` and ``exponents`` are scratch arrays of length ≥ 2n
    (:func:`_row_sums_work`).
    """
    n = theta.size
    count = n - 1 - i
    ti = theta[i]
    ci = cosines[i]
    si = sines[i]
    acc_psi = 0.0
    acc_sin = 0.0
    for c in range(count):
        j = i + 1 + c
        d = abs(ti - theta[j])
        e = _TWO_PI - d
        buffer[c] = d
        buffer[count + c] = e
        acc_psi += min(d, e)
        acc_sin += abs(si * cosines[j] - ci * sines[j])
    acc_pad = _xlogx_sum(buffer, 2 * count, mantissa_bits, exponents)
    return (acc_psi - count * _HALF_PI, acc_sin - count * _TWO_OVER_PI,
            acc_pad - count * _PAD_PAIR_MEAN)


@kernel()
def _row_sums_work(n: int) -> tuple:
    """The scratch arrays of :func:`_row_sums` for n angles: buffer, mantissa bits and
    exponents, each of length 2n."""
    return np.empty(2 * n), np.empty(2 * n, dtype=np.int64), np.empty(2 * n)


@kernel()
def pair_sums_serial(theta: NDArray) -> tuple:
    n = theta.size
    cosines = np.cos(theta)
    sines = np.sin(theta)
    buffer, mantissa_bits, exponents = _row_sums_work(n)
    s_psi = 0.0
    s_sin = 0.0
    s_pad = 0.0
    for i in range(n - 1):
        a, b, c = _row_sums(theta, cosines, sines, i, buffer, mantissa_bits, exponents)
        s_psi += a
        s_sin += b
        s_pad += c
    return s_psi, s_sin, s_pad


@kernel()
def _paired_row_sums(theta: NDArray, cosines: NDArray, sines: NDArray, lo: int,
                     hi: int) -> tuple:
    """Sums of rows lo … hi − 1, each with its partner row n − 1 − i (equal work per i)."""
    n = theta.size
    buffer, mantissa_bits, exponents = _row_sums_work(n)
    s_psi = 0.0
    s_sin = 0.0
    s_pad = 0.0
    for i in range(lo, hi):
        a, b, c = _row_sums(theta, cosines, sines, i, buffer, mantissa_bits, exponents)
        partner = n - 1 - i
        if partner != i:
            a2, b2, c2 = _row_sums(theta, cosines, sines, partner, buffer, mantissa_bits,
                                   exponents)
            a += a2
            b += b2
            c += c2
        s_psi += a
        s_sin += b
        s_pad += c
    return s_psi, s_sin, s_pad


def pair_sums_parallel(theta: NDArray) -> tuple[float, float, float]:
    """:func:`pair_sums_serial` with blocks of rows on the kernel threads; rows i and
    n − 1 − i are processed together so that the blocks get equal work."""
    cosines = np.cos(theta)
    sines = np.sin(theta)

    def run(block: tuple[int, int]) -> tuple:
        return _paired_row_sums(theta, cosines, sines, block[0], block[1])

    totals = [0.0, 0.0, 0.0]
    for sums in map_parallel(run, row_blocks((theta.size + 1) // 2)):
        for k in range(3):
            totals[k] += sums[k]
    return totals[0], totals[1], totals[2]


@kernel()
def watson_sorted(u: NDArray) -> float:
    """Watson U² of sorted values u in [0, 1)."""
    n = u.size
    total = 0.0
    mean = 0.0
    for i in range(n):
        dev = u[i] - (2.0 * i + 1.0) / (2.0 * n)
        total += dev * dev
        mean += u[i]
    mean /= n
    return total - n * (mean - 0.5) ** 2 + 1.0 / (12.0 * n)


@kernel()
def statistics_from_sums(n: int, s_psi: float, s_sin: float, s_pad: float) -> tuple:
    gine = 1.5 - 4.0 / (_PI * n) * s_psi - _PI / (2.0 * n) * s_sin
    pad = 1.0 + 2.0 / (_PI * n) * s_pad
    return gine, pad


@kernel()
def _replicate_rows(samples: NDArray, out: NDArray) -> None:
    n = samples.shape[1]
    for b in range(samples.shape[0]):
        theta = samples[b]
        u = np.sort(theta) / _TWO_PI
        out[b, 0] = watson_sorted(u)
        s_psi, s_sin, s_pad = pair_sums_serial(theta)
        gine, pad = statistics_from_sums(n, s_psi, s_sin, s_pad)
        out[b, 1] = gine
        out[b, 2] = pad


def replicate_statistics(samples: NDArray, out: NDArray) -> None:
    """Watson, Giné F_n and PAD of every row of ``samples`` (angles in [0, 2π)) into
    ``out`` (rows, 3); blocks of rows run on the kernel threads."""

    def run(block: tuple[int, int]) -> None:
        _replicate_rows(samples[block[0]:block[1]], out[block[0]:block[1]])

    map_parallel(run, row_blocks(samples.shape[0], blocks_per_thread=1))
