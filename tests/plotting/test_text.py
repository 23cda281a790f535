"""Descriptions are cut at a clause, never inside a number (issue 31, item 6: the demo's
description read "(0, -1, 3), 10…")."""

from __future__ import annotations

from stpca_gui.core import make_demo
from stpca_gui.plotting.text import cut_at_clause


def test_a_long_description_is_cut_after_a_whole_sentence():
    description = make_demo("clusters-t3", random_state=0).description
    assert len(description) > 160
    shown = cut_at_clause(description, 160)
    assert len(shown) <= 160 and shown.endswith(". …")
    assert description.startswith(shown[:-2])
    assert cut_at_clause("short text", 160) == "short text"
    assert cut_at_clause("word " * 50, 40).endswith("word …")
