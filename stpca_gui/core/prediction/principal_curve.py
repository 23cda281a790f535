"""The principal curve: the principal circle mapped back to the torus by T̃ (eq. invmds2).

:func:`trace_principal_curve` predicts a grid of the circle (or, at high d, of the data's arc
of it: :func:`curve_grid`) as warm-started chains; :class:`PrincipalCurve` holds the result
with the segments that jump (:func:`closed_curve_breaks`) and the points on the data's arc
(:func:`data_range_mask`). :class:`~stpca_gui.core.stpca.ScaledTorusPCA` calls it after PNS.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import zip_longest
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from .._base.parallel import map_parallel
from .._base.progress import ProgressEvent
from .._base.registry import model_file_class
from ..geometry.torus import torus_distance
from .prediction import SMDSMatch

if TYPE_CHECKING:
    from ..pns.pns import PrincipalNestedSpheres

__all__ = ["CURVE_ARC_MARGIN", "CURVE_BREAK_FACTOR", "CURVE_DATA_ARC_MIN_D",
           "CURVE_FULL_COVERAGE", "PrincipalCurve", "circular_ranges", "closed_curve_breaks",
           "curve_grid", "data_range_mask", "trace_principal_curve"]

#: A curve segment is a break when its torus length exceeds this multiple of the typical
#: (median) segment length and of the length expected from the sphere arc.
CURVE_BREAK_FACTOR = 4.0
#: From this d on, the principal curve is traced over the data's arc of the principal circle
#: when they leave much of it empty (:func:`curve_grid`); below, over the whole circle.
CURVE_DATA_ARC_MIN_D = 8
#: Share of the circle the data's arc (with its margins) must reach to trace it whole.
CURVE_FULL_COVERAGE = 0.9
#: Margin on each side of the data's arc, as a share of the circle.
CURVE_ARC_MARGIN = 0.05
#: Curve points × samples solved between two progress reports of the principal curve.
_CURVE_CHUNK_WORK = 40_000


@model_file_class()
@dataclass(frozen=True)
class PrincipalCurve:
    """A sampled closed curve on the torus.

    Attributes
    ----------
    angles : ndarray, shape (m, d)
        Points in [-π, π), in order; the curve closes from the last point to the first
        unless ``breaks[-1]`` (an arc of the circle, see ``curve_grid``).
    breaks : ndarray of bool, shape (m,)
        ``breaks[j]`` marks the segment from point j to point j + 1 (mod m) as a
        discontinuity of the prediction: it must not be drawn.
    parameter : ndarray, shape (m,)
        PNS1 score of each point (position along the principal circle, in its range
        [−π ρ, π ρ), ρ the circle's radius).
    stress : ndarray, shape (m,)
        Eq. (invmds2) objective attained at each point.
    in_data_range : ndarray of bool, shape (m,), or None
        Whether each point lies on the arc of the principal circle that the data's PNS1
        scores cover (the circle minus the largest gap between them). Elsewhere the curve
        is T̃ of sphere points far from every sample, an extrapolation: on the 3-state
        peptide-like data at d = 20 the data cover 28 % of the circle, the curve's stress
        is 7 times higher off it, and off it every torsion turns most of a full turn while
        on it only the torsions that change between the states move
        (docs/high_d_prediction.md).
        None in model files written before it existed.
    """

    angles: NDArray[np.float64]
    breaks: NDArray[np.bool_]
    parameter: NDArray[np.float64]
    stress: NDArray[np.float64]
    in_data_range: NDArray[np.bool_] | None = None

    def angle_ranges(self) -> NDArray[np.float64]:
        """Per angle, the length (radians) of the shortest arc holding every point of the
        curve within the data's range (all points when that is unknown): how far the
        principal curve moves each angle, the cheap view of which angles drive PNS1
        (``ScaledTorusPCA.angle_contributions_`` measures every computed component on
        the samples themselves)."""
        points = self.angles if self.in_data_range is None or not np.any(
            self.in_data_range) else self.angles[self.in_data_range]
        return circular_ranges(points)


def circular_ranges(angles: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per column, 2π minus the largest gap between the sorted angles: the length of the
    shortest arc that holds them all."""
    values = np.sort(np.mod(np.asarray(angles, dtype=np.float64), 2.0 * np.pi), axis=0)
    if values.shape[0] == 0:
        return np.zeros(values.shape[1])
    gaps = np.diff(values, axis=0, append=values[:1] + 2.0 * np.pi)
    return 2.0 * np.pi - gaps.max(axis=0)


def _widest_gap(scores: NDArray[np.float64], circumference: float
                ) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """The sorted ``scores`` (PNS1 values on a circle of ``circumference``), the gap after
    each one (the last one's round the circle to the first) and the index of the widest."""
    values = np.sort(scores)
    gaps = np.diff(values, append=values[0] + circumference)
    return values, gaps, int(np.argmax(gaps))


def data_range_mask(parameter: NDArray[np.float64], scores: NDArray[np.float64],
                    circumference: float) -> NDArray[np.bool_]:
    """Which curve parameters (PNS1 values on a circle of ``circumference``) lie on the
    arc the ``scores`` cover: the circle minus the largest gap between consecutive sorted
    scores (all of it when there are fewer than two scores)."""
    if scores.size < 2 or not circumference > 0:
        return np.ones(parameter.shape, dtype=bool)
    values, gaps, widest = _widest_gap(scores, circumference)
    # Distance along the circle from the start of the widest gap to each parameter.
    offset = np.mod(parameter - values[widest], circumference)
    return ~((offset > 0.0) & (offset < gaps[widest]))


def data_arc_offsets(parameter: NDArray[np.float64], scores: NDArray[np.float64],
                     circumference: float) -> tuple[NDArray[np.float64], float]:
    """Where PNS1 values lie along the data's arc of the circle: the distance from the
    arc's start (the first score after the widest gap between the ``scores``), and the
    arc's length (the circle minus that gap). ``parameter`` values with offsets in
    [0, length] lie on the arc, in order along it (:func:`data_range_mask`'s arc)."""
    if scores.size < 2 or not circumference > 0:
        values = np.sort(scores)
        start = values[0] if values.size else 0.0
        return np.mod(parameter - start, circumference), 0.0
    values, gaps, widest = _widest_gap(scores, circumference)
    start = values[(widest + 1) % values.size]
    return np.mod(parameter - start, circumference), float(circumference - gaps[widest])


def trace_principal_curve(
    pns: PrincipalNestedSpheres, match: SMDSMatch, n_points: int,
    report: Callable[[ProgressEvent], None] | None = None,
) -> PrincipalCurve:
    """Predict an equispaced grid of the principal circle (or of the data's arc of it, see
    :func:`curve_grid`), warm-starting each point from the one before.

    The chains start at the data's Fréchet mean on the circle (PNS1 = 0), where the data are
    densest and the first prediction is best determined: once around the whole circle, or
    to both ends of an arc (the two chains of an arc side by side on the kernel threads).
    They are solved a few points at a time, reporting (and so allowing a cancel) in
    between; each piece starts from the last answer of the previous one, exactly as one long
    chain does.
    """
    scale = pns.circle_radius_
    circumference = 2.0 * np.pi * scale
    d = match.angles.shape[1]
    parameter, closed = curve_grid(pns.scores_[:, 0], scale, n_points, d)
    if closed:
        chains = [np.roll(np.arange(n_points), -n_points // 2)]
        expected = match.radius * 2.0 * np.pi * scale / n_points  # sphere arc per grid step
    else:
        middle = int(np.argmin(np.abs(parameter)))
        chains = [np.arange(middle, n_points), np.arange(middle, -1, -1)]
        expected = match.radius * np.mod(parameter[1] - parameter[0], circumference)
    angles = np.empty((n_points, d))
    stress = np.empty(n_points)
    step = max(1, _CURVE_CHUNK_WORK // match.angles.shape[0])
    circles = [pns.principal_circle(grid=parameter[chain]) for chain in chains]

    def solve(piece: tuple[int, int, int]) -> int:
        number, begin, stop = piece
        rows = chains[number][begin:stop]
        start = angles[chains[number][begin - 1]] if begin else None
        angles[rows], stress[rows] = match.predict(circles[number][begin:stop], start=start,
                                                   chain=True)
        return len(rows)

    def pieces(number: int, first: int) -> list[tuple[int, int, int]]:
        length = len(chains[number])
        return [(number, begin, min(begin + step, length))
                for begin in range(first, length, step)]

    if closed:
        rounds = [[piece] for piece in pieces(0, 0)]
    else:
        # An arc: the middle first; then the two chains leave it, one forwards and one
        # backwards, side by side on the kernel threads. Each chain's pieces run in order,
        # so the answers are those of the chains run one after the other.
        rounds = [[(0, 0, 1)]] + [[piece for piece in pair if piece is not None]
                                  for pair in zip_longest(pieces(0, 1), pieces(1, 1))]
    done = 0
    for pieces in rounds:
        done += sum(map_parallel(solve, pieces))
        if report is not None:
            report(ProgressEvent("curve", done / n_points, message="principal curve"))
    breaks = closed_curve_breaks(angles, expected)
    if not closed:
        breaks[-1] = True  # an arc: no segment from its last point back to its first
    return PrincipalCurve(angles=angles, breaks=breaks, parameter=parameter, stress=stress,
                          in_data_range=data_range_mask(parameter, pns.scores_[:, 0],
                                                        circumference))


def curve_grid(pns1: NDArray[np.float64], scale: float, n_points: int, d: int
               ) -> tuple[NDArray[np.float64], bool]:
    """The PNS1 values at which the principal curve is predicted, and whether they go
    once around the circle.

    The whole circle (the paper's S̃¹; PNS1 runs over [−π ρ, π ρ), ρ = ``scale`` the
    circle's radius), equispaced from −π ρ, up to
    d = :data:`CURVE_DATA_ARC_MIN_D` − 1 and wherever the data cover most of it. From that
    d on, where the data's PNS1 leave more than 1 − :data:`CURVE_FULL_COVERAGE` of the
    circle empty, only their arc (with a margin of :data:`CURVE_ARC_MARGIN` of the circle
    on each side) is: elsewhere T̃ extrapolates far from every sample (on the 3-state
    peptide-like data the data cover 28 % of the circle at d = 20 and 4 % at d = 426 with
    98 frames, where a whole circle of 100 points gave 4 points along the data).
    """
    whole = scale * np.linspace(-np.pi, np.pi, n_points, endpoint=False)
    circumference = 2.0 * np.pi * scale
    if d < CURVE_DATA_ARC_MIN_D or pns1.size < 2:
        return whole, True
    values, gaps, widest = _widest_gap(pns1, circumference)
    length = circumference - gaps[widest] + 2.0 * CURVE_ARC_MARGIN * circumference
    if length >= CURVE_FULL_COVERAGE * circumference:
        return whole, True
    begin = values[(widest + 1) % values.size] - CURVE_ARC_MARGIN * circumference
    arc = begin + length * np.linspace(0.0, 1.0, n_points)
    half = circumference / 2.0
    return np.mod(arc + half, circumference) - half, False


def closed_curve_breaks(angles: NDArray[np.float64], expected_step: float) -> NDArray[np.bool_]:
    """Flag the segments of a closed torus polyline that jump instead of continuing.

    Segment j joins point j to point j + 1 (mod m). It is a break when its torus length is
    more than ``CURVE_BREAK_FACTOR`` times the typical step, taken as the larger of the
    median segment length and ``expected_step`` (the step the sphere curve would map to
    under an isometry).
    """
    steps = torus_distance(angles, np.roll(angles, -1, axis=0))
    typical = max(float(np.median(steps)), float(expected_step))
    return steps > CURVE_BREAK_FACTOR * typical
