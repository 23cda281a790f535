"""Menus built from a table: the actions of a menu bar, in order, by small builders.

:func:`menu_action` is the one way the app makes a menu action: its slot is called with no
argument. (``QAction(…, triggered=slot)`` hands ``slot`` the action's ``checked`` flag
whenever the slot accepts an argument, which is how *Open Structure or Trajectory…* once
received ``False`` as its topology.) Qt only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar

__all__ = ["SEPARATOR", "MenuEntry", "add_menus", "fill_menu", "menu_action", "toggle_action"]

#: A separator line in a menu's entries.
SEPARATOR = None
#: An entry of a menu: an action, a ready-made menu, a separator, or a submenu as
#: ``(title, entries)``.
MenuEntry = QAction | QMenu | None | tuple[str, Sequence["MenuEntry"]]
Shortcut = str | QKeySequence | QKeySequence.StandardKey | None


def menu_action(parent: QObject, text: str, slot: Callable[[], object], *,
                shortcut: Shortcut = None, enabled: bool = True, tip: str = "") -> QAction:
    """An action that calls ``slot()`` when triggered (never with ``checked``)."""
    action = QAction(text, parent, enabled=enabled)
    if shortcut is not None:
        action.setShortcut(shortcut)
    if tip:
        action.setToolTip(tip)
    action.triggered.connect(lambda: slot())
    return action


def toggle_action(parent: QObject, text: str, slot: Callable[[bool], object], *,
                  tip: str = "") -> QAction:
    """A checkable action that calls ``slot(checked)`` when it is toggled."""
    action = QAction(text, parent, checkable=True)
    if tip:
        action.setToolTip(tip)
    action.toggled.connect(lambda checked: slot(bool(checked)))
    return action


def fill_menu(menu: QMenu, entries: Sequence[MenuEntry]) -> None:
    """Add ``entries`` to ``menu``, in order."""
    for entry in entries:
        if entry is SEPARATOR:
            menu.addSeparator()
        elif isinstance(entry, QAction):
            menu.addAction(entry)
        elif isinstance(entry, QMenu):
            menu.addMenu(entry)
        else:
            title, items = entry
            fill_menu(menu.addMenu(title), items)


def add_menus(bar: QMenuBar, table: Sequence[tuple[str, Sequence[MenuEntry]]]) -> None:
    """Add one menu per ``(title, entries)`` of ``table`` to ``bar``, in order."""
    for title, entries in table:
        fill_menu(bar.addMenu(title), entries)
