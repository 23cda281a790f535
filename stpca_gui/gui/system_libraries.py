"""The system libraries Qt's X11 platform and the 3-D views need, checked before Qt loads.

Without them Qt aborts with its own message (exit 134) when it loads its ``xcb`` platform
plugin: "Could not load the Qt platform plugin "xcb" … libxcb-cursor.so.0: cannot open
shared object file", which names neither the package to install nor all that is missing.
``stpca-gui`` calls :func:`startup_problem` first and, when something is missing, prints
what and the packages that provide it on Debian/Ubuntu and Fedora, and exits with 1.

The lists are the libraries PySide6 6.5+'s ``libqxcb.so``, ``libQt6XcbQpa``, ``libQt6Gui``
and ``libQt6DBus`` link to (``readelf -d``), minus those of the C runtime. A library
counts as present when the dynamic loader can open it (``ctypes``, the loader's own
search: ``LD_LIBRARY_PATH`` — a bundle's own folder —, ``ld.so.cache``, system folders).
``STPCA_SYSTEM_LIBRARY_PATH`` (folders separated by ``:``) replaces that search by a look
in those folders only: tests use it to simulate a machine without the libraries.

This module is Qt-free and imports only the standard library.
"""

from __future__ import annotations

import ctypes
import os
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

PATH_ENV = "STPCA_SYSTEM_LIBRARY_PATH"
#: Width the message's lists of files are wrapped to (a terminal's).
MESSAGE_WIDTH = 88


@dataclass(frozen=True)
class SystemLibrary:
    """A shared library by its soname, and the packages that install it."""

    soname: str
    debian: str
    fedora: str


#: Qt's X11 platform (xcb), its fonts, and the D-Bus library Qt's GUI module loads.
XCB_LIBRARIES = (
    SystemLibrary("libxcb.so.1", "libxcb1", "libxcb"),
    SystemLibrary("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
    SystemLibrary("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
    SystemLibrary("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
    SystemLibrary("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
    SystemLibrary("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
    SystemLibrary("libxcb-render.so.0", "libxcb-render0", "libxcb"),
    SystemLibrary("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
    SystemLibrary("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
    SystemLibrary("libxcb-shm.so.0", "libxcb-shm0", "libxcb"),
    SystemLibrary("libxcb-sync.so.1", "libxcb-sync1", "libxcb"),
    SystemLibrary("libxcb-util.so.1", "libxcb-util1", "xcb-util"),
    SystemLibrary("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb"),
    SystemLibrary("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
    SystemLibrary("libX11.so.6", "libx11-6", "libX11"),
    SystemLibrary("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
    SystemLibrary("libxkbcommon.so.0", "libxkbcommon0", "libxkbcommon"),
    SystemLibrary("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
    SystemLibrary("libfontconfig.so.1", "libfontconfig1", "fontconfig"),
    SystemLibrary("libfreetype.so.6", "libfreetype6", "freetype"),
    SystemLibrary("libglib-2.0.so.0", "libglib2.0-0", "glib2"),
    SystemLibrary("libgthread-2.0.so.0", "libglib2.0-0", "glib2"),
    SystemLibrary("libdbus-1.so.3", "libdbus-1-3", "dbus-libs"),
)
#: OpenGL, for Qt's GUI module and the 3-D views (VTK).
OPENGL_LIBRARIES = (
    SystemLibrary("libGL.so.1", "libgl1", "libglvnd-glx"),
    SystemLibrary("libEGL.so.1", "libegl1", "libglvnd-egl"),
)


def loader_finds(soname: str) -> bool:
    """Whether the dynamic loader opens ``soname`` (with the libraries it needs)."""
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def finder_in(folders: Sequence[Path]) -> Callable[[str], bool]:
    """A look for a library file in ``folders`` only (instead of the loader's search)."""
    return lambda soname: any((Path(folder) / soname).exists() for folder in folders)


def finder_from_environment() -> Callable[[str], bool]:
    """:func:`finder_in` the folders of ``STPCA_SYSTEM_LIBRARY_PATH``, else the loader."""
    folders = os.environ.get(PATH_ENV)
    if folders is None:
        return loader_finds
    return finder_in([Path(f) for f in folders.split(os.pathsep) if f])


def missing(libraries: Sequence[SystemLibrary],
            finds: Callable[[str], bool] = loader_finds) -> list[SystemLibrary]:
    """The ``libraries`` that ``finds`` does not find, in order."""
    return [library for library in libraries if not finds(library.soname)]


def _install_lines(libraries: Sequence[SystemLibrary]) -> list[str]:
    def packages(attribute: str) -> str:
        return " ".join(dict.fromkeys(getattr(library, attribute) for library in libraries))

    # One line per command, however long: it is copied and pasted.
    return ["  Debian/Ubuntu:  sudo apt install " + packages("debian"),
            "  Fedora:         sudo dnf install " + packages("fedora")]


def missing_libraries_message(xcb: Sequence[SystemLibrary],
                              opengl: Sequence[SystemLibrary]) -> str:
    """What ``stpca-gui`` prints when libraries are missing (empty when none is)."""
    if not xcb and not opengl:
        return ""
    lines = ["stpca-gui: cannot start: system libraries it needs are missing."]
    if xcb:
        lines += textwrap.wrap("Qt's X11 platform (xcb) needs: "
                               + ", ".join(lib.soname for lib in xcb), MESSAGE_WIDTH,
                               break_on_hyphens=False)
    if opengl:
        lines += textwrap.wrap("OpenGL, for the window and its 3-D views, needs: "
                               + ", ".join(lib.soname for lib in opengl), MESSAGE_WIDTH,
                               break_on_hyphens=False)
    lines.append("Install them with your package manager:")
    lines += _install_lines([*xcb, *opengl])
    lines.append("On other systems, install the packages that provide these files.")
    return "\n".join(lines)


def startup_problem(finds: Callable[[str], bool] | None = None) -> str:
    """The message about missing libraries for an X11 start, or "" when all are there.

    ``finds`` defaults to :func:`finder_from_environment`.
    """
    finds = finds or finder_from_environment()
    return missing_libraries_message(missing(XCB_LIBRARIES, finds),
                                     missing(OPENGL_LIBRARIES, finds))
