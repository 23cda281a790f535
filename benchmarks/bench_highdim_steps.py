"""The steps of a high-dimension fit around PNS, one at a time, in CPU seconds (issue 32).

``bench_highdim.py`` times whole default fits, which PNS dominates at high d; this script
times the other steps each on its own, so that their cost before and after the work on
them can be compared at d = 20, 66, 200 and 426 even where a whole fit would not end. Per
d, on ``make_torsion_states(n, d)`` (default n = 10⁴, the issue's case), in a fresh child
process against the code of this checkout or of ``--source DIR`` (another checkout, e.g. an
earlier commit exported with ``git archive``):

* ``landmark round`` — choosing m = 1000 landmarks and one spherical MDS on them, plus the
  T̂ of the 2,000-point validation sample that each round of a multi-set fit places;
* ``placing`` — T̂ of ``--place`` points that are not landmarks, CPU per point, and that
  per point × (n − m), the stage of a landmark fit;
* ``curve`` — the principal curve (``--curve-points`` points, scaled to 100);
* ``torus variance`` — the old computation (every level of every point up to 10⁴) from the
  CPU of ``--variance-points`` points, scaled; the new one as the fit runs it (the first
  components on a growing sample) on the m landmark points, with its sample and errors.

The curve and the torus variance need a PNS fit: a great-sphere PNS of the first 100
landmarks (``mode="great"``, untimed) stands in for the fit's, as neither step's cost
depends on how PNS was fitted. The stage times are CPU seconds of the process
(``time.process_time``, every thread); the machine is shared, so run the old and new code
one after the other for each d (``--source`` then this checkout) and compare CPU.

Usage::

    uv run python benchmarks/bench_highdim_steps.py --d 20 66 --json new.json
    uv run python benchmarks/bench_highdim_steps.py --d 20 66 --source /tmp/old --json old.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as common

MARKER = "BENCH_HIGHDIM_STEPS "
log = common.make_logger("bench_highdim_steps")


def _cpu(function, *args, **kwargs) -> tuple[Any, float]:
    start = time.process_time()
    value = function(*args, **kwargs)
    return value, time.process_time() - start


def child(d: int, n: int, m: int, n_place: int, curve_points: int,
          variance_points: int) -> dict[str, Any]:
    import numpy as np

    from stpca_gui.core.pns.pns import PrincipalNestedSpheres
    from stpca_gui.core.prediction import projections
    from stpca_gui.core.prediction.prediction import SMDSMatch
    from stpca_gui.core.smds.landmarks import choose_landmarks
    from stpca_gui.core.smds.smds import SphericalMDS
    from stpca_gui.core.stpca import _trace_principal_curve
    from stpca_gui.core.torsion_states import make_torsion_states
    from stpca_gui.core.warmup import warm_up

    warm_up()
    load_start = common.load_average_text()
    data = make_torsion_states(n, d, random_state=0)
    angles = data.angles
    result: dict[str, Any] = {"d": d, "n": n, "m": m, "load_start": load_start}
    rng = np.random.default_rng(0)
    indices, choose_cpu = _cpu(choose_landmarks, angles, m, rng, "mixed")
    smds, smds_cpu = _cpu(SphericalMDS(random_state=0).fit, angles[indices])
    match = SMDSMatch(smds.angles_, smds.embedding_, smds.radius_)
    others = np.setdiff1d(np.arange(n), indices)
    placed = others[:n_place]
    _, place_cpu = _cpu(match.interpolate, angles[placed])
    per_point = place_cpu / len(placed)
    result.update({
        "landmark_round_cpu_s": choose_cpu + smds_cpu + 2000 * per_point,
        "smds_cpu_s": smds_cpu, "smds_iterations": int(smds.n_iter_),
        "place_cpu_ms_per_point": 1e3 * per_point,
        "placing_cpu_s": per_point * (n - m),
    })
    log(f"d = {d}: landmarks and SMDS {choose_cpu + smds_cpu:.1f} s, "
        f"T̂ {1e3 * per_point:.3f} ms per point")
    pns, pns_cpu = _cpu(PrincipalNestedSpheres(mode="great").fit, smds.embedding_[:100])
    result["stand_in_pns_cpu_s"] = pns_cpu
    curve, curve_cpu = _cpu(_trace_principal_curve, pns, match, curve_points)
    result["curve_cpu_s"] = curve_cpu * 100 / curve_points
    scores = pns.transform(smds.embedding_)
    if hasattr(projections, "iterate_projections"):
        from stpca_gui.core.prediction.torus_variance import (
            estimate_torus_variance,
            torus_variance_components,
        )
        from stpca_gui.core.stpca import (
            TORUS_VARIANCE_FIRST_SAMPLE,
            TORUS_VARIANCE_SAMPLE,
            TORUS_VARIANCE_TARGET_SE,
        )

        components = torus_variance_components(pns.explained_variance_ratio_, 10)
        order = np.random.default_rng(1).permutation(m)
        sizes = [TORUS_VARIANCE_FIRST_SAMPLE]
        while sizes[-1] < min(m, TORUS_VARIANCE_SAMPLE):
            sizes.append(min(2 * sizes[-1], m))
        estimate, variance_cpu = _cpu(
            estimate_torus_variance, pns, match, smds.angles_, scores, components,
            sample_order=order, sample_sizes=sizes, target_se=TORUS_VARIANCE_TARGET_SE)
        sample = m if estimate.sample is None else int(estimate.sample.size)
        result.update({
            "torus_variance_cpu_s": variance_cpu, "torus_components": components,
            "torus_sample": sample,
            "torus_ratio_se_max": float(np.max(estimate.ratio_se)),
            "torus_pc1": float(estimate.ratio[0]),
            "torus_remaining": float(estimate.remaining_ratio),
        })
    else:
        rows = np.arange(variance_points)
        _, variance_cpu = _cpu(projections.predict_projections, pns, match, scores[rows],
                               smds.angles_[rows])
        result["torus_variance_cpu_s"] = variance_cpu / variance_points * min(n, 10_000)
        result["torus_variance_cpu_ms_per_point"] = 1e3 * variance_cpu / variance_points
    in_range = getattr(curve, "in_data_range", None)
    steps = np.angle(np.exp(1j * (np.roll(curve.angles, -1, axis=0) - curve.angles)))
    result["curve_median_turn_deg"] = float(np.degrees(np.median(np.abs(steps).sum(axis=0))))
    if in_range is not None:
        inside = in_range & np.roll(in_range, -1)
        result["curve_in_data_range"] = float(np.mean(in_range))
        result["curve_median_turn_in_range_deg"] = float(
            np.degrees(np.median(np.abs(steps[inside]).sum(axis=0))))
    result["peak_rss_mb"] = common.peak_rss_mb()
    result["load_end"] = common.load_average_text()
    return result


def run(d: int, args: argparse.Namespace) -> dict[str, Any]:
    env = dict(os.environ)
    if args.source is not None:
        env["PYTHONPATH"] = str(args.source) + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(d), str(args.n),
               str(args.m), str(args.place), str(args.curve_points),
               str(args.variance_points)]
    done = subprocess.run(command, capture_output=True, text=True, env=env,
                          cwd=common.REPO_ROOT, check=False, timeout=args.wall_limit)
    for line in done.stdout.splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    return {"d": d, "error": done.stderr[-2000:]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=6, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--d", type=int, nargs="+", default=[20, 66, 200, 426])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--m", type=int, default=1000, help="landmarks")
    parser.add_argument("--place", type=int, default=300, help="points placed by T̂")
    parser.add_argument("--curve-points", type=int, default=100)
    parser.add_argument("--variance-points", type=int, default=20,
                        help="points of the old torus variance (every level)")
    parser.add_argument("--source", type=Path, default=None)
    parser.add_argument("--wall-limit", type=float, default=7200.0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.child:
        common.emit_child_result(MARKER, child(*args.child))
        return 0
    results = []
    for d in args.d:
        results.append(run(d, args))
        print(json.dumps(results[-1]), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
