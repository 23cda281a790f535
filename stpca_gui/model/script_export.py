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

Before choosing "demo" or "file", :func:`python_script` runs the script's own loading code
in-process and checks that it gives the data set's angles, row ids and labels exactly;
otherwise it falls back to "copy".
"""

from __future__ import annotations

import datetime
import hashlib
import textwrap
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..core import ScaledTorusPCA
from ..core.atomic import atomic_file_set
from ..core.circstats.mode_test import DEFAULT_ALPHA
from ..core.circstats.modes import ModeClustering
from ..io.data_copy import data_copy_text
from .analysis import FitParameters
from .dataset import Dataset
from .demos import DATA_DEMOS

__all__ = ["ScriptExport", "export_script", "python_script", "write_script"]


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
    data_origin : {"demo", "file", "copy"}
        Where the script reads the data from (see the module docstring).
    note : str
        Why the copy is used instead of the source ("" otherwise).
    """

    script_path: Path
    script: str
    data_files: dict[str, str]
    data_origin: str
    note: str = ""


def file_sha256(path: str | Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def angles_sha256(angles: Any) -> str:
    """Hex sha256 of angles as little-endian float64 in C order (what the scripts check)."""
    return hashlib.sha256(np.ascontiguousarray(angles, dtype="<f8").tobytes()).hexdigest()


def python_script(dataset: Dataset, parameters: FitParameters, *, script_path: str | Path,
                  now: datetime.datetime | None = None,
                  clusters: ModeClustering | None = None) -> ScriptExport:
    """The script that refits ``parameters`` on ``dataset`` (nothing is written).

    Parameters
    ----------
    dataset : Dataset
    parameters : FitParameters
        The settings of the fit to reproduce; the seed must be set.
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
    writer = _ScriptWriter(dataset, parameters, path, when, _cluster_settings(clusters))
    note = ""
    if dataset.is_demo and dataset.name in DATA_DEMOS:  # bundled data: no make_demo call
        origin = "copy"
        note = f"it is the bundled {dataset.name} data set, copied exactly beside the script"
    elif dataset.is_demo and dataset.demo_seed is not None:
        origin = "demo"
    elif dataset.structure is not None:
        from .structures import structure_files_unchanged

        origin = "structure" if structure_files_unchanged(dataset.structure) else "copy"
        note = "" if origin == "structure" else (
            "its structure files are missing or have changed since they were read")
    elif dataset.table_options is not None and Path(dataset.source).is_file():
        origin = "file"
    else:
        origin = "copy"
        note = (f"its file {dataset.source} is not there any more"
                if dataset.table_options is not None else
                "the data set does not record how to read it again from its source")
    if origin != "copy":
        note = _reproduces(writer.loader(origin), path, dataset)
        if note:
            origin = "copy"
    data_files = {} if origin == "demo" else {writer.copy_name: writer.copy_text()}
    return ScriptExport(path, writer.script(origin), data_files, origin, note)


def write_script(export: ScriptExport) -> list[Path]:
    """Write the script and its data files, as one set (all or none are replaced).

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
    with atomic_file_set(folder, texts) as temporaries:
        for name, tmp in temporaries.items():
            tmp.write_text(texts[name], encoding="utf-8", newline="")
    return [folder / name for name in texts]


def export_script(dataset: Dataset, parameters: FitParameters, script_path: str | Path,
                  clusters: ModeClustering | None = None) -> tuple[ScriptExport, list[Path]]:
    """:func:`python_script`, then :func:`write_script`; returns both results."""
    export = python_script(dataset, parameters, script_path=script_path, clusters=clusters)
    return export, write_script(export)


def _cluster_settings(clusters: ModeClustering | None) -> tuple[str, float]:
    """The rule and level of the mode clusters shown (the tested rule at 0.05 by default)."""
    if clusters is None:
        return "tested", DEFAULT_ALPHA
    alpha = clusters.mode_test.alpha if clusters.mode_test is not None else DEFAULT_ALPHA
    return clusters.method, float(alpha)


def _literal(value: Any) -> str:
    """Python source of a value, strings in double quotes (as in the rest of the script)."""
    if isinstance(value, str):
        text = repr(value)
        return f'"{text[1:-1]}"' if "'" not in value and '"' not in value else text
    if isinstance(value, list | tuple):
        items = ", ".join(_literal(item) for item in value)
        return f"[{items}]" if isinstance(value, list) else f"({items}{',' * (len(value) == 1)})"
    return repr(value)


def _wrapped(text: str) -> str:
    """A docstring paragraph: lines of at most 88 characters, long words (paths) unbroken,
    backslashes and triple quotes escaped."""
    text = text.replace("\\", "\\\\").replace('"""', '\\"""')
    return textwrap.fill(text, width=88, break_long_words=False, break_on_hyphens=False)


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

    def __init__(self, dataset: Dataset, parameters: FitParameters, path: Path, when: str,
                 cluster_settings: tuple[str, float] = ("tested", DEFAULT_ALPHA)):
        self.cluster_rule, self.alpha = cluster_settings
        self.dataset = dataset
        self.parameters = parameters
        self.path = path
        self.when = when
        self.copy_name = f"{path.stem}-data.csv"
        self.results_name = f"{path.stem}-results"
        self.labelled = dataset.labels is not None

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

    @cached_property
    def source_path(self) -> Path:
        return Path(self.dataset.source).resolve()

    @cached_property
    def source_sha256(self) -> str:
        return file_sha256(self.source_path)

    def _imports(self, origin: str, *, figures: bool) -> str:
        core = ["ScaledTorusPCA", "model_mode_clusters"]
        if origin != "copy" and self.dataset.lagged_embeddings:
            core.append("lagged_embedding")
        if origin == "demo":
            core.append("make_demo")
        if origin == "structure":
            core.append("wrap_angles")
        io = (["read_angle_table"] if origin == "file" else []) + (
            [] if origin == "demo" else ["read_data_copy"]) + ["write_results"]
        lines = ["import argparse", "import hashlib", "import sys", "from pathlib import Path",
                 "", "import numpy as np", "",
                 f"from stpca_gui.core import {', '.join(sorted(core))}",
                 f"from stpca_gui.io import {', '.join(io)}"]
        if origin == "structure":
            lines.append("from stpca_gui.io.structures import DihedralSettings, file_sha256, "
                         "read_torsions")
        if figures:
            lines += ["from stpca_gui.plotting.figures import (", "    can_render_off_screen,",
                      "    write_plot_figures,", "    write_scene_figures,", ")"]
        return "\n".join(lines)

    def _constants(self, origin: str) -> str:
        lines = ["HERE = Path(__file__).resolve().parent",
                 f"RESULTS = HERE / {_literal(self.results_name)}"]
        if origin == "file":
            lines += [f"SOURCE = Path({_literal(str(self.source_path))})",
                      f"SOURCE_SHA256 = {_literal(self.source_sha256)}"]
        if origin == "structure":
            record = self.dataset.structure
            lines += [f"TOPOLOGY = {_literal(record['topology'])}",
                      f"TRAJECTORIES = {_literal(list(record['trajectories']))}",
                      f"STRUCTURE_SHA256 = {record['sha256']!r}",
                      f"DIHEDRALS = {record['settings']!r}",
                      f"LABEL_BY = {_literal(record['label_by'])}"]
        if origin != "demo":
            lines.append(f"DATA_COPY = HERE / {_literal(self.copy_name)}")
        lines += ["# PNS1 mode clusters: the app's rule (\"tested\": the modes a test supports at",
                  "# level ALPHA; \"paper\": every mode of the plug-in KDE, untested)",
                  f"CLUSTER_RULE = {_literal(self.cluster_rule)}",
                  f"ALPHA = {self.alpha!r}",
                  f"COLUMNS = {_literal(list(self.dataset.column_names))}",
                  "# sha256 of the angles the app fitted (float64, little-endian, C order)",
                  f"ANGLES_SHA256 = {_literal(angles_sha256(self.dataset.angles))}"]
        return "\n".join(lines)

    # ------------------------------------------------------------------ parts
    def _docstring(self, origin: str) -> str:
        data = self.dataset
        about = (f"Data: {data.description or data.source}; n = {data.n_samples} samples on "
                 f"T^{data.n_angles}.")
        if origin == "demo":
            about += f" They are regenerated with {self._demo_call()}."
        elif origin == "structure":
            about += (" The torsions are read again from the structure files (checked by "
                      "sha256); if one is missing or has changed, the script says so and "
                      f"reads the exact copy of the data written beside it, {self.copy_name}.")
        elif origin == "file":
            about += (f" They are read from {self.source_path} (sha256 {self.source_sha256}). "
                      "If that file is missing or has changed, the script says so and reads "
                      f"the exact copy of the data written beside it, {self.copy_name}.")
        else:
            about += (" They are read from the exact copy written beside this script, "
                      f"{self.copy_name}.")
        runs = (f"Run: python {self.path.name} [--out DIR]. It writes into DIR (default: "
                f"{self.results_name} beside this script) scores.csv, embedding.csv, "
                "principal_curve.csv, summary.json and the app's figures (PNG).")
        paragraphs = [f"Written by stpca-gui {__version__} on {self.when} (Export as Python "
                      "Script).", about, runs]
        return "\n".join([f'"""Refit the ST-PCA analysis of {data.name} made in stpca-gui.', "",
                          "\n\n".join(_wrapped(text) for text in paragraphs), '"""'])

    def _sha_function(self) -> str:
        lines = ["", "def sha256(data):", '    """Hex sha256 of bytes."""',
                 "    return hashlib.sha256(data).hexdigest()"]
        return "\n".join(lines)

    def _load_function(self, origin: str) -> str:
        data = self.dataset
        body = ["", "def load_data():",
                '    """The angles (radians), row identifiers and labels the app fitted."""']
        copy = [f"copy = read_data_copy(DATA_COPY, labelled={self.labelled})",
                "return copy.angles, copy.row_ids, copy.labels"]
        if origin == "copy":
            return "\n".join(body + [f"    {line}" for line in copy])
        if origin == "file":
            body += ["    if not SOURCE.is_file() or sha256(SOURCE.read_bytes()) != SOURCE_SHA256:",
                     '        print(f"note: {SOURCE} is missing or has changed since this script '
                     'was written;"',
                     '              f" using the exact copy of the data, {DATA_COPY.name}", '
                     "file=sys.stderr)"]
            body += [f"        {line}" for line in copy]
            body += ["    table = read_angle_table(",
                     *[f"        {argument}," for argument in self._table_arguments()],
                     "    )",
                     "    angles, rows, labels = table.angles, table.line_numbers, "
                     f"{'table.labels' if self.labelled else 'None'}"]
        elif origin == "structure":
            body += ["    for path, digest in STRUCTURE_SHA256.items():",
                     "        if not Path(path).is_file() or file_sha256(path) != digest:",
                     '            print(f"note: {path} is missing or has changed since this '
                     'script was written;"',
                     '                  f" using the exact copy of the data, {DATA_COPY.name}",'
                     " file=sys.stderr)"]
            body += [f"            {line}" for line in copy]
            body += ["    table = read_torsions(TOPOLOGY, TRAJECTORIES, "
                     "DihedralSettings.from_dict(DIHEDRALS))",
                     "    angles, rows, labels = wrap_angles(np.deg2rad(table.angles)), None, "
                     "table.labels(LABEL_BY)"]
        else:
            body += [f"    demo = {self._demo_call()}",
                     "    angles, rows, labels = demo.angles, None, "
                     f"{'demo.labels.astype(str)' if self.labelled else 'None'}"]
        for column, lags in data.lagged_embeddings:
            window = ", ".join(["θ_i", *(f"θ_i+{j}" for j in range(1, lags))])
            body += [f"    # the lag-{lags} embedding of angle column {column}: sample i becomes "
                     f"({window})",
                     f"    angles = lagged_embedding(angles[:, {column}], {lags})"]
            kept = ["rows"] if origin == "file" else []
            kept += ["labels"] if self.labelled else []
            if kept:
                body.append(f"    {', '.join(kept)} = "
                            f"{', '.join(f'{name}[:len(angles)]' for name in kept)}")
        body.append("    return angles, rows, labels")
        return "\n".join(body)

    def _demo_call(self) -> str:
        """``make_demo(...)`` with the demo's name, seed and recorded options."""
        data = self.dataset
        arguments = [_literal(data.name), f"random_state={data.demo_seed}"]
        arguments += [f"{name}={_literal(value)}" for name, value in data.demo_options.items()]
        return f"make_demo({', '.join(arguments)})"

    def _table_arguments(self) -> list[str]:
        options = self.dataset.table_options
        arguments = ["SOURCE"]
        if options["columns"] is not None:
            arguments.append(_literal(options["columns"]))
        defaults = {"degrees": False, "label_column": None, "drop_invalid": False,
                    "row_filter": None}
        arguments += [f"{name}={_literal(options[name])}" for name, default in defaults.items()
                      if options[name] != default]
        return arguments

    def _estimator_lines(self) -> list[str]:
        specs = {spec.name: spec for spec in ScaledTorusPCA.parameter_specs()}
        lines = []
        for field in fields(self.parameters):
            value = getattr(self.parameters, field.name)
            if field.name == "random_state" or value != specs[field.name].default:
                lines.append(f"        {field.name}={_literal(value)},")
        return lines

    def _main(self) -> str:
        source = _literal(self.dataset.source)
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
            "    clusters = model_mode_clusters(model, method=CLUSTER_RULE, alpha=ALPHA,",
            "                                   labels=labels)",
            "    print(clusters.describe())",
            "    written = write_results(model, args.out, COLUMNS, rows, labels=labels,",
            "                            clusters=clusters,",
            f"                            source={source})",
            "    for where, ratio in ((\"sphere\", model.explained_variance_ratio_),",
            "                         (\"torus\", model.torus_explained_variance_ratio_)):",
            "        percent = \", \".join(f\"{100 * r:.1f}\" for r in ratio)",
            "        print(f\"explained variance on the {where} (%): {percent}\")", "",
            "    # Figures: the app's views. The 3-D ones need OpenGL (a display, EGL or OSMesa).",
            "    written += write_plot_figures(model, args.out, labels=labels,",
            "                                  cluster_rule=CLUSTER_RULE, alpha=ALPHA)",
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
