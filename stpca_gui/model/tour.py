"""The guided tour's content: its steps, the paper's equations and the numbers it shows.

Seven steps walk a student through ST-PCA on the data in the window (paper sections 2–3):
the torus and why Euclidean PCA fails there, the torus distance, spherical MDS
(eq. smds, replayed from a recorded fit), the radius (eq. smds3 and eq. wasser, with
refits at a chosen r), principal nested spheres (eq. PNS), the principal curve
(eq. invmds2) and the explained variance (eq. totalvar and the torus variance of
section 3.5). Everything here is Qt-free and draws nothing: :func:`prepare_tour` and
:func:`refit_at_radius` are background tasks (``task(state)``), :func:`tour_steps` writes
the texts with the fit's numbers; the figures are in :mod:`stpca_gui.plotting.tour_figures`
and the panel in :mod:`stpca_gui.gui.tour`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ..core.geometry.torus import torus_pdist
from ..core.smds.smds import SphericalMDS, default_initial_radius
from ..core.summary import superscript
from .analysis import AnalysisResult
from .live_fit import SMDSSnapshot
from .tasks import TaskState

__all__ = [
    "MAX_FRAMES",
    "PAPER_EQUATIONS",
    "RADIUS_FACTORS",
    "RADIUS_SAMPLE",
    "PaperEquation",
    "RadiusPoint",
    "SeamSplit",
    "SnapshotRecorder",
    "TourData",
    "TourStep",
    "euclidean_pca_scores",
    "naive_and_torus_distances",
    "prepare_tour",
    "radius_grid",
    "refit_at_radius",
    "seam_split",
    "sphere_name",
    "superscript",
    "tour_steps",
]

#: Most SMDS frames kept for the replay (the first and the last are always among them).
MAX_FRAMES = 40
#: Most samples refitted at a fixed radius; larger data are subsampled (the panel says so).
RADIUS_SAMPLE = 400
#: Radii of the stress-versus-r curve, as multiples of r̂.
RADIUS_FACTORS = (0.45, 0.6, 0.75, 0.9, 1.0, 1.15, 1.35, 1.6, 2.0, 2.5)
#: Iteration limit of a fixed-radius refit (started at the fitted configuration).
RADIUS_MAX_ITER = 400
#: Width (rad) of the band on each side of the ±π seam whose points the tour marks.
SEAM_BAND = 0.6


@dataclass(frozen=True)
class PaperEquation:
    """A numbered equation of the ST-PCA paper (Zoubouloglou, García-Portugués & Marron).

    Attributes
    ----------
    label : str
        The paper's LaTeX label, e.g. ``"eq:smds"``.
    number : int
        Its number in the paper.
    section : str
        Section and subsection it is in, e.g. ``"3.1 Solving the SMDS problem"``.
    name : str
        What it is, in a few words.
    latex : str
        The equation as in the paper (LaTeX, for the exported index).
    mathtext : tuple of str
        The same for matplotlib's mathtext, one string per rendered line (simplified where
        mathtext lacks a construct), with the companion's line last when there is one.
    companion : str
        An unnumbered formula of the same subsection that the tour shows with it (LaTeX),
        e.g. the torus distance next to the sphere distance of eq. (1); "" for none.
    """

    label: str
    number: int
    section: str
    name: str
    latex: str
    mathtext: tuple[str, ...]
    companion: str = ""

    @property
    def citation(self) -> str:
        """One line naming the equation and where it is in the paper."""
        return f"ST-PCA paper, §{self.section}, eq. ({self.number}): {self.name}"


_STRESS_SUM = r"\frac{1}{n(n-1)}\sum_{i\neq j}"
#: The paper's numbered equations the tour uses, by label (numbers as in the paper).
PAPER_EQUATIONS: dict[str, PaperEquation] = {eq.label: eq for eq in (
    PaperEquation(
        "eq:sdist", 1, "2.1 Some geometrical considerations",
        "geodesic distances on the sphere (and, after it, on the torus)",
        r"\delta_{\mathbb{S}^d_r}(x,y)=r\arccos(x'y/r^2)",
        (r"$\delta_{\mathbb{S}^d_r}(x,y)=r\,\arccos(x^{\prime}y/r^2)$",
         r"$\delta_{\mathbb{T}^d}(\phi,\psi)=\left(\sum_{i=1}^{d}\,\min\{|\phi_i-\psi_i|,"
         r"\;2\pi-|\phi_i-\psi_i|\}^2\right)^{1/2}$"),
        companion=r"\delta_{\mathbb{T}^d}(\phi,\psi)=\Big(\sum_{i=1}^d\min\{|\phi_i-\psi_i|,"
        r"2\pi-|\phi_i-\psi_i|\}^2\Big)^{1/2}"),
    PaperEquation(
        "eq:mds", 2, "2.2.1 Classical Euclidean MDS",
        "classical MDS, which is PCA for Euclidean distances",
        r"(\hat y_1,\ldots,\hat y_n)=\arg\min_{y_i\in\mathbb{R}^p}" + _STRESS_SUM
        + r"(\delta_X(x_i,x_j)-\|y_i-y_j\|)^2",
        (r"$(\hat y_1,\ldots,\hat y_n)=\arg\min_{y_i\in\mathbb{R}^p}\;\frac{1}{n(n-1)}"
         r"\sum_{i\neq j}\left(\delta_X(x_i,x_j)-\|y_i-y_j\|\right)^2$",)),
    PaperEquation(
        "eq:smds", 4, "3 Scaled Torus-PCA (step 1)",
        "spherical MDS of the torus sample",
        r"(\hat y_1,\ldots,\hat y_n)=\arg\min_{y_i\in\mathbb{S}^d_r}" + _STRESS_SUM
        + r"(\delta_{\mathbb{T}^d}(x_i,x_j)-\delta_{\mathbb{S}^d_r}(y_i,y_j))^2",
        (r"$(\hat y_1,\ldots,\hat y_n)=\arg\min_{y_i\in\mathbb{S}^d_r}\;\frac{1}{n(n-1)}"
         r"\sum_{i\neq j}\left(\delta_{\mathbb{T}^d}(x_i,x_j)-"
         r"\delta_{\mathbb{S}^d_r}(y_i,y_j)\right)^2$",)),
    PaperEquation(
        "eq:smds2", 5, "3.1 Solving the SMDS problem",
        "SMDS as an unconstrained problem, y = r z/‖z‖",
        r"\arg\min_{z_i\in\mathbb{R}^{d+1}}" + _STRESS_SUM
        + r"\Big(\delta_{\mathbb{T}^d}(x_i,x_j)-r\arccos\frac{z_i'z_j}{\|z_i\|\|z_j\|}\Big)^2",
        (r"$\arg\min_{z_i\in\mathbb{R}^{d+1}}\;\frac{1}{n(n-1)}\sum_{i\neq j}\left("
         r"\delta_{\mathbb{T}^d}(x_i,x_j)-r\,\arccos\frac{z_i^{\prime}z_j}{\|z_i\|\,\|z_j\|}"
         r"\right)^2$",)),
    PaperEquation(
        "eq:smds3", 6, "3.2 Considerations on the radius",
        "SMDS with the radius estimated too",
        r"(\hat r,\hat z_1,\ldots,\hat z_n)=\arg\min_{r>0,\,z_i\in\mathbb{R}^{d+1}}"
        + _STRESS_SUM
        + r"\Big(\delta_{\mathbb{T}^d}(x_i,x_j)-r\arccos\frac{z_i'z_j}{\|z_i\|\|z_j\|}\Big)^2",
        (r"$(\hat r,\hat z_1,\ldots,\hat z_n)=\arg\min_{r>0,\;z_i}\;\frac{1}{n(n-1)}"
         r"\sum_{i\neq j}\left(\delta_{\mathbb{T}^d}(x_i,x_j)-r\,\arccos"
         r"\frac{z_i^{\prime}z_j}{\|z_i\|\,\|z_j\|}\right)^2$",)),
    PaperEquation(
        "eq:wasser", 7, "3.2 Considerations on the radius",
        "the Wasserstein radius r*",
        r"r^*=\arg\min_{r\ge0}\mathbb{E}_{\mu\times\nu_r}\left[W_1(F_{N,\mathbb{T}^d},"
        r"G_{N,\mathbb{S}^d_r})\right]",
        (r"$r^{*}=\arg\min_{r\geq 0}\;\mathbb{E}_{\mu\times\nu_r}\left[W_1(F_{N,\mathbb{T}^d},"
         r"\,G_{N,\mathbb{S}^d_r})\right]$",)),
    PaperEquation(
        "eq:PNS", 8, "3.3 PNS fit",
        "the nested subspheres of principal nested spheres",
        r"\mathbb{S}^d\supset S^{d-1}\supset S^{d-2}\supset\ldots\supset S^1\supset"
        r"\{\hat\mu\}",
        (r"$\mathbb{S}^d\supset S^{d-1}\supset S^{d-2}\supset\cdots\supset S^1\supset"
         r"\{\hat\mu\}$",)),
    PaperEquation(
        "eq:invmds2", 9, "3.4 Prediction",
        "prediction: from the sphere back to the torus",
        r"\tilde T(y)=\arg\min_{x\in\mathbb{T}^d}\frac{1}{n}\sum_{i=1}^n"
        r"(\delta_{\mathbb{T}^d}(x,x_i)-\delta_{\mathbb{S}^d_r}(y,\hat y_i))^2",
        (r"$\tilde{T}(y)=\arg\min_{x\in\mathbb{T}^d}\;\frac{1}{n}\sum_{i=1}^{n}\left("
         r"\delta_{\mathbb{T}^d}(x,x_i)-\delta_{\mathbb{S}^d_r}(y,\hat y_i)\right)^2$",)),
    PaperEquation(
        "eq:interp", 10, "3.4 Prediction",
        "interpolation: from the torus to the sphere",
        r"\hat T(x)=\arg\min_{y\in\mathbb{S}^d_r}\frac{1}{n}\sum_{i=1}^n"
        r"(\delta_{\mathbb{T}^d}(x,x_i)-\delta_{\mathbb{S}^d_r}(y,\hat y_i))^2",
        (r"$\hat{T}(x)=\arg\min_{y\in\mathbb{S}^d_r}\;\frac{1}{n}\sum_{i=1}^{n}\left("
         r"\delta_{\mathbb{T}^d}(x,x_i)-\delta_{\mathbb{S}^d_r}(y,\hat y_i)\right)^2$",)),
    PaperEquation(
        "eq:totalvar", 11, "3.5 Explained variance",
        "variance explained by each nested sphere",
        r"\mathrm{var}_{\mathbb{S}^d}=\sum_{k=1}^d\mathrm{var}^{(k)}_{\mathbb{S}^d}"
        r"=\sum_{k=1}^d\sum_{i=1}^n\delta_{\mathbb{S}^d}(\hat y_i^{(k-1)},\hat y_i^{(k)})^2",
        (r"$\mathrm{var}_{\mathbb{S}^d}=\sum_{k=1}^{d}\mathrm{var}^{(k)}_{\mathbb{S}^d}"
         r"=\sum_{k=1}^{d}\quad\sum_{i=1}^{n}\delta_{\mathbb{S}^d}(\hat y_i^{(k-1)},"
         r"\hat y_i^{(k)})^2$",
         r"torus (§3.5): $\hat x_i^{(k)}=\tilde{T}(\hat y_i^{(k)})$, "
         r"$\mathrm{var}^{(k)}_{\mathbb{T}^d}=\sum_i\delta_{\mathbb{T}^d}(\hat x_i^{(k-1)},"
         r"\hat x_i^{(k)})^2$"),
        companion=r"\mathrm{var}_{\mathbb{T}^d}^{(k)}=\sum_{i=1}^n\delta_{\mathbb{T}^d}"
        r"\big(\hat x_i^{(k-1)},\hat x_i^{(k)}\big)^2,\quad"
        r"\hat x_i^{(k)}=\tilde T(\hat y_i^{(k)})"),
)}


def sphere_name(k: int, radius: str = "") -> str:
    """S^k (with the radius as subscript text), written for people: ``"S³"``, ``"S³_r"``."""
    return f"S{superscript(k)}" + (f"_{radius}" if radius else "")


# --------------------------------------------------------------------------- recorded data
@dataclass(frozen=True)
class RadiusPoint:
    """SMDS refitted at a fixed radius: its stress and configuration.

    Attributes
    ----------
    radius, stress : float
    snapshot : SMDSSnapshot
        The converged configuration (unit vectors on S^d of the refitted rows), for the
        sphere view.
    """

    radius: float
    stress: float
    snapshot: SMDSSnapshot = field(repr=False)


class SnapshotRecorder:
    """Keeps every k-th SMDS snapshot, plus the first and the last, at most ``max_frames``.

    A ``snapshot(iteration, stress, units, radius)`` receiver for
    :meth:`~stpca_gui.core.smds.smds.SphericalMDS.fit`. When more than ``max_frames`` would be
    kept, k doubles and every other kept frame is dropped, so the kept frames stay evenly
    spaced whatever the number of iterations.
    """

    def __init__(self, max_frames: int = MAX_FRAMES) -> None:
        if max_frames < 2:
            raise ValueError(f"max_frames must be at least 2, got {max_frames}")
        self.max_frames = int(max_frames)
        self.stride = 1
        self.kept: list[tuple[int, float, NDArray[np.float64], float]] = []
        self.last: tuple[int, float, NDArray[np.float64], float] | None = None
        #: Every iteration's stress (cheap), for the stress curve.
        self.trace: list[tuple[int, float]] = []

    def __call__(self, iteration: int, stress: float, units: NDArray[np.float64],
                 radius: float) -> None:
        frame = (int(iteration), float(stress), units, float(radius))
        index = len(self.trace)
        self.trace.append(frame[:2])
        self.last = frame
        if index % self.stride:
            return
        self.kept.append(frame)
        if len(self.kept) >= self.max_frames:
            # The first is kept; the last place stays free for the final frame.
            self.stride *= 2
            self.kept = self.kept[::2]

    def frames(self) -> list[tuple[int, float, NDArray[np.float64], float]]:
        """The kept frames in order, ending with the last snapshot received."""
        frames = list(self.kept)
        if self.last is not None and (not frames or frames[-1][0] != self.last[0]):
            frames.append(self.last)
        return frames


@dataclass(frozen=True)
class SeamSplit:
    """The samples on either side of the ±π seam of one angle.

    Attributes
    ----------
    angle : int
        Column of the angle whose seam is shown (the one with most samples on its smaller
        side).
    plus, minus : ndarray of bool, shape (n,)
        Samples within :data:`SEAM_BAND` of +π and of −π in that angle.
    """

    angle: int
    plus: NDArray[np.bool_]
    minus: NDArray[np.bool_]

    @property
    def crosses(self) -> bool:
        """Whether samples lie on both sides of the seam."""
        return bool(self.plus.any() and self.minus.any())

    def groups(self) -> NDArray[np.int8]:
        """Selection groups: 1 near +π, 2 near −π, 0 elsewhere."""
        groups = np.zeros(self.plus.size, dtype=np.int8)
        groups[self.plus] = 1
        groups[self.minus] = 2
        return groups


def seam_split(angles: NDArray[np.float64], band: float = SEAM_BAND) -> SeamSplit:
    """The angle whose ±π seam cuts the data most, with the samples on each side.

    Parameters
    ----------
    angles : ndarray, shape (n, d)
        Angles in [−π, π).
    band : float
        Width of the band on each side of the seam, in radians.
    """
    angles = np.asarray(angles, dtype=np.float64)
    plus = angles > math.pi - band
    minus = angles < -math.pi + band
    both = np.minimum(plus.sum(axis=0), minus.sum(axis=0))
    j = int(np.argmax(both))
    return SeamSplit(j, plus[:, j].copy(), minus[:, j].copy())


def euclidean_pca_scores(angles: NDArray[np.float64], n_components: int = 2
                         ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Ordinary PCA of the raw angle coordinates, as if [−π, π)^d were flat.

    Returns
    -------
    scores : ndarray, shape (n, n_components)
        Scores (fewer columns when d is smaller).
    ratio : ndarray
        Explained variance ratio of every component.
    """
    x = np.asarray(angles, dtype=np.float64)
    centred = x - x.mean(axis=0)
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    variance = singular ** 2
    k = min(n_components, vt.shape[0])
    return centred @ vt[:k].T, variance / variance.sum()


