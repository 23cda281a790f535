"""The desktop bundle (packaging/build) runs on a machine without Python and compiles nothing.

The bundle is built once for the module (a few minutes: this is why the tests are slow) and
run in an environment with nothing of this machine's Python set-up: an empty home, a PATH
without uv, Python or the virtual environment, no PYTHONPATH or VIRTUAL_ENV.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from image_content import assert_has_content
from PIL import Image
from project_paths import REPO

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("display")]

ROOT = REPO
BUILD_TIMEOUT_S = 1_200
RUN_TIMEOUT_S = 300


def cache_listing(cache: Path) -> dict[str, tuple[int, int]]:
    """Each cache file's (size, modification time in ns), by path inside the cache."""
    return {str(path.relative_to(cache)): (path.stat().st_size, path.stat().st_mtime_ns)
            for path in cache.rglob("*") if path.is_file()}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    """A freshly built bundle directory (``<dist>/stpca-gui``)."""
    dist = tmp_path_factory.mktemp("dist")
    completed = subprocess.run([str(ROOT / "packaging" / "build"), "--dist", str(dist)],
                               capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    return dist / "stpca-gui"


def bare_environment(home: Path) -> dict[str, str]:
    """An environment with an empty home and no way to reach a Python installation."""
    home.mkdir(parents=True, exist_ok=True)
    empty_bin = home / "bin"
    empty_bin.mkdir(exist_ok=True)
    return {"HOME": str(home), "PATH": str(empty_bin), "LANG": "C.UTF-8",
            "DISPLAY": os.environ["DISPLAY"], "QT_QPA_PLATFORM": "xcb"}


def run_bundle(executable: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(executable), *args], env=bare_environment(home), cwd=home,
                          capture_output=True, text=True, timeout=RUN_TIMEOUT_S)


def test_bundle_renders_the_demo_without_python_and_compiles_nothing(bundle, tmp_path):
    # A copy elsewhere: the shipped cache must not depend on where the bundle lives.
    copy = tmp_path / "elsewhere" / "stpca-gui"
    shutil.copytree(bundle, copy, symlinks=True)
    cache = copy / "_internal" / "numba_cache"
    shipped = cache_listing(cache)
    assert any(name.endswith(".nbi") for name in shipped), "the bundle ships no kernel cache"

    out = tmp_path / "demo.png"
    completed = run_bundle(copy / "stpca-gui", tmp_path / "home", "--demo", "clusters-t3",
                           "--screenshot", str(out), "--size", "1400x900")
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert Image.open(out).size == (1400, 900)
    assert_has_content(out, min_fraction=0.3, min_colors=200)
    assert cache_listing(cache) == shipped, "the first launch compiled kernels"
    # Nor in the user's home (numba's user-wide cache, a copy of the bundle's).
    assert not list((tmp_path / "home").rglob("*.nbi")), "kernels cached in the home"


def test_bundle_ships_the_command_line_with_the_same_kernels(bundle, tmp_path):
    copy = tmp_path / "elsewhere" / "stpca-gui"
    shutil.copytree(bundle, copy, symlinks=True)
    cache = copy / "_internal" / "numba_cache"
    shipped = cache_listing(cache)
    completed = run_bundle(copy / "stpca", tmp_path / "home", "demo", "clusters-t3")
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "fitted radius r" in completed.stdout and "time: total" in completed.stdout
    assert cache_listing(cache) == shipped, "stpca compiled kernels the app had compiled"
    assert not list((tmp_path / "home").rglob("*.nbi")), "kernels cached in the home"
    listed = run_bundle(copy / "stpca", tmp_path / "home", "demos")
    assert listed.returncode == 0 and "clusters-t3" in listed.stdout


def as_unprivileged_user(command: list[str]) -> list[str]:
    """``command`` run as ``nobody`` when we are root (root writes to read-only folders)."""
    if os.geteuid() != 0:
        return command
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv (util-linux) to drop privileges")
    return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", *command]


def test_read_only_bundle_uses_a_copy_of_its_cache(bundle):
    # Not under tmp_path: pytest's folders are private to us, and the bundle runs as nobody.
    work = Path(tempfile.mkdtemp(prefix="stpca-read-only-"))
    try:
        work.chmod(0o755)
        copy = work / "opt" / "stpca-gui"
        shutil.copytree(bundle, copy, symlinks=True)
        shipped = cache_listing(copy / "_internal" / "numba_cache")
        subprocess.run(["chmod", "-R", "a-w", str(copy)], check=True)
        home = work / "home"
        env = bare_environment(home)
        if os.geteuid() == 0:
            shutil.chown(home, "nobody")
        completed = subprocess.run(
            as_unprivileged_user([str(copy / "stpca-gui"), "--compile-kernels"]), env=env,
            cwd=home, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
        assert completed.returncode == 0, completed.stderr[-3000:]
        assert cache_listing(copy / "_internal" / "numba_cache") == shipped
        (user_copy,) = (home / ".cache" / "stpca-gui").glob("numba-*")
        sizes = {name: size for name, (size, _) in cache_listing(user_copy).items()}
        assert sizes == {name: size for name, (size, _) in shipped.items()}, \
            "the read-only bundle compiled kernels"
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(work)], check=False)
        shutil.rmtree(work, ignore_errors=True)


def test_bundle_reads_a_psf_and_dcd_and_writes_the_motion(bundle, tmp_path):
    """MDAnalysis is in the bundle (issue 33 item 7): its stpca reads AdK's PSF/DCD (the
    dev group's MDAnalysisTests files) as the checkout does, fits them and writes a PDB."""
    datafiles = pytest.importorskip("MDAnalysisTests.datafiles")
    from stpca_gui.io.structures import DihedralSettings, read_torsions

    home = tmp_path / "home"
    table, session = tmp_path / "loop.csv", tmp_path / "loop.stpca"
    completed = run_bundle(bundle / "stpca", home, "dihedrals", datafiles.PSF, datafiles.DCD,
                           "--select", "resid 7:13", "--layout", "per-frame", "--out",
                           str(table))
    assert completed.returncode == 0, completed.stderr[-3000:]
    expected = read_torsions(datafiles.PSF, [datafiles.DCD],
                             DihedralSettings(select="resid 7:13", layout="per-frame"))
    import numpy as np

    values = np.loadtxt(table, delimiter=",", skiprows=1, usecols=range(3, 17))
    assert values.shape == (98, 14)
    assert np.allclose(values, expected.angles, atol=1e-5)
    for args in (["fit", str(table), "--degrees", "--save-session", str(session)],
                 ["motion", str(session), datafiles.PSF, datafiles.DCD, "--out",
                  str(tmp_path / "pns1.pdb")]):
        completed = run_bundle(bundle / "stpca", home, *args)
        assert completed.returncode == 0, completed.stderr[-3000:]
    assert (tmp_path / "pns1.pdb").read_text().count("\nMODEL") >= 9
