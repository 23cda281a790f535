"""The documentation's images are made by one script from the current code (issue 30).

benchmarks/screens.py lists every image under docs/images/ (and the README's screenshot)
with what makes it; the figures of docs/reproduction/ are made by ``stpca reproduce``. Here:
every image a page shows exists, every image file is one the script knows (no unknown) and
one a page shows (no orphan).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

from project_paths import REPO

BENCHMARKS = REPO / "benchmarks"
IMAGE_FOLDERS = ("docs/images", "docs/reproduction")
_IMAGE_LINK = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def _screens():
    sys.path.insert(0, str(BENCHMARKS))  # screens.py imports _common
    try:
        spec = importlib.util.spec_from_file_location("benchmarks_screens",
                                                      BENCHMARKS / "screens.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


screens = _screens()


def pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def shown_images() -> dict[str, list[str]]:
    """Every image a page shows (repository path → the pages showing it)."""
    shown: dict[str, list[str]] = {}
    for page in pages():
        for target in _IMAGE_LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue
            path = (page.parent / target).resolve().relative_to(REPO).as_posix()
            shown.setdefault(path, []).append(page.relative_to(REPO).as_posix())
    return shown


def known_images() -> set[str]:
    return {image.path for image in screens.IMAGES} | set(screens.MADE_ELSEWHERE)


def test_every_image_a_page_shows_exists():
    missing = [f"{path} (shown by {', '.join(by)})" for path, by in shown_images().items()
               if not (REPO / path).is_file()]
    assert not missing, "pages show images that do not exist:\n" + "\n".join(missing)


def test_the_script_knows_every_image_file_and_each_is_shown():
    files = {path.relative_to(REPO).as_posix() for folder in IMAGE_FOLDERS
             for path in (REPO / folder).iterdir() if path.suffix.lower() in (".png", ".svg",
                                                                              ".jpg")}
    unknown = sorted(files - known_images())
    assert not unknown, ("images no generator makes (add them to IMAGES in "
                         f"benchmarks/screens.py): {unknown}")
    absent = sorted(path for path in known_images() if not (REPO / path).is_file())
    assert not absent, f"benchmarks/screens.py names images that are not there: {absent}"
    orphans = sorted(known_images() - set(shown_images()))
    assert not orphans, f"images no page shows: {orphans}"


def test_every_image_is_made_once():
    paths = [image.path for image in screens.IMAGES]
    assert len(paths) == len(set(paths))
    assert not set(paths) & set(screens.MADE_ELSEWHERE)


def test_the_script_still_makes_a_window_and_a_view_image(display, tmp_path):
    # The script drives the app's own API, which moves under it (a refactor once left it
    # calling a method that had moved, unnoticed until a release): make two images of
    # the quick demos, the whole window and one view, and check they hold a picture.
    import subprocess

    import numpy as np
    from PIL import Image as PillowImage

    wanted = ("resources/screenshot.png", "mode_test_small_rna_histogram_paper.png")
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "screens.py"), "--out", str(tmp_path), *wanted],
        capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    for name in ("screenshot.png", "mode_test_small_rna_histogram_paper.png"):
        pixels = np.asarray(PillowImage.open(tmp_path / name).convert("L"), dtype=float)
        assert min(pixels.shape) >= 300
        assert pixels.std() > 20  # not a blank or single-colour grab
        assert len(np.unique(pixels)) > 50
