"""Progress and cancel hooks of the long core computations the GUI runs as tasks."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.core import BASELINES, FitCancelled, run_baselines
from stpca_gui.core.circstats import uniformity
from stpca_gui.core.circstats.uniformity import _monte_carlo_null, uniformity_tests


def record_replicates(monkeypatch) -> list[np.ndarray]:
    """Replace the compiled replicate kernel by one that records the samples it is given
    (and returns their first three angles as "statistics")."""
    seen: list[np.ndarray] = []

    def recorder(samples: np.ndarray, out: np.ndarray) -> None:
        seen.append(samples.copy())
        out[:] = samples[:, :3]

    monkeypatch.setattr(uniformity, "replicate_statistics", recorder)
    return seen


def test_monte_carlo_draws_the_same_replicates_with_and_without_a_callback(monkeypatch):
    seen = record_replicates(monkeypatch)
    plain = _monte_carlo_null(40, 1234, 7)
    plain_chunks = len(seen)
    events = []
    hooked = _monte_carlo_null(40, 1234, 7, callback=events.append)
    np.testing.assert_array_equal(plain, hooked)
    # The chunks take consecutive draws of one generator: together, one block's draws.
    block = np.random.default_rng(7).uniform(0.0, 2 * np.pi, size=(1234, 40))
    np.testing.assert_array_equal(np.concatenate(seen[:plain_chunks]), block)
    np.testing.assert_array_equal(plain, block[:, :3])
    fractions = [e.fraction for e in events]
    assert len(events) == plain_chunks > 10 and fractions == sorted(fractions)
    assert fractions[-1] == 1.0 and all(e.stage == "monte-carlo" for e in events)


def test_monte_carlo_p_values_do_not_depend_on_the_callback() -> None:
    theta = np.random.default_rng(3).vonmises(0.0, 0.5, 60)
    plain = uniformity_tests(theta, n_replicates=1234, random_state=7,
                             calibration="monte_carlo")
    hooked = uniformity_tests(theta, n_replicates=1234, random_state=7,
                              calibration="monte_carlo", callback=lambda event: None)
    for name, test in plain.items():
        # p = (1 + #exceedances) / (B + 1): the same count. (The compiled statistics may
        # differ in the last bit between calls: their vectorised sums depend on the
        # alignment of scratch memory.)
        assert hooked[name].p_value == test.p_value
        assert hooked[name].statistic == pytest.approx(test.statistic, rel=1e-12)


def test_monte_carlo_cancels_at_the_next_chunk() -> None:
    events = []

    def stop_after_three(event) -> bool:
        events.append(event)
        return len(events) >= 3

    theta = np.linspace(0, 6, 50)
    with pytest.raises(FitCancelled):
        uniformity_tests(theta, n_replicates=10_000, random_state=0,
                         calibration="monte_carlo", callback=stop_after_three)
    assert len(events) == 3 and events[-1].fraction < 0.05


def test_asymptotic_tests_ignore_the_callback() -> None:
    events = []
    theta = np.linspace(0, 6, 50)
    results = uniformity_tests(theta, callback=events.append)
    assert events == [] and set(results) == {"Watson", "Gine_Fn", "PAD"}


def test_baselines_report_each_method_and_cancel() -> None:
    angles = np.random.default_rng(0).uniform(-np.pi, np.pi, (80, 3))
    events = []
    hooked = run_baselines(angles, callback=events.append)
    plain = run_baselines(angles)
    assert list(hooked) == list(BASELINES)
    for name in BASELINES:
        np.testing.assert_array_equal(hooked[name].scores, plain[name].scores)
    # One event after each method, and one at every cancel check inside a method (at the
    # fraction where that method started), so the fractions never go back.
    finished = [e.fraction for e in events if " done (" in e.message]
    assert finished == pytest.approx(
        [(k + 1) / len(BASELINES) for k in range(len(BASELINES))])
    fractions = [e.fraction for e in events]
    assert fractions == sorted(fractions) and len(events) > len(BASELINES)
    assert all(e.stage == "baselines" for e in events)
    with pytest.raises(FitCancelled):
        run_baselines(angles, callback=lambda event: True)


@pytest.mark.parametrize("optimizer", ["lbfgs", "paper"])
def test_smds_snapshots_follow_the_optimiser_to_its_result(optimizer) -> None:
    from stpca_gui.core import SphericalMDS
    from stpca_gui.core.demos import make_demo
    from stpca_gui.core.smds.stress import PairStress

    angles = make_demo("clusters-t2", random_state=1).angles[::3]
    snapshots = []
    fit = SphericalMDS(optimizer=optimizer, random_state=0).fit(
        angles, snapshot=lambda *s: snapshots.append(s))
    plain = SphericalMDS(optimizer=optimizer, random_state=0).fit(angles)
    np.testing.assert_array_equal(fit.embedding_, plain.embedding_)
    assert len(snapshots) >= fit.n_iter_ >= 1
    iterations = [s[0] for s in snapshots]
    assert iterations == sorted(iterations)
    stresses = np.array([s[1] for s in snapshots])
    # Each snapshot's configuration has the stress reported with it.
    objective = PairStress(fit.angles_)
    for _, stress, units, radius in snapshots[:: max(1, len(snapshots) // 4)]:
        assert units.shape == fit.embedding_.shape
        np.testing.assert_allclose(np.linalg.norm(units, axis=1), 1.0, atol=1e-12)
        assert objective.stress(units, radius) == pytest.approx(stress, rel=1e-6)
    assert stresses[-1] == pytest.approx(fit.stress_, rel=1e-9)
    assert stresses[-1] < stresses[0]
    np.testing.assert_allclose(snapshots[-1][2], fit.embedding_, atol=1e-12)


def test_stpca_progress_events_carry_the_smds_configuration() -> None:
    from stpca_gui.core import ScaledTorusPCA
    from stpca_gui.core.demos import make_demo

    angles = make_demo("clusters-t3", random_state=0).angles[::2]
    events = []
    model = ScaledTorusPCA(random_state=0).fit(angles, callback=events.append)
    smds_events = [e for e in events if e.stage == "smds"]
    assert smds_events and all(e.configuration is not None for e in smds_events)
    assert all(e.configuration is None for e in events if e.stage != "smds")
    assert smds_events[0].configuration is not smds_events[1].configuration
    assert smds_events[-1].radius == pytest.approx(model.radius_)
    np.testing.assert_allclose(smds_events[-1].configuration, model.smds_.embedding_,
                               atol=1e-12)
