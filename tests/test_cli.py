"""The ``stpca`` command line."""

from __future__ import annotations

import re

import pytest

from stpca_gui.cli import main


def test_demo_prints_a_summary(capsys):
    assert main(["demo", "clusters-t2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    stress = float(re.search(r"stress\s+\S+ \(start\) -> (\S+)", out).group(1))
    radius = float(re.search(r"-> r = (\S+)", out).group(1))
    assert 0.0 < stress < 0.0065
    assert 1.2 < radius < 1.8
    assert "n = 300 points on T^2" in out


def test_demos_are_listed(capsys):
    assert main(["demos"]) == 0
    out = capsys.readouterr().out
    for name in ("clusters-t2", "clusters-t3", "wrapped-normal-t2"):
        assert name in out


def test_bad_radius_is_an_error_not_a_traceback(capsys):
    assert main(["demo", "clusters-t2", "--radius", "-2"]) == 1
    assert "radius" in capsys.readouterr().err


def test_unknown_demo_exits_with_usage_error():
    with pytest.raises(SystemExit) as exc:
        main(["demo", "no-such-demo"])
    assert exc.value.code == 2
