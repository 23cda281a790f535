"""Size, power, noise, real data and speed of the test for the number of modes (issues 22, 34).

Parts (``--part``, several allowed):

* ``size`` — rejection rate of "one mode" at α = 0.05 under unimodal nulls (von Mises
  κ ∈ {0.5, 2, 8}, wrapped Cauchy ρ = 0.5, two von Mises κ = 8 just short of a second mode,
  equal or 0.8/0.2) at n ∈ {500, 5000, 50000}: the product's first step (``mode_test``) and
  its two parts, Silverman's p₁ and the excess-mass p-value, from the same resamples;
* ``pipeline`` — uniform data on T^d, d ∈ {2, 3, 4}, through the product's rule (the torus
  uniformity test first, then the mode test on PNS1 of a default ST-PCA fit): its rejection
  rate exactly per replicate (fits only where the torus test rejects), the mode test on PNS1
  alone on an unconditional subsample, and the paper rule's number of clusters;
* ``power`` — share of replicates with k̂ = the true number of components over von Mises
  mixtures (2–4 components, separations, weights down to 10 %), ``--before`` and after
  (``mode_test`` resampling ``--null``) on the same samples, every step's p-values kept;
* ``noise`` — uniform data on T², T³, T⁴ up to n = 10⁵ through the whole product (one fit
  each): k̂ and clusters under both rules;
* ``data`` — demos, sunspots, small RNA: k̂, p-values, clusters and rates under both rules;
* ``speed`` — both tests on n = 5371 and n = 10⁶ (with the load average);
* ``calibration`` — candidate calibrations of the first step (other Bonferroni weights, a
  fast double bootstrap, the rescaled smoothed bootstrap, a parametric Jones–Pewsey bootstrap
  with min-p: ``_mode_calibration.py``) beside the product's, on the same samples (and, but
  for the parametric one, the same resamples): rejection rates under the size nulls and
  issue 34's power cases.

Report to stdout, progress to stderr; ``--json OUT`` keeps every number after every case;
``--resume``, ``--shard i/m``, ``--merge`` and ``--first-rep``: ``--help``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import add_record_option, load_average_text, one_minute_load, record
from _mode_calibration import first_step_candidates, weighted_step
from _mode_cases import (
    POWER_CASES,
    SIZE_NULLS,
    mixture,
    mixture_modes,
    null_sampler,
    step_p_values,
)

from stpca_gui.core import ScaledTorusPCA
from stpca_gui.core.circstats import mode_test as em
from stpca_gui.core.circstats import silverman as mt

ALPHA = 0.05


def log(*parts: object) -> None:
    print(*parts, file=sys.stderr, flush=True)


def start_table(title: str, columns: list[str]) -> None:
    """Print a Markdown section title and a table's header; rows follow as they are measured."""
    print(f"\n## {title}\n\n| " + " | ".join(columns) + " |\n|" + "---|" * len(columns))


def save_json(args: argparse.Namespace, out: dict) -> None:
    """Write everything measured so far (after every case: a long run keeps its numbers)."""
    if args.json is not None:
        args.json.write_text(json.dumps(out, default=float))


def _keep(args: argparse.Namespace, out: dict, part: str, row: dict,
          p: np.ndarray | None = None) -> None:
    """Add a measured ``row`` to ``out[part]``, stamped with the load average and (given)
    the p-values rounded to 5 digits, and save everything measured so far."""
    row["load"] = load_average_text()
    if p is not None:
        row["p"] = np.round(p, 5).tolist()
    out[part].append(row)
    save_json(args, out)


def _mine(args: argparse.Namespace, index: int) -> bool:
    """Whether case ``index`` belongs to this process (``--shard i/m``)."""
    shard, shards = (int(t) for t in args.shard.split("/"))
    return index % shards == shard


#: What rows measured before ``--null`` and ``--before`` existed measured.
_EARLIER_ROWS = {"resampled": "critical_kde", "tests": ["silverman", "critical_kde"]}


def _done(out: dict, part: str, key: dict) -> dict | None:
    """The row of ``part`` measured already for this case (``--resume``, ``--merge``), if
    any."""
    for row in out.get(part, []):
        if all(row.get(name, _EARLIER_ROWS.get(name)) == value for name, value in key.items()):
            return row
    return None


