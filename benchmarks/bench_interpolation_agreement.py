"""T̂ of this code against an older checkout and against an extended-precision reference.

Usage::

    uv run python benchmarks/bench_interpolation_agreement.py --old-worktree ../old25
        [--model FILE] [--rows 400000] [--sample 1000] [--json OUT]

The landmark model of ``bench_persist.py`` (n = 2·10⁵ points on T⁴, m = 200 landmarks,
seed 0) is fitted, or read from ``--model``; ``--rows`` new T⁴ points are placed by T̂
here and, in a child process, by the code of ``--old-worktree`` (its own virtual
environment), with the same model file. Every point whose two placements differ by more
than 1e-6, and ``--sample`` random others, is placed again by the slow reference of
``tests/core/prediction/interpolation_reference.py`` (Levenberg–Marquardt from the 5
nearest landmarks,
polished by Newton's method in long double to a gradient of ~1e-19). Where the old answer
is not the reference's minimum, Newton's method in long double from the old answer tells
whether it was a minimum of its own or a saddle point (a negative Hessian eigenvalue).

Printed as Markdown to stdout (progress on stderr).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import _common as common
import numpy as np
from _common import fmt
from bench_persist import t4_clusters

from stpca_gui.core import ScaledTorusPCA, load_model, save_model
from stpca_gui.core.prediction import SMDSMatch

sys.path.insert(0, str(common.REPO_ROOT / "tests" / "core" / "prediction"))
from interpolation_reference import reference_placement, stationary_point_near

log = common.make_logger("bench_interpolation_agreement")

_OLD_PLACEMENT = """
import sys, numpy as np
from stpca_gui.core import load_model
model = load_model(sys.argv[1])
with np.load(sys.argv[2]) as data:
    units, stress = model.match_.interpolate(data["points"])
np.savez(sys.argv[3], units=units, stress=stress)
"""


def old_placements(worktree: Path, model_path: Path, points: np.ndarray, workdir: Path
                   ) -> tuple[np.ndarray, np.ndarray]:
    """T̂ of ``points`` by the code checked out in ``worktree`` (its own interpreter)."""
    source, target = workdir / "points.npz", workdir / "old.npz"
    np.savez(source, points=points)
    subprocess.run([str(worktree / ".venv" / "bin" / "python"), "-c", _OLD_PLACEMENT,
                    str(model_path), str(source), str(target)], cwd=worktree, check=True)
    with np.load(target) as data:
        return data["units"], data["stress"]


def stationary_kind(match: SMDSMatch, point: np.ndarray, unit: np.ndarray, error: float) -> str:
    """Whether a placement is the reference's minimum (within 1e-3), another minimum or a
    saddle point (Newton's method in long double from it, then the Hessian's signs)."""
    if error < 1e-3:
        return "reference minimum"
    near = stationary_point_near(match, point, unit)
    return "saddle" if near.hessian_eigenvalues[0] < 0 else "other minimum"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-worktree", type=Path, required=True)
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--sample", type=int, default=1000)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    results: dict = {"machine": common.machine_info(), "load_before": common.load_average_text()}
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        model_path = args.model
        if model_path is None:
            log("landmark fit, n = 200000, m = 200 (as bench_persist.py)")
            model = ScaledTorusPCA(n_landmarks=200, random_state=0, pns_mode="small",
                                   torus_variance=False).fit(t4_clusters(200_000, rng))
            model_path = workdir / "model.stpca"
            save_model(model, model_path)
        match = load_model(model_path).match_
        points = t4_clusters(args.rows, rng)
        log(f"T̂ of {args.rows} points, here and in {args.old_worktree}")
        new_units, new_stress = match.interpolate(points)
        old_units, old_stress = old_placements(args.old_worktree, model_path, points, workdir)
    moved = np.abs(new_units - old_units).max(axis=1)
    differing = np.flatnonzero(moved > 1e-6)
    others = np.setdiff1d(np.arange(args.rows), differing)
    chosen = np.concatenate([differing, rng.choice(others, min(args.sample, others.size),
                                                   replace=False)])
    log(f"reference placements of {chosen.size} points")
    rows = []
    for index in chosen:
        ref = reference_placement(match, points[index])
        new_error = float(np.abs(new_units[index] - ref.unit).max())
        old_error = float(np.abs(old_units[index] - ref.unit).max())
        rows.append({"index": int(index), "new_error": new_error, "old_error": old_error,
                     "new_excess": float(new_stress[index] - ref.stress),
                     "old_excess": float(old_stress[index] - ref.stress),
                     "new_kind": stationary_kind(match, points[index], new_units[index],
                                                 new_error),
                     "old_kind": stationary_kind(match, points[index], old_units[index],
                                                 old_error),
                     "differing": bool(moved[index] > 1e-6)})
    results.update(rows=args.rows, differing=int(differing.size), reference=rows,
                   max_moved=float(moved.max()),
                   beyond={f"{t:.0e}": int(np.count_nonzero(moved > t))
                           for t in (1e-12, 1e-9, 1e-6, 1e-3)})
    print(common.machine_report(results["machine"]))
    print(f"\n## T̂ here against {args.old_worktree} ({args.rows:,} points)\n")
    print(common.markdown_table(
        ["|new − old| >", *results["beyond"]],
        [["points", *(f"{v:,}" for v in results["beyond"].values())]]))
    print(f"\nlargest |new − old| {results['max_moved']:.2e}")

    def summary(label: str, subset: list[dict]) -> list[str]:
        def largest(key: str) -> str:
            found = [r[key] for r in subset if r[key] < 1e-3]
            return fmt(max(found), ".1e") if found else "—"

        def count(condition: Callable[[dict], bool]) -> str:
            return str(sum(1 for r in subset if condition(r)))

        return [label, str(len(subset)), largest("new_error"), largest("old_error"),
                count(lambda r: r["new_kind"] == "other minimum"),
                count(lambda r: r["old_kind"] == "other minimum"),
                count(lambda r: r["new_kind"] == "saddle"),
                count(lambda r: r["old_kind"] == "saddle"),
                count(lambda r: r["new_excess"] < r["old_excess"] - 1e-12),
                count(lambda r: r["new_excess"] > r["old_excess"] + 1e-12)]

    print("\n## Against the extended-precision reference\n")
    print("Distances are the largest coordinate difference of the unit vectors, where the "
          "placement is the reference's minimum; 'another minimum' is a local minimum with "
          "a higher stress than the reference's (reached from the nearest landmark; the "
          "reference tries the 5 nearest).\n")
    print(common.markdown_table(
        ["points", "n", "max new − ref", "max old − ref", "new at another minimum",
         "old at another minimum", "new at a saddle", "old at a saddle",
         "new stress < old", "new stress > old"],
        [summary("random", [r for r in rows if not r["differing"]]),
         summary("new and old differ by > 1e-6", [r for r in rows if r["differing"]])]))
    return common.finish(results, args.json, log)


if __name__ == "__main__":
    sys.exit(main())
