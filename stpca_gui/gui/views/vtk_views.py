"""3-D views embedding pyvistaqt's QtInteractor: the glued torus cube and the sphere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QComboBox, QLabel, QToolButton, QWidget
from pyvista.plotting.plotter import BasePlotter
from pyvistaqt import QtInteractor

from ...core.summary import superscript
from ...model import AppState
from ...model.angle_labels import display_names
from ...model.live_fit import SMDSSnapshot
from ...model.session_file import camera_problem
from ...plotting.export3d import save_plotter_image
from ...plotting.live_smds import ConfigurationProjection, LiveSMDSScene, live_caption
from ...plotting.sphere_scene import SphereScene, sphere_view_data
from ...plotting.torus_scene import TorusScene, short_label
from .base import ViewFrame, current_colors


class ViewInteractor(QtInteractor):
    """pyvistaqt's interactor, rendering once per change, fast while things change.

    ``QtInteractor.render()`` renders the scene and then schedules a repaint whose
    ``paintGL`` renders it again; with software OpenGL that doubles the cost of every
    selection. Here ``render()`` only schedules the repaint (which renders), and
    :meth:`render_now` renders synchronously for screenshots and exports.

    Anti-aliasing is FXAA, one screen-space pass (4× multisampling made every render
    1.5–2× slower with software OpenGL). Even that pass adds 5–15 ms per view with Mesa's
    llvmpipe, about a fifth of a selection's latency for the two 3-D views, so the frames
    that follow a change (a selection, new colours) or a camera drag are drawn without it,
    and the view is drawn once more with it when it has been still for
    ``STILL_DELAY_MS``; screenshots and exports always use it.
    """

    #: Quiet time (ms) after the last change before the anti-aliased frame is drawn.
    STILL_DELAY_MS = 300

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("multi_samples", 0)
        super().__init__(*args, **kwargs)
        self.enable_anti_aliasing("fxaa")
        self._smooth = True
        #: While True (an animation: a live fit), frames are drawn without anti-aliasing
        #: and no anti-aliased frame follows them; it would double the cost of the frames
        #: that come more than ``STILL_DELAY_MS`` apart.
        self.hold_still = False
        self._still_timer = QTimer(self)
        self._still_timer.setSingleShot(True)
        self._still_timer.setInterval(self.STILL_DELAY_MS)
        self._still_timer.timeout.connect(self.render_still)
        self.iren.add_observer("StartInteractionEvent", lambda *_: self._set_smooth(False))
        self.iren.add_observer("EndInteractionEvent", lambda *_: self._still_timer.start())
        # While the camera is dragged the interactor style asks the interactor to render
        # on every mouse move; rendering there as well as in the repaint drew some moves
        # twice (6 renders for a 5-move drag). The interactor's own render is off outside
        # paintGL, and its RenderEvent, sent either way, schedules the one repaint.
        interactor = self.iren.interactor
        interactor.EnableRenderOff()
        interactor.AddObserver("RenderEvent", self._on_interactor_render)

    @property
    def smooth(self) -> bool:
        """Whether the next frame is drawn with anti-aliasing."""
        return self._smooth

    def _set_smooth(self, on: bool) -> None:
        if on == self._smooth:
            return
        for renderer in self.renderers:
            renderer.SetUseFXAA(on)
        self._smooth = on

    def render(self) -> None:
        if getattr(self, "_closed", False):
            return
        self._rendered = True
        timer = getattr(self, "_still_timer", None)
        if timer is not None:  # None while QtInteractor.__init__ runs
            self._set_smooth(False)
            if self.hold_still:
                timer.stop()
            else:
                timer.start()
        self.update()

    def _on_interactor_render(self, *_: object) -> None:
        if not self._in_paint:
            self.update()

    def paintGL(self) -> None:
        interactor = self.iren.interactor
        interactor.EnableRenderOn()
        try:
            super().paintGL()
        finally:
            interactor.EnableRenderOff()

    def render_still(self) -> None:
        """Repaint with anti-aliasing now (the timer does it after a quiet time)."""
        if not getattr(self, "_closed", False) and not self._smooth:
            self._set_smooth(True)
            self.update()

    def render_now(self) -> None:
        """Render immediately, anti-aliased (before reading the image back)."""
        if not getattr(self, "_closed", False):
            self._still_timer.stop()
            self._set_smooth(True)
            BasePlotter.render(self)

    def close(self) -> None:
        timer = getattr(self, "_still_timer", None)
        if timer is not None:
            timer.stop()
        super().close()


def numpy_to_qimage(rgb: np.ndarray) -> QImage:
    """Copy an (h, w, 3|4) uint8 array into a QImage."""
    array = np.ascontiguousarray(rgb)
    h, w, channels = array.shape
    fmt = QImage.Format.Format_RGB888 if channels == 3 else QImage.Format.Format_RGBA8888
    return QImage(array.data, w, h, channels * w, fmt).copy()


class VtkView(ViewFrame):
    """A view owning one QtInteractor (by composition; never ``show()``-n by itself)."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(state, parent)
        # No periodic re-render timer (pyvistaqt defaults to 5 Hz): every render repaints
        # the OpenGL widget, which is costly with software GL; the scenes render on change.
        self.plotter = ViewInteractor(self, auto_update=False)
        self.plotter.set_background("white")
        self.set_content(self.plotter.interactor if hasattr(self.plotter, "interactor")
                         else self.plotter)
        self._drawn = False
        #: The (data set, result) the scene shows; colour updates apply only to them.
        self._drawn_from: tuple[object, object] = (None, None)

    def export(self, path: Path, dpi: int = 150) -> None:
        scale = max(1, round(dpi / 96))
        self.plotter.render_now()
        save_plotter_image(self.plotter, path, scale=scale)

    def render_image(self) -> QImage | None:
        if not self.has_content():
            return None
        self.plotter.render_now()
        return numpy_to_qimage(self.plotter.screenshot(return_img=True))

    def has_content(self) -> bool:
        return self._drawn

    def _shows(self, dataset: object, result: object) -> bool:
        """Whether the scene was drawn from this data set and result (by identity)."""
        return self._drawn_from[0] is dataset and self._drawn_from[1] is result

    def clear_plotter(self) -> None:
        """Remove everything drawn, keeping the lights (does not render).

        pyvista's ``Plotter.clear`` also removes the renderer's lights, and nothing adds
        them back: a view emptied before its first result (the window's usual start)
        drew every later scene unlit, its shaded points and sphere flat.
        """
        self.plotter.clear()
        self.plotter.enable_lightkit()

    def close_plotter(self) -> None:
        self.plotter.close()

    def view_state(self) -> dict[str, Any]:
        """The view's choices, JSON-able: the camera once something is drawn."""
        return {"camera": camera_state(self.plotter)} if self._drawn else {}

    def restore_view_state(self, state: dict[str, Any]) -> None:
        """Take back choices of :meth:`view_state` (a saved session); what does not fit
        the view is ignored."""
        if self._drawn and isinstance(state.get("camera"), dict):
            restore_camera(self.plotter, state["camera"])


