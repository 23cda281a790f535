"""Model files: every fitted attribute round-trips, transforms are bit-identical after loading,
and bad files give a ModelFileError naming the file and the problem."""

from __future__ import annotations

import dataclasses
import json
import pickle
import struct
import zipfile

import numpy as np
import pytest

from stpca_gui.core import ModelFileError, ScaledTorusPCA, make_demo
from stpca_gui.core._base.params import Estimator
from stpca_gui.core.persistence import FORMAT_VERSION, METADATA_ENTRY, load_model, save_model


@pytest.fixture(scope="module", params=["exact", "landmarks"])
def fitted(request, clusters_t3):
    """An exact fit and a landmark fit (60 of 300 points) of the T³ clusters."""
    n_landmarks = None if request.param == "exact" else 60
    return ScaledTorusPCA(n_landmarks=n_landmarks, random_state=0).fit(clusters_t3.angles)


@pytest.fixture(scope="module")
def new_angles():
    return make_demo("clusters-t3", random_state=1).angles[:80]


def _assert_identical(original, loaded, path="model"):
    """Same types and the same bits, recursively through the estimators and records."""
    assert type(loaded) is type(original), path
    if isinstance(original, np.ndarray):
        assert loaded.dtype == original.dtype and loaded.shape == original.shape, path
        assert loaded.tobytes() == original.tobytes(), path
    elif isinstance(original, float):
        assert struct.pack("<d", loaded) == struct.pack("<d", original), path
    elif isinstance(original, list | tuple):
        assert len(loaded) == len(original), path
        for k, (a, b) in enumerate(zip(original, loaded, strict=True)):
            _assert_identical(a, b, f"{path}[{k}]")
    elif isinstance(original, dict):
        assert list(loaded) == list(original), path
        for key in original:
            _assert_identical(original[key], loaded[key], f"{path}[{key!r}]")
    elif isinstance(original, Estimator) or dataclasses.is_dataclass(original):
        assert sorted(vars(loaded)) == sorted(vars(original)), path
        for key, value in vars(original).items():
            _assert_identical(value, getattr(loaded, key), f"{path}.{key}")
    elif isinstance(original, np.generic):
        assert loaded.tobytes() == original.tobytes(), path
    else:
        assert loaded == original, path


def test_every_fitted_attribute_round_trips_exactly(fitted, tmp_path):
    nested = [name for name, value in vars(fitted).items()
              if isinstance(value, Estimator) or dataclasses.is_dataclass(value)]
    assert {"smds_", "pns_", "match_", "principal_curve_"} <= set(nested)
    path = save_model(fitted, tmp_path / "model.stpca")
    loaded = load_model(path)
    _assert_identical(fitted, loaded)
    # Arrays shared in the fit (the landmark angles of the SMDS fit and of the match) are
    # stored once and shared again.
    assert loaded.match_.angles is loaded.smds_.angles_


def test_transforms_are_bit_identical_after_loading(fitted, new_angles, tmp_path):
    fitted.save(tmp_path / "model.stpca")
    loaded = ScaledTorusPCA.load(tmp_path / "model.stpca")
    scores = fitted.transform(new_angles)
    assert loaded.transform(new_angles).tobytes() == scores.tobytes()
    assert loaded.inverse_transform(scores).tobytes() == fitted.inverse_transform(
        scores).tobytes()


def test_pickle_round_trips(fitted, new_angles):
    copy = pickle.loads(pickle.dumps(fitted))
    _assert_identical(fitted, copy)
    assert copy.transform(new_angles).tobytes() == fitted.transform(new_angles).tobytes()


def test_the_file_is_reproducible_and_readable_without_this_package(fitted, tmp_path):
    first, second = tmp_path / "a.stpca", tmp_path / "b.stpca"
    save_model(fitted, first)
    save_model(fitted, second)
    assert first.read_bytes() == second.read_bytes()
    with np.load(first, allow_pickle=False) as archive:  # plain numpy reads the arrays
        np.testing.assert_array_equal(archive["arrays/projections_.npy"], fitted.projections_)
    metadata = json.loads(zipfile.ZipFile(first).read(METADATA_ENTRY))
    assert metadata["format"] == "stpca-model"
    assert metadata["format_version"] == FORMAT_VERSION
    assert metadata["tree"]["parameters"]["n_landmarks"] == fitted.n_landmarks


