"""Analysis sessions: the data, the settings, the fit and the user's choices in one file.

A session file (``.stpca``, docs/session_file.md) is a ZIP archive whose first entry is
``metadata.json`` (format ``"stpca-session"``). It embeds the data set, so that it opens on
another machine, and the fitted model in the model file's layout under ``model/``
(:mod:`stpca_gui.core.persistence`), so that opening it needs no refit. Arrays are ``.npy``
entries read with ``allow_pickle=False``; objects are rebuilt only from classes named in
this module's code, never from a name read in the file. The file is read by the hardened
container reader (:mod:`stpca_gui.files.container`), which bounds every entry before
reading it, and the model inside by :func:`~stpca_gui.core.persistence.read_model`, which
checks its arrays before any kernel sees them.

:func:`load_session` checks everything before it returns (data, model, settings,
selection and undo history, view choices and cameras), so that a failed open leaves the
application as it was; :func:`apply_session` then installs the session in an
:class:`~stpca_gui.model.app_state.AppState`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import __version__
from ..core.circstats.mode_clustering import ConfusionTable, ModeClustering
from ..core.circstats.mode_test import DEFAULT_NULL, NULLS
from ..core.circstats.silverman import ModeTest
from ..core.geometry.torus import circular_difference
from ..core.persistence import (
    FORMAT_NAME as MODEL_FORMAT_NAME,
)
from ..core.persistence import (
    ModelFileError,
    TreeDecoder,
    TreeEncoder,
    model_entries,
    read_model,
)
from ..files.container import (
    ContainerError,
    ContainerReader,
    check_format,
    detail,
    write_container,
)
from ..files.digest import angles_sha256
from ..files.digest import file_sha256 as _file_sha256
from ..io.coded import CodedColumn
from .analysis import AnalysisResult, FitParameters, paper_rule_clusters
from .app_state import COLOR_MODES, AppState
from .dataset import Dataset
from .selection import MAX_GROUPS
from .session_checks import check_mode_clusters, check_session_dataset

__all__ = [
    "HISTORY_SAVED",
    "SESSION_FORMAT",
    "SESSION_FORMAT_VERSION",
    "Session",
    "SessionFileError",
    "apply_session",
    "camera_problem",
    "check_views",
    "file_format",
    "load_session",
    "save_session",
    "session_from_state",
]

#: Written into every session file; a file without it is not a session.
SESSION_FORMAT = "stpca-session"
#: Incremented whenever a file of the new layout cannot be read by the old reader.
SESSION_FORMAT_VERSION = 1
#: Newest selection changes kept for undo in a session file.
HISTORY_SAVED = 20
METADATA_ENTRY = "metadata.json"
#: Folder of the fitted model's entries (the model file's layout).
MODEL_PREFIX = "model/"
#: How far the model's sample angles may be from the data set's (they are the same data).
_ANGLE_TOLERANCE = 1e-9


class SessionFileError(ContainerError):
    """A session file cannot be read; the message names the file and the problem."""


@cache
def _record_classes() -> dict[str, type]:
    """The records a session file may hold outside its model (a coded column: the labels
    and text provenance of data read from structures)."""
    return {cls.__name__: cls for cls in (ModeClustering, ConfusionTable, ModeTest,
                                          CodedColumn)}


@dataclass(frozen=True, eq=False)
class Session:
    """Everything a session file holds.

    Attributes
    ----------
    dataset : Dataset
        The data, embedded in the file.
    parameters : FitParameters
        The settings shown in the parameters panel (those of the next fit).
    result : AnalysisResult or None
        The fit of ``dataset`` (with the settings it was made with), if there was one.
    groups : ndarray of int8, shape (n,)
        The selection group of every sample.
    active_group : int
        The group selection tools act on.
    selection_history : list of (index, before, after)
        The newest selection changes for undo (:meth:`SelectionModel.history`), oldest
        first; at most :data:`HISTORY_SAVED`.
    color_mode : str
        A key of :data:`~stpca_gui.model.app_state.COLOR_MODES`.
    scatter_components, torus_axes : tuple of int
        The view options of the state.
    views : dict
        JSON-able choices of each view (3-D cameras, layouts), by view name.
    source_path : str
        Where the data came from (a file path or ``demo:NAME``), for reference.
    source_sha256 : str or None
        SHA-256 of the source file when it was a file that existed at save time.
    data_sha256 : str
        SHA-256 of the embedded angles (:func:`angles_sha256`), checked on opening.
    saved_with : str
        Version of stpca-gui that wrote the file.
    name : str
        The file's stem ("" before the session is saved).
    notes : tuple of str
        What was changed on the way in (e.g. settings unknown to this version, ignored).
    """

    dataset: Dataset
    parameters: FitParameters
    result: AnalysisResult | None
    groups: NDArray[np.int8]
    active_group: int = 1
    selection_history: list[tuple[NDArray, NDArray, NDArray]] = field(default_factory=list)
    color_mode: str = "label"
    scatter_components: tuple[int, int] = (0, 1)
    torus_axes: tuple[int, ...] = (0, 1, 2)
    views: dict[str, Any] = field(default_factory=dict)
    source_path: str = ""
    source_sha256: str | None = None
    data_sha256: str = ""
    saved_with: str = __version__
    name: str = ""
    notes: tuple[str, ...] = ()


def file_sha256(path: str | os.PathLike[str]) -> str | None:
    """SHA-256 of a file's bytes, or None when it cannot be read."""
    try:
        return _file_sha256(path)
    except OSError:
        return None


