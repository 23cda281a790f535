"""dPCA+ (Sittel et al., 2017): PCA of the angles with every periodic boundary moved to its
lowest-density region (:func:`maximal_gap_cuts`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.progress import CancelCheck
from ..geometry.torus import TWO_PI, wrap_angles
from ..geometry.validation import check_angles
from .euclidean import no_check, result_from_real
from .result import BaselineResult, angle_labels


def maximal_gap_cuts(angles: ArrayLike, n_bins: int = 10) -> NDArray[np.float64]:
    """Periodic cut of every angle placed in its lowest-density region (histogram rule).

    Each column is binned into ``n_bins`` equal bins on [-π, π).  Among the bins with the
    smallest count, the longest circular run of consecutive such bins is taken (the first
    one if several are equally long) and the cut is placed at the centre of that run — for a
    single emptiest bin, at the centre of that bin, as in the paper's dPCA+ set-up.  If all
    bins have the same count there is no preferred region and the cut stays at -π.

    Parameters
    ----------
    angles : array_like, shape (n, d)
        Angles in radians.
    n_bins : int, default 10
        Number of histogram bins (the paper used 10).

    Returns
    -------
    ndarray, shape (d,)
        Cut angles in [-π, π).
    """
    x = check_angles(angles)
    bins = int(n_bins)
    if bins != n_bins or bins < 2:
        raise ValueError(f"n_bins must be an integer ≥ 2, got {n_bins!r}")
    width = TWO_PI / bins
    index = np.minimum(np.floor((x + np.pi) / width).astype(np.int64), bins - 1)
    cuts = np.empty(x.shape[1])
    for k in range(x.shape[1]):
        counts = np.bincount(index[:, k], minlength=bins)
        lowest = counts == counts.min()
        if lowest.all():
            cuts[k] = -np.pi
            continue
        # Longest circular run of lowest bins; start scanning just after a non-lowest bin.
        start0 = int(np.flatnonzero(~lowest)[0]) + 1
        best_start, best_len, run_start, run_len = 0, 0, 0, 0
        for step in range(bins):
            b = (start0 + step) % bins
            if lowest[b]:
                if run_len == 0:
                    run_start = b
                run_len += 1
                if run_len > best_len:
                    best_start, best_len = run_start, run_len
            else:
                run_len = 0
        cuts[k] = -np.pi + (best_start + 0.5 * best_len) * width
    return wrap_angles(cuts)


def dihedral_pca_plus(angles: ArrayLike, n_bins: int = 10, *,
                      check: CancelCheck | None = None) -> BaselineResult:
    """dPCA+ (Sittel et al., 2017): PCA of maximal-gap-shifted angles.

    For every angle the periodic boundary is moved to its region of lowest density (cut c_k
    from :func:`maximal_gap_cuts`, 10-bin histograms as in the paper); each angle is then
    represented on the interval of length 2π that starts or ends at the cut,

        θ'_k = c_k + ((θ_k − c_k) mod 2π) ∈ [c_k, c_k + 2π)      if c_k ≤ 0,
        θ'_k = c_k − ((c_k − θ_k) mod 2π) ∈ (c_k − 2π, c_k]       if c_k > 0,

    so the data are contiguous (no point crosses the boundary when there is a gap) and keep
    their original values modulo 2π; ordinary covariance PCA of θ' follows, directly on the
    angles and not on a sine/cosine embedding.

    Parameters
    ----------
    angles : array_like, shape (n, d)
        Angles in radians.
    n_bins : int, default 10
        Number of histogram bins used to locate the lowest-density region.

    Returns
    -------
    BaselineResult
        ``name="dPCA+"``, q = d.  Extras: ``"cuts"`` (d,) the cut angles c_k in
        [-π, π) and ``"shifted_angles"`` (n, d) the angles θ'.

    Notes
    -----
    Sittel et al. place the boundary in the maximal gap of the sampled angles; on finite
    samples without an empty arc the paper's histogram rule (emptiest of ``n_bins`` bins)
    is used, which is what is implemented here.  A constant shift per column does not
    change the PCA, so the choice of interval representative is immaterial.
    """
    x = check_angles(angles)
    check = check or no_check
    cuts = maximal_gap_cuts(x, n_bins)
    check()
    up = np.mod(x - cuts, TWO_PI)
    down = np.mod(cuts - x, TWO_PI)
    shifted = np.where(cuts <= 0.0, cuts + up, cuts - down)
    check()
    return result_from_real(
        "dPCA+", shifted, [f"{s}′" for s in angle_labels(x.shape[1])],
        {"cuts": cuts, "shifted_angles": shifted},
    )
