"""The command line's top-level guard (issue 29, item 4): every failure is one line on
stderr and exit code 1, Ctrl-C is "interrupted" with exit code 130 and no partial output,
``--debug`` adds the traceback, and integer options are range-checked when parsed."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from stpca_gui.cli import EXIT_ERROR, EXIT_INTERRUPTED, main
from stpca_gui.core import ScaledTorusPCA


def _failing(exc: BaseException):
    def run(args):
        raise exc

    return run


def _one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_memory_exhaustion_says_so_and_what_to_try(monkeypatch, capsys, tmp_path):
    def allocate(args):
        return np.empty((2**22, 2**22, 2**10))  # 128 PiB: no machine has it

    monkeypatch.setattr("stpca_gui.cli.fitting.run_fit", allocate)
    source = tmp_path / "angles.csv"
    source.write_text("a,b\n0.1,0.2\n")
    assert main(["fit", str(source)]) == EXIT_ERROR
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("stpca: error: fit: out of memory (Unable to allocate ")
    assert "--landmarks N" in line


@pytest.mark.parametrize(("command", "module", "hint"), [
    (["transform", "m.stpca", "t.csv", "--out", "s.csv"], "transform.run_transform",
     "a smaller --chunk-rows"),
    (["dihedrals", "top.pdb", "--out", "t.csv"], "structures.run_dihedrals",
     "--start, --stop, --stride"),
    (["info", "m.stpca"], "fitting.run_info", "more memory"),
])
def test_each_command_has_its_memory_advice(monkeypatch, capsys, command, module, hint):
    monkeypatch.setattr(f"stpca_gui.cli.{module}", _failing(MemoryError()))
    assert main(command) == EXIT_ERROR
    line = _one_line(capsys.readouterr().err)
    assert line.startswith(f"stpca: error: {command[0]}: out of memory; ") and hint in line


def test_overflow_is_a_message_naming_the_inputs(monkeypatch, capsys):
    monkeypatch.setattr("stpca_gui.cli.structures.run_dihedrals",
                        _failing(OverflowError("Python int too large to convert to C long")))
    assert main(["dihedrals", "prot.psf", "a.dcd", "b.dcd", "--out", "t.csv"]) == EXIT_ERROR
    line = _one_line(capsys.readouterr().err)
    assert line == ("stpca: error: dihedrals failed on prot.psf, a.dcd, b.dcd: OverflowError: "
                    "Python int too large to convert to C long; a number in the input or the "
                    "options is too large for it (`stpca --debug dihedrals …` prints the "
                    "traceback)")


@pytest.mark.parametrize("exc", [KeyError("sha256"), TypeError("'int' object is not iterable"),
                                 IndexError("list index out of range")])
def test_a_malformed_record_is_a_message_naming_the_session(monkeypatch, capsys, exc):
    monkeypatch.setattr("stpca_gui.cli.structures.run_representatives", _failing(exc))
    assert main(["representatives", "work.stpca", "top.pdb", "--out", "reps"]) == EXIT_ERROR
    line = _one_line(capsys.readouterr().err)
    assert line.startswith(f"stpca: error: representatives failed on work.stpca, top.pdb: "
                           f"{type(exc).__name__}: {exc}; a file may be damaged or edited by "
                           "hand")
    assert "reps" not in line  # the output folder is not an input


def test_the_packages_own_errors_keep_their_message(monkeypatch, capsys):
    monkeypatch.setattr("stpca_gui.cli.sessions.run_export_script",
                        _failing(ValueError("s.stpca: not a session file")))
    assert main(["export-script", "s.stpca", "x.py"]) == EXIT_ERROR
    assert _one_line(capsys.readouterr().err) == "stpca: error: s.stpca: not a session file"


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_prints_the_traceback_too(monkeypatch, capsys, where):
    monkeypatch.setattr("stpca_gui.cli.fitting.run_demos", _failing(KeyError("segid")))
    argv = ["--debug", "demos"] if where == "before" else ["demos", "--debug"]
    assert main(argv) == EXIT_ERROR
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert "KeyError: 'segid'" in err
    assert err.strip().splitlines()[-1].startswith("stpca: error: demos failed: KeyError:")


def test_debug_is_off_unless_given(monkeypatch, capsys):
    monkeypatch.setattr("stpca_gui.cli.fitting.run_demos", _failing(KeyError("segid")))
    assert main(["demos"]) == EXIT_ERROR
    _one_line(capsys.readouterr().err)


@pytest.fixture(scope="module")
def small_model(tmp_path_factory, clusters_t3):
    model = ScaledTorusPCA(n_landmarks=50, random_state=0, torus_variance=False).fit(
        clusters_t3.angles[:120])
    return model.save(tmp_path_factory.mktemp("model") / "model.stpca")


def test_ctrl_c_while_scoring_leaves_no_partial_output(monkeypatch, capsys, tmp_path,
                                                       small_model, clusters_t3):
    source = tmp_path / "new.csv"
    np.savetxt(source, clusters_t3.angles, delimiter=",", fmt="%.17g")
    out = tmp_path / "scores.csv"
    out.write_text("an earlier run's scores\n")
    from stpca_gui.cli import transform

    scored = []

    def interrupted_on_the_third_chunk(model, chunk):
        scored.append(len(chunk.angles))
        if len(scored) == 3:
            raise KeyboardInterrupt
        return model.transform(chunk.angles)

    monkeypatch.setattr(transform, "_chunk_scores", interrupted_on_the_third_chunk)
    code = main(["transform", str(small_model), str(source), "--out", str(out),
                 "--chunk-rows", "50"])
    err = capsys.readouterr().err
    assert code == EXIT_INTERRUPTED == 130
    assert err.splitlines()[-1] == "stpca: interrupted" and "Traceback" not in err
    # Two chunks written to a temporary before Ctrl-C; the next one or two scored meanwhile.
    assert 3 <= len(scored) < len(clusters_t3.angles) // 50
    assert out.read_text() == "an earlier run's scores\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.csv", "scores.csv"]


@pytest.mark.parametrize(("argv", "message"), [
    (["dihedrals", "t.pdb", "--out", "x.csv", "--stride", str(10**30)],
     "argument --stride: must be an integer in [1, 1000000000000], not '1" + "0" * 30 + "'"),
    (["dihedrals", "t.pdb", "--out", "x.csv", "--stride", "0"],
     "argument --stride: must be an integer in [1, 1000000000000], not '0'"),
    (["dihedrals", "t.pdb", "--out", "x.csv", "--start", "-1"],
     "argument --start: must be an integer in [0, 1000000000000], not '-1'"),
    (["dihedrals", "t.pdb", "--out", "x.csv", "--stop", "1e3"],
     "argument --stop: must be an integer in [0, 1000000000000], not '1e3'"),
    (["transform", "m", "t", "--out", "s", "--chunk-rows", "0"],
     "argument --chunk-rows: must be an integer in [1, 10000000], not '0'"),
    (["transform", "m", "t", "--out", "s", "--chunk-rows", str(10**30)],
     "argument --chunk-rows: must be an integer in [1, 10000000]"),
    (["demo", "--data-seed", "-3"], "argument --data-seed: must be an integer >= 0, not '-3'"),
])
def test_integer_options_are_range_checked_when_parsed(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_a_reader_that_goes_away_is_no_error_message():
    # `stpca demos | head -1`: the pipe closes before stpca writes; no traceback.
    process = subprocess.Popen([sys.executable, "-m", "stpca_gui.cli", "demos"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=120) == EXIT_ERROR
    assert err == ""
