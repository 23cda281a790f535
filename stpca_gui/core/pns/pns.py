"""Principal Nested Spheres (PNS; Jung, Dryden & Marron 2012), as in R ``shapes::pns``.

Step 2 of ST-PCA (paper, eq. PNS and §3.3): a decreasing sequence of subspheres
S^d ⊃ S^{d-1} ⊃ … ⊃ S^1 ⊃ {μ} is fitted to points on the unit sphere, each level by
:mod:`~stpca_gui.core.pns.subsphere` (small or great sphere, chosen by ``mode``; the sequential
tests are in :mod:`~stpca_gui.core.pns.isotropy`). The scores are the signed residuals of the
levels and, on the final circle, the angle about the circular Fréchet mean, in shapes' order,
signs and units (arc lengths on the original sphere). Sign conventions, rank-deficient data
and the fitting method are described in ``docs/pns.md``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base.params import Estimator, Interval, Options, estimator, parameter
from .._base.progress import CancelCheck
from .._base.random import RANDOM_STATE, RandomStateLike, check_random_state
from .._base.registry import model_file_class
from ..circstats.circular import circular_frechet_mean
from ..geometry.torus import wrap_angles
from .isotropy import lrt_pvalue, vmf_test_pvalue
from .reduction import (
    EXACT_LEVELS,
    great_run_angles,
    great_runs,
    reduce_to_principal_subsphere,
    reduced_levels,
)
from .subsphere import (
    HALF_PI,
    HIGH_DIM,
    check_spread,
    fit_level,
    fit_one_level,
    fit_subsphere,
    geodesic_angles,
    project_to_subsphere,
    rotate_rows,
    rotation_to_north_pole,
    row_blocks,
    sphere_rows,
    subsphere_objective,
)

__all__ = [
    "PNS_MODES",
    "PrincipalNestedSpheres",
    "fit_subsphere",
    "rotation_to_north_pole",
    "subsphere_objective",
]


#: Minimum number of samples.
_MIN_SAMPLES = 3


def _left_singular(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Left singular vectors (all k) and singular values of the k × n matrix ``x.T``.

    Above :data:`~stpca_gui.core.pns.subsphere.HIGH_DIM` coordinates with n > k they come
    from the triangular factor of a QR decomposition of ``x`` (k × k), which spares the
    SVD's k × n right factor (536 MB at n = 10⁶, k = 67).
    """
    n, k = x.shape
    if k > HIGH_DIM and n > k:
        return np.linalg.svd(np.linalg.qr(x, mode="r").T)[:2]
    # All k left singular vectors are needed for the null space, which needs full_matrices
    # only when k > n.
    return np.linalg.svd(x.T, full_matrices=k > n)[:2]


class _LevelFit:
    """One level of PNS fitted by ``mode``: the subsphere, and for "seq.test" its tests.

    Calling it on a level's points returns (axis, radius, objective, kind); ``p_values``
    and ``test_size`` (points, replicates of the isotropy test) then describe its tests.
    Once a level is found isotropic every later one is a great sphere without tests.
    ``sequential`` (fits above S^7) makes the isotropy test stop as soon as its decision is
    known and fit its replicates from the mean direction
    (:func:`~stpca_gui.core.pns.isotropy.vmf_test_pvalue`), and the subspheres start from
    three axes on a subsample (:func:`~stpca_gui.core.pns.subsphere.fit_level`), at every
    level.
    """

    def __init__(self, mode: str, alpha: float, n_bootstrap: int, rng: np.random.Generator,
                 check: CancelCheck | None, sequential: bool) -> None:
        self.mode, self.alpha, self.n_bootstrap = mode, alpha, n_bootstrap
        self.rng, self.check, self.sequential = rng, check, sequential
        self.isotropic = False
        self.p_values = (np.nan, np.nan)
        self.test_size = (0, 0)

    def __call__(self, cur: NDArray[np.float64]) -> tuple[NDArray[np.float64], float, float,
                                                         str]:
        self.p_values, self.test_size = (np.nan, np.nan), (0, 0)
        check = self.check
        if self.mode in ("small", "great") or (self.mode == "seq.test" and self.isotropic):
            great = self.mode == "great" or self.isotropic
            v, r, f = fit_one_level(cur, great=great, check=check, high_dim=self.sequential)
            return v, r, f, "great" if great else "small"
        (v_s, r_s, f_s), (v_g, r_g, f_g) = fit_level(cur, (False, True), check=check,
                                                      high_dim=self.sequential)
        small, great = (v_s, r_s, f_s, "small"), (v_g, r_g, f_g, "great")
        n, m = cur.shape
        if self.mode == "bic":
            tiny = np.finfo(np.float64).tiny
            dim = m - 1
            bic_s = n * np.log(max(f_s, tiny)) + (dim + 1) * np.log(n)
            bic_g = n * np.log(max(f_g, tiny)) + dim * np.log(n)
            return great if bic_s > bic_g else small
        res_s = geodesic_angles(cur, v_s) - r_s
        res_g = geodesic_angles(cur, v_g) - r_g
        p1 = lrt_pvalue(res_g, res_s)
        if p1 > self.alpha:
            self.p_values = (p1, np.nan)
            return great
        isotropy = vmf_test_pvalue(cur, v_s, self.n_bootstrap, self.rng, check,
                                   stop_above=self.alpha if self.sequential else None,
                                   high_dim=self.sequential)
        self.p_values = (p1, isotropy.p_value)
        self.test_size = (isotropy.n_points, isotropy.n_replicates)
        if isotropy.p_value > self.alpha:
            self.isotropic = True
            return great
        return small


