"""Matplotlib views: PNS score scatter, PNS1 histogram with KDE, variance explained, the
angles driving a component."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from matplotlib.widgets import LassoSelector, RectangleSelector, SpanSelector
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QLayout, QWidget

from ...files.atomic import atomic_path
from ...model import AnalysisResult, AppState
from ...model.angle_labels import display_names
from ...plotting.contributions import component_measure, draw_contributions
from ...plotting.histogram import ScoreHistogram
from ...plotting.partial_redraw import PartialRedraw
from ...plotting.scores import ScoresScatter
from ...plotting.variance import draw_variance
from .base import ViewFrame, current_colors, current_groups

#: Selection modes by keyboard modifier held when the gesture ends.
_MODIFIER_MODES = (
    (Qt.KeyboardModifier.ShiftModifier, "add"),
    (Qt.KeyboardModifier.ControlModifier, "subtract"),
    (Qt.KeyboardModifier.AltModifier, "intersect"),
)


def selection_mode_from_keyboard() -> str:
    """replace, or add (Shift), subtract (Ctrl), intersect (Alt) as held right now."""
    modifiers = QApplication.keyboardModifiers()
    for modifier, mode in _MODIFIER_MODES:
        if modifiers & modifier:
            return mode
    return "replace"


def save_figure_atomically(figure: Figure, path: Path, dpi: int) -> None:
    """Write a figure via a temporary file in the target folder, then rename it."""
    path = Path(path)
    with atomic_path(path) as tmp:
        figure.savefig(tmp, dpi=dpi, format=path.suffix.lstrip(".").lower() or "png")


class ViewCanvas(FigureCanvasQTAgg):
    """Agg canvas whose blits are painted with the next frame instead of at once.

    ``FigureCanvasQTAgg.blit`` repaints synchronously. In a window holding OpenGL widgets
    (the 3-D views) every synchronous repaint composes and flushes the whole window, so
    each view's blit after a selection would pay for its own full-window flush; a
    scheduled ``update`` lets Qt paint all changed views in one frame.
    """

    def blit(self, bbox=None) -> None:
        if bbox is None:
            bbox = self.figure.bbox
        ratio = self.device_pixel_ratio
        x0, y0, x1, y1 = bbox.extents
        left, right = math.floor(x0 / ratio), math.ceil(x1 / ratio)
        bottom, top = math.floor(y0 / ratio), math.ceil(y1 / ratio)
        self.update(left, self.rect().height() - top, right - left, top - bottom)


#: What a view without data says.
NO_DATA_MESSAGE = "Open a table (File → Open…) or a demo (Demos) to see this view."


class MplView(ViewFrame):
    """A view drawing into one matplotlib Figure on a Qt canvas."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(state, parent)
        self.figure = Figure(figsize=(5, 4), layout="constrained")
        self.canvas = ViewCanvas(self.figure)
        self.canvas.setMinimumSize(200, 160)
        self.set_content(self.canvas)
        self._drawn = False
        #: The result the figure shows; colour and selection updates apply only to it.
        self._drawn_result: AnalysisResult | None = None
        # Constrained layout costs about as much as rendering the figure. It is computed
        # on the first draw after a new plot or a resize and then frozen, so selection
        # updates only re-render.
        self.canvas.mpl_connect("draw_event", lambda _event: self._freeze_layout())
        self.canvas.mpl_connect("resize_event", lambda _event: self.thaw_layout())
        state.dataset_changed.connect(self._show_controls)

    def control_rows(self) -> tuple[QLayout, ...]:
        """The rows of the view's choices (the title row; a view may add its own)."""
        return (self.controls,)

    def _show_controls(self, *_: object) -> None:
        """The view's choices only with data: before, empty boxes beside a figure saying
        how to get data."""
        visible = self.state.dataset is not None
        for row in self.control_rows():
            for index in range(row.count()):
                widget = row.itemAt(index).widget()
                if widget is not None and widget is not self.title:
                    widget.setVisible(visible)

    def _result_or_blank(self) -> AnalysisResult | None:
        """The state's result; without one the figure is blank (:meth:`show_blank`)."""
        result = self.state.result
        if result is None:
            self.show_blank()
        return result

    def show_blank(self) -> None:
        """A figure without axes: before any data it says how to get some (empty axes
        from 0 to 1 read as a plot of nothing); with data, before their fit, it is empty."""
        self.figure.clear()
        if self.state.dataset is None:
            self.figure.text(0.5, 0.5, NO_DATA_MESSAGE, ha="center", va="center",
                             color="gray", wrap=True)
        self.canvas.draw_idle()
        self._drawn = False

    def showEvent(self, event) -> None:  # Qt API name
        # Every view, in a tab or not, is blank without a result when it comes into sight
        # (a builder made in a view's __init__ leaves empty axes from 0 to 1).
        super().showEvent(event)
        self._show_controls()
        if self.state.result is None:
            self.show_blank()

    def thaw_layout(self) -> None:
        """Let the next draw recompute the layout (new content or a new size)."""
        self.figure.set_layout_engine("constrained")

    def _freeze_layout(self) -> None:
        if self.figure.get_layout_engine() is not None:
            self.figure.set_layout_engine("none")

    def export(self, path: Path, dpi: int = 150) -> None:
        save_figure_atomically(self.figure, path, dpi)

    def has_content(self) -> bool:
        return self._drawn

    def show_layer_changes(self, partial: PartialRedraw | None) -> None:
        """Show changed top layers: a partial redraw when possible, else a full render."""
        if partial is not None and partial.redraw():
            # The selectors blit over their own copy of the canvas, now outdated; it is
            # renewed once the gesture that may have caused this change has ended.
            QTimer.singleShot(0, self._renew_selector_backgrounds)
        else:
            self.canvas.draw_idle()

    def selectors(self) -> list:
        """The blitting selection widgets of this view."""
        return []

    def recolor(self, builder) -> None:
        """Show the state's colours and selection on the drawn figure through the
        builder's ``update_colors(colors, selected)`` and its partial redraw; a figure
        drawn from an older result is redrawn instead (a new data set's signals are
        still on their way: the current colours do not fit the points drawn)."""
        if not self._drawn:
            return
        if self._drawn_result is not self.state.result:
            self.redraw()
            return
        colors, selected = current_colors(self.state)
        builder.update_colors(colors, selected)
        self.show_layer_changes(builder.partial_redraw)

    def _renew_selector_backgrounds(self) -> None:
        for selector in self.selectors():
            selector.update_background(None)


