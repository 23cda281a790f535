"""Side panels: fit parameters and the result summary."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..model import AnalysisResult, FitParameters

PNS_MODES = ("seq.test", "small", "great", "bic")
OPTIMIZERS = (("lbfgs", "converged (L-BFGS)"), ("paper", "paper (R optim, reltol 0.05)"))


class ParametersPanel(QGroupBox):
    """Editable ST-PCA settings and the Fit button."""

    fit_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Parameters", parent)
        form = QFormLayout()
        self.auto_radius = QCheckBox("estimate")
        self.auto_radius.setChecked(True)
        self.radius = QDoubleSpinBox()
        self.radius.setRange(0.05, 100.0)
        self.radius.setDecimals(3)
        self.radius.setSingleStep(0.05)
        self.radius.setValue(1.5)
        self.radius.setEnabled(False)
        self.auto_radius.toggled.connect(lambda on: self.radius.setEnabled(not on))
        radius_row = QHBoxLayout()
        radius_row.addWidget(self.auto_radius)
        radius_row.addWidget(self.radius)
        form.addRow("Sphere radius", radius_row)
        self.pns_mode = QComboBox()
        self.pns_mode.addItems(PNS_MODES)
        self.pns_mode.setToolTip("seq.test: test small vs great spheres at each level (shapes)")
        form.addRow("PNS mode", self.pns_mode)
        self.optimizer = QComboBox()
        for key, text in OPTIMIZERS:
            self.optimizer.addItem(text, key)
        form.addRow("SMDS optimiser", self.optimizer)
        self.curve_points = QSpinBox()
        self.curve_points.setRange(10, 5000)
        self.curve_points.setValue(100)
        form.addRow("Curve points", self.curve_points)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        form.addRow("Seed", self.seed)
        self.restarts = QSpinBox()
        self.restarts.setRange(1, 100)
        self.restarts.setToolTip("SMDS starts; extra starts are random and the best is kept")
        form.addRow("SMDS starts", self.restarts)
        self.torus_variance = QCheckBox("compute")
        self.torus_variance.setChecked(True)
        self.torus_variance.setToolTip("Torus explained variance predicts n·d points")
        form.addRow("Torus variance", self.torus_variance)
        self.fit_button = QPushButton("Fit")
        self.fit_button.setToolTip("Run ST-PCA with these settings (Ctrl+R)")
        self.fit_button.clicked.connect(self.fit_requested)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.fit_button)

    def parameters(self) -> FitParameters:
        """The settings as a validated :class:`FitParameters`."""
        params = FitParameters(
            radius="auto" if self.auto_radius.isChecked() else float(self.radius.value()),
            pns_mode=self.pns_mode.currentText(),
            n_curve_points=int(self.curve_points.value()),
            random_state=int(self.seed.value()),
            n_init=int(self.restarts.value()),
            optimizer=str(self.optimizer.currentData()),
            torus_variance=self.torus_variance.isChecked(),
        )
        params.validate()
        return params


class SummaryPanel(QGroupBox):
    """Key numbers of the current result."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Result", parent)
        self.table = QTableWidget(0, 2)
        self.table.horizontalHeader().setVisible(False)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)

    def show_result(self, result: AnalysisResult | None) -> None:
        rows = [] if result is None else result.summary_rows()
        self.table.setRowCount(len(rows))
        for r, (label, value) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(label))
            self.table.setItem(r, 1, QTableWidgetItem(value))

    def rows(self) -> list[tuple[str, str]]:
        """The displayed (label, value) pairs."""
        return [(self.table.item(r, 0).text(), self.table.item(r, 1).text())
                for r in range(self.table.rowCount())]
