"""The numba cache locator of the frozen bundle, with the bundle simulated (fast).

tests/packaging/test_bundle.py checks the real bundle; these tests pin the locator's rules:
declining
outside a bundle, a cache path that ignores where the source or the bundle is, and the
one-time user copy of a read-only shipped cache.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from stpca_gui.core._base import bundle_cache as _bundle_cache
from stpca_gui.core._base.bundle_cache import (
    BUILD_ID_NAME,
    BUNDLE_CACHE_NAME,
    BundleCacheLocator,
    bundle_cache_dir,
)


def kernel(x):
    return x


kernel.__module__ = "stpca_gui.core._some_kernel"


@pytest.fixture
def frozen_bundle(tmp_path, monkeypatch) -> Path:
    """A fake bundle: ``sys.frozen``, ``sys._MEIPASS`` and an executable of our own."""
    bundle = tmp_path / "bundle" / "_internal"
    bundle.mkdir(parents=True)
    executable = tmp_path / "bundle" / "stpca-gui"
    executable.write_bytes(b"build 1")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    monkeypatch.setattr(sys, "executable", str(executable))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    bundle_cache_dir.cache_clear()
    _bundle_cache._build_id.cache_clear()
    yield bundle
    bundle_cache_dir.cache_clear()
    _bundle_cache._build_id.cache_clear()


def test_outside_a_bundle_numba_keeps_its_own_locators():
    bundle_cache_dir.cache_clear()
    assert bundle_cache_dir() is None
    assert BundleCacheLocator.from_function(kernel, __file__) is None


def test_the_cache_is_in_the_bundle_keyed_on_the_package(frozen_bundle):
    built_at = "/home/builder/src/stpca_gui/core/_some_kernel.py"
    locator = BundleCacheLocator.from_function(kernel, built_at)
    expected = frozen_bundle / BUNDLE_CACHE_NAME / "stpca_gui.core"
    assert Path(locator.get_cache_path()) == expected
    assert expected.is_dir()
    # The same folder whatever source path the frozen code object records.
    elsewhere = BundleCacheLocator.from_function(kernel, "/opt/x/stpca_gui/core/k.py")
    assert elsewhere.get_cache_path() == locator.get_cache_path()


def test_a_read_only_cache_is_copied_once_to_the_user_cache(frozen_bundle, monkeypatch,
                                                              tmp_path):
    shipped = frozen_bundle / BUNDLE_CACHE_NAME / "stpca_gui.core"
    shipped.mkdir(parents=True)
    (shipped / "k.nbi").write_bytes(b"index")
    (shipped / "k.1.nbc").write_bytes(b"machine code")
    (shipped / "k.nbi").chmod(0o444)
    writable = _bundle_cache._is_writable
    monkeypatch.setattr(_bundle_cache, "_is_writable",
                        lambda folder: not folder.is_relative_to(frozen_bundle)
                        and writable(folder))

    copy = bundle_cache_dir()
    assert copy.parent == tmp_path / "xdg-cache" / "stpca-gui"
    assert copy.name.startswith("numba-")
    assert (copy / "stpca_gui.core" / "k.1.nbc").read_bytes() == b"machine code"
    # numba rewrites the index when it adds a kernel: the copy must be writable.
    (copy / "stpca_gui.core" / "k.nbi").write_bytes(b"index 2")

    # A later launch of the same build uses the copy as it is; another build gets its own.
    bundle_cache_dir.cache_clear()
    assert bundle_cache_dir() == copy
    assert (copy / "stpca_gui.core" / "k.nbi").read_bytes() == b"index 2"
    Path(sys.executable).write_bytes(b"build 2")
    bundle_cache_dir.cache_clear()
    _bundle_cache._build_id.cache_clear()
    other = bundle_cache_dir()
    assert other != copy
    assert (other / "stpca_gui.core" / "k.nbi").read_bytes() == b"index"


def test_app_and_command_line_share_the_kernels_through_the_build_id(frozen_bundle,
                                                                     monkeypatch):
    # packaging/build writes the id; both executables of the bundle read it.
    (frozen_bundle / BUILD_ID_NAME).write_text("0123456789abcdef\n")
    app = BundleCacheLocator.from_function(kernel, "/build/stpca_gui/core/_some_kernel.py")
    cli_executable = Path(sys.executable).with_name("stpca")
    cli_executable.write_bytes(b"another executable")
    monkeypatch.setattr(sys, "executable", str(cli_executable))
    _bundle_cache._build_id.cache_clear()
    cli = BundleCacheLocator.from_function(kernel, "/build/stpca_gui/core/_some_kernel.py")
    assert app.get_source_stamp() == cli.get_source_stamp() == ("stpca-bundle",
                                                                 "0123456789abcdef")
    assert app.get_cache_path() == cli.get_cache_path()


def test_without_a_build_id_the_stamp_follows_the_executable(frozen_bundle):
    first = BundleCacheLocator.from_function(kernel, __file__).get_source_stamp()
    Path(sys.executable).write_bytes(b"build 2")
    _bundle_cache._build_id.cache_clear()
    assert BundleCacheLocator.from_function(kernel, __file__).get_source_stamp() != first
