"""Cancel points in every long stage of a fit (issue 10, item 1).

A cancel must be noticed within a block of work, whatever the stage: the classical-MDS start
(an n × n matrix and an eigensolve), r*, the PNS bootstrap, the curve, the torus variance and
the mode clusters. Cancel points must not change any result.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from stpca_gui.core import FitCancelled, ScaledTorusPCA, make_demo
from stpca_gui.core.circstats.modes import periodic_mode_clusters
from stpca_gui.core.demos import make_clusters_t3
from stpca_gui.core.geometry import torus
from stpca_gui.core.pns import isotropy as pns_tests
from stpca_gui.core.pns.subsphere import fit_subspheres
from stpca_gui.core.prediction.prediction import SMDSMatch
from stpca_gui.core.smds import classical, smds
from stpca_gui.core.stpca import ProgressEvent
from stpca_gui.model import Dataset, FitParameters, run_analysis

FIT_STAGES = ["smds-start", "smds", "pns", "curve", "torus-variance"]


class Counter:
    """Wraps a function and counts its calls."""

    def __init__(self, function):
        self.function = function
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.function(*args, **kwargs)


class CancelAfterFirstEvent:
    """A callback that is asked to cancel while it handles the first event (as a GUI user
    pressing Cancel as soon as the fit starts): the request is seen from the next event on."""

    def __init__(self):
        self.events: list[ProgressEvent] = []

    def __call__(self, event: ProgressEvent) -> bool:
        self.events.append(event)
        return len(self.events) > 1


def raise_after(calls: int):
    """A cancel check that lets ``calls`` checks pass, then raises; it counts the checks."""
    state = {"calls": 0}

    def check() -> None:
        state["calls"] += 1
        if state["calls"] > calls:
            raise FitCancelled("test")

    check.state = state
    return check


@pytest.fixture(scope="module")
def large_t3():
    """n = 4002 points on T³: the classical-MDS start takes the subspace-iteration path."""
    return make_clusters_t3(n_per_cluster=1334, random_state=1).angles


# ------------------------------------------------------------------ (a) cancel right away


@pytest.mark.parametrize("radius_cached", [False, True])
def test_cancel_at_the_first_event_stops_inside_the_start_configuration(
    large_t3, monkeypatch, radius_cached
):
    if not radius_cached:
        monkeypatch.setattr(smds, "_INITIAL_RADII", {})
    else:
        smds.default_initial_radius(3)
    blocks = Counter(torus.fill_torus_cdist)
    eigensolves = Counter(classical.leading_eigenpairs)
    monkeypatch.setattr(torus, "fill_torus_cdist", blocks)
    monkeypatch.setattr(classical, "leading_eigenpairs", eigensolves)
    callback = CancelAfterFirstEvent()
    model = ScaledTorusPCA(random_state=0)
    with pytest.raises(FitCancelled):
        model.fit(large_t3, callback=callback)
    # The request was seen at the first cancel point of the start configuration: in r*
    # when it is not known yet, else before the first block of the n × n matrix.
    assert [e.stage for e in callback.events] == ["smds-start", "smds-start"]
    assert blocks.calls == 0 and eigensolves.calls == 0
    assert not hasattr(model, "scores_") and not hasattr(model, "smds_")
    if not radius_cached:
        assert 3 not in smds._INITIAL_RADII  # a cancelled r* is not kept


def test_classical_mds_checks_between_blocks_of_the_matrix(large_t3, monkeypatch):
    blocks = Counter(torus.fill_torus_cdist)
    monkeypatch.setattr(torus, "fill_torus_cdist", blocks)
    check = raise_after(2)
    with pytest.raises(FitCancelled):
        classical.classical_mds(large_t3, 4, np.random.default_rng(0), sphere_radius=2.0,
                                check=check)
    n = large_t3.shape[0]
    total = -(-n // max(1, torus._PDIST_BLOCK_ENTRIES // n))
    assert total > 2 and blocks.calls == 2


def test_subspace_iterations_check_between_blocks(monkeypatch):
    monkeypatch.setattr(classical, "_START_BLOCK_ENTRIES", 2000 * 100)
    a = np.random.default_rng(0).standard_normal((2000, 2000))
    products = Counter(np.linalg.qr)
    monkeypatch.setattr(np.linalg, "qr", products)
    with pytest.raises(FitCancelled):
        classical.leading_eigenpairs(a + a.T, 4, np.random.default_rng(0), check=raise_after(30))
    # 20 blocks of 100 rows per product: the check stopped the second of 10 products.
    assert products.calls == 1


def test_vmf_bootstrap_checks_between_chunks(monkeypatch):
    fits = Counter(fit_subspheres)
    monkeypatch.setattr(pns_tests, "fit_subspheres", fits)
    monkeypatch.setattr(pns_tests, "_BOOTSTRAP_CHUNK_POINTS", 2000)
    x = _tilted_cap(500)
    with pytest.raises(FitCancelled):
        pns_tests.vmf_test_pvalue(x, np.array([0.0, 0.0, 1.0]), 100, np.random.default_rng(0),
                                  raise_after(3))
    # Checked before each wave of two chunks (4 samples each, 25 chunks): stopped after two.
    assert fits.calls == 2 * pns_tests._CHUNKS_PER_WAVE


def test_mode_clusters_check_between_blocks(monkeypatch):
    x = np.random.default_rng(0).uniform(-np.pi, np.pi, 20_000)
    check = raise_after(1)
    with pytest.raises(FitCancelled):
        periodic_mode_clusters(x, bandwidth=0.01, check=check, method="paper")
    assert check.state["calls"] == 2


def test_r_star_checks_between_replicates():
    from stpca_gui.core.smds.radius import wasserstein_radius

    check = raise_after(4)
    with pytest.raises(FitCancelled):
        wasserstein_radius(3, n=50, n_rep=20, random_state=0, check=check)
    assert check.state["calls"] == 5


# ------------------------------------------------------------------ (b) every stage


@pytest.mark.parametrize("stage", FIT_STAGES)
def test_every_stage_can_be_cancelled_at_its_first_event(clusters_t3, stage):
    seen: list[str] = []

    def cancel_at_stage(event: ProgressEvent) -> bool:
        seen.append(event.stage)
        return event.stage == stage

    model = ScaledTorusPCA(random_state=0)
    with pytest.raises(FitCancelled):
        model.fit(clusters_t3.angles, callback=cancel_at_stage)
    assert seen[-1] == stage and seen.index(stage) == len(seen) - 1
    later = [*FIT_STAGES[FIT_STAGES.index(stage) + 1:], "done"]
    assert not set(later) & set(seen)
    assert not hasattr(model, "scores_")


def test_pns_bootstrap_stage_can_be_cancelled_inside_the_bootstrap(monkeypatch):
    # seq.test runs the vMF bootstrap when the LRT rejects the great sphere.
    fits = Counter(fit_subspheres)
    monkeypatch.setattr(pns_tests, "fit_subspheres", fits)
    monkeypatch.setattr(pns_tests, "_BOOTSTRAP_CHUNK_POINTS", 3000)
    from stpca_gui.core.pns.pns import PrincipalNestedSpheres

    pns = PrincipalNestedSpheres(mode="seq.test", random_state=0)
    with pytest.raises(FitCancelled):
        pns.fit(_tilted_cap(1000), check=raise_after(3))
    assert 0 < fits.calls < 100 // 3
    assert not hasattr(pns, "scores_")


def test_mode_clusters_are_a_cancellable_stage_of_run_analysis():
    seen: list[str] = []

    def cancel_at_modes(event: ProgressEvent) -> bool:
        seen.append(event.stage)
        return event.stage == "modes"

    with pytest.raises(FitCancelled):
        run_analysis(Dataset.from_demo("clusters-t2"), FitParameters(torus_variance=False),
                     callback=cancel_at_modes)
    assert seen[-1] == "modes" and "done" not in seen


def test_every_declared_progress_stage_has_a_display_label():
    from stpca_gui.core.baselines import BASELINES_STAGE
    from stpca_gui.core.circstats.uniformity import MONTE_CARLO_STAGE
    from stpca_gui.core.stpca import FIT_STAGES
    from stpca_gui.gui.progress_labels import STAGE_LABELS, stage_label
    from stpca_gui.io.structures.reader import DIHEDRALS_STAGE
    from stpca_gui.model.analysis import MODES_STAGE

    declared = {*FIT_STAGES, MONTE_CARLO_STAGE, BASELINES_STAGE, MODES_STAGE, DIHEDRALS_STAGE}
    assert declared == set(STAGE_LABELS)
    assert stage_label("smds") == "Spherical MDS"


def test_run_analysis_reports_done_after_the_mode_clusters():
    seen: list[str] = []
    result = run_analysis(Dataset.from_demo("clusters-t2"), FitParameters(torus_variance=False),
                          callback=lambda e: seen.append(e.stage))
    assert seen[-2:] == ["modes", "done"] and seen.count("done") == 1
    assert result.mode_clusters.n_clusters >= 1


# ------------------------------------------------------------------ results unchanged


def _reference_classical_mds(angles, n_components, rng, sphere_radius=None):
    """classical_mds as it was before it had cancel points (one pass per operation)."""
    n = angles.shape[0]
    gram = torus.torus_cdist(angles, angles)
    np.fill_diagonal(gram, 0.0)
    if sphere_radius is None:
        np.square(gram, out=gram)
        row_means = gram.mean(axis=1)
        grand_mean = row_means.mean()
        gram -= row_means[:, None]
        gram -= row_means[None, :]
        gram += grand_mean
        gram *= -0.5
    else:
        gram /= sphere_radius
        np.minimum(gram, np.pi, out=gram)
        np.cos(gram, out=gram)
    k = min(n_components, n - 1)
    if n <= classical._DENSE_EIGH_MAX_N:
        values, vectors = scipy.linalg.eigh(gram, subset_by_index=(n - k, n - 1))
    else:
        width = min(n, k + 10)
        basis, _ = np.linalg.qr(gram @ rng.standard_normal((n, width)))
        for _ in range(classical._START_SUBSPACE_ITERATIONS):
            basis, _ = np.linalg.qr(gram @ basis)
        small = basis.T @ (gram @ basis)
        values, rotation = np.linalg.eigh((small + small.T) / 2.0)
        order = np.argsort(values)[::-1][:k]
        values, vectors = values[order], basis @ rotation[:, order]
    order = np.argsort(values)[::-1]
    coords = vectors[:, order] * np.sqrt(np.clip(values[order], 0.0, None))
    coords *= classical._column_signs(coords)
    config = np.zeros((n, n_components))
    config[:, :k] = coords
    return classical.normalize_rows(config, rng)


@pytest.mark.parametrize("n", [600, 1800])
@pytest.mark.parametrize("sphere_radius", [None, 1.7])
def test_classical_mds_is_bit_identical_with_cancel_points(monkeypatch, n, sphere_radius):
    angles = make_clusters_t3(n_per_cluster=n // 3, random_state=2).angles
    n = angles.shape[0]
    monkeypatch.setattr(torus, "_PDIST_BLOCK_ENTRIES", 97 * n)  # uneven blocks of 97 rows
    monkeypatch.setattr(classical, "_START_BLOCK_ENTRIES", 101 * n)
    check = raise_after(10**9)
    expected = _reference_classical_mds(angles, 4, np.random.default_rng(5), sphere_radius)
    plain = classical.classical_mds(angles, 4, np.random.default_rng(5),
                                    sphere_radius=sphere_radius)
    checked = classical.classical_mds(angles, 4, np.random.default_rng(5),
                                      sphere_radius=sphere_radius, check=check)
    # Cancel points never change the result; against the one-pass reference the blocked
    # products may round differently on some BLAS kernels (seen on AMD EPYC), 1e-14.
    np.testing.assert_array_equal(checked, plain)
    np.testing.assert_allclose(plain, expected, rtol=0, atol=1e-9)
    assert check.state["calls"] > n // 97


def test_torus_pdist_by_blocks_is_bit_identical(monkeypatch):
    monkeypatch.setattr(torus, "_PDIST_BLOCK_ENTRIES", 37 * 500)
    x = np.random.default_rng(3).uniform(-7, 7, (500, 3))
    expected = torus.torus_cdist(x, x)
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_array_equal(torus.torus_pdist(x, check=lambda: None), expected)


def _reference_vmf_pvalue(x, center, n_bootstrap, rng):
    """vmf_test_pvalue with all the replicates drawn and fitted at once (one chunk)."""
    n, m = x.shape
    rbar = min(float(np.linalg.norm(x.sum(axis=0))) / n, 1.0 - 1e-12)
    kappa = (rbar * m - rbar**3) / (1.0 - rbar * rbar)
    xi_sample = float(pns_tests._radial_ratio(pns_tests.geodesic_angles(x, center)))
    seed = int(rng.integers(0, 2**63 - 1))
    samples = pns_tests._replicate_draws(seed, 0, n_bootstrap, n, m, kappa)
    v_b, _, _ = fit_subspheres(samples, great=False, max_iter=pns_tests._MAX_ITER_BOOT)
    c = np.einsum("bnm,bm->bn", samples, v_b)
    s = np.linalg.norm(samples - c[:, :, None] * v_b[:, None, :], axis=2)
    xi_boot = pns_tests._radial_ratio(np.arctan2(s, c))
    return xi_boot, xi_sample


def test_vmf_bootstrap_in_chunks_is_bit_identical(monkeypatch):
    x = _tilted_cap(300)
    center = np.array([0.1, 0.0, 1.0]) / np.hypot(0.1, 1.0)
    xi_boot, xi_sample = _reference_vmf_pvalue(x, center, 60, np.random.default_rng(4))
    expected = float(np.mean(xi_boot > xi_sample))
    captured = {}
    monkeypatch.setattr(pns_tests, "_BOOTSTRAP_CHUNK_POINTS", 7 * 300)
    real = pns_tests._replicate_statistics

    def chunk_statistics(seed, first, *args):
        captured[first] = real(seed, first, *args)  # chunks run on two threads at once
        return captured[first]

    monkeypatch.setattr(pns_tests, "_replicate_statistics", chunk_statistics)
    value = pns_tests.vmf_test_pvalue(x, center, 60, np.random.default_rng(4), lambda: None)
    assert value.p_value == expected and value.n_points == 300
    assert sorted(captured) == list(range(0, 60, 7))
    np.testing.assert_array_equal(np.concatenate([captured[k] for k in sorted(captured)]),
                                  xi_boot)


def test_fit_with_cancel_points_is_bit_identical(monkeypatch):
    monkeypatch.setattr(torus, "_PDIST_BLOCK_ENTRIES", 211 * 1600)
    monkeypatch.setattr(classical, "_START_BLOCK_ENTRIES", 173 * 1600)
    angles = make_clusters_t3(n_per_cluster=534, random_state=3).angles
    assert angles.shape[0] > classical._DENSE_EIGH_MAX_N
    params = dict(random_state=0, max_iter=15, n_bootstrap=20)
    plain = ScaledTorusPCA(**params).fit(angles)
    events = []
    checked = ScaledTorusPCA(**params).fit(angles, callback=events.append)
    assert sum(e.stage == "smds-start" for e in events) > 1600 // 211
    for name in ("embedding_", "scores_", "torus_explained_variance_"):
        np.testing.assert_array_equal(getattr(checked, name), getattr(plain, name))
    np.testing.assert_array_equal(checked.principal_curve_.angles, plain.principal_curve_.angles)


def _tilted_cap(n: int) -> np.ndarray:
    """Points near a small circle on S² (far from isotropic): seq.test runs its bootstrap."""
    rng = np.random.default_rng(7)
    phi = rng.uniform(-np.pi, np.pi, n)
    theta = 0.6 + 0.05 * rng.standard_normal(n)
    return np.column_stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi),
                            np.cos(theta)])


def test_demo_fit_still_reports_the_start_stage_first():
    events = []
    ScaledTorusPCA(random_state=0, torus_variance=False).fit(make_demo("clusters-t2").angles,
                                                             callback=events.append)
    assert events[0].stage == "smds-start" and events[-1].stage == "done"


def test_principal_curve_in_pieces_is_bit_identical_to_one_chain(monkeypatch):
    from stpca_gui.core import stpca
    from stpca_gui.core.prediction import principal_curve

    model = ScaledTorusPCA(random_state=0, torus_variance=False, max_iter=30).fit(
        make_demo("clusters-t3").angles)
    n_points = 50
    parameter = model.pns_.circle_radius_ * np.linspace(-np.pi, np.pi, n_points,
                                                        endpoint=False)
    order = np.roll(np.arange(n_points), -n_points // 2)
    circle = model.pns_.principal_circle(grid=parameter[order])
    chain, _ = model.match_.predict(circle, chain=True)  # the former single chain
    expected = np.empty_like(chain)
    expected[order] = chain
    n = model.angles_.shape[0]
    monkeypatch.setattr(principal_curve, "_CURVE_CHUNK_WORK", 7 * n)  # pieces of 7 points
    events = []
    curve = principal_curve.trace_principal_curve(model.pns_, model.match_, n_points,
                                                  stpca._Reporter(events.append))
    np.testing.assert_array_equal(curve.angles, expected)
    assert len(events) == -(-n_points // 7) and events[-1].fraction == 1.0


def test_principal_curve_checks_between_pieces(monkeypatch):
    from stpca_gui.core import stpca
    from stpca_gui.core.prediction import principal_curve

    model = ScaledTorusPCA(random_state=0, torus_variance=False, max_iter=30).fit(
        make_demo("clusters-t3").angles)
    monkeypatch.setattr(principal_curve, "_CURVE_CHUNK_WORK", 5 * model.angles_.shape[0])
    chains = []
    real = SMDSMatch.predict
    monkeypatch.setattr(SMDSMatch, "predict",
                        lambda self, *a, **k: chains.append(1) or real(self, *a, **k))
    events = []
    with pytest.raises(FitCancelled):
        principal_curve.trace_principal_curve(
            model.pns_, model.match_, 100, stpca._Reporter(lambda e: events.append(e) or True))
    assert len(chains) == 1 and len(events) == 1  # of 20 pieces
