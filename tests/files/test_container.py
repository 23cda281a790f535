"""The hardened container of model files and sessions (stpca_gui/files/container.py).

Hostile files of every kind the issue lists (issue 20) — compressed, encrypted, bombed,
resized, reshaped, mistyped, non-finite — give the file format's own error naming the
file, without allocating what the file declares. A hypothesis fuzz damages real model and
session files (truncation, bit flips, re-compression, resized and reshaped entries) and
checks that reading them gives either a model/session or the file error, with bounded
memory.
"""

from __future__ import annotations

import io
import json
import struct
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stpca_gui.core import ModelFileError, ScaledTorusPCA, load_model
from stpca_gui.files.container import ContainerReader, Limits, write_container
from stpca_gui.model import AppState, Dataset, FitParameters, run_analysis
from stpca_gui.model.session_file import (
    SessionFileError,
    load_session,
    save_session,
    session_from_state,
)

#: Peak Python allocation allowed while reading one damaged file (its size is ~50 kB).
MEMORY_BOUND = 32 << 20


@pytest.fixture(scope="module")
def files(tmp_path_factory, clusters_t3) -> dict[str, Path]:
    """A small real model file and session file (40 points on T³)."""
    folder = tmp_path_factory.mktemp("container")
    parameters = FitParameters(random_state=0, pns_mode="small")
    model = ScaledTorusPCA(random_state=0, pns_mode="small").fit(clusters_t3.angles[:40])
    model_path = model.save(folder / "model.stpca")
    state = AppState()
    state.set_dataset(Dataset(angles=clusters_t3.angles[:40], column_names=("a", "b", "c"),
                              source="forty.csv"))
    state.set_result(run_analysis(state.dataset, parameters))
    session_path = save_session(session_from_state(state, parameters, {}), folder / "s.stpca")
    return {"model": model_path, "session": session_path}


def _entries(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _write(path: Path, entries: dict[str, bytes], methods: dict[str, int] | None = None
           ) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data,
                             compress_type=(methods or {}).get(name, zipfile.ZIP_STORED))
    return path


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array)
    return buffer.getvalue()


def _read_any(path: Path, kind: str) -> object:
    return load_model(path) if kind == "model" else load_session(path)


ERRORS = {"model": ModelFileError, "session": SessionFileError}


# ------------------------------------------------------------------ the reader
def test_round_trip_and_native_writable_arrays(tmp_path):
    big_endian = np.arange(6, dtype=">f8").reshape(2, 3)
    fortran = np.asfortranarray(np.arange(6.0).reshape(3, 2))
    path = write_container(tmp_path / "c.zip", ("", {"a.npy": big_endian, "b.npy": fortran,
                                                     "m.json": b'{"x": [1, 2.5]}'}))
    with ContainerReader(path) as reader:
        assert reader.names == {"a.npy", "b.npy", "m.json"}
        a, b = reader.read_array("a.npy"), reader.read_array("b.npy")
        assert reader.read_json("m.json") == {"x": [1, 2.5]}
    np.testing.assert_array_equal(a, big_endian)
    np.testing.assert_array_equal(b, fortran)
    assert a.dtype.isnative and a.flags.writeable and b.flags.c_contiguous


@pytest.mark.parametrize("method, megabytes", [(zipfile.ZIP_DEFLATED, 48),
                                               (zipfile.ZIP_BZIP2, 1), (zipfile.ZIP_LZMA, 1)],
                         ids=["deflate", "bzip2", "lzma"])
def test_compressed_entries_are_refused_before_inflating(tmp_path, files, method, megabytes):
    entries = _entries(files["model"])
    # 48 MB of JSON that deflates to ~50 kB: a bomb if it were inflated (and parsed).
    entries["metadata.json"] = b'{"pad": "' + b"x" * (megabytes << 20) + b'"}'
    bad = _write(tmp_path / "bomb.stpca", entries, {"metadata.json": method})
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError, match=f"{bad}: .*compressed") as caught:
            load_model(bad)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "stored" in str(caught.value)
    assert peak < MEMORY_BOUND


