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

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pyvista as pv
from matplotlib import get_data_path
from matplotlib.colors import to_rgba
from numpy.typing import ArrayLike, NDArray

from .colors import CURVE_COLOR, PALETTE
from .curves import periodic_pieces

__all__ = ["DOUGHNUT_MAJOR_RADIUS", "DOUGHNUT_MINOR_RADIUS", "Layout", "PointLayer",
           "TorusScene", "break_runs", "default_point_size", "doughnut_coordinates",
           "rgba_uint8", "selection_mask"]

Layout = Literal["cube", "square", "doughnut", "circle"]
_LAYOUTS = ("cube", "square", "doughnut", "circle")

_PI = np.pi
_TWO_PI = 2.0 * np.pi
DOUGHNUT_MAJOR_RADIUS = 2.0
DOUGHNUT_MINOR_RADIUS = 1.0
#: Points of the doughnut sit this much outside the translucent surface, the curve half as
#: much, so that neither is hidden in it.
_DOUGHNUT_LIFT = 0.03
_BACKGROUND = "white"
_FRAME_COLOR = "#606060"
_TEXT_COLOR = "black"
#: Curve segments are subdivided this many times on the doughnut and the circle so that the
#: drawn chord follows the surface.
_CURVE_SUBSTEPS = 6
#: Shading of the point spheres: mostly ambient + diffuse, so the centre of each sphere
#: shows the palette colour itself, with a small highlight for depth.
_POINT_LOOK = {"ambient": 0.35, "diffuse": 0.75, "specular": 0.3, "specular_power": 25.0}


# -------------------------------------------------------------------------- shared helpers


def _font_file() -> str | None:
    """A TrueType font with Greek letters (matplotlib ships DejaVu Sans); VTK's built-in
    fonts have no π."""
    path = os.path.join(get_data_path(), "fonts", "ttf", "DejaVuSans.ttf")
    return path if os.path.isfile(path) else None


_FONT = _font_file()
_MINUS_PI = "−π" if _FONT else "-pi"
_PLUS_PI = "π" if _FONT else "pi"


