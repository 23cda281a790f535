"""Live fits in the main window: the sphere view follows the SMDS configuration.

Every fit's :class:`~stpca_gui.model.live_fit.SMDSSnapshot` s (relayed by the
:class:`~stpca_gui.gui.fit_controller.FitController` a few times a second) go to the sphere view
while the fit runs; the result replaces them, and a cancelled or failed fit gives the
view back its previous result. (Orange's MDS widget redraws the same way while it
optimises.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import Dataset
from ..model.live_fit import SMDSSnapshot

if TYPE_CHECKING:
    from .window_services import WindowServices

__all__ = ["connect_live_fit"]


def connect_live_fit(window: WindowServices) -> None:
    """Send the window's fit snapshots to its sphere view (once the view exists)."""

    def sphere_view():
        return window.views.get("sphere")

    def on_snapshot(snapshot: SMDSSnapshot, dataset: Dataset) -> None:
        view = sphere_view()
        if view is not None and dataset is window.state.dataset:
            view.show_configuration(snapshot)

    def on_ended(*_: object) -> None:
        view = sphere_view()
        if view is not None:
            view.clear_configuration()

    controller = window.controller
    controller.smds_snapshot.connect(on_snapshot)
    controller.cancelled.connect(on_ended)
    controller.failed.connect(on_ended)
