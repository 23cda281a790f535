"""A short Python script that refits an analysis and writes its results and figures.

*File → Export as Python Script* and ``stpca export-script`` write it. The script uses the
library's public API only: it reloads the data, fits :class:`ScaledTorusPCA` with the same
parameters and seed, and writes ``scores.csv``, ``embedding.csv``, ``principal_curve.csv``,
``summary.json`` and the app's figures into ``--out DIR``. Its scores equal the app's.

How the script gets the data (:attr:`ScriptExport.data_origin`):

* ``"demo"``: ``make_demo(name, random_state=seed)`` (with the demo's recorded options, such
  as ``cluster_sd``), then any lagged embedding.
* ``"file"``: ``read_angle_table`` of the source file with the options it was read with,
  then any lagged embedding. An exact copy of the angles is written beside the script
  (``<script stem>-data.csv``); when the source file is missing or its sha256 differs, the
  script says so and uses the copy.
* ``"structure"``: the torsions read again from the structure files
  (:func:`~stpca_gui.io.structures.read_torsions` with the recorded settings), when every
  file is there with its recorded sha256; the script checks them again and otherwise uses
  the copy written beside it.
* ``"copy"``: only the copy, when the data cannot be rebuilt from where they came from.

Each is a small class of :mod:`stpca_gui.model.script_sources`, registered in
:data:`~stpca_gui.model.script_sources.SCRIPT_SOURCES`; this module writes what every
script has and asks the data's source for the rest.

Before choosing "demo" or "file", :func:`python_script` runs the script's own loading code
in-process and checks that it gives the data set's angles, row ids and labels exactly;
otherwise it falls back to "copy".

Safe by construction: text that comes from the data (names, paths, descriptions, column
names, table options) enters the script only as Python literals (``repr``) assigned to
module-level constants or passed as arguments, never inside the docstring or comments.
The finished script is parsed (:mod:`ast`) and must consist of exactly the intended
top-level statements, each data constant holding exactly its intended value; otherwise
the export is refused and nothing is written. :func:`write_script` refuses to write over
the data set's source file (or any other input named) and over a file in the data copy's
place that stpca-gui did not write (the folder's manifest,
:mod:`stpca_gui.files.output_folder`).
"""

from __future__ import annotations

import ast
import dataclasses
import datetime
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..core import SIMULATED_DEMO_NAMES, ModeClusterSettings, ScaledTorusPCA
from ..files.digest import angles_sha256
from ..files.output_folder import output_folder
from ..io.data_copy import data_copy_text
from .analysis import FitParameters
from .dataset import Dataset
from .demos import DATA_DEMOS
from .script_sources import SCRIPT_SOURCES, ScriptSource
from .script_sources import literal as _literal
from .script_sources import long_assignment as _assignment
from .structures import structure_files_unchanged

__all__ = ["ScriptExport", "ScriptSafetyError", "export_script", "python_script",
           "write_script"]


class ScriptSafetyError(ValueError):
    """The generated script is not exactly the intended one (nothing is written)."""


@dataclass(frozen=True)
class ScriptExport:
    """A generated script and the files to write beside it.

    Attributes
    ----------
    script_path : Path
    script : str
        The script's text.
    data_files : dict of str to str
        Files to write in the script's folder (name to text): the data copy, if any.
    data_origin : {"demo", "file", "structure", "copy"}
        Where the script reads the data from (see the module docstring): a name of
        :data:`~stpca_gui.model.script_sources.SCRIPT_SOURCES`.
    note : str
        Why the copy is used instead of the source ("" otherwise).
    """

    script_path: Path
    script: str
    data_files: dict[str, str]
    data_origin: str
    note: str = ""
    #: Files the export must not replace (the data set's source), as (description, path).
    inputs: tuple[tuple[str, str], ...] = ()

    def reading_note(self) -> str:
        """What the app tells the user about how the script reads the data."""
        copy = next(iter(self.data_files), "")
        return SCRIPT_SOURCES[self.data_origin].user_note(copy, self.note)