def part_size(args: argparse.Namespace, out: dict) -> None:
    """Rejections of "one mode" by the product's first step, replicate by replicate."""
    out.setdefault("size", [])
    print("\n## Size: one mode rejected at α = 0.05 under unimodal nulls\n")
    print("The product's step (p_step < α) and its parts alone (Silverman's p₁ < α, "
          "excess-mass p < α), from the same resamples.\n")
    print("| null | resampled | n | replicates | **step** | Silverman p₁ | excess mass | 2 SE "
          "| CPU s per test |")
    print("|---|---|---|---|---|---|---|---|---|")
    cases = [(null, n) for n in args.sizes for null in SIZE_NULLS
             if (null, n) not in args.skip_size]
    for case, (null, n) in enumerate(cases):
        key = {"null": null, "n": n, "reps": args.reps, "resampled": args.null,
               **_first_rep(args)}
        row = _done(out, "size", key)
        if row is None:
            if args.merge is not None or not _mine(args, case):
                continue
            index = list(SIZE_NULLS).index(null)
            rng = np.random.default_rng([index, n])  # reproducible (str hashes are salted)
            for _ in range(args.first_rep):  # the same stream as one longer run
                null_sampler(null, rng, n)
            cpu = time.process_time()
            p = np.array([step_p_values(null_sampler(null, rng, n), 1, args.n_boot,
                                        1000 + r, null=args.null)
                          for r in range(args.first_rep, args.first_rep + args.reps)])
            cpu = (time.process_time() - cpu) / args.reps
            rates = (p < ALPHA).mean(axis=0)
            row = {**key, "step": rates[2], "silverman": rates[0], "excess_mass": rates[1],
                   "se": float(np.sqrt(ALPHA * (1 - ALPHA) / args.reps)),
                   "cpu_seconds_per_test": cpu}
            _keep(args, out, "size", row, p)
            log(f"size {null} n={n}: {rates}")
        print(f"| {null} | {row.get('resampled', _EARLIER_ROWS['resampled'])} | {n} | "
              f"{row['reps']} | "
              f"**{row['step']:.3f}** | "
              f"{row['silverman']:.3f} | {row['excess_mass']:.3f} | {2 * row['se']:.3f} | "
              f"{row['cpu_seconds_per_test']:.2f} |", flush=True)


def _first_rep(args: argparse.Namespace) -> dict:
    """The key's mark of a run that continues another's samples (none from the first)."""
    return {"first_rep": args.first_rep} if args.first_rep else {}


def _power_test(name: str):
    """The test named: Silverman's alone, or ``mode_test`` resampling the null named."""
    if name == "silverman":
        return mt.silverman_mode_test
    return lambda x, **options: em.mode_test(x, null=name, **options)


