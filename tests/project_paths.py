"""Folders of the checkout that tests refer to, wherever in tests/ the test file lives."""

from pathlib import Path

#: The repository's top folder.
REPO = Path(__file__).resolve().parents[1]
#: Reference files that ship with the tests (see tests/data/README.md).
TEST_DATA = REPO / "tests" / "data"
#: Screenshots and exported files for a person to look at.
TEST_OUTPUT = REPO / "test-output"
#: The project's read-only data folder beside a source checkout; absent in a plain clone.
SHARED_DATA = REPO.parent / "shared" / "data"