def session_from_state(state: AppState, parameters: FitParameters, views: dict[str, Any],
                       *, name: str = "", source_sha256: str | None = None) -> Session:
    """The session of an application state.

    Parameters
    ----------
    state : AppState
        Must hold a data set.
    parameters : FitParameters
        The settings of the parameters panel.
    views : dict
        Each view's JSON-able choices, by view name.
    name : str, keyword-only
    source_sha256 : str, keyword-only, optional
        The source file's hash when already known (a session opened earlier); by default
        it is computed when the source is a file that exists.

    Raises
    ------
    ValueError
        When the state holds no data set.
    """
    dataset = state.dataset
    if dataset is None:
        raise ValueError("there is no data to save in a session")
    if source_sha256 is None and dataset.structure is not None:
        # Read from a structure: its files were hashed then (a trajectory may be gigabytes).
        source_sha256 = dataset.structure["sha256"].get(dataset.source)
    if source_sha256 is None and not dataset.is_demo and dataset.source:
        source = Path(dataset.source)
        source_sha256 = file_sha256(source) if source.is_file() else None
    selection = state.selection
    return Session(
        dataset=dataset, parameters=parameters, result=state.result,
        groups=selection.groups.copy(), active_group=selection.active_group,
        selection_history=selection.history(HISTORY_SAVED), color_mode=state.color_mode,
        scatter_components=tuple(state.scatter_components), torus_axes=tuple(state.torus_axes),
        views=dict(views), source_path=dataset.source, source_sha256=source_sha256,
        data_sha256=angles_sha256(dataset.angles), name=name)


def apply_session(session: Session, state: AppState) -> None:
    """Install a session in ``state``: data, result, colour mode, view options, selection.

    The data set and its result come first (every view then draws the fit), the colour
    mode and view options next, and the selection with its undo history last, so each
    signal finds a consistent state.
    """
    state.set_dataset(session.dataset)
    state.set_result(session.result)
    state.set_color_mode(session.color_mode)
    state.set_scatter_components(*session.scatter_components)
    state.set_torus_axes(session.torus_axes)
    state.selection.restore(session.groups, session.selection_history,
                            active_group=session.active_group, source="session")


