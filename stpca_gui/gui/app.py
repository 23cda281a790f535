"""``stpca-gui``: launch the desktop app, optionally render a screenshot and exit."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ..core import DEMO_NAMES

DEFAULT_DEMO = "clusters-t3"
SCREENSHOT_SIZE = (1600, 1000)
SCREENSHOT_TIMEOUT_MS = 180_000


def _parse_size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1600x1000, got {text!r}") from None
    if width < 400 or height < 300:
        raise argparse.ArgumentTypeError("the window must be at least 400x300")
    return width, height


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stpca-gui", description="Scaled Torus PCA workbench for angular data.")
    parser.add_argument("file", nargs="?", type=Path, help="a table of angles to open")
    parser.add_argument("--demo", choices=DEMO_NAMES, default=None,
                        help=f"open a built-in demo (default when no file: {DEFAULT_DEMO})")
    parser.add_argument("--screenshot", type=Path, default=None, metavar="OUT.png",
                        help="render the fitted window to a PNG and exit")
    parser.add_argument("--size", type=_parse_size, default=SCREENSHOT_SIZE, metavar="WxH",
                        help="window size for --screenshot (default 1600x1000)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``stpca-gui`` console script."""
    args = build_parser().parse_args(argv)
    if args.file is not None and args.demo is not None:
        build_parser().error("give a file or --demo, not both")
    if sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM"):
        # pyvistaqt's OpenGL widget needs the X11 platform (Wayland sessions use XWayland).
        os.environ["QT_QPA_PLATFORM"] = "xcb"
    if os.environ.get("QT_QPA_PLATFORM") == "xcb" and not os.environ.get("DISPLAY"):
        print("stpca-gui: no X display (DISPLAY is not set). Run it in a desktop session, or "
              "under a virtual display: xvfb-run uv run stpca-gui …", file=sys.stderr)
        return 1

    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QPixmap
    from PySide6.QtWidgets import QApplication, QSplashScreen

    from ..core.warmup import warm_up
    from .main_window import MainWindow

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("stpca-gui")
    app.setOrganizationName("stpca-gui")
    # Load the compiled kernels before the main window exists: loading holds the GIL and
    # showed as a ~0.2 s GUI stall during the first fit. The first run after installing
    # compiles them instead (about a minute), so say what is happening meanwhile.
    pixmap = QPixmap(460, 90)
    pixmap.fill()
    splash = QSplashScreen(pixmap)
    splash.showMessage("stpca-gui: preparing the numerical kernels…\n(the first run after "
                       "installing compiles them: about a minute)")
    splash.show()
    app.processEvents()
    warm_up()
    window = MainWindow()
    exit_code = {"value": 0}

    if args.screenshot is not None:
        window.resize(*args.size)

        def capture() -> None:
            app.processEvents()
            try:
                window.export_window(args.screenshot)
            except (OSError, ValueError) as exc:
                print(f"stpca-gui: cannot write screenshot: {exc}", file=sys.stderr)
                exit_code["value"] = 1
            else:
                print(f"stpca-gui: wrote {args.screenshot}")
            window.close()
            app.quit()

        def give_up(reason: str) -> None:
            print(f"stpca-gui: no screenshot: the fit {reason}", file=sys.stderr)
            exit_code["value"] = 1
            window.close()
            app.quit()

        # Let the views finish drawing before grabbing them.
        window.result_shown.connect(lambda: QTimer.singleShot(300, capture))
        window.fit_ended.connect(give_up)
        QTimer.singleShot(SCREENSHOT_TIMEOUT_MS, lambda: give_up("timed out"))
    else:
        window.resize(1500, 950)
    window.show()
    # After show(): finish() waits (up to a second) for the window to be exposed.
    splash.finish(window)

    if args.file is not None:
        if not window.open_path(args.file, interactive=args.screenshot is None):
            if args.screenshot is not None:
                return 1
    else:
        window.load_demo(args.demo or DEFAULT_DEMO)
    app.exec()
    return exit_code["value"]


if __name__ == "__main__":
    sys.exit(main())
