"""docs/cli.md cannot drift from the command line (issue 30, item 8): its reference part is
generated from the parser (``python -m stpca_gui.cli.docs``) and must be what the parser
gives now; the cli package's docstring names every command."""

from __future__ import annotations

import argparse
import re

import pytest
from project_paths import REPO

import stpca_gui.cli
from stpca_gui.cli import build_parser
from stpca_gui.cli.docs import MARKER, commands, main, page_with_reference, reference

PAGE = REPO / "docs" / "cli.md"


def test_the_page_is_what_the_parser_gives():
    text = PAGE.read_text(encoding="utf-8")
    assert text == page_with_reference(text), (
        "docs/cli.md is out of date: run `uv run python -m stpca_gui.cli.docs`")


def _every_option(parser: argparse.ArgumentParser):
    for name, command in commands(parser).items():
        for action in command._actions:
            if not isinstance(action, argparse._HelpAction):
                yield name, action


def test_the_reference_shows_every_command_argument_default_and_help():
    parser = build_parser()
    text = reference(parser)
    sections = dict(zip(re.findall(r"^### stpca (\S+)$", text, re.M),
                        re.split(r"^### stpca \S+$", text, flags=re.M)[1:], strict=True))
    assert list(sections) == list(commands(parser)) == [
        "fit", "demo", "demos", "info", "transform", "export-script", "plot", "dihedrals",
        "representatives", "motion", "reproduce"]
    for name, action in _every_option(parser):
        section = sections[name]
        if "as for [`stpca fit`]" in section and name in ("demo", "transform"):
            section += sections["fit"]  # shared groups are shown once, under fit
        if "as for [`stpca representatives`]" in section and name == "motion":
            section += sections["representatives"]  # its session and structure files
        for flag in action.option_strings or [action.metavar or action.dest]:
            assert f"`{flag}" in section, (name, flag)
        if action.help and action.option_strings:
            words = " ".join(action.help.split()).replace("%%", "%")
            assert words.split(" (default:")[0] in section, (name, action.option_strings)
        if isinstance(action.default, int | float | str) and not isinstance(
                action.default, bool) and action.option_strings and (
                action.default is not argparse.SUPPRESS):
            assert f"| `{action.default}` |" in section, (name, action.option_strings)


def test_a_new_option_without_a_regenerated_page_fails():
    text = PAGE.read_text(encoding="utf-8")
    parser = build_parser()
    commands(parser)["fit"].add_argument("--brand-new", help="an option nobody documented")
    assert page_with_reference(text, parser) != text
    assert "`--brand-new BRAND_NEW`" in page_with_reference(text, parser)


def test_the_generator_checks_and_rewrites_below_the_marker_only(tmp_path, capsys):
    page = tmp_path / "cli.md"
    page.write_text(f"# Prose kept\n\nexamples\n\n{MARKER}\n\nstale reference\n")
    assert main([str(page), "--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert main([str(page)]) == 0
    written = page.read_text()
    assert written.startswith(f"# Prose kept\n\nexamples\n\n{MARKER}\n\n## Reference\n")
    assert "stale reference" not in written
    assert main([str(page), "--check"]) == 0
    page.write_text("no marker\n")
    assert main([str(page)]) == 1
    assert "has no line" in capsys.readouterr().err


def test_the_package_docstring_names_every_command():
    first = stpca_gui.cli.__doc__.split("\n\n")[1]
    named = re.findall(r"``([a-z-]+)``", first)
    assert named == list(commands(build_parser()))


@pytest.mark.parametrize("command", list(commands(build_parser())))
def test_every_command_has_a_help_line_and_a_description(command):
    parser = commands(build_parser())[command]
    assert parser.description, command


def test_help_names_other_options_by_their_flags_not_the_librarys_names():
    """A help text that refers to another setting (``--torus-variance``: "see
    max_torus_components") names the flag a user types."""
    from stpca_gui.model import FitParameters
    from stpca_gui.model.analysis import SETTINGS_DECLARATIONS

    names = {spec.name for _, declaration in SETTINGS_DECLARATIONS
             for spec in FitParameters.specs(declaration) if "_" in spec.name}
    for command, action in _every_option(build_parser()):
        for name in names:
            assert not re.search(rf"\b{name}\b", action.help or ""), (command, action.dest)
    fit = commands(build_parser())["fit"]
    torus = next(a for a in fit._actions if a.dest == "torus_variance")
    assert "see --torus-components" in torus.help