# ---------------------------------------------------------------------------- saving
def save_session(session: Session, path: str | os.PathLike[str]) -> Path:
    """Write a session to ``path`` (conventionally ``*.stpca``), atomically.

    The file is written beside the target under a hidden temporary name and renamed onto
    it, so a reader sees the old file or the whole new one.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    TypeError, ValueError
        A value cannot be written (e.g. view choices that are not JSON); nothing is written.
    OSError
        The file cannot be written; the message names it.
    """
    metadata, arrays = _encode(session)
    text = json.dumps(metadata, indent=1, allow_nan=False, ensure_ascii=False)
    model = None if session.result is None else model_entries(session.result.model)
    # metadata.json first: the desktop's MIME type recognises the file by it.
    groups = [("", {METADATA_ENTRY: text.encode("utf-8"), **arrays})]
    if model is not None:
        groups.append((MODEL_PREFIX, model))
    return write_container(path, *groups)


def _encode(session: Session) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    encoder = TreeEncoder(_record_classes())
    dataset = session.dataset
    n = dataset.n_samples
    index_dtype = np.int32 if n < 2**31 else np.int64
    history = [{"index": np.asarray(index, dtype=index_dtype),
                "before": np.asarray(before, dtype=np.int8),
                "after": np.asarray(after, dtype=np.int8)}
               for index, before, after in session.selection_history[-HISTORY_SAVED:]]
    result = session.result
    metadata: dict[str, Any] = {
        "format": SESSION_FORMAT,
        "format_version": SESSION_FORMAT_VERSION,
        "package": "stpca-gui",
        "package_version": __version__,
        "numpy_version": np.__version__,
        "source": {"path": session.source_path, "sha256": session.source_sha256},
        "data_sha256": angles_sha256(dataset.angles),
        "dataset": {f.name: encoder.value(getattr(dataset, f.name), f"dataset.{f.name}")
                    for f in dataclasses.fields(dataset) if f.init},
        "parameters": _encode_parameters(encoder, session.parameters, "parameters"),
        "result": None if result is None else {
            "model": MODEL_PREFIX,
            "parameters": _encode_parameters(encoder, result.parameters, "result.parameters"),
            "wall_time": float(result.wall_time),
            "mode_clusters": encoder.value(result.mode_clusters, "result.mode_clusters"),
        },
        "selection": {
            "groups": encoder.value(np.asarray(session.groups, dtype=np.int8),
                                    "selection.groups"),
            "active_group": int(session.active_group),
            "history": encoder.value(history, "selection.history"),
        },
        "color_mode": session.color_mode,
        "scatter_components": [int(k) for k in session.scatter_components],
        "torus_axes": [int(k) for k in session.torus_axes],
        "views": session.views,
    }
    try:
        json.dumps(session.views, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"cannot save the view choices: {exc}") from None
    return metadata, encoder.arrays


def _encode_parameters(encoder: TreeEncoder, parameters: FitParameters, path: str) -> dict:
    return {f.name: encoder.value(getattr(parameters, f.name), f"{path}.{f.name}")
            for f in dataclasses.fields(parameters)}


# --------------------------------------------------------------------------- loading
def file_format(path: str | os.PathLike[str]) -> str | None:
    """``"stpca-session"``, ``"stpca-model"`` or another format named by the file's
    ``metadata.json``; None for anything else (a table, an unreadable or unsafe file)."""
    try:
        with ContainerReader(path, SessionFileError, "session file") as reader:
            metadata = reader.read_json(METADATA_ENTRY)
    except (ContainerError, ValueError):
        return None
    name = metadata.get("format") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else None


def load_session(path: str | os.PathLike[str]) -> Session:
    """Read and check a session written by :func:`save_session`.

    Raises
    ------
    SessionFileError
        The file is missing, not a ZIP archive, truncated, damaged, unsafe (compressed,
        encrypted or oversized entries), a model file or another file, lacks an entry, was
        written in a newer format version, its data do not match their recorded hash, or
        its model, selection, settings or view choices do not fit its data; the message
        names the file and the problem.
    """
    source = Path(path)
    with ContainerReader(source, SessionFileError, "session file") as reader:
        try:
            return _read(reader)
        except SessionFileError:
            raise
        except ModelFileError as exc:
            raise SessionFileError(f"{exc} (in the fitted model of the session)") from None
        except ContainerError as exc:
            raise SessionFileError(str(exc)) from None
        except (ValueError, KeyError, TypeError, AttributeError, IndexError,
                RecursionError) as exc:
            raise SessionFileError(f"{source}: damaged session file ({detail(exc)})") from None