def naive_and_torus_distances(
    angles: NDArray[np.float64], max_samples: int = 300, seed: int = 0
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.intp], NDArray[np.intp]]:
    """Pairwise distances of (a subsample of) the data: Euclidean on the raw coordinates and
    geodesic on the torus (paper §2.1), in the same pair order.

    Returns
    -------
    naive, torus : ndarray, shape (m,)
        The two distances of each pair.
    first, second : ndarray of int, shape (m,)
        The rows of ``angles`` of each pair.
    """
    x = np.asarray(angles, dtype=np.float64)
    rows = np.arange(len(x))
    if len(x) > max_samples:
        rows = np.sort(np.random.default_rng(seed).choice(len(x), max_samples, replace=False))
    x = x[rows]
    i, j = np.triu_indices(len(x), k=1)
    naive = np.sqrt(np.sum((x[i] - x[j]) ** 2, axis=1))
    return naive, torus_pdist(x)[i, j], rows[i], rows[j]


def radius_grid(r_hat: float, r_star: float) -> NDArray[np.float64]:
    """The radii of the stress curve: :data:`RADIUS_FACTORS` × r̂, with r̂ and r*."""
    radii = np.append(np.asarray(RADIUS_FACTORS) * r_hat, [r_hat, r_star])
    return np.unique(np.round(radii, 4))


