"""Every action of every menu of the main window, triggered once through its QAction.

Issue 31, item 1: *File → Open Structure or Trajectory…* did nothing (a TypeError in the
slot: the action's ``checked`` argument landed in a parameter) while the tests, calling the
method directly, passed. Here the menus are driven as a user drives them: every action,
submenus included, is triggered with :meth:`QAction.trigger` on a fitted window. File
dialogs are stubbed (an open dialog offers a small table, a save dialog a path under the
test's folder), the dialogs the actions open are closed by the test, and nothing may raise,
print a traceback, log a Qt warning or show an error message.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from gui_probes import FIT_TIMEOUT_MS
from PySide6.QtCore import QTimer, QtMsgType, qInstallMessageHandler
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QMenu, QMessageBox

pytest.importorskip("pytestqt")

#: Actions that are disabled on a fitted, idle window (checked separately).
DISABLED_WHEN_IDLE = {"&Cancel fit"}

pytestmark = pytest.mark.usefixtures("display")


class DialogCloser:
    """Closes every dialog and message box other windows open, also inside the nested event
    loops of modal ones (QInputDialog.getInt …), and records the message boxes."""

    def __init__(self, window) -> None:
        self.window = window
        self.boxes: list[tuple[QMessageBox.Icon, str, str]] = []
        self.timer = QTimer(interval=20)
        self.timer.timeout.connect(self.close_all)
        self.timer.start()

    def close_all(self) -> None:
        for widget in QApplication.topLevelWidgets():
            if widget is self.window or not widget.isVisible() or not isinstance(
                    widget, QDialog):
                continue
            if isinstance(widget, QMessageBox):
                self.boxes.append((widget.icon(), widget.windowTitle(), widget.text()))
            widget.reject()

    def stop(self) -> None:
        self.timer.stop()
        self.close_all()


def menu_actions(menu: QMenu) -> list[QAction]:
    """The menu's actions, submenus' actions included (menus filled when shown are
    filled first), in menu order."""
    menu.aboutToShow.emit()
    actions = []
    for action in menu.actions():
        if action.isSeparator():
            continue
        if action.menu() is not None:
            actions += menu_actions(action.menu())
        else:
            actions.append(action)
    return actions


def settled(window) -> bool:
    """No fit and no background task of the window running."""
    from stpca_gui.gui.tasks import TaskRunner

    return not window.controller.busy and not any(
        runner.busy for runner in window.findChildren(TaskRunner))


@pytest.fixture
def stub_file_dialogs(monkeypatch, tmp_path):
    """Open dialogs offer a small angle table (a session dialog: nothing); save dialogs a
    path under ``tmp_path`` with the suggested name; folder dialogs a new folder."""
    table = tmp_path / "angles.csv"
    table.write_text("phi,psi\n" + "".join(f"{k / 10 - 3:.2f},{(k * 7 % 60) / 10 - 3:.2f}\n"
                                             for k in range(60)))
    asked: list[str] = []

    def open_name(parent, caption="", directory="", filter="", *args, **kwargs):
        asked.append(caption)
        return ("", "") if "session" in caption.lower() else (str(table), filter)

    def open_names(parent, caption="", directory="", filter="", *args, **kwargs):
        asked.append(caption)
        return ([], "")

    def save_name(parent, caption="", directory="", filter="", *args, **kwargs):
        asked.append(caption)
        return str(tmp_path / "saved" / Path(directory).name), filter.split(";;")[0]

    def folder(parent, caption="", directory="", *args, **kwargs):
        asked.append(caption)
        path = tmp_path / f"folder-{len(asked)}"
        path.mkdir()
        return str(path)

    (tmp_path / "saved").mkdir()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(open_name))
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(open_names))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_name))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(folder))
    return asked


@pytest.fixture
def failures(monkeypatch):
    """Exceptions of slots and threads, and Qt's warnings, collected during the test."""
    found: list[str] = []

    def excepthook(kind, value, traceback):
        found.append(f"{kind.__name__}: {value}")
        sys.__excepthook__(kind, value, traceback)

    def thread_hook(args):
        found.append(f"in thread {args.thread}: {args.exc_type.__name__}: {args.exc_value}")

    def qt_messages(kind, context, message):
        if kind in (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg):
            found.append(f"Qt {kind.name}: {message}")

    monkeypatch.setattr(sys, "excepthook", excepthook)
    monkeypatch.setattr(threading, "excepthook", thread_hook)
    previous = qInstallMessageHandler(qt_messages)
    yield found
    qInstallMessageHandler(previous)


def test_every_menu_action_triggers_without_error(qtbot, window, tmp_path, capfd,
                                                  stub_file_dialogs, failures):
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.load_demo("clusters-t2")
    window.remember_file(tmp_path / "angles.csv")  # an Open Recent entry (the stubs' table)
    closer = DialogCloser(window)
    menus = [action.menu() for action in window.menuBar().actions()]
    triggered: list[str] = []
    disabled: list[str] = []
    quit_action = None
    try:
        for menu in menus:
            for action in menu_actions(menu):
                if action.text() == "&Quit":
                    quit_action = action  # last: it closes the window
                    continue
                if not action.isEnabled():
                    disabled.append(action.text())
                    continue
                action.trigger()
                triggered.append(action.text())
                closer.close_all()
                if window.tour is not None:
                    window.tour.close()
                qtbot.waitUntil(lambda: settled(window), timeout=FIT_TIMEOUT_MS)
                assert window.state.result is not None or window.controller.busy, (
                    f"{action.text()} left the window without a result")
                assert not failures, f"after {action.text()!r}: {failures}"
        # The one action disabled while idle, during a fit.
        assert set(disabled) == DISABLED_WHEN_IDLE
        window.fit()
        cancel = next(a for menu in menus for a in menu_actions(menu)
                      if a.text() in DISABLED_WHEN_IDLE)
        assert cancel.isEnabled()
        with qtbot.waitSignal(window.fit_ended, timeout=FIT_TIMEOUT_MS) as ended:
            cancel.trigger()
        assert ended.args == ["cancelled"]
        qtbot.waitUntil(lambda: settled(window), timeout=FIT_TIMEOUT_MS)
        assert quit_action is not None
        quit_action.trigger()
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=10_000)
    finally:
        closer.stop()
    assert not failures, failures
    errors = [box for box in closer.boxes if box[0] == QMessageBox.Icon.Critical]
    assert not errors, errors
    # Every menu was reached: a demo of each kind, the structure dialog, every export.
    for text in ("&Open…", "Open &Structure or Trajectory…", "Export &Results…",
                 "Cluster &representatives…", "Export as Python &Script…", "Whole window…",
                 "&Lagged embedding…", "Compare &methods…", "&Uniformity tests…",
                 "Guided &Tour", "&About", "Group 4"):
        assert text in triggered, f"{text} was not in the menus"
    assert any(text.startswith("small-rna") for text in triggered)
    # The dialogs the actions asked through were the stubs (nothing else was waited on).
    assert {"Open angle table", "Export results to folder", "Export as Python Script",
            "Save session"} <= set(stub_file_dialogs)
    assert list((tmp_path / "saved").glob("*.py")), "the script export wrote nothing"
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err + captured.out, captured.err


def test_the_window_offers_what_its_parts_may_use(window):
    """The parts see the window as a WindowServices: the window has every member."""
    from stpca_gui.gui.window_services import WindowServices

    members = set(WindowServices.__annotations__) | {
        name for name in vars(WindowServices) if not name.startswith("_")}
    assert {"state", "messages", "views", "set_dataset", "export_window"} <= members
    assert [name for name in sorted(members) if not hasattr(window, name)] == []
