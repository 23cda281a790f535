"""Helpers shared by the benchmark scripts: table formatting, timing and memory readings.

The scripts run as ``python benchmarks/bench_*.py``, which puts this folder on
``sys.path``; they import this module as ``_common``.
"""

from __future__ import annotations

import gc
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

try:  # POSIX only; the memory columns are left empty elsewhere.
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

REPO_ROOT = Path(__file__).resolve().parents[1]
#: Reference files shipped with the tests (R outputs; see tests/data/README.md).
TEST_DATA = REPO_ROOT / "tests" / "data"
#: Where the reports say the sunspots series comes from.
SUNSPOTS_SOURCE = "the bundled data set, `stpca_gui.datasets.load_sunspots()`"
#: The sunspots series of the paper (section 5): solar cycle 23, lagged three times (T³).
SUNSPOTS_CYCLE = 23
SUNSPOTS_LAGS = 3
SUNSPOTS_EXPECTED_ROWS = 5373


def sunspots_series(
    cycle: int = SUNSPOTS_CYCLE, n_lags: int = SUNSPOTS_LAGS
) -> tuple[np.ndarray, int]:
    """Lagged embedding of one solar cycle's longitudes (date order) and its birth count.

    Longitudes are wrapped to [−π, π) by ``lagged_embedding``.
    """
    from stpca_gui.core import lagged_embedding
    from stpca_gui.datasets import load_sunspots

    theta = load_sunspots(cycle=cycle).theta
    return lagged_embedding(theta, n_lags), int(theta.size)


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


def demo_groups(cases: Sequence[Any], demos: Sequence[str], optimizers: Sequence[str]
                ) -> Iterator[tuple[str, str, list[Any]]]:
    """(demo, optimizer, its cases) for each demo × optimizer that has cases, in table
    order; a case has ``demo`` and ``optimizer`` attributes."""
    for demo in demos:
        for optimizer in optimizers:
            group = [c for c in cases if c.demo == demo and c.optimizer == optimizer]
            if group:
                yield demo, optimizer, group


def titled_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]]
                 ) -> list[str]:
    """The lines of a report that show a table under its heading (blank lines between)."""
    return ["", title, "", markdown_table(headers, rows)]


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


# ------------------------------------------------------------------ machine description
THREAD_ENV_VARS: tuple[str, ...] = (
    "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "OMP_WAIT_POLICY", "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS", "NUMBA_THREADING_LAYER", "NUMBA_CACHE_DIR",
)


def blas_info(module: Any) -> str:
    """Name and version of the BLAS a numpy/scipy build links, from ``show_config``."""
    try:
        blas = module.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:  # informational only: any failure means "unknown"
        return "unknown"


def machine_info() -> dict[str, Any]:
    """CPU, thread and version information of the numerical stack.

    numpy, scipy and numba are imported here, not at the top, so that a script whose
    children time their own start-up does not load them through this module.
    """
    import numba
    import numpy as np
    import scipy

    try:
        affinity: int | None = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        affinity = None
    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel region has run yet
        layer = "(not initialised)"
    return {
        "cpu": cpu_model(),
        "os.cpu_count": os.cpu_count(),
        "usable cpus (affinity)": affinity,
        "numba threads": numba.get_num_threads(),
        "numba threading layer": layer,
        "NUMBA_NUM_THREADS": numba.config.NUMBA_NUM_THREADS,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "numba": numba.__version__,
        "BLAS (numpy / scipy)": f"{blas_info(np)} / {blas_info(scipy)}",
        "thread environment": ", ".join(
            f"{name}={os.environ[name]}" for name in THREAD_ENV_VARS if name in os.environ
        ) or "(none set)",
        "load average (1, 5, 15 min)": load_average_text(),
    }


def machine_report(info: dict[str, Any]) -> str:
    """Markdown of the machine section: ``info``, the load now and this process's peak RSS."""
    rows = [[key, str(value)] for key, value in info.items()]
    rows.append(["load average at end", load_average_text()])
    rows.append(["peak RSS of this (parent) process", f"{fmt(peak_rss_mb(), '.1f')} MiB"])
    return "\n".join(["## Machine", "", markdown_table(["item", "value"], rows)])


