"""Help → Guided Tour: a side panel that walks students through ST-PCA on the window's data.

The steps and their texts are in :mod:`stpca_gui.model.tour`, their figures in
:mod:`stpca_gui.plotting.tour_figures`. :class:`GuidedTour` owns the panel (a dock on the
right) and drives the window: it emphasises the views a step is about, sets the colour mode
(and, for the first steps, selects the samples on either side of the ±π seam), and tells the
sphere view what to show (the fit, the recorded SMDS iterations through
``SphereView.show_configuration``, or the configuration at the radius of the slider).
Everything it computes (the fit when there is none, the SMDS replay, the refits at a fixed
radius) runs in a :class:`~stpca_gui.gui.tasks.TaskRunner`. Closing the tour puts the
window back as it was. :class:`TourExport` renders every step to a PNG with an index
(``stpca-gui --demo NAME --tour-export DIR``).

matplotlib (the panel's figure and equations) is imported where it is used, when the tour
opens: this module loads with the window's numerics, which must not wait for matplotlib
(gui/startup.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from ..io import atomic_path
from ..model.tour import (
    PAPER_EQUATIONS,
    RadiusPoint,
    TourData,
    TourStep,
    prepare_tour,
    refit_at_radius,
    tour_steps,
)
from .tasks import TaskRunner

if TYPE_CHECKING:
    from .window_services import WindowServices

__all__ = ["GuidedTour", "TourExport"]

#: Emphasis of the views a step is about: an orange frame and a tinted title row.
EMPHASIS_STYLE = "#{name} {{ border: 2px solid #E69F00; background: #FFF3DC; }}"
#: Milliseconds per frame of the SMDS replay.
FRAME_MS = 90
#: Milliseconds of quiet after the radius slider moved before the refit starts.
SLIDER_DELAY_MS = 200
#: Slider positions between the smallest and largest radius.
SLIDER_STEPS = 200
#: Smallest and largest radius of the slider, as multiples of r̂.
SLIDER_RANGE = (0.45, 2.5)
#: Radius shown by the radius step when exported, as a multiple of r̂.
EXPORT_RADIUS_FACTOR = 0.75
#: Milliseconds the export waits after showing a step, for the 3-D views to render.
EXPORT_SETTLE_MS = 400
#: Width of the panel in pixels.
PANEL_WIDTH = 470


class TourPanel(QDockWidget):
    """The tour's side panel: step counter, title, text, equation, figure, controls."""

    #: The panel's own close button was pressed.
    close_requested = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__("Guided tour", parent)
        self.setObjectName("guided-tour")
        self.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(8, 6, 8, 6)
        self.counter = QLabel("")
        self.counter.setStyleSheet("color: gray;")
        self.title = QLabel("")
        self.title.setStyleSheet("font-size: 15pt; font-weight: bold;")
        self.title.setWordWrap(True)
        self.text = QLabel("")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.text.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.equation = QLabel("")
        self.equation.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.citation = QLabel("")
        self.citation.setWordWrap(True)
        self.citation.setStyleSheet("color: #555555; font-style: italic;")
        from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
        from matplotlib.figure import Figure

        self.figure = Figure(figsize=(4.6, 3.4), dpi=100, layout="constrained")
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.canvas.setMinimumHeight(300)
        self.replay_button = QPushButton("Replay")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider_label = QLabel("")
        controls = QHBoxLayout()
        controls.addWidget(self.replay_button)
        controls.addWidget(self.slider, 1)
        controls.addWidget(self.slider_label)
        self.status = QLabel("")
        self.status.setStyleSheet("color: gray;")
        self.status.setWordWrap(True)
        self.back_button = QPushButton("◀ Back")
        self.next_button = QPushButton("Next ▶")
        self.close_button = QPushButton("Close")
        buttons = QHBoxLayout()
        buttons.addWidget(self.back_button)
        buttons.addWidget(self.next_button)
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        for widget in (self.counter, self.title, self.text, self.equation, self.citation):
            layout.addWidget(widget)
        layout.addWidget(self.canvas, 1)
        layout.addLayout(controls)
        layout.addWidget(self.status)
        layout.addLayout(buttons)
        self.setWidget(body)
        self.setMinimumWidth(PANEL_WIDTH)
        self.setMaximumWidth(PANEL_WIDTH + 80)

    def closeEvent(self, event) -> None:
        event.ignore()  # the tour removes the panel when it has restored the window
        self.close_requested.emit()

    def show_controls(self, replay: bool, slider: bool) -> None:
        self.replay_button.setVisible(replay)
        self.slider.setVisible(slider)
        self.slider_label.setVisible(slider)


