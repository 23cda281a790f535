"""Memory of PNS and of the angle checks at large n: how many n × m arrays they hold.

At n = 10⁶ on T⁶⁶ one n × 67 float64 array is 536 MB; the fit's peak must stay under 4 GB
(issue 32). These tests measure the peak of Python-level allocations (tracemalloc, which
sees NumPy's buffers) in units of the data's size, with the row blocks made small so that
the blocks' own temporaries are negligible at a test's n; and they check that computing by
row blocks gives the whole-array numbers bit for bit.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from stpca_gui.core._base.threads import single_threaded_blas
from stpca_gui.core.geometry import validation
from stpca_gui.core.geometry.validation import check_angles
from stpca_gui.core.pns import subsphere
from stpca_gui.core.pns.pns import PrincipalNestedSpheres


def _points(n: int, k: int, seed: int = 0) -> np.ndarray:
    """Unit vectors in R^k: an anisotropic Gaussian cloud about e_1."""
    rng = np.random.default_rng(seed)
    y = rng.normal(size=(n, k)) * np.linspace(0.2, 1.0, k)[::-1]
    y[:, 0] += 2.0
    return y / np.linalg.norm(y, axis=1)[:, None]


def _peak_bytes(function, *args):
    """(result, peak bytes allocated while ``function`` ran, above what was allocated
    before)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = function(*args)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    return result, peak


@pytest.fixture
def small_blocks(monkeypatch):
    """Row blocks of 256 rows: at n = 20,000 their temporaries are ~1 % of the data's."""
    monkeypatch.setattr(subsphere, "ROW_BLOCK", 256)
    monkeypatch.setattr(validation, "_SPREAD_BLOCK", 256)


@pytest.mark.parametrize(("k", "mode"), [(21, "small"), (30, "great")])
def test_fit_holds_few_copies_of_the_points(small_blocks, k, mode):
    # Before: the unit rows, a copy as the current level, and per level the rotated rows,
    # the rank-2 update's outer product and the projection; and the scores' transform made
    # its own copies (6.2–6.5 × the data here). Now (2.1–2.5 ×): the unit rows (the first
    # level's points) and the QR factorisation's copy of them, then the current level and
    # the next one, then the scores. (Without the isotropy test, whose bootstrap samples of
    # up to 5,000 points do not grow with n and would dominate at a test's n.)
    n = 20_000
    y = _points(n, k)
    fit = single_threaded_blas(PrincipalNestedSpheres(mode=mode, random_state=0).fit)
    fit(y[:500])  # modules loaded and kernels compiled before the measurement
    pns, peak = _peak_bytes(fit, y)
    data_bytes = y.nbytes
    assert pns.scores_.shape == (n, k - 1)
    assert peak <= 2.6 * data_bytes, f"peak {peak / data_bytes:.2f} × the data"


def test_transform_allocates_only_its_result(small_blocks):
    n, k = 20_000, 30
    y = _points(n, k, seed=1)
    pns = PrincipalNestedSpheres(mode="great").fit(y[:2000])
    pns.transform(y[:10])
    scores, peak = _peak_bytes(pns.transform, y)
    # Before: 5.2 × the scores (the unit rows, and per level the rotated rows and more).
    assert peak <= 1.2 * scores.nbytes, f"peak {peak / scores.nbytes:.2f} × the scores"
    # nested_sphere_coordinates holds the points at two consecutive levels at most.
    coordinates, peak = _peak_bytes(pns.nested_sphere_coordinates, y, 3)
    assert coordinates.shape == (n, 4)
    assert peak <= 2.2 * y.nbytes, f"peak {peak / y.nbytes:.2f} × the points"  # before: 3.1


def test_check_angles_makes_one_copy(small_blocks):
    angles = np.random.default_rng(2).uniform(-10.0, 10.0, size=(20_000, 40))
    check_angles(angles[:10])
    wrapped, peak = _peak_bytes(check_angles, angles)
    assert np.all((wrapped >= -np.pi) & (wrapped < np.pi))
    # Before: 5.1 × (the wrapping's and the spread's temporaries over all the rows).
    assert peak <= 1.2 * angles.nbytes, f"peak {peak / angles.nbytes:.2f} × the data"


@pytest.mark.parametrize(("k", "mode"), [(21, "seq.test"), (5, "seq.test"), (4, "small")])
def test_row_blocks_give_the_whole_array_numbers(monkeypatch, k, mode):
    # One BLAS thread, as in a fit (a threaded matrix-vector product splits the rows among
    # threads where it likes, and its rounding with them).
    y = _points(3001, k, seed=3)

    @single_threaded_blas
    def fit():
        pns = PrincipalNestedSpheres(mode=mode, random_state=4).fit(y)
        return (pns.scores_, pns.transform(y[::7] * 2.0),
                pns.nested_sphere_coordinates(y[:500], 2), pns.radii_, pns.centers_)

    whole = fit()
    monkeypatch.setattr(subsphere, "ROW_BLOCK", 96)
    monkeypatch.setattr(validation, "_SPREAD_BLOCK", 96)
    blocked = fit()
    for expected, actual in zip(whole, blocked, strict=True):
        np.testing.assert_array_equal(actual, expected)
