"""Every name the documentation points to exists: docs that cannot drift (issue 30).

The package's docstrings (and ``#:`` attribute comments) and the Markdown pages (README.md,
docs/, benchmarks/, packaging/, …) name modules, classes, functions and attributes. When a
module moves or a name is renamed, the prose silently points to nothing; these tests resolve
every such reference against the code and list the ones that no longer resolve.

What counts as a reference:

* a Sphinx role in a docstring (``:mod:``, ``:func:``, ``:class:``, ``:meth:``, ``:attr:``,
  ``:data:``, …), absolute, ``~``-shortened, relative (``.clusters``) or unqualified
  (``draw``: found from the docstring's class or module, else anywhere in the package);
* any ``stpca_gui.x.y`` in the text, and the names of ``from stpca_gui.x import a, b``;
* a backticked dotted name whose head is a module of the package (``core.warmup.warm_up``,
  ``subsphere.START_SAMPLE``), a class of the package (``SelectionModel.apply``,
  ``FitController.live_interval``, instance attributes included) or an importable library
  (``scipy.stats.vonmises_fisher``); other heads are variables (``smds_.angles_``) and are
  skipped;
* a backticked path to a Python file (``core/circstats/modes.py``,
  ``benchmarks/bench_gui.py``), relative to the repository or to ``stpca_gui/``; a module
  that became a package (``cli.py`` → ``cli/``) still resolves.

The Markdown pages' relative links and images must point to existing files.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from project_paths import REPO

PACKAGE = REPO / "stpca_gui"

#: The Markdown pages checked (generated pages included: their generators must not drift).
MARKDOWN_GLOBS = ("*.md", "docs/**/*.md", "benchmarks/**/*.md", "packaging/**/*.md",
                  "resources/**/*.md", "stpca_gui/**/*.md")

#: Backticked ``name.suffix`` with these suffixes are file names, not dotted references.
FILE_SUFFIXES = frozenset({"py", "md", "csv", "tsv", "json", "toml", "lock", "txt", "png", "svg",
                           "pdf", "npy", "npz", "pdb", "cif", "dcd", "xtc", "psf", "gro",
                           "stpca", "sha256", "yml", "yaml", "desktop", "xml", "gz", "zip"})

_ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|attr|data|obj|exc|const):`([^`]+)`")
_BACKTICKS = re.compile(r"(?<![`:\w])(`+)(?!`)(.+?)(?<!`)\1(?![`\w])", re.DOTALL)
_ABSOLUTE = re.compile(r"(?<![\w./-])stpca_gui(?:\.[A-Za-z_]\w*)+")
_FROM_IMPORT = re.compile(r"from\s+(stpca_gui(?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n]*)")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_PY_PATH = re.compile(r"[\w.-]+(?:/[\w.-]+)*/[\w-]+\.py")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.DOTALL | re.MULTILINE)
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


@dataclass(frozen=True)
class Reference:
    """One name a text points to, and where that text is."""

    name: str
    kind: str  # "role", "absolute", "backtick" or "path"
    where: str  # file:line
    module: str | None = None  # the docstring's module, for relative names
    cls: str | None = None  # the docstring's class


# -- the package, read once -------------------------------------------------------------------

@cache
def package_modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


@cache
def module_trees() -> dict[str, ast.Module]:
    return {name: ast.parse(path.read_text(encoding="utf-8"))
            for name, path in package_modules().items()}


@cache
def defined_names() -> tuple[frozenset[str], dict[str, set[str]], dict[tuple[str, str], set[str]]]:
    """Names defined anywhere in the package, the classes by name (→ modules), and each
    class's attributes as the source shows them (``self.x = …`` in its methods, annotated
    and assigned names in its body, methods)."""
    anywhere: set[str] = set()
    classes: dict[str, set[str]] = defaultdict(set)
    members: dict[tuple[str, str], set[str]] = defaultdict(set)

    def targets(node: ast.AST) -> Iterator[str]:
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Tuple):
            for element in node.elts:
                yield from targets(element)

    for module, tree in module_trees().items():
        anywhere.add(module.rsplit(".", 1)[-1])
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                anywhere.add(node.name)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    anywhere.update(targets(target))
            elif isinstance(node, ast.AnnAssign):
                anywhere.update(targets(node.target))
            elif isinstance(node, ast.ClassDef):
                anywhere.add(node.name)
                classes[node.name].add(module)
                names = members[(module, node.name)]
                for item in ast.walk(node):
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names.add(item.name)
                    elif isinstance(item, ast.Attribute) and isinstance(item.ctx, ast.Store) \
                            and isinstance(item.value, ast.Name) and item.value.id == "self":
                        names.add(item.attr)
                for item in node.body:
                    if isinstance(item, ast.Assign):
                        for target in item.targets:
                            names.update(targets(target))
                    elif isinstance(item, ast.AnnAssign):
                        names.update(targets(item.target))
                anywhere.update(names)
    return frozenset(anywhere), dict(classes), dict(members)


def module_basenames() -> dict[str, list[str]]:
    names: dict[str, list[str]] = defaultdict(list)
    for module in package_modules():
        names[module.rsplit(".", 1)[-1]].append(module)
    return names


# -- resolving a name -------------------------------------------------------------------------

_MISSING = object()


def _attribute(obj: object, name: str) -> object:
    """``getattr``, or the name as a source-declared attribute of a class of the package
    (instance attributes, dataclass fields without a default) — then ``None`` stands for it."""
    value = getattr(obj, name, _MISSING)
    if value is not _MISSING:
        return value
    if isinstance(obj, type):
        members = defined_names()[2]
        for klass in obj.__mro__:
            if name in getattr(klass, "__annotations__", {}):
                return None
            if name in members.get((klass.__module__, klass.__qualname__), ()):
                return None
    return _MISSING


def resolves(dotted: str) -> bool:
    """Whether an absolute dotted name is a module or an attribute chain below one."""
    return lookup(dotted) is not _MISSING


@cache
def lookup(dotted: str) -> object:
    """The object an absolute dotted name stands for (``None`` for an attribute only the
    source declares, whose value is not known here), or ``_MISSING``."""
    parts = dotted.split(".")
    if "__main__" in parts:  # importing it would run the program: its file is checked
        main = parts.index("__main__")
        found = REPO.joinpath(*parts[:main + 1]).with_suffix(".py").is_file()
        return None if found and main == len(parts) - 1 else _MISSING
    for split in range(len(parts), 0, -1):
        module_name = ".".join(parts[:split])
        try:
            if importlib.util.find_spec(module_name) is None:
                continue
        except (ImportError, ValueError):
            continue
        obj: object = importlib.import_module(module_name)
        for part in parts[split:]:
            if obj is None:  # an attribute the source declares: its value is not known here
                return None
            obj = _attribute(obj, part)
            if obj is _MISSING:
                return _MISSING
        return obj
    return _MISSING


def _scopes(module: str | None, cls: str | None) -> list[str]:
    """The prefixes an unqualified or relative name is looked up under, innermost first."""
    if module is None:
        return []
    scopes = [f"{module}.{cls}"] if cls else []
    parts = module.split(".")
    scopes += [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
    return scopes


def resolve(reference: Reference) -> bool | None:
    """Whether the reference resolves (``None``: it is not one, e.g. a variable)."""
    name = reference.name
    if reference.kind == "path":
        return _resolve_path(name)
    if reference.kind == "absolute":
        return resolves(name)
    if reference.kind == "backtick":
        return _resolve_backtick(name, _scopes(reference.module, reference.cls))
    # A Sphinx role: absolute, relative to the docstring's scopes, or anywhere in the package.
    relative = name.startswith(".")
    name = name.lstrip(".")
    candidates = [f"{scope}.{name}" for scope in _scopes(reference.module, reference.cls)]
    if not relative:
        candidates += [name, f"stpca_gui.{name}"]
    if any(resolves(candidate) for candidate in candidates):
        return True
    head = name.split(".")[0]
    anywhere, classes, _ = defined_names()
    if relative:  # Sphinx's fallback: any object whose name ends with it
        return any(resolves(f"{module}.{name}") for module in package_modules())
    if "." not in name:
        return name in anywhere or hasattr(builtins, name) or _importable(name)
    return any(resolves(f"{module}.{name}") for module in classes.get(head, ()))


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _resolve_backtick(name: str, scopes: list[str] = ()) -> bool | None:
    """``None`` when the head is not the package's (a variable, a library, an identifier)."""
    head = name.split(".")[0]
    if head == "stpca_gui":
        return resolves(name)
    for scope in scopes:  # an attribute of the docstring's class or module (``selection.changed``)
        value = lookup(f"{scope}.{head}")
        if value is not _MISSING:
            owner = getattr(value, "__module__", None) or getattr(value, "__name__", "")
            if value is not None and not owner.startswith("stpca_gui"):
                return None  # a library's (``sys._MEIPASS``): not the package's business
            return resolves(f"{scope}.{name}")
    if ".github." in name:  # a reverse-DNS application id (io.github.…)
        return None
    basenames = module_basenames()
    classes = defined_names()[1]
    if head in basenames or head in classes:
        modules = basenames.get(head, [])
        candidates = [f"{module}.{name.split('.', 1)[1]}" for module in modules]
        candidates += [f"{module}.{name}" for module in classes.get(head, ())]
        return any(resolves(candidate) for candidate in candidates)
    return None


