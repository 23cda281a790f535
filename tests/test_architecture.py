"""Layering rules, checked by the import-linter contracts in pyproject.toml.

The contracts ([tool.importlinter]) say which layer may import which and which libraries
each may use; ``uv run lint-imports`` checks them statically (CI runs it too). The tests
here run that check, show that it catches a violation, and check at run time what static
analysis cannot see: the modules importing the numerics actually loads.
"""

from __future__ import annotations

import ast
import json
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


def dict_writes(source: str) -> list[int]:
    """Lines of ``source`` that write into an object's attributes through its dictionary
    (``obj.__dict__[name] = …``, ``vars(obj)[name] = …``, also augmented or annotated)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        targets = (node.targets if isinstance(node, ast.Assign) else [node.target]
                   if isinstance(node, ast.AugAssign | ast.AnnAssign) else [])
        for target in targets:
            if not isinstance(target, ast.Subscript):
                continue
            owner = target.value
            if (isinstance(owner, ast.Attribute) and owner.attr == "__dict__") or (
                    isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name)
                    and owner.func.id == "vars"):
                lines.append(node.lineno)
    return lines


def test_no_attribute_is_written_through_the_objects_dictionary():
    # Issue 30, item 2: a result's cached values were filled from outside through
    # __dict__; every value a result holds is given to its constructor.
    assert dict_writes("r.__dict__['x'] = 1\nvars(r)['y'] = 2\nr.d['z'] = 3\n") == [1, 2]
    found = {str(path.relative_to(REPO)): lines
             for path in sorted((REPO / "stpca_gui").rglob("*.py"))
             if (lines := dict_writes(path.read_text(encoding="utf-8")))}
    assert found == {}


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


#: Run in a fresh interpreter: warm_up(), then real use (exact and landmark fits, scoring,
#: uniformity tests, mode clustering); print the kernel signatures real use added.
_COVERAGE_SCRIPT = """
import json, sys, numpy as np, numba
from stpca_gui import core
from stpca_gui.core import warmup
from stpca_gui.core.diagnostics import fit_diagnostics
def signatures():
    # Every kernel of every core module loaded so far (a kernel module that only real use
    # imports counts too). Kernels inlined into their callers (inline="always") are never
    # compiled on their own.
    found = {}
    modules = [m for name, m in list(sys.modules.items())
               if name.startswith("stpca_gui.core") and m is not None]
    for module in modules:
        for name, value in vars(module).items():
            if (isinstance(value, numba.core.registry.CPUDispatcher)
                    and value.targetoptions.get("inline") != "always"):
                found[module.__name__ + "." + name] = {str(s) for s in value.signatures}
    return found
warmup.warm_up()
before = signatures()
demo = core.make_demo("clusters-t3")
model = core.ScaledTorusPCA(random_state=0).fit(demo.angles)
model.transform(demo.angles[:5])
model.inverse_transform(model.scores_[:5])
big = core.make_demo("clusters-t3", random_state=1).angles
core.ScaledTorusPCA(n_landmarks=60, random_state=0, torus_variance=False).fit(
    np.concatenate([big, demo.angles]))
# High d: the matrix-free T̂ and T̃ (landmark placement, curve, torus variance, scoring).
from stpca_gui.core.torsion_states import make_torsion_states
frames = make_torsion_states(160, 20, random_state=0).angles
high = core.ScaledTorusPCA(n_landmarks=60, random_state=0, pns_mode="great",
                           max_torus_components=2).fit(frames)
high.transform(frames[:3])
high.inverse_transform(high.scores_[:3])
core.uniformity_tests(model.scores_[:, 0], n_replicates=20, random_state=0,
                      calibration="monte_carlo")
core.uniformity_tests(np.linspace(0, 6, 400), n_replicates=20, random_state=0)
core.periodic_mode_clusters(model.scores_[:, 0])
core.periodic_mode_clusters(model.scores_[:, 0], method="tested")
core.torus_pdist(demo.angles[:20])
fit_diagnostics(model)
after = signatures()
print(json.dumps({name: sorted(after[name] - before.get(name, set())) for name in after
                  if after[name] - before.get(name, set())}))
"""


def test_warm_up_compiles_what_real_use_needs():
    # The desktop bundle ships the kernels warm_up() compiles; a type that real use passes
    # and warm_up() does not would be compiled on the user's machine, on the first run.
    done = subprocess.run([sys.executable, "-c", _COVERAGE_SCRIPT], capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    new_signatures = json.loads(done.stdout.splitlines()[-1])
    assert new_signatures == {}, f"compiled outside warm_up(): {new_signatures}"
