"""The colours of the samples for an application state: its colour mode, data set, result
and selection, as every view (and ``stpca plot``) draws them."""

from __future__ import annotations

from weakref import WeakKeyDictionary

import numpy as np
from numpy.typing import NDArray

from ..model import AppState
from ..model.dataset import encode_labels
from .colors import PointColoring, SampleColors
from .time_series import time_axis

__all__ = ["current_colors", "current_groups", "state_coloring"]

#: The colouring each state's views share, with what it was made from (mode, data set,
#: result): made once, not by every view on every selection.
_colorings: WeakKeyDictionary[AppState, tuple[tuple[str, object, object], PointColoring]] = (
    WeakKeyDictionary())


def state_coloring(state: AppState) -> PointColoring:
    """The colouring of the state's colour mode, data set and result (cached)."""
    mode = state.effective_color_mode
    dataset, result = state.dataset, state.result
    cached = _colorings.get(state)
    if cached is not None:
        (old_mode, old_dataset, old_result), coloring = cached
        if old_mode == mode and old_dataset is dataset and old_result is result:
            return coloring
    n = 0 if dataset is None else dataset.n_samples
    if mode == "cluster":
        coloring = PointColoring("label", n=n, labels=result.mode_clusters.labels)
    elif mode == "trajectory":
        coloring = PointColoring("label", n=n, labels=dataset.provenance["trajectory"])
    elif mode == "time":
        coloring = PointColoring("sequential", n=n,
                                 values=time_axis(n, dataset.provenance).time)
    elif mode == "stress":
        coloring = PointColoring("stress", n=n,
                                 point_stress=state.diagnostics.point_stress.rms_residual())
    else:
        coloring = PointColoring(
            mode, n=n,
            label_codes=None if dataset is None or not dataset.has_labels
            else dataset.label_codes(),
            pns1=None if result is None else result.pns1,
            pns1_period=2 * np.pi if result is None else result.pns1_period)
    _colorings[state] = ((mode, dataset, result), coloring)
    return coloring


def current_colors(state: AppState) -> tuple[SampleColors, NDArray[np.bool_]]:
    """Colours of the samples for the state's colour mode and selection, and the selection
    mask.

    The colours are computed for the samples a view asks for (``colors.at(index)``), or
    all of them (``np.asarray(colors)``); the points outside a non-empty selection are made
    faint.
    """
    groups = state.selection.groups
    return SampleColors(state_coloring(state), groups), groups != 0


def current_groups(state: AppState) -> tuple[NDArray[np.int64] | None, list[str]]:
    """Group code per sample and group names for the state's colour mode.

    Labels (colour mode "label") or PNS1 mode clusters ("cluster"), coded in order of first
    appearance as :func:`~stpca_gui.plotting.colors.label_colors` codes them, so a group has
    the same colour in every view; ``(None, [])`` in the other modes.
    """
    mode = state.effective_color_mode
    if mode == "label":
        return state.dataset.label_codes(), list(state.dataset.label_names())
    if mode == "cluster":
        codes, names = encode_labels(state.result.mode_clusters.labels)
        return codes, [f"mode cluster {int(name) + 1}" for name in names]
    if mode == "trajectory":
        codes, names = encode_labels(state.dataset.provenance["trajectory"])
        return codes, names
    return None, []