def test_generator_seed_is_stored_as_none_and_array_start_as_array(fitted, tmp_path):
    model = pickle.loads(pickle.dumps(fitted))
    start = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    model.set_params(random_state=np.random.default_rng(5), smds_init=start)
    save_model(model, tmp_path / "model.stpca")
    loaded = load_model(tmp_path / "model.stpca")
    assert loaded.random_state is None
    np.testing.assert_array_equal(loaded.smds_init, start)
    notes = json.loads(zipfile.ZipFile(tmp_path / "model.stpca").read(METADATA_ENTRY))["notes"]
    assert notes == ["random_state: a numpy Generator was given; stored as None"]


@pytest.mark.parametrize(("where", "name"), [(None, "mystery_"), ("pns_", "cache_"),
                                             (None, "_private")])
def test_an_unsupported_attribute_fails_at_save_and_writes_nothing(fitted, tmp_path, where,
                                                                   name):
    model = pickle.loads(pickle.dumps(fitted))
    setattr(model if where is None else getattr(model, where), name, {1, 2})
    target = tmp_path / "model.stpca"
    with pytest.raises(TypeError, match=rf"cannot save {where + '.' if where else ''}{name}"):
        save_model(model, target)
    assert list(tmp_path.iterdir()) == []


def test_an_unfitted_model_cannot_be_saved(tmp_path):
    with pytest.raises(RuntimeError, match="not fitted"):
        ScaledTorusPCA().save(tmp_path / "model.stpca")


def _rewrite(source, target, *, drop=None, metadata_change=None, metadata_text=None):
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            content = old.read(name)
            if name == drop:
                continue
            if name == METADATA_ENTRY and metadata_change is not None:
                metadata = json.loads(content)
                metadata_change(metadata)
                content = json.dumps(metadata).encode()
            if name == METADATA_ENTRY and metadata_text is not None:
                content = metadata_text.encode()
            new.writestr(name, content)


def _newer(metadata):
    metadata["format_version"] = FORMAT_VERSION + 1
    metadata["package_version"] = "9.0"


def _foreign_class(metadata):
    metadata["tree"]["attributes"]["match_"]["class"] = "os.system"


@pytest.mark.parametrize(("damage", "message"), [
    ("missing", "no such file"),
    ("text", r"not an stpca model file \(not a ZIP archive\)"),
    ("truncated", r"not a ZIP archive|damaged model file"),
    ("flipped", "damaged model file"),
    ("plain npz", r"not an stpca model file \(no metadata.json\)"),
    ("other format", "does not name the format 'stpca-model'"),
    ("missing entry", "the entry arrays/projections_.npy is missing"),
    ("newer", rf"written by stpca-gui 9.0 in model file format {FORMAT_VERSION + 1}.*upgrade"),
    ("foreign class", "the class 'os.system', which is not one a model file may hold"),
    ("bad json", "damaged model file"),
])
def test_bad_files_are_model_file_errors_naming_the_file(fitted, tmp_path, damage, message):
    good = save_model(fitted, tmp_path / "good.stpca")
    bad = tmp_path / "bad.stpca"
    content = good.read_bytes()
    if damage == "text":
        bad.write_text("phi,psi\n1,2\n")
    elif damage == "truncated":
        bad.write_bytes(content[: len(content) // 2])
    elif damage == "flipped":
        # Damage the bytes of an array (past its header) so only its CRC can tell.
        with zipfile.ZipFile(good) as archive:
            info = archive.getinfo("arrays/projections_.npy")
        at = info.header_offset + 30 + len(info.filename) + 200
        bad.write_bytes(content[:at] + bytes([content[at] ^ 0xFF]) + content[at + 1:])
    elif damage == "plain npz":
        with open(bad, "wb") as handle:
            np.savez(handle, scores=np.zeros(3))
    elif damage == "other format":
        _rewrite(good, bad, metadata_change=lambda m: m.update(format="something-else"))
    elif damage == "missing entry":
        _rewrite(good, bad, drop="arrays/projections_.npy")
    elif damage == "newer":
        _rewrite(good, bad, metadata_change=_newer)
    elif damage == "foreign class":
        _rewrite(good, bad, metadata_change=_foreign_class)
    elif damage == "bad json":
        _rewrite(good, bad, metadata_text="{not json")
    with pytest.raises(ModelFileError, match=message) as caught:
        load_model(bad)
    assert str(bad) in str(caught.value)
    assert isinstance(caught.value, ValueError)
