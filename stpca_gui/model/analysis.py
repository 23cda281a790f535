"""Running ST-PCA for the application: parameters, the run itself and its result.

:func:`run_analysis` is a plain blocking function; the GUI calls it in a worker thread and
turns the :class:`~stpca_gui.core.stpca.ProgressEvent` s it receives into progress bar
updates. Returning True from the callback cancels the run, which then raises
:class:`~stpca_gui.core._base.progress.FitCancelled`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core import (
    CancelCheck,
    FitCancelled,
    ModeClusterSettings,
    ParamSpec,
    ProgressCallback,
    ProgressEvent,
)
from ..core.circstats.mode_clustering import ModeClustering
from ..core.clusters import model_mode_clusters
from ..core.diagnostics import FitDiagnostics, fit_diagnostics
from ..core.prediction.principal_curve import PrincipalCurve
from ..core.stpca import ScaledTorusPCA
from ..core.summary import fit_summary, mode_cluster_items
from .dataset import Dataset
from .live_fit import LIVE_INTERVAL, LiveSMDS
from .tasks import TaskState

__all__ = [
    "SETTINGS_DECLARATIONS",
    "AnalysisResult",
    "FitCancelled",
    "FitParameters",
    "ProgressEvent",
    "fit_task",
    "paper_rule_clusters",
    "run_analysis",
]

#: The stage of the progress report :func:`run_analysis` sends while it clusters PNS1 by
#: its density modes, after the fit's stages and before the fit's "done".
MODES_STAGE = "modes"


RadiusChoice = str | float
LandmarkChoice = str | int | None


#: The declarations the application's settings are made of, with the title each group
#: of settings has on the command line: the estimator's parameters, then how PNS1 is
#: clustered (:data:`FitParameters` holds one field per offered parameter of each).
SETTINGS_DECLARATIONS: tuple[tuple[str, type], ...] = (
    ("ST-PCA settings", ScaledTorusPCA),
    ("PNS1 mode clusters", ModeClusterSettings),
)


@dataclass(frozen=True)
class FitParameters:
    """The settings offered by the application and the command line: ST-PCA's and those of
    PNS1's mode clusters.

    The fields are the parameters with a label of each declaration of
    :data:`SETTINGS_DECLARATIONS` (:class:`~stpca_gui.core.stpca.ScaledTorusPCA`, then
    :class:`~stpca_gui.core.mode_settings.ModeClusterSettings`), in their declaration order,
    with the application's defaults (a fixed seed where the library's is None). What each
    allows and means is declared once, there (:meth:`specs`);
    ``tests/core/_base/test_params.py`` checks that these fields are those declarations.
    Values are checked by :meth:`validate`, by the declarations' own validation.
    """

    radius: RadiusChoice = "auto"
    initial_radius: RadiusChoice = "auto"
    pns_mode: str = "seq.test"
    n_curve_points: int = 100
    random_state: int | None = 0
    n_init: int = 1
    optimizer: str = "lbfgs"
    tol: float = 1e-5
    max_iter: int = 2000
    alpha: float = 0.1
    n_bootstrap: int = 100
    pns_exact_levels: int | str = 12
    n_landmarks: LandmarkChoice = "auto"
    landmark_method: str = "mixed"
    landmark_trials: int = 3
    torus_variance: bool = True
    max_torus_components: int = 10
    cluster_rule: str = "tested"
    mode_alpha: float = 0.05
    mode_null: str = "critical_kde"

    @staticmethod
    def specs(declaration: type | None = None) -> tuple[ParamSpec, ...]:
        """The declarations of the fields, in their order (of one declaration of
        :data:`SETTINGS_DECLARATIONS` when given): what each allows, its help text, label
        and command line flag."""
        owners = [owner for _, owner in SETTINGS_DECLARATIONS
                  if declaration is None or owner is declaration]
        return tuple(spec for owner in owners for spec in owner.parameter_specs()
                     if spec.offered)

    def _values(self, declaration: type) -> dict[str, Any]:
        return {spec.name: getattr(self, spec.name) for spec in self.specs(declaration)}

    def to_estimator(self) -> ScaledTorusPCA:
        """A new, unfitted :class:`ScaledTorusPCA` with these settings; as every estimator,
        it checks them when it is fitted."""
        return ScaledTorusPCA(**self._values(ScaledTorusPCA))

    def mode_cluster_settings(self) -> ModeClusterSettings:
        """How PNS1 is clustered: the rule, the mode test's level and its null."""
        return ModeClusterSettings(**self._values(ModeClusterSettings))

    def validate(self) -> None:
        """Check every setting now, by the declarations' own validation (for front ends that
        refuse bad settings before starting a fit).

        Raises
        ------
        ValueError
            Naming the first bad setting, its value and what is allowed.
        """
        self.to_estimator()._validate_params()
        self.mode_cluster_settings()._validate_params()


