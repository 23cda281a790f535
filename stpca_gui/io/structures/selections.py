"""Atom selections of untrusted text, with their cost bounded before they run.

MDAnalysis evaluates a selection as a tree of nodes. Two things in it can take unbounded
time or memory: a long chain of ``and``/``or`` terms (evaluated by recursion, so 800 terms
end in a RecursionError), and the distance selections between two groups (``around``,
``isolayer``), which list every pair of atoms within the cutoff (10⁵ atoms at one place,
``around 1 index 0:999``: 10⁸ pairs, 4 GB). So :func:`select_atoms` refuses selections
with more than :data:`MAX_SELECTION_OPERATORS` operators or nested deeper than
:data:`MAX_SELECTION_DEPTH`, and counts the pairs of each distance selection with a k-d
tree (constant memory) before MDAnalysis lists them, refusing more than
:data:`MAX_SELECTION_PAIRS`. Messages quote at most :data:`QUOTED_CHARS` characters of the
selection.

MDAnalysis' selection parser keeps its state in a shared object, so selections are parsed
and evaluated one at a time (a lock), whichever thread asks.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from .settings import StructureError

__all__ = ["MAX_SELECTION_DEPTH", "MAX_SELECTION_OPERATORS", "MAX_SELECTION_PAIRS",
           "quoted_selection", "select_atoms"]

#: Most ``and``/``or``/``not`` operators in one selection (each is a level of recursion
#: when MDAnalysis evaluates it; 800 overflow Python's stack).
MAX_SELECTION_OPERATORS = 150
#: Deepest nesting of parentheses.
MAX_SELECTION_DEPTH = 30
#: Most atom pairs a distance selection may list (16–24 bytes each in MDAnalysis).
MAX_SELECTION_PAIRS = 20_000_000
#: Characters of a selection quoted in a message.
QUOTED_CHARS = 60
_OPERATORS = ("and", "or", "not")
#: MDAnalysis' selection nodes that list the pairs of two atom groups within a radius
#: (``cutoff``, or ``exRadius`` for a layer); the other distance selections measure from
#: one point (a centre, a given point), so they list at most one pair per atom.
_PAIRWISE_NODES = ("AroundSelection", "IsoLayerSelection")
_lock = threading.Lock()


def quoted_selection(text: str) -> str:
    """The selection as quoted in a message: repr of at most QUOTED_CHARS characters."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= QUOTED_CHARS else flat[:QUOTED_CHARS - 1] + "…")


def _check_shape(text: str, where: str) -> None:
    """Refuse selections too long or too deeply nested to evaluate safely."""
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    operators = sum(token in _OPERATORS for token in tokens)
    if operators > MAX_SELECTION_OPERATORS:
        raise StructureError(
            f"{where}: the selection {quoted_selection(text)} has {operators} and/or/not "
            f"operators, more than the {MAX_SELECTION_OPERATORS} read; use ranges and lists "
            "instead, e.g. 'resid 1:800' or 'resid 3 7 12' or 'name CA CB'")
    depth = deepest = 0
    for token in tokens:
        depth += (token == "(") - (token == ")")
        deepest = max(deepest, depth)
    if deepest > MAX_SELECTION_DEPTH:
        raise StructureError(f"{where}: the selection {quoted_selection(text)} nests "
                             f"parentheses {deepest} deep, more than {MAX_SELECTION_DEPTH}")


def _children(node: Any) -> list[Any]:
    """The sub-selections of a node of MDAnalysis' selection tree."""
    return [value for name, value in vars(node).items()
            if name in ("sel", "lsel", "rsel") and value is not None]


def _check_pairs(node: Any, atoms: Any, text: str, where: str) -> None:
    """Refuse a tree whose distance selections would list more than MAX_SELECTION_PAIRS
    pairs of atoms (counted with a k-d tree, which holds no pairs)."""
    for child in _children(node):
        _check_pairs(child, atoms, text, where)
    if type(node).__name__ not in _PAIRWISE_NODES:
        return
    radius = float(getattr(node, "cutoff", getattr(node, "exRadius", 0.0)))
    reference = node.sel.apply(atoms)
    if len(reference) * len(atoms) <= MAX_SELECTION_PAIRS:
        return
    from scipy.spatial import cKDTree

    positions = np.asarray(atoms.positions, dtype=np.float64)
    near = cKDTree(positions).count_neighbors(
        cKDTree(np.asarray(reference.positions, dtype=np.float64)), radius)
    if near > MAX_SELECTION_PAIRS:
        raise StructureError(
            f"{where}: the selection {quoted_selection(text)} would list {int(near):,} pairs "
            f"of atoms within {radius:g} Å of its {len(reference):,} reference atoms, more "
            f"than the {MAX_SELECTION_PAIRS:,} it may; use a smaller distance or fewer "
            "atoms")


def select_atoms(universe: Any, text: str, where: str = "structure") -> Any:
    """``universe.select_atoms(text)``, its cost checked first.

    Parameters
    ----------
    universe : MDAnalysis.Universe
    text : str
        A selection in MDAnalysis' language (untrusted).
    where : str
        The file named in messages.

    Raises
    ------
    StructureError
        An invalid selection, one too long or nested too deeply, one whose distance
        selections would list too many pairs, or one that needs coordinates the file does
        not have; the message quotes at most :data:`QUOTED_CHARS` characters of it.
    """
    _check_shape(text, where)
    from MDAnalysis.core import selection

    atoms = universe.atoms
    with _lock:
        try:
            tree = selection.Parser.parse(text, {}, periodic=True)
            _check_pairs(tree, atoms, text, where)
            return tree.apply(atoms)
        except StructureError:
            raise
        except RecursionError:
            raise StructureError(f"{where}: the selection {quoted_selection(text)} is nested "
                                 "too deeply to evaluate") from None
        except MemoryError:
            raise StructureError(f"{where}: the selection {quoted_selection(text)} needs "
                                 "more memory than is available") from None
        except Exception as exc:  # SelectionError, ValueError, NoDataError, … for bad text
            detail = " ".join(str(exc).split())
            if len(detail) > 2 * QUOTED_CHARS:
                detail = detail[:2 * QUOTED_CHARS - 1] + "…"
            raise StructureError(f"{where}: the selection {quoted_selection(text)} is not "
                                 f"valid: {detail or type(exc).__name__}") from None
