"""A place in the window for a view or panel that is built later, saying so until then.

The views import matplotlib or pyvista/VTK, which take seconds to load; the window is shown
first with a slot per view and each slot receives its view once it is built
(:class:`~stpca_gui.gui.main_window.MainWindow`). This module needs Qt only.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget


class ViewSlot(QWidget):
    """Holds a placeholder message until :meth:`fill` puts the real widget in its place."""

    def __init__(self, message: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.placeholder: QLabel | None = QLabel(message)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setStyleSheet("color: gray;")
        self.placeholder.setWordWrap(True)
        self._layout.addWidget(self.placeholder)
        self.content: QWidget | None = None

    def fill(self, widget: QWidget) -> None:
        """Show ``widget`` instead of the placeholder (once)."""
        if self.content is not None:
            raise RuntimeError("this slot already holds its view")
        if self.placeholder is not None:
            self._layout.removeWidget(self.placeholder)
            # Hidden now: deleteLater waits for the event loop it was called from, and a
            # dialog's own loop (the import dialog opened as the window starts) left the
            # text "Preparing the parameters…" painted over the Parameters heading.
            self.placeholder.hide()
            self.placeholder.deleteLater()
            self.placeholder = None
        self._layout.addWidget(widget)
        self.content = widget
