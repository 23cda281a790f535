"""Size of the mode test's later steps: "at most k modes" rejected under a true k-modal
density (issue 34).

``bench_modetest.py --part size`` measures the first step under unimodal nulls. A later step
"at most k" is exact only if its null density is right when the truth has exactly k modes;
its rejections are then false, and the closed test's over-counting P(k̂ > k) is at most
their rate. This benchmark draws samples from the von Mises mixtures of
``_mode_cases.POWER_CASES`` that have as many modes as components (κ = 8), runs the step
"at most k" alone on each, resampling f_{h_k} (``critical_kde``, the default) and the von
Mises mixture (``mixture``) on the same sample and with the same resampling seed, and
reports each null's rejection rate at α = 0.05 with its 2 SE band.

``--demo-seeds N`` measures the same outside the family: the demos clusters-t2 and
clusters-t3 (three wrapped-normal clusters on the torus, seen through SMDS and PNS) for data
seeds 0 … N − 1, each fitted once with the app's settings (torus variance left out: PNS1 is
the same), clustered by the product's rule with each null; the share of fits with more
than 3 clusters is the over-counting the user of the demos would see.

Markdown to stdout, progress to stderr; ``--json OUT`` keeps every p-value (written after
every case); ``--shard i/m`` runs every m-th case; ``--merge A.json B.json`` prints the
table of runs made apart.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_average_text
from _mode_cases import POWER_CASES, mixture, mixture_modes, step_p_values

from stpca_gui.core.circstats import mode_test as em
from stpca_gui.core.circstats.mode_null import EXTRA_COMPONENTS

ALPHA = 0.05
KAPPA = 8.0
#: Cases with as many modes as components (the true k of the step), and their sizes.
DEFAULT_CASES = [case for case in POWER_CASES if mixture_modes(*case, KAPPA) == case[0]]


def measure(case: tuple[int, float, float], n: int, reps: int, n_boot: int) -> dict:
    """Rejection rates of the step "at most k" under the k-modal mixture ``case``."""
    k, separation, small = case
    rng = np.random.default_rng([k, round(100 * separation), round(100 * small), n])
    row: dict = {"components": k, "separation": separation, "small": small, "n": n,
                 "reps": reps, "n_boot": n_boot, "extra_components": EXTRA_COMPONENTS}
    p = {null: [] for null in em.NULLS}
    cpu = dict.fromkeys(em.NULLS, 0.0)
    for r in range(reps):
        x = mixture(rng, n, k, separation, small, KAPPA)
        for null in em.NULLS:
            start = time.process_time()
            p[null].append(step_p_values(x, k, n_boot, 1000 + r, null))
            cpu[null] += time.process_time() - start
    for null in em.NULLS:
        values = np.array(p[null])
        rates = (values < ALPHA).mean(axis=0)
        row[null] = {"step": rates[2], "silverman": rates[0], "excess_mass": rates[1],
                     "cpu_seconds_per_step": cpu[null] / reps,
                     "p": np.round(values, 5).tolist()}
    row["se"] = float(np.sqrt(ALPHA * (1 - ALPHA) / reps))
    row["load"] = load_average_text()
    return row


def measure_demos(seeds: int) -> list[dict]:
    """k̂ of the product's rule with each null on the demos' fits, one row per demo and
    seed."""
    from stpca_gui.core.clusters import model_mode_clusters
    from stpca_gui.core.demos import make_demo
    from stpca_gui.model import FitParameters

    estimator = FitParameters(torus_variance=False).to_estimator()
    rows = []
    for name in ("clusters-t2", "clusters-t3"):
        for seed in range(seeds):
            model = estimator.fit(make_demo(name, random_state=seed).angles)
            row = {"demo": name, "seed": seed}
            for null in em.NULLS:
                test = model_mode_clusters(model, null=null, stability=False).mode_test
                row[null] = {"k_hat": test.n_modes, "p": list(test.p_values)}
            rows.append(row)
            log_line = ", ".join(f"{null} {row[null]['k_hat']}" for null in em.NULLS)
            print(f"{name} seed {seed}: {log_line}", file=sys.stderr, flush=True)
    return rows


def print_demo_table(rows: list[dict]) -> None:
    print("\n## The demos (three clusters): k̂ of the product's rule with each null\n")
    print("| demo | fits | critical_kde: k̂ = 3 / > 3 | mixture: k̂ = 3 / > 3 | seeds with "
          "k̂ > 3 (mixture) |")
    print("|---|---|---|---|---|")
    for name in sorted({row["demo"] for row in rows}):
        mine = [row for row in rows if row["demo"] == name]
        cells = []
        for null in em.NULLS:
            k = np.array([row[null]["k_hat"] for row in mine])
            cells.append(f"{np.mean(k == 3):.2f} / {np.mean(k > 3):.2f}")
        over = ", ".join(str(row["seed"]) for row in mine if row["mixture"]["k_hat"] > 3)
        print(f"| {name} | {len(mine)} | {cells[0]} | {cells[1]} | {over or '–'} |")


def print_table(rows: list[dict]) -> None:
    print("\n## Later steps: \"at most k modes\" rejected under a true k-modal mixture "
          f"(α = {ALPHA})\n")
    print("Each null: **the step** (Silverman's p_k / excess mass alone). A rate above "
          "α + 2 SE is a step that is not valid there.\n")
    print("| k | separation (rad) | weight of the last | n | replicates | critical_kde: "
          "**step** (p_k / EM) | mixture: **step** (p_k / EM) | α + 2 SE | CPU s per step "
          "(critical_kde / mixture) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in sorted(rows, key=lambda r: (r["n"], r["components"], r["separation"],
                                           -r["small"])):
        cells = [f"**{row[null]['step']:.3f}** ({row[null]['silverman']:.3f} / "
                 f"{row[null]['excess_mass']:.3f})" for null in em.NULLS]
        cpu = " / ".join(f"{row[null]['cpu_seconds_per_step']:.2f}" for null in em.NULLS)
        print(f"| {row['components']} | {row['separation']:g} | {row['small']:.2f} | "
              f"{row['n']} | {row['reps']} | {cells[0]} | {cells[1]} | "
              f"{ALPHA + 2 * row['se']:.3f} | {cpu} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 5000])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--n-boot", type=int, default=em.DEFAULT_N_BOOT)
    parser.add_argument("--cases", nargs="+", default=None,
                        help="cases as k:separation:weight (default: every k-modal power "
                             "case)")
    parser.add_argument("--shard", default="0/1", help="i/m: run every m-th case from i")
    parser.add_argument("--demo-seeds", type=int, default=0,
                        help="instead of the mixtures: the demos for this many data seeds")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--merge", type=Path, nargs="+", default=None)
    args = parser.parse_args()
    if args.merge is not None:
        rows = [row for path in args.merge for row in json.loads(path.read_text())]
        demos = [row for row in rows if "demo" in row]
        mixtures = [row for row in rows if "demo" not in row]
        if demos:
            print_demo_table(demos)
        if mixtures:
            print_table(mixtures)
        return
    if args.demo_seeds:
        rows = measure_demos(args.demo_seeds)
        if args.json is not None:
            args.json.write_text(json.dumps(rows, default=float))
        print_demo_table(rows)
        return
    cases = DEFAULT_CASES if args.cases is None else [
        (int(k), float(s), float(w)) for k, s, w in (c.split(":") for c in args.cases)]
    shard, shards = (int(t) for t in args.shard.split("/"))
    todo = [(case, n) for n in args.sizes for case in cases]
    rows = []
    for index, (case, n) in enumerate(todo):
        if index % shards != shard:
            continue
        rows.append(measure(case, n, args.reps, args.n_boot))
        print(f"{case} n={n}: " + ", ".join(f"{null} {rows[-1][null]['step']:.3f}"
                                             for null in em.NULLS), file=sys.stderr,
              flush=True)
        if args.json is not None:
            args.json.write_text(json.dumps(rows, default=float))
    print_table(rows)


if __name__ == "__main__":
    main()
