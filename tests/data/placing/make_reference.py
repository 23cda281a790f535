"""Recorded answers of the per-point matrix-free T̂ (``_matrix_free_kernel.interpolate_sphere_cg``,
removed after commit 90da383; run this script at that commit to remake the file).

Block placing (``_block_placing``) runs the same iteration; its tests compare against these
answers, saved with their inputs (an SMDS fit of 150 frames of the 3-state data on T⁶⁶, 60
iterations, and 40 new frames) so that the comparison does not hinge on a refit.
"""

import numpy as np

from stpca_gui.core.geometry.torus import wrap_angles
from stpca_gui.core.prediction import _matrix_free_kernel as matrix_free
from stpca_gui.core.prediction import prediction
from stpca_gui.core.smds.smds import SphericalMDS
from stpca_gui.core.torsion_states import make_torsion_states

frames = make_torsion_states(190, 66, kappa=2.0, random_state=3).angles
smds = SphericalMDS(random_state=0, max_iter=60).fit(frames[:150])
angles, embedding, radius = smds.angles_, smds.embedding_, smds.radius_
queries = np.ascontiguousarray(wrap_angles(frames[150:]))
tol = prediction.INTERPOLATION_TOL
out = {"angles": angles, "embedding": embedding, "radius": np.array(radius),
       "queries": queries, "tol": np.array(tol)}
out["units_200"], out["stress_200"] = matrix_free.interpolate_sphere_cg(
    queries, angles, embedding, radius, 200, tol)
for max_iter in (0, 1, 3):
    out[f"units_{max_iter}"], out[f"stress_{max_iter}"] = matrix_free.interpolate_sphere_cg(
        queries[:12], angles, embedding, radius, max_iter, tol)
# Partners 8–15 given the unit vectors of partners 0–7 (the exact-Hessian case).
capped = embedding.copy()
capped[8:16] = capped[:8]
capped_queries = np.ascontiguousarray(wrap_angles(
    angles[:8] + np.random.default_rng(1).normal(0.0, 0.01, (8, 66))))
out["capped_queries"] = capped_queries
out["capped_units"], out["capped_stress"] = matrix_free.interpolate_sphere_cg(
    capped_queries, angles, capped, radius, 200, tol)
np.savez_compressed("tests/data/placing/per_point_placing_d66.npz", **out)
