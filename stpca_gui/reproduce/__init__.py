"""``stpca reproduce``: run the paper's analyses and write a Markdown report beside its numbers.

Nothing here is tuned to a published number: every analysis runs with the library's
defaults (and, where the paper's optimiser matters, also with ``optimizer="paper"``), and
the report marks each of the paper's numbers as agreeing with ours or not, with the reason
(:mod:`.paper` holds the published values and the rule).
"""

from __future__ import annotations

import time
from pathlib import Path

from ..files.output_folder import check_output_folder, output_folder
from .paper import GEOPCA_BOUNDS
from .report import Check, Report
from .rna import rna_section
from .simulations import simulations_section
from .sunspots import (
    curve_diagonal_fit,
    load_sunspots_data,
    paper_cycle_longitudes,
    sunspots_section,
)
from .variance_gap import variance_gap_section

__all__ = ["curve_diagonal_fit", "paper_cycle_longitudes", "reproduce"]


def reproduce(out: Path, *, quick: bool = False, sunspots: Path | None = None,
              overwrite: bool = False) -> Path:
    """Run the analyses and write ``report.md`` (and figures) into ``out``.

    The sunspots analyses use the bundled data set (``stpca_gui.datasets.load_sunspots``)
    unless ``sunspots`` names a CSV file to read instead. ``out`` is an output folder
    written as a whole (:func:`~stpca_gui.files.output_folder.output_folder`): checked
    before the analyses, refused when it holds files stpca-gui did not write unless
    ``overwrite``, never over ``sunspots``; figures of an earlier run not drawn now are
    removed.
    """
    out = Path(out)
    inputs = [("the sunspots table", sunspots)]
    check_output_folder(out, ["report.md"], inputs=inputs, overwrite=overwrite)
    report = Report(out, ["# Scaled torus PCA: the paper's analyses, reproduced", ""])
    started = time.perf_counter()
    # One store of fits for all sections: each data set is fitted once per procedure.
    data = load_sunspots_data(sunspots)
    simulations_section(report, data.fits, list(range(2 if quick else 10)))
    sunspots_section(report, data, quick)
    rna_section(report, quick)
    variance_gap_section(report, data.fits, quick)
    _not_reproduced(report)
    report.add(f"Total time: {time.perf_counter() - started:.1f} s"
               + (" (--quick: fewer data sets and subsamples)." if quick else "."), "")
    report.lines[2:2] = summary_lines(report)
    files = {**report.figures, "report.md": report.text().encode("utf-8")}
    with output_folder(out, files, kind="reproduce", inputs=inputs,
                       overwrite=overwrite) as temporaries:
        for name, tmp in temporaries.items():
            tmp.write_bytes(files[name])
    return out / "report.md"


def _not_reproduced(report: Report) -> None:
    rows = [report.check("Sunspots (§5.1)", f"GeoPCA upper bound, component {k}", "not run",
                         bound.text, "not reproduced: GeoPCA (Sargsyan et al. 2012) is not "
                         "implemented; the paper only bounds its variance")
            for k, bound in enumerate(GEOPCA_BOUNDS, start=1)]
    report.add("## Not reproduced", "")
    report.table(["quantity", "ours", "paper", "verdict"], rows)


def summary_lines(report: Report) -> list[str]:
    """The report's opening summary: how many distinct published values agree with ours by
    at least one procedure, which procedure reproduces each, and every check that does not
    agree, with its reason."""
    values: dict[tuple[str, str], list[Check]] = {}
    for check in report.checks:
        values.setdefault(check.key, []).append(check)
    outcome = {key: _value_outcome(checks) for key, checks in values.items()}
    counts = {kind: sum(1 for o in outcome.values() if o == kind)
              for kind in ("agrees", "differs", "not reproduced")}
    several = sum(1 for checks in values.values() if len(checks) > 1)
    lines = ["## Summary", "",
             f"{len(values)} distinct published values checked ({len(report.checks)} checks: "
             f"{several} values are set against more than one procedure or reading): "
             f"{counts['agrees']} reproduced by at least one, {counts['differs']} by none, "
             f"{counts['not reproduced']} not reproduced (methods not available).", "",
             "### Which procedure reproduces each published value", "",
             "| section | published value | paper | reproduced by |", "|---|---|---|---|"]
    lines += [f"| {section} | {value} | {checks[0].paper} | {_reproduced_by(checks)} |"
              for (section, value), checks in values.items()]
    lines += ["", "### The checks that do not agree", "",
              "| section | quantity | ours | paper | verdict |", "|---|---|---|---|---|"]
    lines += [f"| {c.section} | {c.quantity} | {c.ours} | {c.paper} | {c.verdict} |"
              for c in report.checks if c.kind == "differs"]
    return [*lines, ""]


def _value_outcome(checks: list[Check]) -> str:
    kinds = {check.kind for check in checks}
    if "agrees" in kinds:
        return "agrees"
    return "differs" if "differs" in kinds else "not reproduced"


def _reproduced_by(checks: list[Check]) -> str:
    """The procedures or readings whose check agrees ("yes" for a value checked one way)."""
    agreeing = [check.by or "yes" for check in checks if check.kind == "agrees"]
    if agreeing:
        return ", ".join(agreeing)
    if all(check.kind == "not reproduced" for check in checks):
        return "not run"
    return "**none**"
