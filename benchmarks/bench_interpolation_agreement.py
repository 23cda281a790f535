"""T̂ of this code against an older checkout and against an extended-precision reference.

Usage::

    uv run python benchmarks/bench_interpolation_agreement.py --old-worktree ../old25
        [--model FILE] [--rows 400000] [--sample 1000] [--json OUT]

The landmark model of ``bench_persist.py`` (n = 2·10⁵ points on T⁴, m = 200 landmarks,
seed 0) is fitted, or read from ``--model``; ``--rows`` new T⁴ points are placed by T̂
here and, in a child process, by the code of ``--old-worktree`` (its own virtual
environment), with the same model file. Every point whose two placements differ by more
than 1e-6, and ``--sample`` random others, is placed again by the slow reference of
``tests/interpolation_reference.py`` (Levenberg–Marquardt from the 5 nearest landmarks,
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
from pathlib import Path

import _common as common
import numpy as np
from _common import fmt
from bench_persist import t4_clusters

from stpca_gui.core import ScaledTorusPCA, load_model, save_model

sys.path.insert(0, str(common.REPO_ROOT / "tests"))
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
        old_kind = "reference minimum"
        if old_error >= 1e-3:
            near = stationary_point_near(match, points[index], old_units[index])
            old_kind = "saddle" if near.hessian_eigenvalues[0] < 0 else "other minimum"
        rows.append({"index": int(index), "new_error": new_error, "old_error": old_error,
                     "new_excess": float(new_stress[index] - ref.stress),
                     "old_excess": float(old_stress[index] - ref.stress),
                     "old_kind": old_kind, "differing": bool(moved[index] > 1e-6)})
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
        same_new = [r for r in subset if r["new_error"] < 1e-3]
        same_old = [r for r in subset if r["old_error"] < 1e-3]
        return [label, str(len(subset)),
                fmt(max((r["new_error"] for r in same_new), default=float("nan")), ".1e"),
                fmt(max((r["old_error"] for r in same_old), default=float("nan")), ".1e"),
                str(len(subset) - len(same_new)), str(len(subset) - len(same_old)),
                fmt(max(r["new_excess"] for r in subset), ".1e"),
                str(sum(r["old_kind"] == "saddle" for r in subset))]

    print("\n## Against the extended-precision reference\n")
    print(common.markdown_table(
        ["points", "n", "max |new − ref| (ref's minimum)", "max |old − ref| (ref's minimum)",
         "new elsewhere", "old elsewhere", "max stress new − ref", "old at a saddle"],
        [summary("random", [r for r in rows if not r["differing"]]),
         summary("|new − old| > 1e-6", [r for r in rows if r["differing"]])]))
    results["load_after"] = common.load_average_text()
    print(f"\nload average before / after: {results['load_before']} / {results['load_after']}")
    if args.json is not None:
        common.write_json(args.json, results, log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
