"""Memory needed by an ST-PCA fit, checked before the fit starts.

Two stages dominate the memory of a fit, one after the other, so its peak is the larger:

* spherical MDS works on a dense n × n float64 matrix (the torus distances turned into the
  classical-MDS start): 56 MB + 8 B · n², a few hundred MB at n = 6,000, about 7 GB at
  n = 30,000, more than most machines have at n = 50,000;
* principal nested spheres on all the points (n of them, or every placed point of a
  landmark fit): about 380 B + 16 B · (d + 1) per point, whatever the mode. Its isotropy
  test (``pns_mode="seq.test"``, when it runs) uses at most ``isotropy.N_TEST`` points and
  draws its bootstrap a chunk at a time, so it adds a bounded amount (``PNS_TEST_BYTES``)
  whatever n and ``n_bootstrap``. Whatever n, PNS keeps one m × m rotation per level,
  m = d + 1, d, …, 3 (``PrincipalNestedSpheres.rotations_``): 8 B · Σ m² ≈ 8 B · d³ / 3
  (:func:`pns_rotation_bytes`), nothing at d ≤ 7, 0.2 GiB at d = 426, 2.5 GiB at
  d = 1,000 and 170 GiB at d = 4,000. With few samples and many angles (a table of
  5 rows × 1,000 columns) this is the fit's peak, and a fit on too many angles is refused
  naming d.

A fit that would not fit in the memory available is refused before any work, with a
message saying what to do, instead of driving the machine into swapping.

Measured as the peak resident memory in a fresh process, above the memory of the process
before the fit (numpy, scipy and numba loaded); 50 SMDS iterations, default settings:

=========== ============= ===============================
n, d        measured       model (larger stage)
=========== ============= ===============================
3,000, 3     126 MB        128 MB (SMDS)
6,000, 3     342 MB        344 MB (SMDS)
9,000, 3     700 MB        704 MB (SMDS; PNS test not run)
=========== ============= ===============================

A fit of 5 × 1,000 uniform angles: 2,664 MB at the end of PNS (model: 2,587 MB, 2,555 MB
of it the rotations).

PNS alone (seq.test, 100 draws, three clusters with 10 % uniform points; the test ran on
5,000 points at one or more levels): 45 MB at n = 10⁵, d = 4; 132 MB at n = 3 · 10⁵,
d = 3; 455 / 470 / 494 MB at n = 10⁶ with d = 3 / 4 / 6 (``benchmarks/bench_scale.py``).
Before the test was bounded it took 220 B · n_bootstrap · n · (d + 1): 1,142 MB at
n = 8,000, d = 6; now 3 MB.
"""

from __future__ import annotations

import os

__all__ = [
    "FIT_BASE_BYTES",
    "FIT_BYTES_PER_PAIR",
    "MEMORY_HEADROOM",
    "PNS_BASE_BYTES",
    "PNS_BYTES_PER_COORDINATE",
    "PNS_BYTES_PER_POINT",
    "PNS_TEST_BYTES",
    "InsufficientMemoryError",
    "available_memory_bytes",
    "check_fit_memory",
    "estimate_fit_bytes",
    "estimate_pns_bytes",
    "largest_fitting_d",
    "largest_fitting_n",
    "pns_rotation_bytes",
]

#: Bytes per entry of the n × n matrices at the fit's peak (one float64 matrix; measured 7.95).
FIT_BYTES_PER_PAIR = 8.0
#: Bytes a fit needs whatever n (compiled kernels, work buffers; measured 56 MB).
FIT_BASE_BYTES = 64 * 2**20
#: Bytes of the PNS stage per point (angles, norms, projections), and per point and
#: coordinate: with PNS_BASE_BYTES, 5–6 % above the measurements at n = 10⁶ (d = 3, 4, 6).
PNS_BYTES_PER_POINT = 380.0
PNS_BYTES_PER_COORDINATE = 16.0
#: Bytes of the PNS stage whatever n.
PNS_BASE_BYTES = 32 * 2**20
#: Bytes of the isotropy test (at most N_TEST points, one chunk of the bootstrap at a time;
#: measured ≤ 3 MB at n = 8,000, d = 6, 100 draws), whatever n and n_bootstrap.
PNS_TEST_BYTES = 32 * 2**20
#: Share of the available memory a fit may take: the app, its views and the rest of the
#: machine need the remainder.
MEMORY_HEADROOM = 0.8


class InsufficientMemoryError(MemoryError, ValueError):
    """An exact fit would need more memory than the machine has available.

    Raised before the fit starts; a ``ValueError`` too, so callers that report bad input
    report this the same way.
    """


def pns_rotation_bytes(n_angles: int) -> int:
    """Bytes of the rotations a PNS fit on S^d keeps: one m × m float64 matrix per level,
    m = d + 1 down to 3."""
    m = int(n_angles) + 1
    squares = m * (m + 1) * (2 * m + 1) // 6 - 5  # Σ_{j=3}^{m} j²
    return 8 * max(squares, 0)


