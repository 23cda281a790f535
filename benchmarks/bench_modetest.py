"""Size, power, noise, real data and speed of the test for the number of modes (issue 22).

Parts (``--part``, several allowed):

* ``size`` — rejection rate of "one mode" at α = 0.05 under unimodal nulls on the circle
  (von Mises κ ∈ {0.5, 2, 8}, wrapped Cauchy ρ = 0.5) at n ∈ {500, 5000, 50000}: p₁ < α
  alone and the product's step, for each factor λ of ``--factors`` (λ = 1 is the product;
  others, e.g. Hall & York's λ_α, from the same bootstrap draws);
* ``pipeline`` — uniform data on T^d, d ∈ {2, 3, 4}, through the product's rule (the torus
  uniformity test first, then the mode test on PNS1 of a default ST-PCA fit): its rejection
  rate exactly per replicate (fits only where the torus test rejects), the mode test on PNS1
  alone on an unconditional subsample, and the paper rule's number of clusters;
* ``power`` — share of replicates with k̂ = the true number of components over von Mises
  mixtures (2–4 components, separations, weights down to 10 %);
* ``noise`` — uniform data on T², T³, T⁴ up to n = 10⁵ through the whole product (one fit
  each): k̂ and clusters under both rules;
* ``data`` — demos, sunspots, small RNA: k̂, p-values, clusters and rates under both rules;
* ``speed`` — the test on n = 5371 and n = 10⁶ (with the load average).

The Markdown report goes to stdout, progress to stderr; ``--json OUT`` keeps every number.
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

from stpca_gui.core import ScaledTorusPCA
from stpca_gui.core.circstats import silverman as mt

ALPHA = 0.05
SMALL_RNA = Path("/work/shared/data/small_rna.csv")


def log(*parts: object) -> None:
    print(*parts, file=sys.stderr, flush=True)


def _null_sampler(name: str, rng: np.random.Generator, n: int) -> np.ndarray:
    if name.startswith("vonmises"):
        return rng.vonmises(0.0, float(name.split("=")[1]), n)
    if name == "wrapped_cauchy(0.5)":
        return np.mod(np.log(2.0) * rng.standard_cauchy(n) + np.pi, 2 * np.pi) - np.pi
    raise ValueError(name)


#: Factors λ whose size is measured (λ = 1: Silverman; λ_0.05 ≈ 1.13: Hall & York).
FACTORS = np.array([1.0, mt.calibration_factor(ALPHA, "hall_york"), 1.2])


def _one_mode_p_values(x: np.ndarray, n_boot: int, seed: int,
                       factors: np.ndarray = FACTORS, period: float = 2 * np.pi) -> np.ndarray:
    """p-values of "at most 1 mode" and "at most 2 modes", shape (2, len(factors)), for
    every factor from the same bootstrap draws: the product's first step (with λ = 1 the
    same draws as ``silverman_mode_test(x, period, random_state=seed)``)."""
    sample = mt.BinnedSample(mt.unit_angles(x, period))
    rng = np.random.default_rng(seed)
    return np.array([mt._bootstrap_p_values(sample, mt.binned_critical_bandwidth(sample, k), k,
                                            factors, n_boot, rng, None) for k in (1, 2)])


def _size_rates(p: np.ndarray) -> dict[str, np.ndarray]:
    """Rejection rates of "one mode" per factor: p₁ < α alone, and the product's step
    (p₁ < 0.8 α or p₂ < 0.2 α, weighted Bonferroni)."""
    w1, w2 = mt.STEP_WEIGHTS
    step = np.minimum(p[:, 0] / w1, p[:, 1] / w2)
    return {"p1": (p[:, 0] < ALPHA).mean(axis=0), "combined": (step < ALPHA).mean(axis=0)}



def start_table(title: str, columns: list[str]) -> None:
    """Print a Markdown section title and a table's header; rows follow as they are measured."""
    print(f"\n## {title}\n")
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))

#: Unimodal nulls of the size table.
SIZE_NULLS = ("vonmises=0.5", "vonmises=2", "vonmises=8", "wrapped_cauchy(0.5)")


