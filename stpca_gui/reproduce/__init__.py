"""``stpca reproduce``: run the paper's analyses and write a Markdown report beside its numbers.

Nothing here is tuned to a published number: every analysis runs with the library's
defaults (and, where the paper's optimiser matters, also with ``optimizer="paper"``), and
the report marks each of the paper's numbers as agreeing with ours or not, with the reason
(:mod:`.paper` holds the published values and the rule).
"""

from __future__ import annotations

import time
from pathlib import Path

from ..io import atomic_write_text
from .report import Report
from .simulations import simulations_section
from .sunspots import curve_diagonal_fit, paper_cycle_longitudes, sunspots_section
from .variance_gap import variance_gap_section

__all__ = ["curve_diagonal_fit", "paper_cycle_longitudes", "reproduce"]


def reproduce(out: Path, *, quick: bool = False, sunspots: Path | None = None) -> Path:
    """Run the analyses and write ``report.md`` (and figures) into ``out``.

    The sunspots analyses use the bundled data set (``stpca_gui.datasets.load_sunspots``)
    unless ``sunspots`` names a CSV file to read instead.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = Report(out, ["# Scaled torus PCA: the paper's analyses, reproduced", ""])
    started = time.perf_counter()
    simulations_section(report, [0] if quick else [0, 1, 2])
    sunspots_section(report, sunspots, quick)
    variance_gap_section(report, quick, sunspots)
    report.add(f"Total time: {time.perf_counter() - started:.1f} s.", "")
    target = out / "report.md"
    atomic_write_text(target, report.text())
    return target
