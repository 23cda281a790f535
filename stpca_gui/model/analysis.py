"""Running ST-PCA for the application: parameters, the run itself and its result.

:func:`run_analysis` is a plain blocking function; the GUI calls it in a worker thread and
turns the :class:`~stpca_gui.core.stpca.ProgressEvent` s it receives into progress bar
updates. Returning True from the callback cancels the run, which then raises
:class:`~stpca_gui.core.progress.FitCancelled`.
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from ..core.modes import ModeClustering, periodic_mode_clusters
from ..core.progress import FitCancelled
from ..core.stpca import PrincipalCurve, ProgressCallback, ProgressEvent, ScaledTorusPCA
from .dataset import Dataset

__all__ = [
    "OPTIMIZERS",
    "PNS_MODES",
    "AnalysisResult",
    "FitCancelled",
    "FitParameters",
    "ProgressEvent",
    "run_analysis",
]

#: Values of :attr:`FitParameters.pns_mode`.
PNS_MODES: tuple[str, ...] = ("seq.test", "small", "great", "bic")
#: Values of :attr:`FitParameters.optimizer`.
OPTIMIZERS: tuple[str, ...] = ("lbfgs", "paper")

_STAGE_NAMES = {
    "smds": "spherical MDS",
    "pns": "nested spheres",
    "curve": "principal curve",
    "torus-variance": "torus variance",
}


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


@dataclass(frozen=True)
class FitParameters:
    """The ST-PCA settings offered by the application.

    Attributes
    ----------
    radius : "auto" or float, default "auto"
        Sphere radius: estimated, or fixed to a positive number.
    pns_mode : {"seq.test", "small", "great", "bic"}, default "seq.test"
        How PNS chooses small or great subspheres.
    n_curve_points : int, default 100
        Points of the principal curve (at least 3).
    random_state : int, default 0
        Seed of the SMDS restarts and the PNS bootstrap (non-negative).
    n_init : int, default 1
        SMDS starts (random restarts after the first).
    optimizer : {"lbfgs", "paper"}, default "lbfgs"
        SMDS optimiser ("paper" reproduces the published, unconverged fits).
    torus_variance : bool, default True
        Compute the torus explained variance (n·d extra predictions).
    """

    radius: Literal["auto"] | float = "auto"
    pns_mode: str = "seq.test"
    n_curve_points: int = 100
    random_state: int = 0
    n_init: int = 1
    optimizer: Literal["lbfgs", "paper"] = "lbfgs"
    torus_variance: bool = True

    def validate(self) -> None:
        """Check every setting.

        Raises
        ------
        ValueError
            Naming the first bad setting, its value and what is allowed.
        """
        radius = self.radius
        if isinstance(radius, str):
            if radius != "auto":
                raise ValueError(f"radius must be 'auto' or a positive number, got {radius!r}")
        elif (isinstance(radius, bool | np.bool_) or not isinstance(radius, numbers.Real)
              or not math.isfinite(radius) or radius <= 0):
            raise ValueError(f"radius must be 'auto' or a positive number, got {radius!r}")
        if self.pns_mode not in PNS_MODES:
            raise ValueError(f"pns_mode must be one of {', '.join(PNS_MODES)}; "
                             f"got {self.pns_mode!r}")
        if not _is_int(self.n_curve_points) or self.n_curve_points < 3:
            raise ValueError("n_curve_points (points of the principal curve) must be an "
                             f"integer >= 3, got {self.n_curve_points!r}")
        if not _is_int(self.random_state) or self.random_state < 0:
            raise ValueError("random_state (seed) must be a non-negative integer, "
                             f"got {self.random_state!r}")
        if not _is_int(self.n_init) or self.n_init < 1:
            raise ValueError(f"n_init (SMDS starts) must be an integer >= 1, got {self.n_init!r}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {', '.join(OPTIMIZERS)}; "
                             f"got {self.optimizer!r}")
        if not isinstance(self.torus_variance, bool | np.bool_):
            raise ValueError(f"torus_variance must be True or False, got {self.torus_variance!r}")

    def to_estimator(self) -> ScaledTorusPCA:
        """A new, unfitted :class:`ScaledTorusPCA` with these settings (validated first)."""
        self.validate()
        radius = self.radius if isinstance(self.radius, str) else float(self.radius)
        return ScaledTorusPCA(
            radius=radius,
            pns_mode=self.pns_mode,
            n_curve_points=int(self.n_curve_points),
            random_state=int(self.random_state),
            n_init=int(self.n_init),
            optimizer=self.optimizer,
            torus_variance=bool(self.torus_variance),
        )


@dataclass(frozen=True, eq=False)
class AnalysisResult:
    """A finished ST-PCA run.

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
    """

    model: ScaledTorusPCA
    parameters: FitParameters
    dataset: Dataset
    wall_time: float

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

    @cached_property
    def mode_clusters(self) -> ModeClustering:
        """Periodic mode clustering of PNS1 (paper section 5), checked against the labels
        when the data have them."""
        labels = self.dataset.labels if self.dataset.has_labels else None
        return periodic_mode_clusters(self.pns1, period=self.pns1_period, labels=labels)

    def summary_rows(self) -> list[tuple[str, str]]:
        """(label, value) text pairs for the result side panel."""
        model = self.model
        smds = model.smds_
        n, d = model.scores_.shape
        rows: list[tuple[str, str]] = [
            ("samples n", str(n)),
            ("angles d", str(d)),
        ]
        if isinstance(self.parameters.radius, str):
            rows.append(("start radius r*", f"{smds.initial_radius_:.4f}"))
            rows.append(("fitted radius r̂", f"{model.radius_:.4f}"))
        else:
            rows.append(("fixed radius r", f"{model.radius_:.4f}"))
        rows.append(("stress", f"{model.stress_:.5f} (start {smds.initial_stress_:.5f})"))
        status = "converged" if smds.converged_ else "not converged"
        rows.append(("SMDS iterations", f"{smds.n_iter_} ({model.optimizer}, {status})"))
        types = ", ".join(model.pns_.sphere_types_) or "–"
        rows.append(("PNS spheres", f"{types} ({model.pns_mode})"))
        for k, value in enumerate(model.explained_variance_ratio_):
            rows.append((f"sphere variance PNS{k + 1}", _percent(value)))
        for k, value in enumerate(model.torus_explained_variance_ratio_):
            rows.append((f"torus variance PNS{k + 1}", _percent(value)))
        for stage, seconds in model.timings_.items():
            rows.append((f"time: {_STAGE_NAMES.get(stage, stage)}", f"{seconds:.2f} s"))
        rows.append(("time: total", f"{self.wall_time:.2f} s"))
        clusters = self.mode_clusters
        rows.append(("PNS1 mode clusters", f"{len(clusters.modes)} (bandwidth "
                                           f"{clusters.bandwidth:.3g})"))
        if clusters.classification_rate is not None:
            rows.append(("clusters vs labels", f"{100 * clusters.classification_rate:.1f} % "
                                               "correctly classified"))
        return rows


def _percent(value: float) -> str:
    return "not computed" if math.isnan(value) else f"{100.0 * value:.1f} %"


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
    estimator.fit(dataset.angles, callback=callback)
    wall_time = time.perf_counter() - start
    result = AnalysisResult(model=estimator, parameters=params, dataset=dataset,
                            wall_time=wall_time)
    _ = result.mode_clusters  # computed here, in the caller's (worker) thread
    return result
