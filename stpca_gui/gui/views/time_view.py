"""Scores over time, a tab beside the scores scatter: one component against time, a line
per trajectory, linked with the other views (drag a time range to select its frames)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QWidget

from ...model import AppState
from ...plotting.mpl_common import fresh_axes
from ...plotting.time_series import TimePoints, scores_over_time, time_axis
from .base import current_colors
from .mpl_views import DrawnWhenShown, MplView, SpanSelection


class TimeView(DrawnWhenShown, SpanSelection, MplView):
    """A PNS component against time (the row number where the data have no time)."""

    title_text = "Scores over time"
    export_stem = "scores_time"

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(state, parent)
        self.component_combo = QComboBox()
        self.component_combo.setToolTip("The component drawn against time")
        self.controls.addWidget(QLabel("component"))
        self.controls.addWidget(self.component_combo)
        self.setToolTip("Drag a time range to select its frames (every trajectory) · Shift "
                        "add, Ctrl subtract, Alt intersect")
        #: The frames drawn, recoloured on a new selection (None before a drawing).
        self.points: TimePoints | None = None
        self.component_combo.currentIndexChanged.connect(lambda: self.redraw())
        state.dataset_changed.connect(self._fill_components)
        state.result_changed.connect(self.redraw)
        state.selection.changed.connect(self.update_selection)
        state.color_mode_changed.connect(self.update_selection)

    @property
    def component(self) -> int:
        return max(self.component_combo.currentIndex(), 0)

    def _fill_components(self, *_: object) -> None:
        dataset = self.state.dataset
        self.component_combo.blockSignals(True)
        self.component_combo.clear()
        self.component_combo.addItems(
            [] if dataset is None else [f"PNS{k + 1}" for k in range(dataset.n_angles)])
        self.component_combo.blockSignals(False)

    def show_state(self) -> None:
        self._fill_components()
        self.redraw()

    def time_axis(self):
        dataset = self.state.dataset
        return time_axis(dataset.n_samples, dataset.provenance)

    def redraw(self, *_: object, force: bool = False) -> None:
        result = self._result_to_draw(force)
        if result is None:
            return
        colors, selected = current_colors(self.state)
        self.thaw_layout()
        ax = fresh_axes(self.figure)
        self.points = scores_over_time(ax, result.scores, self.component, self.time_axis(),
                                       colors=colors, selected=selected,
                                       period=result.pns1_period)
        self._attach_span(ax, minspan=1e-9)
        self.canvas.draw_idle()
        self._drawn = True
        self._drawn_result = result

    def select_time_range(self, lo: float, hi: float, mode: str = "replace") -> None:
        """Select the frames whose time lies in [lo, hi], in every trajectory."""
        time = self.time_axis().time
        lo, hi = sorted((float(lo), float(hi)))
        self.state.selection.apply((time >= lo) & (time <= hi), mode, source="time")

    select_span = select_time_range

    def update_selection(self, *_: object) -> None:
        # Only the points change: redrawn over a snapshot of the lines, as the scatter's.
        self.recolor(self.points)


__all__ = ["TimeView"]
