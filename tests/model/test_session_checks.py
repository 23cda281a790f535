"""Hand-edited sessions are refused on load, field by field (issue 29, item 2): the mode
clusters, the structure record and the frame column, with the file and the field named;
``representatives`` and ``export-script`` never see them. And a record naming one file
under many aliases hashes it once."""

from __future__ import annotations

import numpy as np
import pytest
from session_files import tampered_copy

from stpca_gui.cli import main
from stpca_gui.model.session_file import SessionFileError, load_session


@pytest.fixture(scope="module")
def clustered(tmp_path_factory):
    """A session of 120 samples in two clusters (tested rule)."""
    folder = tmp_path_factory.mktemp("clustered")
    rng = np.random.default_rng(0)
    a = np.r_[rng.normal(-2, 0.3, 60), rng.normal(1, 0.3, 60)]
    b = rng.normal(0, 0.5, 120)
    table = folder / "t.csv"
    table.write_text("a,b\n" + "".join(f"{x},{y}\n" for x, y in zip(a, b, strict=True)))
    assert main(["fit", str(table), "--curve-points", "20",
                 "--save-session", str(folder / "s.stpca")]) == 0
    return folder / "s.stpca"


LABELS = "arrays/result.mode_clusters.labels.npy"


def _clusters(metadata):
    return metadata["result"]["mode_clusters"]["fields"]


def _test(metadata):
    return _clusters(metadata)["mode_test"]["fields"]


@pytest.mark.parametrize(("arrays", "edit", "message"), [
    ({LABELS: np.full(120, -1)}, None, "labels run from -1 to -1, but there are 2"),
    ({LABELS: np.full(120, 10**12)}, None, "labels run from 1000000000000"),
    ({LABELS: np.full(120, 0.5)}, None, "labels are not whole numbers"),
    ({LABELS: np.arange(120) % 98}, None, "labels run from 0 to 97, but there are 2"),
    (None, lambda m: _test(m).update(alpha="0.05"), "level α is not a number"),
    (None, lambda m: _test(m).update(n_modes=3), "found 3 modes, but the clusters have 2"),
    (None, lambda m: _clusters(m).update(bandwidth=-1), "bandwidth is -1.0"),
    (None, lambda m: _clusters(m).update(method="magic"), "rule 'magic'"),
])
def test_tampered_mode_clusters_are_refused_naming_file_and_field(
        tmp_path, clustered, arrays, edit, message):
    bad = tampered_copy(clustered, tmp_path / "bad.stpca", edit=edit, arrays=arrays)
    with pytest.raises(SessionFileError) as caught:
        load_session(bad)
    assert str(bad) in str(caught.value) and message in str(caught.value)


def test_representatives_of_tampered_labels_write_nothing(tmp_path, clustered, capsys):
    bad = tampered_copy(clustered, tmp_path / "bad.stpca",
                    arrays={LABELS: np.full(120, np.iinfo(np.int64).min)})
    assert main(["representatives", str(bad), "x.psf", "--out", str(tmp_path / "o")]) == 1
    assert "labels run from" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


mda = pytest.importorskip("MDAnalysis")
datafiles = pytest.importorskip("MDAnalysisTests.datafiles")


@pytest.fixture(scope="module")
def structured(tmp_path_factory):
    """A session of a per-frame table read with stpca dihedrals (with its record)."""
    folder = tmp_path_factory.mktemp("structured")
    table = folder / "loop.csv"
    assert main(["dihedrals", datafiles.PSF, datafiles.DCD, "--select", "resid 10:11",
                 "--layout", "per-frame", "--out", str(table)]) == 0
    assert main(["fit", str(table), "--degrees", "--curve-points", "20",
                 "--save-session", str(folder / "loop.stpca")]) == 0
    return folder / "loop.stpca"


def _record(metadata):
    return metadata["dataset"]["structure"]["items"]


@pytest.mark.parametrize(("edit", "arrays", "message"), [
    (lambda m: _record(m).update(sha256="abc"), None, "sha256 is not an object"),
    (lambda m: _record(m).update(sha256=["abc"]), None, "sha256 is not an object"),
    (lambda m: _record(m).pop("sha256"), None, "sha256 is not an object"),
    (lambda m: _record(m).pop("topology"), None, "topology"),
    (lambda m: _record(m).update(trajectories=3), None, "trajectories"),
    (lambda m: _record(m)["settings"]["items"].update(layout="pooled"), None,
     "lack the provenance column(s) segid, resid, resname"),
    (None, {"arrays/dataset.provenance.frame.npy": np.full(98, 1e30)},
     "frame column does not hold frame numbers"),
])
def test_tampered_structure_records_are_refused_on_load(tmp_path, structured, edit, arrays,
                                                        message):
    bad = tampered_copy(structured, tmp_path / "bad.stpca", edit=edit, arrays=arrays)
    with pytest.raises(SessionFileError) as caught:
        load_session(bad)
    assert str(bad) in str(caught.value) and message in str(caught.value)


def test_one_file_under_many_aliases_is_hashed_once(tmp_path, structured, monkeypatch):
    import os

    import stpca_gui.files.digest as digest_module
    from stpca_gui.io.structures import check_fingerprints

    session = load_session(structured)
    record = dict(session.dataset.structure)
    trajectory = record["trajectories"][0]
    aliases = []
    for k in range(40):
        alias = tmp_path / f"alias{k}.dcd"
        os.symlink(trajectory, alias)
        aliases.append(str(alias))
    record["trajectories"] = aliases
    record["sha256"] = {record["topology"]: record["sha256"][record["topology"]],
                        **{a: record["sha256"][trajectory] for a in aliases}}
    hashed = []
    real = digest_module.file_sha256
    monkeypatch.setattr(digest_module, "file_sha256",
                        lambda path: hashed.append(path) or real(path))
    check_fingerprints(record)
    assert len(hashed) == 2  # the topology and the one trajectory behind 40 names