def part_power(args: argparse.Namespace, out: dict) -> None:
    """k̂ of two tests on the same samples: ``--before`` and ``mode_test`` resampling
    ``--null``."""
    kappa = 8.0  # circular sd ≈ 0.36 rad
    out.setdefault("power", [])
    start_table(f"Power: share of replicates with k̂ = k (von Mises κ = {kappa:g}, α = 0.05); "
                "each cell before → after, the tests of the first column",
                ["tests", "components k", "modes of the density", "separation (rad)",
                 "weight of the last", "n", "replicates", "k̂ = k", "k̂ > 1", "k̂ > k",
                 "SE ≤", "CPU s per sample (before / after)"])
    chosen = POWER_CASES if args.power_cases is None else tuple(
        (int(k), float(separation), float(small))
        for k, separation, small in (text.split(":") for text in args.power_cases))
    cases = [(n, *case) for n in args.power_sizes for case in chosen]
    for index, (n, k, separation, small) in enumerate(cases):
        key = {"k": k, "separation": separation, "small": round(small, 4), "n": n,
               "reps": args.power_reps, "tests": [args.before, args.null], **_first_rep(args)}
        row = _done(out, "power", key)
        if row is None:
            if args.merge is not None or not _mine(args, index):
                continue
            rng = np.random.default_rng([k, round(100 * separation), round(1000 * small), n])
            found = {"before": [], "after": []}
            steps = {"before": [], "after": []}  # each replicate's p-values, step by step
            cpu = {"before": 0.0, "after": 0.0}
            for r in range(args.first_rep + args.power_reps):
                x = mixture(rng, n, k, separation, small, kappa)
                if r < args.first_rep:  # the same stream as one longer run
                    continue
                for name, test in (("before", _power_test(args.before)),
                                   ("after", _power_test(args.null))):
                    start = time.process_time()
                    result = test(x, n_boot=args.n_boot, k_max=6, random_state=r)
                    cpu[name] += time.process_time() - start
                    found[name].append(result.n_modes)
                    steps[name].append([result.raw_p_values, result.excess_mass_p_values])
            row = {**key, "modes": mixture_modes(k, separation, small, kappa)}
            for name, values in found.items():
                values = np.array(values)
                row[name] = {"exact": float(np.mean(values == k)),
                             "structure": float(np.mean(values > 1)),
                             "over": float(np.mean(values > k)),
                             "counts": np.bincount(values, minlength=7).tolist(),
                             "cpu_seconds": cpu[name] / args.power_reps,
                             "p": steps[name]}
            _keep(args, out, "power", row)
            log(f"power {key}: {row['before']['exact']} -> {row['after']['exact']}")
        b, a = row["before"], row["after"]
        tests = " → ".join(row.get("tests", _EARLIER_ROWS["tests"]))
        print(f"| {tests} | {k} | {row['modes']} | {separation:g} | {small:.2f} | {n} | "
              f"{row['reps']} | "
              f"{b['exact']:.2f} → **{a['exact']:.2f}** | {b['structure']:.2f} → "
              f"{a['structure']:.2f} | {b['over']:.2f} → {a['over']:.2f} | "
              f"{0.5 / np.sqrt(row['reps']):.2f} | {b['cpu_seconds']:.2f} / "
              f"{a['cpu_seconds']:.2f} |", flush=True)


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


