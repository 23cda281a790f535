"""Statistics of angles on one circle: Fréchet means, kernel densities and their bandwidths,
density modes and the clusters they define, and the tests of uniformity (Watson, Giné F_n,
PAD) applied to the first PNS score."""

from .circular import circular_frechet_mean
from .modes import ModeClustering, periodic_mode_clusters
from .uniformity import UniformityTest, uniformity_tests

__all__ = ["ModeClustering", "UniformityTest", "circular_frechet_mean",
           "periodic_mode_clusters", "uniformity_tests"]