def python_script(dataset: Dataset, parameters: FitParameters, *, script_path: str | Path,
                  now: datetime.datetime | None = None) -> ScriptExport:
    """The script that refits ``parameters`` on ``dataset`` (nothing is written).

    Parameters
    ----------
    dataset : Dataset
    parameters : FitParameters
        The settings of the fit to reproduce (the PNS1 mode clusters' rule and level too);
        the seed must be set.
    script_path : str or path-like
        Where the script will be written (names the data copy and the default output
        folder, both beside it).
    now : datetime, optional
        The time written in the docstring (default: now, UTC).

    Raises
    ------
    ValueError
        For parameters without a seed (a fit that no script can repeat) or invalid ones.
    """
    parameters.validate()
    if parameters.random_state is None:
        raise ValueError("the fit has no seed, so no script can repeat it: set a seed "
                         "(Parameters → Seed) and fit again")
    path = Path(script_path).resolve()
    when = (now or datetime.datetime.now(datetime.UTC)).strftime("%Y-%m-%d %H:%M UTC")
    writer = _ScriptWriter(dataset, parameters, path, when)
    origin, note = _data_origin(dataset)
    if SCRIPT_SOURCES[origin].rebuilds:
        loader = writer.loader(origin)
        writer.verify(loader, origin, figures=False)  # before running it here
        note = _reproduces(loader, path, dataset)
        if note:
            origin = "copy"
    data_files = ({writer.copy_name: writer.copy_text()}
                  if SCRIPT_SOURCES[origin].writes_copy else {})
    script = writer.script(origin)
    writer.verify(script, origin)
    inputs = [("the data set's source file", dataset.source)] if (
        not dataset.is_demo and dataset.source) else []
    if dataset.structure is not None:
        inputs += [("a structure file the data were read from", str(name)) for name in
                   (dataset.structure["topology"], *dataset.structure["trajectories"])]
    return ScriptExport(path, script, data_files, origin, note, tuple(inputs))


def _data_origin(dataset: Dataset) -> tuple[str, str]:
    """The source a script would read the data from (a name of
    :data:`~stpca_gui.model.script_sources.SCRIPT_SOURCES`), before checking that it gives
    the data set, and why the copy is used when it is."""
    if dataset.is_demo and dataset.name in DATA_DEMOS:  # bundled data: no make_demo call
        return "copy", (f"it is the bundled {dataset.name} data set, copied exactly beside "
                        "the script")
    if (dataset.is_demo and dataset.demo_seed is not None
            and dataset.name in SIMULATED_DEMO_NAMES):
        return "demo", ""
    if dataset.structure is not None and "table" not in dataset.structure:
        # (Data read from a stpca dihedrals table are read again from the table.)
        if structure_files_unchanged(dataset.structure):
            return "structure", ""
        return "copy", "its structure files are missing or have changed since they were read"
    if dataset.table_options is not None and Path(dataset.source).is_file():
        return "file", ""
    return "copy", (f"its file {dataset.source} is not there any more"
                    if dataset.table_options is not None else
                    "the data set does not record how to read it again from its source")


def write_script(export: ScriptExport, *, overwrite: bool = False) -> list[Path]:
    """Write the script and its data files, as one set (all or none are replaced), never
    over an input or a file of the folder stpca-gui did not write (unless ``overwrite``)
    (:func:`~stpca_gui.files.output_folder.output_folder`).

    Returns
    -------
    list of pathlib.Path
        The files written, the script first.

    Raises
    ------
    OSError
        Naming the path that cannot be written.
    """
    folder = export.script_path.parent
    texts = {export.script_path.name: export.script, **export.data_files}
    # The script's own path was chosen (and asked about); a data copy may only replace
    # an earlier copy stpca-gui wrote (the folder's manifest), never a user's file.
    with output_folder(folder, texts, kind=f"script {export.script_path.name}",
                       inputs=export.inputs, whole_folder=False,
                       chosen=[export.script_path.name], overwrite=overwrite,
                       roles={export.script_path.name: "the script",
                              **{name: "the data copy" for name in export.data_files}},
                       option="choose another script name (or pass --overwrite)"
                       ) as temporaries:
        for name, tmp in temporaries.items():
            tmp.write_text(texts[name], encoding="utf-8", newline="")
    return [folder / name for name in texts]