def _pipeline_fit(d: int, n: int, replicate: int, n_boot: int, nulls: tuple = ()) -> dict:
    """Default fit to one uniform replicate, and the product's first step on its PNS1
    (``step_p``; with each of the other ``nulls`` too, ``<null>_step_p``)."""
    from stpca_gui.core.circstats.modes import periodic_mode_clusters

    cpu = time.process_time()
    model = _fit_pns1(_uniform_torus(d, n, replicate), torus_variance=False)
    fit_cpu = time.process_time() - cpu
    period = 2 * np.pi * float(model.pns_.circle_radius_)
    pns1 = model.scores_[:, 0]
    p_silverman, p_mass, step = step_p_values(pns1, 1, n_boot, replicate,
                                              em.DEFAULT_NULL, period)
    others = {f"{name}_step_p": step_p_values(pns1, 1, n_boot, replicate, name, period)[2]
              for name in nulls if name != em.DEFAULT_NULL}
    return {"d": d, "n": n, "replicate": replicate, "p1": p_silverman, "p_mass": p_mass,
            "step_p": step, **others, "fit_cpu_seconds": fit_cpu,
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
        out["pipeline"]["fits"].append(_pipeline_fit(d, n, r, args.n_boot, (args.null,)))
        log(f"pipeline fit {index + 1}/{len(todo)}: {out['pipeline']['fits'][-1]}")
        save_json(args, out)
    pipeline_table([out["pipeline"]])


def _gated_rate(done: list[dict], reps: int, gated: int, key: str) -> str:
    low = sum(f[key] < ALPHA for f in done) / reps
    high = low + (gated - len(done)) / reps
    return f"{low:.3f}" if high == low else f"{low:.3f}–{high:.3f}"


def pipeline_table(runs: list[dict]) -> None:
    """The table of uniform data through ST-PCA from one or more (sharded) pipeline runs.

    "product rule" is exact when every gate-rejected replicate was fitted, else the bounds
    [fitted rejections, fitted rejections + unfitted gate rejections] / replicates.
    """
    gates = runs[0]["gate_p"]
    alone_reps = runs[0]["alone_reps"]
    fits = {(f["d"], f["n"], f["replicate"]): f for run in runs for f in run["fits"]}
    # runs before 28 Nov tested with Silverman's test alone (their fits hold p2, not p_mass)
    first = em.DEFAULT_NULL if all("p_mass" in f for f in fits.values()) else "Silverman"
    nulls = {"step_p": first, "mixture_step_p": "mixture"}
    fields = [field for field in nulls if all(field in f for f in fits.values())]
    start_table("Uniform data on T^d through ST-PCA (default fit): rejections at α = 0.05",
                ["d", "n", "replicates", "torus test rejected", "fitted of those",
                 f"product rule rejects ({' / '.join(nulls[f] for f in fields)})",
                 "2 SE at 0.05", "PNS1 alone: replicates", "PNS1 alone rejects (SE)",
                 "paper rule: mean clusters", "fit CPU s (median)"])
    for key, ps in gates.items():
        d, n = (int(t) for t in key.split(":"))
        reps = len(ps)
        gated = [r for r, p in enumerate(ps) if p < ALPHA]
        done = [fits[(d, n, r)] for r in gated if (d, n, r) in fits]
        product = " / ".join(_gated_rate(done, reps, len(gated), field) for field in fields)
        alone = [fits[(d, n, r)] for r in range(alone_reps) if (d, n, r) in fits]
        # the unconditional sample is the replicates 0..m−1 without a gap
        m = next((r for r in range(alone_reps) if (d, n, r) not in fits), alone_reps)
        alone = alone[:m]
        rate = np.mean([f["step_p"] < ALPHA for f in alone]) if m else float("nan")
        se = np.sqrt(rate * (1 - rate) / m) if m else float("nan")
        paper = np.mean([f["paper_clusters"] for f in alone]) if m else float("nan")
        times = [f["fit_cpu_seconds"] for f in fits.values() if (f["d"], f["n"]) == (d, n)]
        cpu = np.median(times) if times else float("nan")
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


def _other_text(row: dict) -> str:
    rate = "" if row["rate"] is None else f", rate {row['rate']:.3f}"
    return f"{row['k_hat']} ({row['steps']}), {row['sizes']}{rate}"


def part_data(args: argparse.Namespace, out: dict) -> None:
    from stpca_gui.core.circstats import rates
    from stpca_gui.core.demos import make_demo
    from stpca_gui.datasets import load_small_rna

    sets = []
    for name in ("clusters-t2", "clusters-t3"):
        for seed in (0, 1, 2):
            demo = make_demo(name, random_state=seed)
            sets.append((f"{name} seed {seed}", demo.angles, demo.labels))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import sunspots_series

    sets.append(("sunspots cycle 23 (T³)", sunspots_series()[0], None))
    rna = load_small_rna()
    sets.append(("small RNA (7 angles)", rna.fitted_angles, np.asarray(rna.cluster)))
    rows = []
    start_table("Data sets: k̂ and clusters under both rules",
                ["data", "n", "torus unif. p", "k̂ (p-values)", "clusters tested (sizes)",
                 "stability", "clusters paper", "rate tested [95 % CI]",
                 "rate paper [95 % CI]", f"{args.null} null: k̂ (p-values), sizes, rate"])
    for name, angles, labels in sets:
        model = _fit_pns1(angles)
        res = _clusters_both(angles, model, labels)
        from stpca_gui.core.circstats.modes import pns1_mode_clusters

        period = 2 * np.pi * float(model.pns_.circle_radius_)
        tested = pns1_mode_clusters(model.scores_[:, 0], period, torus_angles=angles,
                                    labels=labels, stability=True)
        stab = ", ".join(f"{s:.2f}" for s in tested.stability) if tested.stability is not None \
            else "–"
        other = tested if args.null == em.DEFAULT_NULL else pns1_mode_clusters(
            model.scores_[:, 0], period, torus_angles=angles, labels=labels, stability=True,
            null=args.null)
        res[args.null] = {"k_hat": other.mode_test.n_modes, "steps": other.mode_test.steps_text(),
                          "sizes": other.sizes.tolist(), "rate": other.classification_rate,
                          "stability": None if other.stability is None
                          else other.stability.tolist()}
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
              f"{text.get('paper', '–')} | {_other_text(res[args.null])} |", flush=True)
    out["data"] = rows


