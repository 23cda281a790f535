"""docs/structures.md's walk-through prints what the code prints (issues 30 and 31).

benchmarks/transcripts.py runs the page's ``$ stpca …`` commands; here the sessions of
several trajectories (§1), of the bundled two-run demo (§4) and the P-loop session
(the per-frame table of residues 7–13, its fit and its representatives) is run on
MDAnalysisTests' AdK files, and the page's lines must all be printed — in particular as
many clusters as the fit gives. The pooled session takes minutes: run the script by hand.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest
from project_paths import REPO

pytest.importorskip("MDAnalysis")
pytest.importorskip("MDAnalysisTests")

_spec = importlib.util.spec_from_file_location("benchmarks_transcripts",
                                               REPO / "benchmarks" / "transcripts.py")
transcripts = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = transcripts
_spec.loader.exec_module(transcripts)

PAGE = REPO / "docs" / "structures.md"


def _in_the_p_loop_session(command) -> bool:
    # ploop.csv, loop.stpca, reps_loop; not the bundled demo's files ($A/adk_loop_1.xtc …)
    return "loop" in command.text and "$A" not in command.text


def _in_the_two_run_session(command) -> bool:
    """The bundled demo's two runs: dihedrals, fit with states, motion, representatives
    (not the refusals, which exit 1)."""
    return "ak2" in command.text and "bad." not in command.text


def _session_prints(keep, commands: int, what: str) -> dict[str, list[str]]:
    """Run the page's commands ``keep`` accepts; check there are ``commands`` of them and
    that they print every line the page shows. Returns what each printed."""
    printed = {}
    problems = transcripts.check(PAGE, keep,
                                 lambda command, lines: printed.update({command.text: lines}))
    assert len(printed) == commands, f"the {what} session lost a command"
    assert not problems, "\n".join(problems)
    return printed


def _medoid_lines(lines):
    return [line for line in lines if line.startswith("cluster ")]


@pytest.mark.slow
def test_the_p_loop_walk_through_prints_what_the_page_shows():
    printed = _session_prints(_in_the_p_loop_session, 4, "P-loop")
    # The page lists every cluster, no more and no fewer than the fit gives.
    representatives = next(c for c in transcripts.commands(PAGE.read_text(encoding="utf-8"))
                           if c.text.startswith("stpca representatives loop.stpca"))
    assert _medoid_lines(representatives.expected) == _medoid_lines(
        printed[representatives.text])


@pytest.mark.slow
def test_the_two_run_walk_through_prints_what_the_page_shows():
    """The bundled demo's two runs (issue 33): states, motion, representatives."""
    _session_prints(_in_the_two_run_session, 6, "two-run")


def _in_the_several_trajectories_session(command) -> bool:
    """§1's two halves of adk_dims.dcd (written by the script), their fit and
    representatives, and the refusal of the files in the wrong order."""
    return "runs" in command.text


@pytest.mark.slow
def test_the_several_trajectories_session_prints_what_the_page_shows():
    printed = _session_prints(_in_the_several_trajectories_session, 5, "several-trajectories")
    refusal = printed[next(text for text in printed if "reps_bad" in text)]
    assert refusal[-1].startswith("stpca: error: part2.dcd: not the file")


@pytest.mark.parametrize("shown, printed, same", [
    ("fitted radius r̂  1.4922", "fitted radius r̂  1.4923", True),
    ("fitted radius r̂  1.4922", "fitted radius r̂  1.4925", False),
    ("cluster 3: medoid frame 0", "cluster 2: medoid frame 4", False),
    ("2,ARG,0,4AKE,2,ARG,1.3992…,-0.1281…,3", "2,ARG,0,4AKE,2,ARG,1.39926620,-0.128121,3", True),
    ("2,ARG,0,4AKE,2,ARG,1.3992…,-0.1281…,3", "2,ARG,0,4AKE,2,ARG,1.39926620,-0.128121,2", False),
    ("98 rows × 14 torsions … adk_dims.dcd …", "98 rows × 14 torsions (backbone) from adk_dims.dcd "
     "in 1.0 s", True),
])
def test_a_shown_line_matches_up_to_elisions_and_the_last_digit(shown, printed, same):
    assert transcripts.matches(shown, printed) is same


def test_a_line_the_command_did_not_print_is_reported():
    command = transcripts.Command(3, "stpca representatives …", [
        "cluster 0: medoid frame 89", "cluster 3: medoid frame 0"])
    printed = ["cluster 0: medoid frame 89", "cluster 1: medoid frame 70",
               "cluster 2: medoid frame 4", "wrote …"]
    assert transcripts.differences(command, printed) == [
        "line 3: `stpca representatives …` did not print 'cluster 3: medoid frame 0'"]