def save_json(args: argparse.Namespace, out: dict) -> None:
    """Write everything measured so far (after every case: a long run keeps its numbers)."""
    if args.json is not None:
        args.json.write_text(json.dumps(out, default=float))


def part_size(args: argparse.Namespace, out: dict) -> None:
    rows = []
    print("\n## Size: one mode rejected at α = 0.05 under unimodal nulls, by factor λ\n")
    print("Each cell: p₁ < α alone / the product's step (p₁ < 0.8 α or p₂ < 0.2 α).\n")
    factors = np.array(args.factors)
    print("| null | n | replicates | " + " | ".join(f"λ={f:.3g}" for f in factors)
          + " | 2 SE |")
    print("|---|---|---|" + "---|" * factors.size + "---|")
    for n in args.sizes:
        reps = args.reps
        for index, null in enumerate(SIZE_NULLS):
            if (null, n) in args.skip_size:
                continue
            rng = np.random.default_rng([index, n])  # reproducible (str hashes are salted)
            cpu = time.process_time()
            p = np.array([_one_mode_p_values(_null_sampler(null, rng, n), args.n_boot,
                                             1000 + r, factors) for r in range(reps)])
            cpu = time.process_time() - cpu
            rates = _size_rates(p)
            se = np.sqrt(ALPHA * (1 - ALPHA) / reps)
            rows.append({"null": null, "n": n, "reps": reps, "factors": factors.tolist(),
                         "p1_rates": rates["p1"].tolist(),
                         "combined_rates": rates["combined"].tolist(), "se": se,
                         "cpu_seconds": cpu, "p": np.round(p, 5).tolist()})
            print(f"| {null} | {n} | {reps} | " + " | ".join(
                f"{a:.3f} / {b:.3f}" for a, b in zip(rates["p1"], rates["combined"],
                                                     strict=True)) + f" | {2 * se:.3f} |",
                flush=True)
            log(f"size {null} n={n}: {rates}")
            out["size"] = rows
            save_json(args, out)


def _mixture(rng: np.random.Generator, n: int, k: int, separation: float, small: float,
             kappa: float) -> np.ndarray:
    """k von Mises components κ, centres ``separation`` apart; the last has weight ``small``."""
    weights = np.full(k, (1.0 - small) / (k - 1))
    weights[-1] = small
    counts = rng.multinomial(n, weights)
    centres = separation * (np.arange(k) - (k - 1) / 2.0)
    return np.concatenate([rng.vonmises(c, kappa, m) for c, m in zip(centres, counts,
                                                                      strict=True)])


def _mixture_modes(k: int, separation: float, small: float, kappa: float,
                   nodes: int = 2**14) -> int:
    """Modes of the mixture density of :func:`_mixture` (the truth k̂ can reach at large n)."""
    from scipy.stats import vonmises

    weights = np.full(k, (1.0 - small) / (k - 1))
    weights[-1] = small
    centres = separation * (np.arange(k) - (k - 1) / 2.0)
    grid = np.linspace(-np.pi, np.pi, nodes, endpoint=False)
    density = sum(w * vonmises.pdf(grid, kappa, loc=c) for w, c in zip(weights, centres,
                                                                       strict=True))
    return int(np.count_nonzero((density > np.roll(density, 1))
                                & (density >= np.roll(density, -1))))


#: Power cases: (components, separation of the centres in rad, weight of the last).
POWER_CASES = ((2, 1.0, 0.5), (2, 1.0, 0.1), (2, 1.5, 0.5), (2, 1.5, 0.1), (2, 2.0, 0.1),
               (3, 1.0, 1 / 3), (3, 1.5, 1 / 3), (3, 2.0, 0.1), (4, 1.0, 0.25),
               (4, 1.5, 0.25), (4, 1.5, 0.1))


