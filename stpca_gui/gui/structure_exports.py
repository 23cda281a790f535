"""Structures out of the app: the motion along a component, and the selected frames.

*Motion along PNSk…* is offered from a component's context menu: right-click a bar of
the variance view, or the scores view's x/y component box. It asks for a file (.pdb, a
model per frame; .dcd; .xtc) and writes what ``stpca motion`` writes
(:func:`~stpca_gui.model.structures.export_motion`). *File → Selected Frames as
Trajectory…* writes the selected frames as a trajectory and their medoid on the torus as
``NAME_medoid.pdb`` beside it (:func:`~stpca_gui.model.structures.export_selection_frames`).
Both read the structure files the data record, checked against their SHA-256 (a changed
file is refused, nothing written), in the background through the task runner.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QComboBox, QFileDialog, QMenu, QWidget

from ..files.output_folder import ForeignFilesError
from ..model.result_export import ASKED, foreign_question
from ..model.structures import export_motion, export_selection_frames
from ..model.tasks import TaskState
from .menus import menu_action
from .tasks import TaskRunner
from .window_services import WindowServices

__all__ = ["TRAJECTORY_FILTERS", "StructureExports", "medoid_path"]

#: The save dialogs' file types (the suffix chooses the format).
TRAJECTORY_FILTERS = "Multi-model PDB (*.pdb);;DCD trajectory (*.dcd);;XTC trajectory (*.xtc)"


def medoid_path(trajectory: str | Path) -> Path:
    """Where the selection's medoid goes: ``NAME_medoid.pdb`` beside its trajectory."""
    path = Path(trajectory)
    return path.with_name(f"{path.stem}_medoid.pdb")


def _motion_task(dataset, model, component: int, path: str, overwrite: bool,
                 state: TaskState):
    state.progress(0.0, f"writing the motion along PNS{component}…")
    try:
        motion = export_motion(dataset, model, component, path, overwrite=overwrite,
                               option=ASKED)
    except ForeignFilesError as error:
        return error  # the window asks whether to write anyway
    return (f"Wrote {len(motion.rows)} frames along PNS{component} to {Path(path).name}",
            [Path(path)])


def _selection_task(dataset, selected: np.ndarray, path: str, overwrite: bool,
                    state: TaskState):
    state.progress(0.0, "writing the selected frames…")
    try:
        medoid = export_selection_frames(dataset, selected, path, medoid_path(path),
                                         overwrite=overwrite, option=ASKED)
    except ForeignFilesError as error:
        return error
    return (f"Wrote {int(np.count_nonzero(selected))} selected frames to {Path(path).name} "
            f"and their medoid (row {dataset.row_ids[medoid]}) to {medoid_path(path).name}",
            [Path(path), medoid_path(path)])


