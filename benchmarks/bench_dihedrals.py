"""Torsions of long trajectories: frames per second and peak memory of the readers.

Usage::

    uv run python benchmarks/bench_dihedrals.py [--frames 100000] [--residues 200]
        [--files 4] [--workdir /tmp/stpca-bench-dihedrals] [--keep] [--json OUT]

A 200-residue trajectory is synthesised by repeating the 98 frames of MDAnalysisTests'
adenylate kinase (adk.psf + adk_dims.dcd): the backbone atoms N, CA, C, O of residues
1 … R + 2 (a PDB topology, one DCD of ``--frames`` frames, and the same frames split into
``--files`` DCD files; written to ``--workdir`` and removed afterwards unless ``--keep``).
Then, each in a child process (so that its peak resident memory is its own):

1. ``read_torsions(..., DihedralSettings("backbone"))`` of the one file: pooled φ/ψ of R
   residues in every frame (the table is 2·R·frames float64 values, 320 MB at 10⁵ frames),
   and the same per frame (layout ``per-frame``);
2. the same of the ``--files`` files, each a run (the trajectory and time columns);
3. the app's reading, ``read_structure_dataset`` of the files (pooled and per frame): the
   data set with its labels and provenance. Its peak memory is the child's peak RSS
   above its RSS before the reading, divided by the size of the data set's arrays (target
   ≤ 2, issue 29 item 5; the old reading peaked at 17× its angles). Not under
   ``tracemalloc`` (the unit test measures traced allocations instead);
4. MDAnalysis' ``Ramachandran`` on the first 5000 frames, for comparison (its frame loop).

Printed as Markdown (progress on stderr): wall time and the child's CPU time (user +
system), since on a shared machine the wall time mostly measures the wait for a core.
Target (issues 23 and 33): ≥ 10⁴ frames/s for backbone on 2 cores, also in 4 files.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

from _common import (
    add_record_option,
    load_average_text,
    machine_info,
    make_logger,
    one_minute_load,
    record,
)

BASELINE_FRAMES = 5000
KINDS = ("pooled", "per-frame", "runs-pooled", "runs-per-frame", "dataset-pooled",
         "dataset-per-frame", "ramachandran")
NAMES = {"pooled": "read_torsions, pooled, 1 file",
         "per-frame": "read_torsions, per-frame, 1 file",
         "runs-pooled": "read_torsions, pooled, {files} files (runs)",
         "runs-per-frame": "read_torsions, per-frame, {files} files (runs)",
         "dataset-pooled": "read_structure_dataset (app), pooled, {files} files",
         "dataset-per-frame": "read_structure_dataset (app), per-frame, {files} files",
         "ramachandran": "MDAnalysis Ramachandran (reference)"}


def synthesise(workdir: Path, n_frames: int, residues: int, n_files: int
               ) -> tuple[Path, Path, list[Path]]:
    """A PDB topology, a DCD of ``n_frames`` frames (adk's frames repeated) and the same
    frames in ``n_files`` DCD files."""
    import MDAnalysis as mda
    from MDAnalysisTests.datafiles import DCD, PSF

    workdir.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        source = mda.Universe(PSF, DCD)
        atoms = source.select_atoms(f"resid 1:{residues + 2} and name N CA C O")
        frames = source.trajectory.timeseries(atomgroup=atoms, order="fac")
        topology = workdir / "backbone.pdb"
        source.trajectory[0]
        atoms.write(str(topology))
        copy = mda.Merge(atoms)
        whole = workdir / "backbone.dcd"
        parts = [workdir / f"backbone_{k + 1}.dcd" for k in range(n_files)]
        bounds = [round(k * n_frames / n_files) for k in range(n_files + 1)]
        for path, ranges in [(whole, [(0, n_frames)]),
                             *[(p, [(bounds[k], bounds[k + 1])]) for k, p in enumerate(parts)]]:
            with mda.Writer(str(path), atoms.n_atoms) as writer:
                for first, stop in ranges:
                    for k in range(first, stop):
                        copy.atoms.positions = frames[k % len(frames)]
                        writer.write(copy.atoms)
                        if k % 20000 == 0:
                            print(f"writing {path.name}: frame {k:,}", file=sys.stderr)
    return topology, whole, parts


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def child(kind: str, topology: str, trajectories: list[str]) -> dict:
    """Run one measurement; returns its figures (this process's peak memory included)."""
    warnings.simplefilter("ignore")
    import MDAnalysis  # noqa: F401 (imported before the clocks start: seconds on a busy machine)

    import stpca_gui.model.structures  # noqa: F401
    from stpca_gui.io.structures import DihedralSettings, read_torsions
    from stpca_gui.model.structures import read_structure_dataset

    figures: dict = {}
    rss_before = _rss_mb()
    start, cpu = time.perf_counter(), time.process_time()
    if kind == "ramachandran":
        import MDAnalysis as mda
        from MDAnalysis.analysis.dihedrals import Ramachandran

        universe = mda.Universe(topology, trajectories[0])
        frames, shape = min(BASELINE_FRAMES, universe.trajectory.n_frames), None
        Ramachandran(universe.select_atoms("protein"), check_protein=False).run(stop=frames)
    elif kind.startswith("dataset-"):
        dataset = read_structure_dataset(topology, trajectories,
                                         DihedralSettings(layout=kind[len("dataset-"):]))
        # The peak now, before anything else is computed (a set of every row's run and
        # frame as Python objects took 2 GB at 2·10⁷ rows).
        figures = {"rss_above_start_mb":
                   resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - rss_before}
        held = dataset.angles.nbytes + sum(v.nbytes for v in dataset.provenance.values())
        held += 0 if dataset.labels is None else dataset.labels.nbytes
        frames = sum(sum(run["frames"]) for run in dataset.structure["runs"])
        shape = list(dataset.angles.shape)
        figures.update(dataset_mb=held / 2**20, angles_mb=dataset.angles.nbytes / 2**20)
    else:
        table = read_torsions(topology, trajectories,
                              DihedralSettings(layout=kind.removeprefix("runs-")))
        frames, shape = len(table.frames), list(table.angles.shape)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"kind": kind, "frames": frames, "seconds": elapsed, "shape": shape,
            "frames_per_second": frames / elapsed, "cpu_seconds": cpu,
            "frames_per_cpu_second": frames / cpu, "peak_rss_mb": peak, **figures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--residues", type=int, default=200)
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/stpca-bench-dihedrals"))
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--only", default=",".join(KINDS),
                        help=f"comma-separated cases of {', '.join(KINDS)}")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--child", nargs="+", metavar="ARG", help=argparse.SUPPRESS)
    add_record_option(parser)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], args.child[2:])))
        return
    load_at_start = one_minute_load()
    kinds = [k for k in args.only.split(",") if k]
    start = time.perf_counter()
    topology, whole, parts = synthesise(args.workdir, args.frames, args.residues, args.files)
    written = time.perf_counter() - start
    size_mb = whole.stat().st_size / 2**20
    results = []
    try:
        for kind in kinds:
            print(f"measuring {kind}", file=sys.stderr)
            files = [whole] if kind in ("pooled", "per-frame", "ramachandran") else parts
            output = subprocess.run(
                [sys.executable, __file__, "--child", kind, str(topology), *map(str, files)],
                check=True, capture_output=True, text=True, env=os.environ).stdout
            results.append(json.loads(output.strip().splitlines()[-1]))
    finally:
        if not args.keep:
            shutil.rmtree(args.workdir, ignore_errors=True)
    print(f"# Torsions of a {args.frames:,}-frame, {args.residues}-residue trajectory\n")
    info = machine_info()
    print(f"- machine: {info['cpu']}, {info['usable cpus (affinity)']} usable cores; load "
          f"average (1, 5, 15 min) {load_average_text()} (a shared machine: wall times "
          "include waiting for a core, CPU times do not)")
    print(f"- synthetic DCD: {size_mb:,.0f} MB (backbone N, CA, C, O), and the same in "
          f"{args.files} files (written in {written:.1f} s)\n")
    print("| reading | frames | output | wall (s) | frames/s (wall) | CPU (s) | "
          "frames/CPU-s | peak RSS (MB) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for r in results:
        shape = "×".join(f"{s:,}" for s in r["shape"]) if r["shape"] else "—"
        print(f"| {NAMES[r['kind']].format(files=args.files)} | {r['frames']:,} | {shape} | "
              f"{r['seconds']:.2f} | {r['frames_per_second']:,.0f} | {r['cpu_seconds']:.2f} | "
              f"{r['frames_per_cpu_second']:,.0f} | {r['peak_rss_mb']:,.0f} |")
    memory = [r for r in results if "dataset_mb" in r]
    if memory:
        print("\n| the app's reading | data set (MB) | of it angles (MB) | peak RSS rise (MB) | "
              "rise / data set | rise / angles |")
        print("|---|---:|---:|---:|---:|---:|")
        for r in memory:
            rise = r["rss_above_start_mb"]
            print(f"| {r['kind'].removeprefix('dataset-')} | {r['dataset_mb']:,.0f} | "
                  f"{r['angles_mb']:,.0f} | {rise:,.0f} | {rise / r['dataset_mb']:.2f} | "
                  f"{rise / r['angles_mb']:.1f} |")
    if args.json:
        args.json.write_text(json.dumps({"frames": args.frames, "residues": args.residues,
                                         "files": args.files, "load": load_average_text(),
                                         "results": results}, indent=2))
    by_kind = {r["kind"]: r for r in results}
    cases = {}
    if {"pooled", "per-frame"} <= by_kind.keys():
        # the numbers docs/measured.md shows: the reader's frames per second
        cases["read"] = {
            "frames": args.frames, "residues": args.residues,
            "pooled_frames_per_s": by_kind["pooled"]["frames_per_second"],
            "per_frame_frames_per_s": by_kind["per-frame"]["frames_per_second"],
            "peak_rss_mb": max(by_kind[k]["peak_rss_mb"] for k in ("pooled", "per-frame"))}
    if "dataset-pooled" in by_kind:
        # the app's pooled reading (issue 33): frames per CPU-second, as the machine is shared
        app = by_kind["dataset-pooled"]
        cases["dataset-pooled"] = {
            "frames": args.frames, "residues": args.residues, "files": args.files,
            "cpu_s": app["cpu_seconds"], "frames_per_cpu_s": app["frames_per_cpu_second"],
            "dataset_mb": app["dataset_mb"],
            "rise_per_dataset": app["rss_above_start_mb"] / app["dataset_mb"]}
    if args.record and cases:
        record(args.record, __file__, cases, load_at_start=load_at_start,
               log=make_logger("bench_dihedrals"))


if __name__ == "__main__":
    main()