#: Offsets of two-byte fields in the local and in the central header of a ZIP entry.
_HEADER_FIELDS = {"flags": (6, 8), "method": (8, 10)}


@pytest.mark.parametrize(("field", "change", "problem"), [
    ("method", lambda old: 9, "method 9"),
    ("method", lambda old: 99, "method 99"),
    ("flags", lambda old: old | 1, "encrypted"),  # bit 0: the entry is encrypted
], ids=["method-9", "method-99", "encrypted"])
def test_unsupported_entries_are_file_errors(tmp_path, files, field, change, problem):
    data = bytearray(files["model"].read_bytes())
    for signature, offset in zip((b"PK\x03\x04", b"PK\x01\x02"), _HEADER_FIELDS[field],
                                 strict=True):
        at = 0
        while (at := data.find(signature, at)) >= 0:
            (old,) = struct.unpack_from("<H", data, at + offset)
            struct.pack_into("<H", data, at + offset, change(old))
            at += 4
    bad = tmp_path / f"{field}.stpca"
    bad.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match=f"{bad}: .*{problem}"):
        load_model(bad)


def test_huge_declared_npy_shape_is_refused_without_allocating(tmp_path, files):
    entries = _entries(files["model"])
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }"
    header += b" " * (117 - len(header)) + b"\n"
    entries["arrays/angles_.npy"] = b"\x93NUMPY\x01\x00v\x00" + header + b"\0" * 64
    bad = _write(tmp_path / "huge.stpca", entries)
    with pytest.raises(ModelFileError, match=r"declares shape \(1000000, 1000000\)"):
        load_model(bad)


@pytest.mark.parametrize("array, expected", [
    (np.array([1, 2], dtype=object), "unreadable|object|expected"),
    (np.zeros(3, dtype=[("a", "<f8")]), "not an array of a plain dtype|expected"),
    (np.zeros(3, dtype="M8[s]"), "expected"),
])
def test_object_structured_and_time_arrays_are_refused(tmp_path, files, array, expected):
    entries = _entries(files["model"])
    if array.dtype.hasobject:
        entries["arrays/angles_.npy"] = (b"\x93NUMPY\x01\x00v\x00" + b"{'descr': '|O', "
                                         b"'fortran_order': False, 'shape': (2,), }"
                                         .ljust(117) + b"\n" + b"\0" * 16)
    else:
        entries["arrays/angles_.npy"] = _npy(array)
    bad = _write(tmp_path / "kind.stpca", entries)
    with pytest.raises(ModelFileError, match=expected):
        load_model(bad)


def test_entry_count_and_sizes_are_capped(tmp_path, files):
    entries = _entries(files["model"])
    many = dict(entries, **{f"junk/{k}": b"" for k in range(200)})
    bad = _write(tmp_path / "many.stpca", many)
    with pytest.raises(ModelFileError, match=r"2\d\d entries"):
        ContainerReader(bad, ModelFileError, limits=Limits(max_entries=100))
    with pytest.raises(ModelFileError, match="at most 1,000 are read"):
        ContainerReader(files["model"], ModelFileError, limits=Limits(max_entry_bytes=1000))
    with pytest.raises(ModelFileError, match="of JSON"):
        with ContainerReader(files["model"], ModelFileError,
                             limits=Limits(max_json_bytes=100)) as reader:
            reader.read_json("metadata.json")


