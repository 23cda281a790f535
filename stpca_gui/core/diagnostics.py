"""Diagnostics of a spherical MDS fit: how faithfully the sphere shows the torus.

ST-PCA reads its scores off the sphere configuration of spherical MDS (paper, section 3,
step 1), which minimises the stress of eq. (smds3),

    S(y, r) = 2 / (m (m − 1)) Σ_{i<k} (δ_T(x_i, x_k) − r θ(y_i, y_k))²,

over the m points the fit was solved on (all n samples, or the landmarks of a landmark
fit). Four diagnostics say how much of the torus geometry survived:

:func:`shepard_sample`
    torus distance δ against sphere distance r θ on a reproducible sample of pairs of
    samples (a Shepard diagram): points on the diagonal are pairs kept without distortion.
:func:`point_stress`
    each point's share of the stress, s_i = Σ_k (δ_ik − r θ_ik)² / (m (m − 1)) over the
    fit's points k, so that the shares of the fit's points sum to S exactly; points a
    landmark fit placed by T̂ get the same formula against the landmarks.
:func:`stress_profile`
    S as a function of r with the configuration held fixed: a parabola whose minimum is
    r̂ when r was profiled out (the "lbfgs" optimiser).
:func:`flat_patch`
    whether the configuration sits in a small cap of the sphere, where the sphere is
    flat and ST-PCA reduces to Euclidean PCA of the patch (docs/diagnostics.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ._base.progress import CancelCheck
from .geometry.torus import torus_distance, wrap_angles
from .smds._diagnostics_kernel import point_pair_sums
from .smds.pair_stress import pair_stress_is_exact, random_distinct_pairs

if TYPE_CHECKING:
    from .stpca import ScaledTorusPCA

__all__ = [
    "FLAT_PATCH_CAP_ANGLE",
    "SHEPARD_PAIRS",
    "FitDiagnostics",
    "FlatPatch",
    "PointStress",
    "ShepardSample",
    "StressProfile",
    "fit_diagnostics",
    "flat_patch",
    "model_flat_patch",
    "point_stress",
    "shepard_sample",
    "stress_profile",
]

#: Pairs of samples in a Shepard sample: enough to see the spread at every distance, few
#: enough to draw at once (a fit of 10⁶ samples costs the same as one of 10³).
SHEPARD_PAIRS = 20_000
#: Largest angle (radians) between the configuration's points and their mean direction
#: at or below which the data are called a flat patch. In a cap of angular radius φ the
#: geodesic distances on the sphere differ from the Euclidean distances of the points'
#: tangent-plane (log-map) images by at most about φ²/6 relative, 1 % at 0.25. In the
#: simulations of docs/diagnostics.md every fit with a cap ≤ 0.21 had PNS1 (great
#: spheres) equal to PC1 of the centred angles to |correlation| ≥ 0.9998, the next cap
#: was 0.6, and the demos and uniform data have caps above 1.5.
FLAT_PATCH_CAP_ANGLE = 0.25
#: Query × reference pairs per block of :func:`point_stress` (a progress report and a
#: chance to cancel after each block; about 30 ms of work).
_POINT_BLOCK_PAIRS = 1 << 21
#: Points of a stress profile's grid of radii.
PROFILE_POINTS = 200

ProgressReport = Callable[[float, str], None]


# --------------------------------------------------------------------- Shepard diagram
@dataclass(frozen=True)
class ShepardSample:
    """Torus and sphere distances of a sample of pairs of samples.

    Attributes
    ----------
    first, second : ndarray of intp, shape (k,)
        The pairs' rows (``first != second``).
    torus_distance : ndarray, shape (k,)
        δ_T between the pairs' torus points.
    sphere_distance : ndarray, shape (k,)
        r θ between their points on the sphere of radius r.
    exact : bool
        Whether the sample holds every pair (then k = n (n − 1) / 2).
    """

    first: NDArray[np.intp]
    second: NDArray[np.intp]
    torus_distance: NDArray[np.float64]
    sphere_distance: NDArray[np.float64]
    exact: bool

    @property
    def mean_squared_residual(self) -> float:
        """Mean of (δ − r θ)² over the pairs: the all-pairs stress (estimated unless exact)."""
        return float(np.mean((self.torus_distance - self.sphere_distance) ** 2))


def shepard_sample(angles: NDArray[np.float64], units: NDArray[np.float64], radius: float,
                   n_pairs: int = SHEPARD_PAIRS, random_state: int = 0) -> ShepardSample:
    """Distances of up to ``n_pairs`` pairs of samples on the torus and on the sphere.

    Every pair when there are at most ``n_pairs``; otherwise ``n_pairs`` pairs of distinct
    samples drawn uniformly (with replacement) by ``numpy.random.default_rng(random_state)``,
    so the sample is a function of its arguments.

    Parameters
    ----------
    angles, units, radius
        The torus sample (n, d), its unit vectors on the sphere (n, d + 1) and the sphere
        radius r, as in :func:`~stpca_gui.core.smds.pair_stress.sampled_pair_stress`.
    n_pairs : int
    random_state : int
    """
    n = angles.shape[0]
    if n < 2:
        raise ValueError("a Shepard sample needs at least 2 samples")
    exact = pair_stress_is_exact(n, n_pairs)
    if exact:
        first, second = (k.astype(np.intp) for k in np.triu_indices(n, k=1))
    else:
        first, second = random_distinct_pairs(n, n_pairs, np.random.default_rng(random_state))
    torus = torus_distance(angles[first], angles[second])
    sphere = float(radius) * _unit_sphere_angle(units[first], units[second])
    return ShepardSample(first, second, torus, sphere, exact)


def _unit_sphere_angle(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """Angle between rows of unit vectors, 2 atan2(|a − b|, |a + b|) (accurate at 0 and π)."""
    return 2.0 * np.arctan2(np.linalg.norm(a - b, axis=1), np.linalg.norm(a + b, axis=1))


# ------------------------------------------------------------------- stress per point
@dataclass(frozen=True)
class PointStress:
    """Each sample's pair sums against the fit's points, from which its stress follows.

    Attributes
    ----------
    sums : ndarray, shape (n, 3)
        Per sample i, over the fit's points k: Σ δ_ik², Σ δ_ik θ_ik and Σ θ_ik². NaN for
        the rows known only through ``placed`` (a landmark fit's placed samples).
    radius : float
        The fitted radius r̂.
    reference : ndarray of intp, shape (m,), or None
        The rows of the fit's points (the landmarks), or None when all n samples are.
    placed : ndarray, shape (n,), or None
        Mean of (δ_ik − r̂ θ_ik)² over the landmarks k for the samples without ``sums``:
        the objective of T̂ (eq. interp) that placing them attained, which a landmark fit
        keeps (``interpolation_stress_``); None when every row has its sums.
    """

    sums: NDArray[np.float64]
    radius: float
    reference: NDArray[np.intp] | None
    placed: NDArray[np.float64] | None = None

    @property
    def n_reference(self) -> int:
        """m, the number of points the fit was solved on."""
        return self.sums.shape[0] if self.reference is None else self.reference.size

    def values(self, radius: float | None = None) -> NDArray[np.float64]:
        """Each sample's share of the stress at ``radius`` (default r̂).

        s_i = Σ_k (δ_ik − r θ_ik)² / (m (m − 1)). The shares of the fit's points sum to
        the stress of eq. (smds3); a sample a landmark fit placed by T̂ has the share it
        would have as one more landmark.

        Raises
        ------
        ValueError
            For a radius other than r̂ when some rows are known only at r̂ (``placed``).
        """
        r = self.radius if radius is None else float(radius)
        m = self.n_reference
        a, b, c = self.sums.T
        shares = np.maximum(a - 2.0 * r * b + r * r * c, 0.0) / (m * (m - 1))
        if self.placed is not None:
            missing = np.isnan(a)
            if missing.any():
                if r != self.radius:
                    raise ValueError("the placed samples' stress is known at r̂ only; "
                                     "compute their sums (placed_stress=None) for others")
                shares[missing] = self.placed[missing] / (m - 1)
        return shares

    def rms_residual(self, radius: float | None = None) -> NDArray[np.float64]:
        """Root mean squared distance error (radians) of each sample against the fit's
        points: √(Σ_k (δ_ik − r θ_ik)² / (number of k ≠ i)); the colour of "stress per
        point"."""
        m = self.n_reference
        partners = np.full(self.sums.shape[0], float(m))
        partners[slice(None) if self.reference is None else self.reference] = m - 1
        return np.sqrt(self.values(radius) * m * (m - 1) / partners)

    def reference_sums(self) -> tuple[float, float, float]:
        """Σ δ², Σ δθ and Σ θ² over the unordered pairs of the fit's points."""
        rows = self.sums if self.reference is None else self.sums[self.reference]
        a, b, c = rows.sum(axis=0) / 2.0  # each unordered pair was counted from both ends
        return float(a), float(b), float(c)


def point_stress(
    angles: NDArray[np.float64], units: NDArray[np.float64], radius: float,
    reference: NDArray[np.intp] | None = None, *,
    placed_stress: NDArray[np.float64] | None = None, check: CancelCheck | None = None,
    progress: ProgressReport | None = None,
) -> PointStress:
    """Pair sums of every sample against the fit's points (O(n m) time, O(n) memory).

    Parameters
    ----------
    angles : ndarray, shape (n, d)
        Torus sample (radians).
    units : ndarray, shape (n, d + 1)
        Unit vectors of the fitted configuration (all samples).
    radius : float
        Fitted radius r̂.
    reference : ndarray of intp, optional
        Rows of the landmarks of a landmark fit (default: every sample, an exact fit).
    placed_stress : ndarray, shape (n,), optional
        A landmark fit's ``interpolation_stress_``: the placed samples then take their
        stress at r̂ from it and only the m × m landmark pairs are summed (O(m²) instead
        of O(n m): a fit of 10⁶ samples on 1000 landmarks costs milliseconds instead of
        about 17 s). Ignored without ``reference``.
    check : callable, optional
        Called between blocks of samples; raises
        :class:`~stpca_gui.core._base.progress.FitCancelled` to stop.
    progress : callable, optional
        ``progress(fraction, message)`` after each block.
    """
    angles = np.ascontiguousarray(wrap_angles(angles))
    units = np.ascontiguousarray(units, dtype=np.float64)
    n = angles.shape[0]
    ref_rows = None if reference is None else np.asarray(reference, dtype=np.intp)
    ref = slice(None) if ref_rows is None else ref_rows
    ref_angles, ref_units = angles[ref], units[ref]
    placed = None
    rows = np.arange(n)
    if ref_rows is not None and placed_stress is not None:
        placed = np.asarray(placed_stress, dtype=np.float64)
        if placed.shape != (n,):
            raise ValueError(f"placed_stress must have shape ({n},), got {placed.shape}")
        rows = ref_rows
    step = max(1, _POINT_BLOCK_PAIRS // max(ref_angles.shape[0], 1))
    sums = np.full((n, 3), np.nan)
    for begin in range(0, rows.size, step):
        if check is not None:
            check()
        block = rows[begin:begin + step]
        sums[block] = point_pair_sums(angles[block], units[block], ref_angles, ref_units)
        done = begin + block.size
        if progress is not None:
            progress(done / rows.size, f"stress per point: {done:,} of {rows.size:,}")
    return PointStress(sums, float(radius), ref_rows, placed)


# ------------------------------------------------------------------- stress profile
@dataclass(frozen=True)
class StressProfile:
    """The stress of the fitted configuration as a function of the radius alone.

    Attributes
    ----------
    radii, stress : ndarray, shape (k,)
        The curve S(r) on a log-spaced grid (r̂ and r* included).
    sum_dd, sum_dt, sum_tt : float
        Σ δ², Σ δθ, Σ θ² over the unordered pairs of the fit's points.
    pair_scale : float
        2 / (m (m − 1)), eq. (smds3)'s normalisation.
    fitted_radius : float
        r̂ of the fit.
    initial_radius : float
        r* (eq. wasser), where the estimate of r started.
    """

    radii: NDArray[np.float64]
    stress: NDArray[np.float64]
    sum_dd: float
    sum_dt: float
    sum_tt: float
    pair_scale: float
    fitted_radius: float
    initial_radius: float

    def stress_at(self, radius: float) -> float:
        """S(r) for the fitted configuration."""
        r = float(radius)
        return self.pair_scale * max(self.sum_dd - 2 * r * self.sum_dt + r * r * self.sum_tt,
                                     0.0)

    @property
    def best_radius(self) -> float:
        """The radius minimising S for the fitted configuration, Σ δθ / Σ θ²."""
        return self.sum_dt / self.sum_tt if self.sum_tt > 0 else math.inf


def stress_profile(sums: PointStress, initial_radius: float,
                   n_points: int = PROFILE_POINTS) -> StressProfile:
    """S(r) of eq. (smds3) with the unit vectors held at the fitted configuration.

    Only r varies: the unit vectors y (the configuration's shape) stay those of the fit, so
    the curve is the parabola S(r) = (2 / (m (m − 1))) (Σ δ² − 2 r Σ δθ + r² Σ θ²), whose
    minimum Σ δθ / Σ θ² is r̂ when the fit profiled r out (the "lbfgs" optimiser with
    ``radius="auto"``). It is an upper bound on the stress a fit at fixed r would reach
    (which could also move the points): a flat curve says the data hardly constrain r, a
    minimum far above r* says the data sit on a patch too small to feel the curvature.

    Parameters
    ----------
    sums : PointStress
        From :func:`point_stress` (its fit's points give the pair sums).
    initial_radius : float
        r*.
    n_points : int
        Grid points between half of min(r̂, r*) and twice max(r̂, r*).
    """
    a, b, c = sums.reference_sums()
    m = sums.n_reference
    fitted = sums.radius
    low = 0.5 * min(fitted, initial_radius)
    high = 2.0 * max(fitted, initial_radius)
    radii = np.unique(np.concatenate([np.geomspace(low, high, n_points),
                                      [fitted, initial_radius]]))
    scale = 2.0 / (m * (m - 1))
    stress = scale * np.maximum(a - 2.0 * radii * b + radii ** 2 * c, 0.0)
    return StressProfile(radii, stress, a, b, c, scale, fitted, float(initial_radius))


# ------------------------------------------------------------------------ flat patch
@dataclass(frozen=True)
class FlatPatch:
    """Whether the data occupy a nearly flat patch of the torus.

    Attributes
    ----------
    cap_angle : float
        Largest angle (radians) between a point of the configuration and the
        configuration's mean direction: the angular radius of the cap holding the data.
    radius_ratio : float
        r̂ / r*. Large on a flat patch, but not always: when the start configuration is
        already isometric the optimiser stops at once and r̂ = r* (docs/diagnostics.md),
        so the cap, not the ratio, decides.
    small_spheres : int
        Small subspheres among PNS's nested spheres; with none, ST-PCA of a flat patch is
        Euclidean PCA; small ones bend the components where PCA cannot.
    threshold : float
        :data:`FLAT_PATCH_CAP_ANGLE`.
    """

    cap_angle: float
    radius_ratio: float
    small_spheres: int = 0
    threshold: float = FLAT_PATCH_CAP_ANGLE

    @property
    def flat(self) -> bool:
        """Whether the cap is at most ``threshold`` radians wide."""
        return self.cap_angle <= self.threshold

    def statement(self) -> str:
        """What the diagnosis means, in one sentence for people."""
        cap = f"{math.degrees(self.cap_angle):.1f}°"
        if self.flat:
            bend = ("" if self.small_spheres == 0 else
                    f" (but for the bend of its {self.small_spheres} small subsphere(s))")
            return (f"yes: the data lie within {cap} of their centre on the sphere "
                    f"(r̂ = {self.radius_ratio:.3g} r*), where the sphere is flat; ST-PCA "
                    f"then reduces to Euclidean PCA of that patch of the torus{bend}")
        return (f"no: the data spread over {cap} of the sphere (r̂ = "
                f"{self.radius_ratio:.3g} r*)")

    def as_json(self) -> dict[str, float | bool | None]:
        """The diagnosis as a JSON-ready mapping (None for a number that is not finite,
        e.g. the ratio of a fit whose radius is NaN)."""
        def number(value: float) -> float | None:
            return float(value) if math.isfinite(value) else None

        return {"flat": self.flat, "cap_angle": number(self.cap_angle),
                "radius_ratio": number(self.radius_ratio), "small_spheres": self.small_spheres,
                "threshold": self.threshold}


def flat_patch(units: NDArray[np.float64], radius: float, initial_radius: float,
               small_spheres: int = 0) -> FlatPatch:
    """Diagnose a flat patch from the configuration's unit vectors (O(n)).

    Parameters
    ----------
    units : ndarray, shape (n, d + 1)
        Unit vectors of the configuration.
    radius, initial_radius : float
        r̂ and r*.
    small_spheres : int
        Small subspheres PNS chose (see :class:`FlatPatch`).
    """
    units = np.asarray(units, dtype=np.float64)
    mean = units.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    if norm <= 1e-12:
        cap = math.pi  # spread all around: no mean direction
    else:
        cosines = np.clip(units @ (mean / norm), -1.0, 1.0)
        cap = float(np.arccos(cosines.min()))
    ratio = float(radius) / float(initial_radius) if initial_radius > 0 else math.inf
    return FlatPatch(cap, ratio, int(small_spheres))


def model_flat_patch(model: ScaledTorusPCA) -> FlatPatch:
    """:func:`flat_patch` of a fitted model's configuration."""
    units = getattr(model, "embedding_", None)
    if units is None:
        units = model.match_.embedding
    small = sum(kind == "small" for kind in model.pns_.sphere_types_)
    return flat_patch(units, model.radius_, model.smds_.initial_radius_, small)


# --------------------------------------------------------------------------- together
@dataclass(frozen=True)
class FitDiagnostics:
    """Every diagnostic of one fitted model (see the module docstring)."""

    shepard: ShepardSample
    point_stress: PointStress
    profile: StressProfile
    flat_patch: FlatPatch


def fit_diagnostics(model: ScaledTorusPCA, *, n_pairs: int = SHEPARD_PAIRS,
                    random_state: int = 0, check: CancelCheck | None = None,
                    progress: ProgressReport | None = None) -> FitDiagnostics:
    """All diagnostics of a fitted :class:`~stpca_gui.core.stpca.ScaledTorusPCA`.

    The costly part is the stress per point: O(n²) pair evaluations for an exact fit,
    O(m²) for a landmark fit that kept its placement objective (``interpolation_stress_``;
    O(n m) otherwise). ``check`` and ``progress`` are passed to :func:`point_stress`.
    """
    angles, units = model.angles_, model.embedding_
    landmarks = getattr(model, "landmark_indices_", None)
    placed = getattr(model, "interpolation_stress_", None)
    sums = point_stress(angles, units, model.radius_, landmarks,
                        placed_stress=None if landmarks is None else placed, check=check,
                        progress=progress)
    return FitDiagnostics(
        shepard=shepard_sample(angles, units, model.radius_, n_pairs, random_state),
        point_stress=sums,
        profile=stress_profile(sums, model.smds_.initial_radius_),
        flat_patch=model_flat_patch(model),
    )
