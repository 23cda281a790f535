"""Where the desktop files are: the application icon, the desktop entry, MIME type and metainfo.

One folder holds them, laid out as the repository's ``resources/``::

    icons/io.github.stpcagui.StpcaGui.svg                        the icon's master
    icons/hicolor/<N>x<N>/apps/io.github.stpcagui.StpcaGui.png   N in ICON_SIZES
    io.github.stpcagui.StpcaGui.desktop
    io.github.stpcagui.StpcaGui.mime.xml
    io.github.stpcagui.StpcaGui.metainfo.xml

A wheel and the PyInstaller bundle carry it inside the package as ``stpca_gui/resources``
(``[tool.hatch.build.targets.wheel.force-include]`` of pyproject.toml); a source checkout
has it beside the package. Standard library only: the app, the tests and the scripts use it.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

__all__ = ["APP_ID", "ICON_SIZES", "icon_png", "icon_svg", "resources_dir"]

#: The reverse-DNS application id: the name of the desktop entry, the icon and the metainfo.
APP_ID = "io.github.stpcagui.StpcaGui"
#: Pixel sizes of the rendered PNG icons (freedesktop hicolor sizes).
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
#: The folder's name inside the package (wheel, bundle) and in the repository.
_FOLDER = "resources"


def resources_dir() -> Path:
    """The folder of the desktop files, installed or in a source checkout.

    Returns
    -------
    Path
        ``stpca_gui/resources`` inside the installed package (wheel, bundle) when it exists,
        else the repository's ``resources/`` next to the package.

    Raises
    ------
    FileNotFoundError
        Neither exists (an installation without its data); the message names both places.
    """
    packaged = importlib.resources.files("stpca_gui") / _FOLDER
    if packaged.is_dir():
        return Path(str(packaged))
    checkout = Path(__file__).resolve().parent.parent / _FOLDER
    if (checkout / "icons").is_dir():
        return checkout
    raise FileNotFoundError(
        f"stpca-gui's resources are missing: neither {packaged} nor {checkout} exists")


def icon_png(size: int) -> Path:
    """The application icon rendered at ``size`` × ``size`` pixels (one of ICON_SIZES)."""
    if size not in ICON_SIZES:
        raise ValueError(f"no {size} px icon; the sizes are {ICON_SIZES}")
    return resources_dir() / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"


def icon_svg() -> Path:
    """The application icon's SVG master."""
    return resources_dir() / "icons" / f"{APP_ID}.svg"
