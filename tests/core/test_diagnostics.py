"""Fit diagnostics: Shepard sample, stress per point, stress over r, flat patch."""

from __future__ import annotations

import json

import numpy as np
import pytest
from matplotlib.figure import Figure

from stpca_gui.cli import main
from stpca_gui.core import FitCancelled, ScaledTorusPCA, make_demo, torus_cdist, wrap_angles
from stpca_gui.core.diagnostics import (
    FLAT_PATCH_CAP_ANGLE,
    SHEPARD_PAIRS,
    fit_diagnostics,
    model_flat_patch,
    point_stress,
    shepard_sample,
)
from stpca_gui.core.summary import fit_summary, summary_json
from stpca_gui.plotting.diagnostics import DIAGNOSTIC_PLOTS, draw_diagnostics


def _fit(angles, **kwargs) -> ScaledTorusPCA:
    return ScaledTorusPCA(random_state=0, torus_variance=False, **kwargs).fit(angles)


@pytest.fixture(scope="module")
def demo_fit() -> ScaledTorusPCA:
    return _fit(make_demo("clusters-t2", random_state=0).angles)


def tight_cluster(n: int = 200, d: int = 4, spread: float = 0.3, seed: int = 1) -> np.ndarray:
    """A small anisotropic Gaussian patch of T^d (sd 0.3, 0.18, … rad), away from ±π."""
    rng = np.random.default_rng(seed)
    return wrap_angles(rng.normal(size=(n, d)) * spread * 0.6 ** np.arange(d) + 1.0)


@pytest.fixture(scope="module")
def tight_fit() -> ScaledTorusPCA:
    return _fit(tight_cluster())


def test_point_shares_sum_to_the_fit_stress(demo_fit):
    diagnostics = fit_diagnostics(demo_fit)
    shares = diagnostics.point_stress.values()
    assert shares.shape == (300,) and np.all(shares >= 0)
    assert shares.sum() == pytest.approx(demo_fit.stress_, rel=1e-9)
    # The profile's pair sums give the same stress at r̂.
    assert diagnostics.profile.stress_at(demo_fit.radius_) == pytest.approx(demo_fit.stress_,
                                                                           rel=1e-9)


def test_point_stress_matches_a_brute_force_sum():
    rng = np.random.default_rng(4)
    angles = rng.uniform(-np.pi, np.pi, (40, 3))
    units = rng.normal(size=(40, 4))
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    radius = 1.7
    residual = torus_cdist(angles, angles) - radius * np.arccos(np.clip(units @ units.T, -1, 1))
    expected = (residual ** 2).sum(axis=1) / (40 * 39)
    got = point_stress(angles, units, radius).values()
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-15)
    # At another radius too: the sums are of δ², δθ and θ².
    residual = torus_cdist(angles, angles) - 0.5 * np.arccos(np.clip(units @ units.T, -1, 1))
    np.testing.assert_allclose(point_stress(angles, units, radius).values(0.5),
                               (residual ** 2).sum(axis=1) / (40 * 39), rtol=1e-9)


def test_landmark_fit_shares_sum_to_the_landmark_stress():
    model = _fit(make_demo("clusters-t2", random_state=0).angles, n_landmarks=60)
    landmarks = model.landmark_indices_
    # Every sample summed against the landmarks (no shortcut through T̂'s objective).
    summed = point_stress(model.angles_, model.embedding_, model.radius_, landmarks)
    assert summed.n_reference == 60
    assert summed.values()[landmarks].sum() == pytest.approx(model.stress_, rel=1e-9)
    # A placed point's mean squared error against the landmarks is the objective of T̂
    # (eq. interp) attained when placing it, computed by the independent prediction kernel.
    others = np.setdiff1d(np.arange(300), landmarks)
    rms = summed.rms_residual()
    np.testing.assert_allclose(rms[others] ** 2, model.interpolation_stress_[others],
                               rtol=1e-8, atol=1e-14)
    # So the diagnostics take the placed points' stress from it and sum landmark pairs only.
    quick = fit_diagnostics(model).point_stress
    assert np.isnan(quick.sums[others]).all()
    np.testing.assert_allclose(quick.values(), summed.values(), rtol=1e-8, atol=1e-16)
    assert fit_diagnostics(model).profile.best_radius == pytest.approx(model.radius_)
    with pytest.raises(ValueError, match="r̂ only"):
        quick.values(2.0)


