"""Numerical core of stpca-gui: numpy/scipy/numba only, never Qt, matplotlib or pyvista."""

from ._base.memory import MEMORY_HEADROOM, InsufficientMemoryError, available_memory_bytes
from ._base.params import Interval, Options, ParamSpec
from ._base.progress import CancelCheck, FitCancelled, ProgressCallback, ProgressEvent
from ._base.threads import loaded_libraries
from .baselines import BASELINES, BaselineResult, run_baselines
from .circstats.circular import circular_frechet_mean
from .circstats.mode_test import mode_test
from .circstats.modes import ModeClustering, periodic_mode_clusters, pns1_mode_clusters
from .circstats.silverman import ModeTest, silverman_mode_test
from .circstats.torus_uniformity import TorusUniformityTest, torus_uniformity_test
from .circstats.uniformity import UniformityTest, uniformity_tests
from .clusters import model_mode_clusters
from .demos import SIMULATED_DEMO_NAMES, DemoDataset, list_simulated_demos, make_demo
from .geometry.series import lagged_embedding
from .geometry.torus import (
    circular_difference,
    degrees_to_radians,
    torus_cdist,
    torus_distance,
    torus_pdist,
    wrap_angles,
)
from .mode_settings import ModeClusterSettings
from .persistence import ModelFileError, load_model, save_model
from .pns.pns import PrincipalNestedSpheres
from .prediction.prediction import SMDSMatch
from .prediction.principal_curve import PrincipalCurve
from .scoring_only import ScoringOnlyError
from .smds.classical import classical_mds
from .smds.radius import wasserstein_radius
from .smds.smds import SphericalMDS
from .stpca import FIT_STAGES, ScaledTorusPCA
from .tpca import TorusGapWarning, TorusPCA

__all__ = [
    "BASELINES",
    "FIT_STAGES",
    "MEMORY_HEADROOM",
    "SIMULATED_DEMO_NAMES",
    "BaselineResult",
    "CancelCheck",
    "DemoDataset",
    "FitCancelled",
    "InsufficientMemoryError",
    "Interval",
    "ModeClusterSettings",
    "ModeClustering",
    "ModeTest",
    "ModelFileError",
    "Options",
    "ParamSpec",
    "PrincipalCurve",
    "PrincipalNestedSpheres",
    "ProgressCallback",
    "ProgressEvent",
    "SMDSMatch",
    "ScaledTorusPCA",
    "ScoringOnlyError",
    "SphericalMDS",
    "TorusGapWarning",
    "TorusPCA",
    "TorusUniformityTest",
    "UniformityTest",
    "available_memory_bytes",
    "circular_difference",
    "circular_frechet_mean",
    "classical_mds",
    "degrees_to_radians",
    "lagged_embedding",
    "list_simulated_demos",
    "load_model",
    "loaded_libraries",
    "make_demo",
    "mode_test",
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
