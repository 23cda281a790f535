"""State trajectories of a per-frame fit (issue 33 item 4): one array per run, frames in
order, state = cluster − 1; the CSV numbers clusters 1…K."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from stpca_gui.io.state_trajectories import (
    STATES_TABLE,
    state_file_names,
    state_trajectories,
)


def _shuffled_runs(rng):
    """Two runs of 7 and 5 frames (the second with stride 2), rows shuffled."""
    runs = np.array(["a.dcd"] * 7 + ["b.xtc"] * 5)
    frames = np.r_[np.arange(7), np.arange(0, 10, 2)]
    clusters = rng.integers(0, 3, runs.size)
    order = rng.permutation(runs.size)
    provenance = {"trajectory": runs[order], "frame": frames[order].astype(str),
                  "time": (10.0 * frames[order]).astype(str)}
    return provenance, clusters[order], runs, frames, clusters


def test_each_run_is_its_frames_states_in_frame_order():
    provenance, shuffled, runs, frames, clusters = _shuffled_runs(np.random.default_rng(4))
    states = state_trajectories(provenance, shuffled)
    first_run = provenance["trajectory"][0]  # runs in the order they first appear
    assert states.runs[0] == first_run and set(states.runs) == {"a.dcd", "b.xtc"}
    for name, run_frames, run_states in zip(states.runs, states.frames, states.states,
                                            strict=True):
        expected = clusters[runs == name][np.argsort(frames[runs == name])]
        assert run_states.dtype == np.int32
        assert np.array_equal(run_states, expected)
        assert np.array_equal(run_frames, np.sort(frames[runs == name]))
    assert states.gaps == (0, 0)  # stride 2 is b.xtc's step, not a gap
    files = states.files(provenance["time"])
    k = states.runs.index("b.xtc") + 1
    assert np.array_equal(np.load(io.BytesIO(files[f"states_{k}.npy"])),
                          clusters[runs == "b.xtc"])
    rows = list(csv.DictReader(io.StringIO(files[STATES_TABLE])))
    assert [r["trajectory"] for r in rows] == [n for n, s in zip(states.runs, states.states,
                                                                strict=True) for _ in s]
    assert [int(r["cluster"]) for r in rows] == (np.concatenate(states.states) + 1).tolist()
    assert rows[-1]["time"] == str(10.0 * float(rows[-1]["frame"]))
    assert state_file_names(provenance) == list(files)


def test_missing_frames_are_counted_as_gaps_and_repeated_frames_refused():
    provenance = {"frame": np.array([0, 1, 2, 5, 6, 9])}
    states = state_trajectories(provenance, np.zeros(6, dtype=int))
    assert states.runs == ("trajectory",) and states.gaps == (2,)
    assert "(2 gap(s))" in states.describe()
    with pytest.raises(ValueError, match="frame 1 of trajectory appears in more than one"):
        state_trajectories({"frame": np.array([0, 1, 1])}, np.zeros(3, dtype=int))


def test_no_state_trajectories_without_frames_or_for_residue_rows():
    assert state_trajectories(None, np.zeros(2, dtype=int)) is None
    assert state_trajectories({"time": np.arange(2)}, np.zeros(2, dtype=int)) is None
    pooled = {"frame": np.array([0, 0]), "resid": np.array([3, 4])}
    assert state_trajectories(pooled, np.zeros(2, dtype=int)) is None
    assert state_file_names(pooled) == []


def test_rows_not_one_per_frame_have_no_state_files_unless_strict():
    repeated = {"trajectory": np.array(["a", "a", "b"]), "frame": np.array(["0", "0", "0"])}
    assert state_file_names(repeated) == []
    assert state_trajectories(repeated, np.zeros(3, dtype=int), strict=False) is None
    with pytest.raises(ValueError, match="frame 0 of a appears in more than one row"):
        state_trajectories(repeated, np.zeros(3, dtype=int))
    not_frames = {"frame": np.array(["0.5", "1"])}
    assert state_file_names(not_frames) == []
    assert state_trajectories(not_frames, np.zeros(2, dtype=int), strict=False) is None
    with pytest.raises(ValueError, match="2 cluster labels for 3 frames"):
        state_trajectories(repeated, np.zeros(2, dtype=int), strict=False)
