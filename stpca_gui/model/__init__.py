"""Application state shared by the desktop views (Qt-free; psygnal for notifications).

The GUI in :mod:`stpca_gui.gui` holds one :class:`AppState`; every view reads the current
:class:`Dataset`, :class:`AnalysisResult` and :class:`SelectionModel` from it and listens to
its signals. :func:`run_analysis` is what the worker thread runs.
"""

from .analysis import (
    AnalysisResult,
    FitCancelled,
    FitParameters,
    ProgressEvent,
    run_analysis,
)
from .app_state import COLOR_MODES, AppState, ColorMode
from .dataset import Dataset
from .recent import MAX_RECENT, RecentFiles
from .selection import HISTORY_LIMIT, MAX_GROUPS, SELECTION_MODES, SelectionMode, SelectionModel

__all__ = [
    "COLOR_MODES",
    "HISTORY_LIMIT",
    "MAX_GROUPS",
    "MAX_RECENT",
    "SELECTION_MODES",
    "AnalysisResult",
    "AppState",
    "ColorMode",
    "Dataset",
    "FitCancelled",
    "FitParameters",
    "ProgressEvent",
    "RecentFiles",
    "SelectionMode",
    "SelectionModel",
    "run_analysis",
]