def part_power(args: argparse.Namespace, out: dict) -> None:
    kappa = 8.0  # circular sd ≈ 0.36 rad
    rows = []
    start_table(f"Power: share of replicates with k̂ = k (von Mises κ = {kappa:g}, "
                "λ = 1, α = 0.05, the product's test)",
                ["components k", "modes of the density", "separation (rad)",
                 "weight of the last", "n", "replicates", "k̂ = k", "k̂ > 1", "k̂ > k",
                 "mean k̂", "SE ≤"])
    for n in args.sizes:
        reps = args.power_reps
        for k, separation, small in POWER_CASES:
            rng = np.random.default_rng([k, round(100 * separation), round(1000 * small), n])
            found = np.array([mt.silverman_mode_test(
                _mixture(rng, n, k, separation, small, kappa), n_boot=args.n_boot,
                k_max=6, random_state=r).n_modes for r in range(reps)])
            modes = _mixture_modes(k, separation, small, kappa)
            row = {"k": k, "modes": modes, "separation": separation, "small": small, "n": n,
                   "reps": reps,
                   "exact": float(np.mean(found == k)), "structure": float(np.mean(found > 1)),
                   "over": float(np.mean(found > k)), "mean": float(found.mean()),
                   "counts": np.bincount(found, minlength=7).tolist()}
            rows.append(row)
            print(f"| {k} | {modes} | {separation:g} | {small:.2f} | {n} | {reps} | "
                  f"{row['exact']:.2f} | "
                  f"{row['structure']:.2f} | {row['over']:.2f} | {row['mean']:.2f} | "
                  f"{0.5 / np.sqrt(reps):.2f} |", flush=True)
            out["power"] = rows
            save_json(args, out)


def _fit_pns1(angles: np.ndarray, torus_variance: bool = True) -> ScaledTorusPCA:
    """A default fit (the app's settings, seed 0).

    ``torus_variance=False`` leaves out the torus variance of section 3.5, computed after
    PNS from its scores: PNS1 is bit-identical (checked on uniform T⁴, n = 5000) and the fit
    costs about 6 times less CPU.
    """
    from dataclasses import replace

    from stpca_gui.model import FitParameters

    return replace(FitParameters(), torus_variance=torus_variance).to_estimator().fit(angles)


def _clusters_both(angles: np.ndarray, model, labels=None) -> dict:
    from stpca_gui.core.circstats.modes import pns1_mode_clusters

    period = 2 * np.pi * float(model.pns_.circle_radius_)
    pns1 = model.scores_[:, 0]
    tested = pns1_mode_clusters(pns1, period, torus_angles=angles, labels=labels)
    paper = pns1_mode_clusters(pns1, period, labels=labels, method="paper")
    alone = mt.silverman_mode_test(pns1, period)
    return {"k_hat": tested.mode_test.n_modes, "tested_clusters": tested.n_clusters,
            "tested_sizes": tested.sizes.tolist(),
            "uniformity_p": tested.mode_test.uniformity_p_value,
            "steps": tested.mode_test.steps_text(),
            "pns1_alone_k": alone.n_modes, "pns1_alone_steps": alone.steps_text(),
            "paper_clusters": paper.n_clusters,
            "tested_rate": tested.classification_rate, "paper_rate": paper.classification_rate}


def _uniform_torus(d: int, n: int, replicate: int) -> np.ndarray:
    """Replicate ``replicate`` of n uniform points on T^d (reproducible on its own)."""
    return np.random.default_rng([d, n, replicate]).uniform(-np.pi, np.pi, (n, d))


def _pipeline_fit(d: int, n: int, replicate: int, n_boot: int) -> dict:
    """Default fit to one uniform replicate, and the product's first step on its PNS1."""
    from stpca_gui.core.circstats.modes import periodic_mode_clusters

    cpu = time.process_time()
    model = _fit_pns1(_uniform_torus(d, n, replicate), torus_variance=False)
    fit_cpu = time.process_time() - cpu
    period = 2 * np.pi * float(model.pns_.circle_radius_)
    pns1 = model.scores_[:, 0]
    p1, p2 = _one_mode_p_values(pns1, n_boot, replicate, np.array([1.0]), period)[:, 0]
    return {"d": d, "n": n, "replicate": replicate, "p1": p1, "p2": p2,
            "step_p": mt.step_p_value(p1, p2), "fit_cpu_seconds": fit_cpu,
            "paper_clusters": periodic_mode_clusters(pns1, period,
                                                     method="paper").n_clusters}


