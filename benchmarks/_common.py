"""Helpers shared by the benchmark scripts: table formatting, timing and memory readings.

The scripts run as ``python benchmarks/bench_*.py``, which puts this folder on
``sys.path``; they import this module as ``_common``.
"""

from __future__ import annotations

import gc
import math
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

try:  # POSIX only; the memory columns are left empty elsewhere.
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

REPO_ROOT = Path(__file__).resolve().parents[1]
SUNSPOTS_PATH = REPO_ROOT.parent / "shared" / "data" / "sunspots_births.csv"


def load_average_text() -> str:
    """The 1, 5 and 15 minute load averages as text."""
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except (AttributeError, OSError):  # pragma: no cover - not POSIX
        return "unknown"


def cpu_model() -> str:
    """CPU model name from /proc/cpuinfo, or the platform's processor string."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def make_logger(name: str) -> Callable[[str], None]:
    """A progress logger writing ``[name] message`` to stderr (stdout carries the report)."""

    def log(message: str) -> None:
        print(f"[{name}] {message}", file=sys.stderr, flush=True)

    return log


def fmt(value: float | int | None, spec: str = ".3f") -> str:
    """Format a number for a table cell; ``None`` and NaN become an em dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return format(value, spec)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(lines)


def pass_fail(ok: bool | None) -> str:
    """Table cell of a check (``None``: not applicable)."""
    if ok is None:
        return "—"
    return "PASS" if ok else "**FAIL**"


def peak_rss_mb() -> float | None:
    """Peak resident set size of this process so far (``ru_maxrss``), in MiB."""
    if resource is None:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    return peak / (1024.0 * 1024.0) if sys.platform == "darwin" else peak / 1024.0


def current_rss_mb() -> float | None:
    """Current resident set size from ``/proc/self/statm`` (Linux), in MiB."""
    try:
        resident_pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / (1024.0 * 1024.0)


def timed(func: Callable[[], Any]) -> tuple[float, Any]:
    """Wall time of one call with the garbage collector paused, and its result."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        result = func()
        elapsed = time.perf_counter() - start
    finally:
        gc.enable()
    return elapsed, result
