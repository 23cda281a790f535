"""The application icon, desktop entry, MIME type and metainfo, their locator and installer."""

from __future__ import annotations

import configparser
import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from project_paths import REPO
from PySide6.QtGui import QImage

from stpca_gui import desktop_resources
from stpca_gui.desktop_resources import APP_ID, ICON_SIZES, icon_png, icon_svg, resources_dir

RESOURCES = REPO / "resources"
INSTALL_SCRIPT = REPO / "packaging" / "install-desktop-entry"
DESKTOP_FILE = RESOURCES / f"{APP_ID}.desktop"
METAINFO_FILE = RESOURCES / f"{APP_ID}.metainfo.xml"
MIME_FILE = RESOURCES / f"{APP_ID}.mime.xml"
#: The Okabe–Ito-like orange of the principal curve and the torus's blues, as RGB ranges.
ORANGE = ((200, 256), (120, 200), (0, 90))
BLUE = ((0, 120), (40, 200), (90, 256))


def require_tool(name: str) -> str:
    """The path of a system tool; skip without it, or fail in CI (STPCA_REQUIRE_DISPLAY=1)."""
    path = shutil.which(name)
    if path is None:
        reason = f"{name} is not installed (.ci/run installs it)"
        if os.environ.get("STPCA_REQUIRE_DISPLAY") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def rgba(image: QImage) -> np.ndarray:
    """The pixels of ``image`` as a (height, width, 4) uint8 array, not premultiplied."""
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    bits = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes())
    return bits.reshape(image.height(), image.bytesPerLine())[:, : 4 * image.width()].reshape(
        image.height(), image.width(), 4).copy()


def share_of(pixels: np.ndarray, ranges) -> float:
    """The fraction of opaque pixels whose RGB lies in ``ranges`` ((lo, hi) per channel)."""
    opaque = pixels[pixels[..., 3] >= 200]
    inside = np.ones(len(opaque), bool)
    for channel, (low, high) in enumerate(ranges):
        inside &= (opaque[:, channel] >= low) & (opaque[:, channel] < high)
    return inside.mean()


