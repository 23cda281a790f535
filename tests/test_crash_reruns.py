"""The suite's pytest settings (pyproject's ``addopts``): a test whose process crashes is
run once more in a fresh worker, an ordinary failure never is (docs/development.md)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from project_paths import REPO

TESTS = textwrap.dedent("""
    import ctypes
    from pathlib import Path

    def test_crashes_once():
        flag = Path(__file__).with_name("crashed-once")
        if not flag.exists():
            flag.write_text("")
            ctypes.string_at(0)  # a segmentation fault ends the worker

    def test_crashes_every_time():
        ctypes.string_at(0)

    def test_fails():
        assert 1 == 2
""")


def test_crashes_are_rerun_once_and_failures_never(tmp_path):
    (tmp_path / "test_settings_probe.py").write_text(TESTS, encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(REPO / "pyproject.toml"), "--rootdir",
         str(tmp_path), "-p", "no:cacheprovider", "-rA", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, env=environment, timeout=300)
    summary = run.stdout.splitlines()[-1]
    assert "2 failed, 1 passed, 2 rerun" in summary, run.stdout[-3000:]
    assert "PASSED test_settings_probe.py::test_crashes_once" in run.stdout
    assert "FAILED test_settings_probe.py::test_crashes_every_time" in run.stdout
    assert "FAILED test_settings_probe.py::test_fails - assert 1 == 2" in run.stdout
