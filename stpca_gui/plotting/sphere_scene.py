"""Spherical view of an ST-PCA fit: the data on the nested 2-sphere with the principal circle.

:func:`sphere_view_data` extracts what the view shows from a fitted
:class:`~stpca_gui.core.ScaledTorusPCA` (the paper's "spherical view", Figure T³ (b)):
the SMDS configuration projected onto the nested S² of PNS, the principal circle S¹ and
the backwards mean, all in the coordinates of that S². :class:`SphereScene` draws them
into a given pyvista plotter.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyvista as pv
from numpy.typing import ArrayLike, NDArray

from .colors import CURVE_COLOR, MEAN_COLOR
from .scene3d import SceneBase, polylines

__all__ = ["SphereScene", "circle_axis", "sphere_view_data"]

_SPHERE_COLOR = "#c8d3e0"
_SPHERE_OPACITY = 0.35
#: The reference great circle: #8a8a8a at 60 % over white, drawn opaque (the sphere's
#: surface is then the only translucent object; see ``draw``).
_REFERENCE_COLOR = "#b9b9b9"


def sphere_view_data(
    model: Any, n_circle: int = 200
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Points, principal circle and backwards mean on the nested 2-sphere of a fit.

    Parameters
    ----------
    model : ScaledTorusPCA
        A fitted model (uses ``embedding_`` and ``pns_``).
    n_circle : int, default 200
        Points of the circle: PNS1 on an equispaced grid over one period
        (2π·``pns_.circle_radius_``, last point not repeated) with PNS2 = 0.

    Returns
    -------
    points3 : ndarray, shape (n, 3)
        ``pns_.nested_sphere_coordinates(embedding_, 2)``: unit vectors (for d = 2 the
        embedding itself).
    circle3 : ndarray, shape (n_circle, 3)
        The principal circle in the same coordinates (an open sampling of a closed curve).
    mean3 : ndarray, shape (3,)
        The backwards (PNS) mean, PNS1 = PNS2 = 0.

    Notes
    -----
    For d = 1 the data already lie on S¹: the points, the circle (the unit circle) and the
    mean are returned in the plane z = 0.
    """
    if int(n_circle) < 3:
        raise ValueError(f"n_circle must be >= 3, got {n_circle}")
    if not hasattr(model, "pns_"):
        raise RuntimeError("the model is not fitted yet")
    pns = model.pns_
    embedding = np.asarray(model.embedding_, dtype=np.float64)
    d = embedding.shape[1] - 1
    grid = pns.circle_radius_ * np.linspace(-np.pi, np.pi, int(n_circle), endpoint=False)
    if d >= 2:
        points3 = pns.nested_sphere_coordinates(embedding, 2)
        circle3 = pns.nested_sphere_inverse(np.column_stack([grid, np.zeros_like(grid)]), 2)
        mean3 = pns.nested_sphere_inverse(np.zeros((1, 2)), 2)[0]
        return points3, circle3, mean3
    units = embedding / np.linalg.norm(embedding, axis=1, keepdims=True)
    circle2 = pns.nested_sphere_inverse(grid[:, None], 1)
    mean2 = pns.nested_sphere_inverse(np.zeros((1, 1)), 1)[0]
    return (np.column_stack([units, np.zeros(len(units))]),
            np.column_stack([circle2, np.zeros(len(circle2))]),
            np.append(mean2, 0.0))


def circle_axis(circle3: ArrayLike) -> tuple[NDArray[np.float64], float]:
    """Axis and angular radius of a circle on the unit sphere.

    Parameters
    ----------
    circle3 : array_like, shape (m, 3)
        Points of the circle (m >= 3, not all on one line).

    Returns
    -------
    axis : ndarray, shape (3,)
        Unit normal of the circle's plane, pointing to the side of the circle's centre
        (so that the angle from the axis to every point is at most π/2).
    angle : float
        Angle between the axis and the points of the circle.
    """
    pts = np.asarray(circle3, dtype=np.float64)
    centre = pts.mean(axis=0)
    _, _, vt = np.linalg.svd(pts - centre)
    axis = vt[-1] / np.linalg.norm(vt[-1])
    if axis @ centre < 0:
        axis = -axis
    cosines = np.clip(pts @ axis / np.linalg.norm(pts, axis=1), -1.0, 1.0)
    return axis, float(np.arccos(np.mean(cosines)))


