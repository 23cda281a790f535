"""Step 1 of ST-PCA: spherical multidimensional scaling of the torus sample onto S^d_r.

The stress and its compiled pair kernel, the radius (started at the Wasserstein radius r*),
the optimisers (scipy's L-BFGS-B below d = 20, the compact L-BFGS of ``lbfgs`` from
d = 20 on, R's ``vmmin``), landmark selection for large samples and the
stress of sampled pairs."""

from .classical import classical_mds
from .radius import wasserstein_radius
from .smds import SphericalMDS

__all__ = ["SphericalMDS", "classical_mds", "wasserstein_radius"]
