"""Whether a saved image has real content: the checks every screenshot and figure test uses."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image


def image_stats(path: Path) -> tuple[float, int]:
    """Fraction of non-background pixels and number of distinct colours of an image."""
    pixels = np.asarray(Image.open(path).convert("RGB")).reshape(-1, 3)
    values, counts = np.unique(pixels, axis=0, return_counts=True)
    background = values[np.argmax(counts)]
    content = np.mean(np.any(pixels != background, axis=1))
    return float(content), len(values)


def assert_has_content(path: Path, min_fraction: float = 0.02, min_colors: int = 12) -> None:
    """Fail unless more than ``min_fraction`` of the pixels are drawn, in more than
    ``min_colors`` colours."""
    fraction, colors = image_stats(path)
    assert fraction > min_fraction, f"{path.name}: only {fraction:.1%} of pixels drawn"
    assert colors > min_colors, f"{path.name}: only {colors} distinct colours"
