"""Where numba keeps the compiled kernels inside a frozen (PyInstaller) bundle.

numba's own locators key a cache directory on the absolute path of each kernel's source
file, which in a bundle is where it was built, or where the user unpacked or copied it; a
cache filled at build time would then not be found again. This locator keys it on the
kernel's package instead and keeps it in the bundle itself,
``<bundle>/_internal/numba_cache``: the build fills it once (``stpca-gui --compile-kernels``
and a demo fit) and every copy of the bundle ships it.

A bundle installed read-only (say under ``/opt``) cannot take new entries, and numba only
uses a cache directory it can write to, so the shipped cache is then copied once to
``$XDG_CACHE_HOME/stpca-gui/numba-<build id>`` and used from there. The build id is a hash
of the bundle's executables (its build id), also the source stamp of every frozen kernel:
another build never reads this copy, and the bundle's ``stpca-gui`` and ``stpca`` share it.

The bundle's runtime hook (``packaging/pyi_rth_stpca_numba.py``) selects this locator through
``NUMBA_CACHE_LOCATOR_CLASSES``; outside a bundle it declines, and numba's usual locators
apply.
"""

from __future__ import annotations

import functools
import hashlib
import sys
import tempfile
from pathlib import Path

from numba.core.caching import _CacheLocator, _SourceFileBackedLocatorMixin

from ...files.user_cache import copy_once, user_cache_root

#: The cache directory's name inside the bundle's data directory (``sys._MEIPASS``).
BUNDLE_CACHE_NAME = "numba_cache"
#: The file there naming the build (a hash of its executables, written by packaging/build):
#: the source stamp of every frozen kernel, the same for ``stpca-gui`` and ``stpca``, which
#: thereby share one cache.
BUILD_ID_NAME = "build-id"


def _is_writable(directory: Path) -> bool:
    try:
        tempfile.TemporaryFile(dir=directory).close()
    except OSError:
        return False
    return True


@functools.cache
def _build_id() -> str:
    """The bundle's build id: the one ``packaging/build`` writes (:data:`BUILD_ID_NAME`),
    else a short hash of this executable (it holds all of the bundle's Python code)."""
    bundle_data = getattr(sys, "_MEIPASS", None)
    if bundle_data is not None:
        try:
            written = (Path(bundle_data) / BUILD_ID_NAME).read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            written = ""
        if written:
            return written
    digest = hashlib.sha256()
    with open(sys.executable, "rb") as executable:
        for block in iter(lambda: executable.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


@functools.cache
def bundle_cache_dir() -> Path | None:
    """The writable kernel cache of this bundle, or None when not frozen or none is writable."""
    bundle_data = getattr(sys, "_MEIPASS", None)
    if not getattr(sys, "frozen", False) or bundle_data is None:
        return None
    shipped = Path(bundle_data) / BUNDLE_CACHE_NAME
    try:
        shipped.mkdir(exist_ok=True)
    except OSError:
        pass
    if shipped.is_dir() and _is_writable(shipped):
        return shipped
    copy = user_cache_root() / f"numba-{_build_id()}"
    try:
        if shipped.is_dir():
            copy_once(shipped, copy)
        else:
            copy.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return copy if _is_writable(copy) else None


class BundleCacheLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """numba cache locator: kernels of a frozen app cached in :func:`bundle_cache_dir`."""

    def __init__(self, py_func, py_file: str, cache_dir: Path) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        # Keyed on the package (``stpca_gui.core``), not on the source path: a frozen
        # function's source path is where the bundle was built, or where it now lives.
        package = py_func.__module__.rpartition(".")[0] or py_func.__module__
        self._cache_path = str(cache_dir / package)

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> tuple[str, str]:
        # numba's stamp of a frozen function is its executable's time and size: the
        # bundle's two executables would each invalidate the other's kernels.
        return ("stpca-bundle", _build_id())

    @classmethod
    def from_function(cls, py_func, py_file: str):
        cache_dir = bundle_cache_dir()
        if cache_dir is None:
            return None
        locator = cls(py_func, py_file, cache_dir)
        try:
            locator.ensure_cache_path()
        except OSError:
            return None
        return locator
