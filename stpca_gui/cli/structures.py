"""``stpca dihedrals``, ``stpca representatives`` and ``stpca motion``: torsion tables from
structures and trajectories, the frames of a session's clusters and the motion along a
component (with MDAnalysis, imported when a structure is read)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from ..core import Interval
from ..model.motion import DEFAULT_MOTION_FRAMES
from .arguments import add_overwrite, add_structure_files, bounded_number
from .common import EXIT_OK, check_output_file

#: More frames than any trajectory has; frame options beyond it are refused when parsed.
MAX_FRAMES = 10**12
#: Most frames ``stpca motion --frames`` asks for.
MAX_MOTION_POINTS = 10_000


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``dihedrals``, ``representatives`` and ``motion`` to the ``stpca`` parser."""
    from ..io.structures import LAYOUTS, SET_NAMES

    dihedrals = commands.add_parser(
        "dihedrals", help="torsion angles of a PDB/mmCIF file or an MD trajectory, as a table",
        description="Read torsion angles (degrees) of a structure or trajectory with "
                    "MDAnalysis into a CSV table that `stpca fit "
                    "TABLE --degrees` reads as it is; its provenance columns (trajectory, "
                    "frame, time; pooled also segid, resid, resname) are never read as "
                    "angles and are carried into scores.csv. Several trajectory files are "
                    "runs: the trajectory column names each row's file, frame counts from 0 "
                    "in each, time is in ps (the frame index for files without time). The "
                    "structure files' fingerprints are written beside the table, "
                    "TABLE.structure.json, for sessions fitted from it.")
    add_structure_files(dihedrals)
    dihedrals.add_argument("--set", dest="dihedral_set", default="backbone", choices=SET_NAMES,
                           help="the torsions: backbone φ/ψ, side-chain chi (χ1/χ2; more with "
                                "--angles), rna-backbone α–ζ and χ, rna-pseudo η/θ, or custom "
                                "(--torsion) (default: backbone)")
    dihedrals.add_argument("--select", default="all",
                           help="residues, in MDAnalysis' selection language (default: all)")
    dihedrals.add_argument("--layout", default="pooled", choices=LAYOUTS,
                           help="pooled: a row per frame and residue; per-frame: a row per "
                                "frame, a column per torsion (default: pooled)")
    dihedrals.add_argument("--angles", default=None,
                           help="comma-separated torsions of the set, e.g. chi1,chi2,chi3")
    dihedrals.add_argument("--omega", action="store_true", help="backbone: also ω")
    dihedrals.add_argument("--torsion", action="append", default=[], metavar="NAME=S1;S2;S3;S4",
                           help="a user-defined torsion: four selections of one atom each "
                                "(repeatable; implies --set custom --layout per-frame)")
    frame = bounded_number(Interval(int, 0, MAX_FRAMES))
    dihedrals.add_argument("--start", type=frame, default=None, help="first frame (0-based)")
    dihedrals.add_argument("--stop", type=frame, default=None, help="stop before this frame")
    dihedrals.add_argument("--stride", type=bounded_number(Interval(int, 1, MAX_FRAMES)),
                           default=1, help="every N-th frame")
    dihedrals.add_argument("--concatenate", action="store_true",
                           help="read the trajectory files as one run, one after the other "
                                "(frames numbered through; --start/--stop/--stride over the "
                                "whole); by default each file is a run and they apply to each")
    dihedrals.add_argument("--out", type=Path, required=True, help="the table to write (CSV)")
    dihedrals.set_defaults(func=run_dihedrals,
                           memory_hint="read fewer frames (--start, --stop, --stride) or fewer "
                                       "residues (--select)")

    representatives = commands.add_parser(
        "representatives", help="the frames or residues of a session's clusters",
        description="For a session fitted on torsions of a trajectory: per-frame data give "
                    "one PDB file per PNS1 mode cluster (its medoid frame on the torus, "
                    "taken from its run's file) and clusters.csv (trajectory, time, frame, "
                    "cluster, distance to the medoid); pooled data give residue_clusters.csv "
                    "(how often each residue visits each cluster). The files must be those "
                    "the data were read from, in the same order: they are checked against "
                    "the SHA-256 fingerprints the session records.")
    representatives.add_argument("session", type=Path, help="a session file (e.g. work.stpca)")
    add_structure_files(representatives)
    representatives.add_argument("--atoms", default="all",
                                 help="atoms written to the PDB files (default: all)")
    representatives.add_argument("--out", type=Path, required=True,
                                 help="output folder, written as a whole (files of an "
                                      "earlier run removed; a folder holding other files is "
                                      "refused)")
    add_overwrite(representatives)
    representatives.set_defaults(func=run_representatives,
                                 memory_hint="write fewer atoms (--atoms)")

    motion = commands.add_parser(
        "motion", help="the motion along a component, as a trajectory of real frames",
        description="For a session fitted on torsions of a trajectory, one row per frame: "
                    "the frames nearest on the torus to evenly spaced points of the "
                    "principal curve (component 1) or of a component's range of scores "
                    "(K > 1, the other scores 0), in order, each frame once, written as a "
                    "multi-model PDB, or a DCD or XTC by the suffix of --out: VMD, PyMOL "
                    "or nglview play it as a movie. The files must be those the data were "
                    "read from (checked against the session's SHA-256 fingerprints).")
    motion.add_argument("session", type=Path, help="a session file (e.g. work.stpca)")
    add_structure_files(motion)
    motion.add_argument("--component", type=int, default=1,
                        metavar="K", help="the component, 1…d (default: 1, the principal "
                                          "curve)")
    motion.add_argument("--frames", type=bounded_number(Interval(int, 2, MAX_MOTION_POINTS)),
                        default=DEFAULT_MOTION_FRAMES, metavar="N",
                        help="frames of the motion, each written once: points are spaced "
                             "more densely until at least N distinct frames are nearest to "
                             "them, or as many as the data allow (default: "
                             f"{DEFAULT_MOTION_FRAMES})")
    motion.add_argument("--atoms", default="all",
                        help="atoms written (default: all)")
    motion.add_argument("--out", type=Path, required=True,
                        help="the file to write: .pdb (a model per frame), .dcd or .xtc")
    add_overwrite(motion)
    motion.set_defaults(func=run_motion, memory_hint="write fewer atoms (--atoms)")


