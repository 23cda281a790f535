"""Side panels: fit parameters and the result summary."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
from superqt import QCollapsible

from ..model import AnalysisResult, AppState, FitParameters
from ..model.fit_cost import estimate_fit_cost
from .param_form import ParameterEditor, editor_for


class ParametersPanel(QGroupBox):
    """Editable settings and the Fit button.

    One editor per setting of :class:`~stpca_gui.model.FitParameters` (the parameters that
    :class:`~stpca_gui.core.stpca.ScaledTorusPCA` and the PNS1 mode clusters'
    :class:`~stpca_gui.core.mode_settings.ModeClusterSettings` offer), made from its
    declaration; the advanced ones sit under "More settings".
    """

    fit_requested = Signal()
    #: An editor's value changed.
    settings_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Parameters", parent)
        self.editors: dict[str, ParameterEditor] = {}
        form = QFormLayout()
        advanced_form = QFormLayout()
        for layout in (form, advanced_form):
            # A row too wide for the side panel puts its editor under its label: labels and
            # combo boxes keep their whole text ("SMDS optimiser", "automatic").
            layout.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        for spec in FitParameters.specs():
            editor = editor_for(spec)
            self.editors[spec.name] = editor
            (advanced_form if spec.advanced else form).addRow(spec.label, editor)
        self.more = QCollapsible("More settings", expandedIcon="▼", collapsedIcon="▶")
        advanced = QWidget()
        advanced.setLayout(advanced_form)
        # The collapsible already indents its contents: the form's own default margins
        # (9 px each side) would push its editors past the 300-pixel side column.
        advanced_form.setContentsMargins(0, 0, 0, 0)
        self.more.addWidget(advanced)
        self.fit_button = QPushButton("Fit")
        self.fit_button.setToolTip("Run ST-PCA with these settings (Ctrl+R)")
        self.fit_button.clicked.connect(self.fit_requested)
        settings = QWidget()
        settings_layout = QVBoxLayout(settings)
        settings_layout.setContentsMargins(0, 0, 0, 0)
        settings_layout.addLayout(form)
        settings_layout.addWidget(self.more)
        # The settings always show whole; More settings' contents scroll when short of room.
        self.settings_area = _ScrollWhenShort(
            settings, lambda: advanced.height() if self.more.isExpanded() else 0)
        #: What the fit will roughly cost at this n and d, when it is more than a few
        #: seconds (:mod:`stpca_gui.model.fit_cost`).
        self.cost_label = QLabel()
        self.cost_label.setVisible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.settings_area)
        # Beside the button: a line of its own would make the settings scroll at 1280 × 800.
        fit_row = QHBoxLayout()
        fit_row.addWidget(self.fit_button, 1)
        fit_row.addWidget(self.cost_label)
        layout.addLayout(fit_row)
        #: The data's size, for the cost note (n, d), once data are shown.
        self._data_size: tuple[int, int] | None = None
        for editor in self.editors.values():
            editor.changed.connect(self.settings_changed)
        self.settings_changed.connect(self._update_cost)

    def parameters(self) -> FitParameters:
        """The settings as a validated :class:`FitParameters`.

        Raises
        ------
        ValueError
            Naming the setting that is not allowed.
        """
        params = FitParameters(**{name: e.value() for name, e in self.editors.items()})
        params.validate()
        return params

    def show_fit_cost(self, n: int, d: int) -> None:
        """Say beside the Fit button what a fit of n samples on T^d with these settings
        will roughly cost, when that is more than a few seconds (issue 32: minutes at
        d = 66 and n in the thousands); updated as the settings change."""
        self._data_size = (n, d)
        self._update_cost()

    def _update_cost(self) -> None:
        if self._data_size is None:
            return
        try:
            params = self.parameters()
        except ValueError:
            self.set_cost_note("")
            return
        estimate = estimate_fit_cost(*self._data_size, params)
        self.set_cost_note(estimate.note(), estimate.details())

    def set_cost_note(self, text: str, details: str = "") -> None:
        """Show the estimated cost of a fit above the Fit button ("" hides it), with
        ``details`` as its tooltip."""
        self.cost_label.setText(text)
        self.cost_label.setToolTip(details)
        self.cost_label.setVisible(bool(text))

    def set_parameters(self, params: FitParameters) -> None:
        """Show ``params`` in the editors."""
        for name, editor in self.editors.items():
            editor.set_value(getattr(params, name))


class _ScrollWhenShort(QScrollArea):
    """Shows its widget whole when there is room and scrolls it when the window is too
    short (More settings open on a laptop screen), instead of making the window taller than
    the screen; it keeps at least its widget's height minus ``scrollable()`` pixels."""

    def __init__(self, content: QWidget, scrollable: Callable[[], int]) -> None:
        super().__init__()
        self._scrollable = scrollable
        self.setWidget(content)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        content.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt API name
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()  # More settings opened or closed: a new natural height
        return super().eventFilter(watched, event)

    def resizeEvent(self, event) -> None:  # Qt API name
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # long rows wrap, or no longer: another height

    def _content_height(self) -> int:
        """The widget's height at the width it has (its form's long rows wrap)."""
        content = self.widget()
        height = content.heightForWidth(content.width()) if content.hasHeightForWidth() else -1
        return height if height > 0 else content.sizeHint().height()

    def _bar_width(self) -> int:
        return self.verticalScrollBar().sizeHint().width()

    def sizeHint(self) -> QSize:
        content = self.widget().sizeHint()
        return QSize(content.width() + self._bar_width(), self._content_height())

    def minimumSizeHint(self) -> QSize:
        content = self.widget().minimumSizeHint()
        return QSize(content.width() + self._bar_width(),
                     max(0, self._content_height() - self._scrollable()))


class SummaryPanel(QGroupBox):
    """Key numbers of the state's current result (it follows ``state.result_changed``)."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__("Result", parent)
        self.table = QTableWidget(0, 2)
        self.table.horizontalHeader().setVisible(False)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        # Long values wrap: each row gets the height of its text, again whenever the
        # table's width changes (the window, the splitter, a scroll bar coming or going).
        # Measured after the pending layout: the label column's width follows the labels.
        self._row_heights = QTimer(self, singleShot=True, interval=0)
        self._row_heights.timeout.connect(self.table.resizeRowsToContents)
        self.table.viewport().installEventFilter(self)
        header.sectionResized.connect(self._row_heights.start)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        state.result_changed.connect(self.show_result)
        self.show_result(state.result)

    def show_result(self, result: AnalysisResult | None) -> None:
        rows = [] if result is None else result.summary_rows()
        self.table.setRowCount(len(rows))
        for r, (label, value) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(label))
            cell = QTableWidgetItem(value)
            cell.setToolTip(value)  # long values (the flat-patch note) are cut in the cell
            self.table.setItem(r, 1, cell)
        self._row_heights.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt API name
        if event.type() == QEvent.Type.Resize and watched is self.table.viewport():
            self._row_heights.start()
        return False

    def rows(self) -> list[tuple[str, str]]:
        """The displayed (label, value) pairs."""
        return [(self.table.item(r, 0).text(), self.table.item(r, 1).text())
                for r in range(self.table.rowCount())]