class DrawnWhenShown:
    """A view in a tab that draws only when shown: while hidden, a redraw marks it stale
    (its figure may cost tenths of a second for 10⁶ frames), and showing it or exporting
    it draws. The view's ``redraw(force=…)`` calls :meth:`_deferred` first."""

    _stale = False

    def _deferred(self, force: bool) -> bool:
        """Whether to leave the drawing for later (hidden, and not forced)."""
        self._stale = not force and not self.isVisible()
        return self._stale

    def _result_to_draw(self, force: bool) -> AnalysisResult | None:
        """The result to draw now: None without one (the figure is cleared) or while the
        tab is hidden and the drawing not forced (it is then stale)."""
        result = self._result_or_blank()
        if result is None:
            self._stale = False
            return None
        return None if self._deferred(force) else result

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale:
            self.redraw()

    def has_content(self) -> bool:
        return self._drawn or (self._stale and self.state.result is not None)

    def export(self, path: Path, dpi: int = 150) -> None:
        if self._stale:
            self.redraw(force=True)
        super().export(path, dpi)


class ComponentPicker:
    """The x and y combo boxes of a view of two PNS components, bound to the state's
    ``scatter_components`` (the scores scatter and the free-energy landscape show the same
    pair: switching between them keeps the axes). When the state's pair changes, the boxes
    show it and the view, if it drew another pair, is redrawn.

    Parameters
    ----------
    view : MplView
        The view; the boxes are added to its title row (``controls``).
    """

    def __init__(self, view: MplView) -> None:
        self.view = view
        self.state = state = view.state
        controls = view.controls
        #: The pair the view drew last (it sets it), None before.
        self.drawn: tuple[int, int] | None = None
        self.x_combo = QComboBox()
        self.y_combo = QComboBox()
        self.x_combo.setToolTip("Horizontal axis")
        self.y_combo.setToolTip("Vertical axis")
        controls.addWidget(QLabel("x"))
        controls.addWidget(self.x_combo)
        controls.addWidget(QLabel("y"))
        controls.addWidget(self.y_combo)
        self.x_combo.currentIndexChanged.connect(lambda: self._on_axes_chosen("x"))
        self.y_combo.currentIndexChanged.connect(lambda: self._on_axes_chosen("y"))
        state.dataset_changed.connect(self.fill)
        state.view_options_changed.connect(self._on_view_option)

    def _on_view_option(self, name: str) -> None:
        if name != "scatter_components":
            return
        self.show_components()
        if self.view.has_content() and self.drawn != self.state.scatter_components:
            self.view.redraw()

    def fill(self, *_: object) -> None:
        """One entry per PNS component of the data set, showing the state's choice."""
        dataset = self.state.dataset
        d = 0 if dataset is None else dataset.n_angles
        names = [f"PNS{k + 1}" for k in range(d)]
        for combo in (self.x_combo, self.y_combo):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(names)
            combo.blockSignals(False)
        self.y_combo.setEnabled(d > 1)
        self.show_components()

    def show_components(self) -> None:
        """Set the combo boxes to the state's scatter components."""
        if self.state.dataset is None:
            return
        for combo, index in zip((self.x_combo, self.y_combo), self.state.scatter_components,
                                strict=True):
            combo.blockSignals(True)
            combo.setCurrentIndex(index)
            combo.blockSignals(False)

    def _on_axes_chosen(self, axis: str) -> None:
        i, j = self.x_combo.currentIndex(), self.y_combo.currentIndex()
        if i < 0 or j < 0:
            return
        if i == j and self.y_combo.count() > 1:
            # Choosing the other axis's component swaps the two axes.
            old_i, old_j = self.state.scatter_components
            i, j = (i, old_i) if axis == "x" else (old_j, j)
        self.state.set_scatter_components(i, j)
        self.show_components()


