"""The Parameters panel is made from the estimator's declarations."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from stpca_gui.core import ScaledTorusPCA
from stpca_gui.model import FitParameters

pytestmark = pytest.mark.usefixtures("display")


@pytest.fixture
def panel(qtbot):
    from stpca_gui.gui.panels import ParametersPanel

    widget = ParametersPanel()
    qtbot.addWidget(widget)
    return widget


def test_one_editor_per_offered_parameter_with_the_app_defaults(panel):
    offered = [s.name for s in ScaledTorusPCA.parameter_specs() if s.offered]
    assert list(panel.editors) == offered
    assert panel.parameters() == FitParameters()
    assert not panel.editors["radius"].number.isEnabled()  # "estimate" is chosen


def test_values_round_trip_through_the_editors(panel):
    chosen = FitParameters(radius=2.25, pns_mode="great", n_curve_points=40, random_state=9,
                           n_init=4, optimizer="paper", tol=3e-7, max_iter=55, alpha=0.05,
                           n_bootstrap=17, torus_variance=False)
    panel.set_parameters(chosen)
    assert panel.parameters() == chosen
    assert panel.editors["radius"].number.isEnabled()
    assert panel.editors["tol"].number.text() == "3e-07"
    panel.set_parameters(FitParameters())
    assert panel.parameters() == FitParameters()


def test_editors_cannot_leave_the_allowed_range(panel):
    curve = panel.editors["n_curve_points"].number
    alpha = panel.editors["alpha"].number
    assert (curve.minimum(), curve.maximum()) == (3, 100_000)
    assert (alpha.minimum(), alpha.maximum()) == (0.0, 1.0)
    curve.setValue(1)
    assert panel.parameters().n_curve_points == 3
