"""The one container of the package's own files: model files and sessions.

Both are ZIP archives of uncompressed (STORED) entries: JSON text (``metadata.json``) and
arrays in numpy's ``.npy`` format. Such files travel between people, so the reader treats
every byte as hostile. Before anything is allocated for an entry it checks, from the
archive's directory:

* the end-of-central-directory record: at most :attr:`Limits.max_entries` entries and a
  directory of a bounded size (checked before :mod:`zipfile` builds its entry list);
* every entry: stored (no compression, hence no decompression bomb), not encrypted, a
  declared size equal to its stored size and at most :attr:`Limits.max_entry_bytes`, data
  inside the file, a unique, short name; the sizes together at most the file's own size
  (overlapping entries cannot multiply it) and :attr:`Limits.max_total_bytes`;

and for each entry read:

* JSON: at most :attr:`Limits.max_json_bytes`, UTF-8, no ``NaN``/``Infinity`` constants;
* ``.npy``: a header parsed here (never ``pickle``, never ``numpy.load``), a plain dtype of
  an allowed kind, and shape × item size equal to the bytes that follow — so a header
  declaring a (10⁶, 10⁶) array in a small entry is refused without allocating it;
* the bytes actually read: exactly the declared size, with the CRC the directory records.

Every refusal is an exception of the class the caller names (``ModelFileError``,
``SessionFileError``) whose message starts with the file's path. What the arrays *mean*
(which shapes belong together, which values must be finite) is checked by the readers of
each format (:mod:`stpca_gui.core.persistence`, :mod:`stpca_gui.model.session_file`).

Standard library and numpy only: the package's bottom layer.
"""

from __future__ import annotations

import ast
import json
import os
import struct
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from .. import __version__
from .atomic import atomic_path

__all__ = ["ARRAY_KINDS", "ContainerError", "ContainerReader", "Limits", "check_format",
           "detail", "write_container", "write_entries"]

#: Array dtype kinds the files may hold: booleans, integers, floats, complex, fixed text.
ARRAY_KINDS = "biufcU"
#: The date written for every entry: the same content gives the same file.
_ENTRY_DATE = (1980, 1, 1, 0, 0, 0)
_NPY_MAGIC = b"\x93NUMPY"
#: Longest ``.npy`` header read (numpy's own reader refuses longer ones too).
_NPY_MAX_HEADER = 10_000
#: Most dimensions an array may have (numpy's limit).
_NPY_MAX_DIMS = 32
_EOCD = struct.Struct("<4s4H2LH")
_EOCD64_LOCATOR = struct.Struct("<4sLQL")
_EOCD64 = struct.Struct("<4sQ2H2L4Q")
#: Size of a central directory record without its name, extra field and comment.
_CENTRAL_RECORD = 46
#: Size of a local file header without its name and extra field.
_LOCAL_HEADER = 30
_CHUNK = 1 << 20


class ContainerError(ValueError):
    """A container file cannot be read; the message names the file and the problem.

    The file formats raise their own subclasses (``ModelFileError``, ``SessionFileError``).
    """


@dataclass(frozen=True)
class Limits:
    """What a reader accepts at most.

    Attributes
    ----------
    max_entries : int
        Entries in the archive.
    max_entry_bytes : int
        Bytes of one entry.
    max_total_bytes : int
        Bytes of all entries together.
    max_json_bytes : int
        Bytes of a JSON entry (parsing JSON takes several times its size in memory).
    max_name_bytes : int
        Length of an entry name.
    """

    max_entries: int = 10_000
    max_entry_bytes: int = 8 << 30
    max_total_bytes: int = 32 << 30
    max_json_bytes: int = 64 << 20
    max_name_bytes: int = 1024