@dataclass(frozen=True, eq=False)
class AnalysisResult:
    """A finished ST-PCA run.

    Everything is given to the constructor: :meth:`from_fit` (what :func:`run_analysis`
    uses) computes the clusters of a fitted estimator; a session or the command line pass
    the clusters they hold.

    Attributes
    ----------
    model : ScaledTorusPCA
        The fitted estimator (treat as read-only).
    parameters : FitParameters
        The settings it was fitted with.
    dataset : Dataset
        The data set it was fitted on.
    wall_time : float
        Seconds spent in :meth:`ScaledTorusPCA.fit`.
    mode_clusters : ModeClustering
        The clusters the app shows: PNS1's tested mode clusters (issue 22; the data are
        first tested for uniformity on the torus), with each cluster's stability, checked
        against the labels when the data have them. A session may bring clusters made by
        another rule or level: they say which (their ``method``, their test's level).
    paper_mode_clusters : ModeClustering or None
        PNS1's clusters by the paper's rule (every mode of the plug-in KDE, untested), for
        comparison; None when they were not computed (the command line's result, whose
        session does not keep them).
    """

    model: ScaledTorusPCA
    parameters: FitParameters
    dataset: Dataset
    wall_time: float
    mode_clusters: ModeClustering
    paper_mode_clusters: ModeClustering | None = None

    @classmethod
    def from_fit(cls, model: ScaledTorusPCA, parameters: FitParameters, dataset: Dataset,
                 wall_time: float, check: CancelCheck | None = None) -> AnalysisResult:
        """The result of a fitted estimator, with both rules' clusters computed here (in
        the caller's thread; ``check`` may cancel, raising
        :class:`~stpca_gui.core._base.progress.FitCancelled`)."""
        # The tested rule's boundaries start from the paper rule's clusters, computed once.
        paper = paper_rule_clusters(model, dataset, check)
        return cls(model=model, parameters=parameters, dataset=dataset, wall_time=wall_time,
                   mode_clusters=_cluster_pns1(model, parameters, _labels(dataset), check, paper),
                   paper_mode_clusters=paper)

    @property
    def scores(self) -> NDArray[np.float64]:
        """PNS scores, shape (n, d); column 0 is PNS1."""
        return self.model.scores_

    @property
    def pns1(self) -> NDArray[np.float64]:
        """PNS1 score of every sample, in [−π·ρ, π·ρ) with ρ the principal circle radius."""
        return self.model.scores_[:, 0]

    @property
    def pns1_period(self) -> float:
        """Period of PNS1: 2π × the Euclidean radius of the principal circle."""
        return 2.0 * math.pi * float(self.model.pns_.circle_radius_)

    @property
    def sphere_ratio(self) -> NDArray[np.float64]:
        """Explained variance ratio of each PNS component on the sphere."""
        return self.model.explained_variance_ratio_

    @property
    def torus_ratio(self) -> NDArray[np.float64]:
        """Explained variance ratio on the torus (NaN when it was not computed)."""
        return self.model.torus_explained_variance_ratio_

    @property
    def torus_remaining(self) -> float:
        """Torus variance ratio of the components after those computed (0 when every one
        was; NaN when the torus variance was not computed)."""
        return float(getattr(self.model, "torus_remaining_variance_ratio_", 0.0))

    @property
    def curve(self) -> PrincipalCurve:
        """The principal curve on the torus."""
        return self.model.principal_curve_

    @property
    def radius(self) -> float:
        """Fitted sphere radius r̂."""
        return float(self.model.radius_)

    @property
    def stress(self) -> float:
        """Final SMDS stress."""
        return float(self.model.stress_)

    @property
    def landmark_note(self) -> str:
        """What a landmark fit says about itself, e.g. "landmarks: 1,500 of 1,000,000,
        all-pairs stress 0.0168"; "" for an exact fit."""
        model = self.model
        if model.landmark_indices_ is None:
            return ""
        n = model.scores_.shape[0]
        return (f"landmarks: {model.n_landmarks_:,} of {n:,}, all-pairs stress "
                f"{model.all_pairs_stress_:.4f}")

    def compute_diagnostics(self, check: CancelCheck | None = None,
                            progress: Any = None) -> FitDiagnostics:
        """The fit diagnostics (Shepard sample, stress per point, stress over r, flat
        patch; :mod:`stpca_gui.core.diagnostics`), reporting and cancellable like
        :func:`~stpca_gui.core.diagnostics.fit_diagnostics`. One pass over the fit's pairs:
        the app computes them in a task and keeps them in
        :attr:`~stpca_gui.model.app_state.AppState.diagnostics`."""
        return fit_diagnostics(self.model, check=check, progress=progress)

    def summary_rows(self) -> list[tuple[str, str]]:
        """(label, value) text pairs for the result side panel."""
        rows = [(item.label, item.text)
                for item in fit_summary(self.model, self.dataset.column_names) if item.shown]
        rows.append(("time: total", f"{self.wall_time:.2f} s"))
        clusters, paper = self.mode_clusters, self.paper_mode_clusters
        rows += [(item.label, item.text) for item in mode_cluster_items(clusters) if item.shown]
        if clusters.method != "paper" and paper is not None:
            text = f"{paper.n_clusters} (every mode, untested)"
            if paper.classification_rate is not None:
                text += f", {100 * paper.classification_rate:.1f} % correct"
            rows.append(("paper's rule", text))
        return rows

    # Read-only views of the fitted estimator for the app, so it needs no estimator names.
    @property
    def circle_radius(self) -> float:
        """Euclidean radius of the principal circle (PNS1 / this = angle on the circle)."""
        return float(self.model.pns_.circle_radius_)

    @property
    def stage_seconds(self) -> dict[str, float]:
        """Seconds spent in each stage of the fit ("smds", "pns", …)."""
        return dict(self.model.timings_)


