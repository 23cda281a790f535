"""Redraw only the top layers of a matplotlib figure, over a snapshot of the layers below.

A new selection changes a few artists (the highlighted points, the selection's bars and
density curve), but a full Agg render of the figure redraws every tick label, bar and
point: about 50 ms for 5000 points. :class:`PartialRedraw` puts an invisible marker artist
at a chosen z-order into an axes. Axes draw their children in z-order, so when a full
render reaches the marker the buffer holds exactly the layers below it, and the marker
copies that buffer. :meth:`PartialRedraw.redraw` then restores the copy, draws only the
artists above the marker and blits.

Unlike matplotlib's ``animated`` artists, nothing is left out of a normal draw: savefig,
vector exports and the widgets' own blitting (``LassoSelector``, ``SpanSelector``, which
re-render the whole figure on every draw when animated artists exist) are unaffected.
The snapshot is refreshed by every full render and used only by :meth:`redraw`; a caller
that changes anything below the marker must ask for a full render (``draw_idle``).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backend_bases import RendererBase
from matplotlib.transforms import Bbox


class _SnapshotMarker(Artist):
    """Invisible artist that copies the render buffer when its turn to be drawn comes."""

    def __init__(self, owner: PartialRedraw) -> None:
        super().__init__()
        self._owner = owner
        # Never part of tight or constrained layout, never clipped away.
        self.set_in_layout(False)

    def draw(self, renderer: RendererBase) -> None:
        self._owner._capture(renderer)
        self.stale = False

    def get_window_extent(self, renderer: RendererBase | None = None) -> Bbox:
        return Bbox.null()


class PartialRedraw:
    """Fast redraws of the artists of ``axes`` above ``zorder`` (and what the figure draws
    after the axes).

    Parameters
    ----------
    axes : matplotlib.axes.Axes
        The axes holding the changing artists (on a figure with an Agg-based canvas for
        partial redraws; other canvases always get a full ``draw_idle``).
    zorder : float
        Artists of ``axes`` with a larger z-order are redrawn by :meth:`redraw`; those
        below (and equal) must not change between full renders.
    """

    def __init__(self, axes: Axes, zorder: float) -> None:
        self.axes = axes
        self.zorder = float(zorder)
        self._snapshot: Any = None
        self._snapshot_key: tuple[float, float, float] | None = None
        self.marker = _SnapshotMarker(self)
        self.marker.set_zorder(self.zorder)
        axes.add_artist(self.marker)
        self.marker.set_clip_on(False)

    # ----------------------------------------------------------------- internals
    def _renderer_key(self, renderer: RendererBase) -> tuple[float, float, float]:
        return (float(renderer.width), float(renderer.height), float(self.axes.figure.dpi))

    def _capture(self, renderer: RendererBase) -> None:
        canvas = self.axes.figure.canvas
        if canvas.is_saving() or not hasattr(renderer, "copy_from_bbox"):
            return  # an export, or a vector renderer: nothing to blit later
        self._snapshot = renderer.copy_from_bbox(self.axes.figure.bbox)
        self._snapshot_key = self._renderer_key(renderer)

    def _artists_above(self) -> list[Artist]:
        """What a full render draws after the marker, in drawing order."""
        ax = self.axes
        hidden = {ax.patch}
        if not (ax.axison and ax.get_frame_on()):
            hidden.update(ax.spines.values())
        if not ax.axison:
            hidden.update((ax.xaxis, ax.yaxis))
        children = [a for a in ax.get_children() if a not in hidden and not a.get_animated()]
        # The stable sort matches Axes.draw: equal z-orders keep their child order, so an
        # artist added after the marker at the same z-order counts as above it.
        order = sorted(children, key=attrgetter("zorder"))
        above = order[order.index(self.marker) + 1:]
        figure = ax.figure
        drawn = sorted((a for a in figure.get_children()
                        if a is not figure.patch and not a.get_animated()),
                       key=attrgetter("zorder"))
        return above + drawn[drawn.index(ax) + 1:]

    # -------------------------------------------------------------------- public
    @property
    def ready(self) -> bool:
        """Whether a snapshot matching the canvas' current size is available."""
        canvas = self.axes.figure.canvas
        if self._snapshot is None or not hasattr(canvas, "copy_from_bbox"):
            return False
        if getattr(canvas, "_draw_pending", False):
            return False  # a full render is due anyway
        width, height = canvas.get_width_height(physical=True)
        return self._snapshot_key == (float(width), float(height), float(self.axes.figure.dpi))

    def invalidate(self) -> None:
        """Drop the snapshot: the next :meth:`redraw` asks for a full render."""
        self._snapshot = None
        self._snapshot_key = None

    def redraw(self) -> bool:
        """Show changes of the artists above the marker.

        Restores the snapshot, draws those artists and blits the figure when a snapshot is
        ready; otherwise asks the canvas for a full render (``draw_idle``).

        Returns
        -------
        bool
            True for a partial redraw, False when a full render was requested instead.
        """
        canvas = self.axes.figure.canvas
        if not self.ready:
            canvas.draw_idle()
            return False
        renderer = canvas.get_renderer()
        renderer.restore_region(self._snapshot)
        for artist in self._artists_above():
            artist.draw(renderer)
        canvas.blit(self.axes.figure.bbox)
        return True
