"""File → Open Session / Save Session, the window title's session name and modified marker,
and the question before unsaved work is closed or replaced.

The session file itself is :mod:`stpca_gui.model.session_file`. Saving runs in the GUI
thread (a session of 10⁵ points is saved in about 40 ms, ``benchmarks/bench_session.py``).
Opening a file larger than :data:`BACKGROUND_OPEN_BYTES` reads and checks it in the
background task runner, so a large (or hostile) file cannot freeze the window; smaller ones
are read at once. Either way the session is installed only once it has been read and
checked entirely, and if installing it fails anyway the previous work is put back: an open
changes everything or nothing (window, title, file path). Saving refuses to write over the
data set's source file.

What makes the window *modified*: a new fit, a change of the selection or the active
group, the colour mode, the view options, the torus layout, or a camera moved by the user.
New data (a demo, a table, a lagged embedding: ``MainWindow.set_dataset``) start new,
unmodified work, and so does the fit that follows them automatically; replacing modified
work asks first, as closing the window does.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ..files.clash import check_outputs
from ..files.sniff import STPCA_SUFFIX as SESSION_SUFFIX
from ..model.session_file import (
    Session,
    apply_session,
    load_session,
    save_session,
    session_from_state,
)
from .menus import menu_action
from .tasks import TaskRunner

if TYPE_CHECKING:
    from .window_services import WindowServices

SESSION_FILTER = "stpca sessions (*.stpca)"
#: The views with choices of their own, and the window stage that builds each.
VIEW_STAGES = {"torus": "torus", "sphere": "sphere", "free_energy": "plots",
               "contributions": "plots"}
#: Answers of :meth:`SessionActions.ask_save_changes`.
SAVE, DISCARD, CANCEL = "save", "discard", "cancel"
#: Session files at least this large are opened in the background.
BACKGROUND_OPEN_BYTES = 8 << 20


class SessionActions(QObject):
    """The session part of a :class:`MainWindow` (built with its *numerics* stage).

    Attributes
    ----------
    path : Path or None
        The session file the window shows (opened or saved last), if any.
    """

    #: Emitted with the path once a session is shown in the window.
    opened = Signal(Path)
    #: Emitted with the message when a session cannot be opened (the window is unchanged).
    open_failed = Signal(str)
    #: Emitted with the path after a save.
    saved = Signal(Path)

    def __init__(self, window: WindowServices) -> None:
        super().__init__(window.widget())
        self.window = window
        self.path: Path | None = None
        self._source_hash: tuple[object, str | None] = (None, None)
        self._applying = False
        #: Data loaded as new work, whose first fit does not modify the window.
        self._fresh: object = None
        #: View choices of an opened session for views not built yet.
        self._pending_views: dict[str, dict[str, Any]] = {}
        #: Reads large session files in the background (made when first needed).
        self._runner: TaskRunner | None = None
        self.open_action = menu_action(self, "Open &Session…", self.open_dialog)
        self.save_action = menu_action(self, "&Save Session", self.save,
                                       shortcut=QKeySequence.StandardKey.Save)
        self.save_as_action = menu_action(self, "Save Session &As…", self.save_as_dialog,
                                          shortcut="Ctrl+Shift+S")
        state = window.state
        state.dataset_changed.connect(self._on_dataset)
        state.result_changed.connect(self._on_result)
        for signal in (state.color_mode_changed, state.view_options_changed,
                       state.selection.changed, state.selection.active_group_changed):
            signal.connect(self.mark_modified)
        window.stage_done.connect(self._on_stage_done)

    # ----------------------------------------------------------------- modified
    @property
    def modified(self) -> bool:
        return self.window.widget().isWindowModified()

    def mark_modified(self, *_: object) -> None:
        if not self._applying and self.window.state.dataset is not None:
            self.window.widget().setWindowModified(True)

    def mark_clean(self) -> None:
        self.window.widget().setWindowModified(False)

    def update_title(self) -> None:
        dataset = self.window.state.dataset
        name = self.path.stem if self.path is not None else (
            dataset.name if dataset is not None else "")
        # Qt wants the "[*]" placeholder in every title that setWindowModified may mark.
        self.window.widget().setWindowTitle(f"{name}[*] — stpca-gui" if name
                                   else "stpca-gui — Scaled Torus PCA[*]")

    def _on_dataset(self, *_: object) -> None:
        self.mark_modified()
        self.update_title()

    def _on_result(self, result: object) -> None:
        if result is None:
            return
        if getattr(result, "dataset", None) is self._fresh:
            self._fresh = None  # the fit that follows new data: still unmodified
            return
        self.mark_modified()

    def started_new_work(self) -> None:
        """New data were loaded (a demo, a table): no session, nothing modified yet."""
        self.path = None
        self._pending_views.clear()
        self._fresh = self.window.state.dataset
        self.mark_clean()
        self.update_title()

    def _on_stage_done(self, stage: str) -> None:
        for key, view_stage in VIEW_STAGES.items():
            if view_stage == stage and key in self.window.views:
                view = self.window.views[key]
                # A camera the user moved, another layout or component is a change to save.
                plotter = getattr(view, "plotter", None)
                if plotter is not None:
                    plotter.iren.add_observer("EndInteractionEvent",
                                              lambda *_: self.mark_modified())
                for name in ("layout_combo", "component_combo"):
                    combo = getattr(view, name, None)
                    if combo is not None:
                        combo.currentIndexChanged.connect(self.mark_modified)

    # ----------------------------------------------------------- unsaved work
    def ask_save_changes(self) -> str:
        """Ask whether to save the unsaved changes: :data:`SAVE`, :data:`DISCARD` or
        :data:`CANCEL` (tests replace this method; it is the only modal question)."""
        title = self.window.widget().windowTitle()
        name = self.path.name if self.path is not None else title.split("[*]")[0]
        buttons = (QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                   | QMessageBox.StandardButton.Cancel)
        answer = QMessageBox.question(
            self.window.widget(), "Unsaved changes",
            f"Save the changes to {name} as a session before they are lost?", buttons,
            QMessageBox.StandardButton.Save)
        return {QMessageBox.StandardButton.Save: SAVE,
                QMessageBox.StandardButton.Discard: DISCARD}.get(answer, CANCEL)

    def may_replace_work(self) -> bool:
        """Whether the current work may go: nothing unsaved, or the user saved or
        discarded it. Only the app asks (:attr:`MainWindow.asks_to_save`)."""
        if not self.modified or not self.window.asks_to_save:
            return True
        answer = self.ask_save_changes()
        if answer == SAVE:
            return self.save()
        if answer == DISCARD:
            self.mark_clean()  # dropped: replacing it must not ask again
            return True
        return False

    # ------------------------------------------------------------------- saving
    def view_states(self) -> dict[str, dict[str, Any]]:
        """Each view's choices (views not built yet keep those of the opened session)."""
        states = dict(self._pending_views)
        for key, view in self.window.views.items():
            state = view.view_state() if hasattr(view, "view_state") else {}
            if state:
                states[key] = state
        return states

    def current_session(self, name: str = "") -> Session:
        window = self.window
        dataset = window.state.dataset
        known_hash = self._source_hash[1] if self._source_hash[0] is dataset else None
        return session_from_state(window.state, window.parameters.parameters(),
                                  self.view_states(), name=name, source_sha256=known_hash)

    def save(self) -> bool:
        """Save to the session's file, or ask for one (Save Session As). Returns whether
        the work was saved."""
        if self.path is None:
            return self.save_as_dialog()
        return self.save_to(self.path)

    def save_as_dialog(self) -> bool:
        if self.window.state.dataset is None:
            self.window.messages.info("Nothing to save", "Open data or a demo first.")
            return False
        start = str(self.path) if self.path is not None else str(
            Path.home() / f"{self.window.state.dataset.name}{SESSION_SUFFIX}")
        path, _ = QFileDialog.getSaveFileName(self.window.widget(), "Save session", start,
                                              SESSION_FILTER)
        if not path:
            return False
        target = Path(path)
        if target.suffix.lower() != SESSION_SUFFIX:
            target = target.with_name(target.name + SESSION_SUFFIX)
        return self.save_to(target)

    def save_to(self, path: Path) -> bool:
        """Write the session to ``path``; a failure is a message, the work stays unsaved."""
        path = Path(path)
        try:
            session = self.current_session(path.stem)
            if not session.dataset.is_demo:
                check_outputs([("the session", path)],
                              [("the data set's source file", session.dataset.source)])
            save_session(session, path)
        except (OSError, ValueError, TypeError) as exc:
            self.window.messages.error("Cannot save the session", f"{path}: {exc}"
                                      if str(path) not in str(exc) else str(exc))
            return False
        self.path = path
        self._source_hash = (session.dataset, session.source_sha256)
        # A fit that ends after the save (e.g. the first fit of new data) changes the work.
        self._fresh = None
        self.mark_clean()
        self.update_title()
        self._remember(path)
        self.window.messages.status(f"Saved session {path}")
        self.saved.emit(path)
        return True

    # ------------------------------------------------------------------ opening
    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window.widget(), "Open session",
                                              str(Path.home()),
                                              f"{SESSION_FILTER};;All files (*)")
        if path:
            self.open_session(Path(path))

    def open_session(self, path: Path) -> bool:
        """Open a session file in the window; a bad file gives a message naming it and the
        problem and changes nothing. Returns whether it was opened, or for a file of at
        least :data:`BACKGROUND_OPEN_BYTES`, whether reading it started (:attr:`opened`
        or :attr:`open_failed` follows)."""
        path = Path(path)
        try:
            large = path.stat().st_size >= BACKGROUND_OPEN_BYTES
        except OSError:
            large = False  # load_session names the problem
        if large:
            self._open_in_background(path)
            return True
        try:
            session = load_session(path)
        except ValueError as exc:  # SessionFileError, and anything unforeseen alike
            self._open_failed(str(exc))
            return False
        return self._install(session, path)

    def _open_in_background(self, path: Path) -> None:
        if self._runner is None:
            self._runner = TaskRunner(self)
            self._runner.succeeded.connect(lambda loaded: self._install(*loaded))
            self._runner.failed.connect(
                lambda message, _details: self._open_failed(message.partition(": ")[2]
                                                            or message))
        self.window.messages.status(f"Reading session {path}…", 0)
        self._runner.start(lambda _state: (load_session(path), path))

    def _open_failed(self, message: str) -> None:
        self.window.messages.error("Cannot open the session", message)
        self.open_failed.emit(message)

    def _install(self, session: Session, path: Path) -> bool:
        if not self.may_replace_work():
            return False
        try:
            self.show_session(session, path)
        except Exception as exc:  # put the previous work back: all or nothing
            self._open_failed(f"{path}: cannot be shown ({type(exc).__name__}: {exc}); "
                              "the window is as it was")
            return False
        return True

    def _snapshot(self) -> dict[str, Any]:
        """What an open may change, to put back when it fails half-way."""
        window = self.window
        session = None
        if window.state.dataset is not None:
            try:
                session = session_from_state(window.state, window.parameters.parameters(),
                                             self.view_states(),
                                             source_sha256=self._source_hash[1])
            except (ValueError, TypeError):
                session = None
        return {"session": session, "path": self.path, "fresh": self._fresh,
                "source_hash": self._source_hash, "pending": dict(self._pending_views),
                "modified": window.widget().isWindowModified(),
                "title": window.widget().windowTitle()}

    def _put_back(self, snapshot: dict[str, Any]) -> None:
        window = self.window
        self._applying = True
        try:
            session = snapshot["session"]
            if session is not None:
                apply_session(session, window.state)
                window.parameters.set_parameters(session.parameters)
            else:
                window.state.set_dataset(None)
        finally:
            self._applying = False
        self.path = snapshot["path"]
        self._fresh = snapshot["fresh"]
        self._source_hash = snapshot["source_hash"]
        self._pending_views = snapshot["pending"]
        window.widget().setWindowTitle(snapshot["title"])
        window.widget().setWindowModified(snapshot["modified"])

    def show_session(self, session: Session, path: Path) -> None:
        """Install a loaded session: data, fit, settings, selection, colours and views.
        When installing fails half-way, the previous work is put back and the error
        raised."""
        window = self.window
        window.controller.cancel()  # a running fit belongs to the work being replaced
        snapshot = self._snapshot()
        self._applying = True
        try:
            apply_session(session, window.state)
            window.parameters.set_parameters(session.parameters)
        except BaseException:
            self._applying = False
            self._put_back(snapshot)
            raise
        finally:
            self._applying = False
        self.path = path
        self._fresh = None
        self._source_hash = (session.dataset, session.source_sha256)
        self._pending_views = {key: dict(value) for key, value in session.views.items()
                               if isinstance(value, dict)}
        for key, stage in VIEW_STAGES.items():
            window.when_prepared(stage, lambda k=key: self._restore_view(k))
        self.mark_clean()
        self.update_title()
        self._remember(path)
        result = session.result
        window.messages.stage(f"Opened session {path.name}" + (
            "" if result is None else f": r = {result.radius:.3f}, stress {result.stress:.4f}"))
        if result is not None:
            window.when_ready(window.result_shown.emit)
        self.opened.emit(path)

    def _restore_view(self, key: str) -> None:
        state = self._pending_views.pop(key, None)
        view = self.window.views.get(key)
        if state and view is not None and hasattr(view, "restore_view_state"):
            self._applying = True
            try:
                view.restore_view_state(state)
            finally:
                self._applying = False

    def _remember(self, path: Path) -> None:
        try:
            self.window.remember_file(path)
        except OSError:
            pass  # the list is a convenience: the session itself is fine
