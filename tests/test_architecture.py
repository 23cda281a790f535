"""Layering rules, checked by the import-linter contracts in pyproject.toml.

The contracts ([tool.importlinter]) say which layer may import which and which libraries
each may use; ``uv run lint-imports`` checks them statically (CI runs it too). The tests
here run that check, show that it catches a violation, and check at run time what static
analysis cannot see: the modules importing the numerics actually loads.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
#: Libraries no module of stpca_gui.core may load, directly or through a dependency.
GUI_AND_PLOTTING = ("PySide6", "PyQt5", "PyQt6", "pyvista", "pyvistaqt", "matplotlib",
                    "superqt", "qtpy", "vtk")


def lint_imports(project: Path, *, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = None if pythonpath is None else os.environ | {"PYTHONPATH": str(pythonpath)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=project, env=env,
                          capture_output=True, text=True, check=False)


def test_import_contracts_are_kept():
    run = lint_imports(REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    assert " 0 broken" in run.stdout


def test_the_contracts_catch_qt_in_a_lower_layer(tmp_path):
    shutil.copytree(REPO / "stpca_gui", tmp_path / "stpca_gui",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    tables = tmp_path / "stpca_gui" / "io" / "tables.py"
    tables.write_text(tables.read_text() + "\nfrom PySide6.QtCore import QObject  # noqa\n")
    run = lint_imports(tmp_path, pythonpath=tmp_path)
    assert run.returncode != 0
    assert "Only the desktop app imports Qt BROKEN" in run.stdout
    assert "stpca_gui.io.tables -> PySide6" in run.stdout


def test_importing_core_loads_no_gui_module():
    code = (
        "import sys, pkgutil, importlib, stpca_gui.core as core\n"
        "for m in pkgutil.walk_packages(core.__path__, 'stpca_gui.core.'):\n"
        "    importlib.import_module(m.name)\n"
        f"bad = sorted(n for n in sys.modules if n.split('.')[0] in {GUI_AND_PLOTTING!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"stpca_gui.core pulled in: {out.stdout.strip()}"


def test_warm_up_runs_every_kernel():
    from stpca_gui.core import (
        _modes_kernel,
        _prediction_kernel,
        _smds_kernel,
        _subsphere_kernel,
        _torus_kernel,
    )
    from stpca_gui.core.warmup import warm_up

    warm_up()
    kernels = [_smds_kernel.pair_sums, _smds_kernel.pair_sums_serial,
               _torus_kernel.fill_torus_cdist, _prediction_kernel.predict_torus,
               _prediction_kernel.predict_torus_chain, _prediction_kernel.interpolate_sphere,
               _subsphere_kernel.objective_terms, _modes_kernel.windowed_log_kde_terms]
    assert all(kernel.signatures for kernel in kernels)