def part_pipeline(args: argparse.Namespace, out: dict) -> None:
    """Uniform data on T^d through the product's rule, replicate by replicate.

    The product runs the exact torus uniformity test first and tests PNS1 only when it
    rejects, so its rejection is P(torus test rejects and PNS1's first step rejects): every
    replicate gets the (cheap) torus test, and only the rejected ones are fitted; the others
    count as "not rejected". The first ``--alone-reps`` replicates of every case are fitted
    regardless (an unconditional sample for the mode test on PNS1 alone). Fits run
    round-robin over the cases until ``--budget-minutes``; ``--shard i/m`` splits them
    over processes (merge with ``--pipeline-table``).
    """
    from stpca_gui.core.circstats.torus_uniformity import torus_uniformity_test

    cases = [(d, n) for n in args.sizes for d in (2, 3, 4)]
    gates = {f"{d}:{n}": [float(torus_uniformity_test(_uniform_torus(d, n, r)).p_value)
                          for r in range(args.pipeline_reps)] for d, n in cases}
    rejected = {key: [r for r, p in enumerate(ps) if p < ALPHA] for key, ps in gates.items()}
    todo = [(d, n, r) for d, n in cases for r in rejected[f"{d}:{n}"]]
    todo += [(d, n, r) for r in range(args.alone_reps) for d, n in cases
             if r not in rejected[f"{d}:{n}"]]
    shard, shards = (int(t) for t in args.shard.split("/"))
    deadline = time.monotonic() + 60.0 * args.budget_minutes
    out["pipeline"] = {"gate_p": gates, "alone_reps": args.alone_reps, "fits": []}
    for index, (d, n, r) in enumerate(todo):
        if index % shards != shard:
            continue
        if time.monotonic() > deadline:
            log("pipeline: time budget spent")
            break
        out["pipeline"]["fits"].append(_pipeline_fit(d, n, r, args.n_boot))
        log(f"pipeline fit {index + 1}/{len(todo)}: {out['pipeline']['fits'][-1]}")
        save_json(args, out)
    pipeline_table([out["pipeline"]])


def pipeline_table(runs: list[dict]) -> None:
    """The table of uniform data through ST-PCA from one or more (sharded) pipeline runs.

    "product rule" is exact when every gate-rejected replicate was fitted, else the bounds
    [fitted rejections, fitted rejections + unfitted gate rejections] / replicates.
    """
    gates = runs[0]["gate_p"]
    alone_reps = runs[0]["alone_reps"]
    fits = {(f["d"], f["n"], f["replicate"]): f for run in runs for f in run["fits"]}
    start_table("Uniform data on T^d through ST-PCA (default fit): rejections at α = 0.05",
                ["d", "n", "replicates", "torus test rejected", "fitted of those",
                 "product rule rejects", "2 SE at 0.05", "PNS1 alone: replicates",
                 "PNS1 alone rejects (SE)", "paper rule: mean clusters",
                 "fit CPU s (median)"])
    for key, ps in gates.items():
        d, n = (int(t) for t in key.split(":"))
        reps = len(ps)
        gated = [r for r, p in enumerate(ps) if p < ALPHA]
        done = [fits[(d, n, r)] for r in gated if (d, n, r) in fits]
        low = sum(f["step_p"] < ALPHA for f in done) / reps
        high = low + (len(gated) - len(done)) / reps
        product = f"{low:.3f}" if high == low else f"{low:.3f}–{high:.3f}"
        alone = [fits[(d, n, r)] for r in range(alone_reps) if (d, n, r) in fits]
        # the unconditional sample is the replicates 0..m−1 without a gap
        m = next((r for r in range(alone_reps) if (d, n, r) not in fits), alone_reps)
        alone = alone[:m]
        rate = np.mean([f["step_p"] < ALPHA for f in alone]) if m else float("nan")
        se = np.sqrt(rate * (1 - rate) / m) if m else float("nan")
        paper = np.mean([f["paper_clusters"] for f in alone]) if m else float("nan")
        cpu = np.median([f["fit_cpu_seconds"] for f in fits.values()
                         if (f["d"], f["n"]) == (d, n)]) if any(
            (f["d"], f["n"]) == (d, n) for f in fits.values()) else float("nan")
        print(f"| {d} | {n} | {reps} | {len(gated) / reps:.3f} | {len(done)}/{len(gated)} | "
              f"{product} | {2 * np.sqrt(ALPHA * (1 - ALPHA) / reps):.3f} | {m} | "
              f"{rate:.2f} ({se:.2f}) | {paper:.1f} | {cpu:.1f} |", flush=True)


