"""The structure-file inputs of the structure dialogs: the topology's file filter, the
trajectory list (add, remove, reorder) and a line edit with a *Browse…* button."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

__all__ = ["DIALOG_WIDTH", "TOPOLOGY_FILTER", "TRAJECTORY_FILTER", "TrajectoryList",
           "with_browse"]

TOPOLOGY_FILTER = ("Structures and topologies (*.pdb *.ent *.cif *.mmcif *.pdbx *.psf *.gro "
                   "*.prmtop *.parm7 *.top *.tpr *.pqr *.mol2 *.xyz *.crd);;All files (*)")
TRAJECTORY_FILTER = ("Trajectories (*.dcd *.xtc *.trr *.nc *.ncdf *.netcdf *.mdcrd *.crd *.pdb "
                     "*.gro *.xyz *.h5md *.lammpstrj);;All files (*)")
#: The dialog's width in pixels, for the paths of the files.
DIALOG_WIDTH = 720


class TrajectoryList(QWidget):
    """The trajectory files, in reading order: add, remove, move up and down."""

    changed = Signal()

    def __init__(self, paths: tuple[str, ...] = (), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.files = QListWidget()
        self.files.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.files.setToolTip("Each file is a run of its own (its frames numbered from 0), "
                              "unless Concatenate reads them as one run")
        line = self.files.fontMetrics().height()
        self.files.setMinimumHeight(4 * line + 12)
        self.files.setMaximumHeight(8 * line + 12)
        buttons = QVBoxLayout()
        self.add_button = QPushButton("Add…")
        self.remove_button = QPushButton("Remove")
        self.up_button = QPushButton("Up")
        self.down_button = QPushButton("Down")
        for button, slot in ((self.add_button, self._browse), (self.remove_button, self.remove),
                             (self.up_button, partial(self.move, -1)),
                             (self.down_button, partial(self.move, 1))):
            button.clicked.connect(slot)
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.files, 1)
        layout.addLayout(buttons)
        self.files.itemSelectionChanged.connect(self._update_buttons)
        self.add(list(paths))

    def paths(self) -> list[str]:
        return [self.files.item(k).text() for k in range(self.files.count())]

    def add(self, paths: list[str]) -> None:
        for path in paths:
            self.files.addItem(path)
            self.files.item(self.files.count() - 1).setToolTip(path)
        self._changed()

    def remove(self) -> None:
        for item in self.files.selectedItems():
            self.files.takeItem(self.files.row(item))
        self._changed()

    def move(self, step: int) -> None:
        rows = sorted(self.files.row(item) for item in self.files.selectedItems())
        if not rows or rows[0] + step < 0 or rows[-1] + step >= self.files.count():
            return
        for row in (rows if step < 0 else reversed(rows)):
            item = self.files.takeItem(row)
            self.files.insertItem(row + step, item)
            item.setSelected(True)
        self._changed()

    def _browse(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Trajectory files", "",
                                                TRAJECTORY_FILTER)
        if paths:
            self.add(paths)

    def _changed(self) -> None:
        self._update_buttons()
        self.changed.emit()

    def _update_buttons(self) -> None:
        selected = bool(self.files.selectedItems())
        for button in (self.remove_button, self.up_button, self.down_button):
            button.setEnabled(selected)


def with_browse(edit: QLineEdit, browse) -> QWidget:
    """``edit`` with a *Browse…* button beside it that calls ``browse``."""
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(edit)
    button = QPushButton("Browse…")
    button.clicked.connect(browse)
    layout.addWidget(button)
    return row
