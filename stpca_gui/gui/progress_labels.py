"""The names the status bar shows for the stages of progress reports.

The core's steps and the app's tasks each declare the stage names they report
(:data:`~stpca_gui.core.stpca.FIT_STAGES`, the uniformity tests' Monte Carlo, the baseline
methods, the mode clusters of :func:`~stpca_gui.model.analysis.run_analysis`, the reading
of torsions from structures); how those read to a user is decided here.
"""

from __future__ import annotations

from ..core.baselines import BASELINES_STAGE
from ..core.circstats.uniformity import MONTE_CARLO_STAGE
from ..io.structures.reader import DIHEDRALS_STAGE
from ..model.analysis import MODES_STAGE

STAGE_LABELS: dict[str, str] = {
    "landmarks": "Landmarks",
    "smds-start": "Start configuration",
    "smds": "Spherical MDS",
    "interpolation": "Placing points",
    "pns": "Principal nested spheres",
    "curve": "Principal curve",
    "torus-variance": "Torus variance",
    MODES_STAGE: "Mode clusters",
    "done": "Done",
    MONTE_CARLO_STAGE: "Monte Carlo",
    BASELINES_STAGE: "Baseline methods",
    DIHEDRALS_STAGE: "Torsions",
}


def stage_label(stage: str) -> str:
    """The status-bar name of a progress stage (the stage itself if unknown)."""
    return STAGE_LABELS.get(stage, stage)