def part_noise(args: argparse.Namespace, out: dict) -> None:
    rows = []
    start_table("Uniform noise on the torus through the product (one default fit each)",
                ["d", "n", "torus uniformity p", "k̂ (product)", "clusters (product)",
                 "PNS1 alone k̂", "clusters (paper rule)"])
    for d in (2, 3, 4):
        for n in args.noise_sizes:
            angles = np.random.default_rng(d * 31 + n).uniform(-np.pi, np.pi, (n, d))
            model = _fit_pns1(angles)
            res = _clusters_both(angles, model)
            rows.append({"d": d, "n": n, **res})
            print(f"| {d} | {n} | {res['uniformity_p']:.3g} | {res['k_hat']} | "
                  f"{res['tested_clusters']} | {res['pns1_alone_k']} | "
                  f"{res['paper_clusters']} |", flush=True)
    out["noise"] = rows


def _small_rna() -> tuple[np.ndarray, np.ndarray]:
    import csv

    with open(SMALL_RNA, newline="") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    label_col = header.index("cluster")
    angle_cols = [i for i, name in enumerate(header) if i != label_col][:7]
    angles = np.deg2rad(np.array([[float(r[i]) for i in angle_cols] for r in body]))
    labels = np.array([r[label_col] for r in body])
    return np.mod(angles + np.pi, 2 * np.pi) - np.pi, labels


def part_data(args: argparse.Namespace, out: dict) -> None:
    from stpca_gui.core.circstats import rates
    from stpca_gui.core.demos import make_demo

    sets = []
    for name in ("clusters-t2", "clusters-t3"):
        for seed in (0, 1, 2):
            demo = make_demo(name, random_state=seed)
            sets.append((f"{name} seed {seed}", demo.angles, demo.labels))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import sunspots_series

    sets.append(("sunspots cycle 23 (T³)", sunspots_series()[0], None))
    if SMALL_RNA.exists():
        angles, labels = _small_rna()
        sets.append(("small RNA (7 angles)", angles, labels))
    rows = []
    start_table("Data sets: k̂ and clusters under both rules",
                ["data", "n", "torus unif. p", "k̂ (p-values)", "clusters tested (sizes)",
                 "stability", "clusters paper", "rate tested [95 % CI]",
                 "rate paper [95 % CI]"])
    for name, angles, labels in sets:
        model = _fit_pns1(angles)
        res = _clusters_both(angles, model, labels)
        from stpca_gui.core.circstats.modes import pns1_mode_clusters

        period = 2 * np.pi * float(model.pns_.circle_radius_)
        tested = pns1_mode_clusters(model.scores_[:, 0], period, torus_angles=angles,
                                    labels=labels, stability=True)
        stab = ", ".join(f"{s:.2f}" for s in tested.stability) if tested.stability is not None \
            else "–"
        text = {}
        if labels is not None:
            paper = pns1_mode_clusters(model.scores_[:, 0], period, labels=labels,
                                       method="paper")
            for key, cl in (("tested", tested), ("paper", paper)):
                iv = rates.classification_rate_interval(cl.labels, labels)
                text[key] = f"{iv.rate:.3f} [{iv.low:.3f}, {iv.high:.3f}]"
                res[f"{key}_interval"] = [iv.low, iv.high]
            diff = rates.rate_difference_interval(tested.labels, paper.labels, labels)
            text["paper"] += (f"; tested − paper {diff.difference:+.3f} "
                              f"[{diff.low:+.3f}, {diff.high:+.3f}]")
            res["difference"] = [diff.difference, diff.low, diff.high]
        rows.append({"data": name, "n": len(angles), **res, "stability": None
                     if tested.stability is None else tested.stability.tolist()})
        print(f"| {name} | {len(angles)} | {res['uniformity_p']:.3g} | {res['k_hat']} "
              f"({res['steps']}) | {res['tested_clusters']} ({res['tested_sizes']}) | {stab} | "
              f"{res['paper_clusters']} | {text.get('tested', '–')} | "
              f"{text.get('paper', '–')} |", flush=True)
    out["data"] = rows