def camera_state(plotter: BasePlotter) -> dict[str, Any]:
    """Where the camera is: position, focal point, view-up and parallel scale."""
    position = plotter.camera_position
    return {"position": [float(v) for v in position.position],
            "focal_point": [float(v) for v in position.focal_point],
            "view_up": [float(v) for v in position.viewup],
            "parallel_scale": float(plotter.camera.parallel_scale)}


def restore_camera(plotter: BasePlotter, saved: dict[str, Any]) -> bool:
    """Put the camera where :func:`camera_state` found it; False (camera unchanged) when
    the record is not three finite 3-vectors and a positive scale."""
    try:
        vectors = [np.asarray(saved[key], dtype=np.float64)
                   for key in ("position", "focal_point", "view_up")]
        scale = float(saved["parallel_scale"])
    except (KeyError, TypeError, ValueError):
        return False
    if (any(v.shape != (3,) or not np.all(np.isfinite(v)) for v in vectors)
            or not np.isfinite(scale) or scale <= 0 or camera_problem(saved)):
        return False
    plotter.camera_position = [tuple(v) for v in vectors]
    plotter.camera.parallel_scale = scale
    plotter.reset_camera_clipping_range()
    plotter.render()
    return True


class TorusView(VtkView):
    """The data and the principal curve on the torus: glued cube, square or doughnut."""

    title_text = "Torus"
    export_stem = "torus"

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(state, parent)
        self.scene = TorusScene(self.plotter)
        self.layout_combo = QComboBox()
        self.layout_combo.setToolTip("How T² is drawn")
        self.axis_combos = [QComboBox() for _ in range(3)]
        self.axes_label = QLabel("angles")
        self.moving_button = QToolButton()
        self.moving_button.setText("moving")
        self.moving_button.setToolTip(
            "Show the three angles the principal curve moves most (before a fit: those "
            "spread most)")
        self.moving_button.clicked.connect(self.state.show_moving_torus_axes)
        self.controls.addWidget(self.layout_combo)
        self.controls.addWidget(self.axes_label)
        for axis, combo in zip("xyz", self.axis_combos, strict=True):
            combo.setToolTip(f"Angle shown on the {axis} axis of the cube")
            combo.setMaxVisibleItems(25)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
            self.controls.addWidget(combo)
        self.controls.addWidget(self.moving_button)
        # Shown by _on_dataset as the data's d asks: before any data, four empty boxes.
        for widget in (self.layout_combo, self.axes_label, self.moving_button,
                       *self.axis_combos):
            widget.setVisible(False)
        self.layout_combo.currentIndexChanged.connect(self.redraw)
        # ``activated``, not ``currentIndexChanged``: only a person's pick counts as a choice
        # (which keeps the axes for later results); a repopulation or any programmatic
        # change of the index must not.
        for combo in self.axis_combos:
            combo.activated.connect(self._on_axes_chosen)
        self._drawn_axes: tuple[int, ...] | None = None
        state.dataset_changed.connect(self._on_dataset)
        state.view_options_changed.connect(self._on_view_option)
        state.result_changed.connect(self.redraw)
        state.selection.changed.connect(self.update_colors)
        state.color_mode_changed.connect(self.update_colors)

    def _on_dataset(self, *_: object) -> None:
        dataset = self.state.dataset
        d = 0 if dataset is None else dataset.n_angles
        self.layout_combo.blockSignals(True)
        self.layout_combo.clear()
        if d == 2:
            self.layout_combo.addItems(["square", "doughnut"])
        self.layout_combo.setVisible(d == 2)
        self.layout_combo.blockSignals(False)
        many = d > 3
        self.axes_label.setVisible(many)
        self.moving_button.setVisible(many)
        names = [] if dataset is None else display_names(dataset.column_names)
        for k, combo in enumerate(self.axis_combos):
            combo.blockSignals(True)
            combo.clear()
            if many:
                for index, name in enumerate(names):
                    combo.addItem(short_label(name, 40))
                    combo.setItemData(index, dataset.column_names[index],
                                      Qt.ItemDataRole.ToolTipRole)
                combo.setCurrentIndex(self.state.torus_axes[k])
            combo.setVisible(many)
            combo.blockSignals(False)
        self.redraw()

    def show_state(self) -> None:
        self._on_dataset()  # fills the angle choosers, then redraws

    def view_state(self) -> dict[str, Any]:
        state = super().view_state()
        if self.layout_combo.count():
            state["layout"] = self.layout_combo.currentText()
        return state

    def restore_view_state(self, state: dict[str, Any]) -> None:
        layout = state.get("layout")
        if isinstance(layout, str) and self.layout_combo.findText(layout) >= 0:
            self.layout_combo.setCurrentText(layout)  # redraws when it changes
        super().restore_view_state(state)

    def _on_axes_chosen(self) -> None:
        axes = tuple(c.currentIndex() for c in self.axis_combos)
        if len(set(axes)) == 3:
            self.state.set_torus_axes(axes)

    def _on_view_option(self, name: str) -> None:
        if name != "torus_axes" or self.state.dataset is None:
            return
        if self.state.dataset.n_angles > 3:
            for combo, index in zip(self.axis_combos, self.state.torus_axes, strict=True):
                combo.blockSignals(True)
                combo.setCurrentIndex(index)
                combo.blockSignals(False)
        if self._drawn and self._drawn_axes != self.state.torus_axes:
            self.redraw()

    def _layout_name(self, d: int) -> str:
        if d == 2:
            return self.layout_combo.currentText() or "square"
        return "cube"

    def redraw(self, *_: object) -> None:
        dataset = self.state.dataset
        if dataset is None:
            self.clear_plotter()
            self.plotter.render()
            self._drawn = False
            return
        result = self.state.result
        d = dataset.n_angles
        colors, selected = current_colors(self.state)
        axes = tuple(self.state.torus_axes)
        self.scene.draw(
            dataset.angles,
            curve=None if result is None else result.curve,
            colors=colors, selected=selected, axes=axes,
            column_names=display_names(dataset.column_names), layout=self._layout_name(d),
        )
        self._drawn = True
        self._drawn_axes = axes
        self._drawn_from = (dataset, result)

    def update_colors(self, *_: object) -> None:
        if self._drawn and not self._shows(self.state.dataset, self.state.result):
            # A new data set's signals are still on their way: the current colours do not
            # fit the points drawn, so the scene is redone for the current state.
            self.redraw()
        elif self._drawn:
            colors, selected = current_colors(self.state)
            self.scene.update_colors(colors, selected)


