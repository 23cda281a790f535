"""Rebuild ``data/sunspots_births.csv.xz`` from the full ``sunspots_births.csv``.

Run from a source checkout (the full CSV is not part of the project; see ``data/README.md``)::

    uv run python -m stpca_gui.datasets._build path/to/sunspots_births.csv

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


def build(source: Path, target: Path = TARGET) -> int:
    """Write the bundled file from ``source``; return the number of data rows.

    The output is deterministic (no timestamps in the xz container), so a rebuild from the
    same CSV gives the same bytes.
    """
    with source.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = set(COLUMNS) - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"{source}: missing column(s) {sorted(missing)}")
        rows = [[row[name] for name in COLUMNS] for row in reader]
    lines = [",".join(COLUMNS)]
    lines.extend(",".join(row) for row in rows)
    parse = {"cycle": int, "theta": float, "phi": float}
    digests = {name: column_digest(np.array([parse[name](row[k]) for row in rows],
                                            dtype=DTYPES[name]))
               for k, name in enumerate(COLUMNS)}
    fingerprint = target.with_name(FINGERPRINT.name)
    fingerprint.write_text(json.dumps({"rows": len(rows), "sha256": digests}, indent=2) + "\n")
    payload = ("\n".join(lines) + "\n").encode("ascii")
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_bytes(lzma.compress(payload, preset=9 | lzma.PRESET_EXTREME))
    tmp.replace(target)
    return len(lines) - 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="the full sunspots_births.csv")
    args = parser.parse_args()
    rows = build(args.source)
    print(f"wrote {TARGET} ({rows} rows, {TARGET.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
