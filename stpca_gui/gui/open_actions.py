"""*File → Open…*, *Open Recent* and the *Demos* menu: data into the window.

A table opens through the import dialog (or with its suggestions, from the command line),
an ``.stpca`` file as a session. Built with the window's *numerics* stage; like the other
parts of the window, it sees the window only as a
:class:`~stpca_gui.gui.window_services.WindowServices`.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu

from ..files.sniff import looks_like_stpca_file
from ..io import TableError
from ..model import Dataset, RecentFiles
from ..model.demos import DEMO_NAMES, STRUCTURE_DEMOS, list_demos
from ..model.table_import import import_with_suggestions
from .import_dialog import ImportDialog
from .menus import menu_action

if TYPE_CHECKING:
    from .session_actions import SessionActions
    from .structure_dialog import StructureActions
    from .window_services import WindowServices

__all__ = ["OPEN_FILTERS", "SKIPPED_LINES_SHOWN", "OpenActions"]

OPEN_FILTERS = "Tables and sessions (*.csv *.tsv *.txt *.dat *.stpca);;All files (*)"
#: How many skipped lines of a table the message after opening it names.
SKIPPED_LINES_SHOWN = 20


class OpenActions(QObject):
    """The part of a main window that opens tables, sessions and demos.

    Parameters
    ----------
    window : WindowServices
    sessions : SessionActions
        Opens ``.stpca`` files, and asks before unsaved work is replaced.
    structures : StructureActions
        Opens the structure demos (:data:`~stpca_gui.model.demos.STRUCTURE_DEMOS`).
    recent : RecentFiles
        The list behind *Open Recent*.

    Attributes
    ----------
    open_action : QAction
        *File → Open…* (Ctrl+O).
    recent_menu : QMenu
        *File → Open Recent*.
    demo_actions : list of QAction
        The *Demos* menu: one entry per demo.
    """

    def __init__(self, window: WindowServices, sessions: SessionActions,
                 structures: StructureActions, recent: RecentFiles) -> None:
        parent = window.widget()
        super().__init__(parent)
        self.window = window
        self.sessions = sessions
        self.structures = structures
        self.recent = recent
        self.open_action = menu_action(parent, "&Open…", self.open_file_dialog,
                                       shortcut=QKeySequence.StandardKey.Open)
        self.recent_menu = QMenu("Open &Recent", parent)
        self.demo_actions: list[QAction] = [
            menu_action(parent, f"{name} — {description}", partial(self.load_demo, name))
            for name, description in list_demos()]
        self._refresh_recent_menu()

    def load_demo(self, name: str) -> None:
        """Show the demo ``name`` (one of :data:`~stpca_gui.model.demos.DEMO_NAMES`) and
        fit it (a structure demo through the structure dialog); another name is a
        message."""
        if name not in DEMO_NAMES:
            self.window.messages.error(f"Unknown demo {name!r}",
                                       f"Demos: {', '.join(DEMO_NAMES)}")
            return
        if name in STRUCTURE_DEMOS:
            self.structures.open_demo(name)  # read in the background, then fitted
            return
        self.window.set_dataset(Dataset.from_demo(name, random_state=0))

    def open_file_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window.widget(), "Open angle table",
                                              str(Path.home()), OPEN_FILTERS)
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path, *, interactive: bool = True) -> bool:
        """Open a table: through the import dialog, or with its suggestions when not
        interactive (command line); or a session. Returns whether data were loaded."""
        messages = self.window.messages
        if looks_like_stpca_file(Path(path)):
            return self.sessions.open_session(Path(path))
        if interactive:
            try:
                dialog = ImportDialog(path, self.window.widget())
            except (TableError, OSError, ValueError) as exc:
                messages.error("Cannot open the file", str(exc))
                return False
            if dialog.exec() != ImportDialog.DialogCode.Accepted:
                return False
            dataset = dialog.dataset()
            assert dataset is not None
        else:
            try:
                dataset = import_with_suggestions(path)
            except (OSError, ValueError) as exc:
                messages.error("Cannot read the file", str(exc))
                return False
        if not self.sessions.may_replace_work():
            return False
        self.remember_file(path)
        if dataset.dropped:
            shown = SKIPPED_LINES_SHOWN
            lines = ", ".join(str(line) for line, _ in dataset.dropped[:shown])
            more = ("" if len(dataset.dropped) <= shown
                    else f" and {len(dataset.dropped) - shown} more")
            messages.info(f"{len(dataset.dropped)} row(s) were skipped",
                          f"Rows with missing or non-numeric angles were skipped: lines "
                          f"{lines}{more}.\n\nFirst reason: {dataset.dropped[0][1]}")
        self.window.set_dataset(dataset)
        return True

    def remember_file(self, path: Path) -> None:
        """Add ``path`` to *File → Open Recent* (OSError when the list cannot be written)."""
        self.recent.add(path)
        self._refresh_recent_menu()

    def _refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        paths = self.recent.paths()
        for path in paths:
            self.recent_menu.addAction(menu_action(self.window.widget(), str(path),
                                                   partial(self.open_path, path)))
        self.recent_menu.setEnabled(bool(paths))
