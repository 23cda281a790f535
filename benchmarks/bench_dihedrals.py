"""Torsions of a long trajectory: frames per second and peak memory of `read_torsions`.

Usage::

    uv run python benchmarks/bench_dihedrals.py [--frames 100000] [--residues 200]
        [--workdir /tmp/stpca-bench-dihedrals] [--keep] [--json OUT]

A 200-residue trajectory is synthesised by repeating the 98 frames of MDAnalysisTests'
adenylate kinase (adk.psf + adk_dims.dcd): the backbone atoms N, CA, C, O of residues
1 … R + 2 (a PDB topology and a DCD of ``--frames`` frames, written to ``--workdir`` and
removed afterwards unless ``--keep``). Then, each in a child process (so that its peak
resident memory is its own):

1. ``read_torsions(..., DihedralSettings("backbone"))``: pooled φ/ψ of R residues in every
   frame (the table is 2·R·frames float64 values, 320 MB at 10⁵ frames);
2. the same per frame (layout ``per-frame``);
3. MDAnalysis' ``Ramachandran`` on the first 5000 frames, for comparison (its frame loop).

Printed as Markdown (progress on stderr): wall time and the child's CPU time (user +
system), since on a shared machine the wall time mostly measures the wait for a core.
Target (issue 23): ≥ 10⁴ frames/s for backbone on 2 cores.
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


def synthesise(workdir: Path, n_frames: int, residues: int) -> tuple[Path, Path]:
    """A PDB topology and a DCD of ``n_frames`` frames (adk's frames repeated)."""
    import MDAnalysis as mda
    from MDAnalysisTests.datafiles import DCD, PSF

    workdir.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        source = mda.Universe(PSF, DCD)
        atoms = source.select_atoms(f"resid 1:{residues + 2} and name N CA C O")
        frames = source.trajectory.timeseries(atomgroup=atoms, order="fac")
        topology, trajectory = workdir / "backbone.pdb", workdir / "backbone.dcd"
        source.trajectory[0]
        atoms.write(str(topology))
        copy = mda.Merge(atoms)
        with mda.Writer(str(trajectory), atoms.n_atoms) as writer:
            for k in range(n_frames):
                copy.atoms.positions = frames[k % len(frames)]
                writer.write(copy.atoms)
                if k % 20000 == 0:
                    print(f"writing frame {k:,}", file=sys.stderr)
    return topology, trajectory


def child(kind: str, topology: str, trajectory: str) -> dict:
    """Run one measurement; returns its figures (this process's peak memory included)."""
    warnings.simplefilter("ignore")
    import MDAnalysis  # noqa: F401 (imported before the clocks start: seconds on a busy machine)

    start, cpu = time.perf_counter(), time.process_time()
    if kind == "ramachandran":
        import MDAnalysis as mda
        from MDAnalysis.analysis.dihedrals import Ramachandran

        universe = mda.Universe(topology, trajectory)
        frames, shape = min(BASELINE_FRAMES, universe.trajectory.n_frames), None
        Ramachandran(universe.select_atoms("protein"), check_protein=False).run(stop=frames)
    else:
        from stpca_gui.io.structures import DihedralSettings, read_torsions

        table = read_torsions(topology, [trajectory], DihedralSettings(layout=kind))
        frames, shape = len(table.frames), list(table.angles.shape)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"kind": kind, "frames": frames, "seconds": elapsed, "shape": shape,
            "frames_per_second": frames / elapsed, "cpu_seconds": cpu,
            "frames_per_cpu_second": frames / cpu,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--residues", type=int, default=200)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/stpca-bench-dihedrals"))
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--child", nargs=3, metavar=("KIND", "TOPOLOGY", "TRAJECTORY"),
                        help=argparse.SUPPRESS)
    add_record_option(parser)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    load_at_start = one_minute_load()
    start = time.perf_counter()
    topology, trajectory = synthesise(args.workdir, args.frames, args.residues)
    written = time.perf_counter() - start
    size_mb = trajectory.stat().st_size / 2**20
    results = []
    try:
        for kind in ("pooled", "per-frame", "ramachandran"):
            print(f"measuring {kind}", file=sys.stderr)
            output = subprocess.run(
                [sys.executable, __file__, "--child", kind, str(topology), str(trajectory)],
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
    print(f"- synthetic DCD: {size_mb:,.0f} MB (backbone N, CA, C, O; written in "
          f"{written:.1f} s)\n")
    print("| reading | frames | output | wall (s) | frames/s (wall) | CPU (s) | "
          "frames/CPU-s | peak RSS (MB) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for r in results:
        name = {"pooled": "read_torsions backbone, pooled",
                "per-frame": "read_torsions backbone, per-frame",
                "ramachandran": "MDAnalysis Ramachandran (reference)"}[r["kind"]]
        shape = "×".join(f"{s:,}" for s in r["shape"]) if r["shape"] else "—"
        print(f"| {name} | {r['frames']:,} | {shape} | {r['seconds']:.2f} | "
              f"{r['frames_per_second']:,.0f} | {r['cpu_seconds']:.2f} | "
              f"{r['frames_per_cpu_second']:,.0f} | {r['peak_rss_mb']:,.0f} |")
    if args.json:
        args.json.write_text(json.dumps({"frames": args.frames, "residues": args.residues,
                                         "load": load_average_text(), "results": results},
                                        indent=2))
    if args.record:  # the numbers docs/measured.md shows: the reader's frames per second
        by_kind = {r["kind"]: r for r in results}
        record(args.record, __file__, {"read": {
            "frames": args.frames, "residues": args.residues,
            "pooled_frames_per_s": by_kind["pooled"]["frames_per_second"],
            "per_frame_frames_per_s": by_kind["per-frame"]["frames_per_second"],
            "peak_rss_mb": max(by_kind[k]["peak_rss_mb"] for k in ("pooled", "per-frame"))}},
            load_at_start=load_at_start, log=make_logger("bench_dihedrals"))


if __name__ == "__main__":
    main()
