"""Rebuild ``data/sunspots_births.csv.xz`` and ``data/small_rna.csv.xz`` from their tables.

Run from a source checkout (the full CSVs are not part of the project; see ``data/README.md``)::

    uv run python -m stpca_gui.datasets._build path/to/sunspots_births.csv
    uv run python -m stpca_gui.datasets._build --small-rna path/to/small_rna.csv

Only the columns the package reads are kept, and their text is copied unchanged, so parsing
the bundled file gives the same float64 values, bit for bit, as parsing the original.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import lzma
from pathlib import Path

import numpy as np

from ._small_rna import ANGLE_COLUMNS

#: Columns kept, in this order.
COLUMNS = ("cycle", "theta", "phi")
TARGET = Path(__file__).resolve().parent / "data" / "sunspots_births.csv.xz"
#: SHA-256 of each column as parsed from the source CSV (int64 / float64 bytes), so that a
#: checkout without the source can still check that the bundle gives the same numbers.
FINGERPRINT = TARGET.with_name("sunspots_births.sha256.json")
DTYPES = {"cycle": np.int64, "theta": np.float64, "phi": np.float64}


def column_digest(values: np.ndarray) -> str:
    """SHA-256 of a column's bytes (C order, native little-endian)."""
    return hashlib.sha256(np.ascontiguousarray(values).astype("<" + values.dtype.str[1:])
                          .tobytes()).hexdigest()


#: The small RNA table: all its columns are kept (nine angles in degrees, then the cluster).
SMALL_RNA_COLUMNS = (*ANGLE_COLUMNS, "cluster")
SMALL_RNA_TARGET = TARGET.with_name("small_rna.csv.xz")
SMALL_RNA_FINGERPRINT = TARGET.with_name("small_rna.sha256.json")


def _read_columns(source: Path, columns: tuple[str, ...]) -> list[list[str]]:
    with source.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = set(columns) - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"{source}: missing column(s) {sorted(missing)}")
        return [[row[name] for name in columns] for row in reader]


def _write(rows: list[list[str]], columns: tuple[str, ...], digests: dict[str, str],
           target: Path, fingerprint_name: str) -> int:
    """Write ``rows`` as xz-compressed CSV text and the digests beside; return the rows.

    The output is deterministic (no timestamps in the xz container), so a rebuild from the
    same CSV gives the same bytes.
    """
    lines = [",".join(columns)]
    lines.extend(",".join(row) for row in rows)
    fingerprint = target.with_name(fingerprint_name)
    fingerprint.write_text(json.dumps({"rows": len(rows), "sha256": digests}, indent=2) + "\n")
    payload = ("\n".join(lines) + "\n").encode("ascii")
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_bytes(lzma.compress(payload, preset=9 | lzma.PRESET_EXTREME))
    tmp.replace(target)
    return len(rows)


def build(source: Path, target: Path = TARGET) -> int:
    """Write the bundled sunspots file from ``source``; return the number of data rows."""
    rows = _read_columns(source, COLUMNS)
    parse = {"cycle": int, "theta": float, "phi": float}
    digests = {name: column_digest(np.array([parse[name](row[k]) for row in rows],
                                            dtype=DTYPES[name]))
               for k, name in enumerate(COLUMNS)}
    return _write(rows, COLUMNS, digests, target, FINGERPRINT.name)


def small_rna_digests(degrees: np.ndarray, cluster: np.ndarray) -> dict[str, str]:
    """SHA-256 of each angle column (float64 degrees as parsed) and of the clusters' text."""
    digests = {name: column_digest(np.ascontiguousarray(degrees[:, k], dtype=np.float64))
               for k, name in enumerate(ANGLE_COLUMNS)}
    digests["cluster"] = hashlib.sha256("\n".join(cluster.tolist()).encode("ascii")).hexdigest()
    return digests


def build_small_rna(source: Path, target: Path = SMALL_RNA_TARGET) -> int:
    """Write the bundled small RNA file from ``source``; return the number of data rows."""
    rows = _read_columns(source, SMALL_RNA_COLUMNS)
    degrees = np.array([[float(value) for value in row[:-1]] for row in rows])
    cluster = np.array([row[-1] for row in rows])
    return _write(rows, SMALL_RNA_COLUMNS, small_rna_digests(degrees, cluster), target,
                  SMALL_RNA_FINGERPRINT.name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path,
                        help="the full sunspots_births.csv (or small_rna.csv with --small-rna)")
    parser.add_argument("--small-rna", action="store_true",
                        help="build the small RNA data set from small_rna.csv")
    args = parser.parse_args()
    target = SMALL_RNA_TARGET if args.small_rna else TARGET
    rows = (build_small_rna if args.small_rna else build)(args.source)
    print(f"wrote {target} ({rows} rows, {target.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
