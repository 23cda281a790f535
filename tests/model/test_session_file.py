"""Session files (stpca_gui/model/session_file.py): round trips and rejected files."""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from project_paths import REPO

from stpca_gui.io import read_angle_table
from stpca_gui.model import AppState, Dataset, FitParameters, run_analysis
from stpca_gui.model.session_file import (
    HISTORY_SAVED,
    SESSION_FORMAT_VERSION,
    SessionFileError,
    apply_session,
    file_format,
    load_session,
    save_session,
    session_from_state,
)

VIEWS = {"torus": {"camera": {"position": [9.5, -3.25, 4.0], "focal_point": [0.0, 0.0, 0.0],
                              "view_up": [0.0, 0.0, 1.0], "parallel_scale": 4.5},
                   "layout": "square"},
         "sphere": {"camera": {"position": [1.0, 2.0, 3.0], "focal_point": [0.0, 0.0, 0.0],
                               "view_up": [0.0, 1.0, 0.0], "parallel_scale": 1.25}}}


@pytest.fixture(scope="module")
def table_dataset(tmp_path_factory) -> Dataset:
    """A file read with labels, a skipped row, line numbers as row ids and degrees."""
    rng = np.random.default_rng(3)
    folder = tmp_path_factory.mktemp("table")
    path = folder / "angles.csv"
    lines = ["phi,psi,group"]
    for k in range(70):
        centre = (-100.0, 60.0) if k % 2 else (80.0, -120.0)
        phi, psi = rng.normal(centre, 25.0)
        lines.append(f"{phi:.4f},{psi:.4f},{'ab'[k % 2]}")
    lines.insert(5, "oops,12.0,a")
    path.write_text("\n".join(lines) + "\n")
    table = read_angle_table(path, ["phi", "psi"], degrees=True, label_column="group",
                             drop_invalid=True)
    return Dataset.from_table(table, degrees=True)


@pytest.fixture(scope="module")
def fitted(table_dataset):
    parameters = FitParameters(n_curve_points=60)
    return parameters, run_analysis(table_dataset, parameters)


def _state(dataset, result=None) -> AppState:
    state = AppState()
    state.set_dataset(dataset)
    if result is not None:
        state.set_result(result)
    return state


def _select(state: AppState, changes: int = 3) -> None:
    n = state.dataset.n_samples
    for k in range(changes):
        state.selection.active_group = 1 + k % 3
        state.selection.apply(np.arange(k, min(n, k + 10)), "add")


