"""The Qt binding in use must not corrupt the interpreter over a long session."""

from __future__ import annotations

import sys

import pytest


@pytest.mark.skipif(sys.version_info >= (3, 12),
                    reason="None is immortal from Python 3.12 on (PEP 683): a released "
                           "reference cannot free it")
def test_qt_methods_returning_nothing_keep_the_references_to_none():
    # PySide6 6.12.0 releases one reference to None on every call of a method returning
    # nothing; the app then aborts with "Fatal Python error: none_dealloc" once the count
    # (about 10⁵ at start-up) reaches zero, i.e. after a few thousand selections.
    from PySide6.QtCore import QObject

    obj = QObject()
    calls = 2000
    before = sys.getrefcount(None)
    for _ in range(calls):
        obj.setObjectName("probe")
        obj.blockSignals(False)
    lost = before - sys.getrefcount(None)
    assert lost < calls // 10, f"{lost} references to None lost in {2 * calls} Qt calls"
