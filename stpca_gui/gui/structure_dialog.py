"""File → Open Structure or Trajectory…, and Export → Cluster representatives.

The dialog reads torsions (:mod:`stpca_gui.model.structures`) in its task runner, with
progress and cancel; its data set replaces the window's only when the reading succeeded.
Trajectory files are a list (several files of one topology are separate runs, or one run
with *Concatenate*). The selection is checked as it is typed against the topology, which
is loaded (in the task runner) when it is chosen; the check runs in a runner of its own,
its cost bounded (:func:`~stpca_gui.io.structures.select_atoms`) and its wait limited to
:data:`PREVIEW_TIME_LIMIT_MS`, so typing never freezes the window.
"""

from __future__ import annotations

import importlib.util
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..files.output_folder import ForeignFilesError
from ..io.structures import (
    INSTALL_HINT,
    LAYOUTS,
    SET_NAMES,
    DihedralSettings,
    StructureError,
    open_topology,
    select_atoms,
)
from ..model.demos import structure_demo
from ..model.result_export import ASKED, foreign_question
from ..model.structures import LABEL_CHOICES, export_representatives, read_structure_dataset
from ..model.tasks import TaskProgress, TaskState
from .menus import menu_action
from .representatives_dialog import RepresentativesDialog
from .structure_inputs import (
    DIALOG_WIDTH,
    TOPOLOGY_FILTER,
    TrajectoryList,
    with_browse,
)
from .tasks import TaskRunner

if TYPE_CHECKING:
    from ..model import Dataset
    from .window_services import WindowServices

__all__ = ["StructureActions", "StructureDialog", "TrajectoryList"]

#: Milliseconds of typing pause before the selection is checked.
CHECK_DELAY_MS = 250
#: Milliseconds the dialog waits for a selection check before saying it gave up.
PREVIEW_TIME_LIMIT_MS = 5000


def _topology_task(path: str, state: TaskState) -> Any:
    state.progress(0.0, f"reading {Path(path).name}…")
    return open_topology(path)  # a PSF without coordinates is enough to check selections


def _preview_task(universe: Any, text: str, where: str, state: TaskState) -> tuple[int, int]:
    atoms = select_atoms(universe, text, where)
    return atoms.n_atoms, len(atoms.residues)


