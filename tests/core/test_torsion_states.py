"""The synthetic high-dimensional torsion data (benchmarks and tests of high-d fits)."""

import numpy as np
import pytest

from stpca_gui.core.geometry.torus import wrap_angles
from stpca_gui.core.torsion_states import make_torsion_states


def test_only_the_moving_residues_change_between_states():
    data = make_torsion_states(6000, d=20, n_states=3, moving_fraction=0.3, kappa=50.0,
                               dwell=50.0, random_state=1)
    assert data.angles.shape == (6000, 20)
    assert data.column_names[:3] == ("φ1", "ψ1", "φ2")
    assert set(np.unique(data.labels)) == {0, 1, 2}
    # Circular means per state: a torsion moves when some state's mean differs from state 0's.
    means = np.array([np.angle(np.exp(1j * data.angles[data.labels == s]).mean(axis=0))
                      for s in range(3)])
    moved = np.abs(wrap_angles(means - means[0])).max(axis=0) > 0.3
    moved_residues = np.unique(np.flatnonzero(moved) // 2)
    assert len(moved_residues) == 3  # round(0.3 × 10 residues)


def test_frames_are_sticky_and_states_balanced():
    labels = make_torsion_states(200_000, d=4, dwell=100.0, random_state=2).labels
    switches = np.count_nonzero(np.diff(labels))
    # A jump happens with probability 1/dwell and lands on another state 2/3 of the time.
    assert switches / len(labels) == pytest.approx(1 / 100 * 2 / 3, rel=0.1)
    shares = np.bincount(labels) / len(labels)
    assert np.all(np.abs(shares - 1 / 3) < 0.05)


def test_seeded_and_validated():
    a = make_torsion_states(100, d=7, random_state=3)
    b = make_torsion_states(100, d=7, random_state=3)
    np.testing.assert_array_equal(a.angles, b.angles)
    assert a.column_names[-1] == "φ4"
    with pytest.raises(ValueError, match="moving_fraction"):
        make_torsion_states(10, d=4, moving_fraction=1.5)