def load_render_icons():
    spec = importlib.util.spec_from_file_location("render_icons", RESOURCES / "render_icons.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------- the icon
@pytest.mark.parametrize("size", ICON_SIZES)
def test_png_icon_is_a_transparent_torus_with_an_orange_curve(size):
    image = QImage(str(icon_png(size)))
    assert not image.isNull()
    assert (image.width(), image.height()) == (size, size)
    assert image.hasAlphaChannel()
    pixels = rgba(image)
    corners = pixels[[0, 0, -1, -1], [0, -1, 0, -1], 3]
    assert (corners == 0).all()
    opaque = (pixels[..., 3] >= 200).mean()
    assert 0.4 < opaque < 0.9  # a doughnut filling the square, with its hole and margins
    # The torus and its curve both survive down to 16 px (bold shapes, not hairlines).
    assert share_of(pixels, BLUE) > 0.5
    assert share_of(pixels, ORANGE) > 0.04


def test_the_hole_of_the_torus_is_transparent():
    pixels = rgba(QImage(str(icon_png(256))))
    assert pixels[128, 128, 3] == 0  # see-through, so the icon works on any background
    assert pixels[128, 20, 3] == 255 and pixels[128, 236, 3] == 255  # the ring either side


@pytest.mark.parametrize("size", ICON_SIZES)
def test_committed_pngs_are_the_svg_rendered(size):
    """Re-rendering the SVG master gives the committed PNGs (run resources/render_icons.py)."""
    rendered = rgba(load_render_icons().render(icon_svg(), size)).astype(float)
    committed = rgba(QImage(str(icon_png(size)))).astype(float)
    difference = np.abs(rendered - committed)
    assert difference.mean() < 1.0, f"{icon_png(size)} differs from the SVG; re-render it"
    assert np.quantile(difference, 0.999) < 48


def test_svg_master_has_no_raster_images_or_unsupported_features():
    text = icon_svg().read_text(encoding="utf-8")
    # QSvgRenderer draws SVG Tiny: filters, masks or embedded bitmaps would vanish or blur.
    for feature in ("<image", "<filter", "<mask", "<clipPath", "data:"):
        assert feature not in text
    assert 'viewBox="0 0 256 256"' in text


# --------------------------------------------------------------------------- the locator
def test_locator_finds_the_checkout_resources():
    assert resources_dir() == RESOURCES
    assert icon_svg() == RESOURCES / "icons" / f"{APP_ID}.svg"
    for size in ICON_SIZES:
        assert icon_png(size).is_file()
    with pytest.raises(ValueError, match="no 20 px icon"):
        icon_png(20)


def test_locator_prefers_the_packaged_folder(tmp_path, monkeypatch):
    packaged = tmp_path / "stpca_gui"
    (packaged / "resources" / "icons").mkdir(parents=True)
    monkeypatch.setattr(desktop_resources.importlib.resources, "files", lambda _: packaged)
    assert resources_dir() == packaged / "resources"


def test_locator_names_both_places_when_resources_are_missing(tmp_path, monkeypatch):
    monkeypatch.setattr(desktop_resources.importlib.resources, "files", lambda _: tmp_path)
    monkeypatch.setattr(desktop_resources, "__file__", str(tmp_path / "pkg" / "module.py"))
    with pytest.raises(FileNotFoundError, match="resources are missing") as error:
        resources_dir()
    assert str(tmp_path / "resources") in str(error.value)


def test_wheel_carries_the_resources_and_the_locator_finds_them(tmp_path):
    """``uv build --wheel``: the package's resources/ in the wheel, found when installed."""
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH")
    subprocess.run([uv, "build", "--wheel", "--offline", "-q", "-o", str(tmp_path)], cwd=REPO,
                   check=True, capture_output=True, timeout=120)
    (wheel,) = tmp_path.glob("stpca_gui-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")
    prefix = "stpca_gui/resources/"
    expected = {f"{prefix}icons/hicolor/{n}x{n}/apps/{APP_ID}.png" for n in ICON_SIZES} | {
        f"{prefix}icons/{APP_ID}.svg", f"{prefix}{APP_ID}.desktop",
        f"{prefix}{APP_ID}.metainfo.xml", f"{prefix}{APP_ID}.mime.xml"}
    assert expected <= names
    assert not any(name.endswith(("render_icons.py", "screenshot.png")) for name in names)
    # The extracted wheel stands for an installed copy (-S: no site-packages, no editable
    # install; the locator needs only the standard library).
    found = subprocess.run(
        [sys.executable, "-S", "-c", "from stpca_gui.desktop_resources import icon_png; "
         "print(icon_png(16))"], env={**os.environ, "PYTHONPATH": str(tmp_path / "site")},
        cwd=tmp_path, check=True, capture_output=True, text=True).stdout.strip()
    assert Path(found) == tmp_path / "site" / prefix / f"icons/hicolor/16x16/apps/{APP_ID}.png"


# --------------------------------------------------------------------------- desktop files
def read_desktop_entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def test_desktop_entry_passes_desktop_file_validate():
    result = subprocess.run([require_tool("desktop-file-validate"), str(DESKTOP_FILE)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error:" not in result.stdout and "warning:" not in result.stdout, result.stdout


def test_desktop_entry_names_the_app_its_icon_and_file_types():
    entry = read_desktop_entry(DESKTOP_FILE)
    assert entry["Exec"] == "stpca-gui %f"
    assert entry["Icon"] == APP_ID
    # Qt on X11 sets WM_CLASS's class to the application name, which app.py sets.
    assert entry["StartupWMClass"] == "stpca-gui"
    assert "setApplicationName(\"stpca-gui\")" in (
        REPO / "stpca_gui" / "gui" / "app.py").read_text(encoding="utf-8")
    mime_types = entry["MimeType"].rstrip(";").split(";")
    assert mime_types == ["application/x-stpca", "text/csv", "text/tab-separated-values"]


def test_metainfo_passes_appstreamcli_validate():
    result = subprocess.run(
        [require_tool("appstreamcli"), "validate", "--no-net", "--no-color", str(METAINFO_FILE)],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    problems = [line for line in result.stdout.splitlines() if line.startswith(("E:", "W:"))]
    assert not problems, result.stdout
    text = METAINFO_FILE.read_text(encoding="utf-8")
    assert f"<id>{APP_ID}</id>" in text
    assert f'<launchable type="desktop-id">{DESKTOP_FILE.name}</launchable>' in text


def write_zip(path: Path, first_entry: str) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(zipfile.ZipInfo(first_entry), "{}")
        archive.writestr("arrays/x.npy", b"\x93NUMPY")
    return path


def test_mime_type_recognises_stpca_files_by_name_and_content(tmp_path):
    """Installed with update-mime-database, Qt's MIME database knows the .stpca files."""
    update = require_tool("update-mime-database")
    packages = tmp_path / "share" / "mime" / "packages"
    packages.mkdir(parents=True)
    shutil.copy(MIME_FILE, packages / f"{APP_ID}.xml")
    subprocess.run([update, str(packages.parent)], check=True, capture_output=True)
    # A model file's header as persistence.save_model writes it: metadata.json first.
    files = {"model.stpca": write_zip(tmp_path / "model.stpca", "other.json"),
             "model-without-extension": write_zip(tmp_path / "model", "metadata.json"),
             "other zip": write_zip(tmp_path / "other.zip", "other.json")}
    script = ("import sys\nfrom PySide6.QtCore import QMimeDatabase\n"
              "for path in sys.argv[1:]: print(QMimeDatabase().mimeTypeForFile(path).name())")
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "share"),
           "XDG_DATA_DIRS": "/usr/local/share:/usr/share"}
    names = subprocess.run([sys.executable, "-c", script, *map(str, files.values())], env=env,
                           check=True, capture_output=True, text=True).stdout.split()
    assert names == ["application/x-stpca", "application/x-stpca", "application/zip"]


# --------------------------------------------------------------------------- installer
def run_installer(data_home: Path, *args: str, path: str | None = None):
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    if path is not None:
        env["PATH"] = path
    return subprocess.run([str(INSTALL_SCRIPT), *args], env=env, capture_output=True,
                          text=True, timeout=60)


def files_mentioning_the_app(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file() and (
        "stpca" in path.name.lower() or b"stpca" in path.read_bytes().lower())]


def test_installer_installs_for_the_user_and_uninstalls_cleanly(tmp_path):
    data_home = tmp_path / "share"
    bundle = tmp_path / "my apps" / "stpca-gui"  # a space: Exec= must quote it
    bundle.mkdir(parents=True)
    executable = bundle / "stpca-gui"
    executable.write_text("#!/bin/sh\n")
    executable.chmod(0o755)

    result = run_installer(data_home, "--exec", str(executable))
    assert result.returncode == 0, result.stderr
    installed = {
        data_home / "applications" / f"{APP_ID}.desktop": None,
        data_home / "icons/hicolor/scalable/apps" / f"{APP_ID}.svg": icon_svg(),
        data_home / "mime/packages" / f"{APP_ID}.xml": MIME_FILE,
        data_home / "metainfo" / f"{APP_ID}.metainfo.xml": METAINFO_FILE,
        **{data_home / f"icons/hicolor/{n}x{n}/apps/{APP_ID}.png": icon_png(n)
           for n in ICON_SIZES},
    }
    for target, source in installed.items():
        assert target.is_file(), target
        assert f"installed {target}" in result.stdout
        if source is not None:
            assert target.read_bytes() == source.read_bytes()
    desktop = data_home / "applications" / f"{APP_ID}.desktop"
    assert read_desktop_entry(desktop)["Exec"] == f'"{executable}" %f'
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(["desktop-file-validate", str(desktop)], capture_output=True,
                               text=True)
        assert check.returncode == 0 and "error:" not in check.stdout, check.stdout
    if shutil.which("update-mime-database"):
        assert (data_home / "mime" / "application" / "x-stpca.xml").is_file()

    result = run_installer(data_home, "--uninstall")
    assert result.returncode == 0, result.stderr
    assert files_mentioning_the_app(data_home) == []  # caches refreshed too
    assert not (data_home / "icons" / "hicolor" / "16x16").exists()


def test_installer_without_the_cache_tools_still_installs(tmp_path):
    # A PATH holding only the basic commands the script uses: no update-* tools.
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("bash", "cp", "mkdir", "chmod", "sed", "rm", "rmdir", "dirname", "basename",
                 "env"):
        (tools / name).symlink_to(shutil.which(name))
    result = run_installer(tmp_path / "share", path=str(tools))
    assert result.returncode == 0, result.stderr
    assert "skipped update-desktop-database (not installed)" in result.stdout
    assert "skipped gtk-update-icon-cache (not installed)" in result.stdout
    assert (tmp_path / "share" / "applications" / f"{APP_ID}.desktop").read_bytes() == (
        DESKTOP_FILE.read_bytes())


def test_installer_refuses_bad_arguments_with_a_message(tmp_path):
    result = run_installer(tmp_path, "--exec", str(tmp_path / "missing"))
    assert result.returncode == 2
    assert f"--exec '{tmp_path / 'missing'}' is not an executable file" in result.stderr
    result = run_installer(tmp_path, "--resources", str(tmp_path))
    assert result.returncode == 2 and "see --resources" in result.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written
    help_text = run_installer(tmp_path, "--help").stdout
    for option in ("--exec PATH", "--resources DIR", "--uninstall", "XDG_DATA_HOME"):
        assert option in help_text


# --------------------------------------------------------------------------- the window
def test_main_window_has_the_application_icon(window):
    icon = window.windowIcon()
    assert not icon.isNull()
    assert {size.width() for size in icon.availableSizes()} == set(ICON_SIZES)
    small = rgba(icon.pixmap(16, 16).toImage())
    assert share_of(small, ORANGE) > 0.04  # our icon, not a default one
