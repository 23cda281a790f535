"""Write the example tables of this folder (see README.md); rerun with
``uv run python examples/make_tables.py`` from the repository's top folder."""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
#: Backbone (φ, ψ) centres in degrees of the α-helix, β-sheet and left-handed regions.
REGIONS = {"alpha": (-63.0, -43.0), "beta": (-120.0, 130.0), "left": (57.0, 47.0)}
SPREAD_DEGREES = 15.0
TEMPERATURES = (20.5, 25.0, 30.5, 37.0)


def write_table(path: Path, n: int, seed: int) -> None:
    """``n`` rows of id, φ, ψ (degrees in [−180, 180)), region and a temperature."""
    rng = np.random.default_rng(seed)
    names = list(REGIONS)
    region = rng.integers(0, len(names), n)
    centres = np.array([REGIONS[name] for name in names])[region]
    angles = (centres + rng.normal(0.0, SPREAD_DEGREES, (n, 2)) + 180.0) % 360.0 - 180.0
    temperature = rng.choice(TEMPERATURES, n)
    lines = ["id,phi,psi,region,temp"] + [
        f"{k + 1},{phi:.2f},{psi:.2f},{names[r]},{t:.1f}"
        for k, ((phi, psi), r, t) in enumerate(zip(angles, region, temperature, strict=True))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_table(HERE / "angles.csv", 300, seed=0)
    write_table(HERE / "new.csv", 100, seed=1)
