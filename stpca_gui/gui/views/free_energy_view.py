"""The free-energy landscape view, a tab beside the scores scatter.

It shows the same two components as the scatter (the state's ``scatter_components``), so
switching between the tabs keeps the axes; lasso and rectangle select the frames inside,
through the shared selection, and the selection of the other views is marked on it. The
landscape of 10⁶ frames costs a few tenths of a second, so a hidden tab draws only when it
is shown (``benchmarks/bench_free_energy.py``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLayout,
    QSpinBox,
    QWidget,
)

from ...model import AppState
from ...model.energy_units import AUTOMATIC_BINS, BINS_RANGE, ENERGY_UNITS, TEMPERATURE_RANGE
from ...model.frame_weights import frame_weights, weight_columns
from ...plotting.free_energy import FreeEnergyLandscape
from .base import current_colors
from .mpl_views import ComponentPicker, DrawnWhenShown, MplView, RegionSelection

#: The weights combo's entry for unweighted frames.
NO_WEIGHTS = "no weights"


class FreeEnergyView(DrawnWhenShown, RegionSelection, MplView):
    """F = −kT ln p over two components, with units, temperature, bins and weights."""

    title_text = "Free energy"
    export_stem = "free_energy"
    region_source = "free energy"

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(state, parent)
        self.landscape = FreeEnergyLandscape(self.figure)
        self.picker = ComponentPicker(self)
        options = QHBoxLayout()
        self.unit_combo = QComboBox()
        self.unit_combo.addItems(ENERGY_UNITS)
        self.unit_combo.setToolTip("Unit of F: kT, or kJ/mol or kcal/mol at the temperature")
        self.temperature_box = QDoubleSpinBox()
        self.temperature_box.setRange(TEMPERATURE_RANGE.low, TEMPERATURE_RANGE.high)
        self.temperature_box.setDecimals(1)
        self.temperature_box.setValue(300.0)
        self.temperature_box.setSuffix(" K")
        self.temperature_box.setToolTip("Temperature of kJ/mol and kcal/mol")
        self.bins_box = QSpinBox()
        self.bins_box.setRange(0, BINS_RANGE.high)  # 0: automatic
        self.bins_box.setSpecialValueText("auto")
        self.bins_box.setToolTip(f"Bins per axis; auto: {AUTOMATIC_BINS}")
        self.weights_combo = QComboBox()
        self.weights_combo.setToolTip("Per-frame weights from a column of the table (e.g. "
                                      "'weight' from enhanced sampling)")
        for text, widget in (("F in", self.unit_combo), ("at", self.temperature_box),
                             ("bins", self.bins_box), ("", self.weights_combo)):
            if text:
                options.addWidget(QLabel(text))
            options.addWidget(widget)
        options.addStretch(1)
        self._layout.insertLayout(1, options)
        self._options = options
        self.message = QLabel("")
        self.message.setStyleSheet("color: #b00020;")
        self.message.setWordWrap(True)
        self.message.setVisible(False)
        self._layout.insertWidget(2, self.message)
        self.setToolTip(self.region_tip)
        self._show_temperature()
        self.unit_combo.currentIndexChanged.connect(self._on_option)
        self.temperature_box.editingFinished.connect(self._on_option)
        self.bins_box.editingFinished.connect(self._on_option)
        self.weights_combo.currentIndexChanged.connect(self._on_option)
        state.dataset_changed.connect(self._fill_weights)
        state.result_changed.connect(self.redraw)
        state.selection.changed.connect(self.update_selection)
        state.color_mode_changed.connect(self.update_selection)

    def region_points(self) -> FreeEnergyLandscape:
        return self.landscape

    # ----------------------------------------------------------------- options
    @property
    def unit(self) -> str:
        return self.unit_combo.currentText()

    @property
    def weights_column(self) -> str | None:
        """The chosen weights column (None: unweighted)."""
        return self.weights_combo.currentData()

    def _fill_weights(self, *_: object) -> None:
        self.weights_combo.blockSignals(True)
        self.weights_combo.clear()
        self.weights_combo.addItem(NO_WEIGHTS, None)
        for name in weight_columns(self.state.dataset):
            self.weights_combo.addItem(f"weights: {name}", name)
        self.weights_combo.setEnabled(self.weights_combo.count() > 1)
        self.weights_combo.blockSignals(False)

    def _show_temperature(self) -> None:
        self.temperature_box.setEnabled(self.unit != "kT")

    def _on_option(self, *_: object) -> None:
        self._show_temperature()
        if self._drawn or self._stale:
            self.redraw()

    def control_rows(self) -> tuple[QLayout, ...]:
        return (self.controls, self._options)

    def view_state(self) -> dict[str, Any]:
        """The landscape's choices, kept in a saved session."""
        return {"unit": self.unit, "temperature": self.temperature_box.value(),
                "bins": self.bins_box.value(), "weights": self.weights_column}

    def restore_view_state(self, state: dict[str, Any]) -> None:
        """Take back :meth:`view_state`'s choices; what does not fit is left as it is."""
        if state.get("unit") in ENERGY_UNITS:
            self.unit_combo.setCurrentText(state["unit"])
        for box, key in ((self.temperature_box, "temperature"), (self.bins_box, "bins")):
            if isinstance(state.get(key), int | float):
                box.setValue(state[key])
        index = self.weights_combo.findData(state.get("weights"))
        if index >= 0:
            self.weights_combo.setCurrentIndex(index)
        self._on_option()

    # ----------------------------------------------------------------- drawing
    def show_state(self) -> None:
        self.picker.fill()
        self._fill_weights()
        self.redraw()

    def _weights(self):
        """The chosen weights, or None; a bad column is said in the view and dropped."""
        column = self.weights_column
        if column is None:
            return None
        try:
            return frame_weights(self.state.dataset, column)
        except ValueError as exc:
            self._say(f"{exc}; shown without weights")
            self.weights_combo.blockSignals(True)
            self.weights_combo.setCurrentIndex(0)
            self.weights_combo.blockSignals(False)
            return None

    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def redraw(self, *_: object, force: bool = False) -> None:
        result = self._result_to_draw(force)
        if result is None:
            return
        self._say("")
        i, j = self.state.scatter_components
        if i == j:
            self.figure.clear()
            self.figure.text(0.5, 0.5, "A landscape needs two components", ha="center")
            self.canvas.draw_idle()
            return
        weights = self._weights()
        colors, selected = current_colors(self.state)
        self.thaw_layout()
        self.landscape.draw(result.scores, i, j, colors=colors, selected=selected,
                            weights=weights, weights_name=self.weights_column,
                            period=result.pns1_period, bins=self.bins_box.value() or None,
                            unit=self.unit, temperature=self.temperature_box.value())
        self._show_pair(self.landscape.axes, result)

    def update_selection(self, *_: object) -> None:
        self.recolor(self.landscape)
