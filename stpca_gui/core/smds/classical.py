"""Classical MDS of the torus distances: the start configuration of SMDS.

Torgerson's Euclidean classical MDS, or its spherical analogue for a given radius, of the
n×n torus distance matrix, built and transformed in place block of rows by block of rows so
that every pass can be cancelled; the leading eigenpairs come from a dense solver for small
n and from block subspace iteration (:func:`leading_eigenpairs`) for large n.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from numpy.typing import NDArray

from .._base.progress import CancelCheck
from .._base.row_slices import row_slices
from ..geometry.torus import torus_pdist_blocks

#: Above this n the classical-MDS start uses a sparse eigensolver instead of a full one.
_DENSE_EIGH_MAX_N = 1500
#: Entries of the n×n start matrix handled between two cancel checks (about 30 ms of work).
_START_BLOCK_ENTRIES = 1 << 22
#: Block subspace iterations of the classical-MDS start for large n.
_START_SUBSPACE_ITERATIONS = 8


def classical_mds(
    angles: NDArray[np.float64],
    n_components: int,
    random_state: np.random.Generator,
    *,
    sphere_radius: float | None = None,
    check: CancelCheck | None = None,
) -> NDArray[np.float64]:
    """Classical MDS of the torus distances, rows normalised to unit length.

    Parameters
    ----------
    angles : ndarray, shape (n, d)
    n_components : int
        Dimension of the embedding space (d + 1 for S^d).
    random_state : numpy.random.Generator
        Start vector of the sparse eigensolver and directions for degenerate rows.
    sphere_radius : float, optional
        None gives Torgerson's Euclidean classical MDS (double-centred -D²/2). A radius r
        gives its spherical analogue: the leading eigenvectors of the Gram matrix
        cos(min(δ/r, π)) of points on S^d_r (the matrix of the embedding theorem quoted in
        section 2.1 of the paper), which is exact when the distances are spherical.
    check : callable, optional
        Called between blocks of rows of the n×n matrix and between subspace iterations;
        it raises :class:`~stpca_gui.core._base.progress.FitCancelled` to stop. The result does
        not depend on it.

    Notes
    -----
    Exactly one n×n matrix is allocated and transformed in place, block of rows by block
    of rows, so that every pass over it can be cancelled. Rows that land on the origin (no
    direction) get a random unit vector.
    """
    n = angles.shape[0]
    gram = np.empty((0, 0))
    row_means = np.empty(n)
    for rows, gram in torus_pdist_blocks(angles, check):
        block = gram[rows]
        if sphere_radius is None:
            np.square(block, out=block)
            row_means[rows] = block.mean(axis=1)
        else:
            block /= sphere_radius
            np.minimum(block, np.pi, out=block)
            np.cos(block, out=block)
    if sphere_radius is None:
        grand_mean = row_means.mean()
        for rows in _row_blocks(n):
            _call(check)
            block = gram[rows]
            block -= row_means[rows, None]
            block -= row_means[None, :]
            block += grand_mean
            block *= -0.5
    k = min(n_components, n - 1)
    _call(check)
    if n <= _DENSE_EIGH_MAX_N:
        values, vectors = scipy.linalg.eigh(gram, subset_by_index=(n - k, n - 1))
    else:
        values, vectors = leading_eigenpairs(gram, k, random_state, check=check)
    del gram
    order = np.argsort(values)[::-1]
    coords = vectors[:, order] * np.sqrt(np.clip(values[order], 0.0, None))
    coords *= _column_signs(coords)
    config = np.zeros((n, n_components))
    config[:, :k] = coords
    return normalize_rows(config, random_state)


def leading_eigenpairs(
    matrix: NDArray[np.float64],
    k: int,
    random_state: np.random.Generator,
    *,
    oversample: int = 10,
    n_iter: int = _START_SUBSPACE_ITERATIONS,
    check: CancelCheck | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Approximate largest eigenpairs of a symmetric matrix by block subspace iteration.

    A start configuration needs a few correct digits, not many; block products with the
    n×n matrix run in BLAS (which releases the GIL, so a GUI thread stays responsive, unlike
    ARPACK's Fortran driver) and ``oversample`` extra vectors make the convergence depend
    on the gap to the (k + oversample)-th eigenvalue rather than to the (k + 1)-th.
    ``check`` (optional) is called between blocks of rows of every product; it raises
    :class:`~stpca_gui.core._base.progress.FitCancelled` to stop.
    """
    n = matrix.shape[0]
    width = min(n, k + oversample)
    basis, _ = np.linalg.qr(_blocked_product(matrix, random_state.standard_normal((n, width)),
                                             check))
    for _ in range(n_iter):
        basis, _ = np.linalg.qr(_blocked_product(matrix, basis, check))
    small = basis.T @ _blocked_product(matrix, basis, check)
    values, rotation = np.linalg.eigh((small + small.T) / 2.0)
    order = np.argsort(values)[::-1][:k]
    return values[order], basis @ rotation[:, order]


def _column_signs(coords: NDArray[np.float64]) -> NDArray[np.float64]:
    """Signs that make each column's largest entry positive.

    An eigenvector's sign is arbitrary and eigensolvers choose it differently on
    different machines; fixing it makes the start configuration, and so the fit, the same.
    """
    if coords.size == 0:
        return np.ones(coords.shape[1])
    largest = coords[np.argmax(np.abs(coords), axis=0), np.arange(coords.shape[1])]
    return np.where(largest < 0.0, -1.0, 1.0)


def _row_blocks(n: int) -> list[slice]:
    """Slices of rows of an n×n matrix, each about ``_START_BLOCK_ENTRIES`` entries."""
    return row_slices(n, _START_BLOCK_ENTRIES // max(n, 1))


def _blocked_product(
    matrix: NDArray[np.float64], vectors: NDArray[np.float64], check: CancelCheck | None
) -> NDArray[np.float64]:
    """``matrix @ vectors`` by blocks of rows, calling ``check`` (if given) before each block.

    The blocks are the same with or without ``check``: some BLAS kernels round a row
    block differently from the whole product, and a fit must not depend on whether it
    can be cancelled.
    """
    out = np.empty((matrix.shape[0], vectors.shape[1]))
    for rows in _row_blocks(matrix.shape[0]):
        _call(check)
        np.matmul(matrix[rows], vectors, out=out[rows])
    return out


def _call(check: CancelCheck | None) -> None:
    if check is not None:
        check()


def normalize_rows(
    vectors: NDArray[np.float64], random_state: np.random.Generator
) -> NDArray[np.float64]:
    """Scale rows to unit length, giving rows of (near) zero length a random direction."""
    out = np.array(vectors, dtype=np.float64)
    norms = np.linalg.norm(out, axis=1)
    scale = norms.max() if norms.size else 0.0
    degenerate = norms <= 1e-12 * max(scale, 1.0)
    if degenerate.any():
        out[degenerate] = random_state.standard_normal((int(degenerate.sum()), out.shape[1]))
        norms[degenerate] = np.linalg.norm(out[degenerate], axis=1)
    return out / norms[:, None]