def _resolve_path(path: str) -> bool:
    for base in (REPO, PACKAGE):
        target = base / path
        if target.is_file() or (target.with_suffix("") / "__init__.py").is_file():
            return True
    return False


# -- finding the references -------------------------------------------------------------------

def references_in(text: str, where: str, *, module: str | None = None,
                  cls: str | None = None, markdown: bool = False,
                  variables: frozenset[str] = frozenset()) -> Iterator[Reference]:
    """The references of one text (a docstring, a comment or a Markdown page); backticked
    names whose head is one of `variables` (the documented function's parameters) are
    not references."""
    line_of = _line_counter(text, where)
    for match in _ABSOLUTE.finditer(text):
        yield Reference(match.group(0), "absolute", line_of(match.start()))
    for match in _FROM_IMPORT.finditer(text):
        for imported in re.split(r"[\s,()]+", match.group(2).split("#")[0]):
            if imported.isidentifier():
                yield Reference(f"{match.group(1)}.{imported}", "absolute",
                                line_of(match.start()))
    if markdown:  # code blocks hold code, not inline spans: their backticks pair wrongly
        text = _FENCE.sub(lambda block: "\n" * block.group(0).count("\n"), text)
        line_of = _line_counter(text, where)  # the same lines, shorter offsets
    for match in _ROLE.finditer(text):
        target = match.group(1)
        if "<" in target:
            target = target[target.index("<") + 1:target.rindex(">")]
        target = re.sub(r"\s+", "", target).lstrip("~!").removesuffix("()")
        yield Reference(target, "role", line_of(match.start()), module, cls)
    for match in _BACKTICKS.finditer(text):
        if match.start() > 0 and text[match.start() - 1] == ":":
            continue
        span = match.group(2).strip().removesuffix("()")
        if _PY_PATH.fullmatch(span) and not span.startswith(("/", "..")):
            yield Reference(span, "path", line_of(match.start()))
        elif _DOTTED.fullmatch(span) and not span.startswith("stpca_gui.") \
                and span.rsplit(".", 1)[1] not in FILE_SUFFIXES \
                and span.split(".", 1)[0] not in variables:
            yield Reference(span, "backtick", line_of(match.start()), module, cls)