def export_script(dataset: Dataset, parameters: FitParameters, script_path: str | Path,
                  inputs: tuple[tuple[str, str], ...] = (), overwrite: bool = False
                  ) -> tuple[ScriptExport, list[Path]]:
    """:func:`python_script`, then :func:`write_script`; returns both results.

    ``inputs`` are further files the export must not replace (e.g. the session it comes
    from), as (description, path); ``overwrite`` as for :func:`write_script`."""
    export = python_script(dataset, parameters, script_path=script_path)
    if inputs:
        export = dataclasses.replace(export, inputs=(*export.inputs, *inputs))
    return export, write_script(export, overwrite=overwrite)


def _wrapped(text: str) -> str:
    """A docstring paragraph (fixed text only): lines of at most 88 characters."""
    return textwrap.fill(text, width=88, break_long_words=False, break_on_hyphens=False)


def _statement_kind(node: ast.stmt) -> tuple[str, str]:
    """(kind, name) of a top-level statement, for :meth:`_ScriptWriter.verify`."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(
            node.value.value, str):
        return ("docstring", "")
    if isinstance(node, ast.Import) and len(node.names) == 1:
        return ("import", node.names[0].name)
    if isinstance(node, ast.ImportFrom) and node.level == 0:
        return ("from", node.module or "")
    if (isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)):
        return ("assign", node.targets[0].id)
    if isinstance(node, ast.FunctionDef):
        return ("def", node.name)
    if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
        return ("if", "__main__")
    return ("other", type(node).__name__)


def _reproduces(script: str, script_path: Path, dataset: Dataset) -> str:
    """Run a script's ``load_data`` here; "" when it gives the data set exactly, else why
    not."""
    namespace: dict[str, Any] = {"__name__": "stpca_exported_script",
                                 "__file__": str(script_path)}
    try:
        # The script's own text, so the check runs exactly what the script will run.
        exec(compile(script, str(script_path), "exec"), namespace)
        angles, rows, labels = namespace["load_data"]()
    except Exception as exc:  # any failure means: use the copy
        return f"reading the source again failed ({type(exc).__name__}: {exc})"
    rows = np.arange(1, len(angles) + 1) if rows is None else rows
    same_labels = (labels is None and dataset.labels is None) or (
        labels is not None and dataset.labels is not None
        and np.array_equal(np.asarray(labels).astype(str), dataset.labels))
    same_angles = (np.shape(angles) == dataset.angles.shape
                   and angles_sha256(angles) == angles_sha256(dataset.angles))  # bit for bit
    if not (same_angles and np.array_equal(rows, dataset.row_ids) and same_labels):
        return "reading the source again does not give the same data"
    return ""


class _ScriptWriter:
    """The text of the script, section by section."""

    def __init__(self, dataset: Dataset, parameters: FitParameters, path: Path, when: str):
        self.dataset = dataset
        self.parameters = parameters
        self.path = path
        self.when = when
        self.copy_name = f"{path.stem}-data.csv"
        self.results_name = f"{path.stem}-results"
        self._sources: dict[str, ScriptSource] = {}

    def source(self, origin: str) -> ScriptSource:
        """The data source named ``origin`` (one of
        :data:`~stpca_gui.model.script_sources.SCRIPT_SOURCES`), made once."""
        if origin not in self._sources:
            self._sources[origin] = SCRIPT_SOURCES[origin](self.dataset)
        return self._sources[origin]

    def copy_text(self) -> str:
        data = self.dataset
        return data_copy_text(data.angles, data.column_names, data.row_ids, data.labels)

    # ------------------------------------------------------------------ whole
    def script(self, origin: str) -> str:
        """The whole script, reading the data as ``origin`` says."""
        parts = [self._docstring(origin), self._imports(origin, figures=True),
                 *self._loading_parts(origin), self._main()]
        return "\n\n".join(parts) + '\n\n\nif __name__ == "__main__":\n    main()\n'

    def loader(self, origin: str) -> str:
        """The part of the script that loads the data (the same text), without the figure
        imports: what :func:`_reproduces` runs here."""
        return "\n\n".join([self._imports(origin, figures=False),
                            *self._loading_parts(origin)]) + "\n"

    def _loading_parts(self, origin: str) -> list[str]:
        return [self._constants(origin), self._sha_function(), self._load_function(origin)]

    def _imports(self, origin: str, *, figures: bool) -> str:
        source = self.source(origin)
        core = ["ScaledTorusPCA", "model_mode_clusters", *source.core_names]
        if source.rebuilds and self.dataset.lagged_embeddings:
            core.append("lagged_embedding")
        io = [*source.io_names, "write_results"]
        lines = ["import argparse", "import hashlib", "import sys", "from pathlib import Path",
                 "", "import numpy as np", "",
                 f"from stpca_gui.core import {', '.join(sorted(core))}",
                 *(["from stpca_gui.core.summary import fit_summary"] if figures else []),
                 f"from stpca_gui.io import {', '.join(io)}"]
        lines += [f"from {module} import {names}" for module, names in source.more_imports]
        if figures:
            lines += ["from stpca_gui.plotting.figures import (", "    can_render_off_screen,",
                      "    write_plot_figures,", "    write_scene_figures,", ")"]
        return "\n".join(lines)

    def _data_constants(self, origin: str) -> dict[str, Any]:
        """The module-level constants that carry text from the data, by name: the only
        place such text enters the script (as literals)."""
        data = self.dataset
        values: dict[str, Any] = {"DATA_NAME": data.name,
                                  "DATA_DESCRIPTION": data.description or data.source,
                                  "DATA_SOURCE": data.source,
                                  **self.source(origin).data_constants()}
        values["COLUMNS"] = list(data.column_names)
        values["ANGLES_SHA256"] = angles_sha256(data.angles)
        return values

    def _constants(self, origin: str) -> str:
        source = self.source(origin)
        values = self._data_constants(origin)
        lines = ["# The data set (text from the data appears in this script only as these",
                 "# literals and the arguments below)"]
        lines += [_assignment(name, values[name])
                  for name in ("DATA_NAME", "DATA_DESCRIPTION", "DATA_SOURCE")]
        lines += ["HERE = Path(__file__).resolve().parent",
                  f"RESULTS = HERE / {_literal(self.results_name)}"]
        lines += source.constant_lines()
        if source.writes_copy:
            lines.append(f"DATA_COPY = HERE / {_literal(self.copy_name)}")
        lines += ["# PNS1 mode clusters: the app's rule (\"tested\": the modes a test supports at",
                  "# level MODE_ALPHA, its bootstrap resampling MODE_NULL; \"paper\": every",
                  "# mode of the plug-in KDE, untested)",
                  *(f"{name.upper()} = {_literal(value)}"
                    for name, value in self._cluster_settings().items()),
                  _assignment("COLUMNS", values["COLUMNS"]),
                  "# sha256 of the angles the app fitted (float64, little-endian, C order)",
                  f"ANGLES_SHA256 = {_literal(values['ANGLES_SHA256'])}"]
        return "\n".join(lines)

    def _top_level(self, origin: str, *, figures: bool = True) -> list[tuple[str, str]]:
        """The script's top-level statements, in order, as (kind, name)."""
        source = self.source(origin)
        statements = [("docstring", "")] if figures else []
        statements += [("import", "argparse"), ("import", "hashlib"), ("import", "sys"),
                       ("from", "pathlib"), ("import", "numpy"), ("from", "stpca_gui.core"),
                       *([("from", "stpca_gui.core.summary")] if figures else []),
                       ("from", "stpca_gui.io")]
        statements += [("from", module) for module, _ in source.more_imports]
        if figures:
            statements.append(("from", "stpca_gui.plotting.figures"))
        names = ["DATA_NAME", "DATA_DESCRIPTION", "DATA_SOURCE", "HERE", "RESULTS",
                 *source.constant_names]
        names += ["DATA_COPY"] if source.writes_copy else []
        names += [*map(str.upper, self._cluster_settings()), "COLUMNS", "ANGLES_SHA256"]
        statements += [("assign", name) for name in names]
        statements += [("def", "sha256"), ("def", "load_data")]
        if figures:
            statements += [("def", "main"), ("if", "__main__")]
        return statements

    def verify(self, script: str, origin: str, *, figures: bool = True) -> None:
        """Check that ``script`` is exactly what was meant: its top-level statements and
        docstring, every data constant's value, and a literal string (the results
        folder's name, the copy's name) under HERE.

        Raises
        ------
        ScriptSafetyError
            When anything differs; the script must then not be written.
        """
        try:
            tree = ast.parse(script)
        except (SyntaxError, ValueError) as exc:
            raise ScriptSafetyError(f"the generated script does not parse ({exc}); "
                                    "nothing was written") from None
        found = [_statement_kind(node) for node in tree.body]
        expected = self._top_level(origin, figures=figures)
        if found != expected:
            raise ScriptSafetyError(
                "the generated script does not have the intended statements; nothing was "
                "written (please report this as a bug)")
        if figures and ast.get_docstring(tree, clean=False) != self._docstring_text(origin):
            raise ScriptSafetyError("the generated script's docstring is not the intended "
                                    "one; nothing was written")
        values = self._data_constants(origin)
        for node in tree.body:
            if isinstance(node, ast.Assign) and node.targets[0].id in values:
                name = node.targets[0].id
                try:
                    value = ast.literal_eval(node.value)
                except (ValueError, TypeError, SyntaxError, RecursionError):
                    value = object()
                if value != values[name] or type(value) is not type(values[name]):
                    raise ScriptSafetyError(f"the generated script's {name} is not the "
                                            "intended value; nothing was written")

    # ------------------------------------------------------------------ parts
    def _docstring_text(self, origin: str) -> str:
        """The docstring: fixed text and numbers only (the data's own text is in the
        constants below it)."""
        data = self.dataset
        about = (f"Data: the data set DATA_NAME (described in DATA_DESCRIPTION below); "
                 f"n = {data.n_samples} samples on T^{data.n_angles}."
                 + self.source(origin).about())
        runs = ("Run: python SCRIPT [--out DIR], SCRIPT being this file. It writes into DIR "
                "(default: RESULTS, a folder beside this script) scores.csv, embedding.csv, "
                "principal_curve.csv, summary.json and the app's figures (PNG).")
        paragraphs = [f"Written by stpca-gui {__version__} on {self.when} (Export as Python "
                      "Script).", about, runs]
        return "\n".join(["Refit an ST-PCA analysis made in stpca-gui.", "",
                          "\n\n".join(_wrapped(text) for text in paragraphs), ""])

    def _docstring(self, origin: str) -> str:
        return f'"""{self._docstring_text(origin)}"""'

    def _sha_function(self) -> str:
        lines = ["", "def sha256(data):", '    """Hex sha256 of bytes."""',
                 "    return hashlib.sha256(data).hexdigest()"]
        return "\n".join(lines)

    def _load_function(self, origin: str) -> str:
        source = self.source(origin)
        body = ["", "def load_data():",
                '    """The angles (radians), row identifiers and labels the app fitted."""',
                *source.load_lines()]
        if not source.rebuilds:  # the copy holds the data as fitted
            return "\n".join(body)
        for column, lags in self.dataset.lagged_embeddings:
            window = ", ".join(["θ_i", *(f"θ_i+{j}" for j in range(1, lags))])
            body += [f"    # the lag-{lags} embedding of angle column {column}: sample i becomes "
                     f"({window})",
                     f"    angles = lagged_embedding(angles[:, {column}], {lags})"]
            kept = ["rows"] if source.has_row_ids else []
            kept += ["labels"] if source.labelled else []
            if kept:
                body.append(f"    {', '.join(kept)} = "
                            f"{', '.join(f'{name}[:len(angles)]' for name in kept)}")
        body.append("    return angles, rows, labels")
        return "\n".join(body)

    def _estimator_lines(self) -> list[str]:
        lines = []
        for spec in FitParameters.specs(ScaledTorusPCA):
            value = getattr(self.parameters, spec.name)
            if spec.name == "random_state" or value != spec.default:
                lines.append(f"        {spec.name}={_literal(value)},")
        return lines

    def _cluster_settings(self) -> dict[str, Any]:
        """The PNS1 mode clusters' settings, by name (``cluster_rule``, ``mode_alpha``,
        ``mode_null``)."""
        return {spec.name: getattr(self.parameters, spec.name)
                for spec in FitParameters.specs(ModeClusterSettings)}

    def _main(self) -> str:
        lines = [
            "", "def main():",
            "    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])",
            '    parser.add_argument("--out", type=Path, default=RESULTS,',
            '                        help="folder for the results and figures")',
            "    args = parser.parse_args()", "",
            "    # Load the data",
            "    angles, rows, labels = load_data()",
            "    if sha256(np.ascontiguousarray(angles, \"<f8\").tobytes()) != ANGLES_SHA256:",
            '        print("note: these angles differ from those the app fitted; the results '
            'will differ",', "              file=sys.stderr)", "",
            "    # Fit: the app's settings (those that differ from the defaults) and its seed",
            "    model = ScaledTorusPCA(", *self._estimator_lines(), "    ).fit(angles)", "",
            "    # Results: scores.csv (full precision), embedding.csv, principal_curve.csv and",
            "    # summary.json (radius, stress, explained variance on the sphere and the torus)",
            "    # PNS1 mode clusters, as the app showed them; the cluster of every row goes to",
            "    # scores.csv, the test's p-values, sizes and stability to summary.json",
            "    clusters = model_mode_clusters(model, method=CLUSTER_RULE, alpha=MODE_ALPHA,",
            "                                   null=MODE_NULL, labels=labels)",
            "    print(clusters.describe())",
            "    written = write_results(model, args.out, COLUMNS, rows, labels=labels,",
            "                            clusters=clusters,",
            "                            source=DATA_SOURCE)",
            "    # The explained variance as stpca fit prints it: the first components and",
            "    # the share of the rest (at large d the torus variance of the first only)",
            "    summary = {item.key: item for item in fit_summary(model, COLUMNS)}",
            "    for key in (\"explained_variance_ratio\", \"torus_explained_variance_ratio\"):",
            "        print(f\"{summary[key].label:<17} {summary[key].text}\")", "",
            "    # Figures: the app's views. The 3-D ones need OpenGL (a display, EGL or OSMesa).",
            "    written += write_plot_figures(model, args.out, labels=labels,",
            "                                  cluster_rule=CLUSTER_RULE, alpha=MODE_ALPHA,",
            "                                  null=MODE_NULL)",
            "    if can_render_off_screen():",
            "        written += write_scene_figures(model, angles, args.out, column_names=COLUMNS,",
            "                                       labels=labels)",
            "    else:",
            "        print(\"note: pyvista cannot render off-screen here: torus.png and sphere.png "
            "skipped\",", "              file=sys.stderr)",
            "    for path in written:",
            "        print(\"wrote\", path)",
        ]
        return "\n".join(lines)