def run_dihedrals(args: argparse.Namespace) -> int:
    """``stpca dihedrals``."""
    from ..files.clash import check_outputs
    from ..io.structures import read_torsions, sidecar_path

    settings = _dihedral_settings(args)
    sidecar = sidecar_path(args.out)
    check_outputs([("the table", args.out), ("the table's structure record", sidecar)],
                  [("the topology", args.topology),
                   *(("a trajectory", path) for path in args.trajectories)])
    check_output_file(args.out)
    progress = _FrameProgress()
    try:
        table = read_torsions(args.topology, args.trajectories, settings, callback=progress)
    finally:
        progress.close()
    written = table.write_csv(args.out)
    if table.missing:
        shown = ", ".join(table.missing[:5]) + (" …" if len(table.missing) > 5 else "")
        print(f"left out {len(table.missing)} undefined torsion(s): {shown}", file=sys.stderr)
    for note in table.notes:
        print(f"warning: {note}", file=sys.stderr)
    print(f"{table.describe()} in {time.perf_counter() - progress.start:.1f} s; "
          f"wrote {' and '.join(map(str, written))}")
    return EXIT_OK


def run_representatives(args: argparse.Namespace) -> int:
    """``stpca representatives``."""
    from ..model.structures import export_representatives

    session = _fitted_session(args.session)
    clusters = session.result.mode_clusters.labels
    # With fingerprints, files other than the recorded ones are refused (nothing written).
    written = export_representatives(session.dataset, clusters, args.out, args.topology,
                                     args.trajectories, atoms=args.atoms,
                                     where=str(args.session),
                                     inputs=[("the session", args.session)],
                                     overwrite=args.overwrite)
    several = len(set(written.medoid_runs.values())) > 1
    for cluster, frame in written.medoid_frames.items():
        run = f" of {written.medoid_runs[cluster]}" if several else ""
        print(f"cluster {cluster}: medoid frame {frame}{run}")
    print(f"wrote {', '.join(str(p) for p in written.files)}")
    return EXIT_OK


def _fitted_session(path: Path):
    """A session with a fit, or a ValueError naming the file."""
    from ..model.session_file import load_session

    session = load_session(path)
    if session.result is None:
        raise ValueError(f"{path}: the session holds no fit")
    if session.dataset.structure is None:
        print(f"warning: {path} records no fingerprints of its structure files (a "
              "table written before stpca dihedrals wrote them); the files given cannot be "
              "checked against the fitted ones", file=sys.stderr)
    return session


def run_motion(args: argparse.Namespace) -> int:
    """``stpca motion``."""
    from ..model.structures import export_motion

    session = _fitted_session(args.session)
    motion = export_motion(session.dataset, session.result.model, args.component, args.out,
                           args.topology, args.trajectories, n_frames=args.frames,
                           atoms=args.atoms, where=str(args.session),
                           inputs=[("the session", args.session)], overwrite=args.overwrite)
    print(f"PNS{motion.component}: {len(motion.rows)} frames nearest to {motion.points} "
          f"points {'of the principal curve' if motion.component == 1 else 'of its range'}"
          f", torus distance {np.degrees(motion.distances.min()):.1f}–"
          f"{np.degrees(motion.distances.max()):.1f}°")
    print(f"wrote {args.out}")
    return EXIT_OK


def _dihedral_settings(args: argparse.Namespace):
    from ..io.structures import CUSTOM_SET, DihedralSettings

    custom = []
    for text in args.torsion:
        name, _, selections = text.partition("=")
        if not name.strip() or not selections:
            raise ValueError(f"--torsion {text!r}: write NAME=SEL1;SEL2;SEL3;SEL4")
        custom.append((name.strip(), tuple(s.strip() for s in selections.split(";"))))
    angles = tuple(a.strip() for a in args.angles.split(",")) if args.angles else None
    return DihedralSettings(
        dihedral_set=CUSTOM_SET if custom else args.dihedral_set, select=args.select,
        layout="per-frame" if custom else args.layout, start=args.start, stop=args.stop,
        stride=args.stride, angles=angles, omega=args.omega, custom=tuple(custom),
        concatenate=args.concatenate)


class _FrameProgress:
    """A progress bar on stderr for long trajectories (from the second block on)."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.shown = False

    def __call__(self, event) -> bool:
        if event.fraction < 1.0 or self.shown:
            self.shown = True
            filled = round(30 * event.fraction)
            print(f"\rreading [{'#' * filled}{'.' * (30 - filled)}] {100 * event.fraction:3.0f}%"
                  f"  {event.message}", end="", file=sys.stderr, flush=True)
        return False

    def close(self) -> None:
        if self.shown:
            print(file=sys.stderr)
