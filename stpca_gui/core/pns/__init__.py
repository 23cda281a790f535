"""Step 2 of ST-PCA: principal nested spheres (R ``shapes::pns``): the subsphere fits with
their compiled objective, and the isotropy tests that choose small or great subspheres."""

from .pns import PrincipalNestedSpheres

__all__ = ["PrincipalNestedSpheres"]
