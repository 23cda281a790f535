"""docs/measured.md is generated from the benchmarks' recorded results (issue 30).

benchmarks/measured.py renders the page from benchmarks/results/*.json, which the benchmark
scripts write with ``--record``; the committed page must be exactly what it gives, every
recorded case must be on it, and every case must say when, where and at which load it was
measured.
"""

from __future__ import annotations

import json
import math
import re
import sys

import pytest
from project_paths import REPO, load_benchmark

BENCHMARKS = REPO / "benchmarks"


measured = load_benchmark("measured")


def test_measured_page_is_generated_from_the_recorded_results():
    page = (REPO / "docs" / "measured.md").read_text(encoding="utf-8")
    assert page == measured.render(measured.load_results()), (
        "docs/measured.md differs from benchmarks/results/: run "
        "`uv run python benchmarks/measured.py`")


def test_every_recorded_case_is_shown():
    assert measured.unshown_cases(measured.load_results()) == []


def test_every_case_says_when_where_and_at_whichload_benchmark():
    for benchmark, recorded in measured.load_results().items():
        assert (BENCHMARKS / f"{benchmark}.py").is_file(), f"no benchmark {benchmark}.py"
        for name, case in recorded["cases"].items():
            where = f"{benchmark} {name}"
            assert re.fullmatch(r"\d{4}-\d\d-\d\d", case["date"]), where
            assert case["commit"] and case["machine"] and case["command"], where
            if case["load"] is not None:
                low, high = case["load"]
                assert 0 <= low <= high, where
            else:  # carried over from before results were recorded: the source says so
                assert "not recorded" in case["source"], where
            assert all(isinstance(v, int | float) and math.isfinite(v)
                       for v in case["values"].values()), where


def test_a_missing_value_names_the_row(tmp_path):
    results = measured.load_results()
    del results["bench_pns"]["cases"]["timings"]["values"]["small_s3_5000_s"]
    with pytest.raises(KeyError, match="bench_pns timings: no recorded 'small_s3_5000_s'"):
        measured.render(results)


def test_a_recorded_run_reaches_the_page(tmp_path, monkeypatch):
    """What a benchmark's ``--record`` writes is what the page shows, with its load."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    common = load_benchmark("_common")
    for benchmark, recorded in measured.load_results().items():
        (tmp_path / f"{benchmark}.json").write_text(json.dumps(recorded))
    monkeypatch.setattr(sys, "argv", ["bench_pns.py", "--record"])
    monkeypatch.setattr(common, "one_minute_load", lambda: 0.75)
    common.record(tmp_path, str(BENCHMARKS / "bench_pns.py"),
                  {"timings": {"seq_test_s3_300_s": 0.123, "small_s3_5000_s": 0.0456}},
                  load_at_start=0.5, log=lambda message: None)
    results = measured.load_results(tmp_path)
    case = results["bench_pns"]["cases"]["timings"]
    assert case["load"] == [0.5, 0.75]
    assert case["command"] == "uv run python benchmarks/bench_pns.py --record"
    assert "source" not in case
    row = next(line for line in measured.render(results).splitlines()
               if line.startswith("| PNS n = 300"))
    assert "| 0.12 s / 0.05 s |" in row and row.endswith("load 0.5–0.75 |")
    # The other benchmarks' cases are kept.
    assert results["bench_smds"] == measured.load_results()["bench_smds"]
