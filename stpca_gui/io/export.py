"""Writing ST-PCA results: CSV tables and a JSON summary, atomically."""

from __future__ import annotations

import io
import json
import os
import platform
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import __version__
from ..core.stpca import ScaledTorusPCA


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one.

    The text goes to a temporary file in the same folder, which then replaces the target.

    Raises
    ------
    OSError
        With a message naming the path when the folder is missing or not writable.
    """
    target = Path(path)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                        dir=target.parent)
    except OSError as exc:
        raise OSError(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def _csv_text(header: Sequence[str], columns: Sequence[NDArray[Any]]) -> str:
    buffer = io.StringIO()
    buffer.write(",".join(header) + "\n")
    for row in zip(*(np.asarray(c).tolist() for c in columns), strict=True):
        buffer.write(",".join(repr(v) if isinstance(v, float) else str(v) for v in row) + "\n")
    return buffer.getvalue()


def result_tables(
    model: ScaledTorusPCA,
    column_names: Sequence[str],
    row_ids: NDArray[np.int64] | None = None,
) -> dict[str, str]:
    """CSV texts of the scores, embedding and principal curve of a fitted model.

    Parameters
    ----------
    model : ScaledTorusPCA
        A fitted model.
    column_names : sequence of str
        Names of the angle columns (for the curve table).
    row_ids : array of int, optional
        Identifier of each sample (e.g. its line in the input file); default 1..n.
    """
    n, d = model.scores_.shape
    ids = np.arange(1, n + 1) if row_ids is None else np.asarray(row_ids)
    scores = _csv_text(["row", *[f"PNS{k + 1}" for k in range(d)]],
                       [ids, *model.scores_.T])
    embedding = _csv_text(["row", *[f"y{k + 1}" for k in range(d + 1)]],
                          [ids, *model.embedding_.T])
    curve = model.principal_curve_
    curve_text = _csv_text(
        ["pns1", *column_names, "break_after", "stress"],
        [curve.parameter, *curve.angles.T, curve.breaks.astype(np.int64), curve.stress],
    )
    return {"scores.csv": scores, "embedding.csv": embedding, "principal_curve.csv": curve_text}


def _versions() -> dict[str, str]:
    import numba
    import scipy

    return {"stpca-gui": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "scipy": scipy.__version__, "numba": numba.__version__}


def summary_dict(model: ScaledTorusPCA, **extra: Any) -> dict[str, Any]:
    """JSON-ready summary of a fitted model (numbers, settings, timings, versions)."""
    pns = model.pns_
    smds = model.smds_
    n, d = model.scores_.shape
    summary: dict[str, Any] = {
        "n_samples": int(n),
        "n_angles": int(d),
        "radius": model.radius_,
        "initial_radius": smds.initial_radius_,
        "stress": model.stress_,
        "initial_stress": smds.initial_stress_,
        "smds_iterations": smds.n_iter_,
        "smds_converged": smds.converged_,
        "optimizer": model.optimizer,
        "pns_mode": model.pns_mode,
        "sphere_types": list(pns.sphere_types_),
        "sphere_radii": pns.radii_.tolist(),
        "p_values": [[None if np.isnan(p) else float(p) for p in row] for row in pns.p_values_],
        "explained_variance_ratio": model.explained_variance_ratio_.tolist(),
        "torus_explained_variance_ratio": [
            None if np.isnan(v) else float(v) for v in model.torus_explained_variance_ratio_],
        "principal_curve_points": len(model.principal_curve_.angles),
        "principal_curve_breaks": int(model.principal_curve_.breaks.sum()),
        "timings_seconds": dict(model.timings_),
        "versions": _versions(),
    }
    summary.update(extra)
    return summary


def write_results(
    model: ScaledTorusPCA,
    out_dir: str | Path,
    column_names: Sequence[str],
    row_ids: NDArray[np.int64] | None = None,
    **summary_extra: Any,
) -> list[Path]:
    """Write scores.csv, embedding.csv, principal_curve.csv and summary.json into a folder.

    The folder is created if needed; each file is written atomically.
    """
    folder = Path(out_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(f"cannot create output folder {folder}: {exc.strerror or exc}") from None
    written = []
    for name, text in result_tables(model, column_names, row_ids).items():
        atomic_write_text(folder / name, text)
        written.append(folder / name)
    summary = summary_dict(model, **summary_extra)
    atomic_write_text(folder / "summary.json", json.dumps(summary, indent=2) + "\n")
    written.append(folder / "summary.json")
    return written
