"""Shared pieces of the views: a titled frame, colours from the shared state, export."""

from __future__ import annotations

from pathlib import Path
from weakref import WeakKeyDictionary

import numpy as np
from numpy.typing import NDArray
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ...model import AppState
from ...model.dataset import encode_labels
from ...plotting.colors import PointColoring, SampleColors

#: The colouring each state's views share, with what it was made from (mode, data set,
#: result): made once, not by every view on every selection.
_colorings: WeakKeyDictionary[AppState, tuple[tuple[str, object, object], PointColoring]] = (
    WeakKeyDictionary())


def state_coloring(state: AppState) -> PointColoring:
    """The colouring of the state's colour mode, data set and result (cached)."""
    mode = state.effective_color_mode
    dataset, result = state.dataset, state.result
    cached = _colorings.get(state)
    if cached is not None:
        (old_mode, old_dataset, old_result), coloring = cached
        if old_mode == mode and old_dataset is dataset and old_result is result:
            return coloring
    n = 0 if dataset is None else dataset.n_samples
    if mode == "cluster":
        coloring = PointColoring("label", n=n, labels=result.mode_clusters.labels)
    elif mode == "stress":
        coloring = PointColoring("stress", n=n,
                                 point_stress=state.diagnostics.point_stress.rms_residual())
    else:
        coloring = PointColoring(
            mode, n=n,
            label_codes=None if dataset is None or not dataset.has_labels
            else dataset.label_codes(),
            pns1=None if result is None else result.pns1,
            pns1_period=2 * np.pi if result is None else result.pns1_period)
    _colorings[state] = ((mode, dataset, result), coloring)
    return coloring


def current_colors(state: AppState) -> tuple[SampleColors, NDArray[np.bool_]]:
    """Colours of the samples for the state's colour mode and selection, and the selection
    mask.

    The colours are computed for the samples a view asks for (``colors.at(index)``), or
    all of them (``np.asarray(colors)``); the points outside a non-empty selection are made
    faint.
    """
    groups = state.selection.groups
    return SampleColors(state_coloring(state), groups), groups != 0


def current_groups(state: AppState) -> tuple[NDArray[np.int64] | None, list[str]]:
    """Group code per sample and group names for the state's colour mode.

    Labels (colour mode "label") or PNS1 mode clusters ("cluster"), coded in order of first
    appearance as :func:`~stpca_gui.plotting.colors.label_colors` codes them, so a group has
    the same colour in every view; ``(None, [])`` in the other modes.
    """
    mode = state.effective_color_mode
    if mode == "label":
        return state.dataset.label_codes(), list(state.dataset.label_names())
    if mode == "cluster":
        codes, names = encode_labels(state.result.mode_clusters.labels)
        return codes, [f"mode cluster {int(name) + 1}" for name in names]
    return None, []


class ViewFrame(QWidget):
    """A view with a title row (title, optional controls) above its content."""

    title_text: str = "View"
    #: File name stem used when exporting the view.
    export_stem: str = "view"

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(2, 2, 2, 2)
        self._layout.setSpacing(2)
        header = QHBoxLayout()
        self.title = QLabel(f"<b>{self.title_text}</b>")
        header.addWidget(self.title)
        header.addStretch(1)
        self.controls = header
        self._layout.addLayout(header)
        self.placeholder = QLabel("Load data or a demo to see this view.")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setStyleSheet("color: gray;")

    def set_content(self, widget: QWidget) -> None:
        self._layout.addWidget(widget, 1)

    # The views implement these.
    def export(self, path: Path, dpi: int = 150) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def render_image(self) -> QImage | None:
        """An image of the view for whole-window screenshots (None: grab the widget)."""
        return None

    def has_content(self) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def redraw(self, *_: object) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def show_state(self) -> None:
        """Draw the state as it is now (a view built after the data or result arrived,
        which missed their signals)."""
        self.redraw()
