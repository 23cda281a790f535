"""Folders of the checkout that tests refer to, wherever in tests/ the test file lives."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

#: The repository's top folder.
REPO = Path(__file__).resolve().parents[1]
#: Reference files that ship with the tests (see tests/data/README.md).
TEST_DATA = REPO / "tests" / "data"
#: Screenshots and exported files for a person to look at.
TEST_OUTPUT = REPO / "test-output"
#: The project's read-only data folder beside a source checkout; absent in a plain clone.
SHARED_DATA = REPO.parent / "shared" / "data"


def load_benchmark(name: str) -> ModuleType:
    """A module of benchmarks/ (a folder of scripts, not a package) by file name, with
    benchmarks/ on the import path while it loads (its sibling imports, e.g. `_common`)."""
    folder = str(REPO / "benchmarks")
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}",
                                                  REPO / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    finally:
        if added:
            sys.path.remove(folder)
    return module