class ContainerReader:
    """An open container file, checked as the module docstring says.

    Parameters
    ----------
    path : str or path-like
    error : type
        The exception class raised for every refusal (a subclass of :class:`ContainerError`
        or ``ValueError``); messages start with ``path``.
    what : str
        What the file should be ("model file", "session file"), for messages.
    limits : Limits, optional

    Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, path: str | os.PathLike[str], error: type[Exception] = ContainerError,
                 what: str = "stpca file", limits: Limits | None = None) -> None:
        self.path = Path(path)
        self.error = error
        self.what = what
        self.limits = limits or Limits()
        self._archive: zipfile.ZipFile | None = None
        self._infos: dict[str, zipfile.ZipInfo] = {}
        self._open()

    # ----------------------------------------------------------------- errors
    def fail(self, problem: str) -> NoReturn:
        """Raise the reader's error: ``"<path>: <problem>"``."""
        raise self.error(f"{self.path}: {problem}")

    def damaged(self, problem: str) -> NoReturn:
        """Raise the reader's error for a damaged file."""
        self.fail(f"damaged {self.what} ({problem})")

    # ---------------------------------------------------------------- opening
    def _open(self) -> None:
        path = self.path
        if not path.exists():
            self.fail("no such file")
        if not path.is_file():
            self.fail("not a file")
        try:
            with open(path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                head = handle.read(4)
                count, directory_size = self._end_record(handle, size, head)
        except OSError as exc:
            self.fail(f"cannot be read ({exc.strerror or exc})")
        limits = self.limits
        if count > limits.max_entries:
            self.fail(f"not an stpca {self.what}: {count:,} entries (at most "
                      f"{limits.max_entries:,} are read)")
        if directory_size > count * (_CENTRAL_RECORD + 3 * 65535) or directory_size > size:
            self.damaged("its ZIP directory is larger than its entries can be")
        try:
            archive = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
                struct.error, NotImplementedError) as exc:
            self.damaged(f"{type(exc).__name__}: {exc}")
        try:
            self._check_entries(archive.infolist(), size)
        except BaseException:
            archive.close()
            raise
        self._archive = archive

    def _end_record(self, handle: Any, size: int, head: bytes) -> tuple[int, int]:
        """Entry count and directory size from the end-of-central-directory record."""
        tail_size = min(size, _EOCD.size + 65535)
        handle.seek(size - tail_size)
        tail = handle.read(tail_size)
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or len(tail) - at < _EOCD.size:
            if head == b"PK\x03\x04":
                self.damaged("the file is truncated or its ZIP directory is broken")
            self.fail(f"not an stpca {self.what} (not a ZIP archive)")
        fields = _EOCD.unpack_from(tail, at)
        count, directory_size = fields[4], fields[5]
        if count == 0xFFFF or directory_size == 0xFFFFFFFF:
            locator_at = at - _EOCD64_LOCATOR.size
            if locator_at < 0:
                self.damaged("a ZIP64 directory without its locator")
            signature, _, offset, _ = _EOCD64_LOCATOR.unpack_from(tail, locator_at)
            if signature != b"PK\x06\x07" or offset + _EOCD64.size > size:
                self.damaged("a ZIP64 directory without its locator")
            handle.seek(offset)
            record = handle.read(_EOCD64.size)
            if len(record) != _EOCD64.size or record[:4] != b"PK\x06\x06":
                self.damaged("a broken ZIP64 directory record")
            values = _EOCD64.unpack(record)
            count, directory_size = values[7], values[8]
        return count, directory_size

    def _check_entries(self, infos: list[zipfile.ZipInfo], size: int) -> None:
        limits = self.limits
        if len(infos) > limits.max_entries:
            self.fail(f"not an stpca {self.what}: {len(infos):,} entries (at most "
                      f"{limits.max_entries:,} are read)")
        total = 0
        for info in infos:
            name = info.filename
            shown = repr(name[:80])
            if len(name.encode("utf-8", "surrogatepass")) > limits.max_name_bytes:
                self.damaged(f"an entry name of {len(name):,} characters")
            if name in self._infos:
                self.damaged(f"the entry {shown} appears twice")
            if info.flag_bits & 0x1:
                self.fail(f"the entry {shown} is encrypted; stpca files are never encrypted")
            if info.compress_type != zipfile.ZIP_STORED:
                self.fail(f"the entry {shown} is compressed (ZIP method "
                          f"{info.compress_type}); stpca files hold uncompressed (stored) "
                          "entries only — was the file re-packed by another program?")
            if info.file_size != info.compress_size:
                self.damaged(f"the entry {shown} declares {info.file_size:,} bytes but "
                             f"stores {info.compress_size:,}")
            if info.file_size > limits.max_entry_bytes:
                self.fail(f"the entry {shown} is {info.file_size:,} bytes; at most "
                          f"{limits.max_entry_bytes:,} are read")
            if info.header_offset + _LOCAL_HEADER + info.compress_size > size:
                self.damaged(f"the entry {shown} reaches past the end of the file")
            total += info.file_size
            self._infos[name] = info
        if total > size:
            self.damaged(f"its entries declare {total:,} bytes in a file of {size:,}")
        if total > limits.max_total_bytes:
            self.fail(f"its entries hold {total:,} bytes; at most "
                      f"{limits.max_total_bytes:,} are read")

    # ---------------------------------------------------------------- reading
    @property
    def names(self) -> frozenset[str]:
        """The entry names."""
        return frozenset(self._infos)

    def _info(self, name: str) -> zipfile.ZipInfo:
        if not isinstance(name, str):
            self.damaged(f"an entry name {str(name)[:80]!r} is not text")
        info = self._infos.get(name)
        if info is None:
            self.fail(f"the entry {name[:200]} is missing; the file is incomplete or "
                      "damaged")
        return info

    def read_bytes(self, name: str) -> bytes:
        """The bytes of entry ``name``, exactly its declared size, CRC checked."""
        return bytes(self._read(name, self._info(name).file_size))

    def _read(self, name: str, size: int) -> bytearray:
        """The first ``size`` bytes of entry ``name`` into a new, writable buffer; reading
        the whole entry also checks that it ends there (and its CRC)."""
        assert self._archive is not None, "the reader is closed"
        info = self._info(name)
        buffer = bytearray(size)
        try:
            with self._archive.open(info) as member:
                done = 0
                while done < size:
                    chunk = member.read(min(_CHUNK, size - done))
                    if not chunk:
                        self.damaged(f"the entry {name!r} ends after {done:,} of "
                                     f"{size:,} bytes")
                    buffer[done:done + len(chunk)] = chunk
                    done += len(chunk)
                if size == info.file_size and member.read(1):
                    self.damaged(f"the entry {name!r} holds more than its declared size")
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
                struct.error, NotImplementedError, RuntimeError) as exc:
            self.damaged(f"entry {name!r}: {type(exc).__name__}: {exc}")
        return buffer

    def read_json(self, name: str) -> Any:
        """The JSON value of entry ``name`` (UTF-8, no NaN or infinite constants)."""
        size = self._info(name).file_size
        if size > self.limits.max_json_bytes:
            self.fail(f"the entry {name!r} is {size:,} bytes of JSON; at most "
                      f"{self.limits.max_json_bytes:,} are read")

        def refuse_constant(constant: str) -> NoReturn:
            raise ValueError(f"the JSON constant {constant} is not allowed")

        try:
            return json.loads(self.read_bytes(name).decode("utf-8"),
                              parse_constant=refuse_constant)
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            self.damaged(f"{name}: {detail(exc)}")

    def read_array(self, name: str, kinds: str = ARRAY_KINDS) -> np.ndarray:
        """The array of the ``.npy`` entry ``name``: native byte order, writable, owning
        its memory; refused unless its dtype kind is one of ``kinds``."""
        size = self._info(name).file_size
        prefix = bytes(self._read(name, min(size, 12))) if size >= 10 else b""
        if len(prefix) < 10 or prefix[:6] != _NPY_MAGIC:
            self.damaged(f"the entry {name!r} is not a .npy array")
        major = prefix[6]
        if major == 1:
            header_length, start = struct.unpack_from("<H", prefix, 8)[0], 10
        elif major in (2, 3) and len(prefix) >= 12:
            header_length, start = struct.unpack_from("<I", prefix, 8)[0], 12
        else:
            self.damaged(f"the entry {name!r} has .npy format version {major}")
        if header_length > _NPY_MAX_HEADER or start + header_length > size:
            self.damaged(f"the entry {name!r} has a .npy header of {header_length:,} bytes")
        header = bytes(self._read(name, start + header_length))[start:]
        dtype, shape, fortran = self._npy_header(name, header, major, kinds)
        data_size = size - start - header_length
        count = 1
        for length in shape:
            count *= length
        if count * dtype.itemsize != data_size:
            self.damaged(f"the entry {name!r} declares shape {shape} of {dtype.str} "
                         f"({count * dtype.itemsize:,} bytes) but holds {data_size:,} bytes")
        buffer = self._read(name, size)
        array = np.frombuffer(buffer, dtype=dtype, count=count, offset=start + header_length)
        array = array.reshape(shape, order="F" if fortran else "C")
        if not dtype.isnative:
            array = array.astype(dtype.newbyteorder("="))
        if not array.flags.aligned:
            array = array.copy()
        return np.ascontiguousarray(array)

    def _npy_header(self, name: str, header: bytes, major: int, kinds: str
                    ) -> tuple[np.dtype, tuple[int, ...], bool]:
        try:
            text = header.decode("utf-8" if major == 3 else "latin-1")
            value = ast.literal_eval(text)
        except (UnicodeDecodeError, ValueError, SyntaxError, TypeError, MemoryError,
                RecursionError):
            self.damaged(f"the entry {name!r} has an unreadable .npy header")
        if not isinstance(value, dict) or set(value) != {"descr", "fortran_order", "shape"}:
            self.damaged(f"the entry {name!r} has an unreadable .npy header")
        descr, fortran, shape = value["descr"], value["fortran_order"], value["shape"]
        if not isinstance(descr, str) or not isinstance(fortran, bool):
            self.damaged(f"the entry {name!r} is not an array of a plain dtype")
        try:
            dtype = np.dtype(descr)
        except (TypeError, ValueError):
            self.damaged(f"the entry {name!r} has the unknown dtype {descr[:40]!r}")
        if (dtype.kind not in kinds or dtype.fields is not None or dtype.subdtype is not None
                or dtype.hasobject or dtype.itemsize == 0):
            self.damaged(f"the entry {name!r} holds {dtype} values; expected "
                         f"{_kind_names(kinds)}")
        if (not isinstance(shape, tuple) or len(shape) > _NPY_MAX_DIMS or not all(
                isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in shape)):
            self.damaged(f"the entry {name!r} has the shape {str(shape)[:80]}")
        return dtype, shape, fortran

    # ---------------------------------------------------------------- closing
    def close(self) -> None:
        if self._archive is not None:
            self._archive.close()
            self._archive = None

    def __enter__(self) -> ContainerReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def check_format(source: str | os.PathLike[str], metadata: Any, *, name: str, newest: int,
                 what: str, error: type[ContainerError],
                 mistaken: Mapping[str, str] | None = None) -> int:
    """Check that ``metadata`` (the parsed ``metadata.json``) names the format ``name`` in a
    version this package reads (1 to ``newest``), and return that version.

    ``what`` names the kind of file in the messages (``"model file"``, ``"session file"``);
    a failure raises ``error`` with a message starting with ``source``. ``mistaken`` maps
    the names of the package's other formats to what to tell a user who opened such a file
    here.
    """
    found = metadata.get("format") if isinstance(metadata, dict) else None
    if mistaken and found in mistaken:
        raise error(f"{source}: {mistaken[found]}")
    if found != name:
        raise error(f"{source}: not an stpca {what} (metadata.json does not name the format "
                    f"{name!r})")
    version = metadata.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise error(f"{source}: damaged {what} (format version {version!r})")
    if version > newest:
        writer = metadata.get("package_version", "unknown")
        raise error(
            f"{source}: written by stpca-gui {writer} in {what} format {version}; this "
            f"stpca-gui ({__version__}) reads format {newest} and older: upgrade stpca-gui "
            "to open it")
    return version


