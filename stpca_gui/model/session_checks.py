"""A session's records checked field by field on load, before anything uses them.

A session is a file anyone may edit. :func:`~stpca_gui.model.session_file.load_session`
runs these checks on the PNS1 mode clusters (types, ranges, and counts that agree with
the labels), the structure record (:func:`~stpca_gui.io.structures.record.
check_structure_record`) and the provenance columns, so that the app never shows a raw
error from deep inside a view and ``stpca representatives`` or ``export-script`` never
write files for clusters or frames that are not there. Every problem is a ``ValueError``
naming the field; the loader adds the file.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.circstats.mode_clustering import ModeClustering
from ..core.circstats.silverman import ModeTest
from ..io.structures.record import check_structure_record
from .dataset import Dataset
from .structures import frame_numbers

__all__ = ["check_mode_clusters", "check_session_dataset"]

#: The provenance columns a pooled data set (a row per frame and residue) carries.
POOLED_COLUMNS = ("segid", "resid", "resname")


def _finite_number(value: Any, field: str, *, positive: bool = False,
                   unit_interval: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{field} is not a number ({type(value).__name__})")
    number = float(value)
    if not math.isfinite(number) or (positive and number <= 0) or (
            unit_interval and not 0 <= number <= 1):
        raise ValueError(f"{field} is {number!r}, not a "
                         + ("probability" if unit_interval else
                            "positive number" if positive else "finite number"))
    return number


def _finite_array(value: Any, field: str, shape: tuple[int, ...] | None = None
                  ) -> np.ndarray:
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "fiu":
        raise ValueError(f"{field} is not an array of numbers")
    if shape is not None and value.shape != shape:
        raise ValueError(f"{field} has shape {value.shape}, not {shape}")
    if not np.all(np.isfinite(value)):
        raise ValueError(f"{field} holds values that are not finite")
    return value


def check_mode_clusters(clusters: Any, n: int) -> None:
    """Check the PNS1 mode clusters of a session with ``n`` samples.

    Raises
    ------
    ValueError
        Naming the field: labels that are not whole numbers 0 … K−1 (K the number of
        modes) one per sample, modes and antimodes that disagree in number or are not
        finite, a non-positive bandwidth or period, an unknown rule, a mode test whose
        level or p-values are not probabilities or whose k̂ is not the number of modes.
    """
    if not isinstance(clusters, ModeClustering):
        raise ValueError("the PNS1 mode clusters are not a mode clustering")
    labels = clusters.labels
    if not isinstance(labels, np.ndarray) or labels.dtype.kind not in "iu":
        raise ValueError("the PNS1 mode clusters' labels are not whole numbers")
    if labels.shape != (n,):
        raise ValueError(f"the PNS1 mode clusters' labels have shape {labels.shape}, not "
                         f"({n},)")
    modes = _finite_array(clusters.modes, "the PNS1 mode clusters' modes")
    k = modes.size
    if modes.ndim != 1 or k < 1:
        raise ValueError("the PNS1 mode clusters' modes are not a list of at least one mode")
    _finite_array(clusters.antimodes, "the PNS1 mode clusters' antimodes", (k,))
    if n and (labels.min() < 0 or labels.max() >= k):
        raise ValueError(f"the PNS1 mode clusters' labels run from {int(labels.min())} to "
                         f"{int(labels.max())}, but there are {k} clusters (0 … {k - 1})")
    _finite_number(clusters.bandwidth, "the PNS1 mode clusters' bandwidth", positive=True)
    _finite_number(clusters.period, "the PNS1 mode clusters' period", positive=True)
    grid = _finite_array(clusters.grid, "the PNS1 mode clusters' grid")
    _finite_array(clusters.density, "the PNS1 mode clusters' density", grid.shape)
    if clusters.method not in ("tested", "paper"):
        raise ValueError(f"the PNS1 mode clusters' rule {str(clusters.method)[:40]!r} is "
                         "neither 'tested' nor 'paper'")
    if clusters.classification_rate is not None:
        _finite_number(clusters.classification_rate,
                       "the PNS1 mode clusters' classification rate", unit_interval=True)
    if clusters.stability is not None:
        stability = _finite_array(clusters.stability, "the PNS1 mode clusters' stability",
                                  (k,))
        if np.any((stability < 0) | (stability > 1)):
            raise ValueError("the PNS1 mode clusters' stability is not within [0, 1]")
    if clusters.mode_test is not None:
        _check_mode_test(clusters.mode_test, k)


def _check_mode_test(test: Any, k: int) -> None:
    if not isinstance(test, ModeTest):
        raise ValueError("the PNS1 mode test is not a mode test")
    _finite_number(test.alpha, "the PNS1 mode test's level α", unit_interval=True)
    for name in ("n_modes", "n_boot", "k_max", "n"):
        value = getattr(test, name)
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
            raise ValueError(f"the PNS1 mode test's {name} is not a whole number")
    if test.n_modes != k:
        raise ValueError(f"the PNS1 mode test found {test.n_modes} modes, but the clusters "
                         f"have {k}")
    for name in ("p_values", "raw_p_values"):
        for p in getattr(test, name):
            _finite_number(p, f"the PNS1 mode test's {name}", unit_interval=True)
    if test.uniformity_p_value is not None:
        _finite_number(test.uniformity_p_value, "the PNS1 mode test's uniformity p-value",
                       unit_interval=True)


def check_session_dataset(dataset: Dataset, where: str) -> None:
    """Check a session's structure record and provenance columns.

    Raises
    ------
    ValueError
        (:class:`~stpca_gui.io.structures.settings.StructureError` for the record) naming
        ``where`` and the field: a malformed structure record, a frame column that does
        not hold frame numbers, a pooled data set without its residue columns.
    """
    if dataset.structure is not None:
        check_structure_record(dataset.structure, where)
    provenance = dataset.provenance or {}
    if "frame" in provenance:
        frame_numbers(provenance["frame"], where)
    if "resid" in provenance or (dataset.structure or {}).get("settings", {}).get(
            "layout") == "pooled":
        missing = [name for name in POOLED_COLUMNS if name not in provenance]
        if missing:
            raise ValueError(f"{where}: the data are pooled (a row per frame and residue) but "
                             f"lack the provenance column(s) {', '.join(missing)}")
