"""Where an exported script gets its data: one small class per data source, registered by
name.

:mod:`stpca_gui.model.script_export` writes the script; what depends on where the data come
from is the source's: the names it imports, its module-level constants, the sentence of the
docstring, the body of ``load_data`` and what the app tells the user. A source registers
itself with :func:`script_source` (like the classes of a model file,
:mod:`stpca_gui.core._base.registry`), and :data:`SCRIPT_SOURCES` holds them by the name
:attr:`ScriptExport.data_origin <stpca_gui.model.script_export.ScriptExport.data_origin>`
records: "demo", "file", "structure" and "copy".

Text from the data enters a script only as the literals of :meth:`ScriptSource.data_constants`
(checked again in the finished script); everything else a source writes is fixed text.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from ..files.digest import file_sha256
from .dataset import Dataset

__all__ = ["SCRIPT_SOURCES", "ScriptSource", "literal", "long_assignment", "script_source"]

_S = TypeVar("_S", bound="type[ScriptSource]")

#: The data sources of exported scripts, by name.
SCRIPT_SOURCES: dict[str, type[ScriptSource]] = {}


def script_source(cls: _S) -> _S:
    """Class decorator: register a :class:`ScriptSource` under its :attr:`~ScriptSource.name`.

    Raises
    ------
    ValueError
        When another class is registered under the same name.
    """
    known = SCRIPT_SOURCES.get(cls.name)
    if known is not None and known is not cls:
        raise ValueError(f"two script data sources are named {cls.name!r}: "
                         f"{known.__qualname__} and {cls.__qualname__}")
    SCRIPT_SOURCES[cls.name] = cls
    return cls


def literal(value: Any) -> str:
    """Python source of a value, strings in double quotes (as in the rest of the script)."""
    if isinstance(value, str):
        text = repr(value)
        return f'"{text[1:-1]}"' if "'" not in value and '"' not in value else text
    if isinstance(value, list | tuple):
        items = ", ".join(literal(item) for item in value)
        return f"[{items}]" if isinstance(value, list) else f"({items}{',' * (len(value) == 1)})"
    return repr(value)


def long_assignment(name: str, value: Any, width: int = 96) -> str:
    """``NAME = <literal>``, a long string split into adjacent literals in parentheses and
    a long list into one item per line, so that the script's lines stay short."""
    line = f"{name} = {literal(value)}"
    if len(line) <= width:
        return line
    if isinstance(value, str):
        return f"{name} = (\n" + "\n".join(
            f"    {part}" for part in _string_pieces(value, width - 8)) + "\n)"
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        items = []
        for item in value:
            pieces = _string_pieces(item, width - 12)
            items.append(pieces[0] + "," if len(pieces) == 1 else
                         "(\n" + "\n".join(f"        {p}" for p in pieces) + "\n    ),")
        return f"{name} = [\n" + "\n".join(f"    {item}" for item in items) + "\n]"
    return line


def _string_pieces(value: str, width: int) -> list[str]:
    """Literals of consecutive pieces of ``value``, each at most about ``width`` long."""
    pieces: list[str] = []
    start = 0
    while start < len(value) or not pieces:
        end = start + 1
        while end < len(value) and len(literal(value[start:end + 1])) <= width:
            end += 1
        pieces.append(literal(value[start:end]))
        start = end
    return pieces


def _indented(lines: list[str], depth: int = 1) -> list[str]:
    return [f"{'    ' * depth}{line}" for line in lines]