# ------------------------------------------------------------- child processes and output
def run_child_process(script: str | Path, mode: str, marker: str, timeout_s: float,
              extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``script --child MODE`` in a fresh interpreter and return the result it printed.

    The child hands its result over on one stdout line starting with ``marker``
    (:func:`emit_child_result`); a timeout or a missing line becomes ``{"error": ...}``.
    """
    env = dict(os.environ)
    if extra_env:
        env.update(extra_env)
    command = [sys.executable, str(Path(script).resolve()), "--child", mode]
    try:
        completed = subprocess.run(command, capture_output=True, text=True, env=env,
                                   cwd=REPO_ROOT, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"child {mode!r} timed out after {timeout_s:.0f} s"}
    for line in reversed(completed.stdout.splitlines()):
        if line.startswith(marker):
            return json.loads(line[len(marker):])
    tail = (completed.stderr or completed.stdout).strip().splitlines()[-5:]
    return {"error": f"child {mode!r} exited with {completed.returncode}: " + " / ".join(tail)}


def emit_child_result(marker: str, result: dict[str, Any]) -> None:
    """Hand a child's result to the parent on one marked stdout line."""
    print(marker + json.dumps(result), flush=True)


def write_json(path: Path, payload: dict[str, Any], log: Callable[[str], None]) -> None:
    """Write the benchmark's results as indented JSON (creating the folder)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2) + "\n")
    log(f"JSON written to {path}")


# ------------------------------------------------------------- recorded headline numbers
#: The demos' short names in recorded values (``lbfgs_s_t2``, ``pc1_wn`` …).
DEMO_KEYS = {"clusters-t2": "t2", "clusters-t3": "t3", "wrapped-normal-t2": "wn"}
#: Where ``--record`` writes each benchmark's headline numbers (committed): docs/measured.md
#: is generated from these files by benchmarks/measured.py.
RESULTS_DIR = REPO_ROOT / "benchmarks" / "results"


def add_record_option(parser: Any) -> None:
    """``--record [DIR]`` on an ``argparse`` parser (default DIR: :data:`RESULTS_DIR`)."""
    parser.add_argument(
        "--record", nargs="?", const=RESULTS_DIR, type=Path, metavar="DIR",
        help="write the headline numbers of this run to DIR/<benchmark>.json (default "
             "benchmarks/results/, committed; `python benchmarks/measured.py` then "
             "regenerates docs/measured.md)")


def one_minute_load() -> float:
    """The 1-minute load average (NaN where unknown)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # pragma: no cover - not POSIX
        return float("nan")


def source_commit() -> str:
    """The checkout's short commit, with ``+changes`` when stpca_gui/ or benchmarks/ differ
    from it."""
    def git(*arguments: str) -> str:
        return subprocess.run(["git", *arguments], cwd=REPO_ROOT, capture_output=True,
                              text=True, check=False).stdout.strip()
    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    return commit + ("+changes" if git("status", "--porcelain", "stpca_gui", "benchmarks")
                     else "")


def record(directory: Path, script: str, cases: dict[str, dict[str, Any]], *,
           load_at_start: float, log: Callable[[str], None]) -> Path:
    """Write ``cases`` (case name → headline values) into ``directory/<benchmark>.json``,
    replacing those cases and keeping the file's others, each with the date, commit,
    machine, the 1-minute load average from ``load_at_start`` to now, and the command."""
    benchmark = Path(script).stem
    path = directory / f"{benchmark}.json"
    recorded = json.loads(path.read_text()) if path.is_file() else {}
    loads = [load_at_start, one_minute_load()]
    command = " ".join(["uv run python", f"benchmarks/{Path(script).name}", *sys.argv[1:]])
    envelope = {
        "date": time.strftime("%Y-%m-%d"),
        "commit": source_commit(),
        "machine": f"{cpu_model()}, {os.cpu_count()} threads",
        "load": [round(min(loads), 2), round(max(loads), 2)],
        "command": command,
    }
    merged = dict(recorded.get("cases", {}))
    for case, values in cases.items():
        merged[case] = envelope | {"values": values}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"benchmark": f"benchmarks/{Path(script).name}",
                                "cases": merged}, indent=2, ensure_ascii=False) + "\n")
    log(f"recorded {', '.join(cases)} in {path} (then: python benchmarks/measured.py)")
    return path


def publish(args: Any, script: str, payload: dict[str, Any],
            headline: Callable[[], dict[str, dict[str, Any]]], *, load_at_start: float,
            log: Callable[[str], None]) -> int:
    """A benchmark's last step: ``payload`` to ``--json`` and the cases of ``headline()``
    to ``--record`` (see :func:`record`), each where given; returns the exit status 0."""
    if args.json is not None:
        write_json(args.json, payload, log)
    if args.record:
        record(args.record, script, headline(), load_at_start=load_at_start, log=log)
    return 0



def finish(results: dict[str, Any], json_path: Path | None, log: Callable[[str], None]) -> int:
    """Print the load average at the start and now, write ``results`` (with the load now)
    to ``json_path`` if given, and return the exit status 0."""
    results["load_after"] = load_average_text()
    print(f"\nload average before / after: {results['load_before']} / {results['load_after']}")
    if json_path is not None:
        write_json(json_path, results, log)
    return 0
