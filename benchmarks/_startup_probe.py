"""Start-up marks for versions of stpca-gui without ``STPCA_STARTUP_TRACE`` (before numbers).

``bench_startup.py`` runs ``uv run python _startup_probe.py [stpca-gui arguments]`` in such
a checkout. This wraps ``MainWindow.__init__`` (before ``main()`` runs) to watch the window's
first show and paint and its ``result_shown`` signal, and writes the same JSON as the app's
own trace (``{"marks": {name: time.time()}}``) to the file named by ``STPCA_STARTUP_TRACE``.
Versions with the trace never need it: they are measured through the real entry point.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

TRACE_ENV = "STPCA_STARTUP_TRACE"


def main() -> int:
    path = Path(os.environ[TRACE_ENV])
    marks: dict[str, float] = {"main": time.time()}

    def mark(name: str) -> None:
        if name not in marks:
            marks[name] = time.time()
            path.write_text(json.dumps({"marks": marks, "probe": True}))

    from PySide6.QtCore import QEvent, QObject

    from stpca_gui.gui import app
    from stpca_gui.gui.main_window import MainWindow

    class Watcher(QObject):
        def eventFilter(self, watched, event) -> bool:  # Qt API name
            if event.type() == QEvent.Type.Show:
                mark("window_shown")
            elif event.type() == QEvent.Type.Paint:
                mark("first_paint")
            return False

    original_init = MainWindow.__init__

    def init(self, *args, **kwargs) -> None:
        original_init(self, *args, **kwargs)
        self._startup_watcher = Watcher(self)
        self.installEventFilter(self._startup_watcher)
        self.result_shown.connect(lambda: mark("result_shown"))

    MainWindow.__init__ = init  # type: ignore[method-assign]
    return app.main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