def detail(exc: BaseException) -> str:
    """An exception for a file error's message: the text of the readers' own checks
    (``ValueError``) as it is, other exceptions with their kind."""
    text = str(exc)[:300]
    return text if type(exc) is ValueError else f"{type(exc).__name__}: {text}"


def _kind_names(kinds: str) -> str:
    names = {"b": "booleans", "i": "integers", "u": "unsigned integers", "f": "floats",
             "c": "complex numbers", "U": "text"}
    return " or ".join(names[k] for k in kinds)


# ------------------------------------------------------------------------- writing
def write_entries(archive: zipfile.ZipFile, entries: Mapping[str, bytes | np.ndarray],
                  prefix: str = "") -> None:
    """Write ``entries`` (bytes as they are, arrays as ``.npy``) into an open archive, each
    name preceded by ``prefix`` (e.g. ``"model/"`` for a model inside a session file)."""
    for name, content in entries.items():
        info = zipfile.ZipInfo(prefix + name, date_time=_ENTRY_DATE)
        info.compress_type = zipfile.ZIP_STORED
        if isinstance(content, bytes):
            archive.writestr(info, content)
            continue
        with archive.open(info, "w", force_zip64=True) as member:
            np.lib.format.write_array(member, content, allow_pickle=False)


def write_container(path: str | os.PathLike[str],
                    *groups: tuple[str, Mapping[str, bytes | np.ndarray]]) -> Path:
    """Write a container atomically (:func:`~stpca_gui.files.atomic.atomic_path`): each
    group ``(prefix, entries)`` in order, all entries stored uncompressed.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    target = Path(path)
    with atomic_path(target) as tmp, zipfile.ZipFile(
            tmp, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for prefix, entries in groups:
            write_entries(archive, entries, prefix)
    return target