def part_speed(args: argparse.Namespace, out: dict) -> None:
    """Wall and CPU time of the three tests, best of 3 each, interleaved. The tests run on one
    thread, so the CPU time is what the wall time would be on an idle core."""
    rows = []
    start_table("Speed of the tests (default n_boot = 500, k_max = 8)",
                ["sample", "n", "test", "k̂", "wall s (best of 3)", "CPU s (best of 3)",
                 "load average"])
    rng = np.random.default_rng(5)
    cases = [("3-component mixture", mixture(rng, 5371, 3, 2.0, 1 / 3, 8.0)),
             ("von Mises κ=2", rng.vonmises(0, 2, 5371)),
             ("3-component mixture", mixture(rng, 10**6, 3, 2.0, 1 / 3, 8.0)),
             ("von Mises κ=2", rng.vonmises(0, 2, 10**6))]
    tests = {"silverman_mode_test": mt.silverman_mode_test,
             "mode_test (critical_kde)": em.mode_test,
             "mode_test (mixture)": _power_test("mixture")}
    for test in tests.values():
        test(cases[0][1])  # warm-up (compilation)
    for name, x in cases:
        wall = {label: [] for label in tests}
        cpu = {label: [] for label in tests}
        k_hat = {}
        for _ in range(3):
            for label, test in tests.items():
                start, start_cpu = time.perf_counter(), time.process_time()
                k_hat[label] = test(x).n_modes
                wall[label].append(time.perf_counter() - start)
                cpu[label].append(time.process_time() - start_cpu)
        load = load_average_text()
        for label in tests:
            rows.append({"sample": name, "n": x.size, "test": label, "k_hat": k_hat[label],
                         "seconds": min(wall[label]), "cpu_seconds": min(cpu[label]),
                         "load": load})
            row = rows[-1]
            print(f"| {name} | {x.size} | {label} | {row['k_hat']} | {row['seconds']:.3f} | "
                  f"{row['cpu_seconds']:.3f} | {load} |", flush=True)
    out["speed"] = rows


#: The nulls of issue 34's size target (the boundary nulls are extra).
TARGET_NULLS = ("vonmises=0.5", "vonmises=2", "vonmises=8", "wrapped_cauchy(0.5)")
#: Issue 34's power cases: (k, separation, weight of the last) at n = 500.
TARGET_POWER = {"power-two-equal": (2, 1.0, 0.5), "power-small-mode": (2, 1.6, 0.1)}


def headline(out: dict) -> dict[str, dict[str, float]]:
    """The recorded numbers (``--record``) of what ``out`` holds: the size cells of the
    target nulls against the band 0.05 ± 2 SE, issue 34's two power cases (the run with the
    most replicates) and the speed of the product's test."""
    cases: dict[str, dict[str, float]] = {}
    cells = [row for row in out.get("size", []) if row["null"] in TARGET_NULLS]
    if cells:
        inside = [abs(row["step"] - ALPHA) <= 2 * row["se"] for row in cells]
        cases["size"] = {"cells": len(cells), "in_band": int(sum(inside)),
                         "step_min": min(row["step"] for row in cells),
                         "step_max": max(row["step"] for row in cells),
                         "replicates_min": min(row["reps"] for row in cells)}
    for name, (k, separation, small) in TARGET_POWER.items():
        rows = [row for row in out.get("power", []) if row["n"] == 500 and row["k"] == k
                and row["separation"] == separation and row["small"] == round(small, 4)]
        if rows:
            row = max(rows, key=lambda row: row["reps"])
            cases[name] = {"before": row["before"]["exact"], "after": row["after"]["exact"],
                           "replicates": row["reps"]}
    speed = {(row["n"], row["sample"]): row["cpu_seconds"] for row in out.get("speed", [])
             if row["test"].startswith("mode_test")}
    if speed:
        cases["speed"] = {"cpu_5371_s": max(s for (n, _), s in speed.items() if n == 5371),
                          "cpu_1e6_s": max(s for (n, _), s in speed.items() if n == 10**6)}
    return cases


#: Power cases of the calibration part: (k, separation, weight of the last) at n = 500.
CALIBRATION_POWER = ((2, 1.0, 0.5), (2, 1.6, 0.1), (2, 1.5, 0.1))
#: The other Bonferroni split measured there (Silverman's p_k, the excess mass).
OTHER_WEIGHTS = (0.3, 0.7)