def _line_counter(text: str, where: str):
    path, _, first = where.rpartition(":")
    first_line = int(first)

    def line_of(offset: int) -> str:
        return f"{path}:{first_line + text.count(chr(10), 0, offset)}"
    return line_of


def docstring_references() -> Iterator[Reference]:
    for module, tree in module_trees().items():
        path = package_modules()[module].relative_to(REPO)
        yield from _node_references(tree, module, None, path, frozenset())
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            comment = line.strip()
            if comment.startswith("#:"):
                yield from references_in(comment[2:], f"{path}:{number}", module=module)


def _node_references(node: ast.AST, module: str, cls: str | None, path: Path,
                     variables: frozenset[str]) -> Iterator[Reference]:
    body = getattr(node, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
            and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        yield from references_in(body[0].value.value, f"{path}:{body[0].lineno}",
                                 module=module, cls=cls, variables=variables)
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            inner = f"{cls}.{child.name}" if cls else child.name
            yield from _node_references(child, module, inner, path, frozenset())
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = child.args
            names = {argument.arg for argument in (*arguments.posonlyargs, *arguments.args,
                                                   *arguments.kwonlyargs)}
            names.update(argument.arg for argument in (arguments.vararg, arguments.kwarg)
                         if argument is not None)
            yield from _node_references(child, module, cls, path, variables | names)


def markdown_pages() -> list[Path]:
    pages = {page for pattern in MARKDOWN_GLOBS for page in REPO.glob(pattern)}
    return sorted(page for page in pages if ".venv" not in page.parts)


def markdown_references() -> Iterator[Reference]:
    for page in markdown_pages():
        where = f"{page.relative_to(REPO)}:1"
        yield from references_in(page.read_text(encoding="utf-8"), where, markdown=True)


def unresolved(references: Iterator[Reference]) -> list[str]:
    missing = []
    for reference in references:
        line = f"{reference.where}: {reference.name}"
        if line not in missing and resolve(reference) is False:
            missing.append(line)
    return missing


# -- the tests --------------------------------------------------------------------------------

def test_docstrings_name_only_what_exists():
    missing = unresolved(docstring_references())
    assert not missing, "docstrings point to names that do not exist:\n" + "\n".join(missing)


def test_markdown_pages_name_only_what_exists():
    missing = unresolved(markdown_references())
    assert not missing, "Markdown pages point to names that do not exist:\n" + "\n".join(missing)


def test_markdown_links_and_images_exist():
    missing = []
    for page in markdown_pages():
        text = _FENCE.sub("", page.read_text(encoding="utf-8"))
        for match in _LINK.finditer(text):
            target = match.group(1).split("#", 1)[0]
            if not target or re.match(r"[a-z]+:", target):  # an anchor or a URL
                continue
            if not (page.parent / target).exists():
                missing.append(f"{page.relative_to(REPO)}: {target}")
    assert not missing, "links to files that do not exist:\n" + "\n".join(missing)


@pytest.mark.parametrize("text, expected", [
    (":class:`~stpca_gui.core.progress.FitCancelled`", ["stpca_gui.core.progress.FitCancelled"]),
    (":func:`~stpca_gui.core.rates.classification_rate_interval`",
     ["stpca_gui.core.rates.classification_rate_interval"]),
    ("see ``core.warmup.warm_ups``", ["core.warmup.warm_ups"]),
    ("see `SelectionModel.applied`", ["SelectionModel.applied"]),
    ("in `core/circstats/moods.py`", ["core/circstats/moods.py"]),
    ("from stpca_gui.core import ScaledTorusPCA, make_demos", ["stpca_gui.core.make_demos"]),
    (":mod:`.no_such_sibling`", [".no_such_sibling"]),
])
def test_stale_references_are_caught(text, expected):
    found = unresolved(references_in(text, "example:1", module="stpca_gui.core.tpca"))
    assert [line.split(": ", 1)[1] for line in found] == expected


@pytest.mark.parametrize("text", [
    ":class:`~stpca_gui.core._base.progress.FitCancelled` and :meth:`fit`",
    "``core.warmup.warm_up()`` and `SelectionModel.apply`, `FitController.live_interval`",
    "`smds_.angles_`, `np.unwrap`, `scipy.stats.vonmises_fisher`, `scores.csv`",
    "`core/circstats/modes.py`, `stpca_gui/cli.py`, `benchmarks/bench_gui.py`",
    ":mod:`.pns` and :func:`torus_distance`",
])
def test_live_references_resolve(text):
    assert unresolved(references_in(text, "example:1", module="stpca_gui.core.tpca")) == []
