"""Load (or, after an install, compile) every compiled kernel once, on tiny inputs.

numba compiles a kernel the first time it is called with given argument types and caches
the machine code on disk; later processes only load it. A fit loads only the kernels it
needs, when it needs them, so nothing here is required. :func:`warm_up` is for building a
cache ahead of time (the desktop bundle is shipped with one, so that its users never wait
for a compiler) and for a program that prefers to pay the loading cost at a moment of its
choosing. It calls each kernel with the argument types that real use passes; a test checks
that fitting, scoring, testing and clustering compile nothing it did not.
"""

from __future__ import annotations

import numpy as np

from .circstats import _excess_mass_kernel, _mode_test_kernel, _modes_kernel, _uniformity_kernel
from .geometry._torus_kernel import fill_torus_cdist
from .pns import _subsphere_kernel
from .prediction import _block_placing, _matrix_free_kernel, _prediction_kernel
from .smds import _diagnostics_kernel, _smds_kernel, landmarks, pair_stress, radius
from .smds._gram_stress import GramPairSums


def warm_up() -> None:
    """Call each compiled kernel once with inputs of the types that real use passes."""
    rng = np.random.default_rng(0)
    angles = rng.uniform(-np.pi, np.pi, (8, 3))
    units = rng.standard_normal((8, 4))
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    xt = np.ascontiguousarray(angles.T)
    yt = np.ascontiguousarray(units.T)
    chunks = _smds_kernel.balanced_chunks(8, 2)
    for gradient in (True, False):
        _smds_kernel.pair_sums(xt, yt, chunks, gradient)
        _smds_kernel.pair_sums_serial(xt, yt, gradient)
    gram = GramPairSums(xt, chunks)
    gram.gradient(gram.sums(units, keep=True)[3], 1.0, 0.0)
    radius._condensed_torus_distances(angles, np.empty(28))
    landmarks._lower_to_squared_distances(xt, 0, 0, 8, np.full(8, np.inf), np.empty(8))
    fill_torus_cdist(angles, angles, np.empty((8, 8)))
    _diagnostics_kernel.point_pair_sums(angles, units, angles[:3], units[:3])
    pairs = np.arange(4, dtype=np.intp)
    pair_stress._pair_squares(angles, units, 1.5, pairs, pairs[::-1].copy(), np.empty(4))
    starts = np.ascontiguousarray(angles[:2])
    _prediction_kernel.predict_torus(units[:2], angles, units, 1.5, starts, 5, 1e-12)
    _prediction_kernel.predict_torus_chain(units[:2], angles, units, 1.5, angles[0], 5, 1e-12)
    _prediction_kernel.interpolate_sphere(angles[:2], angles, units, 1.5, 5, 1e-12)
    for chain in (False, True):
        _matrix_free_kernel.predict_torus_cg(units[:2], angles, units, 1.5, starts, 5, 1e-12,
                                             chain=chain)
    _block_placing.interpolate_sphere_blocks(angles[:4], angles, units, 1.5, 5, 1e-12)
    for great in (True, False):
        _subsphere_kernel.objective_terms(units[None], np.zeros(2, dtype=np.int64),
                                          np.ascontiguousarray(units[:2]), great, True)
    sample = np.sort(angles[:, 0])
    _modes_kernel.windowed_log_kde_terms(sample[:2], sample, 0.5, 50.0, np.empty(2),
                                         np.empty(2))
    _mode_test_kernel.count_maxima_rows(units, 1e-9, np.empty(8, dtype=np.int64))
    cells = np.full((1, 8), 0.125)
    cells[0, 3] = 0.0
    _excess_mass_kernel.excess_mass_rows(cells, 1, 4, 2, np.empty(1))
    _excess_mass_kernel.excess_mass_statistic(np.ascontiguousarray(cells[0]), 1, 4, 2)
    circle = np.sort(rng.uniform(0.0, 2.0 * np.pi, 8))
    _uniformity_kernel.watson_sorted(circle / (2.0 * np.pi))
    sums = _uniformity_kernel.pair_sums_serial(circle)
    _uniformity_kernel.pair_sums_parallel(circle)
    _uniformity_kernel.statistics_from_sums(circle.size, *sums)
    _uniformity_kernel.replicate_statistics(circle.reshape(2, 4), np.empty((2, 3)))