def _wrap(values: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.mod(values + _PI, _TWO_PI) - _PI


def default_point_size(n: int) -> float:
    """Point size in pixels that keeps clouds of ``n`` points readable."""
    if n <= 1_000:
        return 10.0
    if n <= 10_000:
        return 7.0
    if n <= 100_000:
        return 4.0
    return 3.0


def rgba_uint8(colors: Any, n: int) -> NDArray[np.uint8]:
    """Per-point colours as an (n, 4) uint8 array.

    Parameters
    ----------
    colors : None, colour spec, or array_like of shape (n, 3) or (n, 4)
        None gives the default point colour; one matplotlib colour (``"red"``, ``"#0072B2"``,
        a 1-D RGB(A) sequence) is used for every point; float arrays are in [0, 1], integer arrays
        in [0, 255].
    n : int
        Number of points.

    Returns
    -------
    ndarray of uint8, shape (n, 4)
    """
    if colors is None:
        return np.tile(_to_uint8(np.array([to_rgba(PALETTE[4])])), (n, 1))
    if isinstance(colors, str) or np.ndim(colors) == 1:
        return np.tile(_to_uint8(np.array([to_rgba(colors)])), (n, 1))
    arr = np.asarray(colors)
    if arr.ndim != 2 or arr.shape[0] != n or arr.shape[1] not in (3, 4):
        raise ValueError(f"colors must have shape ({n}, 3) or ({n}, 4), got {arr.shape}")
    if np.issubdtype(arr.dtype, np.integer):
        out = np.clip(arr, 0, 255).astype(np.uint8)
    else:
        out = _to_uint8(arr.astype(np.float64, copy=False))
    if out.shape[1] == 3:
        out = np.column_stack([out, np.full(n, 255, dtype=np.uint8)])
    return np.ascontiguousarray(out)


def selected_point_scale(n_selected: int) -> float:
    """Size of selected points relative to the others: 1.7 up to 300 selected points,
    shrinking to 1 at 3000 and beyond.

    A few selected points must stand out; thousands of them stand out by their colour
    alone (the others are faded), and every sphere-shaded point costs its area in pixel
    shading on each render: with software OpenGL, 3000 points drawn 1.5× larger took
    more time than the whole rest of the scene.
    """
    steps = np.clip(np.log10(max(n_selected, 1) / 300.0), 0.0, 1.0)
    return float(1.7 - 0.7 * steps)


def opaque_over_white(rgba: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The colours a white background shows through translucent RGBA, as opaque RGBA."""
    alpha = rgba[:, 3:4].astype(np.float64) / 255.0
    out = np.empty_like(rgba)
    out[:, :3] = np.rint(rgba[:, :3] * alpha + 255.0 * (1.0 - alpha)).astype(np.uint8)
    out[:, 3] = 255
    return out


def _to_uint8(rgba: NDArray[np.float64]) -> NDArray[np.uint8]:
    return np.clip(np.rint(rgba * 255.0), 0, 255).astype(np.uint8)


def selection_mask(selected: ArrayLike | None, n: int) -> NDArray[np.bool_]:
    """Boolean mask of the selected points.

    Parameters
    ----------
    selected : None, bool array of shape (n,), or integer indices
        (For selection groups pass ``groups > 0``.)
    n : int

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    mask = np.zeros(n, dtype=bool)
    if selected is None:
        return mask
    sel = np.asarray(selected)
    if sel.dtype == bool:
        if sel.shape != (n,):
            raise ValueError(f"a boolean selection must have shape ({n},), got {sel.shape}")
        return sel.copy()
    if sel.size == 0:
        return mask
    if not np.issubdtype(sel.dtype, np.integer):
        raise ValueError("selected must be a boolean mask or integer indices")
    sel = sel.ravel()
    if sel.min() < -n or sel.max() >= n:
        raise IndexError(f"selected indices out of range for {n} points")
    mask[sel] = True
    return mask


def _polylines(pieces: Sequence[NDArray[np.float64]]) -> pv.PolyData:
    """One PolyData holding each (k, 3) array as a polyline."""
    pieces = [np.asarray(p, dtype=np.float64) for p in pieces if len(p) >= 2]
    if not pieces:
        return pv.PolyData()
    points = np.vstack(pieces)
    cells = []
    start = 0
    for p in pieces:
        cells.append(np.concatenate([[len(p)], np.arange(start, start + len(p))]))
        start += len(p)
    return pv.PolyData(points, lines=np.concatenate(cells).astype(np.int64))


def break_runs(
    angles: ArrayLike, breaks: ArrayLike | None = None, *, closed: bool = True
) -> list[NDArray[np.float64]]:
    """Split a sampled torus curve at its breaks, without cutting at the cube faces.

    Consecutive points of each run are unwrapped (each step is the shortest torus
    displacement), so the runs can be mapped through any periodic embedding (doughnut,
    circle) and drawn as polylines.

    Parameters
    ----------
    angles : array_like, shape (m, k)
    breaks : array_like of bool, shape (m,), optional
        ``breaks[j]`` suppresses the segment from point j to point j + 1 (mod m).
    closed : bool
        Join the last point back to the first.

    Returns
    -------
    list of ndarray, each of shape (p, k) with p >= 2
    """
    pts = np.atleast_2d(np.asarray(angles, dtype=np.float64))
    m = pts.shape[0]
    skip = np.zeros(m, dtype=bool) if breaks is None else np.asarray(breaks, dtype=bool).copy()
    if skip.shape != (m,):
        raise ValueError(f"breaks must have shape ({m},), got {skip.shape}")
    if not closed:
        skip[m - 1] = True
    if m < 2:
        return []
    if not skip.any():
        order = np.r_[np.arange(m), 0]
        runs_idx = [order]
    else:
        start = (int(np.flatnonzero(skip)[0]) + 1) % m
        runs_idx = []
        current = [start]
        for step in range(m):
            j = (start + step) % m
            if skip[j]:
                if len(current) >= 2:
                    runs_idx.append(np.array(current))
                current = [(j + 1) % m]
            else:
                current.append((j + 1) % m)
        if len(current) >= 2:
            runs_idx.append(np.array(current))
    runs = []
    for idx in runs_idx:
        seg = pts[idx]
        steps = _wrap(np.diff(seg, axis=0))
        runs.append(np.vstack([seg[:1], seg[:1] + np.cumsum(steps, axis=0)]))
    return runs


def _densify(run: NDArray[np.float64], substeps: int) -> NDArray[np.float64]:
    """Linear subdivision of a polyline (in angle space)."""
    if substeps <= 1 or len(run) < 2:
        return run
    t = np.linspace(0.0, 1.0, substeps, endpoint=False)
    a, b = run[:-1], run[1:]
    dense = (a[:, None, :] + t[None, :, None] * (b - a)[:, None, :]).reshape(-1, run.shape[1])
    return np.vstack([dense, run[-1:]])


def doughnut_coordinates(
    phi1: ArrayLike, phi2: ArrayLike, *, major: float = DOUGHNUT_MAJOR_RADIUS,
    minor: float = DOUGHNUT_MINOR_RADIUS,
) -> NDArray[np.float64]:
    """Standard embedding of T² in R³ as a torus of revolution.

    Parameters
    ----------
    phi1, phi2 : array_like
        Angles around the symmetry (z) axis and around the tube.
    major, minor : float
        Distance of the tube's centre from the axis, and the tube radius.

    Returns
    -------
    ndarray, shape (..., 3)
        ``((R + r cos φ2) cos φ1, (R + r cos φ2) sin φ1, r sin φ2)``.
    """
    p1 = np.asarray(phi1, dtype=np.float64)
    p2 = np.asarray(phi2, dtype=np.float64)
    ring = major + minor * np.cos(p2)
    return np.stack([ring * np.cos(p1), ring * np.sin(p1), minor * np.sin(p2)], axis=-1)


def _circle_coordinates(phi: ArrayLike, radius: float = 1.0, z: float = 0.0) -> NDArray:
    p = np.asarray(phi, dtype=np.float64)
    return np.stack([radius * np.cos(p), radius * np.sin(p), np.full_like(p, z)], axis=-1)


# ---------------------------------------------------------------- point layer and scene base


class PointLayer:
    """A point cloud with per-point RGBA scalars and an overlay of the selected points.

    The cloud is a single ``PolyData`` rendered with ``render_points_as_spheres``; the
    overlay repeats the selected points larger on top, and the cloud then draws only the
    others (its vertex cells list them), so no point is shaded twice. Colours are made
    opaque by blending them over the white background: translucent (dimmed) points would
    send the whole cloud through the renderer's costly order-independent transparency pass
    on every render. Recolouring rewrites the RGBA array in place.
    """

    SCALARS = "rgba"

    def __init__(self, plotter: pv.Plotter, xyz: NDArray[np.float64], point_size: float,
                 name: str) -> None:
        self.plotter = plotter
        self.xyz = np.ascontiguousarray(xyz, dtype=np.float64)
        self.n = self.xyz.shape[0]
        self.point_size = float(point_size)
        self.cloud = pv.PolyData(self.xyz)
        self.cloud.point_data[self.SCALARS] = np.zeros((self.n, 4), dtype=np.uint8)
        self._all_vertices = self.cloud.verts.copy()
        self.actor = plotter.add_mesh(
            self.cloud, scalars=self.SCALARS, rgba=True, render_points_as_spheres=True,
            point_size=self.point_size, reset_camera=False, render=False, name=f"{name}-points",
            show_scalar_bar=False, **_POINT_LOOK,
        )
        self.overlay = pv.PolyData(np.zeros((1, 3)))
        self.overlay.point_data[self.SCALARS] = np.zeros((1, 4), dtype=np.uint8)
        self.overlay_actor = plotter.add_mesh(
            self.overlay, scalars=self.SCALARS, rgba=True, render_points_as_spheres=True,
            point_size=self.point_size * selected_point_scale(0), reset_camera=False,
            render=False,
            name=f"{name}-selected", show_scalar_bar=False, **_POINT_LOOK,
        )
        self.overlay_actor.SetVisibility(False)

    @property
    def actors(self) -> list[Any]:
        return [self.actor, self.overlay_actor]

    def set_colors(self, colors: Any, selected: ArrayLike | None) -> None:
        """Rewrite the RGBA array (in place) and rebuild the selection overlay."""
        rgba = opaque_over_white(rgba_uint8(colors, self.n))
        target = self.cloud.point_data[self.SCALARS]
        target[:] = rgba
        target.VTKObject.Modified()
        mask = selection_mask(selected, self.n)
        if mask.any():
            fresh = pv.PolyData(self.xyz[mask])
            fresh.point_data[self.SCALARS] = rgba[mask]
            self.overlay.shallow_copy(fresh)
            self.overlay.Modified()
            self.overlay_actor.SetVisibility(True)
            self.overlay_actor.GetProperty().SetPointSize(
                self.point_size * selected_point_scale(int(mask.sum())))
            others = np.flatnonzero(~mask)
            self.cloud.verts = np.column_stack([np.ones_like(others), others]).ravel()
        else:
            self.overlay_actor.SetVisibility(False)
            self.cloud.verts = self._all_vertices
        self.actor.SetVisibility(not mask.all())
        self.cloud.Modified()

    def colors(self) -> NDArray[np.uint8]:
        """The RGBA array currently drawn, shape (n, 4), uint8 (opaque)."""
        return np.asarray(self.cloud.point_data[self.SCALARS]).copy()

    def shown_in_cloud(self) -> NDArray[np.bool_]:
        """Which points the cloud draws (the selected ones are drawn by the overlay)."""
        shown = np.zeros(self.n, dtype=bool)
        cells = np.asarray(self.cloud.verts).reshape(-1, 2)
        shown[cells[:, 1]] = True
        return shown & bool(self.actor.GetVisibility())


@dataclass
class _SavedCamera:
    position: Any
    parallel_scale: float


class _SceneBase:
    """Actor bookkeeping and camera keeping shared by the 3-D scenes."""

    def __init__(self, plotter: pv.Plotter) -> None:
        self.plotter = plotter
        self._actors: list[Any] = []
        self._view_key: tuple | None = None
        self._points: PointLayer | None = None

    # -- actors
    def _add(self, actor: Any) -> Any:
        self._actors.append(actor)
        return actor

    def _clear(self) -> None:
        for actor in self._actors:
            self.plotter.remove_actor(actor, reset_camera=False, render=False)
        self._actors.clear()
        self._points = None

    def clear(self) -> None:
        """Remove everything this scene drew (the camera is kept)."""
        self._clear()
        self._view_key = None
        self.plotter.render()

    # -- camera
    def _save_camera(self, key: tuple) -> _SavedCamera | None:
        if self._view_key != key:
            return None
        camera = self.plotter.camera
        return _SavedCamera(self.plotter.camera_position, float(camera.parallel_scale))

    def _restore_camera(self, saved: _SavedCamera | None) -> None:
        if saved is None:
            self.reset_camera(render=False)
            return
        self.plotter.camera_position = saved.position
        self.plotter.camera.parallel_scale = saved.parallel_scale
        self.plotter.reset_camera_clipping_range()

    def reset_camera(self, render: bool = True) -> None:  # pragma: no cover - overridden
        """Set the default view of the current layout."""
        raise NotImplementedError

    def _set_view(self, direction: Sequence[float], up: Sequence[float],
                  bounds: Sequence[float], parallel: bool, zoom: float = 1.0) -> None:
        camera = self.plotter.camera
        camera.parallel_projection = parallel
        d = np.asarray(direction, dtype=np.float64)
        d = d / np.linalg.norm(d)
        self.plotter.camera_position = [tuple(10.0 * d), (0.0, 0.0, 0.0), tuple(up)]
        self.plotter.renderer.reset_camera(render=False, bounds=tuple(bounds))
        if zoom != 1.0:
            camera.zoom(zoom)
        self.plotter.reset_camera_clipping_range()

    # -- colours
    @property
    def point_layer(self) -> PointLayer | None:
        """The drawn point cloud (None before the first draw)."""
        return self._points

    def update_colors(self, colors: Any, selected: ArrayLike | None = None) -> None:
        """Recolour the drawn points without rebuilding the scene, then render.

        Parameters
        ----------
        colors : array_like, shape (n, 3) or (n, 4), or one colour
            RGBA in [0, 1] (e.g. from :func:`~stpca_gui.plotting.colors.point_colors`), or
            uint8.
        selected : None, bool mask (n,) or integer indices
            Selected points are repeated larger and opaque on top of the cloud.
        """
        if self._points is None:
            raise RuntimeError("nothing drawn yet; call draw first")
        self._points.set_colors(colors, selected)
        self.plotter.render()

    def _text(self, points: ArrayLike, labels: Sequence[str], size: int, name: str,
              bold: bool = False, horizontal: str = "center", vertical: str = "center",
              ) -> None:
        pts = np.atleast_2d(np.asarray(points, dtype=np.float64))
        self._add(self.plotter.add_point_labels(
            pts, list(labels), font_size=size, text_color=_TEXT_COLOR, font_file=_FONT,
            bold=bold, shape=None, show_points=False, always_visible=True,
            justification_horizontal=horizontal, justification_vertical=vertical,
            reset_camera=False, render=False, name=name,
        ))


# ------------------------------------------------------------------------------ torus scene


class TorusScene(_SceneBase):
    """Torus data and the principal curve drawn into a pyvista plotter.

    Parameters
    ----------
    plotter : pyvista.Plotter
        Any plotter (``pyvista.Plotter(off_screen=True)``, ``pyvistaqt.QtInteractor``). The
        scene adds and removes its own actors only and never calls ``show``.

    Attributes
    ----------
    layout : str or None
        Layout of the last draw ("cube", "square", "doughnut" or "circle").
    axes : tuple of int
        Angle columns shown by the last draw.
    point_xyz : ndarray, shape (n, 3)
        Where the points of the last draw are in the scene.
    curve_polydata : pyvista.PolyData or None
        The drawn principal curve (one polyline per piece), in scene coordinates.
    """

    def __init__(self, plotter: pv.Plotter) -> None:
        super().__init__(plotter)
        self.layout: str | None = None
        self.axes: tuple[int, ...] = ()
        self.point_xyz = np.empty((0, 3))
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

        chosen = _wrap(data[:, list(used)])
        curve_angles = curve_breaks = None
        if curve is not None:
            curve_all = np.atleast_2d(np.asarray(curve.angles, dtype=np.float64))
            if curve_all.shape[1] != d:
                raise ValueError(f"the curve has {curve_all.shape[1]} angles, the data {d}")
            curve_angles = _wrap(curve_all[:, list(used)])
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
                for r in (_densify(run, _CURVE_SUBSTEPS)
                          for run in break_runs(curve_angles, curve_breaks))])
        else:  # circle
            xyz = _circle_coordinates(chosen[:, 0], z=0.05)
            self._draw_circle_frame(names[used[0]])
            pieces = ([] if curve_angles is None else [
                _circle_coordinates(_densify(run, _CURVE_SUBSTEPS)[:, 0], radius=1.0)
                for run in break_runs(curve_angles, curve_breaks)])

        self.curve_polydata = None
        if pieces:
            lines = _polylines(pieces)
            self.curve_polydata = lines
            self._add(self.plotter.add_mesh(
                lines, color=CURVE_COLOR, line_width=4, render_lines_as_tubes=True,
                reset_camera=False, render=False, name="torus-curve", lighting=False,
            ))

        size = default_point_size(n) if point_size is None else float(point_size)
        layer = PointLayer(self.plotter, xyz, size, "torus")
        for actor in layer.actors:
            self._add(actor)
        layer.set_colors(colors, selected)
        self._points = layer
        self.point_xyz = layer.xyz

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
            return [f"θ{k + 1}" if _FONT else f"theta{k + 1}" for k in range(d)]
        names = [str(c) for c in column_names]
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
            box = _polylines([corners])
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
        self._add(self.plotter.add_mesh(_polylines(marks), color=_FRAME_COLOR, line_width=1.5,
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
        self._add(self.plotter.add_mesh(_polylines(seams), color=_FRAME_COLOR, line_width=1.5,
                                        reset_camera=False, render=False, name="torus-seams",
                                        lighting=False, opacity=0.6))
        self._add(self.plotter.add_mesh(_polylines(zeros), color=_FRAME_COLOR, line_width=1.0,
                                        reset_camera=False, render=False, name="torus-zeros",
                                        lighting=False, opacity=0.35))
        first, second = names[used[0]], names[used[1]]
        self._text([doughnut_coordinates(0.0, 0.0, minor=1.3)], [f"{first} = 0"], 13,
                   "torus-doughnut-label-0", horizontal="left")
        self._text([doughnut_coordinates(_PI, 0.0, minor=1.3)],
                   [f"{first} = ±π" if _FONT else f"{first} = +-pi"], 13,
                   "torus-doughnut-label-pi", horizontal="right")
        self._text([doughnut_coordinates(0.0, _PI / 2, minor=1.1)],
                   [f"{second} = π/2" if _FONT else f"{second} = pi/2"], 13,
                   "torus-doughnut-label-half", vertical="bottom")
        self._add(self.plotter.add_text(
            f"{first}: around the axis    {second}: around the tube", position="lower_left",
            font_size=10, color=_TEXT_COLOR, name="torus-doughnut-caption"))
        if _FONT:
            self._actors[-1].GetTextProperty().SetFontFamily(4)  # VTK_FONT_FILE
            self._actors[-1].GetTextProperty().SetFontFile(_FONT)

    def _draw_circle_frame(self, name: str) -> None:
        t = np.linspace(0.0, _TWO_PI, 241)
        ring = _circle_coordinates(t, radius=1.0, z=-0.02)
        self._add(self.plotter.add_mesh(_polylines([ring]), color=_FRAME_COLOR, line_width=1.5,
                                        reset_camera=False, render=False, name="torus-ring",
                                        lighting=False))
        at = np.array([0.0, _PI / 2, _PI, -_PI / 2])
        ticks = [np.vstack([_circle_coordinates(a, 1.0), _circle_coordinates(a, 1.08)])
                 for a in at]
        self._add(self.plotter.add_mesh(_polylines(ticks), color=_FRAME_COLOR, line_width=1.5,
                                        reset_camera=False, render=False, name="torus-ticks",
                                        lighting=False))
        text = (["0", "π/2", "±π", "−π/2"] if _FONT else ["0", "pi/2", "+-pi", "-pi/2"])
        self._text(_circle_coordinates(at, radius=1.25), text, 14, "torus-tick-labels")
        self._text([[0.0, 0.0, 0.0]], [name], 17, "torus-axis-titles", bold=True)
