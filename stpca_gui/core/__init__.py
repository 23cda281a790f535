"""Numerical core of stpca-gui: numpy/scipy/numba only, never Qt, matplotlib or pyvista."""

from ._threads import loaded_libraries
from .baselines import BASELINES, BaselineResult, run_baselines
from .circular import circular_frechet_mean
from .demos import DEMO_NAMES, DemoDataset, list_demos, make_demo
from .mode_test import ModeTest, silverman_mode_test
from .modes import ModeClustering, model_mode_clusters, periodic_mode_clusters, pns1_mode_clusters
from .persistence import ModelFileError, load_model, save_model
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
from .torus_uniformity import TorusUniformityTest, torus_uniformity_test
from .tpca import TorusGapWarning, TorusPCA
from .uniformity import UniformityTest, uniformity_tests

__all__ = [
    "BASELINES",
    "DEMO_NAMES",
    "BaselineResult",
    "DemoDataset",
    "FitCancelled",
    "ModeClustering",
    "ModeTest",
    "ModelFileError",
    "PrincipalCurve",
    "PrincipalNestedSpheres",
    "ProgressEvent",
    "SMDSMatch",
    "ScaledTorusPCA",
    "SphericalMDS",
    "TorusGapWarning",
    "TorusPCA",
    "TorusUniformityTest",
    "UniformityTest",
    "circular_difference",
    "circular_frechet_mean",
    "classical_mds",
    "degrees_to_radians",
    "lagged_embedding",
    "list_demos",
    "load_model",
    "loaded_libraries",
    "make_demo",
    "model_mode_clusters",
    "periodic_mode_clusters",
    "pns1_mode_clusters",
    "run_baselines",
    "save_model",
    "silverman_mode_test",
    "torus_cdist",
    "torus_distance",
    "torus_pdist",
    "torus_uniformity_test",
    "uniformity_tests",
    "wasserstein_radius",
    "wrap_angles",
]
