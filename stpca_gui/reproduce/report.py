"""The Markdown report of ``stpca reproduce``: lines, tables and figures (kept to be written
with the report, as a whole)."""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from numpy.typing import NDArray

#: The ways one published number is computed here, as they appear in a check's quantity: a
#: number checked by several of them is one published value (:attr:`Check.value`).
PROCEDURE_LABELS = ("converged", "paper's procedure")
READING_SUFFIXES = (", sphunif ties",)


def published_value_and_reading(quantity: str) -> tuple[str, str]:
    """Split a check's quantity into the published value it checks and how ours was
    computed: "r̂ (converged)" → ("r̂", "converged")."""
    for label in PROCEDURE_LABELS:
        marker = f" ({label})"
        if marker in quantity:
            return quantity.replace(marker, ""), label
    for suffix in READING_SUFFIXES:
        if quantity.endswith(suffix):
            return quantity[:-len(suffix)], suffix.lstrip(", ")
    return quantity, ""


@dataclass(frozen=True)
class Check:
    """One published number set against ours: where, what, both values and the verdict.

    Attributes
    ----------
    value : str
        Which published number this is (checks of one number by several procedures or
        readings share it, so the report counts distinct published values).
    by : str
        The procedure or reading of ours ("converged", "paper's procedure", …; "" when the
        number is checked one way only).
    """

    section: str
    quantity: str
    ours: str
    paper: str
    verdict: str
    value: str = ""
    by: str = ""

    def __post_init__(self) -> None:
        if not self.value:
            value, by = published_value_and_reading(self.quantity)
            object.__setattr__(self, "value", value)
            object.__setattr__(self, "by", self.by or by)

    @property
    def key(self) -> tuple[str, str]:
        """The published value's identity across the report: (section, value)."""
        return self.section, self.value

    @property
    def kind(self) -> str:
        """"agrees", "differs" or "not reproduced" (a number we could not compute)."""
        text = self.verdict.lstrip("*").lower()
        if text.startswith("agrees"):
            return "agrees"
        if text.startswith("not reproduced"):
            return "not reproduced"
        return "differs"


@dataclass
class Report:
    """Markdown lines, the figures drawn so far (PNG bytes by name, written with the
    report into ``folder`` as a whole) and every check of a published number (for the
    summary)."""

    folder: Path
    lines: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    figures: dict[str, bytes] = field(default_factory=dict)

    def check(self, section: str, quantity: str, ours: str, paper: str, verdict: str, *,
              value: str = "", by: str = "") -> list[str]:
        """Record a check and return its table row ``[quantity, ours, paper, verdict]``.

        ``value`` names the published number when ``quantity`` does not (by default the
        quantity without its procedure, see :func:`published_value_and_reading`)."""
        self.checks.append(Check(section, quantity, ours, paper, verdict, value, by))
        return [quantity, ours, paper, verdict]

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def table(self, header: list[str], rows: list[list[str]]) -> None:
        self.lines.append("| " + " | ".join(header) + " |")
        self.lines.append("|" + "---|" * len(header))
        self.lines.extend("| " + " | ".join(row) + " |" for row in rows)
        self.lines.append("")

    def figure(self, name: str, draw: Callable[[Figure], None], caption: str,
               size: tuple[float, float] = (6.4, 4.0)) -> None:
        figure = Figure(figsize=size, layout="constrained")
        FigureCanvasAgg(figure)
        draw(figure)
        picture = io.BytesIO()
        figure.savefig(picture, dpi=120, format="png")
        self.figures[name] = picture.getvalue()
        self.lines.extend([f"![{caption}]({name})", "", f"*{caption}*", ""])

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def percent(values: NDArray[np.float64], k: int = 3) -> str:
    """The first ``k`` ratios as percentages, "90.51 / 3.07 / 6.40"."""
    return " / ".join(f"{100 * v:.2f}" for v in np.asarray(values)[:k])


def fit_rows(fits: Mapping[str, Any]) -> list[list[str]]:
    """The rows every paper-data table shows of its ST-PCA fits (one column per fit, then
    an empty "paper" and "verdict" cell): stress, SMDS iterations, sphere and torus % per
    PC."""
    return [
        [name] + [value(f) for f in fits.values()] + ["—", ""]
        for name, value in (
            ("stress", lambda f: f"{f.stress_:.4f}"),
            ("SMDS iterations", lambda f: str(f.smds_.n_iter_)),
            ("sphere % per PC", lambda f: percent(f.explained_variance_ratio_)),
            ("torus % per PC", lambda f: percent(f.torus_explained_variance_ratio_)),
        )
    ]
