"""*File → Export Figure* (one view, or the whole window) and *File → Export Results…*.

What a results export writes is :mod:`stpca_gui.model.result_export`; this part asks where,
writes in the background through a task runner (at 10⁶ rows the files and the frame order
of the state arrays take seconds: the window must not freeze meanwhile), and says how it
went. Like the other parts of the window, it sees the window only as a
:class:`~stpca_gui.gui.window_services.WindowServices`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject, QPoint, QRect, Qt
from PySide6.QtGui import QImage, QPainter, QPdfWriter
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMenu

from ..files.output_folder import ForeignFilesError
from ..io import atomic_path
from ..io.state_trajectories import STATES_TABLE, state_arrays_problem
from ..model.result_export import foreign_question, write_app_results
from ..model.tasks import TaskState
from .menus import menu_action
from .tasks import TaskRunner

if TYPE_CHECKING:
    from .window_services import WindowServices

__all__ = ["FIGURE_FILTERS", "WINDOW_FILTERS", "ExportActions"]

FIGURE_FILTERS = "PNG image (*.png);;SVG vector (*.svg);;PDF document (*.pdf)"
WINDOW_FILTERS = "PNG image (*.png);;PDF document (*.pdf)"


def _results_task(result, groups, folder: Path, session: Path | None, overwrite: bool,
                  state: TaskState):
    """Write the results set; return the files written and, when they hold no state
    arrays, why (None when the data have no frames), or the ForeignFilesError that makes
    the window ask."""
    state.progress(0.0, "writing the results…")
    try:
        written = write_app_results(result, groups, folder, session=session,
                                    overwrite=overwrite)
    except ForeignFilesError as error:
        return error
    problem = None
    if STATES_TABLE not in {path.name for path in written}:
        # Only then is the frame order worked out again, for the reason.
        problem = state_arrays_problem(result.dataset.provenance, result.dataset.source)
    return written, problem


class ExportActions(QObject):
    """The export part of a main window (built with its *numerics* stage).

    Parameters
    ----------
    window : WindowServices
    session_path : callable
        Returns the session file the window shows, if any (no export may replace it).

    Attributes
    ----------
    figure_menu : QMenu
        *Export Figure*: one entry per view built so far, and the whole window (filled
        when it is opened).
    results_action : QAction
        *Export Results…*.
    runner : TaskRunner
        Writes the results set in the background.
    last_written : list of Path
        The files the last results export wrote (tests read them).
    """

    def __init__(self, window: WindowServices,
                 session_path: Callable[[], Path | None]) -> None:
        super().__init__(window.widget())
        self.window = window
        self._session_path = session_path
        self.figure_menu = QMenu("Export &Figure", window.widget())
        self.figure_menu.aboutToShow.connect(self._fill_figure_menu)
        self.results_action = menu_action(window.widget(), "Export &Results…",
                                          self.export_results_dialog, shortcut="Ctrl+E")
        self.runner = TaskRunner(self)
        self.runner.succeeded.connect(self._results_written)
        self.runner.failed.connect(self._results_failed)
        self.last_written: list[Path] = []
        self._folder: Path | None = None

    def _fill_figure_menu(self) -> None:
        menu, parent = self.figure_menu, self.window.widget()
        menu.clear()
        for key, view in self.window.views.items():
            menu.addAction(menu_action(parent, f"{view.title_text}…",
                                       lambda k=key: self.export_view_dialog(k)))
        menu.addSeparator()
        menu.addAction(menu_action(parent, "Whole window…", self.export_window_dialog))

    # ------------------------------------------------------------------ writing
    def export_view(self, key: str, path: Path, dpi: int = 150) -> None:
        """Write one view to PNG, SVG or PDF (by extension)."""
        self.window.views[key].export(Path(path), dpi)

    def window_image(self) -> QImage:
        """The whole window as an image, with the 3-D views' renderings painted in."""
        widget = self.window.widget()
        image = widget.grab().toImage()
        painter = QPainter(image)
        for view in self.window.views.values():
            picture = view.render_image()
            if picture is None or not view.isVisible():
                continue
            # VTK draws outside Qt's backing store: paint its own rendering over the grab.
            content = view.plotter.interactor
            origin = content.mapTo(widget, QPoint(0, 0))
            painter.drawImage(QRect(origin, content.size()), picture)
        painter.end()
        return image

    def export_window(self, path: Path) -> None:
        """Write the whole window to PNG or PDF."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in (".png", ".pdf"):
            raise ValueError(f"the whole window can be saved as PNG or PDF, not {suffix!r}")
        image = self.window_image()
        with atomic_path(path) as tmp:
            if suffix == ".png":
                if not image.save(str(tmp), "PNG"):
                    raise OSError(f"cannot write {path}")
            else:
                writer = QPdfWriter(str(tmp))
                writer.setResolution(150)
                painter = QPainter(writer)
                target = painter.viewport()
                scaled = image.scaled(target.size(), Qt.AspectRatioMode.KeepAspectRatio,
                                      Qt.TransformationMode.SmoothTransformation)
                painter.drawImage(0, 0, scaled)
                painter.end()

    def export_results(self, folder: Path, *, overwrite: bool = False) -> list[Path]:
        """Scores, embedding, principal curve, selection (CSV) and summary (JSON); never
        over the data set's source file or the open session, into a folder written as a
        whole (:func:`~stpca_gui.model.result_export.write_app_results`)."""
        state = self.window.state
        if state.result is None:
            raise ValueError("there is no result to export yet")
        return write_app_results(state.result, state.selection.groups, folder,
                                 session=self._session_path(), overwrite=overwrite)

    # ------------------------------------------------------------------ dialogs
    def export_view_dialog(self, key: str) -> None:
        view, parent = self.window.views[key], self.window.widget()
        if not view.has_content():
            self.window.messages.info("Nothing to export", "This view has nothing drawn yet.")
            return
        path, chosen = QFileDialog.getSaveFileName(parent, f"Export {view.title_text}",
                                                   f"{view.export_stem}.png", FIGURE_FILTERS)
        if not path:
            return
        path = with_suffix(path, chosen)
        dpi = 150
        if path.suffix.lower() == ".png":
            dpi, ok = QInputDialog.getInt(parent, "Resolution", "Dots per inch:", 150, 50, 1200)
            if not ok:
                return
        self.guarded(lambda: self.export_view(key, path, dpi), f"Exported {path}")

    def export_window_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self.window.widget(), "Export window",
                                                   "stpca-window.png", WINDOW_FILTERS)
        if path:
            path = with_suffix(path, chosen)
            self.guarded(lambda: self.export_window(path), f"Exported {path}")

    def export_results_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.window.widget(),
                                                  "Export results to folder")
        if folder:
            self.export_results_to(Path(folder))

    def export_results_to(self, folder: Path, *, overwrite: bool = False) -> None:
        """Export the results into ``folder`` in the background; ask first when it holds
        files stpca-gui did not write. Say why when data with frames get no state arrays
        (the command line warns too)."""
        state = self.window.state
        if state.result is None:
            self.window.messages.info("Nothing to export", "Fit the data first.")
            return
        self._folder = Path(folder)
        groups = np.array(state.selection.groups)  # the selection may change meanwhile
        self.window.messages.status(f"Writing the results to {folder}…", 120_000)
        self.runner.start(partial(_results_task, state.result, groups, self._folder,
                                  self._session_path(), overwrite))

    def _results_failed(self, message: str, _details: str) -> None:
        self.window.messages.status("Results not written")
        self.window.messages.error("Export failed", message.split(": ", 1)[-1])

    def _results_written(self, outcome) -> None:
        folder = self._folder
        if isinstance(outcome, ForeignFilesError):
            self.window.messages.status("Results not written yet: the folder holds other files")
            self.window.messages.ask("Folder holds other files", foreign_question(outcome),
                                     lambda: self.export_results_to(folder, overwrite=True))
            return
        self.last_written, problem = outcome
        self.window.messages.status(f"Results written to {folder}")
        if problem is not None:
            self.window.messages.info(
                "No state arrays", f"{problem}. The other results were written; state "
                "arrays (for Markov-model tools) need one row per frame of each trajectory.")

    def guarded(self, export: Callable[[], object], success: str) -> None:
        """Run ``export`` (a figure, here on the GUI thread: it draws widgets): its
        OSError or ValueError is a message box, success a status note."""
        try:
            export()
        except (OSError, ValueError) as exc:
            self.window.messages.error("Export failed", str(exc))
        else:
            self.window.messages.status(success)


def with_suffix(path: str, chosen_filter: str) -> Path:
    """``path``, with the extension of the file dialog's chosen filter when it has none."""
    out = Path(path)
    if not out.suffix:
        ext = chosen_filter.split("*")[-1].rstrip(")") if "*" in chosen_filter else ".png"
        out = out.with_suffix(ext)
    return out
