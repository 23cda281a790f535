"""Step 3 of ST-PCA: prediction between sphere and torus, T̃ (eq. invmds2) and T̂ (eq. interp),
with their compiled kernels, and the nested projections of the data that give the torus
explained variance (section 3.5)."""

from .prediction import SMDSMatch

__all__ = ["SMDSMatch"]