def test_duplicate_names_and_json_constants_are_refused(tmp_path, files):
    entries = _entries(files["model"])
    bad = tmp_path / "dup.stpca"
    with zipfile.ZipFile(bad, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
        with pytest.warns(UserWarning):
            archive.writestr("metadata.json", entries["metadata.json"])
    with pytest.raises(ModelFileError, match="twice"):
        load_model(bad)
    metadata = json.loads(entries["metadata.json"])
    metadata["tree"]["attributes"]["radius_"] = float("nan")
    bad = _write(tmp_path / "nan.stpca", dict(entries, **{
        "metadata.json": json.dumps(metadata).encode()}))
    with pytest.raises(ModelFileError, match="NaN is not allowed"):
        load_model(bad)


def test_declared_sizes_must_match_stored_bytes(tmp_path, files):
    data = bytearray(files["model"].read_bytes())
    at = data.find(b"PK\x01\x02")  # the first entry's central record: double its size
    size = struct.unpack_from("<I", data, at + 24)[0]
    struct.pack_into("<I", data, at + 24, 2 * size)
    bad = tmp_path / "sizes.stpca"
    bad.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match=f"{bad}: damaged model file"):
        load_model(bad)


# ------------------------------------------------------------------------ fuzz
def _damage(data: dict[str, bytes], draw: st.DataObject) -> tuple[dict[str, bytes],
                                                                  dict[str, int]]:
    """One damage of a real file's entries: resize, reshape, flip, re-compress."""
    names = sorted(data)
    name = draw.draw(st.sampled_from(names))
    entry = bytearray(data[name])
    kind = draw.draw(st.sampled_from(["resize", "reshape", "flip", "compress", "retype"]))
    methods: dict[str, int] = {}
    if kind == "resize":
        size = draw.draw(st.integers(0, max(len(entry) * 2, 1)))
        entry = entry[:size] + bytes(max(0, size - len(entry)))
    elif kind == "reshape" and name.endswith(".npy") and len(entry) > 12:
        shape = draw.draw(st.lists(st.integers(0, 10**12), min_size=0, max_size=4))
        header = f"{{'descr': '<f8', 'fortran_order': False, 'shape': {tuple(shape)}, }}"
        entry = bytearray(b"\x93NUMPY\x01\x00" + struct.pack("<H", 118)
                          + header.encode().ljust(117) + b"\n") + entry[128:]
    elif kind == "retype" and name.endswith(".npy") and len(entry) > 128:
        descr = draw.draw(st.sampled_from(["<i8", "<f4", "<c16", "<U2", "|b1", ">f8", "|O"]))
        text = bytes(entry[10:128]).decode("latin-1")
        start = text.index("'descr': '") + 10
        stop = text.index("'", start)
        text = (text[:start] + descr + text[stop:]).ljust(117)[:117] + "\n"
        entry[10:128] = text.encode("latin-1")
    elif kind == "flip" and entry:
        for _ in range(draw.draw(st.integers(1, 8))):
            at = draw.draw(st.integers(0, len(entry) - 1))
            entry[at] ^= 1 << draw.draw(st.integers(0, 7))
    elif kind == "compress":
        methods[name] = zipfile.ZIP_DEFLATED
    return {**data, name: bytes(entry)}, methods


@pytest.mark.parametrize("kind", ["model", "session"])
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_files_give_file_errors_only(kind, files, tmp_path, data):
    path = files[kind]
    raw = path.read_bytes()
    bad = tmp_path / f"fuzz-{kind}.stpca"
    how = data.draw(st.sampled_from(["entries", "truncate", "flip"]))
    if how == "entries":
        entries, methods = _damage(_entries(path), data)
        _write(bad, entries, methods)
    elif how == "truncate":
        bad.write_bytes(raw[:data.draw(st.integers(0, len(raw) - 1))])
    else:
        damaged = bytearray(raw)
        for _ in range(data.draw(st.integers(1, 16))):
            at = data.draw(st.integers(0, len(raw) - 1))
            damaged[at] ^= 1 << data.draw(st.integers(0, 7))
        bad.write_bytes(bytes(damaged))
    tracemalloc.start()
    try:
        try:
            loaded = _read_any(bad, kind)
        except ERRORS[kind] as exc:
            assert str(exc).startswith(str(bad)), exc
            loaded = None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, f"{peak:,} bytes to read a {bad.stat().st_size:,}-byte file"
    if loaded is not None and kind == "model":
        # Whatever was accepted is a model the kernels can score without crashing.
        assert loaded.transform(loaded.angles_[:3]).shape == (3, loaded.n_features_in_)
