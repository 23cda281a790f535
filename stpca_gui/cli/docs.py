"""The reference part of ``docs/cli.md``, generated from the ``stpca`` parser.

Every command, argument, default and help text of the page comes from
:func:`~stpca_gui.cli.parser.build_parser`, so the page cannot drift from the command line:
``tests/cli/test_cli_docs.py`` fails when the page differs from what the parser gives.
After changing a command or an option, regenerate the page::

    uv run python -m stpca_gui.cli.docs            # rewrites docs/cli.md below its marker
    uv run python -m stpca_gui.cli.docs --check    # exit 1 when the page is out of date

The hand-written part of the page (prose and examples) is everything above :data:`MARKER`;
the generated reference replaces everything below it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .parser import build_parser

#: The line after which ``docs/cli.md`` is generated.
MARKER = ("<!-- Generated from the parser by `python -m stpca_gui.cli.docs`: edit the "
          "commands, not this part. -->")
#: The page, relative to the repository's top folder.
PAGE = Path("docs") / "cli.md"


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands of ``parser`` by name, in the order ``--help`` lists them."""
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def command_help(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each subcommand's one-line help, as ``stpca --help`` shows it."""
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help or "" for choice in action._choices_actions}


def reference(parser: argparse.ArgumentParser | None = None) -> str:
    """The Markdown reference of every command and argument of the ``stpca`` parser."""
    parser = parser or build_parser()
    prog = parser.prog
    lines = ["## Reference", "",
             f"`{prog} [options] COMMAND [arguments]`: {_sentence(parser.description)}", ""]
    lines += _arguments_tables(parser, {}, skip_subcommands=True)
    lines += ["| command | what it does |", "| --- | --- |"]
    helps = command_help(parser)
    lines += [f"| [`{name}`](#{_anchor(f'{prog} {name}')}) | {_cell(helps[name])} |"
              for name in commands(parser)]
    lines.append("")
    shown: dict[tuple[str, ...], str] = {}  # a group's table → the heading it was shown under
    for name, command in commands(parser).items():
        heading = f"{prog} {name}"
        lines += [f"### {heading}", ""]
        if command.description:
            lines += [_cell(command.description), ""]
        lines += _arguments_tables(command, shown, heading)
    return "\n".join(lines).rstrip() + "\n"


def _arguments_tables(parser: argparse.ArgumentParser, shown: dict[tuple[str, ...], str],
                      heading: str = "", *, skip_subcommands: bool = False) -> list[str]:
    """One table per argument group that has arguments (positional, options, …); a group
    shown whole under an earlier heading (the fit settings of ``fit`` and ``demo``) points
    there instead."""
    lines: list[str] = []
    for group in parser._action_groups:
        rows = [_row(parser, action) for action in group._group_actions
                if not isinstance(action, argparse._HelpAction)
                and not (skip_subcommands and isinstance(action, argparse._SubParsersAction))]
        if not rows:
            continue
        key = (group.title or "", *rows)
        if key in shown and len(rows) > 1:
            earlier = shown[key]
            lines += [f"*{group.title}*: as for [`{earlier}`](#{_anchor(earlier)}).", ""]
            continue
        shown.setdefault(key, heading)
        lines += [f"*{group.title}*", "", "| argument | default | description |",
                  "| --- | --- | --- |", *rows, ""]
    return lines


def _row(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    default = _default(action)
    text = _help(parser, action)
    # The settings' help ends with "(default: …)", which the default column shows.
    repeated = f" (default: {default.strip('`')})"
    if default and text.endswith((repeated, repeated + ".")):
        text = text[:text.rindex(repeated)]
    return f"| {_cell(_invocation(action))} | {_cell(default)} | {_cell(text)} |"


def _invocation(action: argparse.Action) -> str:
    """``--flag METAVAR`` (every spelling), or the positional's name, with its choices."""
    if isinstance(action, argparse.BooleanOptionalAction):
        return " / ".join(f"`{flag}`" for flag in action.option_strings)
    if not action.option_strings:
        name = action.metavar or action.dest
        text = f"{name} {{{','.join(map(str, action.choices))}}}" if action.choices else name
        if action.nargs in ("*", "?"):
            text += " (optional)" if action.nargs == "?" else " … (any number)"
        return f"`{text}`"
    if action.nargs == 0:
        value = ""
    elif action.choices is not None:
        value = f" {{{','.join(map(str, action.choices))}}}"
    else:
        value = f" {action.metavar or action.dest.upper()}"
    spelled = ", ".join(f"`{flag}{value}`" for flag in action.option_strings)
    return spelled + (" (repeatable)" if isinstance(action, argparse._AppendAction) else "")


def _default(action: argparse.Action) -> str:
    if isinstance(action, argparse.BooleanOptionalAction):
        return "on" if action.default else "off"
    if action.nargs == 0 and not isinstance(action, argparse._VersionAction):
        return "off"  # a switch: store_true
    if action.required and action.option_strings:
        return "required"
    if action.default in (None, argparse.SUPPRESS, []) or isinstance(
            action, argparse._VersionAction):
        return ""
    return f"`{action.default}`"


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The help text as ``--help`` prints it (its ``%`` formats expanded, as argparse does)."""
    if action.help is None or action.help is argparse.SUPPRESS:
        return ""
    values = {**vars(action), "prog": parser.prog}
    for name in list(values):
        if hasattr(values[name], "__name__"):
            values[name] = values[name].__name__
    if values.get("choices") is not None:
        values["choices"] = ", ".join(map(str, values["choices"]))
    return _sentence(action.help % values)


def _sentence(text: str | None) -> str:
    return " ".join((text or "").split())


def _cell(text: str) -> str:
    """Text for a Markdown table cell (one line, pipes escaped)."""
    return " ".join(text.split()).replace("|", "\\|")


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading such as ``stpca export-script``."""
    return heading.lower().replace(" ", "-")


def page_with_reference(page_text: str, parser: argparse.ArgumentParser | None = None) -> str:
    """``page_text`` with everything after :data:`MARKER` replaced by :func:`reference`.

    Raises
    ------
    ValueError
        When the page has no marker line.
    """
    head, found, _ = page_text.partition(MARKER + "\n")
    if not found:
        raise ValueError(f"the page has no line {MARKER!r} to generate the reference after")
    return head + MARKER + "\n\n" + reference(parser)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m stpca_gui.cli.docs [PAGE] [--check]``."""
    options = argparse.ArgumentParser(
        prog="python -m stpca_gui.cli.docs",
        description="Write the generated reference of docs/cli.md from the stpca parser.")
    options.add_argument("page", nargs="?", type=Path, default=PAGE,
                         help=f"the page to update (default: {PAGE})")
    options.add_argument("--check", action="store_true",
                         help="only check: exit 1 when the page is out of date")
    args = options.parse_args(argv)
    try:
        text = args.page.read_text(encoding="utf-8")
        updated = page_with_reference(text)
    except (OSError, ValueError) as exc:
        print(f"error: {args.page}: {exc}", file=sys.stderr)
        return 1
    if args.check:
        if updated != text:
            print(f"{args.page} is out of date: run python -m stpca_gui.cli.docs",
                  file=sys.stderr)
            return 1
        return 0
    if updated != text:
        from ..files.atomic import atomic_write_text

        atomic_write_text(args.page, updated)
        print(f"wrote {args.page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
