"""``bench_mode_steps.py``: the step it measures is the product's, its cases are the
k-modal mixtures, and a measured row holds what its table prints."""

from __future__ import annotations

import numpy as np
import pytest
from project_paths import load_benchmark

from stpca_gui.core.circstats.mode_test import NULLS, mode_test

steps = load_benchmark("bench_mode_steps")


@pytest.mark.parametrize("null", NULLS)
def test_the_first_step_is_mode_tests(null):
    x = np.random.default_rng(3).vonmises(0.0, 3.0, 400)
    p_k, p_em, p_step = steps.step_p_values(x, 1, 200, 7, null)
    result = mode_test(x, n_boot=200, random_state=7, null=null)
    assert (p_k, p_em) == (result.raw_p_values[0], result.excess_mass_p_values[0])
    assert p_step == result.p_values[0]


def test_the_cases_have_as_many_modes_as_components():
    from _mode_cases import mixture_modes

    assert steps.DEFAULT_CASES
    assert all(mixture_modes(*case, steps.KAPPA) == case[0] for case in steps.DEFAULT_CASES)
    assert (2, 1.0, 0.1) not in steps.DEFAULT_CASES  # one mode: a power case, not a size one


def test_a_measured_row_has_both_nulls_rates_and_p_values(capsys):
    row = steps.measure((2, 2.0, 0.5), 300, 3, 60)
    for null in NULLS:
        p = np.array(row[null]["p"])
        assert p.shape == (3, 3) and np.all((p > 0) & (p <= 1))
        assert row[null]["step"] == np.mean(p[:, 2] < steps.ALPHA)
    steps.print_table([row])
    table = capsys.readouterr().out
    assert "| 2 | 2 | 0.50 | 300 | 3 |" in table


def test_the_demo_rows_hold_each_nulls_count_and_the_table_names_the_seeds(capsys):
    rows = steps.measure_demos(1)
    assert [(row["demo"], row["seed"]) for row in rows] == [("clusters-t2", 0),
                                                           ("clusters-t3", 0)]
    assert all(row["critical_kde"]["k_hat"] == 3 for row in rows)
    # clusters-t2 seed 0 is the lone-point demo (test_mode_null.py): 4 with the mixture
    assert [row["mixture"]["k_hat"] for row in rows] == [4, 3]
    assert all(len(row[null]["p"]) == row[null]["k_hat"] for row in rows
               for null in NULLS)
    steps.print_demo_table(rows)
    table = capsys.readouterr().out
    assert "| clusters-t2 | 1 | 1.00 / 0.00 | 0.00 / 1.00 | 0 |" in table
    assert "| clusters-t3 | 1 | 1.00 / 0.00 | 1.00 / 0.00 | – |" in table