class GuidedTour(QObject):
    """The guided tour of one main window (at most one at a time, :meth:`open`).

    Signals: ``ready`` once the tour's data are prepared and the first step is shown;
    ``step_shown(index)``; ``radius_refitted(radius)`` after a slider refit has been drawn;
    ``failed(message)``; ``closed`` after the window was restored.
    """

    ready = Signal()
    step_shown = Signal(int)
    radius_refitted = Signal(float)
    failed = Signal(str)
    closed = Signal()

    def __init__(self, window: WindowServices) -> None:
        super().__init__(window.widget())
        self.window = window
        self.panel = TourPanel(window.widget())
        self.runner = TaskRunner(self.panel)
        self.data: TourData | None = None
        self.steps: list[TourStep] = []
        self.index = 0
        self.frame = 0
        self.radius: float | None = None
        self._saved: dict[str, object] | None = None
        self._closing = False
        self._waiting_for_fit = False
        self._frame_marker = None
        self._equation_images: dict[str, bytes] = {}
        self._frame_timer = QTimer(self)
        self._frame_timer.setInterval(FRAME_MS)
        self._frame_timer.timeout.connect(self._advance_frame)
        self._slider_timer = QTimer(self)
        self._slider_timer.setSingleShot(True)
        self._slider_timer.setInterval(SLIDER_DELAY_MS)
        self._slider_timer.timeout.connect(self._refit_at_slider)
        panel = self.panel
        panel.back_button.clicked.connect(self.back)
        panel.next_button.clicked.connect(self.next)
        panel.close_button.clicked.connect(self.close)
        panel.replay_button.clicked.connect(self.replay)
        panel.slider.valueChanged.connect(self._on_slider)
        panel.close_requested.connect(self.close)
        for key, slot in ((Qt.Key.Key_Right, self.next), (Qt.Key.Key_Left, self.back)):
            QShortcut(QKeySequence(key), panel, slot, context=Qt.ShortcutContext.WindowShortcut)
        self.runner.progress.connect(lambda report: panel.status.setText(report.message))
        self.runner.succeeded.connect(self._on_task_done)
        self.runner.failed.connect(self._on_task_failed)
        window.state.dataset_changed.connect(self._on_dataset)
        window.state.result_changed.connect(self._on_result)

    # ------------------------------------------------------------------ opening
    def start(self) -> None:
        """Show the panel and prepare: fit first when there is no result, then record."""
        window = self.window
        window.widget().addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.panel)
        self.panel.show()
        self._show_waiting("Preparing the tour…")
        window.when_prepared("sphere", self._prepare)

    def _show_waiting(self, message: str) -> None:
        panel = self.panel
        panel.counter.setText("")
        panel.title.setText("Guided tour of ST-PCA")
        panel.text.setText(message)
        panel.equation.clear()
        panel.citation.clear()
        panel.show_controls(False, False)
        panel.back_button.setEnabled(False)
        panel.next_button.setEnabled(False)

    def _prepare(self) -> None:
        window = self.window
        result = window.state.result
        if result is None:
            self._show_waiting("The data are not fitted yet: fitting them first (see the "
                               "status bar)…")
            if not self._waiting_for_fit:
                self._waiting_for_fit = True
                window.controller.progress.connect(self._on_fit_progress)
                window.fit_ended.connect(self._on_fit_ended)
            if not window.controller.busy:
                window.fit()
            return  # _on_result continues
        self._show_waiting("Recording the spherical MDS iterations and refitting at "
                           "several radii…")
        self.runner.start(partial(prepare_tour, result))

    def _on_fit_progress(self, event: object) -> None:
        self.panel.status.setText(getattr(event, "message", "") or "fitting…")

    def _on_fit_ended(self, outcome: str) -> None:
        self._disconnect_fit()
        self._show_waiting(f"The fit {outcome}; the tour needs a fitted result. Fit the "
                           "data (Analysis → Fit) and open the tour again.")
        self.failed.emit(f"the fit {outcome}")

    def _disconnect_fit(self) -> None:
        if self._waiting_for_fit:
            self._waiting_for_fit = False
            self.window.controller.progress.disconnect(self._on_fit_progress)
            self.window.fit_ended.disconnect(self._on_fit_ended)

    def _on_task_done(self, value: object) -> None:
        if isinstance(value, TourData):
            self._on_prepared(value)
        elif isinstance(value, RadiusPoint):
            self._on_refitted(value)

    def _on_prepared(self, data: TourData) -> None:
        if data.result is not self.window.state.result:
            self._prepare()  # refitted meanwhile: prepare for the new result
            return
        self.data = data
        self.steps = tour_steps(data)
        self.radius = data.result.radius
        if self._saved is None:
            self._save_window()
        self.panel.status.setText("")
        self.go_to(min(self.index, len(self.steps) - 1))
        self.ready.emit()

    def _on_task_failed(self, message: str, _details: str) -> None:
        self._show_waiting(f"The tour could not be prepared: {message}")
        self.failed.emit(message)

    # ------------------------------------------------------------------ window state
    def _save_window(self) -> None:
        state = self.window.state
        self._saved = {
            "color_mode": state.color_mode,
            "groups": state.selection.groups.copy(),
            "active_group": state.selection.active_group,
        }

    def _restore_window(self) -> None:
        window = self.window
        self._emphasise(())
        sphere = window.views.get("sphere")
        if sphere is not None and sphere.showing_configuration:
            sphere.clear_configuration()
        if self._saved is None:
            return
        saved, self._saved = self._saved, None
        state = window.state
        if state.selection.n_samples == len(saved["groups"]):
            state.selection.set_groups(saved["groups"], source="tour")
            state.selection.active_group = saved["active_group"]
        self._set_color_mode(saved["color_mode"])

    def _set_color_mode(self, mode: str) -> None:
        self.window.state.set_color_mode(mode)  # the window's toolbar follows the state

    def _emphasise(self, keys: tuple[str, ...]) -> None:
        for key, view in self.window.views.items():
            name = f"tour-view-{key}"
            view.setObjectName(name)
            view.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, key in keys)
            view.setStyleSheet(EMPHASIS_STYLE.format(name=name) if key in keys else "")

    # ------------------------------------------------------------------ steps
    @property
    def step(self) -> TourStep:
        return self.steps[self.index]

    def next(self) -> None:
        if self.steps and self.index < len(self.steps) - 1:
            self.go_to(self.index + 1)

    def back(self) -> None:
        if self.steps and self.index > 0:
            self.go_to(self.index - 1)

    def go_to(self, index: int, *, animate: bool = True) -> None:
        """Show step ``index`` (0-based) in the panel and the window."""
        if self.data is None:
            return
        self.index = int(index)
        step = self.step
        data = self.data
        panel = self.panel
        self._frame_timer.stop()
        self._frame_marker = None
        panel.counter.setText(f"Step {self.index + 1} of {len(self.steps)}")
        panel.title.setText(step.title)
        panel.text.setText(step.text)
        self._show_equation(step)
        panel.back_button.setEnabled(self.index > 0)
        panel.next_button.setEnabled(self.index < len(self.steps) - 1)
        # Arrow keys reach the tour's shortcuts unless a text field has the focus.
        (panel.next_button if panel.next_button.isEnabled() else panel.back_button).setFocus()
        panel.show_controls(step.sphere == "smds", step.sphere == "radius")
        self._emphasise(step.views)
        state = self.window.state
        seam_groups = data.seam.groups() if step.color_mode == "selection" else None
        groups = seam_groups if seam_groups is not None else self._saved["groups"]
        state.selection.set_groups(groups, source="tour")
        self._set_color_mode(step.color_mode)
        sphere = self.window.views["sphere"]
        if step.sphere == "smds":
            self.frame = 0 if animate else len(data.frames) // 4
            self._show_frame()
            if animate:
                self._frame_timer.start()
        elif step.sphere == "radius":
            if not animate:
                # A still (the export) shows a sphere too small for the data, whose stress
                # is far above the fit's, rather than the fit again.
                self.radius = data.nearest_radius_point(
                    EXPORT_RADIUS_FACTOR * data.result.radius).radius
            self._set_slider(self.radius)
            self._show_radius_point()
        else:
            if sphere.showing_configuration:
                sphere.clear_configuration()
            self._draw_figure()
        self.step_shown.emit(self.index)

    def _show_equation(self, step: TourStep) -> None:
        from ..plotting.tour_figures import equation_png

        label = step.equations[0]
        if label not in self._equation_images:  # a rendering takes a quarter second
            self._equation_images[label] = equation_png(step.equation, fontsize=11.5)
        pixmap = QPixmap()
        pixmap.loadFromData(self._equation_images[label])
        width = self.panel.width() - 24
        if pixmap.width() > width > 0:
            pixmap = pixmap.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
        self.panel.equation.setPixmap(pixmap)
        also = [PAPER_EQUATIONS[label] for label in step.equations[1:]]
        citation = step.equation.citation
        if also:
            citation += "; see also " + ", ".join(f"eq. ({eq.number}) {eq.name}"
                                                  for eq in also)
        self.panel.citation.setText(citation)

    def _draw_figure(self, **options: object) -> object:
        from ..plotting.tour_figures import draw_tour_figure

        figure = self.panel.figure
        figure.set_layout_engine("constrained")
        drawn = draw_tour_figure(figure, self.step, self.data,
                                 axes=tuple(self.window.state.torus_axes), **options)
        self.panel.canvas.draw_idle()
        return drawn

    # ------------------------------------------------------------------ SMDS replay
    def replay(self) -> None:
        if self.data is not None and self.step.sphere == "smds":
            self.frame = 0
            self._show_frame()
            self._frame_timer.start()

    def _show_frame(self) -> None:
        snapshot = self.data.frames[self.frame]
        self.window.views["sphere"].show_configuration(snapshot)
        if self.frame == 0 or self._frame_marker is None:
            self._frame_marker = self._draw_figure(frame=self.frame)
        else:
            # Only the marker moves: the layout of the first frame is kept (no constrained
            # layout pass per frame).
            self.panel.figure.set_layout_engine("none")
            self._frame_marker.move(snapshot.iteration, snapshot.stress)
            self.panel.canvas.draw_idle()

    def _advance_frame(self) -> None:
        if self.data is None or self.step.sphere != "smds":
            self._frame_timer.stop()
            return
        if self.frame >= len(self.data.frames) - 1:
            self._frame_timer.stop()
            return
        self.frame += 1
        self._show_frame()

    # ------------------------------------------------------------------ radius
    def _slider_radius(self, position: int) -> float:
        low, high = (f * self.data.result.radius for f in SLIDER_RANGE)
        return low + (high - low) * position / SLIDER_STEPS

    def _set_slider(self, radius: float) -> None:
        low, high = (f * self.data.result.radius for f in SLIDER_RANGE)
        slider = self.panel.slider
        slider.blockSignals(True)
        slider.setValue(round((radius - low) / (high - low) * SLIDER_STEPS))
        slider.blockSignals(False)
        self.panel.slider_label.setText(f"r = {radius:.2f}")

    def _on_slider(self, position: int) -> None:
        self.radius = self._slider_radius(position)
        self.panel.slider_label.setText(f"r = {self.radius:.2f}")
        self._slider_timer.start()

    def set_radius(self, radius: float) -> None:
        """Move the slider to ``radius`` (as a user would), which refits there."""
        self._set_slider(radius)
        self._on_slider(self.panel.slider.value())

    def _refit_at_slider(self) -> None:
        data = self.data
        if data is None:
            return
        self.panel.status.setText(f"Spherical MDS at r = {self.radius:.2f}…")
        self.runner.start(partial(refit_at_radius, data.result, data.radius_rows,
                                  self.radius))

    def _on_refitted(self, point: RadiusPoint) -> None:
        if self.data is None:
            return
        self.data.add_radius_point(point)
        self.panel.status.setText(f"r = {point.radius:.2f}: stress {point.stress:.4f}")
        if self.step.sphere == "radius":
            self._show_radius_point()
        self.radius_refitted.emit(point.radius)

    def _show_radius_point(self) -> None:
        point = self.data.nearest_radius_point(self.radius)
        self.window.views["sphere"].show_configuration(point.snapshot)
        self._draw_figure(radius=point.radius)

    # ------------------------------------------------------------------ closing
    def _on_dataset(self, *_: object) -> None:
        self.close()  # the tour was about the data that are gone

    def _on_result(self, result: object) -> None:
        if result is None or self._closing:
            return
        self._disconnect_fit()
        if self.data is None or self.data.result is not result:
            self.data = None
            self._prepare()

    def close(self) -> None:
        """Leave the tour: stop its work and put the window back as it was."""
        if self._closing:
            return
        self._closing = True
        self._frame_timer.stop()
        self._slider_timer.stop()
        self._disconnect_fit()
        self.runner.shutdown()
        state = self.window.state
        state.dataset_changed.disconnect(self._on_dataset)
        state.result_changed.disconnect(self._on_result)
        self._restore_window()
        self.window.widget().removeDockWidget(self.panel)
        self.panel.deleteLater()
        self.closed.emit()