# --------------------------------------------------------------------------------------------
# Estimator
# --------------------------------------------------------------------------------------------


#: The ways PNS chooses small or great subspheres (R ``shapes::pns`` ``sphere.type``).
PNS_MODES = ("seq.test", "small", "great", "bic")


@model_file_class()
@estimator
class PrincipalNestedSpheres(Estimator):
    """Principal Nested Spheres for data on S^d (R ``shapes::pns`` semantics).

    Attributes
    ----------
    n_features_in_ : int
        Ambient dimension d + 1.
    n_components_ : int
        Number of scores d.
    scores_ : ndarray, shape (n, d)
        PNS scores of the training data (see :meth:`transform`).
    explained_variance_ : ndarray, shape (d,)
        Uncentred variance ``mean(scores_[:, k] ** 2)`` of each score (as shapes).
    explained_variance_ratio_ : ndarray, shape (d,)
        ``explained_variance_ / explained_variance_.sum()``.
    total_variance_ : float
        ``explained_variance_.sum()``.
    centers_ : ndarray, shape (d − 1, d + 1)
        Axis v_k of each level k (first fit first) in the original coordinates (the
        fixtures' ``center_orig``).
    centers_local_ : list of ndarray
        The same axes in the coordinates of their own level: ``centers_local_[k]`` has
        length d + 1 − k (the fixtures' ``center_local``).
    radii_ : ndarray, shape (d − 1,)
        Geodesic radius r_k ∈ (0, π/2] of each subsphere (π/2 for great spheres).
    sphere_types_ : list of str
        ``"small"`` or ``"great"`` per level.
    p_values_ : ndarray, shape (d − 1, 2)
        Per level, the LRT p-value and the vMF-bootstrap p-value (NaN when not computed).
    isotropy_test_points_ : ndarray of int, shape (d − 1,)
        Per level, the number of points the vMF-bootstrap isotropy test ran on: all n up to
        ``isotropy.N_TEST`` (5,000), else a random subsample of ``N_TEST`` points drawn
        with ``random_state``; 0 where the test did not run.
    isotropy_test_replicates_ : ndarray of int, shape (d − 1,)
        Per level, the bootstrap replicates the isotropy test drew: ``n_bootstrap``, or
        fewer on S^d with d ≥ 8, where the test stops as soon as its decision is known
        (docs/high_dimension.md); 0 where the test did not run.
    reduced_levels_ : ndarray of int
        The levels reduced to the leading principal directions instead of fitted one by
        one (see ``exact_levels``); empty when every level was fitted.
    reduced_variance_ratio_ : float
        Share of the total variance in the scores of the reduced levels (0 when none):
        what the reduction approximated. Its error against fitting every level is
        measured in docs/high_dimension.md.
    objectives_ : ndarray, shape (d − 1,)
        Minimised objective ``mean_i (arccos(v_k·x_i) − r_k)²`` of each level.
    rotations_ : list of ndarray
        ``rotations_[k]`` = :func:`rotation_to_north_pole` of ``centers_local_[k]``.
    nested_radii_ : ndarray, shape (d,)
        Euclidean radii of the nested spheres S^d, S^{d-1}, …, S^1 as subsets of R^{d+1}:
        ``(1, sin r_1, sin r_1 sin r_2, …)`` (shapes' ``PNS$radii``).
    score_scales_ : ndarray, shape (d,)
        Factor applied to each score column (``nested_radii_[::-1]``).
    subsphere_center_points_ : ndarray, shape (d − 1, d + 1)
        Centre in R^{d+1} of each nested subsphere seen as a sphere of radius
        ``nested_radii_[k + 1]`` in an affine subspace.
    circle_mean_angle_ : float
        Fréchet mean, in [−π, π), of the angles on the final circle.
    circle_center_ : ndarray, shape (d + 1,)
        Centre of the principal circle in R^{d+1}.
    circle_radius_ : float
        Euclidean radius of the principal circle (``nested_radii_[-1]``).
    circle_basis_ : ndarray, shape (d + 1, 2)
        Orthonormal basis of the principal circle's plane: the circle is
        ``circle_center_ + circle_radius_ (cos φ b_1 + sin φ b_2)``, φ being the angle on the
        final circle (PNS1 = (φ − circle_mean_angle_) × circle_radius_, wrapped).
    mean_ : ndarray, shape (d + 1,)
        Backwards (PNS) mean, the inverse transform of the all-zero score vector.
    n_null_ : int
        Number of leading levels that only reduce a null space of the data (great spheres
        with zero residuals on the training data).
    """

    mode: str = parameter(
        "seq.test", Options(PNS_MODES, case_insensitive=True),
        doc="How each subsphere is chosen: small or great spheres always, by a sequence of "
            "tests or by BIC. \"small\"/\"great\": always small / great spheres. "
            "\"seq.test\" (shapes' default procedure): fit both; if the likelihood-ratio "
            "test of great vs small has p-value > alpha use the great sphere (testing "
            "continues at the next level); otherwise run the von Mises–Fisher "
            "parametric-bootstrap isotropy test: if its p-value > alpha the great sphere is "
            "used and every later level is great without further tests (the data are "
            "isotropic), else the small sphere is used. \"bic\": the type with the smaller "
            "BIC, n log(mean ξ²) + k log n with k = dim + 1 (small) or dim (great), dim being "
            "the dimension of the sphere being reduced. Case-insensitive (shapes' \"BIC\").",
        label="PNS mode")
    alpha: float = parameter(
        0.1, Interval(float, 0.0, 1.0),
        doc="Significance level of both tests of the \"seq.test\" mode.",
        label="Test level α", advanced=True)
    n_bootstrap: int = parameter(
        100, Interval(int, 1, 100_000),
        doc="Number of von Mises–Fisher bootstrap samples of the isotropy test (shapes' R). "
            "The test runs on at most 5,000 points (a seeded random subsample beyond).",
        label="Bootstrap samples", advanced=True)
    random_state: RandomStateLike = parameter(
        None, *RANDOM_STATE,
        doc="Seed of the bootstrap and of the isotropy test's subsample.")
    exact_levels: int | str = parameter(
        EXACT_LEVELS, Options(("all",), labels=("all levels (exact)",)),
        Interval(int, 1, None),
        doc="Levels nearest PNS1 fitted one by one at high dimension. When more than this "
            "many levels lie below the first one (d ≥ exact_levels + 3), the levels "
            "between the first and the last exact_levels, which carry little variance each, "
            "are reduced in one step to the leading principal directions of the points "
            "(great spheres along the least-variance directions, without tests; exact when "
            "the points lie in that subspace). \"all\" fits every level one by one (the "
            "exact computation: O(levels · n · d²) or more at high d). reduced_levels_ "
            "lists the levels reduced.",
        label="Levels fitted exactly", advanced=True)

    # ------------------------------------------------------------------ fitting

    def fit(self, Y: ArrayLike, y: object = None, *,
            check: CancelCheck | None = None) -> PrincipalNestedSpheres:
        """Fit the nested spheres.

        Parameters
        ----------
        Y : array_like, shape (n, d + 1)
            Points on S^d (rows are renormalised to unit length), d ≥ 1, n ≥ 3.
        y : ignored
            Present for scikit-learn API compatibility.
        check : callable, optional
            Called at each level, between iterations of a level's fit on more than
            ``subsphere.START_SAMPLE`` points and between chunks of the "seq.test"
            bootstrap; it raises
            :class:`~stpca_gui.core._base.progress.FitCancelled` to stop the fit, which then
            keeps no state. The result does not depend on it.

        Returns
        -------
        PrincipalNestedSpheres
            The fitted estimator.

        Raises
        ------
        ValueError
            For an unknown mode, bad ``alpha``/``n_bootstrap``, too few samples, zero rows,
            complex or non-finite values (the message names the first bad row), or points
            that are all (nearly) the same (``subsphere.MIN_SPHERE_SPREAD``).
        """
        self._validate_params()
        mode = self.mode.lower()  # "BIC" as in R
        # The points are held once, as the current level's: the unit rows of Y give way to
        # their projection at the first level, and the scores are computed at the end from
        # Y's rows and norms block by block (the same numbers), so that a fit holds two
        # n × m arrays at most besides Y (docs/high_dimension.md, "Memory").
        rows, norms = sphere_rows(Y)
        cur = rows / norms[:, None]
        check_spread(cur)
        n, k = cur.shape
        if n < _MIN_SAMPLES:
            raise ValueError(f"PNS needs at least {_MIN_SAMPLES} samples, got n={n}")
        rng = check_random_state(self.random_state)
        d = k - 1
        n_levels = d - 1

        # Rank of the data: a null space is reduced by great spheres (as shapes >= 1.2.7).
        u_full, sv = _left_singular(cur)
        tol = sv[0] * max(n, k) * np.finfo(np.float64).eps
        rank = max(int(np.sum(sv > tol)), 2)
        n_null = k - rank
        null_axes = [u_full[:, k - 1 - j] for j in range(n_null)]

        centers_local: list[NDArray[np.float64]] = []
        rotations: list[NDArray[np.float64]] = []
        radii = np.empty(n_levels)
        types: list[str] = []
        pvals = np.full((n_levels, 2), np.nan)
        test_points = np.zeros(n_levels, dtype=np.int64)
        test_replicates = np.zeros(n_levels, dtype=np.int64)
        objectives = np.empty(n_levels)

        # Reduction levels (exact great spheres along the null-space directions).
        amb = np.eye(k)  # maps the current level's coordinates to the original ones
        for j, w in enumerate(null_axes):
            wl = amb.T @ w  # the null direction in the current coordinates (unit, exact)
            wl /= np.linalg.norm(wl)
            rot = rotation_to_north_pole(wl)
            centers_local.append(wl)
            rotations.append(rot)
            radii[j] = HALF_PI
            types.append("great")
            objectives[j] = 0.0
            amb = rotate_rows(amb, rot)[:, :-1]
        if n_null:
            cur = cur @ amb
            cur /= np.linalg.norm(cur, axis=1, keepdims=True)

        # At high dimension the levels between the first and the last `exact_levels` are
        # reduced to the leading principal directions (core/pns/reduction.py).
        exact = None if self.exact_levels == "all" else int(self.exact_levels)
        reduced = reduced_levels(n_null, n_levels, exact)
        level_fit = _LevelFit(mode, float(self.alpha), int(self.n_bootstrap), rng, check,
                              sequential=k > HIGH_DIM)
        for lev in range(n_null, n_levels):
            if lev in reduced:
                if lev == reduced.start:  # the whole reduced block in one step
                    level_axes, level_rotations, level_objectives, cur = (
                        reduce_to_principal_subsphere(cur, len(reduced)))
                    centers_local.extend(level_axes)
                    rotations.extend(level_rotations)
                    radii[reduced.start:reduced.stop] = HALF_PI
                    types.extend(["great"] * len(reduced))
                    objectives[reduced.start:reduced.stop] = level_objectives
                continue
            if check is not None:
                check()
            v, r, f, kind = level_fit(cur)
            pvals[lev] = level_fit.p_values
            test_points[lev], test_replicates[lev] = level_fit.test_size
            rot = rotation_to_north_pole(v)
            centers_local.append(v)
            rotations.append(rot)
            radii[lev] = r
            types.append(kind)
            objectives[lev] = f
            cur = project_to_subsphere(cur, rot)

        self.n_features_in_ = k
        self.n_components_ = d
        self.n_null_ = n_null
        self.centers_local_ = centers_local
        self.rotations_ = rotations
        self.radii_ = radii
        self.sphere_types_ = types
        self.p_values_ = pvals
        self.isotropy_test_points_ = test_points
        self.isotropy_test_replicates_ = test_replicates
        self.reduced_levels_ = np.arange(reduced.start, reduced.stop, dtype=np.int64)
        self.objectives_ = objectives
        self.circle_mean_angle_ = circular_frechet_mean(np.arctan2(cur[:, 1], cur[:, 0]))

        # Geometry of the nested spheres in the original coordinates.
        nested = np.ones(d)
        for lev in range(n_levels):
            nested[lev + 1] = nested[lev] * np.sin(radii[lev])
        self.nested_radii_ = nested
        self.score_scales_ = nested[::-1].copy()
        amb = np.eye(k)
        centers = np.empty((n_levels, k))
        center_points = np.empty((n_levels, k))
        point = np.zeros(k)
        for lev in range(n_levels):
            centers[lev] = amb @ centers_local[lev]
            point = point + nested[lev] * np.cos(radii[lev]) * centers[lev]
            center_points[lev] = point
            amb = rotate_rows(amb, rotations[lev])[:, :-1]
        self.centers_ = centers
        self.subsphere_center_points_ = center_points
        self.circle_center_ = point
        self.circle_radius_ = float(nested[-1])
        self.circle_basis_ = amb

        del cur
        self.scores_ = self._scores(rows, norms, twice=True)
        ev = np.mean(self.scores_**2, axis=0)
        self.explained_variance_ = ev
        self.total_variance_ = float(ev.sum())
        with np.errstate(invalid="ignore", divide="ignore"):
            self.explained_variance_ratio_ = ev / self.total_variance_
        self.reduced_variance_ratio_ = float(np.sum(
            self.explained_variance_ratio_[d - 1 - self.reduced_levels_]))
        self.mean_ = self.inverse_transform(np.zeros((1, d)))[0]
        return self

    def fit_transform(self, Y: ArrayLike, y: object = None) -> NDArray[np.float64]:
        """Fit and return the training scores (``scores_``).

        Parameters
        ----------
        Y : array_like, shape (n, d + 1)
            Points on S^d.
        y : ignored

        Returns
        -------
        ndarray, shape (n, d)
        """
        return self.fit(Y).scores_.copy()

    # ------------------------------------------------------------------ maps

    def _check_fitted(self) -> None:
        if not hasattr(self, "rotations_"):
            raise RuntimeError("PrincipalNestedSpheres is not fitted yet; call fit first")

    def transform(self, Y: ArrayLike) -> NDArray[np.float64]:
        """PNS scores of points on the sphere.

        Each point is projected through the fitted nested spheres: at level k the residual
        ``arccos(v_k·x) − r_k`` is recorded and the point is moved along the geodesic through
        the axis onto the subsphere; on the final circle the angle about
        ``circle_mean_angle_`` is wrapped to [−π, π).  Column j is multiplied by
        ``score_scales_[j]``.

        Parameters
        ----------
        Y : array_like, shape (m, d + 1)
            Points (rows renormalised to unit length).

        Returns
        -------
        ndarray, shape (m, d)
            Scores in shapes' order (column 0 = PNS1, column d − 1 = first residual).
            Points lying on an axis v_k have an undefined projection (NaN-free but arbitrary).
        """
        self._check_fitted()
        rows, norms = sphere_rows(Y)
        if rows.shape[1] != self.n_features_in_:
            raise ValueError(
                f"Y has {rows.shape[1]} columns, the model was fitted on {self.n_features_in_}"
            )
        return self._scores(rows, norms)

    def _scores(self, rows: NDArray[np.float64], norms: NDArray[np.float64],
                twice: bool = False) -> NDArray[np.float64]:
        """The scores of the points ``rows / norms`` (:meth:`transform`), computed by blocks
        of rows (:func:`~stpca_gui.core.pns.subsphere.row_blocks`): the result is the only
        n-sized array, and each row's scores are those of the whole-array computation.
        ``twice`` normalises the unit rows once more, as :meth:`fit` always has (its scores
        were ``transform`` of the unit rows), so that they stay the same bit for bit."""
        d = self.n_components_
        runs = great_runs(self.rotations_, self.sphere_types_)
        out = np.empty((rows.shape[0], d))
        for block in row_blocks(rows.shape[0]):
            cur = rows[block] / norms[block, None]
            if twice:
                cur /= np.linalg.norm(cur, axis=1)[:, None]
            scores = out[block]
            lev = 0
            while lev < len(self.rotations_):
                if lev in runs:  # a run of great levels at once (reduction.great_run_angles)
                    stop, run = runs[lev]
                    angles, cur = great_run_angles(cur, run)
                    scores[:, d - stop:d - lev] = (angles - self.radii_[lev:stop])[:, ::-1]
                    lev = stop
                    continue
                z = rotate_rows(cur, self.rotations_[lev])
                head = z[:, :-1]
                h = np.linalg.norm(head, axis=1)
                scores[:, d - 1 - lev] = np.arctan2(h, z[:, -1]) - self.radii_[lev]
                cur = head / np.where(h > 0, h, 1.0)[:, None]
                lev += 1
            scores[:, 0] = wrap_angles(np.arctan2(cur[:, 1], cur[:, 0])
                                       - self.circle_mean_angle_)
            scores *= self.score_scales_[None, :]
        return out

    def inverse_transform(self, scores: ArrayLike) -> NDArray[np.float64]:
        """Map PNS scores back to the sphere (shapes' ``PNSe2s``; paper §3.3).

        Parameters
        ----------
        scores : array_like, shape (m, d)
            Scores in the units and order of :meth:`transform`.  The map is a bijection onto
            the sphere (minus the axes) for residuals with ``r_k + ξ_k ∈ (0, π)`` (ξ_k the
            unscaled residual); outside that range points are still mapped but
            :meth:`transform` will not return the same scores.

        Returns
        -------
        ndarray, shape (m, d + 1)
            Unit vectors.
        """
        self._check_fitted()
        s = np.asarray(scores, dtype=np.float64)
        if s.ndim == 1:
            s = s[None, :]
        d = self.n_components_
        if s.ndim != 2 or s.shape[1] != d:
            raise ValueError(f"scores must have shape (m, {d}), got {np.shape(scores)}")
        if not np.all(np.isfinite(s)):
            raise ValueError("scores contain NaN or infinite values")
        std = s / self.score_scales_[None, :]
        phi = self.circle_mean_angle_ + std[:, 0]
        cur = np.column_stack([np.cos(phi), np.sin(phi)])
        for lev in range(len(self.rotations_) - 1, -1, -1):
            ang = self.radii_[lev] + std[:, d - 1 - lev]
            z = np.column_stack([np.sin(ang)[:, None] * cur, np.cos(ang)])
            cur = rotate_rows(z, self.rotations_[lev], inverse=True)
        return cur

    # ------------------------------------------------------------------ plotting helpers

    def _check_level(self, dim: int) -> int:
        d = self.n_components_
        k = int(dim)
        if not 1 <= k <= d:
            raise ValueError(f"dim must be in 1..{d}, got {dim}")
        return k

    def nested_sphere_coordinates(self, Y: ArrayLike, dim: int = 2) -> NDArray[np.float64]:
        """Project points onto the nested subsphere S^dim, in its own coordinates.

        The first ``d - dim`` levels of the fit project the points onto the nested
        subsphere, which is a unit sphere S^dim in the coordinates of that level; those
        (dim + 1)-vectors are returned. With dim = 2 this is the "spherical view" of the
        paper's Figure T³ (b); for data on S² it is the data themselves.

        Parameters
        ----------
        Y : array_like, shape (m, d + 1)
        dim : int
            Dimension of the nested subsphere (1 ≤ dim ≤ d).

        Returns
        -------
        ndarray, shape (m, dim + 1)
            Unit vectors.
        """
        self._check_fitted()
        k = self._check_level(dim)
        rows, norms = sphere_rows(Y)
        if rows.shape[1] != self.n_features_in_:
            raise ValueError(
                f"Y has {rows.shape[1]} columns, the model was fitted on {self.n_features_in_}"
            )
        cur = rows / norms[:, None]
        for rot in self.rotations_[: self.n_components_ - k]:
            cur = project_to_subsphere(cur, rot)
        return cur

    def nested_sphere_inverse(self, scores: ArrayLike, dim: int = 2) -> NDArray[np.float64]:
        """Map the leading ``dim`` scores into the coordinates of the nested S^dim.

        The counterpart of :meth:`nested_sphere_coordinates` for curves: e.g. a grid of PNS1
        values (zero PNS2) gives the principal circle drawn inside the nested 2-sphere.

        Parameters
        ----------
        scores : array_like, shape (m, dim)
            PNS1 … PNS_dim in the units of :meth:`transform`.
        dim : int

        Returns
        -------
        ndarray, shape (m, dim + 1)
        """
        self._check_fitted()
        k = self._check_level(dim)
        d = self.n_components_
        s = np.atleast_2d(np.asarray(scores, dtype=np.float64))
        if s.shape[1] != k:
            raise ValueError(f"scores must have shape (m, {k}), got {np.shape(scores)}")
        std = s / self.score_scales_[None, :k]
        phi = self.circle_mean_angle_ + std[:, 0]
        cur = np.column_stack([np.cos(phi), np.sin(phi)])
        for lev in range(len(self.rotations_) - 1, d - k - 1, -1):
            ang = self.radii_[lev] + std[:, d - 1 - lev]
            z = np.column_stack([np.sin(ang)[:, None] * cur, np.cos(ang)])
            cur = rotate_rows(z, self.rotations_[lev], inverse=True)
        return cur


    def subsphere_points(self, level: int, grid: ArrayLike) -> NDArray[np.float64]:
        """Points of a nested subsphere, mapped to the original sphere (for plotting).

        Parameters
        ----------
        level : int
            Dimension k of the nested subsphere S^k: 1 is the principal circle, 2 the nested
            2-sphere containing it, …, d the whole sphere.
        grid : array_like, shape (m, level), or shape (m,) when level = 1
            Values of the scores PNS1 … PNS_k (score units); the other scores are zero.

        Returns
        -------
        ndarray, shape (m, d + 1)
            ``inverse_transform`` of the zero-padded scores.
        """
        self._check_fitted()
        d = self.n_components_
        k = int(level)
        if not 1 <= k <= d:
            raise ValueError(f"level must be in 1..{d}, got {level}")
        g = np.asarray(grid, dtype=np.float64)
        if g.ndim == 1 and k == 1:
            g = g[:, None]
        if g.ndim != 2 or g.shape[1] != k:
            raise ValueError(f"grid must have shape (m, {k}), got {np.shape(grid)}")
        full = np.zeros((g.shape[0], d))
        full[:, :k] = g
        return self.inverse_transform(full)

    def principal_circle(self, m: int = 100, grid: ArrayLike | None = None) -> NDArray[np.float64]:
        """Sample the principal circle (the S^1 of PNS) on the original sphere.

        Parameters
        ----------
        m : int, default 100
            Number of points of the default grid: PNS1 from ``−π·circle_radius_`` to
            ``+π·circle_radius_`` inclusive (a closed curve; the first and last points
            coincide).
        grid : array_like, shape (m,), optional
            PNS1 values (score units) to use instead of the default grid.

        Returns
        -------
        ndarray, shape (m, d + 1)
            Points of the circle, ordered by PNS1.
        """
        self._check_fitted()
        if grid is None:
            if int(m) < 2:
                raise ValueError(f"m must be >= 2, got {m}")
            grid = np.linspace(-np.pi, np.pi, int(m)) * self.circle_radius_
        return self.subsphere_points(1, np.asarray(grid, dtype=np.float64).ravel())
