"""bench_highdim.py --record writes the issue's whole-fit targets only from whole runs of
this checkout's code (docs/measured.md shows them)."""

from __future__ import annotations

from project_paths import load_benchmark


def test_target_cases_keep_finished_runs_of_the_targets_only():
    bench = load_benchmark("bench_highdim")
    finished = {"d": 66, "n": 10_000, "wall_s": 14.46, "cpu_s": 19.24, "peak_rss_mb": 395.2}
    results = [
        finished,
        {**finished, "code": "before", "wall_s": 30.0},  # --compare's old code
        {"d": 66, "n": 100_000, "error": "> 300 s CPU"},  # stopped at the limit
        {**finished, "n": 500},  # not a target
        {**finished, "d": 426, "wall_s": 162.84, "cpu_s": 235.6, "peak_rss_mb": 888.0},
    ]
    cases = bench.target_cases(results)
    assert cases == {
        "fit-d66-n10000": {"wall_s": 14.5, "cpu_s": 19.2, "peak_rss_mib": 395,
                           "target_s": 15.0, "target_mib": 4096.0},
        "fit-d426-n10000": {"wall_s": 162.8, "cpu_s": 235.6, "peak_rss_mib": 888,
                            "target_s": 120.0, "target_mib": 4096.0},
    }
