"""Scaled Torus PCA: spherical MDS, principal nested spheres and prediction, composed.

``ScaledTorusPCA`` runs the three steps of the paper (section 3):

1. :class:`~stpca_gui.core.smds.smds.SphericalMDS` maps the torus sample to S^d_r;
2. :class:`~stpca_gui.core.pns.pns.PrincipalNestedSpheres` fits nested subspheres and scores;
3. prediction T̃ (eq. invmds2) maps the principal circle back to a principal curve on the
   torus, and the data's projections back to the torus for the torus explained variance
   (section 3.5).

New torus points are scored through the interpolation map T̂ (eq. interp) and scores are
mapped back to the torus through T̃.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._base.blockwise import is_chunked_array, map_row_blocks
from ._base.memory import check_fit_memory
from ._base.params import (
    Boolean,
    Estimator,
    Interval,
    Options,
    estimator,
    inherit_parameter,
    parameter,
)
from ._base.progress import (
    CancelCheck,
    FitCancelled,
    ProgressCallback,
    ProgressEvent,
    SnapshotCallback,
)
from ._base.random import RANDOM_STATE, RandomStateLike, check_random_state
from ._base.registry import model_file_class
from ._base.threads import single_threaded_blas
from .geometry.validation import as_float_matrix, check_angles
from .persistence import load_model, save_model
from .pns.pns import PrincipalNestedSpheres
from .prediction.prediction import SMDSMatch, place_on_sphere
from .prediction.principal_curve import (
    data_range_mask,
    trace_principal_curve,
)
from .prediction.projections import variance_attributes
from .prediction.torus_variance import (
    TORUS_VARIANCE_FIRST_SAMPLE,
    TORUS_VARIANCE_PREDICTION_TOL,
    TORUS_VARIANCE_SAMPLE,
    TORUS_VARIANCE_TARGET_SE,
    TorusVarianceEstimate,
    estimate_torus_variance,
    score_auxiliary,
    stored_projection_summary,
    torus_variance_components,
)
from .scoring_only import missing_attribute
from .smds.landmarks import (
    AUTO_EXACT_MAX_N,
    AUTO_EXACT_REFERENCE_D,
    AUTO_LANDMARKS,
    LANDMARK_METHODS,
    LANDMARK_SINGLE_SET_MIN_D,
    MIN_LANDMARKS,
    auto_exact_max_n,
    choose_landmarks,
    landmark_sets,
    resolve_n_landmarks,
)
from .smds.pair_stress import all_pairs_stress, sampled_pair_stress
from .smds.smds import SphericalMDS

#: The stages :meth:`ScaledTorusPCA.fit` reports, in order (the landmark stages only in a
#: landmark fit, "torus-variance" only with ``torus_variance=True``). Display names are
#: the app's (stpca_gui/gui/progress_labels.py).
FIT_STAGES: tuple[str, ...] = ("landmarks", "smds-start", "smds", "interpolation", "pns",
                               "curve", "torus-variance", "done")

#: From d = LANDMARK_AGREEMENT_MIN_D on, a landmark set whose validation stress is within
#: this fraction of the best set's confirms it: no further set is tried. Measured spreads
#: of three sets' stresses: 0.4 % on the 3-state data at d = 66 (each set 15–18 s of CPU
#: there), 2–4 % at d = 20 (docs/landmarks.md).
LANDMARK_AGREEMENT = 0.01
#: Below this d every landmark set is tried, as before the rule: a set costs about a second
#: there, and on 12,000 T³ cluster points two sets agreed within 0.2 % while the third,
#: 0.3 % better, gave other scores (up to 0.94 apart).
LANDMARK_AGREEMENT_MIN_D = 8
#: Samples on whose pairs a landmark fit compares its landmark sets (2·10⁶ pairs).
LANDMARK_VALIDATION_SAMPLE = 2000


@dataclass
class _Timer:
    timings: dict[str, float] = field(default_factory=dict)

    def record(self, stage: str, start: float) -> None:
        """Add the time since ``start`` to ``stage`` (a stage may run several times)."""
        self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - start


@model_file_class(top_level=True)
@estimator
class ScaledTorusPCA(Estimator):
    """Scaled Torus PCA (ST-PCA) of angular data.

    Attributes
    ----------
    smds_ : SphericalMDS
    pns_ : PrincipalNestedSpheres
    embedding_ : ndarray, shape (n, d + 1)
        Unit vectors of the SMDS configuration.
    radius_, stress_ : float
    scores_ : ndarray, shape (n, d)
        PNS scores (column 0 = PNS1).
    explained_variance_ratio_ : ndarray, shape (d,)
        Sphere (PNS) explained variance ratio per component.
    torus_explained_variance_ : ndarray, shape (d,)
        var_T^(k) of section 3.5 for the first ``torus_variance_components_`` components,
        NaN after them (all NaN when ``torus_variance=False``).
    torus_explained_variance_ratio_ : ndarray, shape (d,)
        var_T^(k) over the total: the computed components plus the remaining variance.
    torus_explained_variance_ratio_se_ : ndarray, shape (d,)
        Standard error of each ratio from the sample the torus variance was computed on
        (0 when every sample was used; see ``torus_variance_indices_``).
    torus_variance_components_ : int
        K, the components whose torus variance is computed (see ``max_torus_components``).
    torus_remaining_variance_, torus_remaining_variance_ratio_, \
