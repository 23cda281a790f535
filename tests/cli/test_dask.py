"""Scoring on dask: ``transform``/``inverse_transform`` of dask arrays, computed on a local
cluster of two worker processes, and ``stpca transform --scheduler``."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.cli import main
from stpca_gui.core import ScaledTorusPCA, make_demo

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def model(clusters_t3):
    return ScaledTorusPCA(n_landmarks=60, random_state=0, torus_variance=False).fit(
        clusters_t3.angles)


@pytest.fixture(scope="module")
def new_angles():
    return make_demo("clusters-t3", random_state=4).angles


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes of one thread each, closed after the module."""
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as local:
        yield local


def test_dask_arrays_give_dask_arrays_built_blockwise(model, new_angles):
    # Columns split across chunks are gathered, so each block holds whole rows.
    X = da.from_array(new_angles, chunks=(70, 2))
    scores = model.transform(X)
    assert isinstance(scores, da.Array)
    assert scores.chunks == ((70, 70, 70, 70, 20), (3,))
    expected = model.transform(new_angles)
    np.testing.assert_array_equal(scores.compute(scheduler="sync"), expected)
    angles = model.inverse_transform(da.from_array(expected, chunks=(100, 3)))
    np.testing.assert_array_equal(angles.compute(scheduler="sync"),
                                  model.inverse_transform(expected))


def test_a_dask_array_of_the_wrong_width_is_refused(model, new_angles):
    with pytest.raises(ValueError, match=r"X must have shape \(n, 3\); got \(300, 2\)"):
        model.transform(da.from_array(new_angles[:, :2], chunks=100))


def test_the_tasks_carry_the_geometry_not_the_training_scores(model):
    geometry = model._pns_geometry()
    assert not hasattr(geometry, "scores_") and hasattr(model.pns_, "scores_")
    np.testing.assert_allclose(geometry.transform(model.embedding_), model.scores_, rtol=0,
                               atol=1e-12)


def test_a_local_cluster_gives_the_in_memory_results(cluster, model, new_angles):
    X = da.from_array(new_angles, chunks=(60, 3))
    with distributed.Client(cluster) as client:
        scores = client.compute(model.transform(X)).result()
        expected = model.transform(new_angles)
        np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-9)
        angles = client.compute(model.inverse_transform(da.from_array(expected, chunks=50))
                                ).result()
    difference = np.angle(np.exp(1j * (angles - model.inverse_transform(expected))))
    np.testing.assert_allclose(difference, 0.0, atol=1e-9)


def test_stpca_transform_on_a_scheduler_gives_the_local_scores(cluster, model, new_angles,
                                                               tmp_path, capsys):
    model_path = model.save(tmp_path / "model.stpca")
    source = tmp_path / "new.csv"
    np.savetxt(source, new_angles, delimiter=",", header="a,b,c", comments="", fmt="%.17g")
    local, remote = tmp_path / "local.csv", tmp_path / "remote.csv"
    assert main(["transform", str(model_path), str(source), "--out", str(local)]) == 0
    code = main(["transform", str(model_path), str(source), "--out", str(remote),
                 "--chunk-rows", "45", "--scheduler", cluster.scheduler_address])
    assert code == 0, capsys.readouterr().err
    here = np.loadtxt(local, delimiter=",", skiprows=1)
    there = np.loadtxt(remote, delimiter=",", skiprows=1)
    np.testing.assert_array_equal(there[:, 0], np.arange(2, 302))  # in input order
    np.testing.assert_allclose(there, here, rtol=0, atol=1e-9)
    np.testing.assert_allclose(here[:, 1:], model.transform(new_angles), rtol=0, atol=1e-12)


def test_an_unreachable_scheduler_is_a_message(model, new_angles, tmp_path, capsys,
                                               monkeypatch):
    monkeypatch.setattr("stpca_gui.cli.transform.SCHEDULER_TIMEOUT", "1s")
    model_path = model.save(tmp_path / "model.stpca")
    source = tmp_path / "new.csv"
    np.savetxt(source, new_angles, delimiter=",", fmt="%.17g")
    out = tmp_path / "scores.csv"
    code = main(["transform", str(model_path), str(source), "--out", str(out),
                 "--scheduler", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 1 and "cannot reach the dask scheduler at tcp://127.0.0.1:9" in err
    assert not out.exists()
