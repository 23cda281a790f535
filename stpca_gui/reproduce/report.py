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


@dataclass
class Report:
    """Markdown lines and the figures written so far into ``folder``."""

    folder: Path
    lines: list[str] = field(default_factory=list)

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
