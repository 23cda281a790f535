"""The attack scripts of benchmarks/ are tools with a real command line (issue 29, item 10):
``--help`` prints the usage and does nothing else (it used to create ``./--help`` and start
an 8-minute run)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from project_paths import REPO

SCRIPTS = sorted((REPO / "benchmarks").glob("*_attacks.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_help_prints_the_usage_and_writes_nothing(tmp_path, script):
    done = subprocess.run([sys.executable, str(script), "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:") and "workdir" in done.stdout
    assert list(tmp_path.iterdir()) == []
