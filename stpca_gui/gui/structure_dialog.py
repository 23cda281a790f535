"""File → Open Structure or Trajectory…, and Export → Cluster representatives.

The dialog reads torsions (:mod:`stpca_gui.model.structures`) in its task runner, with
progress and cancel; its data set replaces the window's only when the reading succeeded.
The selection is checked as it is typed against the topology, which is loaded (in the task
runner) when it is chosen.
"""

from __future__ import annotations

import importlib.util
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
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
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..io.structures import (
    INSTALL_HINT,
    LAYOUTS,
    SET_NAMES,
    DihedralSettings,
    StructureError,
    open_universe,
    require_mdanalysis,
)
from ..model.structures import LABEL_CHOICES, export_representatives, read_structure_dataset
from ..model.tasks import TaskProgress, TaskState
from .menus import menu_action
from .tasks import TaskRunner

if TYPE_CHECKING:
    from ..model import Dataset
    from .window_services import WindowServices

__all__ = ["StructureActions", "StructureDialog"]

TOPOLOGY_FILTER = ("Structures and topologies (*.pdb *.ent *.cif *.mmcif *.pdbx *.psf *.gro "
                   "*.prmtop *.parm7 *.top *.tpr *.pqr *.mol2 *.xyz *.crd);;All files (*)")
TRAJECTORY_FILTER = ("Trajectories (*.dcd *.xtc *.trr *.nc *.ncdf *.netcdf *.mdcrd *.crd *.pdb "
                     "*.gro *.xyz *.h5md *.lammpstrj);;All files (*)")
#: Milliseconds of typing pause before the selection is checked.
CHECK_DELAY_MS = 250


def _topology_task(path: str, state: TaskState) -> Any:
    state.progress(0.0, f"reading {Path(path).name}…")
    try:
        return open_universe(path)
    except StructureError:
        # A topology without coordinates (PSF) reads with its trajectory; for checking
        # selections, the topology alone is enough.
        return require_mdanalysis().Universe(path)


class StructureDialog(QDialog):
    """Choose structure files and torsions; read them in the background."""

    def __init__(self, parent: QWidget | None = None, topology: str = "",
                 trajectories: tuple[str, ...] = ()) -> None:
        super().__init__(parent)
        self.setWindowTitle("Open Structure or Trajectory")
        self._dataset: Dataset | None = None
        self._universe: Any = None
        form = QFormLayout()
        self.topology = QLineEdit(topology)
        self.topology.setPlaceholderText("PDB, mmCIF, PSF, GRO, PRMTOP…")
        self.trajectories = QLineEdit("; ".join(trajectories))
        self.trajectories.setPlaceholderText("none: the topology's coordinates")
        form.addRow("Topology:", self._with_browse(self.topology, self._browse_topology))
        form.addRow("Trajectory:", self._with_browse(self.trajectories,
                                                     self._browse_trajectories))
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

        self.runner = TaskRunner(self)
        self._on_success = self._on_read
        self.runner.succeeded.connect(lambda value: self._on_success(value))
        self.runner.progress.connect(self._on_progress)
        self.runner.failed.connect(self._on_failure)
        self.runner.cancelled.connect(lambda: self._finish("Cancelled; nothing changed."))
        self._check_timer = QTimer(self, singleShot=True, interval=CHECK_DELAY_MS)
        self._check_timer.timeout.connect(self.check_selection)
        self.selection.textChanged.connect(lambda _: self._check_timer.start())
        self.topology.editingFinished.connect(self.load_topology)
        if topology:
            self.load_topology()

    @staticmethod
    def _with_browse(edit: QLineEdit, browse) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(edit)
        button = QPushButton("Browse…")
        button.clicked.connect(browse)
        layout.addWidget(button)
        return row

    def _browse_topology(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Topology or structure", "",
                                              TOPOLOGY_FILTER)
        if path:
            self.topology.setText(path)
            self.load_topology()

    def _browse_trajectories(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Trajectory files", "",
                                                TRAJECTORY_FILTER)
        if paths:
            self.trajectories.setText("; ".join(paths))

    # ------------------------------------------------------------ settings
    def trajectory_paths(self) -> list[str]:
        return [p.strip() for p in self.trajectories.text().split(";") if p.strip()]

    def settings(self) -> DihedralSettings:
        angles = tuple(a.strip() for a in self.angles.text().split(",") if a.strip())
        return DihedralSettings(
            angles=angles or None,
            dihedral_set=self.dihedral_set.currentText(), select=self.selection.text(),
            layout=self.layout_choice.currentText(), start=self.start.value() or None,
            stop=self.stop.value() or None, stride=self.stride.value(),
            omega=self.omega.isChecked())

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

    def check_selection(self) -> bool:
        """Check the selection against the loaded topology; say what it matches."""
        text = self.selection.text().strip()
        if self._universe is None:
            return bool(text)
        try:
            atoms = self._universe.select_atoms(text)
        except Exception as exc:  # MDAnalysis' errors for a bad expression
            self.selection_note.setText(f"⚠ not a valid selection: {' '.join(str(exc).split())}")
            return False
        if atoms.n_atoms == 0:
            self.selection_note.setText("⚠ matches no atoms")
            return False
        self.selection_note.setText(f"✓ {atoms.n_atoms:,} atoms in {len(atoms.residues):,} "
                                    "residues")
        return True

    # ------------------------------------------------------------ reading
    def read(self) -> None:
        """Read the torsions in the background; the dialog closes when they are there."""
        if not self.check_selection():
            self.status.setText("Fix the selection first.")
            return
        try:
            self.settings().validate()
        except StructureError as exc:
            self.status.setText(str(exc))
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


def _representatives_task(dataset: Dataset, clusters, folder: str, state: TaskState):
    state.progress(0.0, "writing the cluster representatives…")
    return export_representatives(dataset, clusters, folder)


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
        dialog.accepted.connect(lambda: self.window.set_dataset(dialog.dataset()))
        dialog.open()
        return dialog

    def export_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.window.widget(),
                                                  "Write cluster representatives to")
        if folder:
            self.export(folder)

    def export(self, folder: str) -> None:
        """Write the representatives of the current result's clusters into ``folder``."""
        result = self.window.state.result
        if result is None:
            self.window.messages.info("No clusters yet", "Fit the data first.")
            return
        dataset = result.dataset
        if not dataset.provenance or "frame" not in dataset.provenance:
            self.window.messages.info("Not from a structure",
                              "Cluster representatives need angles read from a structure "
                              "or trajectory (File → Open Structure or Trajectory…).")
            return
        self.runner.start(partial(_representatives_task, dataset,
                                  result.mode_clusters.labels, folder))

    def _exported(self, written) -> None:
        self.last_written = written.files
        names = ", ".join(p.name for p in written.files[:3])
        more = f" and {len(written.files) - 3} more" if len(written.files) > 3 else ""
        self.window.messages.status(f"Wrote {names}{more} to {written.files[0].parent}", 8000)