class ScriptSource:
    """How an exported script gets the data set's angles, row ids and labels.

    Parameters
    ----------
    dataset : Dataset
        The data set the script refits.
    """

    #: The name :attr:`ScriptExport.data_origin` records.
    name: ClassVar[str]
    #: Names the script imports from ``stpca_gui.core`` beside the estimator and the
    #: clusters.
    core_names: ClassVar[tuple[str, ...]] = ()
    #: Names it imports from ``stpca_gui.io`` before ``write_results``.
    io_names: ClassVar[tuple[str, ...]] = ("read_data_copy",)
    #: Further imports, as (module, names), after those of ``stpca_gui.io``.
    more_imports: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: The source's module-level constants, in the script's order.
    constant_names: ClassVar[tuple[str, ...]] = ()
    #: Whether an exact copy of the data goes beside the script (``DATA_COPY``).
    writes_copy: ClassVar[bool] = True
    #: Whether the script rebuilds the data (then it repeats their lagged embeddings);
    #: a copy holds the data as fitted.
    rebuilds: ClassVar[bool] = True
    #: Whether the rebuilt data have row ids of their own (cut with the lagged embedding).
    has_row_ids: ClassVar[bool] = False

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self.labelled = dataset.labels is not None

    def data_constants(self) -> dict[str, Any]:
        """The source's constants that carry text from the data, by name (literals only;
        the finished script is checked to hold exactly these values)."""
        return {}

    def constant_lines(self) -> list[str]:
        """The lines that assign :attr:`constant_names`."""
        return []

    def about(self) -> str:
        """The docstring's sentence on where the data come from (fixed text and numbers)."""
        raise NotImplementedError

    def load_lines(self) -> list[str]:
        """The body of ``load_data`` up to ``angles, rows, labels`` (before any lagged
        embedding), indented."""
        raise NotImplementedError

    @classmethod
    def user_note(cls, copy_name: str, note: str) -> str:
        """What the app says about how the script reads the data (``copy_name``: the copy
        beside it; ``note``: why the copy is used, if it is)."""
        raise NotImplementedError

    def copy_lines(self) -> list[str]:
        """Reading the exact copy beside the script, and returning its data."""
        return [f"copy = read_data_copy(DATA_COPY, labelled={self.labelled})",
                "return copy.angles, copy.row_ids, copy.labels"]

    def _checked_or_copy(self, condition: list[str], what: str, depth: int) -> list[str]:
        """``if`` a source file is missing or changed: say so on stderr and read the copy."""
        inner = "    " * depth
        return [*condition,
                f'{inner}print(f"note: {{{what}}} is missing or has changed since this '
                'script was written;"',
                f'{inner}      f" using the exact copy of the data, {{DATA_COPY.name}}",'
                " file=sys.stderr)",
                *_indented(self.copy_lines(), depth)]


@script_source
class DemoSource(ScriptSource):
    """A simulated demo: ``make_demo`` with its name, seed and recorded options."""

    name = "demo"
    core_names = ("make_demo",)
    io_names = ()
    writes_copy = False

    def about(self) -> str:
        return " They are regenerated with make_demo (see load_data)."

    def load_lines(self) -> list[str]:
        data = self.dataset
        arguments = [literal(data.name), f"random_state={data.demo_seed}"]
        arguments += [f"{name}={literal(value)}" for name, value in data.demo_options.items()]
        labels = "demo.labels.astype(str)" if self.labelled else "None"
        return _indented([f"demo = make_demo({', '.join(arguments)})",
                          f"angles, rows, labels = demo.angles, None, {labels}"])

    @classmethod
    def user_note(cls, copy_name: str, note: str) -> str:
        return "It regenerates the demo data."


