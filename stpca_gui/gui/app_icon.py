"""The application icon as a QIcon: every rendered size of the torus-and-curve icon."""

from __future__ import annotations

from PySide6.QtGui import QIcon

from ..desktop_resources import ICON_SIZES, icon_png


def application_icon() -> QIcon:
    """The icon of the application and its windows (all PNG sizes, Qt picks the nearest).

    A null icon when the installation lacks its resources: the window then shows the
    desktop's default icon instead of refusing to start.
    """
    icon = QIcon()
    try:
        for size in ICON_SIZES:
            icon.addFile(str(icon_png(size)))
    except FileNotFoundError:
        return QIcon()
    return icon