def _perpendicular(v: NDArray[np.float64]) -> NDArray[np.float64]:
    helper = np.eye(3)[int(np.argmin(np.abs(v)))]
    w = np.cross(v, helper)
    return w / np.linalg.norm(w)


class SphereScene(SceneBase):
    """Data on a 2-sphere with the principal circle and the mean, drawn into a plotter
    (see :class:`~stpca_gui.plotting.scene3d.SceneBase`).

    Attributes
    ----------
    circle_polydata : pyvista.PolyData or None
        The drawn principal circle (a closed polyline).
    """

    def __init__(self, plotter: pv.Plotter) -> None:
        super().__init__(plotter)
        self.circle_polydata: pv.PolyData | None = None
        self._default_direction = np.array([1.0, -1.0, 0.8])
        self._default_up = np.array([0.0, 0.0, 1.0])
        self._radius = 1.0

    def draw(
        self,
        points3: ArrayLike,
        circle3: ArrayLike | None = None,
        mean3: ArrayLike | None = None,
        colors: Any = None,
        selected: ArrayLike | None = None,
        radius: float = 1.0,
        title: str | None = None,
        *,
        point_size: float | None = None,
        reference: bool = True,
        show_sphere: bool = True,
        orientation_axes: bool = True,
    ) -> None:
        """Draw the sphere view, replacing the previous drawing.

        The camera is kept when the scene was drawn before; the first draw looks at the
        mean from a direction tilted towards the circle's axis.

        Parameters
        ----------
        points3 : array_like, shape (n, 3)
            Points on the unit sphere (scaled by ``radius``).
        circle3 : array_like, shape (m, 3), optional
            The principal circle (closed automatically), drawn as a black tube.
        mean3 : array_like, shape (3,), optional
            The backwards mean, drawn as a vermillion ball.
        colors : array_like (n, 4) or (n, 3), or one colour, optional
            Point colours (RGBA in [0, 1] or uint8).
        selected : bool mask (n,) or integer indices, optional
            Points drawn larger on top.
        radius : float, default 1.0
            Radius of the drawn sphere.
        title : str, optional
            Text at the top of the view.
        point_size : float, optional
            Point size in pixels (default depends on n).
        reference : bool, default True
            Draw the great circle perpendicular to the principal circle's axis, faintly.
        show_sphere : bool, default True
            Draw the translucent sphere.
        orientation_axes : bool, default True
            Show the orientation axes in the lower-left corner.
        """
        pts = np.atleast_2d(np.asarray(points3, dtype=np.float64))
        if pts.ndim != 2 or pts.shape[1] != 3:
            raise ValueError(f"points3 must have shape (n, 3), got {np.shape(points3)}")
        r = float(radius)
        if not r > 0:
            raise ValueError(f"radius must be positive, got {radius}")
        key = ("sphere",)
        saved = self._save_camera(key)
        self._clear()
        self.plotter.set_background("white")
        self._radius = r

        if show_sphere:
            sphere = pv.Sphere(radius=0.995 * r, theta_resolution=96, phi_resolution=64)
            # Only the near half is drawn (back faces culled): one translucent layer tints
            # the points behind it the same way, at a third less rendering cost. As the
            # only translucent object it is blended correctly without order-independent
            # transparency, whose extra passes cost ~6 ms per render with software GL.
            self.plotter.renderer.SetUseOIT(False)
            self._add(self.plotter.add_mesh(
                sphere, color=_SPHERE_COLOR, opacity=_SPHERE_OPACITY, smooth_shading=True,
                specular=0.2, reset_camera=False, render=False, name="sphere-surface",
                culling="back",
            ))

        axis = None
        self.circle_polydata = None
        if circle3 is not None:
            circle = np.atleast_2d(np.asarray(circle3, dtype=np.float64))
            if circle.ndim != 2 or circle.shape[1] != 3 or len(circle) < 3:
                raise ValueError(f"circle3 must have shape (m >= 3, 3), got {circle.shape}")
            closed = np.vstack([circle, circle[:1]]) * (1.004 * r)
            self.circle_polydata = polylines([closed])
            self._add(self.plotter.add_mesh(
                self.circle_polydata, color=CURVE_COLOR, line_width=4,
                render_lines_as_tubes=True, reset_camera=False, render=False,
                name="sphere-circle", lighting=False,
            ))
            axis, _ = circle_axis(circle)
            if reference:
                u = _perpendicular(axis)
                w = np.cross(axis, u)
                t = np.linspace(0.0, 2.0 * np.pi, 241)
                great = (np.outer(np.cos(t), u) + np.outer(np.sin(t), w)) * (1.002 * r)
                self._add(self.plotter.add_mesh(
                    polylines([great]), color=_REFERENCE_COLOR, line_width=1.5,
                    reset_camera=False, render=False, name="sphere-reference",
                    lighting=False,
                ))

        mean = None
        if mean3 is not None:
            mean = np.asarray(mean3, dtype=np.float64).ravel()
            if mean.shape != (3,):
                raise ValueError(f"mean3 must have shape (3,), got {np.shape(mean3)}")
            ball = pv.Sphere(radius=0.06 * r, center=tuple(mean * 1.03 * r),
                             theta_resolution=24, phi_resolution=16)
            self._add(self.plotter.add_mesh(
                ball, color=MEAN_COLOR, smooth_shading=True, reset_camera=False, render=False,
                name="sphere-mean",
            ))

        self._draw_points(pts * r, point_size, "sphere", colors, selected)

        if title:
            self._caption(title, "upper_edge", 10, "sphere-title")
        if orientation_axes and getattr(self.plotter.renderer, "axes_widget", None) is None:
            self.plotter.add_axes(interactive=False, line_width=2, color="black")

        self._default_direction, self._default_up = self._default_view(pts, mean, axis)
        self._view_key = key
        self._restore_camera(saved)
        self.plotter.render()

    @staticmethod
    def _default_view(
        pts: NDArray[np.float64], mean: NDArray[np.float64] | None,
        axis: NDArray[np.float64] | None,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Look at the mean (or the data) from a direction tilted towards the circle's
        axis, with the axis pointing up."""
        if mean is not None:
            look = mean
        else:
            look = pts.mean(axis=0) if len(pts) else np.array([1.0, -1.0, 0.8])
        if np.linalg.norm(look) < 1e-9:
            look = np.array([1.0, -1.0, 0.8])
        look = look / np.linalg.norm(look)
        if axis is None:
            up = np.array([0.0, 0.0, 1.0])
            direction = look + np.array([0.0, 0.0, 0.5])
        else:
            up = axis
            direction = look + 0.6 * axis
        if np.linalg.norm(direction) < 1e-9:
            direction = _perpendicular(up)
        direction = direction / np.linalg.norm(direction)
        up = up - (up @ direction) * direction
        if np.linalg.norm(up) < 1e-9:
            up = _perpendicular(direction)
        return direction, up / np.linalg.norm(up)

    def reset_camera(self, render: bool = True) -> None:
        """Look at the mean from a direction tilted towards the circle's axis."""
        b = 1.08 * self._radius
        self._set_view(self._default_direction, self._default_up, (-b, b, -b, b, -b, b),
                       parallel=False, zoom=1.3)
        if render:
            self.plotter.render()