class SphereView(VtkView):
    """The SMDS configuration on S² (or its projection onto the nested S²), with S¹.

    Besides the fitted result, the view can show SMDS configurations as they converge
    (live fits, the guided tour): :meth:`show_configuration` draws one snapshot in place of
    the result, :meth:`clear_configuration` returns to the result.
    """

    title_text = "Sphere"
    export_stem = "sphere"

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(state, parent)
        self.scene = SphereScene(self.plotter)
        #: Draws the live configurations (in the same plotter; the result is hidden then).
        self.live_scene = LiveSMDSScene(self.plotter)
        #: Snapshots drawn by :meth:`show_configuration` since the view was made.
        self.live_draws = 0
        self._live_snapshot: SMDSSnapshot | None = None
        self._live_colors_given = False
        self._projection: ConfigurationProjection | None = None
        self.note = QLabel("")
        self.note.setStyleSheet("color: gray;")
        self.controls.addWidget(self.note)
        state.result_changed.connect(self.redraw)
        state.selection.changed.connect(self.update_colors)
        state.color_mode_changed.connect(self.update_colors)

    # ------------------------------------------------------------ live configurations
    @property
    def showing_configuration(self) -> bool:
        """Whether the view shows a configuration of :meth:`show_configuration`."""
        return self._live_snapshot is not None

    def show_configuration(self, snapshot: SMDSSnapshot, colors: Any = None,
                           selected: Any = None) -> None:
        """Show an SMDS configuration instead of the result, until
        :meth:`clear_configuration` or the next result.

        The first snapshot (or one with ``snapshot.first``, or of another size or
        dimension) builds the drawing; the following ones move the points, rewrite the
        caption ("SMDS iteration k · stress s · r = …") and the stress chart
        (``snapshot.stress_history``) in place, with one render each. The camera is kept
        (set once when the view showed nothing before). For d > 2 the points are
        projected onto S² in a basis fixed by the first snapshot
        (:class:`~stpca_gui.plotting.live_smds.ConfigurationProjection`).

        Parameters
        ----------
        snapshot : SMDSSnapshot
            The configuration (unit vectors of S^d, m rows).
        colors : array_like (m, 3|4) or one colour, optional
            Point colours. By default the colours the other views give the snapshot's
            rows (``snapshot.landmarks`` in a landmark fit) in the current colour mode
            and selection; these follow later selection and colour-mode changes.
        selected : bool mask (m,) or indices, optional
            Points drawn larger (with ``colors``; by default the current selection).
        """
        previous = self._live_snapshot
        fresh = (snapshot.first or previous is None or self._projection is None
                 or previous.units.shape != snapshot.units.shape)
        if fresh:
            self._projection = ConfigurationProjection(snapshot.units)
        self._live_snapshot = snapshot
        self._live_colors_given = colors is not None
        if colors is None and (fresh or not _same_rows(previous, snapshot)):
            colors, selected = self._state_colors_of(snapshot)
        points = self._projection(snapshot.units)
        caption = live_caption(snapshot.iteration, snapshot.stress, snapshot.radius,
                               self._projection.note)
        first_view = not self._drawn and not self.live_scene.shown
        self.plotter.hold_still = True
        self.scene.hide()
        self.live_scene.show(points, caption, snapshot.stress_history, colors, selected)
        if first_view:
            self.live_scene.reset_camera(render=False)
        self.note.setText("spherical MDS, live")
        self.live_draws += 1

    def clear_configuration(self) -> None:
        """Stop showing configurations: the result comes back as it was (recoloured for
        the current selection), or the view is empty without a result."""
        if not self._end_live():
            return
        if self._drawn:
            self.update_colors()  # the selection may have changed meanwhile
        else:
            self.plotter.render()

    def _end_live(self) -> bool:
        """Hide the live drawing (its actors serve the next fit) and unhide the result (no
        render); whether there was a live drawing."""
        self._projection = None
        self.plotter.hold_still = False
        if self._live_snapshot is None:
            self.scene.unhide()
            return False
        self._live_snapshot = None
        self.live_scene.hide()
        self.scene.unhide()
        self._set_result_note()
        return True

    def _state_colors_of(self, snapshot: SMDSSnapshot) -> tuple[Any, Any]:
        """The state's colours and selection of the snapshot's data rows (None, None when
        the snapshot does not fit the data shown)."""
        dataset = self.state.dataset
        if dataset is None:
            return None, None
        n = dataset.n_samples
        if snapshot.landmarks is None and snapshot.n_points != n:
            return None, None
        rows = snapshot.rows(n)
        if rows.size and (rows.min() < 0 or rows.max() >= n):
            return None, None
        colors, selected = current_colors(self.state)
        return colors.at(rows), selected[rows]

    def has_content(self) -> bool:
        return self._drawn or self.showing_configuration

    # ------------------------------------------------------------------- the result
    def _set_result_note(self) -> None:
        result = self.state.result
        if result is None:
            self.note.setText("")
            return
        d = result.scores.shape[1]
        self.note.setText("S² (fitted)" if d == 2 else
                          f"projection onto the nested S² of S{superscript(d)}" if d > 2 else "S¹")

    def redraw(self, *_: object) -> None:
        self._end_live()
        result = self.state.result
        if result is None:
            self.live_scene.clear(render=False)
            self.clear_plotter()
            self.plotter.render()
            self.note.setText("")
            self._drawn = False
            return
        self._set_result_note()
        points, circle, mean = sphere_view_data(result.model)
        colors, selected = current_colors(self.state)
        self.scene.draw(points, circle3=circle, mean3=mean, colors=colors, selected=selected)
        self._drawn = True
        self._drawn_from = (None, result)

    def update_colors(self, *_: object) -> None:
        if self._live_snapshot is not None:
            if not self._live_colors_given:
                colors, selected = self._state_colors_of(self._live_snapshot)
                if colors is not None:
                    self.live_scene.update_colors(colors, selected)
            return  # the result is recoloured when it shows again
        if self._drawn and not self._shows(None, self.state.result):
            self.redraw()  # drawn from an older result: the current colours do not fit it
        elif self._drawn:
            colors, selected = current_colors(self.state)
            self.scene.update_colors(colors, selected)


def _same_rows(a: SMDSSnapshot | None, b: SMDSSnapshot) -> bool:
    """Whether two snapshots draw the same data rows (so the colours drawn still fit)."""
    if a is None or a.n_points != b.n_points:
        return False
    if a.landmarks is None or b.landmarks is None:
        return a.landmarks is None and b.landmarks is None
    return a.landmarks is b.landmarks or np.array_equal(a.landmarks, b.landmarks)
