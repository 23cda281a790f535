"""Shared pieces of the views: a titled frame, colours from the shared state, export."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ...model import AppState
from ...plotting.state_colors import current_colors, current_groups, state_coloring

__all__ = ["ViewFrame", "current_colors", "current_groups", "state_coloring"]


class ViewFrame(QWidget):
    """A view with a title row (title, optional controls) above its content."""

    title_text: str = "View"
    #: File name stem used when exporting the view.
    export_stem: str = "view"

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(2, 2, 2, 2)
        self._layout.setSpacing(2)
        header = QHBoxLayout()
        self.title = QLabel(f"<b>{self.title_text}</b>")
        header.addWidget(self.title)
        header.addStretch(1)
        self.controls = header
        self._layout.addLayout(header)

    def set_content(self, widget: QWidget) -> None:
        self._layout.addWidget(widget, 1)

    # The views implement these.
    def export(self, path: Path, dpi: int = 150) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def render_image(self) -> QImage | None:
        """An image of the view for whole-window screenshots (None: grab the widget)."""
        return None

    def has_content(self) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def redraw(self, *_: object) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def show_state(self) -> None:
        """Draw the state as it is now (a view built after the data or result arrived,
        which missed their signals)."""
        self.redraw()