def _rewrite(source: Path, target: Path, change) -> None:
    """Copy a ZIP archive entry by entry, letting ``change(entries)`` edit the dict."""
    with zipfile.ZipFile(source) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    change(entries)
    with zipfile.ZipFile(target, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def saved(tmp_path_factory, table_dataset, fitted) -> tuple[Path, AppState]:
    result = fitted[1]
    state = _state(table_dataset, result)
    _select(state)
    state.set_color_mode("cluster")
    state.set_scatter_components(1, 0)
    path = tmp_path_factory.mktemp("session") / "work.stpca"
    save_session(session_from_state(state, FitParameters(n_init=3), VIEWS), path)
    return path, state


def test_paper_rule_clusters_round_trip_as_paper_rule(tmp_path, table_dataset, fitted):
    """A session whose clusters were made by the paper's rule (or saved before the test
    existed: the record's default) reads back as the paper's rule, not as tested."""
    import dataclasses

    from stpca_gui.core.clusters import model_mode_clusters

    _, result = fitted
    paper = model_mode_clusters(result.model, method="paper")
    copy = dataclasses.replace(
        result, parameters=dataclasses.replace(result.parameters, cluster_rule="paper"),
        mode_clusters=paper, paper_mode_clusters=paper)
    path = tmp_path / "paper.stpca"
    save_session(session_from_state(_state(table_dataset, copy), FitParameters(), {}), path)
    loaded = load_session(path).result.mode_clusters
    assert loaded.method == "paper" and loaded.mode_test is None
    np.testing.assert_array_equal(loaded.antimodes, paper.antimodes)


def test_round_trip_restores_result_selection_and_choices(saved, fitted):
    path, original = saved
    _, result = fitted
    session = load_session(path)
    assert session.name == "work" and session.notes == ()
    state = AppState()
    apply_session(session, state)

    loaded = state.result
    assert loaded is not result and loaded.dataset is state.dataset
    for name in ("scores", "sphere_ratio", "torus_ratio"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(result, name))
    np.testing.assert_array_equal(loaded.curve.angles, result.curve.angles)
    np.testing.assert_array_equal(loaded.model.embedding_, result.model.embedding_)
    assert loaded.radius == result.radius and loaded.stress == result.stress
    assert loaded.wall_time == result.wall_time
    np.testing.assert_array_equal(loaded.mode_clusters.labels, result.mode_clusters.labels)
    # The rule, its level and test (k̂, every step's p-value) and the stability come back.
    assert loaded.mode_clusters.method == result.mode_clusters.method == "tested"
    assert loaded.mode_clusters.mode_test == result.mode_clusters.mode_test
    np.testing.assert_array_equal(loaded.mode_clusters.stability, result.mode_clusters.stability)
    # The paper rule's clusters, which the session does not keep, are computed on reading
    # (not left for the GUI thread), the same as the fit's.
    assert loaded.paper_mode_clusters is not None
    np.testing.assert_array_equal(loaded.paper_mode_clusters.labels,
                                  result.paper_mode_clusters.labels)
    assert loaded.summary_rows() == result.summary_rows()
    # The loaded model still scores new data exactly like the fitted one.
    probe = original.dataset.angles[:7] + 0.01
    np.testing.assert_array_equal(loaded.model.transform(probe), result.model.transform(probe))

    assert session.parameters == FitParameters(n_init=3)
    assert loaded.parameters == result.parameters
    np.testing.assert_array_equal(state.selection.groups, original.selection.groups)
    assert state.selection.active_group == original.selection.active_group
    assert state.color_mode == "cluster" and state.scatter_components == (1, 0)
    assert state.torus_axes == original.torus_axes
    assert session.views == VIEWS

    # The undo history came along: undoing on both sides gives the same groups.
    for _ in range(3):
        assert state.selection.undo() and original.selection.undo()
        np.testing.assert_array_equal(state.selection.groups, original.selection.groups)
    assert not state.selection.can_undo and not state.selection.groups.any()
    for _ in range(3):
        original.selection.redo()


def test_file_loaded_dataset_round_trips(saved, table_dataset):
    session = load_session(saved[0])
    data = session.dataset
    np.testing.assert_array_equal(data.angles, table_dataset.angles)
    np.testing.assert_array_equal(data.labels, table_dataset.labels)
    np.testing.assert_array_equal(data.row_ids, table_dataset.row_ids)
    assert data.row_ids[3:5].tolist() == [5, 7]  # line 6 of the file was skipped
    assert data.dropped == table_dataset.dropped and len(data.dropped) == 1
    assert data.unit_note == "converted from degrees"
    assert data.column_names == ("phi", "psi") and data.source == table_dataset.source
    assert data.description == table_dataset.description
    assert session.source_path == table_dataset.source
    assert session.source_sha256 is not None and len(session.source_sha256) == 64


def test_layout_first_entry_and_identical_resave(saved, tmp_path):
    path = saved[0]
    raw = path.read_bytes()
    # What the desktop's MIME type matches (resources/…mime.xml): the first local header.
    assert raw[:4] == b"PK\x03\x04" and raw[30:43] == b"metadata.json"
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        metadata = json.loads(archive.read("metadata.json"))
    assert names[0] == "metadata.json" and "model/metadata.json" in names
    assert metadata["format"] == "stpca-session"
    assert metadata["format_version"] == SESSION_FORMAT_VERSION
    assert file_format(path) == "stpca-session"
    again = save_session(load_session(path), tmp_path / "again.stpca")
    assert again.read_bytes() == raw


def test_how_the_data_were_made_round_trips(tmp_path):
    """The records Export as Python Script rebuilds the data from (demo seed, read options,
    lagged embeddings) come back from a session."""
    demo = Dataset.from_demo("clusters-t2", random_state=5).lagged(1, 3)
    wide = Dataset.from_demo("clusters-t3", random_state=2, cluster_sd=0.55)
    table = Dataset.from_table(read_angle_table(_table_file(tmp_path), ["phi", "psi"],
                                                degrees=True),
                               degrees=True, options={"columns": ["phi", "psi"],
                                                      "degrees": True})
    for dataset in (demo, wide, table):
        save_session(session_from_state(_state(dataset), FitParameters(), {}),
                     tmp_path / "s.stpca")
        loaded = load_session(tmp_path / "s.stpca").dataset
        assert loaded.demo_seed == dataset.demo_seed
        assert loaded.demo_options == dataset.demo_options
        assert loaded.table_options == dataset.table_options
        assert loaded.lagged_embeddings == dataset.lagged_embeddings
    assert loaded.table_options["degrees"] is True and demo.lagged_embeddings == ((1, 3),)
    assert demo.demo_options == {} and wide.demo_options == {"cluster_sd": 0.55}
    assert "cluster sd 0.55" in wide.description


def test_a_non_default_cluster_sd_survives_save_and_open(tmp_path):
    """Opening gives the demo's data and its recipe, which rebuilds them bit for bit."""
    from stpca_gui.core import make_demo

    dataset = Dataset.from_demo("clusters-t2", random_state=7, cluster_sd=0.45)
    save_session(session_from_state(_state(dataset), FitParameters(), {}),
                 tmp_path / "wide.stpca")
    loaded = load_session(tmp_path / "wide.stpca").dataset
    rebuilt = make_demo(loaded.name, random_state=loaded.demo_seed, **loaded.demo_options)
    assert rebuilt.angles.tobytes() == loaded.angles.tobytes() == dataset.angles.tobytes()
    default = make_demo("clusters-t2", random_state=7)
    assert default.angles.tobytes() != loaded.angles.tobytes()


def _table_file(folder: Path) -> Path:
    path = folder / "small.csv"
    path.write_text("phi,psi\n10,20\n-30,170\n100,-60\n45,45\n")
    return path


def test_session_without_result_and_trimmed_history(table_dataset, tmp_path):
    state = _state(table_dataset)
    _select(state, HISTORY_SAVED + 5)
    state.set_color_mode("selection")
    path = save_session(session_from_state(state, FitParameters(), {}), tmp_path / "s.stpca")
    session = load_session(path)
    assert session.result is None and session.views == {}
    restored = AppState()
    apply_session(session, restored)
    assert restored.result is None and restored.color_mode == "selection"
    undone = 0
    while restored.selection.undo():
        undone += 1
        state.selection.undo()
        np.testing.assert_array_equal(restored.selection.groups, state.selection.groups)
    assert undone == HISTORY_SAVED


def test_unknown_dataset_field_is_ignored_with_a_note(saved, tmp_path):
    def add_field(entries):
        metadata = json.loads(entries["metadata.json"])
        metadata["dataset"]["acquisition_date"] = "2031-01-01"  # a later version's field
        entries["metadata.json"] = json.dumps(metadata).encode()

    target = tmp_path / "newer-field.stpca"
    _rewrite(saved[0], target, add_field)
    session = load_session(target)
    assert session.result is not None
    assert any("acquisition_date" in note for note in session.notes)


# ----------------------------------------------------------------- rejected files
def _rejected(path: Path, *words: str) -> str:
    with pytest.raises(SessionFileError) as info:
        load_session(path)
    message = str(info.value)
    assert message.startswith(str(path))
    for word in words:
        assert word in message
    return message


def test_not_a_zip_and_missing_file(tmp_path):
    table = tmp_path / "table.stpca"
    table.write_text("phi,psi\n1,2\n")
    _rejected(table, "not an stpca session file", "not a ZIP")
    _rejected(tmp_path / "nowhere.stpca", "no such file")


def test_truncated_files_are_rejected(saved, tmp_path):
    raw = saved[0].read_bytes()
    for length in (0, 3, 10, 200, len(raw) // 2, len(raw) - 23, len(raw) - 1):
        cut = tmp_path / f"cut{length}.stpca"
        cut.write_bytes(raw[:length])
        message = _rejected(cut)
        assert "truncated" in message or "not a ZIP" in message or "damaged" in message


def test_flipped_bytes_in_an_array_are_caught(saved, tmp_path):
    raw = bytearray(saved[0].read_bytes())
    with zipfile.ZipFile(saved[0]) as archive:
        info = archive.getinfo("arrays/dataset.angles.npy")
    # The data start after the local header (30 bytes + name + extra) and the npy header.
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 200
    raw[start] ^= 0xFF
    damaged = tmp_path / "flipped.stpca"
    damaged.write_bytes(bytes(raw))
    _rejected(damaged, "damaged")


def test_missing_entry(saved, tmp_path):
    target = tmp_path / "missing.stpca"
    _rewrite(saved[0], target, lambda entries: entries.pop("arrays/selection.groups.npy"))
    _rejected(target, "arrays/selection.groups.npy", "missing")
    no_model = tmp_path / "no-model.stpca"
    _rewrite(saved[0], no_model, lambda entries: entries.pop("model/arrays/pns_.radii_.npy"))
    _rejected(no_model, "model/arrays/pns_.radii_.npy", "fitted model")


def test_newer_version_asks_for_an_upgrade(saved, tmp_path):
    def bump(entries):
        metadata = json.loads(entries["metadata.json"])
        metadata["format_version"] = SESSION_FORMAT_VERSION + 1
        entries["metadata.json"] = json.dumps(metadata).encode()

    target = tmp_path / "newer.stpca"
    _rewrite(saved[0], target, bump)
    _rejected(target, f"session file format {SESSION_FORMAT_VERSION + 1}", "upgrade stpca-gui")


def test_model_file_is_not_a_session(fitted, tmp_path):
    path = fitted[1].model.save(tmp_path / "model.stpca")
    assert file_format(path) == "stpca-model"
    _rejected(path, "model file", "not a session")


def test_pickled_object_array_is_refused(saved, tmp_path):
    target = tmp_path / "pickle.stpca"
    evil = np.array([{"a": 1}, None], dtype=object)
    _rewrite(saved[0], target,
             lambda entries: entries.__setitem__("arrays/dataset.labels.npy", _npy(evil)))
    _rejected(target, "damaged", "pickle")


def test_data_that_do_not_match_their_hash(saved, tmp_path):
    def shift(entries):
        angles = np.load(io.BytesIO(entries["arrays/dataset.angles.npy"]))
        entries["arrays/dataset.angles.npy"] = _npy(np.roll(angles, 1, axis=0))

    target = tmp_path / "shifted.stpca"
    _rewrite(saved[0], target, shift)
    _rejected(target, "SHA-256")


def test_inconsistent_selection_history(saved, tmp_path):
    def corrupt(entries):
        name = "arrays/selection.history.0.after.npy"
        after = np.load(io.BytesIO(entries[name]))
        entries[name] = _npy((after + 1) % 6)

    target = tmp_path / "history.stpca"
    _rewrite(saved[0], target, corrupt)
    _rejected(target, "undo step")


def test_session_dataclass_fields_are_documented():
    from stpca_gui.model.session_file import Session

    text = (REPO / "docs" / "session_file.md").read_text()
    for f in dataclasses.fields(Session):
        assert f"`{f.name}`" in text, f.name


# ------------------------------------------------------------------- issue 20
def _with_metadata(saved_path: Path, target: Path, change) -> Path:
    def edit(entries):
        metadata = json.loads(entries["metadata.json"])
        text = change(metadata)
        entries["metadata.json"] = text.encode() if isinstance(text, str) else json.dumps(
            metadata).encode()
    _rewrite(saved_path, target, edit)
    return target


def test_nan_in_the_view_choices_is_refused(saved, tmp_path):
    """issue 20 item 9: a session with NaN in ``views`` opened and could never be saved."""
    def plant(metadata):
        metadata["views"] = "@@"
        return json.dumps(metadata).replace('"@@"', '{"torus": {"zoom": NaN}}')

    bad = _with_metadata(saved[0], tmp_path / "nan.stpca", plant)
    _rejected(bad, "NaN is not allowed")


@pytest.mark.parametrize(("camera", "problem"), [
    ({"view_up": [0, 0, 0]}, "view_up is the zero vector"),
    ({"view_up": [1, 0, 0]}, "parallel to the direction of view"),
    ({"focal_point": [5, 0, 0]}, "no direction of view"),
    ({"parallel_scale": -1}, "parallel_scale"),
    ({"position": [1, 2]}, "position is not three finite numbers"),
])
def test_cameras_that_cannot_be_shown_are_refused(saved, tmp_path, camera, problem):
    """issue 20 item 6: a degenerate camera failed half-way through opening in the app."""
    good = {"position": [5, 0, 0], "focal_point": [0, 0, 0], "view_up": [0, 0, 1],
            "parallel_scale": 2.0}

    def plant(metadata):
        metadata["views"] = {"torus": {"camera": {**good, **camera}}}

    bad = _with_metadata(saved[0], tmp_path / "camera.stpca", plant)
    _rejected(bad, "the camera of the view 'torus'", problem)


def test_undo_history_is_capped_on_load(saved, tmp_path):
    """issue 20 item 11: 20,000 undo steps took 18.6 s on the GUI thread; only the newest
    HISTORY_SAVED are decoded."""
    from stpca_gui.model.session_file import HISTORY_SAVED

    steps = 2_000
    groups = load_session(saved[0]).groups

    def many(entries):
        metadata = json.loads(entries["metadata.json"])
        history = []
        for k in range(steps):
            node = {}
            # Steps that keep each group as saved: a valid history, only a long one.
            same = np.array([groups[k % 50]], dtype=np.int8)
            for key, array in (("index", np.array([k % 50], dtype=np.int32)),
                               ("before", same), ("after", same)):
                name = f"arrays/h{k}.{key}.npy"
                entries[name] = _npy(array)
                node[key] = {"$type": "array", "entry": name}
            history.append({"$type": "dict", "items": node})
        metadata["selection"]["history"] = history
        entries["metadata.json"] = json.dumps(metadata).encode()

    bad = tmp_path / "history.stpca"
    _rewrite(saved[0], bad, many)
    session = load_session(bad)
    assert len(session.selection_history) == HISTORY_SAVED
    assert any(f"{steps - HISTORY_SAVED} older undo steps ignored" in n for n in session.notes)


def test_a_model_whose_arrays_do_not_fit_is_refused_in_a_session(saved, tmp_path):
    """issue 20 item 2: the same mismatch as in a model file opened, then raised in the GUI."""
    def grow(entries):
        name = "model/arrays/smds_.embedding_.npy"
        array = np.lib.format.read_array(io.BytesIO(entries[name]))
        entries[name] = _npy(np.vstack([array, array]))

    bad = tmp_path / "rows.stpca"
    _rewrite(saved[0], bad, grow)
    _rejected(bad, "damaged model file", "match_.embedding has shape", "fitted model")


def test_a_compressed_metadata_bomb_is_refused_before_inflating(saved, tmp_path):
    """issue 20 item 3: a session whose metadata.json inflated to 1 GB took 3.3 GB."""
    with zipfile.ZipFile(saved[0]) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    metadata = json.loads(entries["metadata.json"])
    metadata["views"] = {"pad": "x" * (64 << 20)}
    entries["metadata.json"] = json.dumps(metadata).encode()
    bad = tmp_path / "bomb.stpca"
    with zipfile.ZipFile(bad, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    _rejected(bad, "compressed")


def test_resaving_keeps_the_mode_and_the_symlink(saved, tmp_path):
    """issue 20 item 7: a 0600 session became 0644; a symlink became a regular file."""
    import os
    import shutil

    private = shutil.copy(saved[0], tmp_path / "private.stpca")
    os.chmod(private, 0o600)
    save_session(load_session(private), private)
    assert private.stat().st_mode & 0o777 == 0o600
    link = tmp_path / "link.stpca"
    link.symlink_to(private)
    save_session(load_session(link), link)
    assert link.is_symlink() and link.resolve() == private.resolve()
    assert private.stat().st_mode & 0o777 == 0o600
    assert load_session(private).data_sha256 == load_session(saved[0]).data_sha256


@pytest.mark.parametrize(("value", "kept"), [(np.pi, True), (np.nextafter(np.pi, 4.0), False),
                                             (np.nan, False), (-np.inf, False)])
def test_saved_angles_are_kept_bit_for_bit_or_refused(table_dataset, tmp_path, value, kept):
    from session_files import tampered_copy

    from stpca_gui.files.digest import angles_sha256

    path = save_session(session_from_state(_state(table_dataset), FitParameters(), {}),
                        tmp_path / "s.stpca")
    angles = np.array(table_dataset.angles)
    angles[3, 1] = value  # +π: a saved angle the data set's [-π, π) would wrap to -π

    def rehash(metadata):
        metadata["data_sha256"] = angles_sha256(angles)

    edited = tampered_copy(path, tmp_path / "edited.stpca", edit=rehash,
                           arrays={"arrays/dataset.angles.npy": angles})
    if not kept:
        _rejected(edited, "not finite radians")
        return
    loaded = load_session(edited).dataset.angles
    assert loaded.tobytes() == angles.tobytes() and loaded[3, 1] == np.pi
    assert not loaded.flags.writeable
