"""The command-line sessions a documentation page quotes, run on the current code.

    uv run python benchmarks/transcripts.py                 # docs/structures.md, as printed now
    uv run python benchmarks/transcripts.py --check         # exit 1 where the page differs
    uv run python benchmarks/transcripts.py docs/OTHER.md --only ploop

A fenced block of the page with ``$ `` lines is a shell session. ``$ stpca …`` runs
``stpca_gui.cli.main`` in a temporary folder shared by the page's commands (``$D`` is
MDAnalysisTests' data folder and ``$A`` the folder of the package's AdK P-loop demo files,
as the page defines them); ``$ head -N FILE`` reads a file written there. The lines under
a command are what the page says it prints: each must be printed, in order (the page may
leave lines out); ``…`` stands for any text, and a number may differ by one unit of its
last printed digit (another CPU). tests/docs/test_doc_transcripts.py runs
docs/structures.md's P-loop and two-run sessions this way.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PAGE = REPO_ROOT / "docs" / "structures.md"
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.DOTALL | re.MULTILINE)
_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")


@dataclass
class Command:
    """One ``$`` line of a page and the lines the page shows under it."""

    line: int
    text: str
    expected: list[str]


def commands(page: str) -> Iterator[Command]:
    """The page's commands in order."""
    for block in _FENCE.finditer(page):
        first = page.count("\n", 0, block.start(1)) + 1
        current: Command | None = None
        for offset, line in enumerate(block.group(1).splitlines()):
            if line.startswith("$ "):
                if current is not None:
                    yield current
                current = Command(first + offset, line[2:].strip(), [])
            elif current is not None:
                current.expected.append(line.rstrip())
        if current is not None:
            yield current


def data_folder() -> str:
    """``$D`` of docs/structures.md: where MDAnalysisTests keeps its files."""
    import MDAnalysisTests.datafiles as datafiles

    return os.path.dirname(datafiles.PSF)


def demo_folder() -> str:
    """``$A`` of docs/structures.md: the folder of the bundled AdK P-loop demo."""
    from stpca_gui.datasets._adk_loop import adk_loop_files

    return str(adk_loop_files()[0].parent)


#: Files the page's sessions start from that it says how to make rather than ships: the
#: two halves of MDAnalysisTests' AdK trajectory ("written with MDAnalysis, times
#: continued"), written into the session's folder by the tests' own writer.
MADE_FILES = ("part1.dcd", "part2.dcd")


def _make_files(words: list[str], folder: Path) -> None:
    if any(name in words for name in MADE_FILES) and not (folder / MADE_FILES[0]).exists():
        sys.path.insert(0, str(REPO_ROOT / "tests"))
        try:
            from structure_files import write_halves
        finally:
            sys.path.remove(str(REPO_ROOT / "tests"))
        write_halves(folder, MADE_FILES)


def run(command: str, folder: Path, refusal: bool = False) -> list[str]:
    """What ``command`` prints (stdout and stderr, in order), run in ``folder``; a command
    that fails is an error unless the page shows it as a ``refusal``."""
    words = shlex.split(command.replace("$D", data_folder()).replace("$A", demo_folder()))
    _make_files(words, folder)
    if words[0] == "head":
        count = int(words[1].lstrip("-"))
        return (folder / words[2]).read_text().splitlines()[:count]
    if words[0] != "stpca":
        raise ValueError(f"cannot run {command!r} (only stpca and head)")
    from stpca_gui.cli import main

    printed = io.StringIO()
    here = Path.cwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            code = main(words[1:])
    finally:
        os.chdir(here)
    if code and not refusal:
        raise RuntimeError(f"{command!r} exited with {code}:\n{printed.getvalue()}")
    return printed.getvalue().splitlines()


def matches(expected: str, actual: str) -> bool:
    """Whether a printed line is the one the page shows: ``…`` stands for any text, and
    each number may differ by one unit of its last digit as shown."""
    pattern, shown = [], []
    for token in re.split(f"(…|{_NUMBER.pattern})", expected):
        if token == "…":
            pattern.append(".*?")
        elif token and _NUMBER.fullmatch(token):
            pattern.append(f"({_NUMBER.pattern})")
            shown.append(token)
        else:
            pattern.append(re.escape(token))
    found = re.fullmatch("".join(pattern), actual)
    if found is None:
        return False
    for number, printed in zip(shown, found.groups(), strict=True):
        if number == printed:
            continue
        if "." not in number or "e" in number.lower():
            return False
        unit = 10.0 ** -len(number.split(".")[1])
        if abs(float(number.replace(",", "")) - float(printed.replace(",", ""))) > 1.01 * unit:
            return False
    return True


def differences(command: Command, printed: list[str]) -> list[str]:
    """The page's lines under ``command`` that it did not print (in order)."""
    missing, position = [], 0
    for expected in command.expected:
        found = next((k for k in range(position, len(printed))
                      if matches(expected, printed[k])), None)
        if found is None:
            missing.append(f"line {command.line}: `{command.text}` did not print {expected!r}")
        else:
            position = found + 1
    return missing


def check(page: Path, keep: Callable[[Command], bool] = lambda command: True,
          show: Callable[[Command, list[str]], None] | None = None) -> list[str]:
    """Run the page's commands that ``keep`` accepts, in order, in one temporary folder;
    return the lines the page shows that they did not print."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="stpca-transcript-") as folder:
        for command in commands(page.read_text(encoding="utf-8")):
            if not keep(command):
                continue
            refusal = any(line.startswith("stpca: error:") for line in command.expected)
            printed = run(command.text, Path(folder), refusal)
            if show is not None:
                show(command, printed)
            problems += differences(command, printed)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", nargs="?", type=Path, default=DEFAULT_PAGE)
    parser.add_argument("--only", default="",
                        help="run only the commands with this text (and no others)")
    parser.add_argument("--check", action="store_true",
                        help="print only what the page shows and the commands did not print")

    def show(command: Command, printed: list[str]) -> None:
        print(f"$ {command.text}", *printed, sep="\n")

    args = parser.parse_args(argv)
    problems = check(args.page, lambda command: args.only in command.text,
                     None if args.check else show)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