torus_remaining_variance_ratio_se_ : float
        The components after K together: Σ_i δ_T(x̂_i^(K), x̂_i^(d))², its ratio and the
        ratio's standard error (0 when K = d).
    angle_contributions_ : ndarray, shape (K, d)
        Row j: the share of component j + 1's torus variance carried by each angle, Σ_i of
        the squared angular differences in that angle between the projections of levels
        j + 1 and j on the torus over var_T^(j + 1); rows sum to 1. Which torsions drive a
        component (``principal_curve_.angle_ranges()`` is a cheaper view of PNS1 alone).
    torus_variance_indices_ : ndarray of int or None
        The samples the torus variance was computed on (None: all).
    principal_curve_ : PrincipalCurve
        The predicted principal curve S̃¹ on the torus with break flags.
    projections_ : ndarray, shape (d + 1, n, d)
        x̂_i^(k) = T̃(ŷ_i^(k)), k = 0..d, of the samples of ``torus_variance_indices_``
        (absent when ``torus_variance=False`` or when only K < d components were computed).
    timings_ : dict
        Wall time per stage in seconds.
    """

    radius: float | str = inherit_parameter(SphericalMDS, "radius")
    initial_radius: float | str = inherit_parameter(SphericalMDS, "initial_radius")
    pns_mode: str = inherit_parameter(PrincipalNestedSpheres, "mode")
    n_curve_points: int = parameter(
        100, Interval(int, 3, 100_000),
        doc="Points of the principal curve (an equispaced grid of the principal circle).",
        label="Curve points", cli_flag="--curve-points")
    random_state: RandomStateLike = parameter(
        None, *RANDOM_STATE,
        doc="Seed of the SMDS restarts and the PNS bootstrap. The application and the command "
            "line use 0 unless told otherwise, so that every run can be repeated.",
        label="Seed", user_default=0, cli_flag="--seed")
    smds_init: str | ArrayLike = inherit_parameter(SphericalMDS, "init")
    n_init: int = inherit_parameter(SphericalMDS, "n_init")
    optimizer: str = inherit_parameter(SphericalMDS, "optimizer")
    tol: float = inherit_parameter(SphericalMDS, "tol")
    max_iter: int = inherit_parameter(SphericalMDS, "max_iter")
    alpha: float = inherit_parameter(
        PrincipalNestedSpheres, "alpha", label="PNS test level",
        doc="Significance level of PNS's tests (both tests of the \"seq.test\" mode, which "
            "choose small or great spheres). Not the mode test level of PNS1's clusters.")
    n_bootstrap: int = inherit_parameter(PrincipalNestedSpheres, "n_bootstrap")
    pns_exact_levels: int | str = inherit_parameter(PrincipalNestedSpheres, "exact_levels")
    n_landmarks: int | str | None = parameter(
        "auto", Options(("auto", "exact"), labels=("automatic", "all points (exact)")),
        Options((None,), offered=False), Interval(int, MIN_LANDMARKS, None),
        doc=f"Points on which spherical MDS is solved. \"exact\" (or None) uses all n, "
            f"which costs O(n²) time and memory. A number m fits SMDS on m landmarks and "
            f"places every other point on the sphere by the interpolation map T̂ (eq. interp). "
            f"\"auto\" is exact up to n = {AUTO_EXACT_MAX_N} on T^d with d ≤ "
            f"{AUTO_EXACT_REFERENCE_D} (at higher d while n² · d stays within that: "
            f"n = {auto_exact_max_n(66):,} on T⁶⁶) and uses {AUTO_LANDMARKS} landmarks beyond.",
        label="Landmarks", cli_flag="--landmarks")
    landmark_method: str = parameter(
        "mixed", Options(tuple(LANDMARK_METHODS), labels=tuple(LANDMARK_METHODS.values())),
        doc="How landmarks are chosen: \"mixed\" takes 5 % by farthest-point seeding "
            "on the torus distance (coverage) and the rest at random (density); \"maxmin\" "
            "and \"random\" use one rule only.",
        label="Landmark rule", advanced=True)
    landmark_trials: int = parameter(
        3, Interval(int, 1, 50),
        doc="Landmark sets tried by a landmark fit, at most; each gets its own spherical MDS "
            "and the one with the lowest stress on a common validation sample of "
            f"{LANDMARK_VALIDATION_SAMPLE} points is kept (spherical MDS has local minima "
            "that depend on the landmark set). From "
            f"{LANDMARK_AGREEMENT_MIN_D} angles, a set within {100 * LANDMARK_AGREEMENT:g} % "
            "of the best one's stress ends the search; from "
            f"{LANDMARK_SINGLE_SET_MIN_D} angles one set is solved (the sets were measured "
            "to agree there).",
        label="Landmark sets", advanced=True)
    torus_variance: bool = parameter(
        True, Boolean(),
        doc="Compute the torus explained variance (section 3.5), which predicts the "
            "projections of the samples onto the nested spheres on the torus (up to n·d "
            "extra predictions; see max_torus_components).",
        label="Torus variance")
    max_torus_components: int = parameter(
        10, Interval(int, 1, None),
        doc="Components whose torus variance is computed. Up to this many (d at most) all "
            "are, on every sample (on 10,000 in a landmark fit of more). Beyond, the fewest "
            "that cover 99 % of the sphere variance, at most this many, are, on a random "
            "sample grown until every ratio's standard error is at most 0.5 points; the "
            "components after them are reported together as the remaining variance.",
        label="Torus components", cli_flag="--torus-components", advanced=True)

    # ------------------------------------------------------------------ fitting
    @single_threaded_blas
    def fit(self, X: ArrayLike, y: None = None, callback: ProgressCallback | None = None):
        """Run ST-PCA on angles ``X`` (n, d) in radians.

        Parameters
        ----------
        X : array_like, shape (n, d)
        y : ignored
        callback : callable, optional
            Receives a :class:`ProgressEvent` at every SMDS iteration and at each stage
            boundary. Returning True (or raising :class:`FitCancelled`) cancels the fit,
            which then raises :class:`FitCancelled`; the estimator keeps no partial state.

        Returns
        -------
        self

        Raises
        ------
        stpca_gui.core._base.memory.InsufficientMemoryError
            Before any work, when the exact fit of n samples would need more memory than
            is available (see :mod:`stpca_gui.core._base.memory`).
        """
        self._validate_params()
        angles = check_angles(X)
        n, d = angles.shape
        n_landmarks = resolve_n_landmarks(self.n_landmarks, n, d)
        # Refuse at once rather than swap for minutes.
        check_fit_memory(n if n_landmarks is None else n_landmarks, d,
                         n_bootstrap=self.n_bootstrap if self.pns_mode == "seq.test" else 0,
                         n_placed=0 if n_landmarks is None else n)
        report = _Reporter(callback)
        timer = _Timer()
        rng = check_random_state(self.random_state)
        smds_seed, pns_seed, landmark_seed = rng.integers(0, 2**63 - 1, size=3)

        if n_landmarks is None:
            landmark_indices, trial_stress = None, None
            start = time.perf_counter()
            smds = self._fit_smds(angles, self.smds_init, int(smds_seed), report)
            timer.record("smds", start)
        else:
            landmark_indices, smds, trial_stress = self._fit_landmark_smds(
                angles, n_landmarks, int(landmark_seed), int(smds_seed), report, timer)

        match = SMDSMatch(smds.angles_, smds.embedding_, smds.radius_)
        if landmark_indices is None:
            embedding = smds.embedding_
            interpolation_stress = None
        else:
            start = time.perf_counter()
            report(ProgressEvent("interpolation", 0.0,
                                 message=f"placing {n - n_landmarks} points on the sphere"))
            embedding, interpolation_stress = place_on_sphere(
                match, angles, landmark_indices, report)
            timer.record("interpolation", start)

        start = time.perf_counter()
        report(ProgressEvent("pns", 0.0, message="principal nested spheres"))
        pns = PrincipalNestedSpheres(mode=self.pns_mode, alpha=self.alpha,
                                     n_bootstrap=self.n_bootstrap,
                                     exact_levels=self.pns_exact_levels,
                                     random_state=int(pns_seed)).fit(
            embedding, check=report.checkpoint("pns", "principal nested spheres"))
        timer.record("pns", start)

        start = time.perf_counter()
        report(ProgressEvent("curve", 0.0, message="principal curve"))
        curve = trace_principal_curve(pns, match, int(self.n_curve_points), report)
        timer.record("curve", start)

        if self.torus_variance:
            start = time.perf_counter()
            report(ProgressEvent("torus-variance", 0.0, message="torus variance"))
            variance = self._torus_variance(
                pns, match, angles, landmark_indices is not None, int(landmark_seed) + 1,
                lambda fraction, message: report(
                    ProgressEvent("torus-variance", fraction, message=message)))
            timer.record("torus-variance", start)
        else:
            variance = None

        if landmark_indices is None:
            all_pairs_stress = smds.stress_
        else:
            start = time.perf_counter()
            all_pairs_stress = sampled_pair_stress(
                angles, embedding, smds.radius_,
                np.random.default_rng(int(landmark_seed) + 2))
            timer.record("stress", start)

        vars(self).pop("scoring_only_", None)  # a refitted scoring-only model is whole again
        vars(self).pop("projections_", None)
        if variance is not None and variance.projections is not None:
            self.projections_ = variance.projections
        self.n_features_in_ = d
        self.n_landmarks_ = n if landmark_indices is None else int(n_landmarks)
        self.landmark_indices_ = landmark_indices
        self.landmark_trial_stress_ = trial_stress
        self.interpolation_stress_ = interpolation_stress
        self.torus_variance_indices_ = None if variance is None else variance.sample
        self.smds_ = smds
        self.pns_ = pns
        self.match_ = match
        self.angles_ = angles
        self.embedding_ = embedding
        self.radius_ = smds.radius_
        self.stress_ = smds.stress_
        self.all_pairs_stress_ = float(all_pairs_stress)
        for name, value in variance_attributes(pns, np.full(d, np.nan)).items():
            setattr(self, name, value)
        self._set_torus_variance(variance, d)
        self.principal_curve_ = curve
        self.timings_ = timer.timings
        report(ProgressEvent("done", 1.0, message="done"))
        return self

    def _torus_variance(
        self, pns: PrincipalNestedSpheres, match: SMDSMatch, angles: NDArray[np.float64],
        landmark_fit: bool, seed: int, report: Callable[[float, str], None],
    ) -> TorusVarianceEstimate:
        """The torus variance (section 3.5) of the first K components
        (:func:`~stpca_gui.core.prediction.torus_variance.torus_variance_components`).

        With every component (d ≤ ``max_torus_components``) it is computed as it always
        was: on every sample, or on :data:`TORUS_VARIANCE_SAMPLE` random ones in a
        landmark fit of more. With fewer, the components after K are reported together
        (the remaining variance) and the sample grows from
        :data:`TORUS_VARIANCE_FIRST_SAMPLE` points, doubling, until every ratio's standard
        error is at most :data:`TORUS_VARIANCE_TARGET_SE` or the sample holds
        :data:`TORUS_VARIANCE_SAMPLE` points (or all n); its sums are then ratio estimates
        with the squared PNS scores as auxiliary variable
        (:func:`~stpca_gui.core.prediction.torus_variance.score_auxiliary`), which on the
        3-state data at d = 66, n = 10⁴ cut PC1's standard error at 500 points from above
        0.5 to 0.14 point (0.24 point at the first 200), where 2,000 points were drawn
        before.
        """
        n, d = angles.shape
        components = torus_variance_components(pns.explained_variance_ratio_,
                                                int(self.max_torus_components))
        rng = np.random.default_rng(seed)
        if components == d:
            order = (rng.choice(n, size=TORUS_VARIANCE_SAMPLE, replace=False)
                     if landmark_fit and n > TORUS_VARIANCE_SAMPLE else None)
            return estimate_torus_variance(pns, match, angles, pns.scores_, components,
                                           sample_order=order, keep_projections=True,
                                           report=report)
        if n <= TORUS_VARIANCE_FIRST_SAMPLE:
            return estimate_torus_variance(pns, match, angles, pns.scores_, components,
                                           report=report)
        order = rng.choice(n, size=min(n, TORUS_VARIANCE_SAMPLE), replace=False)
        sizes = [TORUS_VARIANCE_FIRST_SAMPLE]
        while sizes[-1] < order.size:
            sizes.append(min(2 * sizes[-1], order.size))
        return estimate_torus_variance(pns, match, angles, pns.scores_, components,
                                       sample_order=order, sample_sizes=sizes,
                                       target_se=TORUS_VARIANCE_TARGET_SE,
                                       auxiliary=score_auxiliary(pns.scores_, components),
                                       tol=TORUS_VARIANCE_PREDICTION_TOL, report=report)

    def _set_torus_variance(self, variance: TorusVarianceEstimate | None, d: int) -> None:
        """The torus variance attributes, padded with NaN after the K computed components
        (all NaN without a torus variance)."""
        components = 0 if variance is None else len(variance.variance)

        def padded(values: NDArray[np.float64] | None) -> NDArray[np.float64]:
            out = np.full(d, np.nan)
            if values is not None:
                out[:components] = values
            return out

        self.torus_variance_components_ = components
        self.torus_explained_variance_ = padded(None if variance is None else variance.variance)
        self.torus_explained_variance_ratio_ = padded(None if variance is None
                                                      else variance.ratio)
        self.torus_explained_variance_ratio_se_ = padded(None if variance is None
                                                         else variance.ratio_se)
        nan = float("nan")
        self.torus_remaining_variance_ = nan if variance is None else variance.remaining
        self.torus_remaining_variance_ratio_ = (nan if variance is None
                                                else variance.remaining_ratio)
        self.torus_remaining_variance_ratio_se_ = (nan if variance is None
                                                   else variance.remaining_ratio_se)
        self.angle_contributions_ = (np.empty((0, d)) if variance is None
                                     else variance.angle_contributions)

    def _fit_smds(self, angles: NDArray[np.float64], init: str | ArrayLike, seed: int,
                  report: _Reporter) -> SphericalMDS:
        # The start configuration (r* and a classical MDS of an n × n matrix) is the longest
        # step before the first optimiser iteration: it reports, and can be cancelled,
        # between blocks of its work.
        start_message = f"{report.note}spherical MDS: start configuration"
        report(ProgressEvent("smds-start", 0.0, message=start_message))
        smds = SphericalMDS(
            radius=self.radius, initial_radius=self.initial_radius, init=init,
            n_init=self.n_init,
            optimizer=self.optimizer, tol=self.tol, max_iter=self.max_iter,
            random_state=seed,
        ).fit(angles, callback=report.smds_iteration, snapshot=report.smds_snapshot,
              check=report.checkpoint("smds-start", start_message))
        if smds.cancelled_:
            raise FitCancelled("cancelled during spherical MDS")
        return smds

    def _fit_landmark_smds(
        self, angles: NDArray[np.float64], n_landmarks: int, landmark_seed: int,
        smds_seed: int, report: _Reporter, timer: _Timer,
    ) -> tuple[NDArray[np.intp], SphericalMDS, NDArray[np.float64]]:
        """SMDS on up to ``landmark_trials`` landmark sets; the set whose configuration
        gives the lowest stress on a common validation sample wins.

        Spherical MDS has local minima, and which one a start reaches depends on the
        landmark set: on the sunspots cycle-23 series (m = 1000) single sets reached
        all-pairs stresses from 0.0975 to 0.111 (the exact fit: 0.0971). The validation
        sample (:data:`LANDMARK_VALIDATION_SAMPLE` random samples, placed by T̂) estimates
        the stress over all pairs of samples, which is what the fit is for. A set whose
        stress lies within :data:`LANDMARK_AGREEMENT` of the best so far confirms it from
        d = :data:`LANDMARK_AGREEMENT_MIN_D` on, and no further set is tried (their stresses
        are NaN in the result). From d = :data:`LANDMARK_SINGLE_SET_MIN_D` on one set is
        solved, without validation.
        """
        n = angles.shape[0]
        trials = landmark_sets(self.landmark_trials, angles.shape[1])
        seeds = np.random.default_rng(landmark_seed).integers(
            0, 2**63 - 1, size=self.landmark_trials + 1)
        validation = np.sort(np.random.default_rng(int(seeds[-1])).choice(
            n, size=min(n, LANDMARK_VALIDATION_SAMPLE), replace=False))
        best = None
        trial_stress = np.full(self.landmark_trials, np.nan)
        for trial in range(trials):
            start = time.perf_counter()
            label = (f"choosing {n_landmarks} landmarks" if trials == 1 else
                     f"choosing {n_landmarks} landmarks (set {trial + 1} of "
                     f"{self.landmark_trials})")
            report(ProgressEvent("landmarks", trial / trials, message=label))
            indices = choose_landmarks(
                angles, n_landmarks, np.random.default_rng(int(seeds[trial])),
                self.landmark_method, check=report.checkpoint("landmarks", label))
            timer.record("landmarks", start)
            start = time.perf_counter()
            init = self.smds_init
            if not isinstance(init, str):
                init = np.asarray(init)[indices]
            report.landmarks = indices
            if trials > 1:
                report.note = f"landmark set {trial + 1} of {self.landmark_trials}: "
            try:
                smds = self._fit_smds(angles[indices], init, smds_seed, report)
            finally:
                report.landmarks = None
                report.note = ""
            match = SMDSMatch(smds.angles_, smds.embedding_, smds.radius_)
            if trials > 1:
                units, _ = match.interpolate(angles[validation])
                trial_stress[trial] = all_pairs_stress(angles[validation], units,
                                                       smds.radius_)
            timer.record("smds", start)
            confirmed = (angles.shape[1] >= LANDMARK_AGREEMENT_MIN_D and best is not None
                         and abs(trial_stress[trial] - trial_stress[best[0]])
                         <= LANDMARK_AGREEMENT * min(trial_stress[trial],
                                                     trial_stress[best[0]]))
            if best is None or trial_stress[trial] < trial_stress[best[0]]:
                best = (trial, indices, smds)
            if confirmed:
                break
        return best[1], best[2], trial_stress

    def fit_transform(self, X: ArrayLike, y: None = None, callback=None) -> NDArray[np.float64]:
        """Fit and return ``scores_``."""
        return self.fit(X, callback=callback).scores_

    # -------------------------------------------------------------- new data
    def _check_fitted(self) -> None:
        if not hasattr(self, "pns_"):
            raise RuntimeError("this ScaledTorusPCA is not fitted yet; call fit first")

    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """Scores of new torus points: interpolation T̂ to the sphere, then PNS scores.

        ``X`` may be a ``dask.array.Array`` (n, d): the result is then a dask array built
        blockwise (:mod:`~stpca_gui.core._base.blockwise`), to be computed on any dask scheduler.
        """
        self._check_fitted()
        if is_chunked_array(X):
            return map_row_blocks(partial(_scores_of, self.match_, self._pns_geometry()), X,
                                  self.n_features_in_, self.n_features_in_)
        return _scores_of(self.match_, self.pns_, X)

    def inverse_transform(self, scores: ArrayLike) -> NDArray[np.float64]:
        """Torus points for scores: PNS inverse map to the sphere, then prediction T̃.

        ``scores`` may be a ``dask.array.Array``, as in :meth:`transform`.
        """
        self._check_fitted()
        if is_chunked_array(scores):
            return map_row_blocks(partial(_angles_of, self.match_, self._pns_geometry()),
                                  scores, self.n_features_in_, self.n_features_in_, "scores")
        return _angles_of(self.match_, self.pns_, scores)

    def _pns_geometry(self) -> PrincipalNestedSpheres:
        """The PNS fit without its per-sample scores, which are its only O(n) attribute:
        what each task of a blockwise transform carries to a worker."""
        geometry = copy.copy(self.pns_)
        vars(geometry).pop("scores_", None)
        return geometry

    # ------------------------------------------------------------ model files
    def save(self, path: str | os.PathLike[str], *, scoring_only: bool = False,
             input_table: Mapping[str, Any] | None = None) -> Path:
        """Write the fitted model to one versioned file (no pickled code); see
        :func:`~stpca_gui.core.persistence.save_model` and docs/model_file.md. With
        ``scoring_only`` only what ``transform`` and ``inverse_transform`` need is written
        (:mod:`~stpca_gui.core.scoring_only`); ``input_table`` records how the fitted table
        was read (:class:`stpca_gui.io.table_reading.TableReading`)."""
        return save_model(self, path, scoring_only=scoring_only, input_table=input_table)

    def __getattr__(self, name: str):
        # Only reached when ordinary lookup fails: a scoring-only model says why it lacks
        # a per-sample result.
        raise missing_attribute(self, name)

    def _upgrade_loaded(self, version: int) -> None:
        """Derive what a model file of an older format lacks (called by the reader):
        format 1 had no torus standard errors, angle contributions or curve data range."""
        if version >= 2 or not hasattr(self, "torus_explained_variance_ratio_"):
            return
        d = self.n_features_in_
        ratio = self.torus_explained_variance_ratio_
        computed = int(np.count_nonzero(np.isfinite(ratio)))
        self.torus_variance_components_ = computed
        self.torus_remaining_variance_ = self.torus_remaining_variance_ratio_ = (
            0.0 if computed else float("nan"))
        self.torus_remaining_variance_ratio_se_ = self.torus_remaining_variance_ratio_
        projections = vars(self).get("projections_")
        if projections is not None and computed == d:
            n = self.angles_.shape[0]
            self.torus_explained_variance_ratio_se_, self.angle_contributions_ = (
                stored_projection_summary(projections, n))
        else:  # unknown (a scoring-only file, or no torus variance)
            self.torus_explained_variance_ratio_se_ = np.full(d, np.nan)
            self.angle_contributions_ = np.empty((0, d))
        scores = vars(self.pns_).get("scores_")
        curve = vars(self).get("principal_curve_")
        if curve is not None and curve.in_data_range is None and scores is not None:
            self.principal_curve_ = dataclasses.replace(curve, in_data_range=data_range_mask(
                curve.parameter, scores[:, 0], 2.0 * np.pi * self.pns_.circle_radius_))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> ScaledTorusPCA:
        """Read a model written by :meth:`save`; ``transform`` gives bit-identical results.

        Raises :class:`~stpca_gui.core.persistence.ModelFileError` for a missing, damaged,
        foreign or newer-format file."""
        return load_model(path)


def _scores_of(match: SMDSMatch, pns: PrincipalNestedSpheres, X: ArrayLike
               ) -> NDArray[np.float64]:
    units, _ = match.interpolate(X)
    return pns.transform(units)


def _angles_of(match: SMDSMatch, pns: PrincipalNestedSpheres, scores: ArrayLike
               ) -> NDArray[np.float64]:
    values = as_float_matrix(np.atleast_2d(scores), what="scores")
    angles, _ = match.predict(pns.inverse_transform(values))
    return angles


class _Reporter:
    """Forwards progress to the user callback and turns stop requests into FitCancelled."""

    def __init__(self, callback: ProgressCallback | None) -> None:
        self.callback = callback
        self._configuration: tuple[NDArray[np.float64], float] | None = None
        #: The landmark rows being mapped by SMDS (None in an exact fit).
        self.landmarks: NDArray[np.intp] | None = None
        #: Said before the SMDS messages (which landmark set is being mapped).
        self.note = ""

    def __call__(self, event: ProgressEvent) -> None:
        if self.callback is not None and self.callback(event):
            raise FitCancelled(f"cancelled during {event.stage}")

    def checkpoint(self, stage: str, message: str) -> CancelCheck:
        """A cancel check for the blocks of work inside ``stage``: each call reports the
        stage to the callback (so a cancel is noticed there) and raises FitCancelled when
        it asks to stop."""
        event = ProgressEvent(stage, 0.0, message=message)

        def check() -> None:
            self(event)

        return check

    @property
    def smds_snapshot(self) -> SnapshotCallback | None:
        """Receives SMDS configurations for the next iteration event (None without a
        callback, so that an unobserved fit builds no snapshots)."""
        return None if self.callback is None else self._keep_configuration

    def _keep_configuration(self, iteration: int, stress: float,
                            units: NDArray[np.float64], radius: float) -> None:
        self._configuration = (units, radius)

    def smds_iteration(self, iteration: int, stress: float) -> bool:
        if self.callback is None:
            return False
        units, radius = self._configuration or (None, float("nan"))
        self._configuration = None
        try:
            return bool(self.callback(ProgressEvent(
                "smds", 0.0, iteration, stress, f"{self.note}spherical MDS: iteration {iteration}, "
                f"stress {stress:.5f}", configuration=units, radius=radius,
                landmarks=self.landmarks)))
        except FitCancelled:
            return True
