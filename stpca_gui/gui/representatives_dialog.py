"""File → Cluster representatives…: where to write, and the structure files to read the
medoid frames from — prefilled from the data's structure record when it has one, asked for
when it has none (a session the command line wrote from a table without its record)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from .structure_inputs import DIALOG_WIDTH, TOPOLOGY_FILTER, TrajectoryList, with_browse

__all__ = ["RepresentativesDialog"]


class RepresentativesDialog(QDialog):
    """The output folder, topology and trajectories of *Cluster representatives…*."""

    def __init__(self, parent: QWidget | None = None,
                 structure: Mapping[str, Any] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Cluster Representatives")
        record = structure or {}
        topology = record.get("topology")
        trajectories = record.get("trajectories")
        form = QFormLayout()
        self.out = QLineEdit("")
        self.out.setPlaceholderText("a new or empty folder")
        form.addRow("Write to:", with_browse(self.out, self._browse_folder))
        self.topology = QLineEdit(topology if isinstance(topology, str) else "")
        self.topology.setPlaceholderText("PDB, mmCIF, PSF, GRO, PRMTOP…")
        form.addRow("Topology:", with_browse(self.topology, self._browse_topology))
        self.trajectories = TrajectoryList(tuple(
            path for path in (trajectories if isinstance(trajectories, list) else [])
            if isinstance(path, str)))
        form.addRow("Trajectories:", self.trajectories)
        self.note = QLabel(
            "The files the angles were read from, in the same order; they are checked "
            "against the fingerprints the data record." if structure else
            "The data do not record their structure files: give the topology and the "
            "trajectories the angles were read from, in the same order.")
        self.note.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Write")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        box = QVBoxLayout(self)
        box.addLayout(form)
        box.addWidget(self.note)
        box.addWidget(self.buttons)
        self.out.textChanged.connect(self._update)
        self.topology.textChanged.connect(self._update)
        self._update()
        self.resize(max(self.sizeHint().width(), DIALOG_WIDTH), self.sizeHint().height())

    def folder(self) -> str:
        return self.out.text().strip()

    def topology_path(self) -> str:
        return self.topology.text().strip()

    def trajectory_paths(self) -> list[str]:
        return self.trajectories.paths()

    def _update(self) -> None:
        ready = bool(self.folder() and self.topology_path())
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ready)

    def _browse_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Write cluster representatives to")
        if folder:
            self.out.setText(folder)

    def _browse_topology(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Topology or structure", "",
                                              TOPOLOGY_FILTER)
        if path:
            self.topology.setText(path)