class StructureDialog(QDialog):
    """Choose structure files and torsions; read them in the background."""

    #: The selection check ended: True when it matches atoms.
    selection_checked = Signal(bool)

    def __init__(self, parent: QWidget | None = None, topology: str = "",
                 trajectories: tuple[str, ...] = ()) -> None:
        super().__init__(parent)
        self.setWindowTitle("Open Structure or Trajectory")
        self._dataset: Dataset | None = None
        self._universe: Any = None
        form = QFormLayout()
        self.topology = QLineEdit(topology)
        self.topology.setPlaceholderText("PDB, mmCIF, PSF, GRO, PRMTOP…")
        form.addRow("Topology:", with_browse(self.topology, self._browse_topology))
        self.trajectories = TrajectoryList(tuple(trajectories))
        form.addRow("Trajectories:", self.trajectories)
        self.concatenate = QCheckBox("Concatenate: read the files as one run, one after the "
                                     "other")
        self.runs_note = QLabel("")
        self.runs_note.setWordWrap(True)
        form.addRow("", self.concatenate)
        form.addRow("", self.runs_note)
        self.dihedral_set = QComboBox()
        self.dihedral_set.addItems([name for name in SET_NAMES if name != "custom"])
        self.omega = QCheckBox("also ω (backbone)")
        form.addRow("Dihedral set:", self.dihedral_set)
        form.addRow("", self.omega)
        self.angles = QLineEdit("")
        self.angles.setPlaceholderText("default: φ, ψ / χ1, χ2 / all; e.g. chi1, chi2, chi3")
        form.addRow("Torsions:", self.angles)
        self.selection = QLineEdit("all")
        self.selection_note = QLabel("")
        self.selection_note.setWordWrap(True)
        form.addRow("Residues:", self.selection)
        form.addRow("", self.selection_note)
        self.layout_choice = QComboBox()
        self.layout_choice.addItems(LAYOUTS)
        form.addRow("Layout:", self.layout_choice)
        self.label_by = QComboBox()
        self.label_by.addItems(LABEL_CHOICES)
        form.addRow("Labels (pooled):", self.label_by)
        frames = QHBoxLayout()
        self.start, self.stop, self.stride = QSpinBox(), QSpinBox(), QSpinBox()
        for box, low, value in ((self.start, 0, 0), (self.stop, 0, 0), (self.stride, 1, 1)):
            box.setRange(low, 2_000_000_000)
            box.setValue(value)
        self.stop.setSpecialValueText("end")
        for text, box in (("start", self.start), ("stop", self.stop), ("stride", self.stride)):
            frames.addWidget(QLabel(text))
            frames.addWidget(box)
        form.addRow("Frames:", frames)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Read")
        self.buttons.accepted.connect(self.read)
        self.buttons.rejected.connect(self._cancel_or_close)
        box = QVBoxLayout(self)
        box.addLayout(form)
        box.addWidget(self.progress)
        box.addWidget(self.status)
        box.addWidget(self.buttons)
        # Wide enough for the paths of the files (the window's width at most).
        self.resize(max(self.sizeHint().width(), DIALOG_WIDTH), self.sizeHint().height())

        self.runner = TaskRunner(self)
        self._on_success = self._on_read
        self.runner.succeeded.connect(lambda value: self._on_success(value))
        self.runner.progress.connect(self._on_progress)
        self.runner.failed.connect(self._on_failure)
        self.runner.cancelled.connect(lambda: self._finish("Cancelled; nothing changed."))
        self.preview = TaskRunner(self)
        self.preview.succeeded.connect(self._on_preview)
        self.preview.failed.connect(self._on_preview_failure)
        self._preview_timer = QTimer(self, singleShot=True, interval=PREVIEW_TIME_LIMIT_MS)
        self._preview_timer.timeout.connect(self._preview_timed_out)
        self.preview.started.connect(self._preview_timer.start)
        self._check_timer = QTimer(self, singleShot=True, interval=CHECK_DELAY_MS)
        self._check_timer.timeout.connect(self.check_selection)
        self.selection.textChanged.connect(lambda _: self._check_timer.start())
        self.topology.editingFinished.connect(self.load_topology)
        self.trajectories.changed.connect(self._update_runs)
        self.concatenate.toggled.connect(self._update_runs)
        self._update_runs()
        if topology:
            self.load_topology()

    def _browse_topology(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Topology or structure", "",
                                              TOPOLOGY_FILTER)
        if path:
            self.topology.setText(path)
            self.load_topology()

    def _update_runs(self) -> None:
        count = len(self.trajectory_paths())
        self.concatenate.setEnabled(count > 1)
        if count == 0:
            text = "No trajectory: the topology's own frames (e.g. the models of a PDB file)."
        elif count == 1:
            text = "One run."
        elif self.concatenate.isChecked():
            text = (f"One run of {count} files, frames numbered through; start, stop and "
                    "stride apply to the whole.")
        else:
            text = (f"{count} runs, one per file (the trajectory column names it); start, "
                    "stop and stride apply to each.")
        self.runs_note.setText(text)

    # ------------------------------------------------------------ settings
    def trajectory_paths(self) -> list[str]:
        return self.trajectories.paths()

    def settings(self) -> DihedralSettings:
        angles = tuple(a.strip() for a in self.angles.text().split(",") if a.strip())
        return DihedralSettings(
            angles=angles or None,
            dihedral_set=self.dihedral_set.currentText(), select=self.selection.text(),
            layout=self.layout_choice.currentText(), start=self.start.value() or None,
            stop=self.stop.value() or None, stride=self.stride.value(),
            omega=self.omega.isChecked(),
            concatenate=self.concatenate.isChecked() and len(self.trajectory_paths()) > 1)

    def dataset(self) -> Dataset | None:
        """The data set read (after the dialog was accepted)."""
        return self._dataset

    # ------------------------------------------------------------ topology and selection
    def load_topology(self) -> None:
        path = self.topology.text().strip()
        self._universe = None
        if not path:
            return
        if not Path(path).is_file():
            self.selection_note.setText(f"{path}: no such file")
            return
        self.selection_note.setText("reading the topology…")
        self._start(partial(_topology_task, path), self._on_topology)

    def _on_topology(self, universe: Any) -> None:
        self._universe = universe
        self._finish(f"{Path(self.topology.text()).name}: {universe.atoms.n_atoms:,} atoms, "
                     f"{len(universe.residues):,} residues")
        self.check_selection()

    def check_selection(self) -> None:
        """Check the selection against the loaded topology in the background; the note
        says what it matches (``selection_checked`` tells when)."""
        text = self.selection.text().strip()
        if self._universe is None:
            return
        if not text:
            self.selection_note.setText("⚠ the selection is empty; 'all' reads every residue")
            self.selection_checked.emit(False)
            return
        self.selection_note.setText("checking the selection…")
        self.preview.start(partial(_preview_task, self._universe, text,
                                   Path(self.topology.text()).name))

    def _on_preview(self, counts: tuple[int, int]) -> None:
        self._preview_timer.stop()
        atoms, residues = counts
        if atoms == 0:
            self.selection_note.setText("⚠ matches no atoms")
        else:
            self.selection_note.setText(f"✓ {atoms:,} atoms in {residues:,} residues")
        self.selection_checked.emit(atoms > 0)

    def _on_preview_failure(self, message: str, details: str) -> None:
        self._preview_timer.stop()
        text = message.split(": ", 1)[1] if ": " in message else message
        self.selection_note.setText(f"⚠ {text}")
        self.selection_checked.emit(False)

    def _preview_timed_out(self) -> None:
        """A check that takes too long: stop waiting (the next one starts on a new
        thread) and say so."""
        if not self.preview.busy:
            return
        self.preview.shutdown()
        self.selection_note.setText(
            f"⚠ checking the selection took longer than {PREVIEW_TIME_LIMIT_MS / 1000:g} s "
            "and was given up; it is checked again when reading")
        self.selection_checked.emit(False)

    # ------------------------------------------------------------ reading
    def read(self) -> None:
        """Read the torsions in the background; the dialog closes when they are there."""
        try:
            self.settings().validate()
        except StructureError as exc:
            self.status.setText(str(exc))
            return
        if not self.topology.text().strip():
            self.status.setText("Choose the topology or structure file first.")
            return
        task = partial(_read_task, self.topology.text().strip(), self.trajectory_paths(),
                       self.settings(), self.label_by.currentText())
        self._start(task, self._on_read)

    def _start(self, task, on_success) -> None:
        self._on_success = on_success
        self.progress.setVisible(True)
        self.progress.setValue(0)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
        self.runner.start(task)

    def _on_progress(self, report: TaskProgress) -> None:
        self.progress.setValue(round(100 * report.fraction))
        self.status.setText(report.message)

    def _on_read(self, dataset: Dataset) -> None:
        self._dataset = dataset
        self._finish(dataset.description)
        self.accept()

    def _on_failure(self, message: str, details: str) -> None:
        # StructureError and OSError messages name the file; drop the exception's type.
        self._finish(message.split(": ", 1)[1] if ": " in message else message)
        if self._on_success == self._on_topology:
            self.selection_note.setText(f"⚠ {self.status.text()}")
        if self.parent() is not None and hasattr(self.parent(), "messages"):
            self.parent().messages.error("Cannot read the structure", self.status.text())

    def _finish(self, text: str) -> None:
        self.progress.setVisible(False)
        self.status.setText(text)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(True)

    def _cancel_or_close(self) -> None:
        if self.runner.busy:
            self.runner.cancel()
        else:
            self.reject()

    def done(self, result: int) -> None:
        self.runner.shutdown()
        self.preview.shutdown()
        self._preview_timer.stop()
        super().done(result)


