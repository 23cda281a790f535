"""Saving a fitted :class:`~stpca_gui.core.stpca.ScaledTorusPCA` to one file, and loading it.

The model file (``.stpca``; docs/model_file.md) is a ZIP archive of

* ``metadata.json``: the format name and version, the versions of stpca-gui and numpy that
  wrote it, notes, and the *tree*: the estimator's parameters and fitted attributes
  (every attribute ending in ``_``), recursively through the nested estimators and records
  (``smds_``, ``pns_``, ``match_``, ``principal_curve_``);
* ``arrays/<attribute path>.npy``: every array of the tree in numpy's ``.npy`` format, which
  ``numpy.load`` reads as well.

No code is pickled: arrays are read with ``allow_pickle=False`` and objects are rebuilt only
from the classes registered with :func:`~stpca_gui.core._base.registry.model_file_class`
(the estimators register themselves; this module names none), never from a name read in the
file. A value of a kind the format does not know fails at save time, naming the attribute,
so that a new fitted attribute is never silently dropped.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ._base.params import Estimator
from ._base.registry import model_file_classes, top_level_classes
from .atomic import atomic_path
from .scoring_only import model_kind, scoring_copy

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "ModelFileError", "TreeDecoder", "TreeEncoder",
           "load_model", "model_entries", "read_model", "save_model", "write_entries"]

#: Written into every model file; a file without it is not a model file.
FORMAT_NAME = "stpca-model"
#: Incremented whenever a file of the new layout cannot be read by the old reader.
FORMAT_VERSION = 1
METADATA_ENTRY = "metadata.json"
ARRAY_FOLDER = "arrays/"
#: Array dtypes a model file may hold: booleans, numbers and fixed-width text.
_ARRAY_KINDS = frozenset("biufcU")
_ENTRY_DATE = (1980, 1, 1, 0, 0, 0)
#: The key that marks a JSON object of the tree as an encoded value rather than a dict.
_TAG = "$type"


class ModelFileError(ValueError):
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


def model_entries(model: Estimator, *, scoring_only: bool = False
                  ) -> dict[str, bytes | np.ndarray]:
    """The entries of ``model``'s file: ``metadata.json`` (bytes) and the arrays by name;
    with ``scoring_only``, those of :func:`~stpca_gui.core.scoring_only.scoring_copy` (a
    :class:`~stpca_gui.core.stpca.ScaledTorusPCA`).

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
        "tree": tree,
    }
    text = json.dumps(metadata, indent=1, allow_nan=False, ensure_ascii=False)
    return {METADATA_ENTRY: text.encode("utf-8"), **encoder.arrays}


def save_model(model: Estimator, path: str | os.PathLike[str], *,
               scoring_only: bool = False) -> Path:
    """Write a fitted model to ``path`` (conventionally ``*.stpca``), atomically; with
    ``scoring_only``, only what ``transform`` and ``inverse_transform`` need (see
    :mod:`~stpca_gui.core.scoring_only`; the metadata's ``kind`` says which).

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
    entries = model_entries(model, scoring_only=scoring_only)
    target = Path(path)
    with atomic_path(target) as tmp, zipfile.ZipFile(
            tmp, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        write_entries(archive, entries)
    return target


def write_entries(archive: zipfile.ZipFile, entries: dict[str, bytes | np.ndarray],
                  prefix: str = "") -> None:
    """Write ``entries`` (bytes as they are, arrays as ``.npy``) into an open archive, each
    name preceded by ``prefix`` (e.g. ``"model/"`` for a model inside a session file)."""
    for name, content in entries.items():
        # A fixed date: the same content gives the same file.
        info = zipfile.ZipInfo(prefix + name, date_time=_ENTRY_DATE)
        if isinstance(content, bytes):
            archive.writestr(info, content)
            continue
        with archive.open(info, "w", force_zip64=True) as member:
            np.lib.format.write_array(member, content, allow_pickle=False)


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


def load_model(path: str | os.PathLike[str]) -> Estimator:
    """Read a model written by :func:`save_model`.

    Raises
    ------
    ModelFileError
        The file is missing, unreadable, corrupt, not a model file, lacks an entry, or was
        written in a newer format version; the message names the file and the problem.
    """
    source = Path(path)
    if not source.is_file():
        raise ModelFileError(f"{source}: no such file" if not source.exists()
                             else f"{source}: not a file")
    if not zipfile.is_zipfile(source):
        raise ModelFileError(f"{source}: not an stpca model file (not a ZIP archive)")
    try:
        with zipfile.ZipFile(source) as archive:
            return read_model(archive, source)
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as exc:
        raise ModelFileError(f"{source}: damaged model file ({type(exc).__name__}: {exc})"
                             ) from None


def read_model(archive: zipfile.ZipFile, source: Path, prefix: str = "") -> Estimator:
    """Read the model whose entries are under ``prefix`` in an open archive (see
    :func:`write_entries`); messages name ``source``.

    Raises
    ------
    ModelFileError
        As :func:`load_model`.
    """
    try:
        names = set(archive.namelist())
        if prefix + METADATA_ENTRY not in names:
            raise ModelFileError(f"{source}: not an stpca model file (no "
                                 f"{prefix}{METADATA_ENTRY})")
        metadata = json.loads(archive.read(prefix + METADATA_ENTRY).decode("utf-8"))
        _check_metadata(source, metadata)

        arrays: dict[str, np.ndarray] = {}

        def read_array(entry: str) -> np.ndarray:
            if not isinstance(entry, str):
                raise ValueError(f"array entry name {entry!r} is not text")
            if entry in arrays:  # an array shared in the fit is shared again
                return arrays[entry]
            if prefix + entry not in names:
                raise ModelFileError(f"{source}: the entry {prefix}{entry} is missing; the "
                                     "file is incomplete or damaged")
            with archive.open(prefix + entry) as member:
                arrays[entry] = np.lib.format.read_array(member, allow_pickle=False)
            return arrays[entry]

        model = _Decoder(read_array).value(metadata["tree"])
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, UnicodeDecodeError,
            ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        raise ModelFileError(f"{source}: damaged model file ({type(exc).__name__}: {exc})"
                             ) from None
    expected = top_level_classes()
    if type(model) not in expected:
        names = " or ".join(cls.__name__ for cls in expected)
        raise ModelFileError(f"{source}: holds a {type(model).__name__}, not a {names}")
    try:
        model._validate_params()
        model._check_fitted()
    except (ValueError, RuntimeError) as exc:
        raise ModelFileError(f"{source}: damaged model file ({exc})") from None
    return model


def _check_metadata(source: Path, metadata: Any) -> None:
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT_NAME:
        raise ModelFileError(f"{source}: not an stpca model file ({METADATA_ENTRY} does not "
                             f"name the format {FORMAT_NAME!r})")
    version = metadata.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ModelFileError(f"{source}: damaged model file (format version {version!r})")
    if version > FORMAT_VERSION:
        writer = metadata.get("package_version", "unknown")
        raise ModelFileError(
            f"{source}: written by stpca-gui {writer} in model file format {version}; this "
            f"stpca-gui ({__version__}) reads format {FORMAT_VERSION} and older: upgrade "
            "stpca-gui to load it")
    if "tree" not in metadata:
        raise ModelFileError(f"{source}: damaged model file (no tree in {METADATA_ENTRY})")


#: The tree writer and reader, for other files that hold records and arrays the same way
#: (the session file, stpca_gui/model/session_file.py).
TreeEncoder = _Encoder
TreeDecoder = _Decoder
