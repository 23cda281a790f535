"""The tests of PNS's sequential procedure: great or small sphere at each level.

shapes' ``seq.test`` compares a level's great and small spheres by a likelihood-ratio test
(χ²₁) and, when that rejects the great sphere, by a parametric-bootstrap isotropy test under a
von Mises–Fisher fit (shapes' ``LRTpval`` and ``vMFtest``). See ``docs/pns.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import chdtrc

from .._base.parallel import map_parallel
from .._base.progress import CancelCheck
from .subsphere import HIGH_DIM, fit_subspheres, geodesic_angles

#: LM iteration limit of the bootstrap fits.
_MAX_ITER_BOOT = 100
#: Bootstrap samples × points drawn and fitted as one batch (about 0.2 s of work, a few MB
#: of memory).
_BOOTSTRAP_CHUNK_POINTS = 20_000
#: Chunks drawn and fitted at once, each on its own kernel thread, between two cancel
#: checks. A constant, not the number of cores: a sequential test's chunks (hence the
#: replicates it draws) must not depend on the machine.
_CHUNKS_PER_WAVE = 2
#: A sequential test (fits on S^d, d ≥ 8) may stop and reject isotropy once this many
#: replicates are drawn, none above the observed statistic, and the observed statistic lies
#: more than SEQUENTIAL_REJECT_SD of their standard deviations above their mean.
SEQUENTIAL_MIN_REPLICATES = 20
#: By Cantelli's inequality a replicate then exceeds the observed statistic with probability
#: below 1/(1 + 10²) ≈ 1 % (below 1.7 % if the estimated sd is 30 % short), so that the
#: full test would have had more than α·100 = 10 exceedances, and accepted, with
#: probability below 2·10⁻⁶. Measured on the torsion-state data at d = 20 and 66: the
#: observed statistic was 8.5–120 sd above the first 20 replicates' mean at all 24 levels
#: whose test rejected (docs/high_dimension.md).
SEQUENTIAL_REJECT_SD = 10.0
#: Largest number of points the isotropy test runs on; beyond, it runs on a random
#: subsample of this many (see :func:`vmf_test_pvalue` and docs/pns.md).
N_TEST = 5_000


# --------------------------------------------------------------------------------------------
# Tests used by the sequential procedure
# --------------------------------------------------------------------------------------------


def lrt_pvalue(res_great: NDArray[np.float64], res_small: NDArray[np.float64]) -> float:
    """Likelihood-ratio test of great vs small sphere (shapes' LRTpval, upper tail).

    ``stat = max(n log(Σ ξ_great² / Σ ξ_small²), 0)`` compared with χ²₁.
    """
    n = res_great.size
    ss_g = float(np.sum(res_great**2))
    ss_s = float(np.sum(res_small**2))
    if ss_g <= ss_s:
        stat = 0.0
    elif ss_s <= 0.0:
        stat = np.inf
    else:
        stat = n * np.log(ss_g / ss_s)
    return float(chdtrc(1, stat))  # chi-squared(1) survival function


@lru_cache(maxsize=4)
def _vmf_north(m: int, kappa: float) -> Any:
    """The von Mises–Fisher distribution on S^{m−1} ⊂ R^m with mean e_m (frozen scipy).

    ``scipy.stats.vonmises_fisher`` (Wood's rejection sampler, exact inversion on S²): as
    fast as a vectorised sampler of our own here (measured at n = 5000, m = 4, 100 samples).
    Made once per test: building the frozen object (and its docstring) took 4 ms, 40 % of
    the bootstrap at d = 20, n = 500 when it was made for every replicate.
    """
    if not kappa > 0.0:  # scipy rejects κ = 0, the uniform distribution
        from scipy.stats import uniform_direction  # a 2 s import: only when a test needs it

        return uniform_direction(m)
    north = np.zeros(m)
    north[-1] = 1.0
    from scipy.stats import vonmises_fisher

    return vonmises_fisher(north, kappa)


def _radial_ratio(theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """mean / sd (ddof 1) of the radial distances, along the last axis."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return theta.mean(axis=-1) / theta.std(axis=-1, ddof=1)


def _replicate_draws(
    seed: int, first: int, count: int, n: int, m: int, kappa: float,
    distribution: Any = None,
) -> NDArray[np.float64]:
    """Bootstrap samples ``first … first + count − 1``, shape (count, n, m).

    Replicate b is drawn by its own generator, seeded by (``seed``, b): the samples do not
    depend on how the replicates are split into chunks. ``distribution`` is
    :func:`_vmf_north` (m, κ), made here when not given.
    """
    if distribution is None:
        distribution = _vmf_north(m, float(kappa))
    out = np.empty((count, n, m))
    for k in range(count):
        out[k] = distribution.rvs(n, random_state=np.random.default_rng([seed, first + k]))
    return out


def _replicate_statistics(
    seed: int, first: int, count: int, n: int, m: int, kappa: float, distribution: Any,
    mean_start: bool,
) -> NDArray[np.float64]:
    """The statistic (mean / sd of the radial distances to the fitted small sphere's axis)
    of bootstrap replicates ``first … first + count − 1``: one chunk, drawn and fitted on
    the calling thread."""
    part = _replicate_draws(seed, first, count, n, m, kappa, distribution)
    v_b, _, _ = fit_subspheres(part, great=False, max_iter=_MAX_ITER_BOOT,
                               mean_start=mean_start, parallel=False)
    c = np.einsum("bnm,bm->bn", part, v_b)
    s = np.linalg.norm(part - c[:, :, None] * v_b[:, None, :], axis=2)
    return _radial_ratio(np.arctan2(s, c))


def _chunk_replicates(n: int, sequential: bool) -> int:
    """Replicates per chunk for samples of ``n`` points.

    About :data:`_BOOTSTRAP_CHUNK_POINTS` points a chunk; for a sequential test, the
    nearest size at which a whole number of waves reaches the
    :data:`SEQUENTIAL_MIN_REPLICATES` the reject rule needs (5 replicates of 5,000 points:
    two waves of two chunks), so that no wave is drawn beyond it for nothing.
    """
    size = max(1, _BOOTSTRAP_CHUNK_POINTS // n)
    if not sequential:
        return size
    per_wave = _CHUNKS_PER_WAVE
    waves = max(1, SEQUENTIAL_MIN_REPLICATES // (per_wave * size))
    return -(-SEQUENTIAL_MIN_REPLICATES // (per_wave * waves))


@dataclass(frozen=True)
class IsotropyTest:
    """Outcome of :func:`vmf_test_pvalue`.

    Attributes
    ----------
    p_value : float
        Share of the bootstrap statistics above the observed one (NaN without replicates).
    n_points : int
        Points the test used: all of them, or the random subsample of ``N_TEST``.
    n_replicates : int
        Bootstrap replicates drawn: all of them, or fewer when a sequential test stopped as
        soon as its decision was known (``stop_above`` of :func:`vmf_test_pvalue`).
    """

    p_value: float
    n_points: int
    n_replicates: int = 0


def isotropy_subsample(n: int, rng: np.random.Generator) -> NDArray[np.int64] | None:
    """Sorted indices of the points the isotropy test uses, or None for all ``n``.

    Up to :data:`N_TEST` points the test uses them all and draws nothing from ``rng``;
    beyond, it uses a uniform random subsample of ``N_TEST`` points without replacement,
    drawn from ``rng`` (so seeded by the estimator's ``random_state``).
    """
    if n <= N_TEST:
        return None
    return np.sort(rng.choice(n, size=N_TEST, replace=False))


def vmf_test_pvalue(
    x: NDArray[np.float64],
    center_small: NDArray[np.float64] | None,
    n_bootstrap: int,
    rng: np.random.Generator,
    check: CancelCheck | None = None,
    stop_above: float | None = None,
    high_dim: bool | None = None,
) -> IsotropyTest:
    """Parametric-bootstrap isotropy test (shapes' vMFtest), on at most ``N_TEST`` points.

    The statistic is mean/sd of the radial distances to the fitted small sphere's axis; the
    null distribution comes from ``n_bootstrap`` vMF samples of as many points, with the
    approximate MLE of κ. With more than :data:`N_TEST` points the whole test — κ, the small
    sphere and the statistic — runs on a random subsample of ``N_TEST`` of them
    (:func:`isotropy_subsample`): shapes' test applied to that subsample, whose cost and memory
    no longer grow with n (docs/pns.md, "The isotropy test at large n").
    ``center_small`` is the small sphere's axis fitted on ``x`` (None to fit it here); a
    subsample gets its own fit, as each bootstrap sample does.

    The replicates are drawn and fitted a chunk at a time (about
    ``_BOOTSTRAP_CHUNK_POINTS`` points each; replicate b drawn from its own generator seeded
    by one draw from ``rng`` and b), so memory stays bounded and the p-value does not depend
    on the chunks; :data:`_CHUNKS_PER_WAVE` chunks run at once on the kernel threads
    (each replicate fitted exactly as alone). ``check`` (optional) is called before each
    wave of chunks and raises :class:`~stpca_gui.core._base.progress.FitCancelled` to stop.

    With ``stop_above`` (the test level α) the test is sequential. It stops after the
    chunk in which more than α · ``n_bootstrap`` replicates have exceeded the observed
    statistic (Besag & Clifford 1991), when the full test's p-value is sure to exceed α:
    that decision is the full test's with the same draws. It also stops, and rejects, once
    :data:`SEQUENTIAL_MIN_REPLICATES` replicates lie all below the observed statistic by
    more than :data:`SEQUENTIAL_REJECT_SD` of their standard deviations: the full test
    would reject too, but for a chance below 2·10⁻⁶. The p-value returned is the share of
    the replicates drawn that exceeded the observed statistic; decisions are made after
    each chunk in order, so the chunks of a wave beyond a decision are not counted.

    With ``high_dim`` (default: above :data:`~stpca_gui.core.pns.subsphere.HIGH_DIM`
    coordinates; PNS passes it for every level of a fit on S^d with d ≥ 8) each
    replicate's small sphere is fitted from the mean direction alone, and a subsample's
    from shapes' starts without the principal directions (docs/high_dimension.md).
    """
    chosen = isotropy_subsample(x.shape[0], rng)
    if chosen is not None:
        x = np.ascontiguousarray(x[chosen])
        center_small = None
    n, m = x.shape
    if high_dim is None:
        high_dim = m > HIGH_DIM
    if center_small is None:
        center_small = fit_subspheres(x[None], great=False, extended=not high_dim)[0][0]
    sumx = x.sum(axis=0)
    rbar = min(float(np.linalg.norm(sumx)) / n, 1.0 - 1e-12)
    kappa = (rbar * m - rbar**3) / (1.0 - rbar * rbar)
    xi_sample = float(_radial_ratio(geodesic_angles(x, center_small)))
    if n_bootstrap <= 0:
        return IsotropyTest(float("nan"), n)
    if check is not None:
        check()
    seed = int(rng.integers(0, 2**63 - 1))
    distribution = _vmf_north(m, float(kappa))
    xi_boot = np.empty(n_bootstrap)
    chunk = _chunk_replicates(n, stop_above is not None)
    firsts = list(range(0, n_bootstrap, chunk))
    for wave in range(0, len(firsts), _CHUNKS_PER_WAVE):
        if check is not None:
            check()
        begins = firsts[wave:wave + _CHUNKS_PER_WAVE]
        statistics = map_parallel(
            lambda begin: _replicate_statistics(seed, begin, min(chunk, n_bootstrap - begin),
                                                n, m, kappa, distribution, high_dim),
            begins)
        for begin, values in zip(begins, statistics, strict=True):
            done = begin + values.size
            xi_boot[begin:done] = values
            if stop_above is not None and done < n_bootstrap and _decided(
                    xi_boot[:done], xi_sample, stop_above * n_bootstrap):
                return IsotropyTest(float(np.mean(xi_boot[:done] > xi_sample)), n, done)
    return IsotropyTest(float(np.mean(xi_boot > xi_sample)), n, n_bootstrap)


def _decided(xi_boot: NDArray[np.float64], xi_sample: float, most: float) -> bool:
    """Whether a sequential test can stop: more than ``most`` replicates above the observed
    statistic (accept), or enough replicates all far below it (reject)."""
    exceeded = int(np.sum(xi_boot > xi_sample))
    if exceeded > most:
        return True
    if exceeded or xi_boot.size < SEQUENTIAL_MIN_REPLICATES:
        return False
    spread = float(np.std(xi_boot, ddof=1))
    return bool(xi_sample - float(np.mean(xi_boot)) > SEQUENTIAL_REJECT_SD * spread)
