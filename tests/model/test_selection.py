"""The selection model: its algebra over groups, signals, undo and redo."""

from __future__ import annotations

import numpy as np
import pytest
from recorder import Recorder

from stpca_gui.model import (
    MAX_GROUPS,
    SelectionModel,
)


def mask_of(n: int, indices: list[int]) -> np.ndarray:
    m = np.zeros(n, dtype=bool)
    m[indices] = True
    return m



class TestSelectionAlgebra:
    def setup_method(self) -> None:
        # group 1 = {0, 1, 2}, group 2 = {5, 6}
        self.sel = SelectionModel(8)
        self.sel.set_groups([1, 1, 1, 0, 0, 2, 2, 0])

    def test_replace_clears_the_active_group_only_and_takes_over_members(self):
        self.sel.apply(mask_of(8, [2, 3, 6]), "replace")
        # 0, 1 leave group 1; 6 moves from group 2 to group 1; 5 stays in group 2.
        assert self.sel.groups.tolist() == [0, 0, 1, 1, 0, 2, 1, 0]

    def test_add(self):
        self.sel.apply(mask_of(8, [3, 5]), "add")
        assert self.sel.groups.tolist() == [1, 1, 1, 1, 0, 1, 2, 0]

    def test_subtract_only_touches_the_active_group(self):
        self.sel.apply(mask_of(8, [0, 5, 7]), "subtract")
        assert self.sel.groups.tolist() == [0, 1, 1, 0, 0, 2, 2, 0]

    def test_intersect_keeps_active_members_in_mask(self):
        self.sel.apply(mask_of(8, [1, 2, 4, 6]), "intersect")
        # group 1 ∩ mask = {1, 2}; 4 is not added; group 2 untouched.
        assert self.sel.groups.tolist() == [0, 1, 1, 0, 0, 2, 2, 0]

    def test_operations_on_another_active_group(self):
        self.sel.active_group = 2
        self.sel.apply(mask_of(8, [6, 7]), "intersect")
        assert self.sel.groups.tolist() == [1, 1, 1, 0, 0, 0, 2, 0]
        self.sel.apply(mask_of(8, [0, 4]), "add")
        assert self.sel.groups.tolist() == [2, 1, 1, 0, 2, 0, 2, 0]
        self.sel.apply(mask_of(8, [1, 2, 4]), "subtract")  # 1, 2 are group 1: untouched
        assert self.sel.groups.tolist() == [2, 1, 1, 0, 0, 0, 2, 0]
        self.sel.active_group = 3
        self.sel.apply([3], "replace")  # integer indices
        assert self.sel.groups.tolist() == [2, 1, 1, 3, 0, 0, 2, 0]

    def test_mask_counts_and_clear_group(self):
        assert self.sel.mask().tolist() == [1, 1, 1, 0, 0, 1, 1, 0]
        assert self.sel.mask(2).tolist() == [0, 0, 0, 0, 0, 1, 1, 0]
        counts = self.sel.counts()
        assert counts.tolist() == [3, 3, 2, 0, 0, 0, 0]
        assert len(counts) == MAX_GROUPS + 1 and self.sel.n_selected == 5
        self.sel.clear_group(1)
        assert self.sel.groups.tolist() == [0, 0, 0, 0, 0, 2, 2, 0]
        self.sel.clear()
        assert not self.sel.mask().any()

    def test_groups_is_a_read_only_live_view(self):
        view = self.sel.groups
        assert view.dtype in (np.int8, np.int16)
        with pytest.raises(ValueError):
            view[0] = 3
        self.sel.apply(mask_of(8, [7]), "add")
        assert view[7] == 1

    def test_bad_input(self):
        with pytest.raises(ValueError, match="unknown selection mode 'xor'"):
            self.sel.apply(mask_of(8, [0]), "xor")
        with pytest.raises(ValueError, match=r"shape \(8,\)"):
            self.sel.apply(np.ones(7, dtype=bool), "add")
        with pytest.raises(ValueError, match="out of range"):
            self.sel.apply([8], "add")
        with pytest.raises(ValueError, match=r"1\.\.6"):
            self.sel.active_group = 7
        with pytest.raises(ValueError, match=r"1\.\.6"):
            self.sel.active_group = 0
        with pytest.raises(ValueError, match=r"0\.\.6"):
            self.sel.set_groups([0, 0, 0, 0, 0, 0, 0, 9])
        with pytest.raises(ValueError):
            self.sel.clear_group(0)
        assert self.sel.groups.tolist() == [1, 1, 1, 0, 0, 2, 2, 0]


