"""Where does ST-PCA reduce to Euclidean PCA? The simulation behind FLAT_PATCH_CAP_ANGLE.

Gaussian patches of T^d (n = 300, sd σ·0.6^k along angle k, centred at a random point) are
fitted with great-sphere PNS; for each the cap angle of the configuration
(:func:`stpca_gui.core.diagnostics.flat_patch`), r̂ / r*, the stress and |corr(PNS1, PC1)|
(PC1 of the angles centred at their circular means) are printed as a Markdown table, then
the caps of uniform data on T², T³, T⁴ (n = 500). About 1 minute on 2 cores.
docs/diagnostics.md quotes the output.

Run: ``uv run python benchmarks/flat_patch.py``
"""

from __future__ import annotations

import numpy as np

from stpca_gui.core import ScaledTorusPCA, wrap_angles
from stpca_gui.core.diagnostics import model_flat_patch


def main() -> None:
    print("| d | σ | cap (rad) | r̂/r* | stress | abs corr(PNS1, PC1) | PC1 share | PNS1 share |")
    print("|---|---|---|---|---|---|---|---|")
    for d in (2, 4, 8):
        for sigma in (0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 1.0):
            rng = np.random.default_rng(2)
            scales = sigma * 0.6 ** np.arange(d)
            angles = wrap_angles(rng.normal(size=(300, d)) * scales
                                 + rng.uniform(-np.pi, np.pi, d))
            model = ScaledTorusPCA(random_state=0, torus_variance=False,
                                   pns_mode="great").fit(angles)
            patch = model_flat_patch(model)
            centred = wrap_angles(angles - np.angle(np.exp(1j * angles).mean(axis=0)))
            centred -= centred.mean(axis=0)
            _, singular, vt = np.linalg.svd(centred, full_matrices=False)
            corr = abs(np.corrcoef(centred @ vt[0], model.scores_[:, 0])[0, 1])
            print(f"| {d} | {sigma} | {patch.cap_angle:.3f} | {patch.radius_ratio:.2f} | "
                  f"{model.stress_:.1e} | {corr:.5f} | {singular[0]**2 / np.sum(singular**2):.3f}"
                  f" | {model.explained_variance_ratio_[0]:.3f} |", flush=True)
    for d in (2, 3, 4):
        angles = np.random.default_rng(3).uniform(-np.pi, np.pi, (500, d))
        patch = model_flat_patch(ScaledTorusPCA(random_state=0, torus_variance=False)
                                 .fit(angles))
        print(f"uniform T^{d}: cap {patch.cap_angle:.2f} rad, r̂/r* {patch.radius_ratio:.2f}")


if __name__ == "__main__":
    main()
