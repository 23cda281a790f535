"""What to resample the mode test's first step from (issue 34, fifth and sixth attempts):
rejection rates of "one mode" at α = 0.05 when the product's f_{h₁} is replaced by other
unimodal densities (``_mode_null_densities.py``: isotonic projection and monotone
rearrangement of a sharper KDE, a trigonometric exponential family by BIC or AIC, unimodal
von Mises mixtures, the true density), on the same samples: under the size nulls of
``bench_modetest.py`` and issue 34's two power cases.

For each candidate: Silverman's p₁ < α, the excess-mass p-value < α, and the product's step
min(p₁/0.7, p_EM/0.3) < α. ``--shard i/m`` runs every m-th case, ``--json OUT`` keeps the
per-replicate p-values, ``--merge`` prints the table of several runs (rows of the same
case, size and replicates side by side: the samples are the same; ``--runs-out`` keeps the
rows without the p-values). ``--candidates`` measures some of the densities only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.stats import vonmises

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_average_text
from _mode_calibration import weighted_step
from _mode_cases import BOUNDARY_NULLS, SIZE_NULLS, mixture, null_sampler
from _mode_null_densities import CANDIDATES, first_step_nulls

from stpca_gui.core.circstats.mode_test import TEST_WEIGHTS

ALPHA = 0.05
TWO_PI = 2.0 * np.pi
#: Issue 34's power cases: (components, separation in rad, weight of the last), κ = 8.
POWER_CASES = {"two equal modes ±0.5": (2, 1.0, 0.5), "10 % mode at 1.6": (2, 1.6, 0.1)}
_KAPPA = 8.0


def mixture_density(k: int, separation: float, small: float) -> Callable[[np.ndarray], np.ndarray]:
    """The density of ``_mode_cases.mixture`` (von Mises κ = 8 components)."""
    weights = np.full(k, (1.0 - small) / (k - 1))
    weights[-1] = small
    centres = separation * (np.arange(k) - (k - 1) / 2.0)
    return lambda angle: sum(w * vonmises.pdf(angle, _KAPPA, loc=c)
                             for w, c in zip(weights, centres, strict=True))


def true_density(case: str) -> Callable[[np.ndarray], np.ndarray]:
    """The density each case's samples are drawn from, as a function of the angle."""
    if case.startswith("vonmises"):
        kappa = float(case.split("=")[1])
        return lambda angle: vonmises.pdf(angle, kappa)
    if case == "wrapped_cauchy(0.5)":
        rho = 0.5
        return lambda angle: (1 - rho**2) / (TWO_PI * (1 + rho**2 - 2 * rho * np.cos(angle)))
    if case in BOUNDARY_NULLS:
        small, separation = BOUNDARY_NULLS[case]
        return mixture_density(2, separation, small)
    return mixture_density(*POWER_CASES[case])


def sample(case: str, rng: np.random.Generator, n: int) -> np.ndarray:
    if case in POWER_CASES:
        k, separation, small = POWER_CASES[case]
        return mixture(rng, n, k, separation, small, _KAPPA)
    return null_sampler(case, rng, n)


def rates(p: np.ndarray, candidates: tuple[str, ...]) -> dict[str, list[float]]:
    """Per candidate: the share of replicates with p₁ < α, p_EM < α and step < α."""
    step = weighted_step(p[:, :, 0], p[:, :, 1], TEST_WEIGHTS)
    return {name: [float(np.mean(p[:, i, 0] < ALPHA)), float(np.mean(p[:, i, 1] < ALPHA)),
                   float(np.mean(step[:, i] < ALPHA))] for i, name in enumerate(candidates)}


def print_table(rows: list[dict]) -> None:
    """One table over the candidates any row measured ("·" where a row did not)."""
    names = [name for name in CANDIDATES if any(name in row["rates"] for row in rows)]
    print("\n| case | n | replicates | " + " | ".join(
        f"{name}: p₁ / EM / **step**" for name in names) + " | 2 SE | CPU s per replicate |")
    print("|---|---|---|" + "---|" * len(names) + "---|---|")
    for row in rows:
        cells = ["·" if name not in row["rates"] else
                 "–" if name == "truth" and row["case"] in POWER_CASES  # tests nothing
                 else "{:.3f} / {:.3f} / **{:.3f}**".format(*row["rates"][name])
                 for name in names]
        print(f"| {row['case']} | {row['n']} | {row['reps']} | " + " | ".join(cells) +
              f" | {2 * np.sqrt(ALPHA * (1 - ALPHA) / row['reps']):.3f} | " +
              " + ".join(f"{cpu:.2f}" for cpu in row.get(
                  "cpu_runs", [row["cpu_seconds_per_replicate"]])) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--n-boot", type=int, default=250)
    parser.add_argument("--sharper", type=float, default=0.7,
                        help="bandwidth of the sharper KDE as a share of h₁")
    parser.add_argument("--max-order", type=int, default=8)
    parser.add_argument("--candidates", nargs="+", choices=CANDIDATES, default=CANDIDATES)
    parser.add_argument("--shard", default="0/1")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--merge", type=Path, nargs="+", default=None)
    parser.add_argument("--runs-out", type=Path, default=None,
                        help="with --merge: also write the rows without the per-replicate "
                             "p-values to this JSON file")
    args = parser.parse_args()
    if args.merge is not None:
        rows: dict[tuple, dict] = {}  # runs of the same cases and seeds side by side
        for path in args.merge:
            for row in json.loads(path.read_text())["rows"]:
                key = (row["case"], row["n"], row["reps"])
                if key not in rows:
                    rows[key] = row
                    continue
                kept = rows[key]
                kept["rates"] = {**row["rates"], **kept["rates"]}
                kept["cpu_runs"] = [*kept.get("cpu_runs", [kept["cpu_seconds_per_replicate"]]),
                                    row["cpu_seconds_per_replicate"]]
        rows = list(rows.values())
        order = [*SIZE_NULLS, *POWER_CASES]
        rows = sorted(rows, key=lambda r: (r["n"], order.index(r["case"])))
        print_table(rows)
        if args.runs_out is not None:
            kept = [{key: value for key, value in row.items() if key != "p"} for row in rows]
            args.runs_out.write_text(json.dumps({"rows": kept}, indent=1) + "\n")
        return
    shard, shards = (int(t) for t in args.shard.split("/"))
    cases = [(case, n) for n in args.sizes for case in (*SIZE_NULLS, *POWER_CASES)]
    out = {"load_start": load_average_text(), "rows": []}
    for index, (case, n) in enumerate(cases):
        if index % shards != shard:
            continue
        rng = np.random.default_rng([index, n, 35])
        density = true_density(case)
        cpu = time.process_time()
        candidates = tuple(name for name in CANDIDATES if name in args.candidates)
        p = np.array([first_step_nulls(sample(case, rng, n), args.n_boot, 7000 + r, density,
                                       args.sharper, args.max_order, candidates)
                      for r in range(args.reps)])
        row = {"case": case, "n": n, "reps": args.reps, "n_boot": args.n_boot,
               "rates": rates(p, candidates), "load": load_average_text(),
               "cpu_seconds_per_replicate": (time.process_time() - cpu) / args.reps,
               "p": np.round(p, 5).tolist()}
        out["rows"].append(row)
        print_table([row])
        if args.json is not None:
            args.json.write_text(json.dumps(out, default=float))


if __name__ == "__main__":
    main()