def _read(reader: ContainerReader) -> Session:
    source = reader.path
    if METADATA_ENTRY not in reader.names:
        raise SessionFileError(f"{source}: not an stpca session file (no {METADATA_ENTRY})")
    metadata = reader.read_json(METADATA_ENTRY)
    _check_metadata(source, metadata)
    notes: list[str] = []

    def read_array(entry: str) -> np.ndarray:
        if not isinstance(entry, str) or entry.startswith(MODEL_PREFIX):
            raise ValueError(f"bad array entry name {str(entry)[:80]!r}")
        return reader.read_array(entry)

    decoder = TreeDecoder(read_array, _record_classes())
    dataset = _decode_dataset(decoder, metadata["dataset"], notes)
    check_session_dataset(dataset, str(source))
    data_hash = metadata.get("data_sha256")
    if data_hash != angles_sha256(dataset.angles):
        raise SessionFileError(f"{source}: damaged session file: the embedded data do not "
                               "match their recorded SHA-256")
    parameters = _decode_parameters(decoder, metadata["parameters"], notes, "")
    result = None
    if metadata.get("result") is not None:
        result = _decode_result(reader, decoder, metadata["result"], dataset, notes)
    n, d = dataset.n_samples, dataset.n_angles
    selection = metadata["selection"]
    groups = decoder.value(selection["groups"])
    steps = selection["history"]
    if not isinstance(steps, list):
        raise ValueError("the undo history is not a list")
    if len(steps) > HISTORY_SAVED:
        # Older steps are never written; decoding them would cost time for nothing.
        notes.append(f"{len(steps) - HISTORY_SAVED} older undo steps ignored (at most "
                     f"{HISTORY_SAVED} are kept)")
        steps = steps[-HISTORY_SAVED:]
    history = [(step["index"], step["before"], step["after"])
               for step in decoder.value(steps)]
    _check_selection(groups, history, selection["active_group"], n)
    color_mode = metadata["color_mode"]
    if color_mode not in COLOR_MODES:
        raise ValueError(f"unknown colour mode {str(color_mode)[:40]!r}")
    scatter = tuple(int(k) for k in metadata["scatter_components"])
    if len(scatter) != 2 or not all(0 <= k < d for k in scatter) or (
            scatter[0] == scatter[1] and d > 1):
        raise ValueError(f"scatter components {scatter} do not fit {d} angles")
    axes = tuple(int(k) for k in metadata["torus_axes"])
    if len(axes) != min(d, 3) or len(set(axes)) != len(axes) or not all(
            0 <= k < d for k in axes):
        raise ValueError(f"torus axes {axes} do not fit {d} angles")
    views = check_views(metadata.get("views", {}))
    source_info = metadata.get("source", {})
    if not isinstance(source_info, dict):
        raise ValueError("the source record is not a JSON object")
    source_hash = source_info.get("sha256")
    if source_hash is not None and not isinstance(source_hash, str):
        raise ValueError("the source's SHA-256 is not text")
    return Session(
        dataset=dataset, parameters=parameters, result=result,
        groups=np.asarray(groups, dtype=np.int8), active_group=int(selection["active_group"]),
        selection_history=history, color_mode=color_mode, scatter_components=scatter,
        torus_axes=axes, views=views, source_path=str(source_info.get("path", "")),
        source_sha256=source_hash, data_sha256=data_hash,
        saved_with=str(metadata.get("package_version", "unknown")), name=source.stem,
        notes=tuple(notes))


