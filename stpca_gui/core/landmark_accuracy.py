"""How close a landmark fit comes to the exact fit of the same data.

Three measures, those of the project's accuracy target (issue 11) for landmark fits:

* the agreement of the PNS1 scores, which are angles on the principal circle and are
  defined only up to a rotation and a reflection of the circle: the mean resultant length
  of their differences (or sums, for a reflection), 1 for scores that agree up to a
  rotation;
* the difference of the sphere explained variance of PC1, in percentage points;
* the ratio of the stresses over all pairs of samples (each fit's configuration of all n
  points against the torus distances).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from .smds.pair_stress import all_pairs_stress

if TYPE_CHECKING:
    from .stpca import ScaledTorusPCA

__all__ = ["LandmarkAccuracy", "circle_score_agreement", "compare_to_exact"]


@dataclass(frozen=True)
class LandmarkAccuracy:
    """A landmark fit measured against the exact fit.

    Attributes
    ----------
    n_landmarks : int
    method : str
        The landmark rule (``landmark_method``).
    score_agreement : float
        Mean resultant length of the PNS1 angle differences, up to reflection (≤ 1).
    pc1_difference : float
        |PC1 % variance (landmarks) − PC1 % variance (exact)|, in percentage points.
    stress_ratio : float
        All-pairs stress of the landmark fit over that of the exact fit.
    seconds : float
        Wall time of the landmark fit.
    """

    n_landmarks: int
    method: str
    score_agreement: float
    pc1_difference: float
    stress_ratio: float
    seconds: float


def circle_score_agreement(
    scores_a: NDArray[np.float64], radius_a: float,
    scores_b: NDArray[np.float64], radius_b: float,
) -> float:
    """Mean resultant length of the differences of two sets of principal-circle scores
    (arc lengths on circles of the given radii), taking the better of the two
    orientations."""
    phi_a = np.asarray(scores_a) / radius_a
    phi_b = np.asarray(scores_b) / radius_b
    same = abs(np.mean(np.exp(1j * (phi_a - phi_b))))
    reflected = abs(np.mean(np.exp(1j * (phi_a + phi_b))))
    return float(max(same, reflected))


def compare_to_exact(
    exact: ScaledTorusPCA, landmark: ScaledTorusPCA, seconds: float = float("nan")
) -> LandmarkAccuracy:
    """Measure ``landmark`` (fitted with landmarks) against ``exact`` on the same data.

    The landmark fit's stress is taken over all pairs, exactly (O(n²) time, O(n) memory).
    """
    stress = all_pairs_stress(landmark.angles_, landmark.embedding_, landmark.radius_)
    return LandmarkAccuracy(
        n_landmarks=int(landmark.n_landmarks_),
        method=str(landmark.landmark_method),
        score_agreement=circle_score_agreement(
            exact.scores_[:, 0], exact.pns_.circle_radius_,
            landmark.scores_[:, 0], landmark.pns_.circle_radius_),
        pc1_difference=100.0 * abs(float(landmark.explained_variance_ratio_[0])
                                   - float(exact.explained_variance_ratio_[0])),
        stress_ratio=stress / exact.all_pairs_stress_,
        seconds=float(seconds),
    )
