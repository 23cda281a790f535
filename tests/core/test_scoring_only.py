"""Scoring-only model files: only what transform / inverse_transform need, said so in the
metadata, by the CLI and by the app's message, and refusing what they cannot do."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from stpca_gui.cli import main
from stpca_gui.core import ScaledTorusPCA, ScoringOnlyError, make_demo
from stpca_gui.core.persistence import METADATA_ENTRY
from stpca_gui.core.scoring_only import SAMPLE_ATTRIBUTES, scoring_copy
from stpca_gui.model.session_file import SessionFileError, load_session


@pytest.fixture(scope="module")
def landmark_model(clusters_t3):
    return ScaledTorusPCA(n_landmarks=60, random_state=0, pns_mode="small").fit(
        clusters_t3.angles)


@pytest.fixture(scope="module")
def new_points():
    return make_demo("clusters-t3", random_state=5).angles[:150]


def _metadata(path):
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read(METADATA_ENTRY)), archive.namelist()


def test_scoring_only_file_scores_as_the_full_one(landmark_model, new_points, tmp_path):
    full_path = landmark_model.save(tmp_path / "full.stpca")
    lean_path = landmark_model.save(tmp_path / "lean.stpca", scoring_only=True)
    full, lean = ScaledTorusPCA.load(full_path), ScaledTorusPCA.load(lean_path)
    np.testing.assert_array_equal(lean.transform(new_points), full.transform(new_points))
    scores = full.transform(new_points)[:20]
    np.testing.assert_array_equal(lean.inverse_transform(scores),
                                  full.inverse_transform(scores))
    np.testing.assert_array_equal(lean.explained_variance_ratio_,
                                  full.explained_variance_ratio_)
    assert lean_path.stat().st_size < 0.5 * full_path.stat().st_size
    metadata, names = _metadata(lean_path)
    assert metadata["kind"] == "scoring-only"
    assert _metadata(full_path)[0]["kind"] == "full"
    n = landmark_model.angles_.shape[0]
    assert not any(name.endswith(("/angles_.npy", "/embedding_.npy", "/pns_.scores_.npy"))
                   for name in names)
    # No array in the file has a row per fitted sample.
    with zipfile.ZipFile(lean_path) as archive:
        for name in names:
            if name.endswith(".npy"):
                with archive.open(name) as member:
                    shape = np.lib.format.read_array(member, allow_pickle=False).shape
                assert not shape or shape[0] != n, name


def test_scoring_only_model_refuses_per_sample_results(landmark_model, tmp_path):
    lean = ScaledTorusPCA.load(landmark_model.save(tmp_path / "lean.stpca",
                                                   scoring_only=True))
    for name in SAMPLE_ATTRIBUTES:
        with pytest.raises(ScoringOnlyError, match=f"scoring only.*{name}"):
            getattr(lean, name)
        assert not hasattr(lean, name)
    with pytest.raises(AttributeError, match="no attribute 'nonsense_'") as info:
        lean.nonsense_  # noqa: B018 - other misses stay plain AttributeErrors
    assert not isinstance(info.value, ScoringOnlyError)
    # Saved again, it stays scoring-only; refitted, it is whole.
    again = ScaledTorusPCA.load(lean.save(tmp_path / "again.stpca"))
    assert _metadata(tmp_path / "again.stpca")[0]["kind"] == "scoring-only"
    with pytest.raises(ScoringOnlyError):
        again.scores_  # noqa: B018
    refit = again.fit(landmark_model.angles_)
    assert refit.scores_.shape == landmark_model.scores_.shape
    assert not hasattr(refit, "scoring_only_")


def test_the_fitted_model_is_left_whole(landmark_model, clusters_t3):
    lean = scoring_copy(landmark_model)
    assert lean.scoring_only_ and landmark_model.scores_.shape[0] == len(clusters_t3.angles)
    assert landmark_model.pns_.scores_ is landmark_model.scores_
    assert "scores_" not in vars(lean.pns_)


def test_exact_fit_scoring_only(new_points, tmp_path):
    data = make_demo("clusters-t3", random_state=1).angles[:120]
    exact = ScaledTorusPCA(n_landmarks="exact", random_state=0, torus_variance=False).fit(data)
    lean = ScaledTorusPCA.load(exact.save(tmp_path / "exact.stpca", scoring_only=True))
    np.testing.assert_array_equal(lean.transform(new_points), exact.transform(new_points))


def test_cli_writes_and_names_a_scoring_only_model(new_points, tmp_path, capsys):
    source = tmp_path / "angles.csv"
    np.savetxt(source, new_points, delimiter=",", header="a,b,c", comments="")
    model_path = tmp_path / "lean.stpca"
    code = main(["fit", str(source), "--landmarks", "60", "--no-torus-variance",
                 "--save-model", str(model_path), "--scoring-only"])
    out = capsys.readouterr().out
    assert code == 0 and "(scoring-only model)" in out
    assert main(["info", str(model_path)]) == 0
    info = capsys.readouterr().out
    assert "scoring-only" in info and "60 matched points" in info
    code = main(["transform", str(model_path), str(source), "--out", str(tmp_path / "s.csv")])
    assert code == 0 and "(scoring-only model)" in capsys.readouterr().out
    full_path = tmp_path / "full.stpca"
    main(["fit", str(source), "--landmarks", "60", "--no-torus-variance",
          "--save-model", str(full_path)])
    capsys.readouterr()
    assert main(["info", str(full_path)]) == 0
    info = capsys.readouterr().out
    assert "full:" in info and "150" in info
    assert full_path.stat().st_size > model_path.stat().st_size


def test_scoring_only_without_a_model_path_is_a_usage_error(new_points, tmp_path, capsys):
    source = tmp_path / "angles.csv"
    np.savetxt(source, new_points, delimiter=",", header="a,b,c", comments="")
    assert main(["fit", str(source), "--scoring-only"]) == 1
    assert "--save-model" in capsys.readouterr().err


def test_app_says_which_kind_of_model_file_it_was_given(landmark_model, tmp_path):
    path = landmark_model.save(tmp_path / "lean.stpca", scoring_only=True)
    with pytest.raises(SessionFileError, match="scoring-only model"):
        load_session(path)
