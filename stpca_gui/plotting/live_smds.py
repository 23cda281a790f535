"""The SMDS configuration as it converges, drawn into a pyvista plotter (Qt-free).

:class:`LiveSMDSScene` shows a sequence of configurations (live fits, the guided tour):
the points on the unit sphere, a caption and a small stress-versus-iteration chart. The
first frame builds the actors; every further frame rewrites the point coordinates, the
caption text and the curve in place and renders once, so a frame costs a render and no
mesh building. The camera is never moved by a frame.

:class:`ConfigurationProjection` maps configurations on S^d (d > 2) to S² with a basis
fixed by the first configuration, so that an animation does not jump.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyvista as pv
from numpy.typing import ArrayLike, NDArray

from ..core.summary import stress_text, superscript
from .colors import CURVE_COLOR
from .scene3d import SceneBase

__all__ = ["LIVE_MAX_POINTS", "ConfigurationProjection", "LiveSMDSScene", "live_caption"]

_SPHERE_COLOR = "#c8d3e0"
_SPHERE_OPACITY = 0.35
#: Where the stress chart sits: (width, height) and lower-left corner, as fractions of
#: the view.
_CHART_SIZE = (0.34, 0.26)
_CHART_LOC = (0.64, 0.02)
#: Most points a frame draws (a fixed subset, the selected points first; see
#: :mod:`~stpca_gui.plotting.display_subset`). With software OpenGL a frame of the
#: 5371 sunspot points took 65 ms and one of 2000 of them 45 ms on a loaded 2-core
#: machine, in the GUI thread, while the fit computes beside it.
LIVE_MAX_POINTS = 2000
#: Largest caption font (points); corner annotations grow with the view otherwise.
_CAPTION_FONT_MAX = 15


class ConfigurationProjection:
    """Unit vectors on S^d drawn on S², in a basis fixed once.

    For d = 2 the vectors are drawn as they are and for d = 1 in the plane z = 0. For
    d > 2 they are projected onto the span of the top three principal axes of the first
    configuration (eigenvectors of the uncentred second moment ∑ y yᵀ, which holds the
    data's mean direction and its two directions of largest spread: a great-sphere
    approximation of the nested S² that the final result shows) and scaled back to unit
    length.

    Parameters
    ----------
    units : array_like, shape (m, d + 1)
        The first configuration (unit rows).
    """

    def __init__(self, units: ArrayLike) -> None:
        y = np.asarray(units, dtype=np.float64)
        if y.ndim != 2 or y.shape[1] < 2:
            raise ValueError(f"units must have shape (m, d + 1 >= 2), got {y.shape}")
        self.dimension = y.shape[1] - 1
        self.basis: NDArray[np.float64] | None = None
        if self.dimension > 2:
            _, vectors = np.linalg.eigh(y.T @ y)
            self.basis = vectors[:, ::-1][:, :3].copy()

    @property
    def note(self) -> str:
        """How the points are shown ("" on S² itself)."""
        if self.dimension == 1:
            return "S¹"
        if self.dimension == 2:
            return ""
        return f"S{superscript(self.dimension)} seen on 3 principal axes of the start"

    def __call__(self, units: ArrayLike) -> NDArray[np.float64]:
        """Points on the unit sphere in R³, shape (m, 3)."""
        y = np.asarray(units, dtype=np.float64)
        if y.ndim != 2 or y.shape[1] != self.dimension + 1:
            raise ValueError(f"units must have shape (m, {self.dimension + 1}), "
                             f"got {y.shape}")
        if self.dimension == 1:
            return np.column_stack([y, np.zeros(len(y))])
        if self.basis is None:
            return np.ascontiguousarray(y)
        xyz = y @ self.basis
        norms = np.linalg.norm(xyz, axis=1, keepdims=True)
        return xyz / np.where(norms > 1e-12, norms, 1.0)


def live_caption(iteration: int, stress: float, radius: float, note: str = "") -> str:
    """"SMDS iteration k · stress s · r = …", with how the points are shown."""
    text = f"SMDS iteration {iteration} · stress {stress_text(stress)} · r = {radius:.3f}"
    return f"{text}\n{note}" if note else text


class LiveSMDSScene(SceneBase):
    """A moving configuration on the unit sphere with a caption and a stress chart.

    Parameters
    ----------
    plotter : pyvista.Plotter
        Any plotter; the scene adds and removes its own actors only (another scene may
        share the plotter, hidden meanwhile: see :meth:`SceneBase.hide`).

    Attributes
    ----------
    frames : int
        Frames shown since the scene was built (the first one included).
    max_points : int
        Most points drawn (:data:`LIVE_MAX_POINTS`; set before the first frame).
    """

    def __init__(self, plotter: pv.Plotter) -> None:
        super().__init__(plotter)
        self._caption_actor: Any = None
        self._chart: pv.Chart2D | None = None
        self._curve: Any = None
        self.frames = 0
        self.max_points = LIVE_MAX_POINTS
        #: The caption shown (with the note on a drawn subset).
        self.caption = ""

    @property
    def built(self) -> bool:
        """Whether the actors exist (shown, or hidden by :meth:`hide` for the next run)."""
        return self._points is not None

    @property
    def shown(self) -> bool:
        """Whether the actors exist and are not hidden."""
        return self.built and not self.hidden

    def show(self, points3: ArrayLike, caption: str, history: ArrayLike | None = None,
             colors: Any = None, selected: ArrayLike | None = None, *,
             rebuild: bool = False, point_size: float | None = None) -> None:
        """Show one frame and render.

        The actors are built by the first frame (and when the number of points changes);
        every other frame, including the first of a new run after :meth:`hide`, rewrites
        them in place.

        Parameters
        ----------
        points3 : array_like, shape (m, 3)
            Points on the unit sphere.
        caption : str
            Text at the top left of the view (e.g. from :func:`live_caption`).
        history : array_like, shape (k, 2), optional
            ``(iteration, stress)`` rows for the stress chart (hidden when None or k < 2).
        colors, selected
            Point colours and selection (as :meth:`SceneBase.update_colors`); the points
            keep their colours when ``colors`` is None (the default colour when built).
        rebuild : bool, default False
            Build the actors afresh even if they could be reused.
        point_size : float, optional
            Point size in pixels when the actors are built (default depends on m).
        """
        pts = np.atleast_2d(np.asarray(points3, dtype=np.float64))
        if pts.ndim != 2 or pts.shape[1] != 3:
            raise ValueError(f"points3 must have shape (m, 3), got {np.shape(points3)}")
        if rebuild or self._points is None or self._points.n != len(pts):
            self._build(pts, colors, selected, point_size)
        else:
            self.unhide()
            self._points.set_positions(pts)
            self.point_xyz = self._points.xyz
            if colors is not None:
                self._points.set_colors(colors, selected)
        note = self.subset_note
        self.caption = f"{caption}\n{note}" if note else caption
        self._caption_actor.set_text("upper_left", self.caption)
        self._set_history(history)
        self.frames += 1
        self.plotter.render()

    def hide(self) -> None:
        """Hide the drawing, keeping its actors for the next run (does not render)."""
        super().hide()
        if self._chart is not None:
            self._chart.visible = False

    def _build(self, pts: NDArray[np.float64], colors: Any, selected: ArrayLike | None,
               point_size: float | None) -> None:
        self._remove_chart()
        self._clear()
        self.frames = 0
        self.plotter.renderer.SetUseOIT(False)  # as SphereScene: one translucent layer
        sphere = pv.Sphere(radius=0.995, theta_resolution=96, phi_resolution=64)
        self._add(self.plotter.add_mesh(
            sphere, color=_SPHERE_COLOR, opacity=_SPHERE_OPACITY, smooth_shading=True,
            specular=0.2, reset_camera=False, render=False, name="live-sphere-surface",
            culling="back",
        ))
        self._draw_points(pts, point_size, "live", colors, selected, subset_caption=False)
        self._caption("", "upper_left", 10, "live-caption")
        self._caption_actor = self._actors[-1]
        # A corner annotation scales its font with the view; capped, it stays a caption.
        self._caption_actor.SetMaximumFontSize(_CAPTION_FONT_MAX)
        chart = pv.Chart2D(size=_CHART_SIZE, loc=_CHART_LOC, x_label="iteration",
                           y_label="stress", grid=False)
        chart.background_color = (1.0, 1.0, 1.0, 0.8)
        chart.border_color = "#b0b0b0"
        self._curve = chart.line([0.0, 1.0], [0.0, 0.0], color=CURVE_COLOR, width=2.0)
        chart.visible = False
        self.plotter.add_chart(chart)
        self._chart = chart

    def _set_history(self, history: ArrayLike | None) -> None:
        rows = (np.empty((0, 2)) if history is None
                else np.asarray(history, dtype=np.float64).reshape(-1, 2))
        if len(rows) < 2:
            self._chart.visible = False
            return
        self._curve.update(rows[:, 0], rows[:, 1])
        low, high = float(rows[:, 1].min()), float(rows[:, 1].max())
        pad = 0.05 * (high - low) or 0.05 * abs(high) or 1.0
        self._chart.x_range = [float(rows[0, 0]), float(rows[-1, 0])]
        self._chart.y_range = [low - pad, high + pad]
        self._chart.visible = True

    def reset_camera(self, render: bool = True) -> None:
        """Look at the points' mean direction from a little above."""
        pts = self.point_xyz
        look = pts.mean(axis=0) if len(pts) else np.array([1.0, -1.0, 0.8])
        if np.linalg.norm(look) < 1e-9:
            look = np.array([1.0, -1.0, 0.8])
        direction = look / np.linalg.norm(look) + np.array([0.0, 0.0, 0.5])
        up = np.array([0.0, 0.0, 1.0])
        if abs(direction @ up) > 0.95 * np.linalg.norm(direction):
            up = np.array([0.0, 1.0, 0.0])
        self._set_view(direction, up, (-1.08, 1.08, -1.08, 1.08, -1.08, 1.08),
                       parallel=False, zoom=1.3)
        if render:
            self.plotter.render()

    def _remove_chart(self) -> None:
        if self._chart is not None:
            self.plotter.remove_chart(self._chart)
            self._chart = None
            self._curve = None

    def clear(self, render: bool = True) -> None:
        """Remove the scene's actors and chart (the camera is kept)."""
        self._remove_chart()
        self._clear()
        self._caption_actor = None
        self.frames = 0
        self.point_xyz = np.empty((0, 3))
        if render:
            self.plotter.render()
