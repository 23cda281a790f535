"""``stpca-gui``: launch the desktop app, optionally render a screenshot and exit.

The window is shown before the numerical core, matplotlib and VTK are loaded (it prepares
itself in stages, :mod:`~stpca_gui.gui.main_window`), so nothing heavy is imported here
before it; the compiled kernels are loaded by the first fit, in its background thread.
This module imports the standard library and light modules only; Qt is imported in
:func:`main` once the system's libraries were checked (:mod:`.system_libraries`), and the
core where it is needed.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..desktop_resources import APP_ID
from ..files.sniff import looks_like_stpca_file
from . import head_start
from .system_libraries import startup_problem

if TYPE_CHECKING:
    from ..model import Dataset
    from .main_window import MainWindow
    from .startup import StartupTrace

DEFAULT_DEMO = "clusters-t3"
SCREENSHOT_SIZE = (1600, 1000)
SCREENSHOT_TIMEOUT_MS = 180_000
#: Wait at exit for background tasks before saying that the application is waiting for them.
EXIT_NOTICE_MS = 2_000
EXIT_USAGE = 2


def _parse_size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1600x1000, got {text!r}") from None
    if width < 400 or height < 300:
        raise argparse.ArgumentTypeError("the window must be at least 400x300")
    return width, height


def _read_for_screenshot(path: Path) -> Dataset | None:
    """Read ``path`` with the import preview's suggestions, or print why not (None).

    A screenshot run has nobody to read a message box, so problems go to stderr as
    ``stpca-gui: error: <file>: <reason>``; rows skipped for bad angles are listed there too
    instead of in a box that would cover the picture.
    """
    from ..model.table_import import import_with_suggestions  # numpy and the core

    try:
        dataset = import_with_suggestions(path)
    except (OSError, ValueError) as exc:  # a TableError is a ValueError
        reason = str(exc)
        if not reason.startswith(str(path)):
            reason = f"{path}: {reason}"
        print(f"stpca-gui: error: {reason}", file=sys.stderr)
        return None
    if dataset.dropped:
        print(f"stpca-gui: {path}: skipped {len(dataset.dropped)} row(s) with missing or "
              f"non-numeric angles; first: {dataset.dropped[0][1]}", file=sys.stderr)
    return dataset


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stpca-gui", description="Scaled Torus PCA workbench for angular data.")
    parser.add_argument("file", nargs="?", type=Path,
                        help="a table of angles or a session (.stpca) to open")
    # The names are checked once the numerical core is loaded (after the window is shown):
    # importing it here to list them would delay every start.
    parser.add_argument("--demo", default=None, metavar="NAME",
                        help=f"open a built-in demo (default when no file: {DEFAULT_DEMO}; "
                             "`stpca demos` lists them)")
    parser.add_argument("--screenshot", type=Path, default=None, metavar="OUT.png",
                        help="render the fitted window to a PNG and exit")
    parser.add_argument("--size", type=_parse_size, default=SCREENSHOT_SIZE, metavar="WxH",
                        help="window size for --screenshot (default 1600x1000)")
    parser.add_argument("--tour-export", type=Path, default=None, metavar="DIR",
                        help="render every step of the guided tour to DIR (PNGs and tour.md) "
                             "and exit")
    # Used when building the desktop bundle (packaging/build), which ships the compiled kernels.
    parser.add_argument("--compile-kernels", action="store_true", help=argparse.SUPPRESS)
    return parser


def join_background_tasks(window: MainWindow) -> None:
    """Stop the window's tasks and wait for every task thread to end (application exit).

    Qt aborts the process when a running QThread object is destroyed, which Python does at
    exit. The window is gone by now, so waiting costs the user nothing; every stage of a fit
    has cancel points, so the wait is normally a fraction of a second.
    """
    if not window.is_prepared("numerics"):
        return  # closed before it could start any task
    from .tasks import TaskRunner, stop_tasks, wait_for_retired_tasks  # loaded by the numerics

    if not stop_tasks(window.findChildren(TaskRunner), EXIT_NOTICE_MS):
        print("stpca-gui: waiting for a background computation to stop…", file=sys.stderr)
        wait_for_retired_tasks(None)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``stpca-gui`` console script."""
    args = build_parser().parse_args(argv)
    if args.compile_kernels:
        from ..core.warmup import warm_up  # the core, only for this

        warm_up()
        return 0
    if args.file is not None and args.demo is not None:
        build_parser().error("give a file or --demo, not both")
    if args.screenshot is not None and args.tour_export is not None:
        build_parser().error("give --screenshot or --tour-export, not both")
    if sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM"):
        # pyvistaqt's OpenGL widget needs the X11 platform (Wayland sessions use XWayland).
        os.environ["QT_QPA_PLATFORM"] = "xcb"
    if os.environ.get("QT_QPA_PLATFORM") == "xcb" and not os.environ.get("DISPLAY"):
        print("stpca-gui: no X display (DISPLAY is not set). Run it in a desktop session, or "
              "under a virtual display: xvfb-run uv run stpca-gui …", file=sys.stderr)
        return 1
    if os.environ.get("QT_QPA_PLATFORM") == "xcb" and sys.platform.startswith("linux"):
        # Qt aborts (exit 134) naming one library and no package when its platform plugin
        # cannot load: say everything that is missing, and what provides it, instead.
        problem = startup_problem()
        if problem:
            print(problem, file=sys.stderr)
            return 1
    screenshot_data = None
    batch = args.screenshot is not None or args.tour_export is not None
    if batch and args.file is not None and not looks_like_stpca_file(args.file):
        # Read before any window exists: an unreadable file is an error message, not a
        # window that closes without saying why.
        screenshot_data = _read_for_screenshot(args.file)
        if screenshot_data is None:
            return 1

    wants_head_start = (args.file is None and args.tour_export is None
                        and head_start.enabled())

    # Qt now that its libraries are known to be there (a missing one is the message above,
    # not an import error).
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from .app_icon import application_icon
    from .main_window import MainWindow
    from .startup import StartupTrace, call_after_first_paint

    trace = StartupTrace.from_environment()
    if trace is not None:
        trace.mark("main")
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("stpca-gui")
    app.setOrganizationName("stpca-gui")
    app.setDesktopFileName(APP_ID)  # Wayland and task managers match the desktop entry by it
    app.setWindowIcon(application_icon())
    window = MainWindow(deferred=True)
    app.aboutToQuit.connect(lambda: join_background_tasks(window))
    exit_code = {"value": 0}

    def finish(code: int) -> None:
        exit_code["value"] = code
        window.close()
        app.quit()

    def session_failed(message: str) -> None:
        print(f"stpca-gui: error: {message}", file=sys.stderr)
        finish(1)

    if args.screenshot is not None:
        window.resize(*args.size)

        def capture() -> None:
            app.processEvents()
            try:
                window.export_window(args.screenshot)
            except (OSError, ValueError) as exc:
                print(f"stpca-gui: cannot write screenshot: {exc}", file=sys.stderr)
                finish(1)
            else:
                print(f"stpca-gui: wrote {args.screenshot}")
                finish(0)

        def capture_unfitted_session(_path: Path) -> None:
            """A session saved without a fit has no result to wait for."""
            if window.state.result is None:
                window.when_ready(lambda: QTimer.singleShot(300, capture))

        def give_up(reason: str) -> None:
            print(f"stpca-gui: no screenshot: the fit {reason}", file=sys.stderr)
            finish(1)

        # Let the views finish drawing before grabbing them.
        window.result_shown.connect(lambda: QTimer.singleShot(300, capture))
        window.fit_ended.connect(give_up)
        QTimer.singleShot(SCREENSHOT_TIMEOUT_MS, lambda: give_up("timed out"))
    else:
        window.resize(1500, 950)
        if args.tour_export is None:
            window.asks_to_save = True
    if args.tour_export is not None:
        from .tour import TourExport  # with the model: only for this

        window.resize(*args.size)
        TourExport(window, args.tour_export, finish, timeout_ms=SCREENSHOT_TIMEOUT_MS)
    if trace is not None:
        _follow_startup(window, trace)
    window.show()
    if trace is not None:
        trace.mark("window_shown")

    def open_data() -> None:
        """Once the numerical core is in: load the data, which starts the fit."""
        from ..model.demos import DEMO_NAMES  # loaded with the numerics by now

        if batch:
            # The message box of a failed fit is not read by anyone: say why on stderr.
            window.controller.failed.connect(
                lambda message, _details: print(f"stpca-gui: error: {message}",
                                                file=sys.stderr))
            window.sessions.open_failed.connect(session_failed)
            if args.screenshot is not None:
                window.sessions.opened.connect(capture_unfitted_session)
            if args.demo is not None and args.demo not in DEMO_NAMES:
                print(f"stpca-gui: error: unknown demo {args.demo!r} (demos: "
                      f"{', '.join(DEMO_NAMES)})", file=sys.stderr)
                finish(EXIT_USAGE)
                return
        if screenshot_data is not None:
            window.set_dataset(screenshot_data)
        elif args.file is not None:
            window.open_path(args.file)
        else:
            window.load_demo(args.demo or DEFAULT_DEMO)

    if wants_head_start:
        # Started once the window is on screen (starting a process delays the first paint
        # on a busy machine), long before the numerics stage needs its result: the child
        # fits on the other core while the window imports and builds its views.
        started: list[head_start.HeadStart | None] = []

        def start_head_start() -> None:
            started.append(head_start.for_demo(args.demo or DEFAULT_DEMO))
            if trace is not None and started[0] is not None:
                trace.mark("head_start")  # the child is running

        call_after_first_paint(window, start_head_start)
        window.when_prepared("numerics", lambda: setattr(
            window.controller, "head_start", started[0] if started else None))
    window.when_prepared("numerics", open_data)
    app.exec()
    return exit_code["value"]


def _follow_startup(window: MainWindow, trace: StartupTrace) -> None:
    """Record the start-up steps of ``window`` in ``trace`` (``STPCA_STARTUP_TRACE``)."""
    from .startup import call_after_first_paint  # Qt: imported by main() after its checks

    def first_paint() -> None:
        trace.mark("first_paint")
        trace.watch_stalls()

    def result_shown() -> None:
        trace.mark("result_shown")
        trace.stop_watching()

    def numerics_ready() -> None:
        window.controller.busy_changed.connect(
            lambda busy: trace.mark("fit_started") if busy else None)
        window.controller.succeeded.connect(lambda _result: trace.mark("fit_done"))

    call_after_first_paint(window, first_paint)
    window.stage_done.connect(lambda stage: trace.mark(f"{stage}_ready"))
    window.when_prepared("numerics", numerics_ready)
    window.result_shown.connect(result_shown)


if __name__ == "__main__":
    sys.exit(main())
