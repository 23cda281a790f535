"""Users with Python: ``uv tool install`` of the wheel gives working ``stpca`` and ``stpca-gui``.

The tool environment is resolved with the lock file's versions as constraints, so it is the
tested set of dependencies (and comes from uv's cache when it holds them).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from project_paths import REPO

pytestmark = pytest.mark.slow

ROOT = REPO
INSTALL_TIMEOUT_S = 600
RUN_TIMEOUT_S = 600


@pytest.fixture(scope="module")
def tool_bin(tmp_path_factory) -> Path:
    """The folder of the installed tool's commands."""
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not installed")
    work = tmp_path_factory.mktemp("uv-tool")
    wheels = work / "wheels"
    subprocess.run([uv, "build", "--wheel", "--out-dir", str(wheels)], cwd=ROOT, check=True,
                   capture_output=True, timeout=INSTALL_TIMEOUT_S)
    (wheel,) = wheels.glob("stpca_gui-*.whl")
    constraints = work / "constraints.txt"
    subprocess.run([uv, "export", "--locked", "--no-dev", "--no-hashes", "--no-emit-project",
                    "--format", "requirements-txt", "--output-file", str(constraints)],
                   cwd=ROOT, check=True, capture_output=True, timeout=INSTALL_TIMEOUT_S)
    env = {**os.environ, "UV_TOOL_DIR": str(work / "tools"),
           "UV_TOOL_BIN_DIR": str(work / "bin")}
    env.pop("VIRTUAL_ENV", None)
    completed = subprocess.run(
        [uv, "tool", "install", "--python", "3.11", "--constraints", str(constraints),
         str(wheel)], env=env, cwd=work, capture_output=True, text=True,
        timeout=INSTALL_TIMEOUT_S)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return work / "bin"


def run_tool(command: Path, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """Run an installed command with nothing of the checkout's environment."""
    home.mkdir(exist_ok=True)
    env = {"HOME": str(home), "PATH": f"{command.parent}:/usr/bin:/bin", "LANG": "C.UTF-8"}
    if "DISPLAY" in os.environ:
        env["DISPLAY"] = os.environ["DISPLAY"]
    return subprocess.run([str(command), *args], env=env, cwd=home, capture_output=True,
                          text=True, timeout=RUN_TIMEOUT_S)


def test_installed_commands_fit_the_demo_and_start(tool_bin, tmp_path):
    fitted = run_tool(tool_bin / "stpca", "demo", "clusters-t3", home=tmp_path)
    assert fitted.returncode == 0, fitted.stderr[-3000:]
    # The summary of the paper's T³ clusters, as the checkout gives it (README, library).
    assert re.search(r"^samples n +300$", fitted.stdout, re.MULTILINE), fitted.stdout
    assert re.search(r"^sphere variance +97\.7 / 1\.5 / 0\.8 %", fitted.stdout,
                     re.MULTILINE), fitted.stdout

    helped = run_tool(tool_bin / "stpca-gui", "--help", home=tmp_path)
    assert helped.returncode == 0, helped.stderr
    assert "--screenshot" in helped.stdout
