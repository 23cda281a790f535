"""Size, power, noise, real data and speed of the test for the number of modes (issue 22).

Parts (``--part``, several allowed):

* ``size`` — rejection rate of "one mode" at α = 0.05 under unimodal nulls on the circle
  (von Mises κ ∈ {0.5, 2, 8}, wrapped Cauchy ρ = 0.5) at n ∈ {500, 5000, 50000}, for both
  calibrations (Silverman's λ = 1 and Hall & York's λ_α) from the same bootstrap draws;
* ``pipeline`` — PNS1 of default ST-PCA fits to uniform data on T^d, d ∈ {2, 3, 4}: the
  rejection rate of the mode test on PNS1 alone and of the product's rule (torus
  uniformity test first), and the number of clusters of the paper's rule;
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

from stpca_gui.core.circstats import mode_test as mt

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
                       factors: np.ndarray = FACTORS) -> np.ndarray:
    """p-values of "at most 1 mode" and "at most 2 modes", shape (2, len(FACTORS)), for
    every factor from the same bootstrap draws."""
    sample = mt._BinnedSample(mt._unit_angles(x, 2 * np.pi))
    rng = np.random.default_rng(seed)
    return np.array([mt._bootstrap_p_values(sample, mt._critical(sample, k), k, factors,
                                            n_boot, rng, None) for k in (1, 2)])


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

def part_size(args: argparse.Namespace, out: dict) -> None:
    nulls = ["vonmises=0.5", "vonmises=2", "vonmises=8", "wrapped_cauchy(0.5)"]
    rows = []
    print("\n## Size: one mode rejected at α = 0.05 under unimodal nulls, by factor λ\n")
    print("Each cell: p₁ < α alone / the product's step (p₁ < 0.8 α or p₂ < 0.2 α).\n")
    factors = np.array(args.factors)
    print("| null | n | replicates | " + " | ".join(f"λ={f:.3g}" for f in factors)
          + " | 2 SE |")
    print("|---|---|---|" + "---|" * factors.size + "---|")
    for n in args.sizes:
        reps = args.reps if n <= 5000 else max(args.reps // 2, 50)
        for null in nulls:
            if (null, n) in args.skip_size:
                continue
            rng = np.random.default_rng(abs(hash((null, n))) % 2**32)
            p = np.array([_one_mode_p_values(_null_sampler(null, rng, n), args.n_boot,
                                             1000 + r, factors) for r in range(reps)])
            rates = _size_rates(p)
            se = np.sqrt(ALPHA * (1 - ALPHA) / reps)
            rows.append({"null": null, "n": n, "reps": reps, "factors": factors.tolist(),
                         "p1_rates": rates["p1"].tolist(),
                         "combined_rates": rates["combined"].tolist(), "se": se,
                         "p": p.tolist()})
            print(f"| {null} | {n} | {reps} | " + " | ".join(
                f"{a:.3f} / {b:.3f}" for a, b in zip(rates["p1"], rates["combined"],
                                                     strict=True)) + f" | {2 * se:.3f} |",
                flush=True)
            log(f"size {null} n={n}: {rates}")
            out["size"] = rows
            if args.json is not None:  # after every case: a long run keeps what it measured
                args.json.write_text(json.dumps(out, indent=1, default=float))


def _mixture(rng: np.random.Generator, n: int, k: int, separation: float, small: float,
             kappa: float) -> np.ndarray:
    """k von Mises components κ, centres ``separation`` apart; the last has weight ``small``."""
    weights = np.full(k, (1.0 - small) / (k - 1))
    weights[-1] = small
    counts = rng.multinomial(n, weights)
    centres = separation * (np.arange(k) - (k - 1) / 2.0)
    return np.concatenate([rng.vonmises(c, kappa, m) for c, m in zip(centres, counts,
                                                                      strict=True)])


def part_power(args: argparse.Namespace, out: dict) -> None:
    kappa = 8.0  # circular sd ≈ 0.36 rad
    cases = [(2, 1.0, 0.5), (2, 1.5, 0.5), (2, 1.5, 0.1), (2, 2.0, 0.1),
             (3, 1.5, 1 / 3), (3, 2.0, 0.1), (4, 1.5, 0.25), (4, 1.5, 0.1)]
    rows = []
    start_table(f"Power: share of replicates with k̂ = k (von Mises κ = {kappa:g}, "
                "Hall–York, α = 0.05)",
                ["components k", "separation (rad)", "weight of the last", "n", "replicates",
                 "k̂ = k", "k̂ > 1", "mean k̂"])
    for n in args.sizes:
        reps = args.power_reps if n <= 5000 else max(args.power_reps // 4, 10)
        for k, separation, small in cases:
            rng = np.random.default_rng(7 * k + int(100 * separation) + int(1000 * small) + n)
            found = np.array([mt.silverman_mode_test(
                _mixture(rng, n, k, separation, small, kappa), n_boot=args.n_boot,
                k_max=6, random_state=r).n_modes for r in range(reps)])
            rows.append({"k": k, "separation": separation, "small": small, "n": n,
                         "reps": reps, "exact": float(np.mean(found == k)),
                         "structure": float(np.mean(found > 1)),
                         "mean": float(found.mean())})
            print(f"| {k} | {separation:g} | {small:.2f} | {n} | {reps} | "
                  f"{np.mean(found == k):.2f} | {np.mean(found > 1):.2f} | "
                  f"{found.mean():.2f} |", flush=True)
    out["power"] = rows


def _fit_pns1(angles: np.ndarray):
    """A default fit (the app's settings, seed 0)."""
    from stpca_gui.model import FitParameters

    return FitParameters().to_estimator().fit(angles)


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


def part_pipeline(args: argparse.Namespace, out: dict) -> None:
    from stpca_gui.core.circstats.modes import periodic_mode_clusters
    from stpca_gui.core.circstats.torus_uniformity import torus_uniformity_test

    rows = []
    start_table("Uniform data on T^d through ST-PCA (default fit): rejections at α = 0.05",
                ["d", "n", "replicates", "mode test on PNS1 alone (k̂ > 1)",
                 "torus uniformity rejected", "product rule (k̂ > 1)",
                 "paper rule: mean clusters"])
    for n, reps in zip(args.sizes, args.pipeline_reps, strict=False):
        for d in (2, 3, 4):
            alone = gate = product = paper = 0
            for r in range(reps):
                rng = np.random.default_rng(10_000 * d + r + n)
                angles = rng.uniform(-np.pi, np.pi, (n, d))
                model = _fit_pns1(angles)
                period = 2 * np.pi * float(model.pns_.circle_radius_)
                pns1 = model.scores_[:, 0]
                structure = mt.silverman_mode_test(pns1, period, n_boot=args.n_boot,
                                                   k_max=3).n_modes > 1
                rejected = torus_uniformity_test(angles).p_value < ALPHA
                alone += structure
                gate += rejected
                product += structure and rejected
                paper += periodic_mode_clusters(pns1, period, method="paper").n_clusters
            row = {"d": d, "n": n, "reps": reps, "pns1_alone": alone / reps,
                   "gate": gate / reps, "product": product / reps,
                   "paper_mean_clusters": paper / reps}
            rows.append(row)
            print(f"| {d} | {n} | {reps} | {alone / reps:.2f} | {gate / reps:.2f} | "
                  f"{product / reps:.2f} | {paper / reps:.1f} |", flush=True)
            log(f"pipeline d={d} n={n}: {row}")
    out["pipeline"] = rows


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
    rows = []
    start_table("Speed of the test (default n_boot = 500, k_max = 8)",
                ["sample", "n", "k̂", "seconds (best of 3)", "load average"])
    rng = np.random.default_rng(5)
    cases = [("3-component mixture", _mixture(rng, 5371, 3, 2.0, 1 / 3, 8.0)),
             ("von Mises κ=2", rng.vonmises(0, 2, 5371)),
             ("3-component mixture", _mixture(rng, 10**6, 3, 2.0, 1 / 3, 8.0)),
             ("von Mises κ=2", rng.vonmises(0, 2, 10**6))]
    mt.silverman_mode_test(cases[0][1])  # warm-up
    for name, x in cases:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            result = mt.silverman_mode_test(x)
            times.append(time.perf_counter() - start)
        load = load_average_text()
        rows.append({"sample": name, "n": x.size, "k_hat": result.n_modes,
                     "seconds": min(times), "load": load})
        print(f"| {name} | {x.size} | {result.n_modes} | {min(times):.3f} | {load} |",
              flush=True)
    out["speed"] = rows


PARTS = {"size": part_size, "power": part_power, "pipeline": part_pipeline,
         "noise": part_noise, "data": part_data, "speed": part_speed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", action="append", choices=sorted(PARTS), default=None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 5000, 50000])
    parser.add_argument("--noise-sizes", type=int, nargs="+", default=[2000, 20000, 100000])
    parser.add_argument("--reps", type=int, default=500, help="size replicates (n ≤ 5000)")
    parser.add_argument("--power-reps", type=int, default=100)
    parser.add_argument("--pipeline-reps", type=int, nargs="+", default=[40, 10, 2])
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--factors", type=float, nargs="+", default=FACTORS.tolist(),
                        help="calibration factors λ whose size is measured")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--skip-size", default=[], action="append", type=lambda t: (
        t.split(":")[0], int(t.split(":")[1])), help="null:n of a size case to leave out")
    args = parser.parse_args()
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
