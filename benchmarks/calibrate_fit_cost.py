"""Fit the coefficients of the app's fit-cost estimate (stpca_gui/model/fit_cost.py) to
``bench_highdim.py --json`` outputs and print them, with each case's estimate against its
measured CPU seconds.

Usage::

    uv run python benchmarks/bench_highdim.py --d 20 66 --n 500 2000 10000 --json cases.json
    uv run python benchmarks/calibrate_fit_cost.py cases.json [more.json ...]

Paste the printed ``COEFFICIENTS`` into stpca_gui/model/fit_cost.py and keep the cases in
``benchmarks/calibration/fit_cost_cases.json`` (the JSON's ``results``; a test checks
that the coefficients are that file's fit).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from stpca_gui.model.fit_cost import calibrate, estimate_fit_cost


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", nargs="+", type=Path, help="bench_highdim.py --json files")
    args = parser.parse_args()
    results = [case for path in args.json
               for case in json.loads(path.read_text(encoding="utf-8"))["results"]
               if case.get("stage_cpu_s")]
    fitted = calibrate(results)
    print("COEFFICIENTS: dict[str, tuple[float, float, float]] = {")
    for stage, (c, e, f) in fitted.items():
        print(f'    "{stage}": ({c:.3g}, {e:.3g}, {f:.3g}),')
    print("}")
    for case in results:
        # Estimated as the case was run (exact, or SMDS on its landmarks): the case may
        # predate a change of the landmark rule.
        estimate = estimate_fit_cost(case["n"], case["d"], coefficients=fitted,
                                     n_smds=case["n_landmarks"])
        print(f"d = {case['d']}, n = {case['n']} (SMDS on {case['n_landmarks']}): estimate "
              f"{estimate.seconds:.1f} s, measured {case['cpu_s']:.1f} s CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
