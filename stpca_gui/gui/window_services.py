"""What the main window's parts may use of the window: a narrow interface, passed in.

The parts (opening data, the fits' status line, session actions, exports, structures,
the guided tour, script export, live fits) are built by the window and given the window
as a :class:`WindowServices`; they never import the window's module, so the app has no
import circles (an ``acyclic_siblings`` contract in pyproject.toml). The window implements
the protocol; :class:`WindowMessages` is the one way a part shows a message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt, SignalInstance
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox

if TYPE_CHECKING:
    from ..model import AppState, Dataset
    from .fit_controller import FitController
    from .panels import ParametersPanel
    from .views.base import ViewFrame

__all__ = ["WindowMessages", "WindowServices"]

#: Details longer than this go behind the message box's *Show Details…* button.
LONG_DETAILS = 400


class WindowMessages:
    """Message boxes (window-modal, never blocking) and status lines of one window.

    Parameters
    ----------
    window : QMainWindow
        The parent of the boxes, whose status bar shows the transient notes.
    stage_label : QLabel
        The permanent status line (what the window is doing or last did).
    """

    def __init__(self, window: QMainWindow, stage_label: QLabel) -> None:
        self._window = window
        self._stage_label = stage_label
        #: The newest box shown (tests and screenshots read it).
        self.last_box: QMessageBox | None = None

    def error(self, title: str, text: str, details: str = "") -> None:
        """A critical message box; long ``details`` go behind *Show Details…*."""
        self._box(QMessageBox.Icon.Critical, title, text, details)

    def info(self, title: str, text: str) -> None:
        """An information message box."""
        self._box(QMessageBox.Icon.Information, title, text)

    def ask(self, title: str, text: str, on_yes: Callable[[], None],
            yes_text: str = "Write Anyway") -> None:
        """A question box (window-modal, never blocking): ``on_yes`` runs when the user
        chooses ``yes_text``; *Cancel* (the default) does nothing."""
        box = QMessageBox(QMessageBox.Icon.Question, title, text,
                          QMessageBox.StandardButton.Cancel, self._window)
        yes = box.addButton(yes_text, QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.buttonClicked.connect(lambda button: on_yes() if button is yes else None)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        self.last_box = box
        box.open()

    def status(self, text: str, timeout_ms: int = 5000) -> None:
        """A transient note in the status bar."""
        self._window.statusBar().showMessage(text, timeout_ms)

    def stage(self, text: str) -> None:
        """Set the permanent status line."""
        self._stage_label.setText(text)

    def _box(self, icon: QMessageBox.Icon, title: str, text: str, details: str = "") -> None:
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self._window)
        if details:
            box.setInformativeText(details if len(details) < LONG_DETAILS else "")
            if len(details) >= LONG_DETAILS:
                box.setDetailedText(details)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        self.last_box = box
        box.open()


class WindowServices(Protocol):
    """The main window as its parts see it."""

    #: The application state every view reads (data set, result, selection, options).
    state: AppState
    #: Runs the window's fits in the background.
    controller: FitController
    messages: WindowMessages
    #: The *Parameters* panel (the settings of the next fit).
    parameters: ParametersPanel
    #: The views built so far, by key ("torus", "sphere", "scores", …).
    views: Mapping[str, ViewFrame]
    #: Whether closing or replacing unsaved work asks first.
    asks_to_save: bool
    #: ``result_shown()``: a result is drawn in every view.
    result_shown: SignalInstance
    #: ``fit_ended(outcome)``: a fit ended without a result ("failed" or "cancelled").
    fit_ended: SignalInstance
    #: ``stage_done(stage)``: a stage of preparing the window is done.
    stage_done: SignalInstance

    def widget(self) -> QMainWindow:
        """The window itself: the parent of dialogs and dock panels, and its title."""
        ...

    def when_ready(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the window is fully built (now if it is)."""
        ...

    def when_prepared(self, stage: str, callback: Callable[[], None]) -> None:
        """Call ``callback`` once ``stage`` (of :data:`~stpca_gui.gui.startup.STAGES`) is
        done (now if it is)."""
        ...

    def fit(self) -> None:
        """Fit the data shown with the panel's settings."""
        ...

    def set_dataset(self, dataset: Dataset, *, fit: bool = True) -> None:
        """Show new data (asking first when unsaved work would be replaced), and fit them."""
        ...

    def remember_file(self, path: Path) -> None:
        """Add ``path`` to *File → Open Recent*."""
        ...

    def open_tour(self) -> QObject | None:
        """Start the guided tour (:class:`~stpca_gui.gui.tour.GuidedTour`), or bring the
        running one to the front; None when there are no data to tour."""
        ...

    def export_window(self, path: Path) -> None:
        """Save a picture of the whole window to ``path``."""
        ...
