"""Angles on the torus: wrapping, geodesic distances, delay embeddings of angle series and
input validation, with the compiled kernels they use (shared by every step)."""

from .series import lagged_embedding
from .torus import (
    circular_difference,
    degrees_to_radians,
    torus_cdist,
    torus_distance,
    torus_pdist,
    wrap_angles,
)

__all__ = ["circular_difference", "degrees_to_radians", "lagged_embedding", "torus_cdist",
           "torus_distance", "torus_pdist", "wrap_angles"]
