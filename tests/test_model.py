"""Application state layer: selection algebra and undo, data sets, analysis runs, session."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from stpca_gui.core import make_demo
from stpca_gui.io import read_angle_table
from stpca_gui.model import (
    MAX_GROUPS,
    AnalysisResult,
    AppState,
    Dataset,
    FitCancelled,
    FitParameters,
    ProgressEvent,
    RecentFiles,
    SelectionModel,
    run_analysis,
)


def mask_of(n: int, indices: list[int]) -> np.ndarray:
    m = np.zeros(n, dtype=bool)
    m[indices] = True
    return m


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def __call__(self, *args) -> None:
        self.calls.append(args)


# --------------------------------------------------------------------------- selection
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


# ----------------------------------------------------------------------------- dataset
def test_dataset_from_demo():
    ds = Dataset.from_demo("clusters-t3", random_state=2)
    demo = make_demo("clusters-t3", random_state=2)
    assert ds.n_samples == 300 and ds.n_angles == 3
    assert np.array_equal(ds.angles, demo.angles)
    assert ds.source == "demo:clusters-t3" and ds.name == "clusters-t3" and ds.is_demo
    assert ds.column_names == ("theta1", "theta2", "theta3")
    assert ds.has_labels and ds.labels.dtype.kind == "U"
    assert np.array_equal(ds.label_codes(), demo.labels)
    assert ds.row_ids.tolist() == list(range(1, 301))
    assert ds.dropped == () and "T³" in ds.description
    assert not ds.angles.flags.writeable
    with pytest.raises(ValueError, match="valid names"):
        Dataset.from_demo("nope")


def test_dataset_from_table_with_degrees_labels_and_dropped_rows(tmp_path):
    path = tmp_path / "angles.csv"
    path.write_text("phi,psi,kind\n"
                    "-60,140,beta\n"
                    "-65,-40,alpha\n"
                    "oops,10,alpha\n"
                    "170,190,beta\n"
                    "-70,-35,gamma\n")
    table = read_angle_table(path, ["phi", "psi"], degrees=True, label_column="kind",
                             drop_invalid=True)
    ds = Dataset.from_table(table, degrees=True)
    assert ds.n_samples == 4 and ds.n_angles == 2
    assert ds.column_names == ("phi", "psi")
    assert ds.row_ids.tolist() == [2, 3, 5, 6]
    assert [line for line, _ in ds.dropped] == [4]
    assert ds.unit_note == "converted from degrees"
    assert ds.source == str(path) and ds.name == "angles.csv"
    assert np.allclose(ds.angles[0], np.deg2rad([-60, 140]))
    assert np.allclose(ds.angles[2], np.deg2rad([170, -170]))  # 190° wrapped
    assert ds.label_names() == ("alpha", "beta", "gamma")  # legends in natural order
    assert ds.label_codes().tolist() == [1, 0, 1, 2]
    assert "1 rows skipped" in ds.description

    plain = Dataset.from_table(read_angle_table(path, ["phi", "psi"], drop_invalid=True))
    assert not plain.has_labels and plain.label_codes().tolist() == [0, 0, 0, 0]
    assert "degrees" in plain.unit_note  # values beyond 2π read as radians


def test_dataset_validation():
    with pytest.raises(ValueError, match="2-D"):
        Dataset(angles=np.zeros(5))
    with pytest.raises(ValueError, match="column names"):
        Dataset(angles=np.zeros((5, 2)), column_names=("a",))
    with pytest.raises(ValueError, match="labels"):
        Dataset(angles=np.zeros((5, 2)), labels=["a"] * 4)
    ds = Dataset(angles=[[4.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert ds.angles[0, 0] == pytest.approx(4.0 - 2 * math.pi)
    assert ds.name == "untitled" and ds.column_names == ("theta1", "theta2")


# ---------------------------------------------------------------------------- analysis
@pytest.mark.parametrize(("changes", "message"), [
    ({"radius": -1.0}, "radius (Sphere radius) must be 'auto' or a positive number; got -1.0"),
    ({"radius": "big"}, "radius (Sphere radius) must be 'auto' or a positive number; got 'big'"),
    ({"radius": float("nan")}, "radius (Sphere radius) must be 'auto' or a positive number"),
    ({"pns_mode": "tiny"}, "pns_mode (PNS mode) must be one of 'seq.test', 'small', 'great', "
                           "'bic'; got 'tiny'"),
    ({"n_curve_points": 2}, "n_curve_points (Curve points) must be an integer in [3, 100000]; "
                            "got 2"),
    ({"n_curve_points": 10.5}, "n_curve_points"),
    ({"random_state": -3}, "random_state (Seed) must be None, an integer >= 0 or a numpy "
                           "Generator or SeedSequence; got -3"),
    ({"n_init": 0}, "n_init (SMDS starts) must be an integer in [1, 1000]; got 0"),
    ({"optimizer": "adam"}, "optimizer (SMDS optimiser) must be one of 'lbfgs', 'paper'; "
                            "got 'adam'"),
    ({"torus_variance": "yes"}, "torus_variance (Torus variance) must be True or False; "
                                "got 'yes'"),
    ({"torus_variance": 1}, "torus_variance (Torus variance) must be True or False; got 1"),
    ({"tol": 0.0}, "tol (SMDS tolerance) must be a number in (0, 1); got 0.0"),
    ({"max_iter": True}, "max_iter (SMDS iterations (max)) must be an integer in [1, 1000000]"),
    ({"alpha": 1.5}, "alpha (Test level α) must be a number in [0, 1]; got 1.5"),
    ({"n_bootstrap": 0}, "n_bootstrap (Bootstrap samples) must be an integer in [1, 100000]"),
])
def test_fit_parameters_validation(changes, message):
    params = FitParameters(**changes)
    with pytest.raises(ValueError) as info:
        params.validate()
    assert message in str(info.value)
    with pytest.raises(ValueError, match="must be"):  # the estimator refuses it at fit
        params.to_estimator().fit(np.zeros((5, 2)))


def test_fit_parameters_to_estimator():
    FitParameters().validate()
    chosen = dict(radius=2, pns_mode="bic", n_curve_points=50, random_state=7, n_init=3,
                  optimizer="paper", tol=1e-3, max_iter=30, alpha=0.05, n_bootstrap=20,
                  torus_variance=False)
    est = FitParameters(**chosen).to_estimator()
    assert {name: est.get_params()[name] for name in chosen} == chosen
    assert FitParameters().to_estimator().radius == "auto"


@pytest.fixture(scope="module")
def clusters_result() -> tuple[AnalysisResult, list[ProgressEvent]]:
    events: list[ProgressEvent] = []
    ds = Dataset.from_demo("clusters-t2")
    result = run_analysis(ds, FitParameters(random_state=0), callback=events.append)
    return result, events


def test_run_analysis_computes_both_rules_in_its_thread(clusters_result):
    # The Result panel shows both rules: neither may be left for the GUI thread, and the
    # tested rule's boundaries are the paper rule's clusters computed once.
    result, _ = clusters_result
    paper, tested = result.paper_mode_clusters, result.mode_clusters
    assert paper is not None
    assert paper.method == "paper" and tested.method == "tested"
    assert tested.n_clusters == paper.n_clusters == 3
    np.testing.assert_array_equal(tested.antimodes, paper.antimodes)


def test_run_analysis_on_clusters_separates_the_labels(clusters_result):
    result, events = clusters_result
    ds = result.dataset
    assert result.scores.shape == (300, 2)
    assert np.array_equal(result.pns1, result.scores[:, 0])
    assert result.pns1_period == pytest.approx(2 * math.pi * result.model.pns_.circle_radius_)
    assert np.all(np.abs(result.pns1) <= result.pns1_period / 2 + 1e-9)
    # Around the principal circle the three clusters occupy three disjoint arcs: walking
    # once around, the label changes exactly three times.
    order = np.argsort(result.pns1)
    codes = ds.label_codes()[order]
    assert np.count_nonzero(codes != np.roll(codes, 1)) == 3
    assert result.sphere_ratio.sum() == pytest.approx(1.0)
    assert result.sphere_ratio[0] > 0.9 and result.torus_ratio[0] > 0.9
    assert result.wall_time > 0 and result.parameters == FitParameters(random_state=0)
    assert result.curve.angles.shape == (100, 2)
    stages = [e.stage for e in events]
    assert stages[0] == "smds-start" and stages[-1] == "done"
    assert {"pns", "curve", "torus-variance"} <= set(stages)


def test_summary_rows(clusters_result):
    result, _ = clusters_result
    rows = dict(result.summary_rows())
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in rows.items())
    assert rows["samples n"] == "300" and rows["angles d"] == "2"
    assert rows["stress"].startswith(f"{result.stress:.5f}")
    assert float(rows["fitted radius r̂"]) == pytest.approx(result.radius, abs=1e-4)
    assert "start radius r*" in rows
    assert rows["sphere variance"].startswith(f"{100 * result.sphere_ratio[0]:.1f} / ")
    assert rows["torus variance"].endswith(" % (PNS1 first)")
    assert "small" in rows["PNS spheres"] or "great" in rows["PNS spheres"]
    assert rows["time per stage"].startswith("smds ") and "time: total" in rows


def test_run_analysis_can_be_cancelled():
    ds = Dataset.from_demo("clusters-t2")
    seen: list[str] = []

    def stop_at_pns(event: ProgressEvent) -> bool:
        seen.append(event.stage)
        return event.stage == "pns"

    with pytest.raises(FitCancelled):
        run_analysis(ds, FitParameters(torus_variance=False), callback=stop_at_pns)
    assert seen[-1] == "pns" and "done" not in seen

    with pytest.raises(FitCancelled):
        run_analysis(ds, FitParameters(), callback=lambda e: e.iteration >= 2)


def test_run_analysis_rejects_bad_parameters_before_fitting():
    with pytest.raises(ValueError, match="n_init"):
        run_analysis(Dataset.from_demo("clusters-t2"), FitParameters(n_init=0))


# ----------------------------------------------------------------------------- session
def _fake_result(ds: Dataset) -> AnalysisResult:
    return AnalysisResult(model=None, parameters=FitParameters(), dataset=ds,  # type: ignore[arg-type]
                          wall_time=0.0, mode_clusters=None)  # type: ignore[arg-type]


def test_app_state_dataset_result_and_selection():
    state = AppState()
    log: list[tuple] = []
    state.dataset_changed.connect(lambda ds: log.append(("dataset", ds)))
    state.result_changed.connect(lambda r: log.append(("result", r)))
    state.view_options_changed.connect(lambda name: log.append(("views", name)))
    state.selection.changed.connect(lambda src: log.append(("selection", src)))

    t3 = Dataset.from_demo("clusters-t3")
    state.set_dataset(t3)
    assert state.dataset is t3 and state.result is None
    assert len(state.selection) == 300
    assert state.scatter_components == (0, 1) and state.torus_axes == (0, 1, 2)
    assert [entry[0] for entry in log] == ["dataset", "selection"]

    result = _fake_result(t3)
    state.set_result(result)
    assert state.result is result and log[-1] == ("result", result)
    state.set_result(result)  # same object: no signal
    assert sum(entry[0] == "result" for entry in log) == 1

    state.selection.apply([0, 1, 2], "add")
    state.set_scatter_components(2, 0)
    log.clear()

    t2 = Dataset.from_demo("wrapped-normal-t2")
    handler_saw: list = []
    state.dataset_changed.connect(
        lambda ds: handler_saw.append((state.result, len(state.selection))))
    state.set_dataset(t2)
    # Everything is consistent before the first signal; then the signals in order.
    assert handler_saw == [(None, 500)]
    assert [entry[0] for entry in log] == ["dataset", "result", "selection", "views", "views"]
    assert log[-2:] == [("views", "scatter_components"), ("views", "torus_axes")]
    assert state.result is None and not state.selection.mask().any()
    assert state.scatter_components == (0, 1) and state.torus_axes == (0, 1)
    assert not state.selection.can_undo

    with pytest.raises(ValueError, match="another data set"):
        state.set_result(_fake_result(t3))
    with pytest.raises(ValueError, match="another data set"):
        state.set_result(_fake_result(Dataset.from_demo("wrapped-normal-t2")))
    assert state.result is None
    state.set_dataset(t2)  # same data set: nothing happens
    assert log.count(("dataset", t2)) == 1


def test_app_state_colour_mode_and_view_options():
    state = AppState()
    modes = Recorder()
    views = Recorder()
    state.color_mode_changed.connect(modes)
    state.view_options_changed.connect(views)
    assert state.color_mode == "label"
    state.set_color_mode("label")
    state.set_color_mode("pns1")
    assert modes.calls == [("pns1",)]
    with pytest.raises(ValueError, match="label, pns1, cluster, stress, selection"):
        state.set_color_mode("rainbow")
    assert state.effective_color_mode == "selection"  # no result yet

    with pytest.raises(ValueError, match="no data set"):
        state.set_scatter_components(0, 1)
    state.set_dataset(Dataset(angles=np.random.default_rng(0).uniform(-3, 3, (20, 5))))
    views.calls.clear()
    state.set_torus_axes((4, 0, 2))
    state.set_torus_axes((4, 0, 2))
    state.set_scatter_components(3, 4)
    assert views.calls == [("torus_axes",), ("scatter_components",)]
    assert state.torus_axes == (4, 0, 2) and state.scatter_components == (3, 4)
    for bad in [(0, 1), (0, 0, 1), (0, 1, 5)]:
        with pytest.raises(ValueError, match="torus axes"):
            state.set_torus_axes(bad)
    for bad in [(1, 1), (0, 5)]:
        with pytest.raises(ValueError, match="scatter components"):
            state.set_scatter_components(*bad)
    state.set_color_mode("label")
    assert state.effective_color_mode == "selection"  # this data set has no labels
    state.set_dataset(Dataset.from_demo("clusters-t2"))
    assert state.effective_color_mode == "label"


# ------------------------------------------------------------------------------ recent
def test_recent_files_order_dedupe_bound_and_persistence(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "config" / "recent.json"  # the folder does not exist yet
    recent = RecentFiles(store)
    assert recent.paths() == []
    files = []
    for k in range(12):
        f = tmp_path / f"f{k}.csv"
        f.write_text("1,2\n")
        files.append(f)
        recent.add(f)
    assert len(recent) == 10
    assert recent.paths()[0] == str(files[11]) and recent.paths()[-1] == str(files[2])
    recent.add("f5.csv")  # relative spelling of an existing entry moves it to the front
    recent.add(tmp_path / "sub" / ".." / "f5.csv")
    assert recent.paths()[0] == str(files[5]) and len(recent) == 10
    assert recent.paths().count(str(files[5])) == 1
    assert files[5] in recent and "nope.csv" not in recent

    data = json.loads(store.read_text())
    assert data["recent"] == recent.paths()
    assert RecentFiles(store).paths() == recent.paths()
    assert not any(p.name.startswith(f".{store.stem}.") for p in store.parent.iterdir())

    files[11].unlink()
    files[9].unlink()
    assert recent.prune() == [str(files[11]), str(files[9])]
    assert len(recent) == 8 and RecentFiles(store).paths() == recent.paths()
    assert recent.remove(files[5]) and not recent.remove(files[5])
    recent.clear()
    assert RecentFiles(store).paths() == []


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe\x00garbage", b'{"recent": 5}',
                                     b'[1, null, "", "/x/a.csv", "/x/a.csv"]', b"null"])
def test_recent_files_tolerates_corrupt_store(tmp_path, content):
    store = tmp_path / "recent.json"
    store.write_bytes(content)
    recent = RecentFiles(store)
    expected = [os.path.normpath(os.path.abspath("/x/a.csv"))] if b"/x/a.csv" in content else []
    assert recent.paths() == expected
    recent.add(tmp_path / "b.csv")  # and it can be overwritten with a good file
    assert json.loads(store.read_text())["recent"][0] == str(tmp_path / "b.csv")


def test_recent_files_missing_store_and_small_bound(tmp_path):
    recent = RecentFiles(tmp_path / "absent.json", max_entries=2, autosave=False)
    for name in "abc":
        recent.add(tmp_path / name)
    assert [os.path.basename(p) for p in recent] == ["c", "b"]
    assert not (tmp_path / "absent.json").exists()  # autosave off
    recent.save()
    assert RecentFiles(tmp_path / "absent.json").paths() == recent.paths()


@pytest.mark.parametrize(("labels", "names"), [
    (["II", "V", "I", "II"], ["I", "II", "V"]),  # the small RNA's clusters, by value
    (["IX", "V", "X", "IV"], ["IV", "V", "IX", "X"]),
    (["site 10", "site 2", "Site 1", "noise"], ["noise", "Site 1", "site 2", "site 10"]),
    ([3, 10, 1], ["1", "3", "10"]),
])
def test_labels_are_encoded_in_natural_order(labels, names):
    from stpca_gui.model.dataset import encode_labels

    codes, found = encode_labels(labels)
    assert found == names
    assert [found[c] for c in codes] == [str(label) for label in labels]


@pytest.mark.parametrize(("names", "expected"), [
    (["V", "I", "II", "IV", "XII"], ["I", "II", "IV", "V", "XII"]),  # clusters by value
    (["site 10", "site 2", "Site 1"], ["Site 1", "site 2", "site 10"]),  # numbers by value
    (["M", "C", "L", "D"], ["C", "D", "L", "M"]),  # amino-acid codes are letters
    (["II", "beta", "I"], ["beta", "I", "II"]),  # not all numerals: natural order
])
def test_label_order_reads_numerals_and_numbers_by_value(names, expected):
    from stpca_gui.model.dataset import encode_labels, label_order

    assert [names[k] for k in label_order(names)] == expected
    codes, ordered = encode_labels(np.array(names))
    assert ordered == expected
    assert [ordered[c] for c in codes] == names
