"""Editors for estimator parameters, made from their declarations (core/_base/params.py).

Each :class:`~stpca_gui.core._base.params.ParamSpec` gets the widget its constraints call for: a
combo box for named values, a check box for booleans, a spin box for numbers, and a combo box
with a spin box beside it for parameters that take a named value or a number (the sphere
radius: "estimate" or a fixed value). A new parameter therefore needs no code here.
"""

from __future__ import annotations

import html
import math
from typing import Any

from PySide6.QtCore import QSize, Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QSpinBox,
    QWidget,
)

from ..core import Interval, ParamSpec

__all__ = ["ParameterEditor", "editor_for"]

#: Spin boxes need finite ends.
_INT_LIMIT = 2**31 - 1
_FLOAT_LIMIT = 1e9
#: The entry of the combo box that switches to a number.
_VALUE_ENTRY = "value"
#: An open-ended whole-number box is as wide as this many digits, not the ten of _INT_LIMIT
#: (a longer number scrolls in the box): the editors must fit the 300-pixel side column.
_OPEN_ENDED_DIGITS = 6


class _FloatSpinBox(QDoubleSpinBox):
    """A spin box for real numbers of any magnitude: shows 1e-05 and 1.5 alike, and steps by
    about a tenth of the current value."""

    def __init__(self) -> None:
        super().__init__()
        self.setDecimals(12)
        self.setStepType(QAbstractSpinBox.StepType.AdaptiveDecimalStepType)

    def textFromValue(self, value: float) -> str:
        return f"{value:.6g}"

    def valueFromText(self, text: str) -> float:
        try:
            return float(text)
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int):
        stripped = text.strip()
        try:
            float(stripped)
        except ValueError:
            ok = stripped in ("", "-", "+", ".") or stripped[-1:] in ("e", "E", "-", "+")
            state = QValidator.State.Intermediate if ok else QValidator.State.Invalid
            return state, text, pos
        return QValidator.State.Acceptable, text, pos


class _OpenEndedSpinBox(QSpinBox):
    """A whole-number box without a stated upper end, sized for ``_OPEN_ENDED_DIGITS`` digits
    rather than for the 2³¹ − 1 it must stop at."""

    def _narrowed(self, hint: QSize) -> QSize:
        metrics = self.fontMetrics()
        widest = max(metrics.horizontalAdvance(self.prefix() + self.textFromValue(v)
                                               + self.suffix())
                     for v in (self.minimum(), self.maximum()))
        sized = metrics.horizontalAdvance(self.prefix() + "9" * _OPEN_ENDED_DIGITS
                                          + self.suffix())
        return QSize(hint.width() - max(0, widest - sized), hint.height())

    def sizeHint(self) -> QSize:  # Qt API name
        return self._narrowed(super().sizeHint())

    def minimumSizeHint(self) -> QSize:  # Qt API name
        return self._narrowed(super().minimumSizeHint())


def _number_box(interval: Interval) -> QSpinBox | _FloatSpinBox:
    if interval.kind is int:
        box: QSpinBox | _FloatSpinBox = (QSpinBox() if interval.high is not None
                                         else _OpenEndedSpinBox())
        low = -_INT_LIMIT if interval.low is None else math.ceil(interval.low)
        high = _INT_LIMIT if interval.high is None else int(min(interval.high, _INT_LIMIT))
        if interval.closed in ("right", "neither") and low == interval.low:
            low += 1
    else:
        box = _FloatSpinBox()
        low = -_FLOAT_LIMIT if interval.low is None else float(interval.low)
        high = _FLOAT_LIMIT if interval.high is None else float(interval.high)
        if interval.closed in ("right", "neither") and interval.low is not None:
            low = math.nextafter(low, math.inf) if low != 0 else 1e-12
        if interval.closed in ("left", "neither") and interval.high is not None:
            # An open upper end (a test level below 1): the largest value the box shows.
            high -= 10.0 ** -box.decimals() * max(1.0, abs(high))
    box.setRange(low, high)
    return box


class ParameterEditor(QWidget):
    """The editor of one parameter: ``value()`` / ``set_value()`` in the estimator's terms."""

    changed = Signal()

    def __init__(self, spec: ParamSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self._options = spec.options()
        interval = spec.interval()
        self.choice: QComboBox | None = None
        self.number: QSpinBox | _FloatSpinBox | None = None
        self.check: QCheckBox | None = None
        if spec.is_boolean():
            self.check = QCheckBox()
            self.check.toggled.connect(self.changed)
            layout.addWidget(self.check)
        if self._options is not None:
            self.choice = QComboBox()
            for value in self._options.values:
                self.choice.addItem(self._options.label(value), value)
            if interval is not None:
                self.choice.addItem(_VALUE_ENTRY, _VALUE_ENTRY)
            self.choice.currentIndexChanged.connect(self._sync)
            layout.addWidget(self.choice)
        if interval is not None:
            self.number = _number_box(interval)
            # A named default leaves the number box at a neutral start, not at its minimum.
            self.number.setValue(min(max(1, self.number.minimum()), self.number.maximum()))
            self.number.valueChanged.connect(self.changed)
            layout.addWidget(self.number, 1)
        allowed = html.escape(spec.describe(typed=True))
        tip = f"<p>{html.escape(spec.doc)}</p><p>Allowed: {allowed}.</p>"
        self.setToolTip(tip)
        self.set_value(spec.app_default)

    def _sync(self) -> None:
        if self.number is not None and self.choice is not None:
            self.number.setEnabled(self.choice.currentData() == _VALUE_ENTRY)
        self.changed.emit()

    def value(self) -> Any:
        """The value shown, as the estimator takes it."""
        if self.check is not None:
            return self.check.isChecked()
        if self.choice is not None and self.choice.currentData() != _VALUE_ENTRY:
            return self.choice.currentData()
        assert self.number is not None
        return self.number.value()

    def set_value(self, value: Any) -> None:
        """Show ``value`` (which must be allowed by the declaration)."""
        if self.check is not None:
            self.check.setChecked(bool(value))
            return
        if self._options is not None and self._options.accepts(value):
            assert self.choice is not None
            self.choice.setCurrentIndex(self.choice.findData(value))
        else:
            if self.choice is not None:
                self.choice.setCurrentIndex(self.choice.findData(_VALUE_ENTRY))
            assert self.number is not None
            self.number.setValue(value)
        self._sync()


def editor_for(spec: ParamSpec, parent: QWidget | None = None) -> ParameterEditor:
    """The editor widget of a declared parameter."""
    return ParameterEditor(spec, parent)