def part_speed(args: argparse.Namespace, out: dict) -> None:
    """Wall and CPU time of the whole test, best of 3 each. The test is single-threaded, so
    its CPU time is what the wall time would be on an idle core."""
    rows = []
    start_table("Speed of the test (default n_boot = 500, k_max = 8)",
                ["sample", "n", "k̂", "wall s (best of 3)", "CPU s (best of 3)",
                 "load average"])
    rng = np.random.default_rng(5)
    cases = [("3-component mixture", _mixture(rng, 5371, 3, 2.0, 1 / 3, 8.0)),
             ("von Mises κ=2", rng.vonmises(0, 2, 5371)),
             ("3-component mixture", _mixture(rng, 10**6, 3, 2.0, 1 / 3, 8.0)),
             ("von Mises κ=2", rng.vonmises(0, 2, 10**6))]
    mt.silverman_mode_test(cases[0][1])  # warm-up
    for name, x in cases:
        wall, cpu = [], []
        for _ in range(3):
            start, start_cpu = time.perf_counter(), time.process_time()
            result = mt.silverman_mode_test(x)
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        load = load_average_text()
        rows.append({"sample": name, "n": x.size, "k_hat": result.n_modes,
                     "seconds": min(wall), "cpu_seconds": min(cpu), "load": load})
        print(f"| {name} | {x.size} | {result.n_modes} | {min(wall):.3f} | {min(cpu):.3f} | "
              f"{load} |", flush=True)
    out["speed"] = rows


PARTS = {"size": part_size, "power": part_power, "pipeline": part_pipeline,
         "noise": part_noise, "data": part_data, "speed": part_speed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", action="append", choices=sorted(PARTS), default=None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 5000, 50000])
    parser.add_argument("--noise-sizes", type=int, nargs="+", default=[2000, 20000, 100000])
    parser.add_argument("--reps", type=int, default=500, help="size replicates per case")
    parser.add_argument("--power-reps", type=int, default=100)
    parser.add_argument("--pipeline-reps", type=int, default=500,
                        help="uniform replicates per (d, n) through the torus test")
    parser.add_argument("--alone-reps", type=int, default=20,
                        help="replicates per (d, n) fitted whatever the torus test says")
    parser.add_argument("--budget-minutes", type=float, default=60.0,
                        help="no new pipeline fit starts after this")
    parser.add_argument("--shard", default="0/1", help="i/m: this process does fit i mod m")
    parser.add_argument("--pipeline-table", type=Path, nargs="+", default=None,
                        help="print the pipeline table from these --json files and stop")
    parser.add_argument("--n-boot", type=int, default=mt.DEFAULT_N_BOOT)
    parser.add_argument("--factors", type=float, nargs="+", default=FACTORS.tolist(),
                        help="calibration factors λ whose size is measured")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--skip-size", default=[], action="append", type=lambda t: (
        t.split(":")[0], int(t.split(":")[1])), help="null:n of a size case to leave out")
    args = parser.parse_args()
    if args.pipeline_table is not None:
        pipeline_table([json.loads(path.read_text())["pipeline"] for path in args.pipeline_table])
        return
    out: dict = {"load_start": load_average_text(), "n_boot": args.n_boot}
    print(f"# Mode test benchmark\n\nload average at start: {out['load_start']}")
    for part in args.part or list(PARTS):
        PARTS[part](args, out)
    out["load_end"] = load_average_text()
    print(f"\nload average at end: {out['load_end']}")
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1, default=float))


if __name__ == "__main__":
    main()
