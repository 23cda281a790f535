"""Model and session files written before the core was split into sub-packages still open.

The files in tests/data/legacy/ were written by stpca-gui at commit 3fdd8f4 (one flat
``core`` folder); tests/data/legacy/make_files.py made them. A model file names its classes
(``ScaledTorusPCA``, ``SphericalMDS`` …), never a module path, so moving modules must not
change what it reads.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from stpca_gui.core import ScaledTorusPCA, load_model
from stpca_gui.model.session_file import load_session


@pytest.fixture(scope="module")
def legacy(test_data):
    folder = test_data / "legacy"
    return folder, json.loads((folder / "expected.json").read_text())


def test_legacy_model_file_opens_with_its_fit(legacy):
    folder, expected = legacy
    model = load_model(folder / "clusters_t3_model.stpca")
    assert isinstance(model, ScaledTorusPCA)
    assert model.radius_ == pytest.approx(expected["radius"], rel=1e-12)
    np.testing.assert_allclose(model.scores_, expected["scores"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.explained_variance_ratio_,
                               expected["explained_variance_ratio"], rtol=1e-12)
    # The loaded model still places samples where the model that wrote the file did. T̂ is
    # an iterative solve: a later kernel may stop elsewhere within its tolerance (the
    # vectorised kernel of issue 25 lands up to 1.2e-7 away), never farther than 1e-6.
    angles = np.asarray(expected["angles"])
    np.testing.assert_allclose(model.transform(angles[:20]), expected["transform_first_20"],
                               rtol=0, atol=1e-6)


def test_legacy_session_file_opens_with_data_fit_and_selection(legacy):
    folder, expected = legacy
    session = load_session(folder / "clusters_t3_session.stpca")
    np.testing.assert_array_equal(session.dataset.angles, expected["angles"])
    assert session.result is not None
    assert session.result.model.radius_ == pytest.approx(expected["radius"], rel=1e-12)
    np.testing.assert_allclose(session.result.model.scores_, expected["scores"], atol=1e-12)
    assert np.flatnonzero(session.groups).tolist() == expected["selected"]


def test_format_1_model_gains_the_attributes_added_since(legacy):
    # Format 2 (issue 32) added the torus variance's standard errors and components, the
    # angle contributions and the curve's data range; a format-1 file derives them from
    # what it holds (its projections of every level on every sample).
    folder, _ = legacy
    model = load_model(folder / "clusters_t3_model.stpca")
    d = model.n_features_in_
    assert model.torus_variance_components_ == d
    np.testing.assert_array_equal(model.torus_explained_variance_ratio_se_, 0.0)
    assert model.torus_remaining_variance_ratio_ == 0.0
    assert model.angle_contributions_.shape == (d, d)
    np.testing.assert_allclose(model.angle_contributions_.sum(axis=1), 1.0, rtol=1e-12)
    refit = ScaledTorusPCA(**model.get_params()).fit(model.angles_)
    np.testing.assert_allclose(model.angle_contributions_, refit.angle_contributions_,
                               atol=1e-6)
    np.testing.assert_array_equal(model.principal_curve_.in_data_range,
                                  refit.principal_curve_.in_data_range)
