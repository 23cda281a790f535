"""Shared pieces of the 3-D scenes (torus and sphere views) drawn with pyvista.

A scene draws into a *given* plotter (an off-screen ``pyvista.Plotter`` for export and
tests, or the application's ``QtInteractor``) and never shows it. :class:`SceneBase` keeps
the scene's actors (to remove exactly its own), the camera across redraws of the same view,
and the point cloud, a :class:`PointLayer` whose recolouring rewrites one RGBA array so that
selections stay interactive for 10⁵ points. The helpers convert colours and selections.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyvista as pv
from matplotlib import get_data_path
from matplotlib.colors import to_rgba
from numpy.typing import ArrayLike, NDArray

from .colors import PALETTE
from .display_subset import MAX_DRAWN_POINTS, DisplaySubset

__all__ = ["FONT", "TEXT_COLOR", "PointLayer", "SceneBase", "default_point_size",
           "opaque_over_white", "polylines", "rgba_uint8", "selected_point_scale",
           "selection_mask"]

TEXT_COLOR = "black"
#: Shading of the point spheres: mostly ambient + diffuse, so the centre of each sphere
#: shows the palette colour itself, with a small highlight for depth.
_POINT_LOOK = {"ambient": 0.35, "diffuse": 0.75, "specular": 0.3, "specular_power": 25.0}


def font_file() -> str | None:
    """A TrueType font with Greek letters (matplotlib ships DejaVu Sans); VTK's built-in
    fonts have no π."""
    path = os.path.join(get_data_path(), "fonts", "ttf", "DejaVuSans.ttf")
    return path if os.path.isfile(path) else None


FONT = font_file()


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
    out = rgba.copy()
    translucent = np.flatnonzero(rgba[:, 3] != 255)
    if translucent.size:
        part = rgba[translucent]
        alpha = part[:, 3:4].astype(np.float64) / 255.0
        out[translucent, :3] = np.rint(part[:, :3] * alpha + 255.0 * (1.0 - alpha))
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


def polylines(pieces: Sequence[NDArray[np.float64]]) -> pv.PolyData:
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


class PointLayer:
    """A point cloud with per-point RGBA scalars and an overlay of the selected points.

    The cloud is a single ``PolyData`` rendered with ``render_points_as_spheres``; the
    overlay repeats the selected points larger on top, and the cloud then draws only the
    others (its vertex cells list them), so no point is shaded twice. Colours are made
    opaque by blending them over the white background: translucent (dimmed) points would
    send the whole cloud through the renderer's costly order-independent transparency pass
    on every render. Recolouring rewrites the RGBA array in place.

    With more than ``cap`` points only a subset is drawn
    (:class:`~stpca_gui.plotting.display_subset.DisplaySubset`): the cloud holds the subset's
    base and the overlay the selected points drawn.
    """

    SCALARS = "rgba"

    def __init__(self, plotter: pv.Plotter, xyz: NDArray[np.float64], point_size: float,
                 name: str, cap: int = MAX_DRAWN_POINTS) -> None:
        self.plotter = plotter
        self.xyz = np.ascontiguousarray(xyz, dtype=np.float64)
        self.n = self.xyz.shape[0]
        self.subset = DisplaySubset(self.n, cap)
        self.point_size = float(point_size)
        base = self.subset.base
        self.cloud = pv.PolyData(self.xyz if self.subset.complete else self.xyz[base])
        self.cloud.point_data[self.SCALARS] = np.zeros((base.size, 4), dtype=np.uint8)
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
        #: Indices of the selected points the overlay draws.
        self.overlay_indices = np.empty(0, dtype=np.intp)

    @property
    def actors(self) -> list[Any]:
        return [self.actor, self.overlay_actor]

    @property
    def n_drawn(self) -> int:
        """Points drawn: all n, or the cap of the display subset."""
        return self.subset.n_drawn

    def set_colors(self, colors: Any, selected: ArrayLike | None) -> None:
        """Rewrite the RGBA array (in place) and rebuild the selection overlay.

        ``colors`` is anything :func:`rgba_uint8` takes, or an object with an ``at(index)``
        method giving the colours of some points
        (:class:`~stpca_gui.plotting.colors.SampleColors`), of which only the drawn points'
        are asked for.
        """
        mask = selection_mask(selected, self.n)
        chosen, positions = self.subset.split(mask)
        base = None if self.subset.complete else self.subset.base
        target = self.cloud.point_data[self.SCALARS]
        target[:] = opaque_over_white(_rgba_at(colors, base, self.n))
        target.VTKObject.Modified()
        if chosen.size:
            fresh = pv.PolyData(self.xyz[chosen])
            fresh.point_data[self.SCALARS] = opaque_over_white(_rgba_at(colors, chosen, self.n))
            self.overlay.shallow_copy(fresh)
            self.overlay.Modified()
            self.overlay_actor.SetVisibility(True)
            self.overlay_actor.GetProperty().SetPointSize(
                self.point_size * selected_point_scale(int(chosen.size)))
        else:
            self.overlay_actor.SetVisibility(False)
        self.overlay_indices = chosen
        if positions.size == self.subset.base.size:
            self.cloud.verts = self._all_vertices
        else:
            self.cloud.verts = np.column_stack([np.ones_like(positions), positions]).ravel()
        self.actor.SetVisibility(positions.size > 0)
        self.cloud.Modified()

    def set_positions(self, xyz: ArrayLike) -> None:
        """Move the points (same number, same order) without rebuilding anything: the
        coordinates of the cloud and the overlay are rewritten in place."""
        new = np.ascontiguousarray(xyz, dtype=np.float64)
        if new.shape != self.xyz.shape:
            raise ValueError(f"positions must have shape {self.xyz.shape}, got {new.shape}")
        self.xyz = new
        self.cloud.points[:] = new if self.subset.complete else new[self.subset.base]
        self.cloud.GetPoints().Modified()
        if self.overlay_indices.size:
            self.overlay.points[:] = new[self.overlay_indices]
            self.overlay.GetPoints().Modified()

    def colors(self) -> NDArray[np.uint8]:
        """The RGBA array of the cloud, shape (number of base points, 4), uint8 (opaque):
        one row per point when every point is drawn."""
        return np.asarray(self.cloud.point_data[self.SCALARS]).copy()

    def shown_in_cloud(self) -> NDArray[np.bool_]:
        """Which of the n points the cloud draws (the selected ones are drawn by the
        overlay)."""
        shown = np.zeros(self.n, dtype=bool)
        cells = np.asarray(self.cloud.verts).reshape(-1, 2)
        shown[self.subset.base[cells[:, 1]]] = True
        return shown & bool(self.actor.GetVisibility())


def _rgba_at(colors: Any, index: NDArray[np.intp] | None, n: int) -> NDArray[np.uint8]:
    """uint8 RGBA of the points ``index`` (None: all n) from any colour specification."""
    if hasattr(colors, "at"):
        rgba = colors.at(index)
        return rgba_uint8(rgba, len(rgba))
    rgba = rgba_uint8(colors, n)
    return rgba if index is None else rgba[index]


@dataclass
class _SavedCamera:
    position: Any
    parallel_scale: float


class SceneBase:
    """Actor bookkeeping and camera keeping shared by the 3-D scenes.

    Parameters
    ----------
    plotter : pyvista.Plotter
        Any plotter (``pyvista.Plotter(off_screen=True)``, ``pyvistaqt.QtInteractor``). The
        scene adds and removes its own actors only and never calls ``show``.

    Attributes
    ----------
    point_xyz : ndarray, shape (n, 3)
        Where the points of the last draw are in the scene.
    """

    def __init__(self, plotter: pv.Plotter) -> None:
        self.plotter = plotter
        self._actors: list[Any] = []
        self._view_key: tuple | None = None
        self._points: PointLayer | None = None
        self._hidden: list[tuple[Any, bool]] | None = None
        self.point_xyz = np.empty((0, 3))
        #: Most points drawn (see :mod:`~stpca_gui.plotting.display_subset`).
        self.max_points = MAX_DRAWN_POINTS

    # -- actors
    def _add(self, actor: Any) -> Any:
        self._actors.append(actor)
        return actor

    def _clear(self) -> None:
        for actor in self._actors:
            self.plotter.remove_actor(actor, reset_camera=False, render=False)
        self._actors.clear()
        self._points = None
        self._hidden = None

    def hide(self) -> None:
        """Make the scene's actors invisible, keeping them (another scene shows meanwhile
        in the same plotter); :meth:`unhide` shows them as they were. Does not render."""
        if self._hidden is None:
            self._hidden = [(actor, bool(actor.GetVisibility())) for actor in self._actors]
            for actor in self._actors:
                actor.SetVisibility(False)

    def unhide(self) -> None:
        """Undo :meth:`hide` (does not render)."""
        hidden, self._hidden = self._hidden, None
        for actor, visible in hidden or ():
            actor.SetVisibility(visible)

    @property
    def hidden(self) -> bool:
        """Whether :meth:`hide` is in effect."""
        return self._hidden is not None

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

    def _draw_points(self, xyz: NDArray[np.float64], point_size: float | None, name: str,
                     colors: Any, selected: ArrayLike | None) -> None:
        """Draw the point cloud (replacing the scene's point layer) and colour it."""
        drawn = min(len(xyz), self.max_points)
        size = default_point_size(drawn) if point_size is None else float(point_size)
        layer = PointLayer(self.plotter, xyz, size, name, cap=self.max_points)
        for actor in layer.actors:
            self._add(actor)
        layer.set_colors(colors, selected)
        self._points = layer
        self.point_xyz = layer.xyz
        if layer.subset.label():
            self._caption(layer.subset.label(), "lower_right", 9, f"{name}-subset-note")

    @property
    def subset_note(self) -> str:
        """What the view says about drawing a subset, e.g. "showing 100,000 of 1,000,000
        points" ("" when every point is drawn or nothing is)."""
        return "" if self._points is None else self._points.subset.label()

    def _caption(self, text: str, position: str, size: int, name: str) -> None:
        """Fixed 2-D text in a corner or along an edge of the view, in the Greek-capable font."""
        self._add(self.plotter.add_text(text, position=position, font_size=size,
                                        color=TEXT_COLOR, name=name))
        if FONT:
            prop = self._actors[-1].GetTextProperty()
            prop.SetFontFamily(4)  # VTK_FONT_FILE
            prop.SetFontFile(FONT)

    def _text(self, points: ArrayLike, labels: Sequence[str], size: int, name: str,
              bold: bool = False, horizontal: str = "center", vertical: str = "center",
              ) -> None:
        pts = np.atleast_2d(np.asarray(points, dtype=np.float64))
        self._add(self.plotter.add_point_labels(
            pts, list(labels), font_size=size, text_color=TEXT_COLOR, font_file=FONT,
            bold=bold, shape=None, show_points=False, always_visible=True,
            justification_horizontal=horizontal, justification_vertical=vertical,
            reset_camera=False, render=False, name=name,
        ))
