"""Render the application icon's PNGs from its SVG master; run it after editing the SVG.

    uv run python resources/render_icons.py

writes ``icons/hicolor/<N>x<N>/apps/io.github.stpcagui.StpcaGui.png`` beside this script for
every N of ``stpca_gui.desktop_resources.ICON_SIZES`` (the freedesktop hicolor layout, so
installing the icons is a copy). tests/packaging/test_resources.py renders them again and
compares, so
the committed PNGs cannot drift from the SVG.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from stpca_gui.desktop_resources import APP_ID, ICON_SIZES

RESOURCES = Path(__file__).resolve().parent
SVG = RESOURCES / "icons" / f"{APP_ID}.svg"


def render(svg: Path, size: int) -> QImage:
    """``svg`` drawn antialiased on a transparent ``size`` × ``size`` ARGB image."""
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg}: not a valid SVG file")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image


def png_path(size: int) -> Path:
    """Where the ``size`` px PNG goes in the repository."""
    return RESOURCES / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"


def main() -> int:
    for size in ICON_SIZES:
        target = png_path(size)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not render(SVG, size).save(str(target), "PNG"):
            print(f"render_icons: cannot write {target}", file=sys.stderr)
            return 1
        print(f"wrote {target.relative_to(RESOURCES.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