def test_stress_profile_has_its_minimum_at_the_fitted_radius(demo_fit):
    profile = fit_diagnostics(demo_fit).profile
    r_hat = demo_fit.radius_
    assert profile.best_radius == pytest.approx(r_hat, rel=1e-9)
    assert profile.radii.min() < r_hat < profile.radii.max()
    assert profile.initial_radius in profile.radii
    assert np.all(profile.stress >= demo_fit.stress_ * (1 - 1e-9))
    for step in (0.99, 1.01):
        assert profile.stress_at(step * r_hat) > demo_fit.stress_
    assert profile.stress_at(profile.initial_radius) > demo_fit.stress_


def test_shepard_points_lie_on_the_diagonal_for_a_circle():
    # Points on one circle of T²: SMDS maps them isometrically onto a great circle.
    theta = np.linspace(-np.pi, np.pi, 60, endpoint=False)
    angles = np.column_stack([theta, np.full(60, 0.7)])
    model = _fit(angles)
    shepard = fit_diagnostics(model).shepard
    assert shepard.exact and shepard.torus_distance.size == 60 * 59 // 2
    np.testing.assert_allclose(shepard.sphere_distance, shepard.torus_distance, atol=1e-6)
    assert shepard.torus_distance.max() == pytest.approx(np.pi, abs=1e-9)


def test_shepard_sample_is_bounded_and_reproducible():
    rng = np.random.default_rng(0)
    angles = rng.uniform(-np.pi, np.pi, (1000, 2))
    units = rng.normal(size=(1000, 3))
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    first = shepard_sample(angles, units, 1.5)
    again = shepard_sample(angles, units, 1.5)
    assert not first.exact and first.torus_distance.size == SHEPARD_PAIRS
    assert np.all(first.first != first.second)
    np.testing.assert_array_equal(first.first, again.first)
    np.testing.assert_array_equal(first.sphere_distance, again.sphere_distance)


def test_point_stress_can_be_cancelled():
    angles = np.random.default_rng(0).uniform(-np.pi, np.pi, (50, 2))
    units = np.tile([0.0, 0.0, 1.0], (50, 1))

    def stop() -> None:
        raise FitCancelled("stop")

    with pytest.raises(FitCancelled):
        point_stress(angles, units, 1.0, check=stop)


def test_flat_patch_triggers_on_a_tight_cluster(tight_fit):
    patch = model_flat_patch(tight_fit)
    assert patch.flat and patch.cap_angle < FLAT_PATCH_CAP_ANGLE
    assert patch.radius_ratio > 5  # r̂ far above r*
    assert "Euclidean PCA" in patch.statement()
    # ... and there ST-PCA's first component is PCA's of the centred angles.
    angles = tight_fit.angles_
    centred = wrap_angles(angles - np.angle(np.exp(1j * angles).mean(axis=0)))
    centred -= centred.mean(axis=0)
    pc1 = centred @ np.linalg.svd(centred, full_matrices=False)[2][0]
    assert abs(np.corrcoef(pc1, tight_fit.scores_[:, 0])[0, 1]) > 0.999


@pytest.mark.parametrize("name", ["clusters-t2", "clusters-t3", "wrapped-normal-t2"])
def test_flat_patch_stays_quiet_on_the_demos(name):
    patch = model_flat_patch(_fit(make_demo(name, random_state=0).angles))
    assert not patch.flat and patch.cap_angle > 1.0
    assert patch.statement().startswith("no")