def part_calibration(args: argparse.Namespace, out: dict) -> None:
    """Rejections of the first step under each candidate calibration, replicate by replicate:
    size under the unimodal nulls, power (k̂ > 1) under issue 34's mixtures."""
    out.setdefault("calibration", [])
    weights = em.TEST_WEIGHTS
    start_table("Candidate calibrations of the first step: rejections at α = 0.05, same "
                "samples and resamples",
                ["case", "n", "replicates", f"product ({weights[0]:g}/{weights[1]:g})",
                 "Silverman p₁ alone", "excess mass alone",
                 f"weights {OTHER_WEIGHTS[0]:g}/{OTHER_WEIGHTS[1]:g}",
                 "fast double bootstrap", "rescaled: Silverman p₁ alone",
                 "rescaled: excess mass alone",
                 f"product's p₁ + rescaled excess mass ({weights[0]:g}/{weights[1]:g})",
                 "**Jones–Pewsey bootstrap, min-p**", "Jones–Pewsey: p₁ alone",
                 "Jones–Pewsey: excess mass alone", "2 SE at 0.05", "CPU s per replicate"])
    cases = [(null, n) for n in args.calibration_sizes for null in SIZE_NULLS]
    cases += [(f"mixture {k}:{separation:g}:{small:g}", 500)
              for k, separation, small in CALIBRATION_POWER]
    for index, (case, n) in enumerate(cases):
        key = {"case": case, "n": n, "reps": args.calibration_reps, "n_boot": args.n_boot}
        row = _done(out, "calibration", key)
        if row is None:
            if args.merge is not None or not _mine(args, index):
                continue
            rng = np.random.default_rng([index, n, 34])
            cpu = time.process_time()
            p = []
            for r in range(args.calibration_reps):
                if case.startswith("mixture"):
                    k, separation, small = (float(t) for t in case.split()[1].split(":"))
                    x = mixture(rng, n, int(k), separation, small, 8.0)
                else:
                    x = null_sampler(case, rng, n)
                p.append(first_step_candidates(x, args.n_boot, 3000 + r, weights))
            p = np.array(p)
            cpu = (time.process_time() - cpu) / args.calibration_reps
            rates = {"product": weighted_step(p[:, 0], p[:, 1], weights),
                     "silverman": p[:, 0], "excess_mass": p[:, 1],
                     "other_weights": weighted_step(p[:, 0], p[:, 1], OTHER_WEIGHTS),
                     "double_bootstrap": p[:, 2], "rescaled_silverman": p[:, 3],
                     "rescaled_excess_mass": p[:, 4],
                     "rescaled_step": weighted_step(p[:, 0], p[:, 4], weights),
                     "jones_pewsey_min_p": p[:, 5], "jones_pewsey_silverman": p[:, 6],
                     "jones_pewsey_excess_mass": p[:, 7]}
            row = {**key, **{name: float(np.mean(v < ALPHA)) for name, v in rates.items()},
                   "cpu_seconds_per_replicate": cpu}
            _keep(args, out, "calibration", row, p)
            log(f"calibration {case} n={n}: {row['product']} -> {row['double_bootstrap']}")
        print(f"| {case} | {n} | {row['reps']} | {row['product']:.3f} | "
              f"{row['silverman']:.3f} | {row['excess_mass']:.3f} | "
              f"{row['other_weights']:.3f} | {row['double_bootstrap']:.3f} | "
              f"{_rate(row, 'rescaled_silverman')} | {_rate(row, 'rescaled_excess_mass')} | "
              f"{_rate(row, 'rescaled_step')} | **{_rate(row, 'jones_pewsey_min_p')}** | "
              f"{_rate(row, 'jones_pewsey_silverman')} | "
              f"{_rate(row, 'jones_pewsey_excess_mass')} | "
              f"{2 * np.sqrt(ALPHA * (1 - ALPHA) / row['reps']):.3f} | "
              f"{row['cpu_seconds_per_replicate']:.2f} |", flush=True)


def _rate(row: dict, name: str) -> str:
    """A candidate's rate, or "–" in rows measured before it existed."""
    return f"{row[name]:.3f}" if name in row else "–"


