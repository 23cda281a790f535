"""Application state shared by every view: data set, result, selection and view options."""

from __future__ import annotations

from psygnal import Signal

from ..core.diagnostics import FitDiagnostics
from .analysis import AnalysisResult
from .dataset import Dataset
from .moving_angles import moving_axes
from .selection import SelectionModel

__all__ = ["COLOR_MODES", "AppState", "ColorMode"]

#: Values of :attr:`AppState.color_mode`, with the name shown to users.
COLOR_MODES: dict[str, str] = {
    "label": "label",
    "pns1": "PNS1 score",
    "cluster": "PNS1 mode cluster",
    "stress": "stress per point",
    "time": "time",
    "trajectory": "trajectory",
    "selection": "selection",
}
#: A key of :data:`COLOR_MODES`.
ColorMode = str


class AppState:
    """The one object the views read and write.

    Read the state through properties; change it through the ``set_*`` methods, which
    validate, update and emit the matching signal only when something changed.

    Invariants: ``result`` is None or was computed from ``dataset``; the selection has one
    entry per sample of ``dataset``; ``scatter_components`` and ``torus_axes`` are valid
    column indices for it.

    Attributes
    ----------
    selection : SelectionModel
        Shared selection (its own ``changed`` signal reports selection edits).
    dataset_changed : psygnal.Signal
        Emitted with the new :class:`Dataset` (or None).
    result_changed : psygnal.Signal
        Emitted with the new :class:`AnalysisResult` (or None).
    color_mode_changed : psygnal.Signal
        Emitted with the new colour mode.
    view_options_changed : psygnal.Signal
        Emitted with the option's name, ``"scatter_components"``, ``"torus_axes"`` or
        ``"paper_antimodes"``, when it changes.
    """

    dataset_changed = Signal(object)
    result_changed = Signal(object)
    color_mode_changed = Signal(str)
    view_options_changed = Signal(str)

    def __init__(self) -> None:
        self.selection = SelectionModel(0)
        self._dataset: Dataset | None = None
        self._result: AnalysisResult | None = None
        self._diagnostics: FitDiagnostics | None = None
        self._color_mode: ColorMode = "label"
        self._scatter: tuple[int, int] = (0, 1)
        self._torus_axes: tuple[int, ...] = (0, 1, 2)
        #: Whether the torus axes were chosen (by the user or a session) rather than
        #: picked as the moving angles (which a new result then picks again).
        self._torus_axes_chosen = False
        self._show_paper_antimodes = False

    # ------------------------------------------------------------------ data set
    @property
    def dataset(self) -> Dataset | None:
        """The current data set."""
        return self._dataset

    def set_dataset(self, dataset: Dataset | None) -> None:
        """Switch to another data set.

        The result is dropped, the selection is cleared and resized, and the view options
        are reset: the first two components, and the angles with the largest circular
        spread on the torus (the first ones when d ≤ 3; :func:`moving_axes`). All of that
        happens before any signal is emitted, so every handler sees a consistent state;
        then ``dataset_changed``, ``result_changed`` (if there was a result),
        ``selection.changed`` (source ``"dataset"``) and ``view_options_changed`` (once per
        option that changed) are emitted, in that order.
        """
        if dataset is self._dataset:
            return
        had_result = self._result is not None
        d = dataset.n_angles if dataset is not None else 2
        n = dataset.n_samples if dataset is not None else 0
        scatter = (0, min(1, d - 1))
        axes = moving_axes(dataset.angles) if dataset is not None else (0, 1)
        changed_options = [name for name, old, new in (
            ("scatter_components", self._scatter, scatter),
            ("torus_axes", self._torus_axes, axes)) if old != new]
        self._dataset = dataset
        self._result = None
        self._diagnostics = None
        self._scatter, self._torus_axes = scatter, axes
        self._torus_axes_chosen = False
        with self.selection.changed.blocked():
            self.selection.resize(n)
        self.dataset_changed.emit(dataset)
        if had_result:
            self.result_changed.emit(None)
        self.selection.changed.emit("dataset")
        for name in changed_options:
            self.view_options_changed.emit(name)

    # -------------------------------------------------------------------- result
    @property
    def result(self) -> AnalysisResult | None:
        """The analysis of the current data set, if one was run."""
        return self._result

    def set_result(self, result: AnalysisResult | None) -> None:
        """Install the result of an analysis of the current data set (or None to drop it).

        Raises
        ------
        ValueError
            When ``result`` was computed from another data set (e.g. a run that finished
            after the user loaded new data); the GUI should discard it.
        """
        if result is not None and result.dataset is not self._dataset:
            raise ValueError("the analysis result belongs to another data set than the "
                             "current one")
        if result is not self._result:
            self._result = result
            self._diagnostics = None
            old_axes = self._torus_axes
            if result is not None and not self._torus_axes_chosen and \
                    result.dataset.n_angles > 3:
                # The angles along which the new principal curve moves most, set before
                # the views draw the result.
                self._torus_axes = moving_axes(result.dataset.angles, result.curve)
            self.result_changed.emit(result)
            if old_axes != self._torus_axes:
                self.view_options_changed.emit("torus_axes")

    @property
    def diagnostics(self) -> FitDiagnostics | None:
        """The fit diagnostics of the current result, once computed
        (:meth:`AnalysisResult.compute_diagnostics`, in a task), else None."""
        return self._diagnostics

    def set_diagnostics(self, result: AnalysisResult, diagnostics: FitDiagnostics) -> bool:
        """Keep the diagnostics computed for ``result``; views in the "stress" colour mode
        recolour (``color_mode_changed`` is emitted). Diagnostics of a result that is no
        longer the current one are dropped. Returns whether they were kept."""
        if result is not self._result:
            return False
        self._diagnostics = diagnostics
        if self._color_mode == "stress":
            self.color_mode_changed.emit(self._color_mode)
        return True

    # --------------------------------------------------------------- colour mode
    @property
    def color_mode(self) -> ColorMode:
        """How points are coloured: "label", "pns1" or "selection"."""
        return self._color_mode

    def set_color_mode(self, mode: ColorMode) -> None:
        """Choose how points are coloured; emits ``color_mode_changed`` on a change."""
        if mode not in COLOR_MODES:
            raise ValueError(f"color mode must be one of {', '.join(COLOR_MODES)}; got {mode!r}")
        if mode != self._color_mode:
            self._color_mode = mode
            self.color_mode_changed.emit(mode)

    @property
    def effective_color_mode(self) -> ColorMode:
        """The colour mode the views can honour now.

        "label" needs labels, "pns1" and "cluster" need a result, "stress" a result whose
        diagnostics are computed, "time" and "trajectory" data with that column (read from
        trajectories); otherwise "selection".
        """
        mode = self._color_mode
        if mode == "label" and (self._dataset is None or not self._dataset.has_labels):
            return "selection"
        if mode in ("pns1", "cluster") and self._result is None:
            return "selection"
        if mode == "stress" and self._diagnostics is None:
            return "selection"
        if mode in ("time", "trajectory") and (
                self._dataset is None or mode not in (self._dataset.provenance or {})):
            return "selection"
        return mode

    # -------------------------------------------------------------- view options
    @property
    def show_paper_antimodes(self) -> bool:
        """Whether the histogram adds the antimodes of the paper's (untested) rule, drawn
        distinctly, beside the tested ones."""
        return self._show_paper_antimodes

    def set_show_paper_antimodes(self, show: bool) -> None:
        """Show or hide the paper rule's antimodes; emits ``view_options_changed``
        (``"paper_antimodes"``) on a change."""
        if bool(show) != self._show_paper_antimodes:
            self._show_paper_antimodes = bool(show)
            self.view_options_changed.emit("paper_antimodes")

    @property
    def scatter_components(self) -> tuple[int, int]:
        """PNS components (0-based) on the x and y axes of the scores scatter."""
        return self._scatter

    def set_scatter_components(self, i: int, j: int) -> None:
        """Choose the PNS components of the scores scatter (0-based, different).

        Emits ``view_options_changed`` on a change.
        """
        i, j = int(i), int(j)
        d = self._n_angles()
        if not (0 <= i < d and 0 <= j < d) or (i == j and d > 1):
            raise ValueError(f"scatter components must be two different indices in 0..{d - 1}, "
                             f"got ({i}, {j})")
        if (i, j) != self._scatter:
            self._scatter = (i, j)
            self.view_options_changed.emit("scatter_components")

    @property
    def torus_axes(self) -> tuple[int, ...]:
        """Angle columns (0-based) drawn on the 3-D torus: min(d, 3) different indices."""
        return self._torus_axes

    def set_torus_axes(self, axes: tuple[int, ...]) -> None:
        """Choose the angle columns of the 3-D torus (matters when d > 3).

        Emits ``view_options_changed`` on a change. The choice stays for the results of
        this data set (else each new result shows the angles its curve moves most).
        """
        values = tuple(int(a) for a in axes)
        d = self._n_angles()
        want = min(d, 3)
        if len(values) != want or len(set(values)) != want or not all(
                0 <= a < d for a in values):
            raise ValueError(f"torus axes must be {want} different indices in 0..{d - 1}, "
                             f"got {tuple(axes)}")
        self._torus_axes_chosen = True
        if values != self._torus_axes:
            self._torus_axes = values
            self.view_options_changed.emit("torus_axes")

    def show_moving_torus_axes(self) -> None:
        """Show the default angles on the torus again: those the principal curve moves
        most (before a fit, those with the largest spread); later results pick theirs.

        Emits ``view_options_changed`` on a change.
        """
        dataset = self._dataset
        if dataset is None:
            raise ValueError("no data set is loaded")
        self._torus_axes_chosen = False
        axes = moving_axes(dataset.angles, None if self._result is None else self._result.curve)
        if axes != self._torus_axes:
            self._torus_axes = axes
            self.view_options_changed.emit("torus_axes")

    def _n_angles(self) -> int:
        if self._dataset is None:
            raise ValueError("no data set is loaded")
        return self._dataset.n_angles