def largest_fitting_d(n_samples: int, budget: float, n_bootstrap: int = 0,
                      n_placed: int = 0) -> int:
    """The largest number of angles d whose fit (:func:`estimate_fit_bytes`, the other
    arguments as there) stays within ``budget`` bytes; 0 when not even d = 1 does."""
    def fits(d: int) -> bool:
        return estimate_fit_bytes(n_samples, d, n_bootstrap, n_placed) <= budget

    if not fits(1):
        return 0
    low, high = 1, 2
    while fits(high):
        low, high = high, 2 * high
    while high - low > 1:  # the estimate grows with d: bisection
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low


def estimate_pns_bytes(n_points: int, n_angles: int, n_bootstrap: int = 0) -> int:
    """Peak memory of the PNS stage on ``n_points`` points of S^d, in bytes.

    Parameters
    ----------
    n_points, n_angles : int
        Points PNS is fitted on and d.
    n_bootstrap : int, optional
        Bootstrap draws of the isotropy test when it may run, else 0. The test's memory is
        bounded (``PNS_TEST_BYTES``) whatever the number of draws and points.
    """
    per_point = PNS_BYTES_PER_POINT + PNS_BYTES_PER_COORDINATE * (int(n_angles) + 1)
    test = PNS_TEST_BYTES if int(n_bootstrap) > 0 else 0
    return int(PNS_BASE_BYTES + per_point * int(n_points) + test
               + pns_rotation_bytes(n_angles))


def estimate_fit_bytes(
    n_samples: int, n_angles: int, n_bootstrap: int = 0, n_placed: int = 0
) -> int:
    """Peak memory of a fit, in bytes (see the module's measurements).

    Parameters
    ----------
    n_samples, n_angles : int
        Points on which spherical MDS is solved (all n, or the m landmarks) and d.
    n_bootstrap : int, optional
        Bootstrap draws of the PNS isotropy test when it may run (``pns_mode="seq.test"``),
        else 0.
    n_placed : int, optional
        For a landmark fit, all n samples (placed on the sphere by interpolation); 0 for
        an exact fit.
    """
    n_smds, m = int(n_samples), int(n_angles) + 1
    n_all = max(n_smds, int(n_placed))
    smds = FIT_BASE_BYTES + FIT_BYTES_PER_PAIR * n_smds * n_smds
    pns = estimate_pns_bytes(n_all, n_angles, n_bootstrap)
    per_sample = 8 * 16 * m  # data, embeddings, scores, curve matching: small beside these
    return int(max(smds, pns) + per_sample * n_all)


def available_memory_bytes() -> int | None:
    """Memory available to new allocations without swapping, in bytes; None when unknown.

    Linux's ``MemAvailable`` (free memory plus the caches that can be dropped), else the
    free physical pages.
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.1f} GiB"


def largest_fitting_n(n_angles: int, budget: float, n_bootstrap: int = 0) -> int:
    """The largest number of samples whose exact fit stays within ``budget`` bytes."""
    low, high = 0, 1
    while estimate_fit_bytes(high, n_angles, n_bootstrap) <= budget:
        low, high = high, 2 * high
    while high - low > 1:  # the estimate grows with n: bisection
        middle = (low + high) // 2
        if estimate_fit_bytes(middle, n_angles, n_bootstrap) <= budget:
            low = middle
        else:
            high = middle
    return low


def check_fit_memory(
    n_samples: int, n_angles: int, n_bootstrap: int = 0, n_placed: int = 0
) -> None:
    """Refuse a fit that would not fit in the memory available.

    Parameters
    ----------
    n_samples, n_angles, n_bootstrap, n_placed : int
        As for :func:`estimate_fit_bytes`.

    Raises
    ------
    InsufficientMemoryError
        With a message naming n, the estimate, the memory available and what to do.
        Nothing is raised when the available memory cannot be known.
    """
    available = available_memory_bytes()
    if available is None:
        return
    needed = estimate_fit_bytes(n_samples, n_angles, n_bootstrap, n_placed)
    budget = MEMORY_HEADROOM * available
    if needed <= budget:
        return
    rotations = pns_rotation_bytes(n_angles)
    if rotations > 0.5 * needed:
        raise InsufficientMemoryError(
            f"a fit on d = {n_angles:,} angles needs about {_gib(needed)} of memory, "
            f"{_gib(rotations)} of it for the rotations of principal nested spheres (one "
            f"(d + 1)² matrix per level, growing as d³), but only {_gib(available)} is "
            f"available; fit at most "
            f"{largest_fitting_d(n_samples, budget, n_bootstrap, n_placed):,} angles "
            f"(select the columns that vary most), or use a machine with more memory"
        )
    if n_placed:
        raise InsufficientMemoryError(
            f"a fit of n = {n_placed:,} samples on {n_samples:,} landmarks needs about "
            f"{_gib(needed)} of memory, but only {_gib(available)} is available; use fewer "
            f"landmarks, fit a random subsample, or use a machine with more memory"
        )
    fitting = largest_fitting_n(n_angles, budget, n_bootstrap)
    raise InsufficientMemoryError(
        f"an exact fit of n = {n_samples:,} samples needs about {_gib(needed)} of memory, "
        f"but only {_gib(available)} is available; fit on landmarks (n_landmarks, "
        f"--landmarks), fit a random subsample of at most {fitting:,} samples, or use a "
        f"machine with more memory"
    )