def check_views(views: Any) -> dict[str, Any]:
    """Check the view choices of a session: a JSON object (the container's JSON has no
    NaN or infinity) whose cameras, where given, can be shown.

    A camera is ``position``, ``focal_point`` and ``view_up`` (three finite numbers each)
    and a positive ``parallel_scale``; the position must differ from the focal point and
    the view-up must be a non-zero vector not parallel to the direction of view.

    Raises
    ------
    ValueError
        Naming the view and the problem.
    """
    if not isinstance(views, dict):
        raise ValueError("the view choices are not a JSON object")
    for key, choices in views.items():
        if not isinstance(choices, dict):
            raise ValueError(f"the choices of the view {str(key)[:40]!r} are not a JSON "
                             "object")
        if "camera" in choices:
            problem = camera_problem(choices["camera"])
            if problem:
                raise ValueError(f"the camera of the view {str(key)[:40]!r}: {problem}")
    return views


def camera_problem(camera: Any) -> str:
    """Why a saved camera cannot be shown ("" when it can); see :func:`check_views`."""
    if not isinstance(camera, dict):
        return "not a JSON object"
    vectors = {}
    for key in ("position", "focal_point", "view_up"):
        value = camera.get(key)
        if (not isinstance(value, list) or len(value) != 3 or not all(
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                for v in value)):
            return f"{key} is not three finite numbers"
        vectors[key] = np.asarray(value, dtype=np.float64)
    scale = camera.get("parallel_scale")
    if (not isinstance(scale, int | float) or isinstance(scale, bool)
            or not math.isfinite(scale) or scale <= 0):
        return "parallel_scale is not a positive number"
    direction = vectors["focal_point"] - vectors["position"]
    up = vectors["view_up"]
    length, up_length = np.linalg.norm(direction), np.linalg.norm(up)
    if not length > 0 or not np.isfinite(length):
        return "the position is the focal point (no direction of view)"
    if not up_length > 0 or not np.isfinite(up_length):
        return "view_up is the zero vector"
    if np.linalg.norm(np.cross(direction / length, up / up_length)) < 1e-6:
        return "view_up is parallel to the direction of view"
    return ""


def _check_metadata(source: Path, metadata: Any) -> None:
    # "scoring-only" or "full"
    model_kind = metadata.get("kind", "full") if isinstance(metadata, dict) else "full"
    model_hint = (f"this is an stpca model file ({model_kind} model: a fitted model without "
                  "its data, written by `stpca fit --save-model`), not a session; use it "
                  "with `stpca transform`, or open a session saved with File → Save Session")
    check_format(source, metadata, name=SESSION_FORMAT, newest=SESSION_FORMAT_VERSION,
                 what="session file", error=SessionFileError,
                 mistaken={MODEL_FORMAT_NAME: model_hint})


def _known_fields(decoder: TreeDecoder, node: dict[str, Any], cls: type, notes: list[str],
                  what: str) -> dict[str, Any]:
    """The decoded items of ``node`` that name init fields of the dataclass ``cls``; each
    other item, written by a newer version, is ignored with a note naming ``what`` it is."""
    known = {f.name for f in dataclasses.fields(cls) if f.init}
    values = {}
    for key, item in node.items():
        if key in known:
            values[key] = decoder.value(item)
        else:
            notes.append(f"{what} {key!r} is unknown to this version; ignored")
    return values


def _decode_dataset(decoder: TreeDecoder, node: dict[str, Any], notes: list[str]) -> Dataset:
    values = _known_fields(decoder, node, Dataset, notes, "data set field")
    angles = values.get("angles")
    # min and max propagate NaN: one pass each, no n × d temporaries.
    if (not isinstance(angles, np.ndarray) or angles.dtype != np.float64 or angles.ndim != 2
            or (angles.size and not -math.pi <= angles.min() <= angles.max() <= math.pi)):
        raise ValueError("the data set's angles are not finite radians of shape (n, d)")
    # An array of their own, read-only, is handed over: the data set keeps angles in
    # [-π, π) as they are, with no wrapped copy (the array read lives in the file's buffer).
    angles = np.array(angles, copy=True)
    angles.setflags(write=False)
    dataset = Dataset(**{**values, "angles": angles})
    if dataset.angles is not angles:
        # An angle at +π was wrapped, and wrapping can move others by a rounding step
        # (wrap(wrap(x)) is not always wrap(x) bit for bit): the saved angles, which the
        # model was fitted on, are kept.
        object.__setattr__(dataset, "angles", angles)
    return dataset


