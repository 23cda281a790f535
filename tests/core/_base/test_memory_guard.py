"""A fit that would not fit in memory is refused before any work (issue 10, item 6).

The available memory is monkeypatched, so the limit is tested without a huge machine.
"""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.cli import main
from stpca_gui.core import ScaledTorusPCA, make_demo
from stpca_gui.core._base import memory
from stpca_gui.core._base.memory import (
    InsufficientMemoryError,
    available_memory_bytes,
    check_fit_memory,
    estimate_fit_bytes,
    estimate_pns_bytes,
    largest_fitting_n,
)

GIB = 2**30


@pytest.fixture
def available(monkeypatch):
    """Set the memory the guard believes available, in bytes."""

    def set_available(n_bytes: int | None) -> None:
        monkeypatch.setattr(memory, "available_memory_bytes", lambda: n_bytes)

    return set_available


def test_estimate_follows_the_measurements():
    # Measured peaks above the process before the fit (see stpca_gui.core._base.memory).
    for n, d, n_boot, measured_mb in [(6000, 3, 0, 342), (9000, 3, 0, 700)]:
        estimate_mb = estimate_fit_bytes(n, d, n_boot) / 1e6
        assert measured_mb * 0.95 < estimate_mb < measured_mb * 1.1, (n, d, estimate_mb)
    # The 30,000 rows took 7.7 GB with the app around the fit; 50,000 would not fit
    # on a 16 GB machine.
    assert 7.0e9 < estimate_fit_bytes(30_000, 3, 100) < 7.7e9
    assert estimate_fit_bytes(50_000, 3) > 16 * GIB


def test_pns_estimate_follows_the_measurements():
    # PNS alone, seq.test with the isotropy test run (stpca_gui.core._base.memory's table).
    for n, d, measured_mb in [(1_000_000, 3, 455), (1_000_000, 4, 470), (1_000_000, 6, 494)]:
        estimate_mb = estimate_pns_bytes(n, d, 100) / 2**20
        assert measured_mb * 0.95 < estimate_mb < measured_mb * 1.1, (n, d, estimate_mb)
    allowance_mb = (memory.PNS_BASE_BYTES + memory.PNS_TEST_BYTES) / 2**20
    for n, d, measured_mb in [(100_000, 4, 45), (300_000, 3, 132)]:  # the base dominates
        estimate_mb = estimate_pns_bytes(n, d, 100) / 2**20
        assert measured_mb < estimate_mb < 1.1 * measured_mb + allowance_mb, (n, d, estimate_mb)


def test_isotropy_test_memory_does_not_grow_with_n_or_draws():
    # It ran on n_bootstrap · n · (d + 1) draws at once: 1.4 GB at n = 3,000, d = 20.
    extra = [estimate_pns_bytes(n, d, n_boot) - estimate_pns_bytes(n, d, 0)
             for n, d, n_boot in [(3_000, 20, 100), (1_000_000, 6, 100), (5_000, 6, 100_000)]]
    assert extra == [memory.PNS_TEST_BYTES] * 3
    assert estimate_fit_bytes(3_000, 20, 100) < 0.25 * GIB


def test_available_memory_is_known_on_this_machine():
    found = available_memory_bytes()
    assert found is not None and 0 < found
    with open("/proc/meminfo") as meminfo:
        total = int(next(line for line in meminfo if line.startswith("MemTotal:")).split()[1])
    assert found <= total * 1024


def test_largest_fitting_n_is_the_boundary():
    budget = 2 * GIB
    n = largest_fitting_n(3, budget, 100)
    assert estimate_fit_bytes(n, 3, 100) <= budget < estimate_fit_bytes(n + 1, 3, 100)


def test_too_large_fit_is_refused_before_any_work(available):
    available(4 * GIB)
    events = []
    angles = np.random.default_rng(0).uniform(-np.pi, np.pi, size=(40_000, 3))
    with pytest.raises(InsufficientMemoryError) as raised:
        ScaledTorusPCA(random_state=0, n_landmarks="exact").fit(angles, callback=events.append)
    message = str(raised.value)
    assert "n = 40,000" in message and "12.0 GiB" in message and "4.0 GiB" in message
    assert "subsample of at most 20,488 samples" in message  # 0.8 × 4 GiB
    assert events == []  # refused before the first stage started
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, MemoryError)


def test_fit_within_the_limit_runs(available):
    available(1 * GIB)
    demo = make_demo("clusters-t2", random_state=0)
    model = ScaledTorusPCA(random_state=0, torus_variance=False).fit(demo.angles)
    assert model.scores_.shape == (300, 2)


def test_unknown_available_memory_does_not_refuse(available):
    available(None)
    check_fit_memory(1_000_000, 3)  # nothing to compare with: the fit is not refused


def test_placed_points_count_for_pns(available):
    # A landmark fit runs PNS on all the placed points: 10⁷ points on S^6 need ~4.6 GB.
    available(int(2.0 * GIB))
    check_fit_memory(1_000, 6, n_bootstrap=100, n_placed=1_000_000)
    with pytest.raises(InsufficientMemoryError) as raised:
        check_fit_memory(1_000, 6, n_bootstrap=100, n_placed=10_000_000)
    assert "n = 10,000,000 samples on 1,000 landmarks" in str(raised.value)


def test_cli_refuses_with_a_message(tmp_path, capsys, available):
    available(64 * 2**20)
    assert main(["demo", "clusters-t2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("stpca: error: an exact fit of n = 300 samples needs about")
    assert "subsample" in err


@pytest.mark.usefixtures("display")
def test_app_shows_the_refusal_in_the_failed_fit_dialog(qtbot, window, available):
    available(64 * 2**20)
    with qtbot.waitSignal(window.fit_ended, timeout=60_000) as ended:
        window.load_demo("clusters-t2")
    assert ended.args == ["failed"]
    box = window.last_message_box
    assert box is not None and "The fit failed" in box.windowTitle()
    assert "n = 300 samples needs about" in box.text() + box.informativeText()


def test_rotation_estimate_follows_the_measurement():
    # A fit of 5 × 1,000 uniform angles peaked 2,664 MB above the imports (PNS's rotations).
    assert estimate_pns_bytes(5, 3) < memory.PNS_BASE_BYTES + 2**20  # nothing at low d
    assert 0.9 * 2664 < estimate_fit_bytes(5, 1000) / 2**20 < 1.1 * 2664


def test_fit_on_too_many_angles_is_refused_naming_d(available):
    # 5 rows × 4,000 columns took minutes and ran out of memory; it is refused at once.
    available(8 * GIB)
    events = []
    angles = np.random.default_rng(0).uniform(-np.pi, np.pi, size=(5, 4000))
    with pytest.raises(InsufficientMemoryError) as raised:
        ScaledTorusPCA(random_state=0).fit(angles, callback=events.append)
    message = str(raised.value)
    assert "d = 4,000 angles" in message and "159.1 GiB" in message, message
    assert "8.0 GiB is available" in message
    assert events == []  # refused before the first stage started
    with pytest.raises(InsufficientMemoryError) as raised:
        check_fit_memory(5, 4000)
    fitting = int(str(raised.value).split("fit at most ")[1].split(" angles")[0]
                  .replace(",", ""))
    assert estimate_fit_bytes(5, fitting) <= 0.8 * 8 * GIB < estimate_fit_bytes(5, fitting + 1)
    check_fit_memory(5, 1000)  # 2.5 GiB: within 8 GiB
