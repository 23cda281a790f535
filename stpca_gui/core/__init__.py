"""Numerical core of stpca-gui: numpy/scipy/numba only, never Qt, matplotlib or pyvista."""

from .baselines import BASELINES, BaselineResult, run_baselines
from .circular import circular_frechet_mean
from .demos import DEMO_NAMES, DemoDataset, list_demos, make_demo
from .pns import PrincipalNestedSpheres
from .prediction import SMDSMatch
from .progress import FitCancelled
from .radius import wasserstein_radius
from .series import lagged_embedding
from .smds import SphericalMDS, classical_mds
from .stpca import PrincipalCurve, ProgressEvent, ScaledTorusPCA
from .torus import (
    circular_difference,
    degrees_to_radians,
    torus_cdist,
    torus_distance,
    torus_pdist,
    wrap_angles,
)

__all__ = [
    "BASELINES",
    "DEMO_NAMES",
    "BaselineResult",
    "DemoDataset",
    "FitCancelled",
    "PrincipalCurve",
    "PrincipalNestedSpheres",
    "ProgressEvent",
    "SMDSMatch",
    "ScaledTorusPCA",
    "SphericalMDS",
    "circular_difference",
    "circular_frechet_mean",
    "classical_mds",
    "degrees_to_radians",
    "lagged_embedding",
    "list_demos",
    "make_demo",
    "run_baselines",
    "torus_cdist",
    "torus_distance",
    "torus_pdist",
    "wasserstein_radius",
    "wrap_angles",
]
