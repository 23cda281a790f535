"""Saving a fitted :class:`~stpca_gui.core.stpca.ScaledTorusPCA` to one file, and loading it.

The model file (``.stpca``; docs/model_file.md) is a ZIP archive of

* ``metadata.json``: the format name and version, the versions of stpca-gui and numpy that
  wrote it, notes, optionally the *input table* record (how the table fitted was read: its
  angle columns, their unit, its options; written by ``stpca fit --save-model``, read and
  checked by :mod:`stpca_gui.io.table_reading`), and the *tree*: the estimator's parameters
  and fitted attributes (every attribute ending in ``_``), recursively through the nested
  estimators and records (``smds_``, ``pns_``, ``match_``, ``principal_curve_``);
* ``arrays/<attribute path>.npy``: every array of the tree in numpy's ``.npy`` format, which
  ``numpy.load`` reads as well.

No code is pickled: the file is read by the hardened container reader
(:mod:`stpca_gui.files.container`: stored entries only, bounded sizes, ``.npy`` headers
parsed and checked against their entry's size, no pickle) and objects are rebuilt only from
the classes registered with :func:`~stpca_gui.core._base.registry.model_file_class` (the
estimators register themselves; this module names none), never from a name read in the
file. The rebuilt model is then checked in one step (:func:`check_model`): dtypes,
finiteness and the shapes the fit implies, before any compiled kernel sees its arrays. A
value of a kind the format does not know fails at save time, naming the attribute, so that
a new fitted attribute is never silently dropped.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..files.container import (
    ContainerError,
    ContainerReader,
    check_format,
    detail,
    write_container,
    write_entries,
)
from ._base.params import Estimator
from ._base.registry import model_file_classes, top_level_classes
from .scoring_only import model_kind, scoring_copy

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "INPUT_TABLE_KEY", "ModelFileError", "TreeDecoder",
           "TreeEncoder", "check_model", "load_model", "load_model_and_input_table",
           "model_entries", "open_model_file", "read_model", "save_model", "write_entries"]

#: Written into every model file; a file without it is not a model file.
FORMAT_NAME = "stpca-model"
#: Incremented whenever a file of the new layout cannot be read by the old reader.
#: 2 (issue 32): the principal curve's record gained ``in_data_range``.
FORMAT_VERSION = 2
METADATA_ENTRY = "metadata.json"
#: The key of metadata.json holding how the fitted table was read (absent in files written
#: by the library or before stpca-gui recorded it); a JSON object this module keeps as is.
INPUT_TABLE_KEY = "input_table"
ARRAY_FOLDER = "arrays/"
#: Array dtypes a model file may hold: booleans, numbers and fixed-width text.
_ARRAY_KINDS = frozenset("biufcU")
#: The key that marks a JSON object of the tree as an encoded value rather than a dict.
_TAG = "$type"


class ModelFileError(ContainerError):
    """A model file cannot be read; the message names the file and the problem."""


def _registry() -> dict[str, type]:
    """The classes a model file may contain, by the name written for them: those that
    registered themselves (importing :mod:`stpca_gui.core` registers the estimators)."""
    return model_file_classes()


# ---------------------------------------------------------------------------- saving
class _Encoder:
    """Turns a fitted estimator into a JSON tree plus named arrays.

    ``classes`` are the objects it may write (by default the model file's, :func:`_registry`);
    the session file (model/session_file.py) writes its records with classes of its own.
    """

    def __init__(self, classes: dict[str, type] | None = None) -> None:
        self.classes = _registry() if classes is None else classes
        self.arrays: dict[str, np.ndarray] = {}
        self.notes: list[str] = []
        # An array shared by several attributes (the sample angles are held by the model,
        # its SMDS fit and its match) is written once and shared again after loading.
        self._entries_by_id: dict[int, str] = {}

    def value(self, value: Any, path: str) -> Any:
        # numpy scalars first: np.float64 is also a float and np.bool_ is not a bool.
        if isinstance(value, np.generic):
            return {_TAG: "scalar", "entry": self._array(np.asarray(value), path)}
        if value is None or isinstance(value, bool | int | str):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else {_TAG: "float", "value": repr(value)}
        if isinstance(value, np.ndarray):
            return {_TAG: "array", "entry": self._array(value, path)}
        if isinstance(value, list):
            return [self.value(item, f"{path}.{k}") for k, item in enumerate(value)]
        if isinstance(value, tuple):
            return {_TAG: "tuple",
                    "items": [self.value(item, f"{path}.{k}") for k, item in enumerate(value)]}
        if isinstance(value, dict):
            bad = [key for key in value if not isinstance(key, str)]
            if bad:
                raise TypeError(f"cannot save {path}: dict key {bad[0]!r} is not a string")
            return {_TAG: "dict",
                    "items": {key: self.value(item, f"{path}.{key}")
                              for key, item in value.items()}}
        if self.classes.get(type(value).__name__) is type(value):
            return self.object(value, path)
        raise TypeError(
            f"cannot save {path}: a {type(value).__module__}.{type(value).__qualname__} is not "
            "a kind of value the model file format knows (arrays, numbers, text, None, "
            f"lists, tuples, dicts and the classes {', '.join(self.classes)}); add it to "
            "stpca_gui/core/persistence.py")

    def object(self, obj: Any, path: str) -> dict[str, Any]:
        name = type(obj).__name__
        prefix = f"{path}." if path else ""
        if isinstance(obj, Estimator):
            parameters = {}
            for key, value in obj.get_params().items():
                if isinstance(value, np.random.Generator | np.random.SeedSequence):
                    self.notes.append(f"{prefix}{key}: a numpy {type(value).__name__} was given;"
                                      " stored as None")
                    value = None
                parameters[key] = self.value(value, f"{prefix}{key}")
            attributes = {}
            for key, value in vars(obj).items():
                if key in parameters:
                    continue
                if not key.endswith("_") or key.startswith("_"):
                    raise TypeError(
                        f"cannot save {prefix}{key}: an attribute of {name} that is neither a "
                        "parameter nor a fitted attribute (a public name ending in '_')")
                attributes[key] = self.value(value, f"{prefix}{key}")
            return {_TAG: "estimator", "class": name, "parameters": parameters,
                    "attributes": attributes}
        names = [f.name for f in dataclasses.fields(obj)]
        extra = sorted(set(vars(obj)) - set(names))
        if extra:
            raise TypeError(f"cannot save {prefix}{extra[0]}: not a field of the record {name}")
        return {_TAG: "record", "class": name,
                "fields": {key: self.value(getattr(obj, key), f"{prefix}{key}")
                           for key in names}}

    def _array(self, array: np.ndarray, path: str) -> str:
        if array.dtype.kind not in _ARRAY_KINDS or array.dtype.fields is not None:
            raise TypeError(f"cannot save {path}: arrays of dtype {array.dtype} are not "
                            "supported (booleans, numbers and text only)")
        if id(array) in self._entries_by_id:
            return self._entries_by_id[id(array)]
        entry = f"{ARRAY_FOLDER}{path}.npy"
        if entry in self.arrays:
            raise TypeError(f"cannot save {path}: two values map to the entry {entry}")
        self.arrays[entry] = array
        self._entries_by_id[id(array)] = entry
        return entry


def model_entries(model: Estimator, *, scoring_only: bool = False,
                  input_table: Mapping[str, Any] | None = None
                  ) -> dict[str, bytes | np.ndarray]:
    """The entries of ``model``'s file: ``metadata.json`` (bytes) and the arrays by name;
    with ``scoring_only``, those of :func:`~stpca_gui.core.scoring_only.scoring_copy` (a
    :class:`~stpca_gui.core.stpca.ScaledTorusPCA`). ``input_table``, a JSON object, is
    written as the metadata's :data:`INPUT_TABLE_KEY`.

    Raises
    ------
    RuntimeError
        When the model is not fitted.
    TypeError
        When an attribute holds a value the format does not know (naming the attribute).
    """
    model._check_fitted()
    if scoring_only:
        model = scoring_copy(model)
    encoder = _Encoder()
    tree = encoder.object(model, "")
    metadata = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "package": "stpca-gui",
        "package_version": __version__,
        "numpy_version": np.__version__,
        "class": type(model).__name__,
        "kind": model_kind(model),
        "notes": encoder.notes,
        **({} if input_table is None else {INPUT_TABLE_KEY: dict(input_table)}),
        "tree": tree,
    }
    text = json.dumps(metadata, indent=1, allow_nan=False, ensure_ascii=False)
    return {METADATA_ENTRY: text.encode("utf-8"), **encoder.arrays}


def save_model(model: Estimator, path: str | os.PathLike[str], *,
               scoring_only: bool = False, input_table: Mapping[str, Any] | None = None
               ) -> Path:
    """Write a fitted model to ``path`` (conventionally ``*.stpca``), atomically; with
    ``scoring_only``, only what ``transform`` and ``inverse_transform`` need (see
    :mod:`~stpca_gui.core.scoring_only`; the metadata's ``kind`` says which). With
    ``input_table`` (a JSON object saying how the fitted table was read), the file
    remembers it for ``stpca transform``.

    The file is written beside the target under a hidden temporary name and renamed onto it,
    so a reader sees the old file or the whole new one. Nothing is written when an
    attribute cannot be saved.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    RuntimeError
        The model is not fitted.
    TypeError
        An attribute holds a value the format does not know; the message names it.
    OSError
        The file cannot be written; the message names it.
    """
    return write_container(path, ("", model_entries(model, scoring_only=scoring_only,
                                                    input_table=input_table)))


# --------------------------------------------------------------------------- loading
class _Decoder:
    """Rebuilds values from the tree, reading arrays from the archive.

    Only the ``classes`` given (by default the model file's, :func:`_registry`) are rebuilt.
    """

    def __init__(self, read_array: Callable[[str], np.ndarray],
                 classes: dict[str, type] | None = None) -> None:
        self.read_array = read_array
        self.classes = _registry() if classes is None else classes

    def value(self, node: Any) -> Any:
        if node is None or isinstance(node, bool | int | float | str):
            return node
        if isinstance(node, list):
            return [self.value(item) for item in node]
        if not isinstance(node, dict) or not isinstance(node.get(_TAG), str):
            raise ValueError(f"unexpected value in the tree: {str(node)[:80]}")
        kind = node[_TAG]
        if kind == "array":
            return self.read_array(node["entry"])
        if kind == "scalar":
            return self.read_array(node["entry"])[()]
        if kind == "float":
            return float(node["value"])
        if kind == "tuple":
            return tuple(self.value(item) for item in node["items"])
        if kind == "dict":
            return {key: self.value(item) for key, item in node["items"].items()}
        if kind in ("estimator", "record"):
            return self.object(node)
        raise ValueError(f"unknown value type {kind!r} in the tree")

    def object(self, node: dict[str, Any]) -> Any:
        name = node.get("class")
        cls = self.classes.get(name) if isinstance(name, str) else None
        if cls is None:
            raise ValueError(f"the tree names the class {name!r}, which is not one a model "
                             f"file may hold ({', '.join(self.classes)})")
        if node[_TAG] == "record":
            return cls(**{key: self.value(item) for key, item in node["fields"].items()})
        obj = cls(**{key: self.value(item) for key, item in node["parameters"].items()})
        for key, item in node["attributes"].items():
            if not key.endswith("_") or key.startswith("_"):
                raise ValueError(f"{name} attribute {key!r} is not a fitted attribute")
            setattr(obj, key, self.value(item))
        return obj


def open_model_file(path: str | os.PathLike[str]) -> ContainerReader:
    """The hardened reader (:class:`~stpca_gui.files.container.ContainerReader`) of a model
    file; its refusals are :class:`ModelFileError`."""
    return ContainerReader(path, ModelFileError, "model file")


def load_model(path: str | os.PathLike[str]) -> Estimator:
    """Read a model written by :func:`save_model`, checked (:func:`check_model`).

    Raises
    ------
    ModelFileError
        The file is missing, unreadable, corrupt, not a model file (e.g. a session), lacks
        an entry, was written in a newer format version, or holds arrays that do not make
        a fitted model; the message names the file and the problem.
    """
    return load_model_and_input_table(path)[0]


def load_model_and_input_table(path: str | os.PathLike[str]
                               ) -> tuple[Estimator, dict[str, Any] | None]:
    """The model of :func:`load_model` and the file's input-table record (a JSON object,
    unchecked: :mod:`stpca_gui.io.table_reading` checks it), None when the file has none.

    Raises
    ------
    ModelFileError
        As :func:`load_model`, and when the record is not a JSON object.
    """
    with open_model_file(path) as reader:
        model = read_model(reader)
        record = reader.read_json(METADATA_ENTRY).get(INPUT_TABLE_KEY)
    if record is not None and not isinstance(record, dict):
        raise ModelFileError(f"{reader.path}: damaged model file ({INPUT_TABLE_KEY} is not "
                             "a JSON object)")
    return model, record


def read_model(reader: ContainerReader, prefix: str = "") -> Estimator:
    """Read and check (:func:`check_model`) the model whose entries are under ``prefix``
    in an open container; messages name the container's file.

    Raises
    ------
    ModelFileError
        As :func:`load_model`.
    """
    source = reader.path
    try:
        if prefix + METADATA_ENTRY not in reader.names:
            raise ModelFileError(f"{source}: not an stpca model file (no "
                                 f"{prefix}{METADATA_ENTRY})")
        metadata = reader.read_json(prefix + METADATA_ENTRY)
        version = _check_metadata(source, metadata)

        arrays: dict[str, np.ndarray] = {}

        def read_array(entry: str) -> np.ndarray:
            if not isinstance(entry, str) or not entry.startswith(ARRAY_FOLDER):
                raise ValueError(f"array entry name {str(entry)[:80]!r} is not in "
                                 f"{ARRAY_FOLDER}")
            if entry not in arrays:  # an array shared in the fit is shared again
                arrays[entry] = reader.read_array(prefix + entry)
            return arrays[entry]

        model = _Decoder(read_array).value(metadata["tree"])
    except ContainerError as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ModelFileError(str(exc)) from None
    except (ValueError, KeyError, TypeError, AttributeError, IndexError,
            RecursionError) as exc:
        raise ModelFileError(f"{source}: damaged model file ({detail(exc)})") from None
    expected = top_level_classes()
    if type(model) not in expected:
        names = " or ".join(cls.__name__ for cls in expected)
        raise ModelFileError(f"{source}: holds a {type(model).__name__}, not a {names}")
    check_model(model, source)
    # A class that gained fitted attributes derives them for files written before
    # (the format names no estimator: the model says what it needs).
    upgrade = getattr(model, "_upgrade_loaded", None)
    if callable(upgrade):
        upgrade(version)
    return model


#: What a session file opened as a model file is (the session module is a layer above).
_SESSION_HINT = {"stpca-session": (
    "this is an stpca session file (data, fit and choices of the app), not a model file; "
    "open it in stpca-gui, or write a model file with `stpca fit --save-model`")}


def _check_metadata(source: Path, metadata: Any) -> int:
    """The file's format version, once its metadata is known to be a model file's."""
    version = check_format(source, metadata, name=FORMAT_NAME, newest=FORMAT_VERSION,
                           what="model file", error=ModelFileError, mistaken=_SESSION_HINT)
    if "tree" not in metadata:
        raise ModelFileError(f"{source}: damaged model file (no tree in {METADATA_ENTRY})")
    return version


# ---------------------------------------------------------------------- checking
class _ModelChecker:
    """Checks of one rebuilt model; every failure names ``source`` and the attribute."""

    def __init__(self, source: Path) -> None:
        self.source = source

    def fail(self, what: str, problem: str) -> None:
        raise ModelFileError(f"{self.source}: damaged model file ({what} {problem}); it "
                             "was not written by stpca-gui, or was changed since")

    def array(self, value: Any, what: str, shape: tuple[int | None, ...], *,
              kind: str = "f", finite: bool = True) -> np.ndarray:
        """``value`` as an array of ``shape`` (None: any length) and dtype kind ``kind``
        (``"f"``: float64)."""
        if not isinstance(value, np.ndarray):
            self.fail(what, f"is a {type(value).__name__}, not an array")
        if kind == "f" and value.dtype != np.float64:
            self.fail(what, f"holds {value.dtype} values, not float64")
        if value.dtype.kind not in kind:
            self.fail(what, f"holds {value.dtype} values")
        if value.ndim != len(shape) or any(
                want is not None and got != want for got, want in zip(value.shape, shape,
                                                                       strict=True)):
            wanted = "(" + ", ".join("·" if k is None else str(k) for k in shape) + ")"
            self.fail(what, f"has shape {value.shape}; the fit implies {wanted}")
        if finite and kind == "f" and not np.all(np.isfinite(value)):
            self.fail(what, "holds NaN or infinite values")
        return value

    def number(self, value: Any, what: str, *, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float | np.floating):
            self.fail(what, f"is a {type(value).__name__}, not a number")
        if not math.isfinite(value) or (positive and value <= 0):
            self.fail(what, f"is {value!r}, not a {'positive ' if positive else ''}"
                      "finite number")
        return float(value)

    def count(self, value: Any, what: str, low: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            self.fail(what, f"is {str(value)[:40]}, not an integer ≥ {low}")
        return int(value)

    def indices(self, value: Any, what: str, bound: int) -> None:
        if value is None:
            return
        self.array(value, what, (None,), kind="iu")
        if value.size and (value.min() < 0 or value.max() >= bound):
            self.fail(what, f"holds indices outside 0..{bound - 1}")

    def arrays(self, obj: Any, prefix: str, shapes: dict[str, tuple[int | None, ...]],
               **options: Any) -> None:
        """:meth:`array` for those attributes of ``obj`` that are present."""
        for name, shape in shapes.items():
            if hasattr(obj, name):
                self.array(getattr(obj, name), f"{prefix}{name}", shape, **options)

    def numbers(self, obj: Any, prefix: str, names: tuple[str, ...], **options: Any) -> None:
        """:meth:`number` for those attributes of ``obj`` that are present."""
        for name in names:
            if hasattr(obj, name):
                self.number(getattr(obj, name), f"{prefix}{name}", **options)


def check_model(model: Estimator, source: str | os.PathLike[str]) -> None:
    """Check a rebuilt model in one step, before any compiled kernel sees its arrays.

    Every array must have the dtype its attribute has (float64 numbers, integer indices,
    boolean flags), finite values where a fit gives finite ones, and the shape the fit
    implies: with n samples on T^d and m SMDS points, ``angles_`` (n, d), ``embedding_``
    (n, d + 1), the match's angles (m, d) and embedding (m, d + 1), ``rotations_[k]``
    square of size d + 1 − k, and so on. Attributes a scoring-only file leaves out are
    checked when present; those :meth:`ScaledTorusPCA.transform` needs must be there.

    Raises
    ------
    ModelFileError
        Naming ``source`` and the first attribute that does not fit.
    """
    # Attributes, not classes: the file format names no estimator (the classes register
    # themselves), and the decoder already rebuilt only registered classes.
    check = _ModelChecker(Path(source))
    try:
        model._validate_params()
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"{source}: damaged model file (its parameters: {exc})") from None
    for name in ("n_features_in_", "match_", "pns_"):
        if not hasattr(model, name):
            check.fail(name, "is missing")
    d = check.count(model.n_features_in_, "n_features_in_", 1)
    match = model.match_
    if not all(hasattr(match, name) for name in ("angles", "embedding", "radius")):
        check.fail("match_", f"is a {type(match).__name__}, not an SMDSMatch")
    m = check.array(match.angles, "match_.angles", (None, d)).shape[0]
    if m < 1:
        check.fail("match_.angles", "has no rows")
    check.array(match.embedding, "match_.embedding", (m, d + 1))
    check.number(match.radius, "match_.radius", positive=True)
    _check_pns(check, model.pns_, d)
    angles = getattr(model, "angles_", None)
    n = m if angles is None else check.array(angles, "angles_", (None, d)).shape[0]
    if angles is not None and np.any(np.abs(angles) > math.pi + 1e-9):
        check.fail("angles_", "holds values outside [-π, π]")
    variance_rows = getattr(model, "torus_variance_indices_", None)
    check.indices(variance_rows, "torus_variance_indices_", n)
    check.indices(getattr(model, "landmark_indices_", None), "landmark_indices_", n)
    projected = n if variance_rows is None else len(variance_rows)
    check.arrays(model, "", {"embedding_": (n, d + 1), "scores_": (n, d),
                             "explained_variance_": (d,), "projections_": (d + 1, projected, d)})
    check.arrays(model, "", {"explained_variance_ratio_": (d,),
                             "torus_explained_variance_": (d,),
                             "torus_explained_variance_ratio_": (d,),
                             "torus_explained_variance_ratio_se_": (d,),
                             "angle_contributions_": (None, d)}, finite=False)
    if hasattr(model, "torus_variance_components_"):
        components = check.count(model.torus_variance_components_,
                                 "torus_variance_components_")
        if components > d:
            check.fail("torus_variance_components_", f"is {components}, more than d = {d}")
    check.numbers(model, "", ("radius_",), positive=True)
    check.numbers(model, "", ("stress_", "all_pairs_stress_"))
    smds = getattr(model, "smds_", None)
    if smds is not None:
        check.arrays(smds, "smds_.", {"angles_": (m, d), "embedding_": (m, d + 1)})
        check.numbers(smds, "smds_.", ("radius_",), positive=True)
    curve = getattr(model, "principal_curve_", None)
    if curve is not None:
        points = check.array(getattr(curve, "angles", None), "principal_curve_.angles",
                             (None, d)).shape[0]
        check.array(curve.breaks, "principal_curve_.breaks", (points,), kind="b")
        check.array(curve.parameter, "principal_curve_.parameter", (points,))
        check.array(curve.stress, "principal_curve_.stress", (points,), finite=False)
        if getattr(curve, "in_data_range", None) is not None:
            check.array(curve.in_data_range, "principal_curve_.in_data_range", (points,),
                        kind="b")


def _check_pns(check: _ModelChecker, pns: Any, d: int) -> None:
    """The PNS fit of n points on S^d (ambient dimension d + 1)."""
    if type(pns).__name__ != "PrincipalNestedSpheres":
        check.fail("pns_", f"is a {type(pns).__name__}, not a PrincipalNestedSpheres")
    for name in ("n_features_in_", "n_components_", "rotations_", "radii_", "score_scales_",
                 "circle_mean_angle_"):
        if not hasattr(pns, name):
            check.fail(f"pns_.{name}", "is missing")
    if check.count(pns.n_features_in_, "pns_.n_features_in_") != d + 1:
        check.fail("pns_.n_features_in_", f"is {pns.n_features_in_}, not {d + 1}")
    if check.count(pns.n_components_, "pns_.n_components_") != d:
        check.fail("pns_.n_components_", f"is {pns.n_components_}, not {d}")
    levels = max(d - 1, 0)
    for name in ("rotations_", "centers_local_", "sphere_types_"):
        value = getattr(pns, name, [None] * levels)
        if not isinstance(value, list) or len(value) != levels:
            check.fail(f"pns_.{name}", f"is not a list of {levels} levels")
    for k, rotation in enumerate(pns.rotations_):
        check.array(rotation, f"pns_.rotations_[{k}]", (d + 1 - k, d + 1 - k))
    for k, center in enumerate(getattr(pns, "centers_local_", [])):
        check.array(center, f"pns_.centers_local_[{k}]", (d + 1 - k,))
    for k, kind in enumerate(getattr(pns, "sphere_types_", [])):
        if kind not in ("small", "great"):
            check.fail(f"pns_.sphere_types_[{k}]", f"is {str(kind)[:40]!r}")
    check.array(pns.radii_, "pns_.radii_", (levels,))
    check.array(pns.score_scales_, "pns_.score_scales_", (d,))
    check.number(pns.circle_mean_angle_, "pns_.circle_mean_angle_")
    check.arrays(pns, "pns_.", {
        "nested_radii_": (d,), "mean_": (d + 1,), "centers_": (levels, d + 1),
        "subsphere_center_points_": (levels, d + 1), "circle_center_": (d + 1,),
        "circle_basis_": (d + 1, 2), "objectives_": (levels,), "explained_variance_": (d,),
        "scores_": (None, d)})
    check.arrays(pns, "pns_.", {"p_values_": (levels, 2), "explained_variance_ratio_": (d,)},
                 finite=False)
    check.arrays(pns, "pns_.", {"isotropy_test_points_": (levels,),
                                "isotropy_test_replicates_": (levels,)}, kind="iu")
    check.indices(getattr(pns, "reduced_levels_", None), "pns_.reduced_levels_", levels)
    check.numbers(pns, "pns_.", ("circle_radius_", "total_variance_",
                                 "reduced_variance_ratio_"))


#: The tree writer and reader, for other files that hold records and arrays the same way
#: (the session file, stpca_gui/model/session_file.py).
TreeEncoder = _Encoder
TreeDecoder = _Decoder
