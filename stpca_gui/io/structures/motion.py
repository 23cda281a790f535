"""Frames of the runs written as one trajectory file: a multi-model PDB, a DCD or an XTC.

:func:`write_frames` takes frames by (run, frame) from a
:class:`~stpca_gui.io.structures.frames.RunFrames` and writes the atoms of a selection of
each, in order, with MDAnalysis' writers; the format follows the file's suffix. VMD,
PyMOL and nglview play the file as a movie (a PDB's models are its frames). The file is
written through :func:`~stpca_gui.files.output_folder.output_folder` among the user's
files: never over an input, never over a file stpca-gui did not write unless
``overwrite``, complete or not at all.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...files.output_folder import check_output_folder, output_folder
from .frames import RunFrames
from .selections import quoted_selection, select_atoms
from .settings import StructureError

__all__ = ["TRAJECTORY_FORMATS", "check_trajectory_output", "write_frames"]

#: Suffix → MDAnalysis writer format of the files :func:`write_frames` writes.
TRAJECTORY_FORMATS = {".pdb": "PDB", ".dcd": "DCD", ".xtc": "XTC"}


def _format(path: Path, option: str) -> str:
    try:
        return TRAJECTORY_FORMATS[path.suffix.lower()]
    except KeyError:
        raise StructureError(f"{option} {path}: write a .pdb (one model per frame), .dcd or "
                             ".xtc file") from None


def check_trajectory_output(path: str | Path, *, inputs: Sequence[tuple[str, Any]] = (),
                            overwrite: bool = False, option: str = "pass --overwrite",
                            name_option: str = "--out") -> None:
    """Refuse, before any work, an output :func:`write_frames` would refuse: an unknown
    suffix, an input, a file stpca-gui did not write (unless ``overwrite``)."""
    target = Path(path)
    _format(target, name_option)
    check_output_folder(target.parent, [target.name], inputs=inputs, overwrite=overwrite,
                        whole_folder=False, option=option,
                        roles={target.name: f"the output {target}"})


def write_frames(path: str | Path, source: RunFrames, frames: Sequence[tuple[str, int]], *,
                 atoms: str = "all", where: str = "the data", kind: str = "frames",
                 inputs: Sequence[tuple[str, Any]] = (), overwrite: bool = False,
                 option: str = "pass --overwrite", name_option: str = "--out") -> Path:
    """Write ``frames`` (run label, frame) of ``source``, in order, as one trajectory file.

    Parameters
    ----------
    path : path
        ``.pdb`` (a MODEL per frame), ``.dcd`` or ``.xtc``.
    source : RunFrames
    frames : sequence of (str, int)
    atoms : str
        Selection of the atoms written.
    where : str
        The data, in messages.
    kind : str
        The writer, for the folder's manifest (e.g. ``"motion"``); recorded with the
        file's name, so that writing another file of that kind beside it keeps it.
    inputs, overwrite, option
        As for :func:`~stpca_gui.files.output_folder.output_folder` (the runs' files are
        inputs too).
    name_option : str
        The option naming ``path``, in messages.

    Raises
    ------
    StructureError
        A suffix not written, no frames, an atom selection matching nothing.
    """
    target = Path(path)
    file_format = _format(target, name_option)
    if not frames:
        raise StructureError(f"{where}: no frames to write")
    inputs = [*inputs, *source.inputs()]
    settings = {"inputs": inputs, "overwrite": overwrite, "whole_folder": False,
                "option": option, "roles": {target.name: f"the output {target}"}}
    check_output_folder(target.parent, [target.name], **settings)
    universe = source.goto(*frames[0])
    group = select_atoms(universe, atoms, where)
    if group.n_atoms == 0:
        raise StructureError(f"{where}: the atom selection {quoted_selection(atoms)} matches "
                             "no atoms")
    import MDAnalysis as mda

    with output_folder(target.parent, [target.name], kind=f"{kind} {target.name}",
                       **settings) as tmp:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. missing PDB attributes filled in
            options = {"multiframe": True} if file_format == "PDB" else {}
            with mda.Writer(str(tmp[target.name]), n_atoms=group.n_atoms,
                            format=file_format, **options) as writer:
                for label, frame in frames:
                    source.goto(label, int(frame))
                    writer.write(group)
    return target