@script_source
class FileSource(ScriptSource):
    """A table file: ``read_angle_table`` with the options it was read with, while the file
    has the sha256 it had; else the copy."""

    name = "file"
    io_names = ("read_angle_table", "read_data_copy")
    constant_names = ("SOURCE_PATH", "SOURCE", "SOURCE_SHA256")
    has_row_ids = True

    @cached_property
    def source_path(self) -> Path:
        return Path(self.dataset.source).resolve()

    @cached_property
    def source_sha256(self) -> str:
        return file_sha256(self.source_path)

    def data_constants(self) -> dict[str, Any]:
        return {"SOURCE_PATH": str(self.source_path), "SOURCE_SHA256": self.source_sha256}

    def constant_lines(self) -> list[str]:
        values = self.data_constants()
        return [long_assignment("SOURCE_PATH", values["SOURCE_PATH"]),
                "SOURCE = Path(SOURCE_PATH)",
                f"SOURCE_SHA256 = {literal(values['SOURCE_SHA256'])}"]

    def about(self) -> str:
        return (f" They are read from SOURCE (sha256 {self.source_sha256}). "
                "If that file is missing or has changed, the script says so and reads "
                "the exact copy of the data written beside it, DATA_COPY.")

    def load_lines(self) -> list[str]:
        labels = "table.labels" if self.labelled else "None"
        return _indented([
            *self._checked_or_copy(
                ["if not SOURCE.is_file() or sha256(SOURCE.read_bytes()) != SOURCE_SHA256:"],
                "SOURCE", 1),
            "table = read_angle_table(",
            *_indented([f"{argument}," for argument in self._table_arguments()]),
            ")",
            f"angles, rows, labels = table.angles, table.line_numbers, {labels}"])

    def _table_arguments(self) -> list[str]:
        options = self.dataset.table_options
        arguments = ["SOURCE"]
        if options["columns"] is not None:
            arguments.append(literal(options["columns"]))
        defaults = {"degrees": False, "label_column": None, "drop_invalid": False,
                    "row_filter": None}
        arguments += [f"{name}={literal(options[name])}" for name, default in defaults.items()
                      if options[name] != default]
        return arguments

    @classmethod
    def user_note(cls, copy_name: str, note: str) -> str:
        return (f"It reads the data from their file, or from the exact copy {copy_name} if "
                "the file is missing or has changed.")


@script_source
class StructureSource(ScriptSource):
    """Structure files: the torsions read again (``read_torsions`` with the recorded
    settings) while every file has its recorded sha256; else the copy."""

    name = "structure"
    core_names = ("wrap_angles",)
    more_imports = (("stpca_gui.io.structures",
                     "DihedralSettings, file_sha256, read_torsions"),)
    constant_names = ("TOPOLOGY", "TRAJECTORIES", "STRUCTURE_SHA256", "DIHEDRALS", "LABEL_BY")

    def data_constants(self) -> dict[str, Any]:
        record = self.dataset.structure
        return {"TOPOLOGY": record["topology"], "TRAJECTORIES": list(record["trajectories"]),
                "STRUCTURE_SHA256": record["sha256"], "DIHEDRALS": record["settings"],
                "LABEL_BY": record["label_by"]}

    def constant_lines(self) -> list[str]:
        values = self.data_constants()
        return [long_assignment("TOPOLOGY", values["TOPOLOGY"]),
                long_assignment("TRAJECTORIES", values["TRAJECTORIES"]),
                f"STRUCTURE_SHA256 = {values['STRUCTURE_SHA256']!r}",
                f"DIHEDRALS = {values['DIHEDRALS']!r}",
                long_assignment("LABEL_BY", values["LABEL_BY"])]

    def about(self) -> str:
        return (" The torsions are read again from the structure files (checked by "
                "sha256); if one is missing or has changed, the script says so and "
                "reads the exact copy of the data written beside it, DATA_COPY.")

    def load_lines(self) -> list[str]:
        return _indented([
            "for path, digest in STRUCTURE_SHA256.items():",
            *self._checked_or_copy(
                ["    if not Path(path).is_file() or file_sha256(path) != digest:"],
                "path", 2),
            "table = read_torsions(TOPOLOGY, TRAJECTORIES, "
            "DihedralSettings.from_dict(DIHEDRALS))",
            "angles, rows, labels = wrap_angles(np.deg2rad(table.angles)), None, "
            "table.labels(LABEL_BY)"])

    @classmethod
    def user_note(cls, copy_name: str, note: str) -> str:
        return (f"It reads the torsions again from the structure files, or from the exact "
                f"copy {copy_name} if one of them is missing or has changed.")


@script_source
class CopySource(ScriptSource):
    """Only the exact copy beside the script: data that cannot be rebuilt from where they
    came from."""

    name = "copy"
    rebuilds = False

    def about(self) -> str:
        return " They are read from the exact copy written beside this script, DATA_COPY."

    def load_lines(self) -> list[str]:
        return _indented(self.copy_lines())

    @classmethod
    def user_note(cls, copy_name: str, note: str) -> str:
        return f"It reads the exact copy of the data, {copy_name}: {note}."

