"""The steps of a high-dimension fit around PNS, one at a time, in CPU seconds (issue 32).

``bench_highdim.py`` times whole default fits, which PNS dominates at high d; this script
times the other steps each on its own, so that their cost before and after the work on
them can be compared at d = 20, 66, 200 and 426 even where a whole fit would not end. Per
d, on ``make_torsion_states(n, d)`` (default n = 10⁴, the issue's case), in a fresh child
process against the code of this checkout or of ``--source DIR`` (another checkout, e.g. an
earlier commit exported with ``git archive``):

* ``landmark stage`` — the fit's landmark SMDS (m = 1000 landmarks): each landmark set
  tried is chosen, fitted by spherical MDS and scored by the T̂ of a 2,000-point validation
  sample; the number of sets tried;
* ``placing`` — T̂ of ``--place`` points that are not landmarks, CPU per point, and that
  per point × (n − m), the stage of a landmark fit; with the matrix-free kernel, also the
  dense kernel on the same points and the largest difference of their answers (radians);
* ``curve`` — the principal curve (``--curve-points`` points, scaled to 100);
* ``torus variance`` — the old computation (every level of every point up to 10⁴) from the
  CPU of ``--variance-points`` points, scaled; the new one as the fit runs it (the first
  components on a growing sample) on the m landmark points, with its sample and errors,
  and its ratios against the same components on every one of the m points (the error of
  the sample, in ratio points and in standard errors) and, up to d = 30, against every
  component on every point (the paper's computation).

The curve and the torus variance need a PNS fit: a great-sphere PNS of the first 100
landmarks (``mode="great"``, untimed) stands in for the fit's, as neither step's cost
depends on how PNS was fitted. The stage times are CPU seconds of the process
(``time.process_time``, every thread); the machine is shared, so run the old and new code
one after the other for each d (``--source`` then this checkout) and compare CPU.

Usage::

    uv run python benchmarks/bench_highdim_steps.py --d 20 66 --json new.json
    uv run python benchmarks/bench_highdim_steps.py --d 20 66 --source /tmp/old --json old.json
    # both, old then new for each d, recorded for docs/measured.md:
    git archive main stpca_gui | tar -x -C /tmp/old
    uv run python benchmarks/bench_highdim_steps.py --d 20 66 --before /tmp/old --record
"""

from __future__ import annotations