class TourExport(QObject):
    """Renders every step of a tour to ``folder/step-NN-<slug>.png`` and writes
    ``folder/tour.md``, then calls ``finish(exit code)``.

    Waits for the window's result (``result_shown``), opens the tour, and shows one step
    after another, grabbing the whole window once its 3-D views have rendered.
    """

    def __init__(self, window: WindowServices, folder: Path, finish: Callable[[int], None], *,
                 timeout_ms: int = 300_000) -> None:
        super().__init__(window.widget())
        self.window = window
        self.folder = Path(folder)
        self.finish = finish
        self.tour: GuidedTour | None = None
        self.written: list[Path] = []
        self._started = False
        self._done = False
        window.result_shown.connect(self._start)
        window.fit_ended.connect(lambda outcome: self._fail(f"the fit {outcome}"))
        QTimer.singleShot(timeout_ms, self, lambda: self._fail("timed out"))

    def _fail(self, reason: str) -> None:
        if self._done:
            return
        self._done = True
        print(f"stpca-gui: no tour export: {reason}", file=sys.stderr)
        self.finish(1)

    def _start(self) -> None:
        if self._started:
            return
        self._started = True
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self._fail(f"cannot create {self.folder}: {exc}")
            return
        self.tour = cast("GuidedTour | None", self.window.open_tour())
        if self.tour is None:
            self._fail("no data")
            return
        self.tour.failed.connect(self._fail)
        if self.tour.data is not None:
            self._show(0)
        else:
            self.tour.ready.connect(lambda: self._show(0))

    def _show(self, index: int) -> None:
        tour = self.tour
        if index >= len(tour.steps):
            self._write_index()
            return
        tour.go_to(index, animate=False)
        QTimer.singleShot(EXPORT_SETTLE_MS, lambda: self._capture(index))

    def _capture(self, index: int) -> None:
        QApplication.processEvents()
        step = self.tour.steps[index]
        path = self.folder / f"step-{index + 1:02d}-{step.slug}.png"
        try:
            self.window.export_window(path)
        except (OSError, ValueError) as exc:
            self._fail(f"cannot write {path}: {exc}")
            return
        self.written.append(path)
        self._show(index + 1)

    def _write_index(self) -> None:
        tour = self.tour
        dataset = tour.data.result.dataset
        lines = [f"# A guided tour of ST-PCA: {dataset.name}", "",
                 f"Data: {dataset.description or dataset.source} (n = {dataset.n_samples}, "
                 f"d = {dataset.n_angles}).", "",
                 "Scaled Torus PCA (Zoubouloglou, García-Portugués & Marron), step by step. "
                 "Equation numbers refer to the paper.", ""]
        for k, (step, path) in enumerate(zip(tour.steps, self.written, strict=True), 1):
            lines += [f"## Step {k} of {len(tour.steps)}: {step.title}", "",
                      f"![{step.title}]({path.name})", "", step.text, ""]
            for label in step.equations:
                equation = PAPER_EQUATIONS[label]
                lines += [f"$$ {equation.latex} \\tag{{{equation.number}}} $$", ""]
                if equation.companion:
                    lines += [f"$$ {equation.companion} $$", ""]
                lines += [f"*{equation.citation}* (`{label}`)", ""]
        index = self.folder / "tour.md"
        try:
            with atomic_path(index) as tmp:
                Path(tmp).write_text("\n".join(lines), encoding="utf-8")
        except OSError as exc:
            self._fail(f"cannot write {index}: {exc}")
            return
        print(f"stpca-gui: wrote {len(self.written)} tour steps and {index}")
        self._done = True
        # The window closes next: restoring its views first would only queue renders for
        # plotters about to be closed.
        self.finish(0)