def test_summary_json_and_cli_say_flat_patch(tight_fit, tmp_path, capsys):
    items = {item.key: item for item in fit_summary(tight_fit)}
    assert items["flat_patch"].shown
    summary = json.loads(json.dumps(summary_json(list(items.values())), allow_nan=False))
    assert summary["flat_patch"]["flat"] is True
    assert set(summary["flat_patch"]) == {"flat", "cap_angle", "radius_ratio",
                                          "small_spheres", "threshold"}
    table = tmp_path / "patch.csv"
    np.savetxt(table, tight_cluster(), delimiter=",", header="a,b,c,d", comments="")
    out = tmp_path / "out"
    assert main(["fit", str(table), "--no-torus-variance", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert any(line.startswith("flat patch") and "Euclidean PCA" in line
               for line in printed.splitlines())
    written = json.loads((out / "summary.json").read_text())
    assert written["flat_patch"]["flat"] is True


def test_summary_of_a_demo_keeps_the_note_in_json_only(demo_fit):
    item = {item.key: item for item in fit_summary(demo_fit)}["flat_patch"]
    assert not item.shown and item.value["flat"] is False


@pytest.mark.parametrize("which", list(DIAGNOSTIC_PLOTS))
def test_diagnostic_figures_have_content(demo_fit, tight_fit, which):
    for model in (demo_fit, tight_fit):
        figure = Figure()
        ax = draw_diagnostics(figure, fit_diagnostics(model), which)
        assert ax.get_title()
        assert ax.lines or ax.collections or ax.patches
    assert figure._suptitle is not None  # the tight cluster is a flat patch


def test_stress_colour_mode_orders_colours_by_stress():
    from stpca_gui.plotting.colors import PointColoring, stress_colormap

    values = np.linspace(0.0, 1.0, 101)
    coloring = PointColoring("stress", n=101, point_stress=values)
    assert np.all(np.diff(coloring.codes) >= 0) and coloring.codes[-1] == 63
    rgba = coloring.colors(None)
    np.testing.assert_allclose(rgba[0], stress_colormap()(0.0))
    np.testing.assert_allclose(rgba[-1], stress_colormap()(1.0))


def test_stress_colour_mode_waits_for_the_diagnostics(demo_fit):
    from stpca_gui.model import AnalysisResult, AppState, Dataset, FitParameters

    dataset = Dataset.from_demo("clusters-t2", random_state=0)
    state = AppState()
    state.set_dataset(dataset)
    result = AnalysisResult.from_fit(demo_fit, FitParameters(), dataset, 1.0)
    state.set_result(result)
    state.set_color_mode("stress")
    assert state.effective_color_mode == "selection"  # nothing to colour by yet
    emitted: list[str] = []
    state.color_mode_changed.connect(emitted.append)
    diagnostics = result.compute_diagnostics()
    # Diagnostics of another result (a fit that ended after newer data) are dropped.
    other = AnalysisResult.from_fit(demo_fit, FitParameters(), dataset, 1.0)
    assert not state.set_diagnostics(other, diagnostics) and state.diagnostics is None
    assert state.effective_color_mode == "selection" and emitted == []
    assert state.set_diagnostics(result, diagnostics)
    assert state.diagnostics is diagnostics
    assert state.effective_color_mode == "stress" and emitted == ["stress"]
    # A new result drops them.
    state.set_result(other)
    assert state.diagnostics is None and state.effective_color_mode == "selection"


def test_a_saved_and_loaded_model_gives_the_same_diagnostics(demo_fit, tmp_path):
    from stpca_gui.core import load_model

    loaded = load_model(demo_fit.save(tmp_path / "model.stpca"))
    before, after = fit_diagnostics(demo_fit), fit_diagnostics(loaded)
    np.testing.assert_allclose(after.point_stress.values(), before.point_stress.values())
    assert after.flat_patch == before.flat_patch
    np.testing.assert_array_equal(after.shepard.sphere_distance, before.shepard.sphere_distance)
