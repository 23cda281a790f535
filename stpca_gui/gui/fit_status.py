"""What the status bar says of the window's fits: the stage, its progress, and Cancel.

Built with the window's *numerics* stage (the window's own status line, which says what
the window is preparing, exists before it). Like the other parts of the window, it sees
the window only as a :class:`~stpca_gui.gui.window_services.WindowServices`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QProgressBar, QPushButton

from ..core import ProgressEvent
from ..core.summary import stress_text
from ..model import AnalysisResult
from .menus import menu_action
from .progress_labels import stage_label

if TYPE_CHECKING:
    from .window_services import WindowServices

__all__ = ["FitStatus"]

#: Width of the status bar's progress bar, in pixels.
PROGRESS_WIDTH = 220


class FitStatus(QObject):
    """The fits' part of a main window's status bar, following its fit controller.

    Parameters
    ----------
    window : WindowServices

    Attributes
    ----------
    progress : QProgressBar
        The running fit's progress (shown while a fit runs).
    cancel_button : QPushButton
        Cancels the running fit (shown while a fit runs).
    cancel_action : QAction
        *Analysis → Cancel fit* (Esc), enabled while a fit runs.
    """

    def __init__(self, window: WindowServices) -> None:
        parent = window.widget()
        super().__init__(parent)
        self.window = window
        controller = window.controller
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(PROGRESS_WIDTH)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(controller.cancel)
        self.cancel_action = menu_action(parent, "&Cancel fit", controller.cancel,
                                         shortcut="Esc", enabled=False)
        parent.statusBar().addPermanentWidget(self.progress)
        parent.statusBar().addPermanentWidget(self.cancel_button)
        controller.busy_changed.connect(self.show_busy)
        controller.progress.connect(self.show_progress)

    def show_busy(self, busy: bool) -> None:
        """Show the progress bar and Cancel while a fit runs, from 0 %."""
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.cancel_action.setEnabled(busy)
        if busy:
            self.progress.setRange(0, 100)
            self.progress.setValue(0)

    def show_progress(self, event: ProgressEvent) -> None:
        """Say what the fit is doing: the stage (its message, or SMDS's iteration and
        stress) and the fraction done."""
        name = stage_label(event.stage)
        self.progress.setRange(0, 100)
        if event.stage == "smds":
            # No known end; the text moves with every iteration. (An animated busy bar
            # would repaint the window continuously.)
            self.progress.setValue(0)
            text = (f"{name}: iteration {event.iteration}, stress {stress_text(event.stress)}"
                    if event.iteration else f"{name}…")
        else:
            self.progress.setValue(round(100 * event.fraction))
            text = event.message or name
        self.window.messages.stage(text)

    def show_result(self, result: AnalysisResult) -> None:
        """Say how long the fit took and its main numbers."""
        seconds = sum(result.stage_seconds.values())
        landmarks = f" ({result.landmark_note})" if result.landmark_note else ""
        self.window.messages.stage(
            f"Fitted in {seconds:.2f} s{landmarks}: r = {result.radius:.3f}, stress "
            f"{stress_text(result.stress)}, PNS1 {100 * result.sphere_ratio[0]:.1f} % (sphere)")
