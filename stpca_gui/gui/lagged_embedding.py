"""*Data → Lagged embedding…*: replace the data by the lag-k embedding of one angle series
(:meth:`stpca_gui.model.Dataset.lagged`), and fit it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QInputDialog

from .menus import menu_action

if TYPE_CHECKING:
    from .window_services import WindowServices

__all__ = ["LaggedEmbeddingAction"]


class LaggedEmbeddingAction:
    """The menu action and the embedding it applies to the window's data."""

    def __init__(self, window: WindowServices) -> None:
        self.window = window
        self.action = menu_action(window.widget(), "&Lagged embedding…", self.dialog)

    def dialog(self) -> None:
        """Ask for the series (when there are several) and the number of lags."""
        window, parent = self.window, self.window.widget()
        dataset = window.state.dataset
        if dataset is None:
            window.messages.info("No data", "Open a table of angles first.")
            return
        column = 0
        if dataset.n_angles > 1:
            name, ok = QInputDialog.getItem(parent, "Lagged embedding", "Angle series:",
                                            list(dataset.column_names), 0, False)
            if not ok:
                return
            column = dataset.column_names.index(name)
        lags, ok = QInputDialog.getInt(parent, "Lagged embedding", "Lags k (torus T^k):", 3, 1,
                                       50)
        if ok:
            self.apply(column, lags)

    def apply(self, column: int, lags: int) -> None:
        """Replace the data by the lag-k embedding of one of its columns, and fit it."""
        try:
            lagged = self.window.state.dataset.lagged(column, lags)
        except ValueError as exc:
            self.window.messages.error("Cannot build the lagged embedding", str(exc))
            return
        self.window.set_dataset(lagged)