def mdanalysis_installed() -> bool:
    """Whether MDAnalysis can be imported (without importing it: that takes seconds)."""
    try:
        return importlib.util.find_spec("MDAnalysis") is not None
    except (ImportError, ValueError):  # ValueError: blocked with sys.modules[...] = None
        return False


def _read_task(topology: str, trajectories: list[str], settings: DihedralSettings,
               label_by: str, state: TaskState) -> Dataset:
    return read_structure_dataset(topology, trajectories, settings, label_by,
                                  callback=state.callback)


def _representatives_task(dataset: Dataset, clusters, folder: str, topology: str | None,
                          trajectories: list[str] | None, overwrite: bool, state: TaskState):
    state.progress(0.0, "writing the cluster representatives…")
    try:
        return export_representatives(dataset, clusters, folder, topology, trajectories,
                                      overwrite=overwrite, option=ASKED)
    except ForeignFilesError as error:
        return error  # the window asks whether to write anyway


class StructureActions:
    """The window's structure actions: open (File menu) and representatives (Export)."""

    def __init__(self, window: WindowServices) -> None:
        self.window = window
        parent = window.widget()
        self.open_action = menu_action(parent, "Open &Structure or Trajectory…",
                                       self.open_dialog)
        self.export_action = menu_action(parent, "Cluster &representatives…",
                                         self.export_dialog)
        self.runner = TaskRunner(parent)
        self.runner.succeeded.connect(self._exported)
        self.runner.failed.connect(
            lambda message, _details: window.messages.error("Export failed",
                                                            message.split(": ", 1)[-1]))

    def open_dialog(self, topology: str = "", trajectories: tuple[str, ...] = ()
                    ) -> StructureDialog | None:
        """Show the dialog (non-blocking); its data set replaces the window's when read.
        Without MDAnalysis, a message says how to install it instead."""
        if not mdanalysis_installed():
            self.window.messages.error("Structures need MDAnalysis", INSTALL_HINT[0].upper()
                               + INSTALL_HINT[1:] + ".")
            return None
        dialog = StructureDialog(self.window.widget(), topology, trajectories)
        dialog.accepted.connect(lambda: self._read(dialog.dataset()))
        dialog.open()
        return dialog

    def open_demo(self, name: str) -> StructureDialog | None:
        """A structure demo (:data:`~stpca_gui.model.demos.STRUCTURE_DEMOS`): the dialog
        filled in with its bundled files and settings, reading at once (in the background),
        so that a person sees where the files and choices go."""
        topology, runs, settings = structure_demo(name)
        dialog = self.open_dialog(topology, tuple(runs))
        if dialog is not None:
            dialog.selection.setText(settings.select)
            dialog.layout_choice.setCurrentText(settings.layout)
            dialog.read()
        return dialog

    def _read(self, dataset: Dataset | None) -> None:
        """Show the data read; say what the user should know about them (truncated
        trajectories, rows left out)."""
        if dataset is None:
            return
        self.window.set_dataset(dataset)
        notes = list((dataset.structure or {}).get("notes", ()))
        if notes:
            self.window.messages.info("Read with notes", "\n".join(notes))

    def export_dialog(self) -> RepresentativesDialog | None:
        """Ask for the folder and the structure files (prefilled from the data's record),
        then write; None when there is nothing to write."""
        dataset = self._fitted_structure_data()
        if dataset is None:
            return None

        dialog = RepresentativesDialog(self.window.widget(), dataset.structure)
        dialog.accepted.connect(lambda: self.export(dialog.folder(), dialog.topology_path(),
                                                    dialog.trajectory_paths()))
        dialog.open()
        return dialog

    def _fitted_structure_data(self) -> Dataset | None:
        """The fitted data set when it was read from a structure, else None (and why)."""
        result = self.window.state.result
        if result is None:
            self.window.messages.info("No clusters yet", "Fit the data first.")
            return None
        dataset = result.dataset
        if not dataset.provenance or "frame" not in dataset.provenance:
            self.window.messages.info("Not from a structure",
                              "Cluster representatives need angles read from a structure "
                              "or trajectory (File → Open Structure or Trajectory…).")
            return None
        return dataset

    def export(self, folder: str, topology: str | None = None,
               trajectories: list[str] | None = None, *, overwrite: bool = False) -> None:
        """Write the representatives of the current result's clusters into ``folder``,
        from the structure files given (default: those the data record); asking first
        when the folder holds files stpca-gui did not write."""
        dataset = self._fitted_structure_data()
        if dataset is None:
            return
        self._last_export = (folder, topology, trajectories)
        self.runner.start(partial(_representatives_task, dataset,
                                  self.window.state.result.mode_clusters.labels, folder,
                                  topology or None, trajectories or None, overwrite))

    def _exported(self, written) -> None:
        if isinstance(written, ForeignFilesError):
            retry = self._last_export
            self.window.messages.ask("Folder holds other files", foreign_question(written),
                                     lambda: self.export(*retry, overwrite=True))
            return
        self.last_written = written.files
        names = ", ".join(p.name for p in written.files[:3])
        more = f" and {len(written.files) - 3} more" if len(written.files) > 3 else ""
        self.window.messages.status(f"Wrote {names}{more} to {written.files[0].parent}", 8000)