class StructureExports:
    """The motion along a component and the selected frames, written as structures."""

    def __init__(self, window: WindowServices) -> None:
        self.window = window
        parent = window.widget()
        self.selection_action = menu_action(
            parent, "Selected &Frames as Trajectory…", self.selection_dialog,
            tip="The selected frames as a trajectory, and their medoid as a PDB file")
        self.runner = TaskRunner(parent)
        self.runner.succeeded.connect(self._written)
        self.runner.failed.connect(
            lambda message, _details: window.messages.error("Export failed",
                                                            message.split(": ", 1)[-1]))
        self._retry = None
        #: The files the last export wrote (tests read them).
        self.last_written: list[Path] = []
        #: The component menu shown last (tests read it).
        self.last_menu: QMenu | None = None

    # ----------------------------------------------------------- context menus
    def attach(self, scores_view, variance_view) -> None:
        """Give the scores view's component boxes and the variance view's bars a context
        menu with *Motion along PNSk…*."""
        for combo in (scores_view.x_combo, scores_view.y_combo):
            combo.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            combo.customContextMenuRequested.connect(partial(self._combo_menu, combo))
        canvas = variance_view.canvas
        canvas.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        canvas.customContextMenuRequested.connect(partial(self._variance_menu, variance_view))

    def _combo_menu(self, combo: QComboBox, position: QPoint) -> None:
        if combo.currentIndex() >= 0:
            self.component_menu(combo, [combo.currentIndex() + 1]).popup(
                combo.mapToGlobal(position))

    def _variance_menu(self, view, position: QPoint) -> None:
        component = self.component_at(view, position)
        if component is not None:
            self.component_menu(view.canvas, [component]).popup(
                view.canvas.mapToGlobal(position))

    def component_at(self, view, position: QPoint) -> int | None:
        """The component (1…d) of the variance view's bar group under ``position``
        (widget pixels), or None (outside the axes, or the 'rest' slot)."""
        result = self.window.state.result
        if result is None or not view.figure.axes:
            return None
        canvas, ax = view.canvas, view.figure.axes[0]
        ratio = canvas.devicePixelRatioF()
        x, y = position.x() * ratio, (canvas.height() - position.y()) * ratio
        if not ax.bbox.contains(x, y):
            return None
        slot = int(np.rint(ax.transData.inverted().transform((x, y))[0]))
        ticks = [t.get_text() for t in ax.get_xticklabels()]
        if not 0 <= slot < len(ticks) or ticks[slot] == "rest":
            return None
        return slot + 1

    def component_menu(self, parent: QWidget, components: list[int]) -> QMenu:
        """A menu of *Motion along PNSk…* for these components (disabled, saying why,
        unless the fitted data are frames read from structures)."""
        menu = QMenu(parent)
        reason = self._no_frames_reason()
        for k in components:
            action = menu_action(menu, f"Motion along PNS{k} as Structures…",
                                 partial(self.motion_dialog, k), enabled=reason is None,
                                 tip=reason or "Frames nearest to evenly spaced points of "
                                               "the component, in order, as a movie")
            menu.addAction(action)
        menu.setToolTipsVisible(True)
        self.last_menu = menu
        return menu

    def _no_frames_reason(self) -> str | None:
        result = self.window.state.result
        if result is None:
            return "Fit the data first"
        provenance = result.dataset.provenance or {}
        if "frame" not in provenance or "resid" in provenance:
            return ("Needs one row per frame read from a structure or trajectory (File → "
                    "Open Structure or Trajectory…, per-frame layout)")
        return None

    # ----------------------------------------------------------------- dialogs
    def motion_dialog(self, component: int) -> None:
        """Ask for the file, then write the motion along ``component``."""
        path, _ = QFileDialog.getSaveFileName(self.window.widget(),
                                              f"Write the motion along PNS{component}",
                                              f"motion_pns{component}.pdb", TRAJECTORY_FILTERS)
        if path:
            self.write_motion(component, path)

    def write_motion(self, component: int, path: str, *, overwrite: bool = False) -> None:
        """Write the motion along ``component`` to ``path`` in the background."""
        reason = self._no_frames_reason()
        if reason is not None:
            self.window.messages.info("No frames to write", reason + ".")
            return
        result = self.window.state.result
        self._retry = partial(self.write_motion, component, path, overwrite=True)
        self.runner.start(partial(_motion_task, result.dataset, result.model, component,
                                  path, overwrite))

    def selection_dialog(self) -> None:
        """Ask for the trajectory file of the selected frames, then write it and the
        medoid."""
        path, _ = QFileDialog.getSaveFileName(self.window.widget(),
                                              "Write the selected frames",
                                              "selection.pdb", TRAJECTORY_FILTERS)
        if path:
            self.write_selection(path)

    def write_selection(self, path: str, *, overwrite: bool = False) -> None:
        """Write the selected frames to ``path`` and their medoid beside it."""
        reason = self._no_frames_reason()
        if reason is not None:
            self.window.messages.info("No frames to write", reason + ".")
            return
        selected = self.window.state.selection.mask()
        if not np.any(selected):
            self.window.messages.info("Nothing selected",
                                      "Select frames in a view first (drag a lasso).")
            return
        self._retry = partial(self.write_selection, path, overwrite=True)
        self.runner.start(partial(_selection_task, self.window.state.result.dataset,
                                  np.array(selected, dtype=bool), path, overwrite))

    def _written(self, outcome) -> None:
        if isinstance(outcome, ForeignFilesError):
            self.window.messages.ask("Folder holds other files", foreign_question(outcome),
                                     self._retry)
            return
        note, self.last_written = outcome
        self.window.messages.status(note, 8000)