PARTS = {"size": part_size, "power": part_power, "pipeline": part_pipeline,
         "noise": part_noise, "data": part_data, "speed": part_speed,
         "calibration": part_calibration}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", action="append", choices=sorted(PARTS), default=None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 5000, 50000])
    parser.add_argument("--noise-sizes", type=int, nargs="+", default=[2000, 20000, 100000])
    parser.add_argument("--reps", type=int, default=500, help="size replicates per case")
    parser.add_argument("--power-reps", type=int, default=100)
    parser.add_argument("--first-rep", type=int, default=0, help="size and power: start at "
                        "this replicate (the samples and seeds of one longer run)")
    parser.add_argument("--calibration-reps", type=int, default=400)
    parser.add_argument("--calibration-sizes", type=int, nargs="+", default=[500])
    parser.add_argument("--power-sizes", type=int, nargs="+", default=[200, 500, 5000])
    parser.add_argument("--power-cases", nargs="+", default=None,
                        help="k:separation:weight of the power cases to run (default: all)")
    parser.add_argument("--pipeline-reps", type=int, default=500,
                        help="uniform replicates per (d, n) through the torus test")
    parser.add_argument("--alone-reps", type=int, default=20,
                        help="replicates per (d, n) fitted whatever the torus test says")
    parser.add_argument("--budget-minutes", type=float, default=60.0,
                        help="no new pipeline fit starts after this")
    parser.add_argument("--shard", default="0/1",
                        help="i/m: this process does case (or pipeline fit) i mod m")
    parser.add_argument("--resume", action="store_true",
                        help="keep the size and power cases already in --json")
    parser.add_argument("--merge", type=Path, nargs="+", default=None,
                        help="print the size and power tables from these --json files and stop")
    parser.add_argument("--pipeline-table", type=Path, nargs="+", default=None,
                        help="print the pipeline table from these --json files and stop")
    parser.add_argument("--runs-out", type=Path, default=None,
                        help="with --merge: also write the merged rows (without the "
                             "per-replicate p-values) to this JSON file")
    add_record_option(parser)
    parser.add_argument("--n-boot", type=int, default=mt.DEFAULT_N_BOOT)
    parser.add_argument("--null", choices=em.NULLS, default="mixture",
                        help="the density mode_test resamples (size; power's after column)")
    parser.add_argument("--before", choices=("silverman", *em.NULLS), default="critical_kde",
                        help="power's before column: Silverman's test alone or mode_test "
                             "resampling this null")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--skip-size", default=[], action="append", type=lambda t: (
        t.split(":")[0], int(t.split(":")[1])), help="null:n of a size case to leave out")
    args = parser.parse_args()
    if args.pipeline_table is not None:
        pipeline_table([json.loads(path.read_text())["pipeline"] for path in args.pipeline_table])
        return
    if args.merge is not None:
        runs = [json.loads(path.read_text()) for path in args.merge]
        merged = {part: [row for run in runs for row in run.get(part, [])]
                  for part in ("size", "power", "speed", "calibration")}
        args.shard = "0/1"
        for part in ("size", "power", "calibration"):
            if merged[part]:
                PARTS[part](args, {part: merged[part]})
        if args.runs_out is not None:
            kept = {part: [{key: {k: v for k, v in value.items() if k != "p"}  # power's too
                            if isinstance(value, dict) else value
                            for key, value in row.items() if key != "p"} for row in rows]
                    for part, rows in merged.items()}
            args.runs_out.write_text(json.dumps(kept, indent=1, default=float) + "\n")
        if args.record is not None:
            loads = [float(row["load"].split(",")[0]) for rows in merged.values()
                     for row in rows if "load" in row]  # the runs' highest load
            record(args.record, __file__, headline(merged),
                   load_at_start=max(loads, default=one_minute_load()), log=log)
        return
    load_at_start = one_minute_load()
    out: dict = {"load_start": load_average_text(), "n_boot": args.n_boot}
    if args.resume and args.json is not None and args.json.exists():
        out.update({part: rows for part, rows in json.loads(args.json.read_text()).items()
                    if part in ("size", "power", "calibration")})
    print(f"# Mode test benchmark\n\nload average at start: {out['load_start']}")
    for part in args.part or list(PARTS):
        PARTS[part](args, out)
    out["load_end"] = load_average_text()
    print(f"\nload average at end: {out['load_end']}")
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1, default=float))
    if args.record is not None:
        record(args.record, __file__, headline(out), load_at_start=load_at_start, log=log)


if __name__ == "__main__":
    main()
