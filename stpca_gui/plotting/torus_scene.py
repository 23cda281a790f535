"""3-D view of torus data: the glued cube, the flat square, the doughnut and the circle.

:class:`TorusScene` draws into a *given* pyvista plotter (an off-screen
``pyvista.Plotter`` for export and tests, or the application's ``QtInteractor``, which is a
``Plotter`` subclass) and never shows it. The points are one ``PolyData`` with per-point
RGBA scalars rendered as sphere impostors, so recolouring (:meth:`TorusScene.update_colors`)
only rewrites one array and stays interactive for 10⁵ points.

Layouts
-------
``"cube"``
    Three chosen angles in the cube [−π, π)³ whose opposite faces are glued: a wireframe box
    with ticks −π, 0, π and axis titles; the principal curve is cut where it leaves a face
    (:func:`~stpca_gui.plotting.curves.periodic_pieces`) and continues on the opposite one.
``"square"``
    Two angles in the flat square [−π, π)² (the plane z = 0), seen from above with a
    parallel projection.
``"doughnut"``
    Two angles on the torus of revolution in R³ (major radius 2, minor radius 1): the
    first angle turns around the symmetry axis, the second around the tube.
``"circle"``
    One angle on the unit circle (used automatically for d = 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pyvista as pv
from numpy.typing import ArrayLike

from ..core.geometry.torus import wrap_angles
from .colors import CURVE_COLOR
from .curves import periodic_pieces
from .scene3d import FONT, SceneBase, polylines
from .text import MAX_NAME_LABEL, one_line
from .torus_geometry import (
    DOUGHNUT_MAJOR_RADIUS,
    DOUGHNUT_MINOR_RADIUS,
    break_runs,
    circle_coordinates,
    densify,
    doughnut_coordinates,
)

__all__ = ["MAX_AXIS_TITLE", "Layout", "TorusScene", "short_label"]

Layout = Literal["cube", "square", "doughnut", "circle"]
_LAYOUTS = ("cube", "square", "doughnut", "circle")

_PI = np.pi
_TWO_PI = 2.0 * np.pi
#: Points of the doughnut sit this much outside the translucent surface, the curve half as
#: much, so that neither is hidden in it.
_DOUGHNUT_LIFT = 0.03
_BACKGROUND = "white"
_FRAME_COLOR = "#606060"
#: Curve segments are subdivided this many times on the doughnut and the circle so that the
#: drawn chord follows the surface.
_CURVE_SUBSTEPS = 6


_MINUS_PI = "−π" if FONT else "-pi"
_PLUS_PI = "π" if FONT else "pi"


# ------------------------------------------------------------------------------ torus scene



#: Longest axis title drawn (characters); longer column names are cut with an ellipsis.
MAX_AXIS_TITLE = MAX_NAME_LABEL


def short_label(text: object, limit: int = MAX_AXIS_TITLE) -> str:
    """A column name fit for an axis title or a menu: on one line (control characters
    become spaces) and at most ``limit`` characters, cut with an ellipsis."""
    return one_line(text, limit, "…" if FONT else "...")


class TorusScene(SceneBase):
    """Torus data and the principal curve drawn into a plotter (see :class:`SceneBase`).

    Attributes
    ----------
    layout : str or None
        Layout of the last draw ("cube", "square", "doughnut" or "circle").
    axes : tuple of int
        Angle columns shown by the last draw.
    curve_polydata : pyvista.PolyData or None
        The drawn principal curve (one polyline per piece), in scene coordinates.
    """

    def __init__(self, plotter: pv.Plotter) -> None:
        super().__init__(plotter)
        self.layout: str | None = None
        self.axes: tuple[int, ...] = ()
        self.curve_polydata: pv.PolyData | None = None

    def draw(
        self,
        angles: ArrayLike,
        curve: Any = None,
        colors: Any = None,
        selected: ArrayLike | None = None,
        axes: Sequence[int] = (0, 1, 2),
        column_names: Sequence[str] | None = None,
        layout: Layout = "cube",
        *,
        point_size: float | None = None,
    ) -> None:
        """Draw the data (and the principal curve) replacing the previous drawing.

        The camera is kept when the previous draw had the same layout and axes; otherwise
        the default view of the layout is set.

        Parameters
        ----------
        angles : array_like, shape (n, d)
            Angles in radians (wrapped internally).
        curve : PrincipalCurve, optional
            Anything with ``angles`` (m, d) and ``breaks`` (m,) attributes; drawn in black.
        colors : array_like (n, 4) or (n, 3), or one colour, optional
            Point colours (RGBA in [0, 1] or uint8).
        selected : bool mask (n,) or integer indices, optional
            Points drawn larger on top.
        axes : sequence of int
            Angle columns to show: three for the cube, the first two for the square and
            the doughnut (ignored for d = 1).
        column_names : sequence of str, optional
            One name per angle column, for the axis titles (default θ1, θ2, …).
        layout : {"cube", "square", "doughnut", "circle"}
            With d = 2, "cube" draws the square (the 2-cube); with d = 1 every layout draws
            the circle.
        point_size : float, optional
            Point size in pixels (default depends on n).
        """
        data = np.atleast_2d(np.asarray(angles, dtype=np.float64))
        if data.ndim != 2:
            raise ValueError(f"angles must have shape (n, d), got {np.shape(angles)}")
        n, d = data.shape
        if layout not in _LAYOUTS:
            raise ValueError(f"layout must be one of {_LAYOUTS}, got {layout!r}")
        if d < 1:
            raise ValueError("angles need at least one column")
        effective: str = layout
        if d == 1:
            effective = "circle"
        elif effective == "cube" and d == 2:
            effective = "square"
        elif effective == "circle":
            raise ValueError("layout 'circle' is for one angle (d = 1)")
        used = self._check_axes(axes, d, {"cube": 3, "square": 2, "doughnut": 2,
                                          "circle": 1}[effective])
        names = self._names(column_names, d)
        key = ("torus", effective, used, d)
        saved = self._save_camera(key)
        self._clear()
        self.plotter.set_background(_BACKGROUND)

        chosen = wrap_angles(data[:, list(used)])
        curve_angles = curve_breaks = None
        if curve is not None:
            curve_all = np.atleast_2d(np.asarray(curve.angles, dtype=np.float64))
            if curve_all.shape[1] != d:
                raise ValueError(f"the curve has {curve_all.shape[1]} angles, the data {d}")
            curve_angles = wrap_angles(curve_all[:, list(used)])
            curve_breaks = np.asarray(curve.breaks, dtype=bool)

        if effective == "cube":
            xyz = chosen
            self._draw_frame(names, used, dims=3)
            pieces = ([] if curve_angles is None else
                      periodic_pieces(curve_angles, closed=True, breaks=curve_breaks))
        elif effective == "square":
            xyz = np.column_stack([chosen, np.zeros(n)])
            self._draw_frame(names, used, dims=2)
            # The curve floats just above the points, which are seen from above.
            pieces = ([] if curve_angles is None else
                      [np.column_stack([p, np.full(len(p), 0.05)])
                       for p in periodic_pieces(curve_angles, closed=True,
                                                breaks=curve_breaks)])
        elif effective == "doughnut":
            xyz = doughnut_coordinates(chosen[:, 0], chosen[:, 1],
                                       minor=DOUGHNUT_MINOR_RADIUS + _DOUGHNUT_LIFT)
            self._draw_doughnut(names, used)
            pieces = ([] if curve_angles is None else [
                doughnut_coordinates(r[:, 0], r[:, 1],
                                     minor=DOUGHNUT_MINOR_RADIUS + 0.5 * _DOUGHNUT_LIFT)
                for r in (densify(run, _CURVE_SUBSTEPS)
                          for run in break_runs(curve_angles, curve_breaks))])
        else:  # circle
            xyz = circle_coordinates(chosen[:, 0], z=0.05)
            self._draw_circle_frame(names[used[0]])
            pieces = ([] if curve_angles is None else [
                circle_coordinates(densify(run, _CURVE_SUBSTEPS)[:, 0], radius=1.0)
                for run in break_runs(curve_angles, curve_breaks)])

        self.curve_polydata = None
        if pieces:
            lines = polylines(pieces)
            self.curve_polydata = lines
            self._add(self.plotter.add_mesh(
                lines, color=CURVE_COLOR, line_width=4, render_lines_as_tubes=True,
                reset_camera=False, render=False, name="torus-curve", lighting=False,
            ))

        self._draw_points(xyz, point_size, "torus", colors, selected)

        self.layout = effective
        self.axes = used
        self._view_key = key
        self._restore_camera(saved)
        self.plotter.render()

    # ------------------------------------------------------------------ camera
    def reset_camera(self, render: bool = True) -> None:
        """Set the default view of the current layout (oblique for the cube and the
        doughnut, from above with parallel projection for the square and the circle)."""
        m = _PI + 0.9  # room for the tick labels and axis titles
        if self.layout == "cube":
            self._set_view((1.0, -1.7, 1.05), (0, 0, 1), (-m, m, -m, m, -m, m),
                           parallel=False, zoom=1.12)
        elif self.layout == "square":
            self._set_view((0, 0, 1), (0, 1, 0), (-m, m, -m, m, -0.1, 0.1),
                           parallel=True, zoom=1.17)
        elif self.layout == "doughnut":
            r = DOUGHNUT_MAJOR_RADIUS + DOUGHNUT_MINOR_RADIUS
            self._set_view((0.0, -1.0, 1.15), (0, 0, 1), (-r, r, -r, r, -1, 1),
                           parallel=False, zoom=1.08)
        elif self.layout == "circle":
            self._set_view((0, 0, 1), (0, 1, 0), (-1.5, 1.5, -1.5, 1.5, -0.1, 0.1),
                           parallel=True, zoom=1.35)
        if render:
            self.plotter.render()

    # ------------------------------------------------------------------ pieces
    @staticmethod
    def _check_axes(axes: Sequence[int], d: int, k: int) -> tuple[int, ...]:
        if d == 1:
            return (0,)
        chosen = tuple(int(a) for a in axes)
        if len(chosen) < k:
            raise ValueError(f"this layout needs {k} axes, got {chosen}")
        chosen = chosen[:k]
        if len(set(chosen)) != k or min(chosen) < 0 or max(chosen) >= d:
            raise ValueError(f"axes must be {k} distinct column indices in 0..{d - 1}, "
                             f"got {chosen}")
        return chosen

    @staticmethod
    def _names(column_names: Sequence[str] | None, d: int) -> list[str]:
        if column_names is None:
            return [f"θ{k + 1}" if FONT else f"theta{k + 1}" for k in range(d)]
        names = [short_label(c) for c in column_names]
        if len(names) != d:
            raise ValueError(f"{len(names)} column names for {d} angle columns")
        return names

    def _draw_frame(self, names: list[str], used: tuple[int, ...], dims: int) -> None:
        """Box (or square) outline with tick marks, tick labels and axis titles."""
        p = _PI
        ticks = np.array([-p, 0.0, p])
        tick_text = [_MINUS_PI, "0", _PLUS_PI]
        tick_len = 0.15
        gap = 0.42  # from the edge to the tick labels
        title_gap = 0.95 if dims == 3 else 1.0
        if dims == 3:
            box = pv.Box(bounds=(-p, p, -p, p, -p, p)).outline()
            # Edge carrying each axis' labels and the outward direction from it.
            edges = [
                (np.array([0.0, -p, -p]), np.array([0.0, -1.0, -1.0]) / np.sqrt(2.0), 0),
                (np.array([p, 0.0, -p]), np.array([1.0, 0.0, -1.0]) / np.sqrt(2.0), 1),
                (np.array([-p, -p, 0.0]), np.array([-1.0, -1.0, 0.0]) / np.sqrt(2.0), 2),
            ]
        else:
            z = 0.0
            corners = np.array([[-p, -p, z], [p, -p, z], [p, p, z], [-p, p, z], [-p, -p, z]])
            box = polylines([corners])
            edges = [
                (np.array([0.0, -p, z]), np.array([0.0, -1.0, 0.0]), 0),
                (np.array([-p, 0.0, z]), np.array([-1.0, 0.0, 0.0]), 1),
            ]
        marks, label_pts, labels, title_pts, titles = [], [], [], [], []
        for base, out, axis in edges:
            for t, text in zip(ticks, tick_text, strict=True):
                at = base.copy()
                at[axis] = t
                marks.append(np.vstack([at, at + tick_len * out]))
                label_pts.append(at + gap * out)
                labels.append(text)
            if axis == dims - 1:
                # The vertical axis: its outward direction is horizontal on screen, so the
                # title goes between the 0 and π labels instead of on top of the 0.
                at = base.copy()
                at[axis] = 0.5 * p
                title_pts.append(at + title_gap * out)
            else:
                title_pts.append(base + title_gap * out)
            titles.append(names[used[axis]])
        self._add(self.plotter.add_mesh(box, color=_FRAME_COLOR, line_width=1.5,
                                        reset_camera=False, render=False, name="torus-frame",
                                        lighting=False))
        self._add(self.plotter.add_mesh(polylines(marks), color=_FRAME_COLOR, line_width=1.5,
                                        reset_camera=False, render=False, name="torus-ticks",
                                        lighting=False))
        self._text(label_pts, labels, 14, "torus-tick-labels")
        self._text(title_pts, titles, 17, "torus-axis-titles", bold=True)

    def _draw_doughnut(self, names: list[str], used: tuple[int, ...]) -> None:
        """Translucent torus of revolution with the seams θ = ±π drawn faintly."""
        u = np.linspace(-_PI, _PI, 121)
        v = np.linspace(-_PI, _PI, 61)
        uu, vv = np.meshgrid(u, v, indexing="ij")
        xyz = doughnut_coordinates(uu, vv)
        surface = pv.StructuredGrid(xyz[..., 0], xyz[..., 1], xyz[..., 2])
        self._add(self.plotter.add_mesh(
            surface.extract_surface(algorithm=None).compute_normals(), color="#c8d3e0",
            opacity=0.25, smooth_shading=True, reset_camera=False, render=False,
            name="torus-surface", specular=0.2,
        ))
        t = np.linspace(-_PI, _PI, 121)
        seams = [doughnut_coordinates(np.full_like(t, _PI), t),  # θ_first = ±π
                 doughnut_coordinates(t, np.full_like(t, _PI))]  # θ_second = ±π (inner rim)
        zeros = [doughnut_coordinates(np.zeros_like(t), t),
                 doughnut_coordinates(t, np.zeros_like(t))]
        self._add(self.plotter.add_mesh(polylines(seams), color=_FRAME_COLOR, line_width=1.5,
                                        reset_camera=False, render=False, name="torus-seams",
                                        lighting=False, opacity=0.6))
        self._add(self.plotter.add_mesh(polylines(zeros), color=_FRAME_COLOR, line_width=1.0,
                                        reset_camera=False, render=False, name="torus-zeros",
                                        lighting=False, opacity=0.35))
        first, second = names[used[0]], names[used[1]]
        self._text([doughnut_coordinates(0.0, 0.0, minor=1.3)], [f"{first} = 0"], 13,
                   "torus-doughnut-label-0", horizontal="left")
        self._text([doughnut_coordinates(_PI, 0.0, minor=1.3)],
                   [f"{first} = ±π" if FONT else f"{first} = +-pi"], 13,
                   "torus-doughnut-label-pi", horizontal="right")
        self._text([doughnut_coordinates(0.0, _PI / 2, minor=1.1)],
                   [f"{second} = π/2" if FONT else f"{second} = pi/2"], 13,
                   "torus-doughnut-label-half", vertical="bottom")
        self._caption(f"{first}: around the axis    {second}: around the tube", "lower_left",
                      10, "torus-doughnut-caption")

    def _draw_circle_frame(self, name: str) -> None:
        t = np.linspace(0.0, _TWO_PI, 241)
        ring = circle_coordinates(t, radius=1.0, z=-0.02)
        self._add(self.plotter.add_mesh(polylines([ring]), color=_FRAME_COLOR, line_width=1.5,
                                        reset_camera=False, render=False, name="torus-ring",
                                        lighting=False))
        at = np.array([0.0, _PI / 2, _PI, -_PI / 2])
        ticks = [np.vstack([circle_coordinates(a, 1.0), circle_coordinates(a, 1.08)])
                 for a in at]
        self._add(self.plotter.add_mesh(polylines(ticks), color=_FRAME_COLOR, line_width=1.5,
                                        reset_camera=False, render=False, name="torus-ticks",
                                        lighting=False))
        text = (["0", "π/2", "±π", "−π/2"] if FONT else ["0", "pi/2", "+-pi", "-pi/2"])
        self._text(circle_coordinates(at, radius=1.25), text, 14, "torus-tick-labels")
        self._text([[0.0, 0.0, 0.0]], [name], 17, "torus-axis-titles", bold=True)
