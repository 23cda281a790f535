"""README's command line tour runs as written from a fresh copy of the checkout (issue 31).

The ```bash blocks of README.md are parsed; every ``uv run stpca …`` command is run in a
copy of the tracked files (so a command needing a file the repository lacks fails), in
order, with the ``stpca`` of this environment. Left out, and why: ``stpca-gui`` opens the
app (tests/gui start it), ``pytest`` is this suite, and ``stpca reproduce`` runs minutes of
the paper's analyses (tests/reproduce check them).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from project_paths import REPO

#: Commands of the README not run here (see the module's docstring).
NOT_RUN = ("uv run stpca-gui", "uv run pytest", "uv run stpca reproduce")
#: The package's own files: this environment's installed copy is the one run.
PACKAGE_FOLDERS = ("stpca_gui/", "tests/")


def readme_commands() -> list[str]:
    """The shell commands of README.md's ```bash blocks, comments removed."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"^```bash\n(.*?)^```", text, flags=re.M | re.S):
        for line in block.splitlines():
            command = line.split(" #", 1)[0].strip()
            if command:
                commands.append(command)
    return commands


def _fresh_copy(target: Path) -> Path:
    listing = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                             timeout=60)
    if listing.returncode != 0:
        pytest.skip("not a git checkout")
    for name in listing.stdout.splitlines():
        source = REPO / name
        if name.startswith(PACKAGE_FOLDERS) or not source.is_file():
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target / name)
    return target


def test_the_readme_names_the_commands_it_tours():
    commands = readme_commands()
    assert sum(c.startswith("uv run stpca ") for c in commands) >= 4
    assert all(c.startswith(("uv run stpca ", *NOT_RUN)) for c in commands), commands


@pytest.mark.slow
def test_the_readme_tour_runs_as_written(tmp_path):
    checkout = _fresh_copy(tmp_path / "checkout")
    stpca = Path(sys.executable).with_name("stpca")
    ran = []
    for command in readme_commands():
        if command.startswith(NOT_RUN):
            continue
        words = shlex.split(command)
        assert words[:3] == ["uv", "run", "stpca"], command
        done = subprocess.run([str(stpca), *words[3:]], cwd=checkout, capture_output=True,
                              text=True, timeout=900)
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        assert "Traceback" not in done.stderr and "warning" not in done.stderr, (
            f"{command}\n{done.stderr}")
        ran.append(words[3])
    assert ran[:3] == ["demo", "fit", "transform"]
    # The model remembered phi, psi in degrees: transform's scores of the new table are the
    # model's scores of its angles in radians.
    from stpca_gui.core import ScaledTorusPCA

    new = np.genfromtxt(checkout / "examples" / "new.csv", delimiter=",", names=True,
                        dtype=None, encoding="utf-8")
    scores = np.genfromtxt(checkout / "scores.csv", delimiter=",", names=True, dtype=None,
                           encoding="utf-8")
    model = ScaledTorusPCA.load(checkout / "model.stpca")
    assert model.n_features_in_ == 2
    expected = model.transform(np.deg2rad(np.column_stack([new["phi"], new["psi"]])))
    np.testing.assert_array_equal(np.column_stack([scores["PNS1"], scores["PNS2"]]),
                                  expected)
    np.testing.assert_array_equal(scores["label"], new["region"])
