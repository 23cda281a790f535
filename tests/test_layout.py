"""The tests' own layout: one folder per package, and no stale reference to a test file."""

from __future__ import annotations

import re
import subprocess

from project_paths import REPO

#: Test files that concern the whole project and so stay at the top of tests/.
PROJECT_WIDE = {"test_architecture.py", "test_layout.py", "test_crash_reruns.py"}
#: Folders of tests/ that are not packages of stpca_gui.
NOT_PACKAGES = {"benchmarks", "data", "docs", "packaging", "__pycache__"}


def _tracked(*patterns: str) -> list[str]:
    listing = subprocess.run(["git", "ls-files", *patterns], cwd=REPO, capture_output=True,
                             text=True, check=True)
    return listing.stdout.split()


def test_test_files_live_in_the_folder_of_their_package():
    for name in _tracked("tests/*.py", "tests/**/*.py"):
        parts = name.split("/")
        if not parts[-1].startswith("test_") or parts[1] in NOT_PACKAGES:
            continue
        if len(parts) == 2:
            assert parts[1] in PROJECT_WIDE, f"{name}: move it into the folder of its package"
            continue
        package = REPO / "stpca_gui" / "/".join(parts[1:-1])
        assert package.is_dir() or package.with_suffix(".py").is_file(), (
            f"{name}: stpca_gui/{'/'.join(parts[1:-1])} is no package or module")


def test_every_test_file_named_in_docs_and_code_exists():
    pattern = re.compile(r"tests/[\w/]+\.py")
    sources = _tracked("*.md", "*.py", "*.toml", ".ci/run")
    missing = []
    for source in sources:
        text = (REPO / source).read_text(encoding="utf-8", errors="replace")
        missing += [f"{source}: {ref}" for ref in set(pattern.findall(text))
                    if not (REPO / ref).is_file()]
    assert not missing, "references to test files that do not exist:\n" + "\n".join(missing)