class TestSelectionSignalsAndHistory:
    def test_changed_once_per_effective_change_with_source(self):
        sel = SelectionModel(6)
        rec = Recorder()
        sel.changed.connect(rec)
        assert sel.apply(mask_of(6, [0, 1]), "replace", source="scores")
        assert rec.calls == [("scores",)]
        # No-ops: same replace again, add of members, subtract of non-members, empty clear.
        assert not sel.apply(mask_of(6, [0, 1]), "replace", source="scores")
        assert not sel.apply(mask_of(6, [1]), "add", source="torus")
        assert not sel.apply(mask_of(6, [4]), "subtract")
        assert not sel.apply(mask_of(6, [0, 1, 3]), "intersect")
        assert not sel.clear_group(2)
        assert len(rec.calls) == 1
        sel.clear(source="toolbar")
        assert not sel.clear()
        assert rec.calls == [("scores",), ("toolbar",)]

    def test_active_group_signal(self):
        sel = SelectionModel(3)
        rec = Recorder()
        sel.active_group_changed.connect(rec)
        sel.active_group = 1  # unchanged (default)
        sel.active_group = 4
        assert rec.calls == [(4,)] and sel.active_group == 4

    def test_undo_redo_round_trip(self):
        sel = SelectionModel(6)
        rec = Recorder()
        states = [sel.groups.copy()]
        sel.apply(mask_of(6, [0, 1, 2]), "replace")
        states.append(sel.groups.copy())
        sel.active_group = 2
        sel.apply(mask_of(6, [2, 3]), "add")
        states.append(sel.groups.copy())
        sel.apply(mask_of(6, [0, 5]), "replace")
        states.append(sel.groups.copy())
        sel.changed.connect(rec)
        assert not sel.can_redo
        for expected in reversed(states[:-1]):
            assert sel.undo()
            assert np.array_equal(sel.groups, expected)
        assert not sel.undo() and not sel.can_undo
        for expected in states[1:]:
            assert sel.redo()
            assert np.array_equal(sel.groups, expected)
        assert not sel.redo()
        assert rec.calls == [("undo",)] * 3 + [("redo",)] * 3

    def test_a_new_change_drops_the_redo_branch(self):
        sel = SelectionModel(4)
        sel.apply([0], "add")
        sel.apply([1], "add")
        sel.undo()
        sel.apply([3], "add")
        assert not sel.can_redo
        assert sel.groups.tolist() == [1, 0, 0, 1]
        sel.undo()
        sel.undo()
        assert sel.groups.tolist() == [0, 0, 0, 0]

    def test_history_is_bounded(self):
        sel = SelectionModel(100, history_limit=5)
        for k in range(20):
            sel.apply([k], "add")
        undone = 0
        while sel.undo():
            undone += 1
        assert undone == 5
        assert sel.groups[:15].all() and not sel.groups[15:].any()

    def test_resize_clears_selection_and_history(self):
        sel = SelectionModel(5)
        sel.apply([1, 2], "add")
        rec = Recorder()
        sel.changed.connect(rec)
        sel.resize(7, source="dataset")
        assert sel.n_samples == 7 and not sel.mask().any()
        assert not sel.can_undo and rec.calls == [("dataset",)]
        sel.resize(7)  # already empty, same size: nothing to report
        assert len(rec.calls) == 1
        sel.resize(3)
        assert len(rec.calls) == 2 and len(sel.groups) == 3

    def test_apply_on_100k_samples_records_only_the_changed_samples(self):
        # The undo history stores the positions that changed, not copies of the groups
        # (the apply/undo times are measured by benchmarks/bench_updates.py).
        n = 100_000
        sel = SelectionModel(n)
        rec = Recorder()
        sel.changed.connect(rec)
        rng = np.random.default_rng(0)
        masks = [rng.random(n) < 0.3 for _ in range(8)]
        stored = []
        for mode, m in zip(["replace", "add", "subtract", "intersect"] * 2, masks, strict=True):
            before = sel.groups.copy()
            assert sel.apply(m, mode)
            changed = np.flatnonzero(sel.groups != before)
            stored.append(sel._undo[-1].index.size)
            np.testing.assert_array_equal(np.sort(sel._undo[-1].index), changed)
        assert len(rec.calls) == 8  # one notification per apply
        assert sum(stored) < 8 * n / 2
        before_last = sel.groups.copy()
        assert sel.undo()
        assert len(rec.calls) == 9 and rec.calls[-1] == ("undo",)
        assert np.count_nonzero(sel.groups != before_last) == stored[-1]