def run_analysis(
    dataset: Dataset,
    params: FitParameters,
    callback: ProgressCallback | None = None,
) -> AnalysisResult:
    """Fit ST-PCA to a data set (blocking; meant for a worker thread).

    Parameters
    ----------
    dataset : Dataset
    params : FitParameters
    callback : callable, optional
        Receives every :class:`ProgressEvent`; returning True cancels the run.

    Returns
    -------
    AnalysisResult

    Raises
    ------
    ValueError
        Invalid parameters or data unsuitable for a fit (e.g. fewer than 3 samples).
    FitCancelled
        When the callback asked to stop.
    """
    estimator = params.to_estimator()
    start = time.perf_counter()
    done: list[ProgressEvent] = []
    estimator.fit(dataset.angles, callback=_holding_back_done(callback, done))
    wall_time = time.perf_counter() - start
    # The mode clusters are computed here, in the caller's (worker) thread, and can be
    # cancelled like the fit's stages (seconds for 10⁵ points); "done" comes after them.
    check = None
    if callback is not None:
        event = ProgressEvent(MODES_STAGE, 0.0, message="mode clusters")

        def check() -> None:
            if callback(event):
                raise FitCancelled("cancelled during modes")

        check()
    # Both rules, which the Result panel shows side by side.
    result = AnalysisResult.from_fit(estimator, params, dataset, wall_time, check)
    if callback is not None and done and callback(done[0]):
        raise FitCancelled("cancelled at the end")
    return result


def _holding_back_done(
    callback: ProgressCallback | None, held: list[ProgressEvent]
) -> ProgressCallback | None:
    """The fit's callback, minus its "done" event, which is kept in ``held`` for later."""
    if callback is None:
        return None

    def forward(event: ProgressEvent) -> bool | None:
        if event.stage == "done":
            held.append(event)
            return False
        return callback(event)

    return forward


def paper_rule_clusters(model: ScaledTorusPCA, dataset: Dataset,
                        check: CancelCheck | None = None) -> ModeClustering:
    """PNS1's clusters by the paper's rule (every mode of the plug-in KDE, untested),
    checked against the data set's labels when it has them."""
    return model_mode_clusters(model, method="paper", labels=_labels(dataset), check=check)


def _labels(dataset: Dataset) -> NDArray | None:
    return dataset.labels if dataset.has_labels else None


def _cluster_pns1(model: ScaledTorusPCA, parameters: FitParameters, labels: NDArray | None,
                  check: CancelCheck | None = None,
                  paper: ModeClustering | None = None) -> ModeClustering:
    """PNS1's clusters by the rule and level of ``parameters``."""
    return parameters.mode_cluster_settings().clusters(
        model, labels=labels, stability=True, paper=paper, check=check)


def fit_task(dataset: Dataset, params: FitParameters, state: TaskState, *,
             live_interval: float | None = LIVE_INTERVAL,
             clock: Callable[[], float] = time.monotonic) -> AnalysisResult:
    """The task of one fit (Qt-free): progress and cancel through the core's callback.

    With ``live_interval`` (seconds), the SMDS configurations reach ``state.partial`` as
    :class:`~stpca_gui.model.live_fit.SMDSSnapshot` s, at most one per interval plus the
    first and last of each run (throttled here, in the fit's thread); None sends none.
    """
    if live_interval is None:
        return run_analysis(dataset, params, callback=state.callback)
    live = LiveSMDS(state.partial, live_interval, clock)

    def callback(event: ProgressEvent) -> bool:
        live.observe(event)
        return state.callback(event)

    return run_analysis(dataset, params, callback=callback)
