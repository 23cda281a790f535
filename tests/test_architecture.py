"""Layering rules: the numerical core never imports GUI or plotting libraries."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "stpca_gui"
FORBIDDEN = ("PySide6", "PyQt5", "PyQt6", "pyvista", "pyvistaqt", "matplotlib", "superqt",
             "qtpy", "vtk")
QT_FREE_LAYERS = ("core", "model", "plotting")
GUI_ONLY = ("PySide6", "PyQt5", "PyQt6", "pyvistaqt", "superqt", "qtpy")


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("layer", QT_FREE_LAYERS)
def test_layer_sources_do_not_import_qt(layer):
    folder = PACKAGE / layer
    if not folder.exists():
        pytest.skip(f"stpca_gui/{layer} does not exist yet")
    banned = FORBIDDEN if layer == "core" else GUI_ONLY
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(imported_roots(path) & set(banned))
        for path in folder.rglob("*.py")
    }
    offenders = {k: v for k, v in offenders.items() if v}
    assert not offenders, f"forbidden imports in stpca_gui/{layer}: {offenders}"


def test_importing_core_loads_no_gui_module():
    code = (
        "import sys, pkgutil, importlib, stpca_gui.core as core\n"
        "for m in pkgutil.walk_packages(core.__path__, 'stpca_gui.core.'):\n"
        "    importlib.import_module(m.name)\n"
        f"bad = sorted(n for n in sys.modules if n.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"stpca_gui.core pulled in: {out.stdout.strip()}"


def test_the_checker_catches_a_forbidden_import(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text("import numpy\nfrom PySide6.QtCore import QObject\n"
                      "import matplotlib.pyplot\n")
    assert imported_roots(sample) >= {"PySide6", "matplotlib"}


def test_warm_up_runs_every_kernel():
    from stpca_gui.core import _prediction_kernel, _smds_kernel, _torus_kernel
    from stpca_gui.core.warmup import warm_up

    warm_up()
    kernels = [_smds_kernel.pair_sums, _smds_kernel.pair_sums_serial,
               _torus_kernel.fill_torus_cdist, _prediction_kernel.predict_torus,
               _prediction_kernel.predict_torus_chain, _prediction_kernel.interpolate_sphere]
    assert all(kernel.signatures for kernel in kernels)
