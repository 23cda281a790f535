"""The record of the structure files torsions were read from, and its checks.

A *structure record* says where a data set's rows come from: the topology and trajectory
files (paths and SHA-256 fingerprints), the runs they were read as (label, files, frames
per file, time unit) and the dihedral settings. The app keeps it in ``Dataset.structure``
(so sessions and scripts have it); ``stpca dihedrals --out TABLE.csv`` writes it beside
the table as ``TABLE.csv.structure.json`` (a *sidecar*), which ``stpca fit`` and the import
dialog read with the table, so that a session fitted from the table still knows its files.
Whoever takes frames back out of the files (cluster representatives) first checks the
files against the fingerprints (:func:`check_fingerprints`).

Records are untrusted input (a session or a sidecar may be edited):
:func:`check_structure_record` checks every field's type and size before anything uses it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...files.digest import files_sha256
from .settings import DihedralSettings, StructureError

__all__ = ["SIDECAR_FORMAT", "SIDECAR_SUFFIX", "check_fingerprints", "check_structure_record",
           "read_sidecar", "record_runs", "sidecar_path", "sidecar_text"]

#: The sidecar of a table: ``TABLE.csv`` → ``TABLE.csv.structure.json``.
SIDECAR_SUFFIX = ".structure.json"
SIDECAR_FORMAT = "stpca-structure-record"
SIDECAR_VERSION = 1
#: Bounds on a record read from a file: its size, files, runs and text lengths.
MAX_SIDECAR_BYTES = 16 * 2**20
MAX_RECORD_FILES = 10_000
MAX_TEXT = 4096
_SHA256 = re.compile(r"[0-9a-f]{64}")


def sidecar_path(table: str | Path) -> Path:
    """The sidecar of a table file."""
    path = Path(table)
    return path.with_name(path.name + SIDECAR_SUFFIX)


def sidecar_text(record: Mapping[str, Any], table: str | Path) -> str:
    """The sidecar JSON of a record, for the table ``table``."""
    document = {"format": SIDECAR_FORMAT, "format_version": SIDECAR_VERSION,
                "table": Path(table).name, "record": dict(record)}
    return json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def read_sidecar(table: str | Path) -> dict[str, Any] | None:
    """The structure record beside a table (checked), with ``table`` set to the table's
    path; None when the table has no sidecar.

    Raises
    ------
    StructureError
        A sidecar that cannot be read or is not a valid record (naming it).
    """
    path = sidecar_path(table)
    if not path.is_file():
        return None
    try:
        if path.stat().st_size > MAX_SIDECAR_BYTES:
            raise StructureError(f"{path}: larger than {MAX_SIDECAR_BYTES // 2**20} MB, not "
                                 "a structure record")
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        if isinstance(exc, StructureError):
            raise
        raise StructureError(f"{path}: cannot be read as a structure record "
                             f"({' '.join(str(exc).split())[:200]}); delete it to read the "
                             "table without its structure files") from None
    if not isinstance(document, dict) or document.get("format") != SIDECAR_FORMAT:
        raise StructureError(f"{path}: not a structure record (format "
                             f"{SIDECAR_FORMAT!r} expected)")
    version = document.get("format_version")
    if not isinstance(version, int) or version > SIDECAR_VERSION:
        raise StructureError(f"{path}: a structure record of format version {version!r}, "
                             f"newer than this stpca-gui reads ({SIDECAR_VERSION})")
    record = check_structure_record(document.get("record"), str(path))
    record["table"] = str(table)
    return record


def _text(value: Any, field: str, where: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise StructureError(f"{where}: the structure record's {field} is not a file name "
                             "(text)")
    return value


def _texts(value: Any, field: str, where: str) -> list[str]:
    if not isinstance(value, list) or len(value) > MAX_RECORD_FILES:
        raise StructureError(f"{where}: the structure record's {field} is not a list of at "
                             f"most {MAX_RECORD_FILES:,} file names")
    return [_text(item, field, where) for item in value]


def _counts(value: Any, field: str, where: str) -> list[int | None]:
    if not isinstance(value, list) or len(value) > MAX_RECORD_FILES or not all(
            item is None or (isinstance(item, int) and not isinstance(item, bool)
                             and 0 <= item < 2**53) for item in value):
        raise StructureError(f"{where}: the structure record's {field} is not a list of frame "
                             "counts")
    return list(value)


def _check_run(run: Any, k: int, where: str) -> dict[str, Any]:
    field = f"runs[{k}]"
    if not isinstance(run, dict):
        raise StructureError(f"{where}: the structure record's {field} is not an object")
    files = _texts(run.get("files", []), f"{field}.files", where)
    frames = _counts(run.get("frames"), f"{field}.frames", where)
    if any(count is None for count in frames) or len(frames) != max(1, len(files)):
        raise StructureError(f"{where}: the structure record's {field}.frames does not give "
                             "one frame count per file")
    declared = _counts(run.get("declared_frames", [None] * len(frames)),
                       f"{field}.declared_frames", where)
    time = run.get("time", "ps")
    if time not in ("ps", "frame index"):
        raise StructureError(f"{where}: the structure record's {field}.time is not 'ps' or "
                             "'frame index'")
    notes = _texts(run.get("notes", []), f"{field}.notes", where)
    return {"label": _text(run.get("label"), f"{field}.label", where), "files": files,
            "frames": frames, "declared_frames": declared, "time": time, "notes": notes}


def check_structure_record(record: Any, where: str) -> dict[str, Any]:
    """A structure record checked field by field (types, sizes, one fingerprint per file,
    valid dihedral settings); a new dict.

    Raises
    ------
    StructureError
        Naming ``where`` (the session or sidecar file) and the field.
    """
    if not isinstance(record, dict):
        raise StructureError(f"{where}: the structure record is not an object")
    topology = _text(record.get("topology"), "topology", where)
    trajectories = _texts(record.get("trajectories"), "trajectories", where)
    digests = record.get("sha256")
    if not isinstance(digests, dict) or len(digests) > MAX_RECORD_FILES + 1:
        raise StructureError(f"{where}: the structure record's sha256 is not an object of "
                             "file fingerprints")
    for path in (topology, *trajectories):
        digest = digests.get(path)
        if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            raise StructureError(f"{where}: the structure record has no SHA-256 fingerprint "
                                 f"of {path[:200]}")
    settings = record.get("settings")
    try:
        if not isinstance(settings, dict):
            raise TypeError("not an object")
        DihedralSettings.from_dict(settings).validate()
    except (TypeError, ValueError) as exc:
        raise StructureError(f"{where}: the structure record's dihedral settings are not "
                             f"valid ({' '.join(str(exc).split())[:200]})") from None
    checked = dict(record)
    checked.update(topology=topology, trajectories=trajectories,
                   sha256={path: digests[path] for path in (topology, *trajectories)},
                   settings=dict(settings))
    if "runs" in record:
        runs = record["runs"]
        if not isinstance(runs, list) or len(runs) > MAX_RECORD_FILES:
            raise StructureError(f"{where}: the structure record's runs is not a list")
        checked["runs"] = [_check_run(run, k, where) for k, run in enumerate(runs)]
        labels = [run["label"] for run in checked["runs"]]
        if len(set(labels)) != len(labels):
            raise StructureError(f"{where}: two runs of the structure record have one label")
    for key in ("label_by", "table"):
        if key in record:
            checked[key] = _text(record[key], key, where)
    if "notes" in record:
        checked["notes"] = _texts(record["notes"], "notes", where)
    return checked


def record_runs(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The runs of a checked record; a record written before runs existed read its
    trajectories as one run, frames numbered through (label: their names joined)."""
    if "runs" in record:
        return list(record["runs"])
    from .runs import concatenated_label

    files = list(record["trajectories"])
    label = concatenated_label(files) if files else Path(record["topology"]).name
    return [{"label": label, "files": files, "frames": None, "time": "ps", "notes": []}]