def _decode_parameters(decoder: TreeDecoder, node: dict[str, Any], notes: list[str],
                       what: str) -> FitParameters:
    values = _known_fields(decoder, node, FitParameters, notes, f"{what}setting")
    parameters = FitParameters(**values)
    parameters.validate()
    return parameters


def _decode_result(reader: ContainerReader, decoder: TreeDecoder, node: dict[str, Any],
                   dataset: Dataset, notes: list[str]) -> AnalysisResult:
    if node.get("model") != MODEL_PREFIX:
        raise ValueError(f"the fitted model is expected under {MODEL_PREFIX}")
    model = read_model(reader, MODEL_PREFIX)
    n = dataset.n_samples
    fitted = np.asarray(model.angles_)
    if fitted.shape != dataset.angles.shape or model.scores_.shape[0] != n or (
            np.max(circular_difference(fitted, dataset.angles), initial=0.0)
            > _ANGLE_TOLERANCE):
        raise ValueError("the fitted model does not belong to the embedded data")
    parameters = _decode_parameters(decoder, node["parameters"], notes, "fitted ")
    wall_time = float(node["wall_time"])
    clusters = decoder.value(node["mode_clusters"])
    check_mode_clusters(clusters, n)
    parameters = _cluster_settings_of(parameters, node["parameters"], clusters)
    # The session keeps the clusters shown; the paper rule's, which the app shows beside
    # them, are computed again (as run_analysis does, off the GUI thread for a large file).
    paper = clusters if clusters.method == "paper" else paper_rule_clusters(model, dataset)
    return AnalysisResult(model=model, parameters=parameters, dataset=dataset,
                          wall_time=wall_time, mode_clusters=clusters,
                          paper_mode_clusters=paper)


def _cluster_settings_of(parameters: FitParameters, recorded: dict[str, Any],
                         clusters: ModeClustering) -> FitParameters:
    """The fit's settings with the rule, mode test level and null its clusters were made
    with.

    Sessions written before the settings held them (``recorded`` lacks them) take those of
    the clusters they hold: "paper" for clusters saved before the test, else the tested
    rule at its test's level, with the null its test records (the critical-bandwidth KDE
    for every test saved before ``mode_null`` existed: the app resampled only that).
    Recorded ones must be those of the clusters.
    """
    test = clusters.mode_test
    made_with = {"cluster_rule": clusters.method,
                 "mode_alpha": test.alpha if test is not None else parameters.mode_alpha,
                 "mode_null": parameters.mode_null if test is None else _null_of(test)}
    missing = {name: value for name, value in made_with.items() if name not in recorded}
    if missing:
        parameters = dataclasses.replace(parameters, **missing)
        parameters.validate()
    for name, value in made_with.items():
        if getattr(parameters, name) != value:
            raise ValueError(f"the fit's setting {name} is {getattr(parameters, name)!r}, but "
                             f"its PNS1 mode clusters were made with {value!r}")
    return parameters


def _null_of(test: ModeTest) -> str:
    """The density a stored mode test resampled: its ``calibration`` when that names one
    (:data:`~stpca_gui.core.circstats.mode_test.NULLS`), else the critical-bandwidth KDE
    (Silverman's calibrations, and the tests saved before the mixture existed)."""
    calibration = test.calibration
    return calibration if isinstance(calibration, str) and calibration in NULLS else DEFAULT_NULL


def _check_selection(groups: Any, history: list, active_group: Any, n: int) -> None:
    """Check the selection as :meth:`SelectionModel.restore` will (before anything changes)."""
    from .selection import SelectionModel

    if not isinstance(groups, np.ndarray) or groups.shape != (n,):
        raise ValueError(f"the selection does not have one entry per sample ({n})")
    if groups.size and (groups.min() < 0 or groups.max() > MAX_GROUPS):
        raise ValueError("selection group numbers out of range")
    SelectionModel(n).restore(groups, history, active_group=active_group)
