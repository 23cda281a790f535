"""Saving a pyvista plotter's view as a raster (PNG) or vector (SVG, PDF, EPS) file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..files.atomic import atomic_path

__all__ = ["RASTER_EXTENSIONS", "VECTOR_EXTENSIONS", "save_plotter_image"]

RASTER_EXTENSIONS = (".png",)
#: Written through VTK's GL2PS exporter (``Plotter.save_graphic``): the 3-D geometry is
#: embedded as an image, text stays text.
VECTOR_EXTENSIONS = (".svg", ".pdf", ".eps")


def save_plotter_image(plotter: Any, path: str | os.PathLike[str], scale: int = 1) -> Path:
    """Save what a plotter shows, choosing the writer from the file extension.

    The file is written to a temporary file in the same folder and moved into place, so an
    existing file is never left half-written.

    Parameters
    ----------
    plotter : pyvista.Plotter
        Any plotter, including ``pyvistaqt.QtInteractor``.
    path : str or path-like
        Destination: ``.png`` (``Plotter.screenshot``) or ``.svg``, ``.pdf``, ``.eps``
        (``Plotter.save_graphic``); case-insensitive.
    scale : int, default 1
        Resolution multiplier of PNG files (ignored for vector formats).

    Returns
    -------
    pathlib.Path
        The written file.

    Raises
    ------
    ValueError
        For any other extension, or a scale below 1.
    """
    target = Path(path).expanduser().resolve()
    ext = target.suffix.lower()
    if ext not in RASTER_EXTENSIONS + VECTOR_EXTENSIONS:
        supported = ", ".join(RASTER_EXTENSIONS + VECTOR_EXTENSIONS)
        what = repr(target.suffix) if target.suffix else "a file without an extension"
        raise ValueError(f"cannot save a 3-D view as {what}; use one of {supported}")
    if int(scale) != scale or scale < 1:
        raise ValueError(f"scale must be a positive integer, got {scale}")
    target.parent.mkdir(parents=True, exist_ok=True)
    # The temporary name keeps the extension: both writers pick the format from it.
    with atomic_path(target, suffix=ext) as tmp:
        if ext in RASTER_EXTENSIONS:
            plotter.screenshot(str(tmp), scale=int(scale) if scale != 1 else None)
        else:
            plotter.save_graphic(str(tmp), title=target.stem, raster=True, painter=True)
        if not tmp.is_file() or tmp.stat().st_size == 0:
            raise OSError(f"the plotter wrote nothing for {target.name}")
    return target