def check_fingerprints(record: Mapping[str, Any], topology: str | Path | None = None,
                       trajectories: Sequence[str | Path] | None = None, *,
                       where: str = "the data") -> tuple[Path, list[Path]]:
    """The structure files to read frames from, checked against a record's fingerprints.

    Parameters
    ----------
    record : mapping
        A checked structure record.
    topology, trajectories : paths, optional
        The files given (in the record's order); default: the recorded paths.
    where : str
        What the record belongs to (the session file), for messages.

    Returns
    -------
    (topology, trajectories) : the files, as paths.

    Raises
    ------
    StructureError
        A missing file, another number of files than recorded, or a file whose SHA-256 is
        not the recorded one (naming it and the recorded file it stands for).
    """
    recorded = [record["topology"], *record["trajectories"]]
    if topology is None:
        given = [Path(p) for p in recorded]
    else:
        given = [Path(topology), *map(Path, trajectories or ())]
    if len(given) != len(recorded):
        names = ", ".join(Path(p).name for p in recorded[1:]) or "none"
        raise StructureError(
            f"{where} were read from a topology and {len(recorded) - 1} trajectory file(s) "
            f"({names}); {len(given) - 1} given")
    for path, original in zip(given, recorded, strict=True):
        if not path.is_file():
            raise StructureError(f"{path}: no such file (the data were read from "
                                 f"{original})")
    # One file under many names (links, aliases) is hashed once.
    for path, original, digest in zip(given, recorded, files_sha256(given), strict=True):
        if digest != record["sha256"][original]:
            raise StructureError(
                f"{path}: not the file {where} were read from ({original} had another "
                "SHA-256); frames taken from it would not be the fitted ones")
    return given[0], given[1:]
