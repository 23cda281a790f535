"""The Markdown report of ``stpca reproduce``: lines, tables and figures written as it goes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from numpy.typing import NDArray

from ..io import atomic_path


@dataclass(frozen=True)
class Check:
    """One published number set against ours: where, what, both values and the verdict."""

    section: str
    quantity: str
    ours: str
    paper: str
    verdict: str

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
    """Markdown lines, the figures written so far into ``folder`` and every check of a
    published number (for the summary)."""

    folder: Path
    lines: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)

    def check(self, section: str, quantity: str, ours: str, paper: str, verdict: str
              ) -> list[str]:
        """Record a check and return its table row ``[quantity, ours, paper, verdict]``."""
        self.checks.append(Check(section, quantity, ours, paper, verdict))
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
        path = self.folder / name
        with atomic_path(path) as tmp:
            figure.savefig(tmp, dpi=120, format="png")
        self.lines.extend([f"![{caption}]({name})", "", f"*{caption}*", ""])

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def percent(values: NDArray[np.float64], k: int = 3) -> str:
    """The first ``k`` ratios as percentages, "90.51 / 3.07 / 6.40"."""
    return " / ".join(f"{100 * v:.2f}" for v in np.asarray(values)[:k])
