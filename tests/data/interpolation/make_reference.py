"""Writes ``reference.npz``: T̂ (``SMDSMatch.interpolate``) outputs of the kernel as it was
before it was vectorised (main at 3fdd8f4), which
``tests/core/prediction/test_interpolation_kernel.py``
compares the current kernel against (same minima, to 1e-9).

Two landmark configurations from real ST-PCA fits: T⁴ (three wrapped-normal clusters plus
10 % uniform background, n = 5000, 200 landmarks) and T² (two clusters plus background,
n = 3000, 150 landmarks); queries are new points from the same laws plus uniform points.

    uv run python tests/data/interpolation/make_reference.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from stpca_gui.core import ScaledTorusPCA

MEANS = {4: np.array([[-1.0, -2.0, 0.0, 1.0], [1.0, 1.0, -1.0, 2.5], [0.0, -1.0, 3.0, -2.0]]),
         2: np.array([[-1.5, 2.0], [1.0, -0.5]])}


def clustered(d: int, n: int, rng: np.random.Generator) -> np.ndarray:
    means = MEANS[d]
    n_uniform = n // 10
    labels = rng.integers(0, len(means), n - n_uniform)
    points = np.vstack([means[labels] + rng.normal(0.0, 0.3, (labels.size, d)),
                        rng.uniform(-np.pi, np.pi, (n_uniform, d))])
    return (points + np.pi) % (2 * np.pi) - np.pi


def main() -> None:
    rng = np.random.default_rng(2025)
    arrays = {}
    for d, n, m, n_queries in ((4, 5000, 200, 400), (2, 3000, 150, 200)):
        model = ScaledTorusPCA(n_landmarks=m, random_state=0, pns_mode="small",
                               torus_variance=False, landmark_trials=1).fit(
            clustered(d, n, rng))
        match = model.match_
        queries = np.vstack([clustered(d, n_queries, rng),
                             rng.uniform(-4.0, 4.0, (n_queries // 4, d))])
        units, stress = match.interpolate(queries)
        arrays.update({f"t{d}_angles": match.angles, f"t{d}_embedding": match.embedding,
                       f"t{d}_radius": np.array(match.radius), f"t{d}_queries": queries,
                       f"t{d}_units": units, f"t{d}_stress": stress})
    np.savez_compressed(Path(__file__).with_name("reference.npz"), **arrays)


if __name__ == "__main__":
    main()
