"""A splitter that shares its room in a fixed proportion until the user moves its handle."""

from __future__ import annotations

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSplitter, QWidget

__all__ = ["ProportionalSplitter"]


class ProportionalSplitter(QSplitter):
    """A two-widget ``QSplitter`` giving its first widget ``first_share`` of the room.

    A plain ``QSplitter`` hands out its first room by the widgets' size hints and then
    spreads every change of its size by the stretch factors, so a widget that was small
    when the window was built (a slot still showing its placeholder) stays at its least
    height for good. This one sets the proportion on every resize (the widgets' least
    heights still hold) until the user drags the handle; from then on the user's split is
    kept as ``QSplitter`` keeps it.
    """

    def __init__(self, orientation, first_share: float, parent: QWidget | None = None) -> None:
        super().__init__(orientation, parent)
        if not 0.0 < first_share < 1.0:
            raise ValueError(f"first_share must lie in (0, 1), got {first_share}")
        self.first_share = first_share
        #: Whether the user has moved the handle (the proportion is then theirs).
        self.moved_by_user = False
        self.splitterMoved.connect(self._on_moved)

    def _on_moved(self, *_: object) -> None:
        self.moved_by_user = True

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self.moved_by_user and self.count() == 2:
            room = sum(self.sizes())
            first = round(self.first_share * room)
            self.setSizes([first, room - first])