class RegionSelection:
    """Lasso (drag) and rectangle (right-drag) selection on a view of two scores, written
    to the shared selection. The view names its ``region_source`` and gives the object
    that knows which points a region holds (``region_points()``: with
    ``points_in_polygon`` and ``points_in_rectangle``)."""

    region_source = "scores"
    #: The views' tooltip: how to select.
    region_tip = ("Drag: lasso select · right-drag: rectangle · Shift add, Ctrl subtract, "
                  "Alt intersect")
    _lasso: LassoSelector | None = None
    _rect: RectangleSelector | None = None

    def region_points(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def selectors(self) -> list:
        return [s for s in (self._lasso, self._rect) if s is not None]

    def _show_pair(self, ax, result: AnalysisResult) -> None:
        """After drawing the state's pair of components into ``ax``: the selectors, the
        repaint, and what was drawn."""
        self._attach_selectors(ax)
        self.canvas.draw_idle()
        self._drawn = True
        self.picker.drawn = self.state.scatter_components
        self._drawn_result = result

    def _attach_selectors(self, ax) -> None:
        self._lasso = LassoSelector(ax, self._on_lasso, button=[1], useblit=True)
        self._rect = RectangleSelector(ax, self._on_rectangle, button=[3], useblit=True,
                                       interactive=False)

    def _on_lasso(self, vertices: list[tuple[float, float]]) -> None:
        if len(vertices) < 3:
            return
        self.select_polygon(np.asarray(vertices), selection_mode_from_keyboard())

    def _on_rectangle(self, press, release) -> None:
        self.select_rectangle(press.xdata, press.ydata, release.xdata, release.ydata,
                              selection_mode_from_keyboard())

    def select_polygon(self, vertices: np.ndarray, mode: str = "replace") -> None:
        """Select the samples inside a polygon in data coordinates."""
        mask = self.region_points().points_in_polygon(vertices)
        self.state.selection.apply(mask, mode, source=self.region_source)

    def select_rectangle(self, x0: float, y0: float, x1: float, y1: float,
                         mode: str = "replace") -> None:
        """Select the samples inside an axis-aligned rectangle in data coordinates."""
        if None in (x0, y0, x1, y1):
            return
        mask = self.region_points().points_in_rectangle(x0, y0, x1, y1)
        self.state.selection.apply(mask, mode, source=self.region_source)


class SpanSelection:
    """Selection of a range along the horizontal axis by dragging (the PNS1 histogram, the
    scores over time), written to the shared selection by the view's
    ``select_span(lo, hi, mode)``."""

    _span: SpanSelector | None = None

    def select_span(self, lo: float, hi: float, mode: str = "replace") -> None:
        raise NotImplementedError  # pragma: no cover - abstract

    def selectors(self) -> list:
        return [] if self._span is None else [self._span]

    def _attach_span(self, ax, minspan: float) -> None:
        self._span = SpanSelector(ax, self._on_span, "horizontal", useblit=True,
                                  minspan=minspan, props={"alpha": 0.2, "facecolor": "#0072B2"})

    def _on_span(self, lo: float, hi: float) -> None:
        self.select_span(lo, hi, selection_mode_from_keyboard())


class ScoresView(RegionSelection, MplView):
    """PNS_i vs PNS_j with lasso (drag) and rectangle (right-drag) selection.

    The components shown are the state's ``scatter_components``: the x/y combo boxes
    write the user's choice there and follow the state.
    """

    title_text = "Scores"
    export_stem = "scores"

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(state, parent)
        self.scatter = ScoresScatter(self.figure)
        self.picker = ComponentPicker(self)
        self.x_combo, self.y_combo = self.picker.x_combo, self.picker.y_combo
        self.setToolTip(self.region_tip)
        state.result_changed.connect(self.redraw)
        state.selection.changed.connect(self.update_colors)
        state.color_mode_changed.connect(self._on_color_mode)

    def region_points(self) -> ScoresScatter:
        return self.scatter

    def _on_color_mode(self, *_: object) -> None:
        # The density image of all samples has the colours of the mode: it is redrawn.
        if self._drawn and self.scatter.density:
            self.redraw()
        else:
            self.update_colors()

    def show_state(self) -> None:
        self.picker.fill()
        self.redraw()

    def redraw(self, *_: object) -> None:
        result = self._result_or_blank()
        if result is None:
            return
        i, j = self.state.scatter_components
        colors, selected = current_colors(self.state)
        self.thaw_layout()
        self.scatter.draw(result.scores, i, j, colors=colors, selected=selected)
        self._show_pair(self.scatter.axes, result)

    def update_colors(self, *_: object) -> None:
        self.recolor(self.scatter)


class HistogramView(SpanSelection, MplView):
    """Histogram and periodic KDE of PNS1; drag a range to select."""

    title_text = "PNS1 distribution"
    export_stem = "pns1_histogram"

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(state, parent)
        self.histogram = ScoreHistogram(self.figure)
        self.setToolTip("Drag a range of PNS1 to select · Shift add, Ctrl subtract, Alt intersect")
        state.result_changed.connect(self.redraw)
        state.selection.changed.connect(self.update_selection)
        state.color_mode_changed.connect(self.redraw)
        state.view_options_changed.connect(self._on_view_option)

    def _on_view_option(self, name: str) -> None:
        if name == "paper_antimodes" and self._drawn:
            self.redraw()

    def redraw(self, *_: object) -> None:
        result = self._result_or_blank()
        if result is None:
            return
        codes, names = current_groups(self.state)
        clusters = result.mode_clusters
        self.thaw_layout()
        self.histogram.draw(result.pns1, result.pns1_period, group_codes=codes,
                            selected=self.state.selection.mask(), group_names=names,
                            bandwidth=clusters.bandwidth)
        paper = result.paper_mode_clusters if self.state.show_paper_antimodes else None
        self.histogram.show_mode_clusters(clusters, paper=paper)
        self._attach_span(self.histogram.axes, minspan=1e-6)
        self.canvas.draw_idle()
        self._drawn = True
        self._drawn_result = result

    def select_range(self, lo: float, hi: float, mode: str = "replace") -> None:
        """Select the samples whose PNS1 lies in [lo, hi] (wrapping when lo > hi)."""
        mask = self.histogram.range_mask(lo, hi)
        self.state.selection.apply(mask, mode, source="histogram")

    select_span = select_range

    def update_selection(self, *_: object) -> None:
        if not self._drawn:
            return
        if self._drawn_result is not self.state.result:
            self.redraw()  # drawn from an older result: the selection does not fit it
            return
        self.histogram.update_selection(self.state.selection.mask())
        self.show_layer_changes(self.histogram.partial_redraw)


class VarianceView(MplView):
    """Percentage of variance explained per component, on the sphere and on the torus."""

    title_text = "Variance explained"
    export_stem = "variance"

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(state, parent)
        self.canvas.setMinimumSize(200, 120)
        state.result_changed.connect(self.redraw)
        # The value labels are laid out for the figure's width (upright or vertical).
        self.canvas.mpl_connect("resize_event", lambda _event: self.redraw())

    def redraw(self, *_: object) -> None:
        result = self._result_or_blank()
        self.thaw_layout()
        if result is not None:
            self.figure.clear()
            # No title: the view's header says it.
            draw_variance(self.figure, result.sphere_ratio, result.torus_ratio, title="",
                          torus_remaining=result.torus_remaining)
        self._drawn = result is not None
        self.canvas.draw_idle()


class ContributionsView(MplView):
    """The angles that drive a component most (torus-variance shares, or for PNS1 the
    principal curve's range when the torus variance was not computed); clicking a bar
    shows that angle on the torus view."""

    title_text = "Angles driving"
    export_stem = "angle_contributions"

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(state, parent)
        self.canvas.setMinimumSize(200, 120)
        self.component_combo = QComboBox()
        self.component_combo.setToolTip("The component whose angles are shown")
        self.controls.addWidget(self.component_combo)
        self.setToolTip("Click a bar to show that angle on the torus (outlined bars with bold "
                        "names: the angles on the torus view)")
        #: The angle of each bar drawn, in order, and what the bars measure.
        self.columns: list[int] = []
        self.measure_kind = ""
        self.component_combo.currentIndexChanged.connect(self.redraw)
        self.canvas.mpl_connect("pick_event", self._on_pick)
        # As many bars as the height holds names.
        self.canvas.mpl_connect("resize_event", lambda _event: self.redraw())
        state.result_changed.connect(self._fill_combo)
        state.view_options_changed.connect(self._on_view_option)

    def show_state(self) -> None:
        self._fill_combo()

    def _fill_combo(self, *_: object) -> None:
        """PNS1 … PNSK: the components with a measure (PNS1 only without torus variance)."""
        result = self.state.result
        count = 0 if result is None else max(1, len(result.model.angle_contributions_))
        keep = max(0, self.component_combo.currentIndex())
        self.component_combo.blockSignals(True)
        self.component_combo.clear()
        self.component_combo.addItems([f"PNS{k + 1}" for k in range(count)])
        self.component_combo.setCurrentIndex(min(keep, count - 1))
        self.component_combo.setEnabled(count > 1)
        self.component_combo.blockSignals(False)
        self.redraw()

    def _on_view_option(self, name: str) -> None:
        if name == "torus_axes" and self._drawn:
            self.redraw()

    @property
    def component(self) -> int:
        return max(0, self.component_combo.currentIndex())

    def set_component(self, component: int) -> None:
        """Show the angles of PNS(component + 1) (0-based), if it has a measure."""
        if 0 <= component < self.component_combo.count():
            self.component_combo.setCurrentIndex(component)

    def view_state(self) -> dict:
        return {"component": self.component}

    def restore_view_state(self, state: dict) -> None:
        component = state.get("component")
        if isinstance(component, int) and not isinstance(component, bool):
            self.set_component(component)

    def redraw(self, *_: object) -> None:
        self.figure.clear()
        self.thaw_layout()
        result = self.state.result
        self.columns, self.measure_kind = [], ""
        measure = None
        if result is not None:
            contributions = result.model.angle_contributions_
            measure = component_measure(contributions if len(contributions) else None,
                                        result.curve.angle_ranges(), self.component)
        if measure is not None:
            names = display_names(result.dataset.column_names)
            _, self.columns = draw_contributions(self.figure, measure, names,
                                                 shown=self.state.torus_axes)
            self.measure_kind = measure.kind
        self._drawn = measure is not None
        self.canvas.draw_idle()

    def _on_pick(self, event) -> None:
        gid = event.artist.get_gid()
        if gid is not None:
            self.show_angle(int(gid))

    def show_angle(self, column: int) -> None:
        """Put angle ``column`` on the torus view: in place of the shown angle that drives
        this component least (nothing when it is shown already)."""
        axes = list(self.state.torus_axes)
        if column in axes or len(axes) < 3:
            return
        rank = {k: i for i, k in enumerate(self.columns)}
        weakest = max(axes, key=lambda k: rank.get(k, len(rank)))
        axes[axes.index(weakest)] = column
        self.state.set_torus_axes(tuple(sorted(axes)))
