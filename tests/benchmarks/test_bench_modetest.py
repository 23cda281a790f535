"""``bench_modetest.py``: a run that starts at a later replicate (``--first-rep``) measures the
very samples and resamples of one longer run, so two runs can be pooled."""

from __future__ import annotations

import argparse

import numpy as np
from project_paths import load_benchmark

bench = load_benchmark("bench_modetest")


def _size_p_values(reps: int, first_rep: int) -> np.ndarray:
    others = [(null, 500) for null in bench.SIZE_NULLS if null != "vonmises=2"]
    args = argparse.Namespace(sizes=[500], skip_size=others, reps=reps, first_rep=first_rep,
                              null="mixture", n_boot=100, merge=None, shard="0/1",
                              json=None, resume=False)
    out: dict = {}
    bench.part_size(args, out)
    (row,) = out["size"]
    assert row.get("first_rep", 0) == first_rep
    return np.array(row["p"])


def test_a_later_first_replicate_continues_the_same_samples():
    longer = _size_p_values(3, 0)
    np.testing.assert_array_equal(_size_p_values(1, 2), longer[2:])
    assert not np.array_equal(longer[0], longer[2])  # replicates do differ
