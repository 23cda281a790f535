"""The Parameters panel is made from the estimator's declarations."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from stpca_gui.core import ModeClusterSettings, ScaledTorusPCA
from stpca_gui.model import FitParameters

pytestmark = pytest.mark.usefixtures("display")


@pytest.fixture
def panel(qtbot):
    from stpca_gui.gui.panels import ParametersPanel

    widget = ParametersPanel()
    qtbot.addWidget(widget)
    return widget


def test_one_editor_per_offered_parameter_with_the_app_defaults(panel):
    offered = [s.name for s in (*ScaledTorusPCA.parameter_specs(),
                                *ModeClusterSettings.parameter_specs()) if s.offered]
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


def _row_label(panel, name: str) -> str:
    """The text of the form label beside a parameter's editor."""
    from PySide6.QtWidgets import QFormLayout

    editor = panel.editors[name]
    for form in panel.findChildren(QFormLayout):
        label = form.labelForField(editor)
        if label is not None:
            return label.text()
    raise AssertionError(f"no label for {name}")


def test_the_pns_and_mode_test_levels_are_two_labelled_editors(panel):
    # Issue 30: the panel showed one "Test level α" (PNS's); the mode test's level had no
    # editor. Now each has its own, named and explained, and the cluster rule one too.
    assert _row_label(panel, "alpha") == "PNS test level"
    assert _row_label(panel, "mode_alpha") == "Mode test level"
    assert _row_label(panel, "cluster_rule") == "Cluster rule"
    pns_tip, mode_tip = panel.editors["alpha"].toolTip(), panel.editors["mode_alpha"].toolTip()
    assert "Significance level of PNS" in pns_tip and "Not the mode test level" in pns_tip
    assert "Significance level of the mode test" in mode_tip
    assert "Allowed: a number in (0, 1)." in mode_tip
    rule = panel.editors["cluster_rule"].choice
    assert [rule.itemText(k) for k in range(rule.count())] == ["tested modes",
                                                               "every mode (paper)"]
    level = panel.editors["mode_alpha"].number
    assert 0.0 < level.minimum() < 1e-9 and 1.0 - 1e-9 < level.maximum() < 1.0  # (0, 1)
    level.setValue(1.0)
    panel.parameters()  # the largest level the box takes is allowed
    assert _row_label(panel, "mode_null") == "Mode test null"
    null = panel.editors["mode_null"].choice
    assert [null.itemText(k) for k in range(null.count())] == ["critical-bandwidth KDE",
                                                               "von Mises mixture"]
    assert "docs/mode_test.md" in panel.editors["mode_null"].toolTip()


def test_mode_cluster_settings_round_trip_through_the_editors(panel):
    chosen = FitParameters(alpha=0.2, cluster_rule="paper", mode_alpha=0.01,
                           mode_null="mixture")
    panel.set_parameters(chosen)
    assert panel.editors["cluster_rule"].choice.currentText() == "every mode (paper)"
    assert panel.editors["mode_null"].choice.currentText() == "von Mises mixture"
    assert panel.parameters() == chosen
    assert panel.parameters().mode_cluster_settings().get_params() == {
        "cluster_rule": "paper", "mode_alpha": 0.01, "mode_null": "mixture"}


@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_settings_with_both_levels_fit_the_window(window, qtbot, gui_dir, size):
    # With More settings open the side column needs more height than a laptop screen has
    # (1007 px before it scrolled): it scrolls, and the window keeps the size asked for.
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QFormLayout, QLabel

    panel = window.parameters
    panel.more.expand(animate=False)
    window.resize(*size)
    for _ in range(3):
        QCoreApplication.processEvents()
    qtbot.wait(100)
    picture = window.grab()
    picture.save(str(gui_dir / f"parameters-levels-{size[0]}x{size[1]}.png"))
    assert (picture.width(), picture.height()) == size
    shown = {}
    for form in panel.findChildren(QFormLayout):
        for row in range(form.rowCount()):
            item = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
            if item is not None and isinstance(item.widget(), QLabel):
                label = item.widget()
                shown[label.text()] = label.width() >= label.sizeHint().width()
    assert shown["Cluster rule"] and shown["PNS test level"] and shown["Mode test level"]
    assert shown["Mode test null"]
    for name in ("cluster_rule", "mode_null"):
        combo = panel.editors[name].choice
        assert combo.width() >= combo.minimumSizeHint().width()


def test_the_pns_levels_fitted_exactly_offer_all_or_a_number(panel, qtbot, gui_dir):
    # Issue 32: PNS at high dimension reduces the levels between the first and the last
    # `pns_exact_levels`; the panel offers every level (exact) or a number, default 12.
    editor = panel.editors["pns_exact_levels"]
    assert _row_label(panel, "pns_exact_levels") == "Levels fitted exactly"
    assert editor.choice.itemText(0) == "all levels (exact)"
    assert editor.value() == 12 and editor.number.isEnabled()
    assert "reduced in one step" in editor.toolTip()
    for chosen in ("all", 8):
        panel.set_parameters(FitParameters(pns_exact_levels=chosen))
        assert panel.parameters().pns_exact_levels == chosen
    assert editor.value() == 8
    panel.more.expand(animate=False)
    panel.resize(420, 950)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.wait(50)
    picture = panel.grab()
    picture.save(str(gui_dir / "parameters-pns-exact-levels.png"))
    assert editor.isVisible() and editor.width() >= editor.minimumSizeHint().width()


@pytest.mark.parametrize("expanded", [False, True], ids=["closed", "more-settings"])
def test_no_editor_is_clipped_in_the_side_column_at_1280x800(window, qtbot, gui_dir, expanded):
    # Since "Levels fitted exactly" joined More settings the panel needed 327 px where the
    # side column gives it 292: every editor's right edge was cut off. Open-ended whole
    # numbers (seed, landmarks) sized for the ten digits of 2³¹ − 1, and the More settings
    # form added margins of its own inside the collapsible's.
    from PySide6.QtCore import QCoreApplication, QPoint
    from PySide6.QtWidgets import QAbstractSpinBox, QComboBox

    panel = window.parameters
    if expanded:
        panel.more.expand(animate=False)
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    for _ in range(3):
        QCoreApplication.processEvents()
    shown = "open" if expanded else "closed"
    window.grab().save(str(gui_dir / f"parameters-fit-1280x800-{shown}.png"))
    assert panel.minimumSizeHint().width() <= panel.width()
    viewport = panel.settings_area.viewport()
    clipped = []
    for box in [*panel.findChildren(QAbstractSpinBox), *panel.findChildren(QComboBox)]:
        if not box.isVisible():
            continue
        right = box.mapTo(viewport, QPoint(box.width(), 0)).x()
        if right > viewport.width() or box.width() < box.minimumSizeHint().width():
            clipped.append(f"{box.parentWidget().spec.name}: right edge {right} of "
                           f"{viewport.width()} px, width {box.width()} < "
                           f"{box.minimumSizeHint().width()}")
    assert not clipped, clipped


def test_an_open_ended_number_box_is_narrow_but_takes_the_whole_range(panel):
    seed = panel.editors["random_state"].number
    bounded = panel.editors["n_curve_points"].number  # up to 100 000: six digits
    assert seed.minimumSizeHint().width() <= bounded.minimumSizeHint().width()
    seed.setValue(2**31 - 1)
    assert panel.parameters().random_state == 2**31 - 1
