"""The Result panel names clusters of fewer than 5 points, reached as a user would: the
mixture null chosen in the Parameters panel, the demo fitted in the window."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from gui_probes import FIT_TIMEOUT_MS, fit_shown

from stpca_gui.model import Dataset, FitParameters

pytestmark = pytest.mark.usefixtures("display")


def test_the_result_panel_names_a_lone_point_cluster_readably_at_1280x800(
        window, qtbot, gui_dir):
    from PySide6.QtCore import QCoreApplication

    window.parameters.set_parameters(FitParameters(mode_null="mixture"))
    fit_shown(qtbot, window, Dataset.from_demo("clusters-t2", random_state=0))
    table = window.summary.table
    labels = [table.item(r, 0).text() for r in range(table.rowCount())]
    row = labels.index("small clusters")
    assert table.item(row, 1).text().startswith(
        "cluster 4 (1 point) has fewer than 5 points: a mode this small")
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    # rows take the height of their wrapped text once the layout has settled
    qtbot.waitUntil(lambda: table.rowHeight(row) >= table.sizeHintForRow(row) > 0)
    table.scrollToItem(table.item(row, 1))
    for _ in range(3):
        QCoreApplication.processEvents()
    window.grab().save(str(gui_dir / "small-clusters-1280x800.png"))
    # the whole wrapped text is in view, not cut by the panel
    assert table.viewport().rect().contains(table.visualItemRect(table.item(row, 1)))
    # the default null's three clusters of 100 name none
    window.parameters.set_parameters(FitParameters())
    with qtbot.waitSignal(window.result_shown, timeout=FIT_TIMEOUT_MS):
        window.fit()
    assert "small clusters" not in [table.item(r, 0).text() for r in range(table.rowCount())]