import argparse
import json
import math
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
    from stpca_gui.core.prediction import prediction, projections
    from stpca_gui.core.prediction.prediction import SMDSMatch
    from stpca_gui.core.prediction.principal_curve import trace_principal_curve
    from stpca_gui.core.stpca import (
        ScaledTorusPCA,
        _Reporter,
        _Timer,
    )
    from stpca_gui.core.torsion_states import make_torsion_states
    from stpca_gui.core.warmup import warm_up

    warm_up()
    load_start = common.load_average_text()
    data = make_torsion_states(n, d, random_state=0)
    angles = data.angles
    result: dict[str, Any] = {"d": d, "n": n, "m": m, "load_start": load_start}
    fit = ScaledTorusPCA(random_state=0)
    (indices, smds, trial_stress), landmark_cpu = _cpu(
        fit._fit_landmark_smds, angles, m, 1, 2, _Reporter(None), _Timer())
    match = SMDSMatch(smds.angles_, smds.embedding_, smds.radius_)
    others = np.setdiff1d(np.arange(n), indices)
    placed = others[:n_place]
    (units, _), place_cpu = _cpu(match.interpolate, angles[placed])
    per_point = place_cpu / len(placed)
    result.update({
        "landmark_stage_cpu_s": landmark_cpu,
        "landmark_sets": int(np.count_nonzero(np.isfinite(trial_stress))),
        "smds_iterations": int(smds.n_iter_),
        "place_cpu_ms_per_point": 1e3 * per_point,
        "placing_cpu_s": per_point * (n - m),
    })
    if d >= getattr(prediction, "MATRIX_FREE_MIN_D", math.inf):
        prediction.MATRIX_FREE_MIN_D, matrix_free_min_d = math.inf, prediction.MATRIX_FREE_MIN_D
        try:
            (dense_units, _), dense_cpu = _cpu(match.interpolate, angles[placed])
        finally:
            prediction.MATRIX_FREE_MIN_D = matrix_free_min_d
        result["place_dense_cpu_ms_per_point"] = 1e3 * dense_cpu / len(placed)
        result["place_dense_difference"] = float(np.max(np.abs(units - dense_units)))
    log(f"d = {d}: landmark stage {landmark_cpu:.1f} s "
        f"({result['landmark_sets']} sets), T̂ {1e3 * per_point:.3f} ms per point")
    pns, pns_cpu = _cpu(PrincipalNestedSpheres(mode="great").fit, smds.embedding_[:100])
    result["stand_in_pns_cpu_s"] = pns_cpu
    curve, curve_cpu = _cpu(trace_principal_curve, pns, match, curve_points)
    result["curve_cpu_s"] = curve_cpu * 100 / curve_points
    scores = pns.transform(smds.embedding_)
    if hasattr(projections, "iterate_projections"):
        from stpca_gui.core.prediction.torus_variance import (
            TORUS_VARIANCE_FIRST_SAMPLE,
            TORUS_VARIANCE_SAMPLE,
            TORUS_VARIANCE_TARGET_SE,
            estimate_torus_variance,
            torus_variance_components,
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
        every_point = estimate_torus_variance(pns, match, smds.angles_, scores, components)
        error = np.abs(estimate.ratio - every_point.ratio)
        result.update({
            "torus_variance_cpu_s": variance_cpu, "torus_components": components,
            "torus_sample": sample,
            "torus_ratio_se_max": float(np.max(estimate.ratio_se)),
            "torus_pc1": float(estimate.ratio[0]),
            "torus_remaining": float(estimate.remaining_ratio),
            "torus_sample_error_max": float(np.max(error)),
            "torus_sample_error_in_se_max": float(np.max(
                np.divide(error, estimate.ratio_se, out=np.zeros_like(error),
                          where=estimate.ratio_se > 0))),
        })
        if d <= 30 and components < d:
            paper = estimate_torus_variance(pns, match, smds.angles_, scores, d)
            result["torus_vs_every_component_max"] = float(
                np.max(np.abs(every_point.ratio - paper.ratio[:components])))
            result["torus_remaining_vs_steps"] = float(
                every_point.remaining_ratio - paper.ratio[components:].sum())
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


def run(d: int, args: argparse.Namespace, source: Path | None) -> dict[str, Any]:
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source) + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(d), str(args.n),
               str(args.m), str(args.place), str(args.curve_points),
               str(args.variance_points)]
    done = subprocess.run(command, capture_output=True, text=True, env=env,
                          cwd=common.REPO_ROOT, check=False, timeout=args.wall_limit)
    for line in done.stdout.splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    return {"d": d, "error": done.stderr[-2000:]}


#: The values of a d that docs/measured.md shows: before (``--before``) and after.
STAGE_KEYS = ("landmark_stage_cpu_s", "landmark_sets", "place_cpu_ms_per_point",
              "placing_cpu_s", "curve_cpu_s", "torus_variance_cpu_s",
              "curve_median_turn_deg")
AFTER_KEYS = ("place_dense_difference", "torus_components", "torus_sample",
              "torus_ratio_se_max", "torus_sample_error_max", "torus_sample_error_in_se_max",
              "torus_vs_every_component_max", "torus_remaining_vs_steps",
              "curve_in_data_range", "curve_median_turn_in_range_deg", "peak_rss_mb")


def headline(d: int, before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any]:
    """One recorded case: the stage values after (and before) and the errors after."""
    values: dict[str, Any] = {"d": d, "n": after["n"], "m": after["m"]}
    for key in STAGE_KEYS:
        values[f"{key}_after"] = after[key]
        if before is not None:
            values[f"{key}_before"] = before.get(key, math.nan)
    for key in AFTER_KEYS:
        values[key] = after.get(key, math.nan)
    return values


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
    parser.add_argument("--source", type=Path, default=None,
                        help="run the code of this checkout instead of this one")
    parser.add_argument("--before", type=Path, default=None,
                        help="run the code of this checkout first for each d, then this one")
    parser.add_argument("--wall-limit", type=float, default=7200.0)
    parser.add_argument("--json", type=Path, default=None)
    common.add_record_option(parser)
    args = parser.parse_args(argv)
    if args.child:
        common.emit_child_result(MARKER, child(*args.child))
        return 0
    load_at_start = common.one_minute_load()
    results, cases = [], {}
    for d in args.d:
        before = run(d, args, args.before) if args.before is not None else None
        if before is not None:
            results.append(before | {"code": "before"})
            print(json.dumps(results[-1]), flush=True)
        after = run(d, args, args.source)
        results.append(after | {"code": "after"})
        print(json.dumps(results[-1]), flush=True)
        if "error" not in after and (before is None or "error" not in before):
            cases[f"d{d}"] = headline(d, before, after)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    if args.record and cases:
        common.record(args.record, __file__, cases, load_at_start=load_at_start, log=log)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