# --------------------------------------------------------------------------- tasks
@dataclass
class TourData:
    """What the tour shows besides the fit itself: recorded SMDS frames, r*, the
    stress-versus-radius curve (extended by every refit) and the seam split.

    Attributes
    ----------
    result : AnalysisResult
    frames : list of SMDSSnapshot
        The replayed SMDS iterations (of the landmarks, in a landmark fit), each with the
        stress history up to it; the first has ``first=True``.
    trace : ndarray, shape (k, 2)
        Iteration and stress of every SMDS iteration.
    r_star : float
        Wasserstein radius of eq. (wasser) for this d.
    radius_points : list of RadiusPoint
        Fixed-radius refits, in the order computed.
    radius_rows : ndarray of int
        The samples refitted at fixed radii (all of them up to :data:`RADIUS_SAMPLE`).
    seam : SeamSplit
    """

    result: AnalysisResult
    frames: list[SMDSSnapshot]
    trace: NDArray[np.float64]
    r_star: float
    radius_points: list[RadiusPoint]
    radius_rows: NDArray[np.intp]
    seam: SeamSplit

    @property
    def radius_subsampled(self) -> bool:
        """Whether the radius refits use a subsample of the data."""
        return len(self.radius_rows) < self.result.dataset.n_samples

    def add_radius_point(self, point: RadiusPoint) -> None:
        """Add a refit to the curve (replacing one at the same radius)."""
        self.radius_points = [p for p in self.radius_points
                              if not math.isclose(p.radius, point.radius, rel_tol=1e-9)]
        self.radius_points.append(point)

    def radius_curve(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Radii and stresses of every refit, sorted by radius."""
        points = sorted(self.radius_points, key=lambda p: p.radius)
        return (np.array([p.radius for p in points]), np.array([p.stress for p in points]))

    def nearest_radius_point(self, radius: float) -> RadiusPoint:
        """The refit whose radius is closest to ``radius``."""
        return min(self.radius_points, key=lambda p: abs(p.radius - radius))


def _radius_rows(n: int) -> NDArray[np.intp]:
    if n <= RADIUS_SAMPLE:
        return np.arange(n)
    return np.sort(np.random.default_rng(0).choice(n, RADIUS_SAMPLE, replace=False))


def refit_at_radius(result: AnalysisResult, rows: NDArray[np.intp], radius: float,
                    state: TaskState) -> RadiusPoint:
    """SMDS at a fixed radius (eq. smds2) on the samples ``rows``, started at the fitted
    configuration (a background task; cancelling stops it within an iteration)."""
    state.check()
    model = result.model
    smds = SphericalMDS(radius=float(radius), init=model.embedding_[rows],
                        max_iter=RADIUS_MAX_ITER, tol=model.smds_.tol)
    trace: list[tuple[int, float]] = []

    def on_iteration(iteration: int, stress: float) -> bool:
        trace.append((iteration, stress))
        return state.cancelled

    smds.fit(result.dataset.angles[rows], callback=on_iteration)
    state.check()
    all_rows = len(rows) == result.dataset.n_samples
    snapshot = SMDSSnapshot(
        iteration=int(smds.n_iter_), stress=float(smds.stress_), units=smds.embedding_,
        radius=float(radius), landmarks=None if all_rows else np.asarray(rows, np.intp),
        stress_history=np.array(trace, dtype=np.float64).reshape(-1, 2), first=True)
    return RadiusPoint(float(radius), float(smds.stress_), snapshot)


def prepare_tour(result: AnalysisResult, state: TaskState) -> TourData:
    """Everything the tour needs beyond the fit (a background task of a few seconds).

    SMDS is run again with the fitted model's settings and seed, which gives the same
    configuration, and its iterations are recorded; r* of eq. (wasser) is looked up; SMDS
    is refitted at the radii of :func:`radius_grid` for the stress-versus-r curve.
    """
    model = result.model
    state.progress(0.0, "Recording the spherical MDS iterations…", stage="tour-smds")
    recorder = SnapshotRecorder()
    replay = SphericalMDS(**model.smds_.get_params())
    replay.fit(model.smds_.angles_, callback=lambda *_: state.cancelled, snapshot=recorder)
    state.check()
    trace = np.array(recorder.trace, dtype=np.float64).reshape(-1, 2)
    landmarks = model.landmark_indices_
    frames = [SMDSSnapshot(iteration=it, stress=stress, units=units, radius=radius,
                           landmarks=landmarks, stress_history=trace[trace[:, 0] <= it],
                           first=k == 0)
              for k, (it, stress, units, radius) in enumerate(recorder.frames())]
    d = result.dataset.n_angles
    r_star = default_initial_radius(d, state.check)
    rows = _radius_rows(result.dataset.n_samples)
    radii = radius_grid(result.radius, r_star)
    points = []
    for k, radius in enumerate(radii):
        state.progress(k / len(radii), f"Spherical MDS at r = {radius:.2f} "
                       f"({k + 1} of {len(radii)})…", stage="tour-radius")
        points.append(refit_at_radius(result, rows, radius, state))
    return TourData(result, frames, trace, r_star, points, rows,
                    seam_split(result.dataset.angles))


# --------------------------------------------------------------------------- the steps
@dataclass(frozen=True)
class TourStep:
    """One step of the tour.

    Attributes
    ----------
    slug : str
        Short name for file names (``step-03-smds.png``).
    title : str
    text : str
        The explanation for students (plain text, 3–6 sentences, with the fit's numbers).
    equations : tuple of str
        Labels of :data:`PAPER_EQUATIONS`; the first is the step's main equation.
    views : tuple of str
        The window's views the step is about (emphasised): keys of ``MainWindow.views``.
    sphere : str
        What the sphere view shows: ``"fit"`` (the result), ``"smds"`` (the recorded SMDS
        iterations) or ``"radius"`` (the configuration at the chosen radius).
    color_mode : str
        Colour mode of the views during the step (a key of ``COLOR_MODES``); ``"selection"``
        shows the samples on either side of the seam as selection groups 1 and 2.
    figure : str
        Which figure of :mod:`stpca_gui.plotting.tour_figures` the panel shows.
    """

    slug: str
    title: str
    text: str
    equations: tuple[str, ...]
    views: tuple[str, ...]
    sphere: str = "fit"
    color_mode: str = "label"
    figure: str = ""

    @property
    def equation(self) -> PaperEquation:
        """The step's main equation."""
        return PAPER_EQUATIONS[self.equations[0]]


def _percent(value: float) -> str:
    return "n/a" if not np.isfinite(value) else f"{100 * value:.1f} %"


def tour_steps(data: TourData) -> list[TourStep]:
    """The tour's steps for a fitted data set, with its numbers in the texts."""
    result = data.result
    dataset = result.dataset
    model = result.model
    n, d = dataset.n_samples, dataset.n_angles
    seam = data.seam
    name = dataset.column_names[seam.angle]
    groups_mode = "label" if dataset.has_labels else "pns1"
    pca_ratio = euclidean_pca_scores(dataset.angles)[1]
    naive, torus, _, _ = naive_and_torus_distances(dataset.angles)
    shorter = float(np.mean(naive - torus > 0.5))
    first, last = data.trace[0], data.trace[-1]
    if model.smds_.radius == "auto":
        radius_text = (f"The fit estimates r together with the points (eq. 6): "
                       f"here the fitted radius is {result.radius:.2f}.")
    else:
        radius_text = (f"This fit used a fixed r = {result.radius:.2f} (Parameters panel); "
                       "with \"estimate\" r is fitted together with the points (eq. 6).")
    optimizer = ("L-BFGS" if model.smds_.optimizer == "lbfgs"
                 else "BFGS, as the paper did with R's optim")
    start_note = (" The start (a classical MDS) is already close, so the points move only "
                  "a little." if first[1] < 1.5 * last[1] else "")
    torus_name, sphere_r = f"T{superscript(d)}", f"{sphere_name(d)} of radius r"
    landmarks = (f" (a landmark fit: the {len(model.smds_.angles_):,} landmarks are shown)"
                 if result.landmark_note else "")
    sub = (f" The refits use {len(data.radius_rows)} of the {n:,} samples, to stay quick."
           if data.radius_subsampled else "")
    types = model.pns_.sphere_types_
    small = sum(t == "small" for t in types)
    if len(types) == 1:
        pns_types = f"Here the fitted circle S¹ is a {types[0]} circle. "
    elif types:
        pns_types = f"Here {small} of the {len(types)} fitted subspheres are small spheres. "
    else:
        pns_types = ""
    torus1 = result.torus_ratio[0]
    seam_text = (
        f"The highlighted points are neighbours on the torus: they sit on either side of "
        f"the seam of {name} at ±π ({int(seam.plus.sum())} near +π, "
        f"{int(seam.minus.sum())} near −π). Ordinary (Euclidean) PCA treats the angles as "
        "flat coordinates and tears such neighbours apart: in its scores (left) the two "
        "groups lie far apart, while ST-PCA's scores (right) keep them together. "
    ) if seam.crosses else (
        "None of the data straddle the ±π seam here, but a method for angles must not "
        "depend on where the seam is drawn, and ordinary (Euclidean) PCA of the raw "
        "coordinates does (left: PCA, right: ST-PCA). ")
    levels = [sphere_name(k) for k in range(d - 1, 0, -1)]
    if len(levels) > 3:
        levels = [*levels[:2], "…", levels[-1]]
    chain = " ⊃ ".join([sphere_name(d), *levels, "{μ}"])
    steps = [
        TourStep(
            "torus", "Angles live on a torus",
            f"Each of the {n:,} samples is a vector of {d} angles, a point of the torus "
            f"{torus_name} = [−π, π){superscript(d)} where −π and π are the same angle. "
            + seam_text
            + "PCA is classical MDS with Euclidean distances (eq. 2), and those are the "
            "wrong distances on a torus.",
            ("eq:mds",), ("torus", "scores"), color_mode="selection", figure="pca"),
        TourStep(
            "distances", "Distances on the torus",
            "On the torus the distance between two angles is the shorter way round the "
            "circle, min(|φ − ψ|, 2π − |φ − ψ|), combined over the angles like Pythagoras "
            "(§2.1). The plot compares it with the naive distance of the raw coordinates: "
            f"for {100 * shorter:.0f} % of the pairs the naive distance is more than 0.5 rad "
            "too long, because it goes the long way round. Every distance on "
            f"{torus_name} is at most √{d}·π = {math.sqrt(d) * math.pi:.2f}. ST-PCA keeps "
            "only these pairwise distances and looks for points on a sphere with the same "
            "distances.",
            ("eq:sdist",), ("torus",), color_mode="selection", figure="distances"),
        TourStep(
            "smds", "Spherical MDS: matching the distances",
            f"Spherical MDS places one point on the sphere {sphere_r} per sample so that the "
            "great-circle distances match the torus distances as well as possible: it "
            "minimises the stress of eq. (4). The app writes each point as y = r z/‖z‖ "
            f"(eq. 5) and improves all z at once with {optimizer}. The sphere view replays "
            f"the {len(data.trace)} iterations{landmarks}: the stress falls from "
            f"{first[1]:.4f} to {last[1]:.4f}.{start_note} A stress of {last[1]:.4f} means a "
            f"typical distance is off by about {math.sqrt(last[1]):.2f} rad."
            + (f" (The view shows {sphere_name(d)} along three principal axes.)"
               if d > 2 else ""),
            ("eq:smds", "eq:smds2"), ("sphere",), sphere="smds", color_mode=groups_mode,
            figure="smds"),
        TourStep(
            "radius", "The radius r",
            f"On the {sphere_r} no distance exceeds πr, and the curvature is 1/r². Too "
            "small a sphere cannot hold the long torus distances, so the stress rises "
            "steeply; a very large sphere is almost flat, and the stress creeps up again. "
            + radius_text
            + " The Wasserstein "
            f"radius r* = {data.r_star:.2f} of eq. (7), which matches the distances of "
            "uniform samples, is the paper's starting value for the fit. Move the slider: "
            "spherical MDS is refitted at that radius and the sphere view shows the new "
            "configuration."
            + sub,
            ("eq:smds3", "eq:wasser"), ("sphere",), sphere="radius", color_mode=groups_mode,
            figure="radius"),
        TourStep(
            "pns", "Nested subspheres (PNS)",
            f"Principal nested spheres fit a sequence of ever smaller spheres to the points: "
            f"{chain} (eq. 8). Each subsphere may be a small "
            "circle, not only a great one, which lets one circle pass through several "
            "clusters. " + pns_types
            + "A sample's scores are its signed distances from each subsphere and, last, its "
            "position along the principal circle S¹ (PNS1), measured from the backwards "
            "mean μ (vermillion ball). The plot shows how the spread shrinks from level to level.",
            ("eq:PNS",), ("sphere", "scores"), color_mode=groups_mode, figure="pns"),
        TourStep(
            "curve", "Back to the torus: the principal curve",
            "The principal circle S¹ lives on the sphere; to see it on the torus each of its "
            f"{len(result.curve.angles)} grid points ψ is mapped back by prediction (eq. 9): "
            "the torus point whose distances to the samples best match the sphere distances "
            "of ψ. Joined up, these points form the principal curve (black in the torus "
            "view), which may wrap around the torus. The plot shows each angle of the curve "
            "against PNS1, over the samples, coloured by PNS1 as in the window.",
            ("eq:invmds2", "eq:interp"), ("torus",), color_mode="pns1", figure="curve"),
        TourStep(
            "variance", "Scores and explained variance",
            "PNS splits the total variance of the points on the sphere into one part per "
            f"nested sphere (eq. 11). Here PNS1 explains {_percent(result.sphere_ratio[0])} "
            "on the sphere. Mapping each projection back to the torus gives the same "
            f"decomposition there (§3.5): {_percent(torus1)} of the torus variance lies "
            "along the principal curve. Compare Euclidean PCA of the raw angles: its first "
            f"component explains {_percent(pca_ratio[0])}. The scores are the new "
            "coordinates for plots, clustering or tests.",
            ("eq:totalvar",), ("scores", "variance", "histogram"), color_mode=groups_mode,
            figure="variance"),
    ]
    return steps
