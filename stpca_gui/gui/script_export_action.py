"""*File → Export as Python Script…*: the window's data and fit settings as a script that
refits them (:mod:`stpca_gui.model.script_export`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ..files.output_folder import ForeignFilesError
from ..model.result_export import foreign_question
from ..model.script_export import export_script
from .menus import menu_action
from .tasks import TaskRunner, show_task_error

if TYPE_CHECKING:
    from ..model import FitParameters
    from .window_services import WindowServices

SCRIPT_FILTER = "Python script (*.py)"


@dataclass(frozen=True)
class _Refused:
    """The export refused to replace files stpca-gui did not write (the user is asked)."""

    path: Path
    error: ForeignFilesError


class ScriptExportAction(QObject):
    """The menu action, enabled while data are loaded, and the export it runs.

    The script reproduces the current result's fit when there is one, else the fit the
    *Parameters* panel would start. Checking that the data can be read again from their
    source reads the file, so the export runs in the background.
    """

    #: Emitted with the files written (the script first).
    written = Signal(list)

    def __init__(self, window: WindowServices) -> None:
        super().__init__(window.widget())
        self.window = window
        self.last_message_box: QMessageBox | None = None
        self.action = menu_action(window.widget(), "Export as Python &Script…",
                                  self.export_dialog, enabled=False)
        self.action.setStatusTip("Write a Python script that reloads the data, refits with "
                                 "the same settings and seed, and writes the results")
        self.runner = TaskRunner(self)
        self.runner.succeeded.connect(self._on_written)
        self.runner.failed.connect(self._on_failure)
        window.state.dataset_changed.connect(
            lambda dataset: self.action.setEnabled(dataset is not None))

    def parameters(self) -> FitParameters:
        """The settings of the current result, else the panel's (ValueError if invalid)."""
        result = self.window.state.result
        return result.parameters if result is not None else self.window.parameters.parameters()

    def export_dialog(self) -> None:
        dataset = self.window.state.dataset
        if dataset is None:
            return
        default = f"{Path(dataset.name).stem}_stpca.py"
        path, _ = QFileDialog.getSaveFileName(self.window.widget(), "Export as Python Script",
                                              default,
                                              SCRIPT_FILTER)
        if path:
            self.export(Path(path) if Path(path).suffix else Path(path).with_suffix(".py"))

    def export(self, path: Path, *, overwrite: bool = False) -> None:
        """Write the script (and the data copy) to ``path`` in the background; when the
        data copy would replace a file stpca-gui did not write, ask first, as *Export
        Results* does, and write anyway (``overwrite``) on *Write Anyway*."""
        dataset = self.window.state.dataset
        try:
            parameters = self.parameters()
        except ValueError as exc:
            self._show(QMessageBox.Icon.Critical, "Invalid parameters", str(exc))
            return

        def write(_state):
            try:
                return export_script(dataset, parameters, path, overwrite=overwrite)
            except ForeignFilesError as refusal:
                return _Refused(path, refusal)  # a question, not a failure

        self.runner.start(write)

    def _on_written(self, outcome) -> None:
        if isinstance(outcome, _Refused):
            self.window.messages.ask("Folder holds other files",
                                     foreign_question(outcome.error),
                                     lambda: self.export(outcome.path, overwrite=True))
            return
        export, files = outcome
        text = "Wrote " + ", ".join(str(path) for path in files) + "."
        self._show(QMessageBox.Icon.Information, "Script written",
                   f"{text}\n\n{export.reading_note()}\nRun: python {files[0]} --out DIR")
        self.window.messages.status(f"Wrote {files[0]}")
        self.written.emit(files)

    def _on_failure(self, message: str, details: str) -> None:
        self.last_message_box = show_task_error(
            self.window.widget(), "Export as Python Script failed", message, details)

    def _show(self, icon: QMessageBox.Icon, title: str, text: str) -> None:
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok,
                          self.window.widget())
        box.setWindowModality(Qt.WindowModality.WindowModal)
        self.last_message_box = box
        box.open()
