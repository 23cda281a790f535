"""The shared selection of samples: one group number per sample, with undo/redo.

Every view (scores scatter, torus, sphere, table) reads and writes the same
:class:`SelectionModel`. A sample is in at most one group: ``groups[i] == 0`` means not
selected, ``groups[i] == k`` (1 ≤ k ≤ :data:`MAX_GROUPS`) means it belongs to group k.
Selection tools act on the *active group* through :meth:`SelectionModel.apply`.

The model is Qt-free; it notifies listeners through psygnal signals, which Qt code can
connect to like any Python callable.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from psygnal import Signal

__all__ = ["HISTORY_LIMIT", "MAX_GROUPS", "SELECTION_MODES", "SelectionMode", "SelectionModel"]

#: Number of selection groups (group numbers 1..MAX_GROUPS; 0 = not selected).
MAX_GROUPS = 6
#: Number of changes kept for undo.
HISTORY_LIMIT = 50

SelectionMode = Literal["replace", "add", "subtract", "intersect"]
#: Modes accepted by :meth:`SelectionModel.apply`.
SELECTION_MODES: tuple[str, ...] = ("replace", "add", "subtract", "intersect")

_DTYPE = np.int8


@dataclass(frozen=True)
class _Change:
    """One undoable change, stored as the positions that changed and their values."""

    index: NDArray[np.intp]
    before: NDArray[np.int8]
    after: NDArray[np.int8]


class SelectionModel:
    """Per-sample group numbers shared by all views, with set operations and undo.

    Parameters
    ----------
    n_samples : int
        Number of samples of the current data set.
    history_limit : int, default :data:`HISTORY_LIMIT`
        Number of changes kept for :meth:`undo`.

    Attributes
    ----------
    changed : psygnal.Signal
        Emitted once per effective change of the groups with the ``source`` string given
        by the caller of the mutating method (``"undo"`` / ``"redo"`` for those, ``""`` by
        default). Not emitted when an operation changes nothing.
    active_group_changed : psygnal.Signal
        Emitted with the new active group number when it changes.

    Examples
    --------
    >>> sel = SelectionModel(5)
    >>> sel.apply(np.array([True, True, False, False, False]), "replace")
    True
    >>> sel.active_group = 2
    >>> sel.apply([1, 2], "add")  # integer indices are accepted too
    True
    >>> sel.groups.tolist()
    [1, 2, 2, 0, 0]
    >>> sel.undo()
    True
    >>> sel.groups.tolist()
    [1, 1, 0, 0, 0]
    """

    changed = Signal(str)
    active_group_changed = Signal(int)

    def __init__(self, n_samples: int = 0, *, history_limit: int = HISTORY_LIMIT) -> None:
        self._groups = np.zeros(_check_size(n_samples), dtype=_DTYPE)
        self._active = 1
        if int(history_limit) < 0:
            raise ValueError(f"history_limit must be >= 0, got {history_limit}")
        self._undo: deque[_Change] = deque(maxlen=int(history_limit))
        self._redo: list[_Change] = []

    # ------------------------------------------------------------------ reading
    @property
    def n_samples(self) -> int:
        """Number of samples."""
        return int(self._groups.size)

    def __len__(self) -> int:
        return self.n_samples

    @property
    def groups(self) -> NDArray[np.int8]:
        """Group number of every sample (0 = not selected), as a read-only view.

        The view follows later changes (until :meth:`resize`); copy it to keep a snapshot.
        """
        view = self._groups.view()
        view.flags.writeable = False
        return view

    def mask(self, group: int | None = None) -> NDArray[np.bool_]:
        """Boolean mask of the selected samples.

        Parameters
        ----------
        group : int, optional
            Only the members of this group; default: samples in any group.
        """
        if group is None:
            return self._groups != 0
        return self._groups == _check_group(group)

    def counts(self) -> NDArray[np.int64]:
        """Samples per group: ``counts()[k]`` for group k, ``counts()[0]`` = not selected."""
        return np.bincount(self._groups.astype(np.intp), minlength=MAX_GROUPS + 1)

    @property
    def n_selected(self) -> int:
        """Number of samples in any group."""
        return int(np.count_nonzero(self._groups))

    @property
    def active_group(self) -> int:
        """Group that :meth:`apply` acts on (1..MAX_GROUPS, default 1)."""
        return self._active

    @active_group.setter
    def active_group(self, group: int) -> None:
        group = _check_group(group)
        if group != self._active:
            self._active = group
            self.active_group_changed.emit(group)

    @property
    def can_undo(self) -> bool:
        """Whether :meth:`undo` has something to undo."""
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        """Whether :meth:`redo` has something to redo."""
        return bool(self._redo)

    # ----------------------------------------------------------------- changing
    def apply(self, mask: ArrayLike, mode: SelectionMode = "replace", *,
              source: str = "") -> bool:
        """Combine a set of samples with the active group.

        Parameters
        ----------
        mask : array_like
            Boolean mask of shape (n,) or integer indices of samples.
        mode : {"replace", "add", "subtract", "intersect"}
            ``"replace"``: the active group becomes exactly ``mask`` (its other members are
            released); ``"add"``: ``mask`` joins the active group; ``"subtract"``: members of
            the active group in ``mask`` are released; ``"intersect"``: only the members of
            the active group that are in ``mask`` stay in it. Samples taken into the
            active group leave whatever group they were in; other groups are otherwise
            untouched.
        source : str, keyword-only
            Identifier passed on by :attr:`changed` (e.g. the name of the view).

        Returns
        -------
        bool
            Whether anything changed.

        Raises
        ------
        ValueError
            On an unknown mode, a mask of the wrong length or indices out of range.
        """
        selected = self._as_mask(mask)
        k = self._active
        new = self._groups.copy()
        if mode == "replace":
            new[new == k] = 0
            new[selected] = k
        elif mode == "add":
            new[selected] = k
        elif mode == "subtract":
            new[selected & (new == k)] = 0
        elif mode == "intersect":
            new[~selected & (new == k)] = 0
        else:
            raise ValueError(
                f"unknown selection mode {mode!r}; valid modes are: {', '.join(SELECTION_MODES)}")
        return self._commit(new, source)

    def clear(self, *, source: str = "") -> bool:
        """Release every sample from every group. Returns whether anything changed."""
        return self._commit(np.zeros_like(self._groups), source)

    def clear_group(self, group: int, *, source: str = "") -> bool:
        """Release the members of one group. Returns whether anything changed."""
        k = _check_group(group)
        new = self._groups.copy()
        new[new == k] = 0
        return self._commit(new, source)

    def set_groups(self, groups: ArrayLike, *, source: str = "") -> bool:
        """Replace all group numbers at once (undoable).

        Parameters
        ----------
        groups : array_like of int, shape (n,)
            Values in 0..MAX_GROUPS.
        source : str, keyword-only

        Returns
        -------
        bool
            Whether anything changed.
        """
        values = np.asarray(groups)
        if values.shape != self._groups.shape:
            raise ValueError(f"groups must have shape ({self.n_samples},), got {values.shape}")
        if not (np.issubdtype(values.dtype, np.integer) or values.dtype == np.bool_):
            raise ValueError(f"groups must be integers, got dtype {values.dtype}")
        if values.size and (values.min() < 0 or values.max() > MAX_GROUPS):
            raise ValueError(f"group numbers must lie in 0..{MAX_GROUPS}, got values from "
                             f"{values.min()} to {values.max()}")
        return self._commit(values.astype(_DTYPE), source)

    def resize(self, n_samples: int, *, source: str = "") -> None:
        """Start over for a new data set of ``n_samples`` samples.

        All groups are cleared and the undo history is forgotten; :attr:`changed` is
        emitted unless the selection was already empty and of that size.
        """
        n = _check_size(n_samples)
        unchanged = n == self.n_samples and not self._groups.any()
        self._groups = np.zeros(n, dtype=_DTYPE)
        self._undo.clear()
        self._redo.clear()
        if not unchanged:
            self.changed.emit(source)

    def undo(self) -> bool:
        """Revert the last change. Returns False when there is nothing to undo."""
        if not self._undo:
            return False
        change = self._undo.pop()
        self._groups[change.index] = change.before
        self._redo.append(change)
        self.changed.emit("undo")
        return True

    def redo(self) -> bool:
        """Re-apply the last undone change. Returns False when there is nothing to redo."""
        if not self._redo:
            return False
        change = self._redo.pop()
        self._groups[change.index] = change.after
        self._undo.append(change)
        self.changed.emit("redo")
        return True

    # ------------------------------------------------------- saving and restoring
    def history(self, limit: int | None = None) -> list[tuple[NDArray, NDArray, NDArray]]:
        """The undo stack, oldest change first: ``(index, before, after)`` per change.

        ``index`` holds the positions that changed, ``before`` and ``after`` their group
        numbers. ``limit`` keeps only the newest changes. The redo stack is not included.
        """
        changes = list(self._undo)
        if limit is not None:
            changes = changes[max(0, len(changes) - int(limit)):]
        return [(c.index.copy(), c.before.copy(), c.after.copy()) for c in changes]

    def restore(self, groups: ArrayLike, history: list[tuple[ArrayLike, ArrayLike, ArrayLike]]
                = (), *, active_group: int = 1, source: str = "") -> None:
        """Install saved groups, undo stack (as :meth:`history` gives it) and active group.

        Everything is checked before anything changes: the groups must fit the current
        number of samples, and undoing the history from ``groups`` backwards must be
        possible (each change's ``after`` is what the groups hold at its positions then).
        The redo stack is emptied; :attr:`changed` is emitted once.

        Raises
        ------
        ValueError
            Naming what does not fit.
        """
        values = np.asarray(groups)
        n = self.n_samples
        if values.shape != (n,) or not np.issubdtype(values.dtype, np.integer):
            raise ValueError(f"groups must be {n} integers, got dtype {values.dtype} and "
                             f"shape {values.shape}")
        if values.size and (values.min() < 0 or values.max() > MAX_GROUPS):
            raise ValueError(f"group numbers must lie in 0..{MAX_GROUPS}")
        active = _check_group(active_group)
        current = values.astype(_DTYPE)
        walk = current.copy()
        changes = []
        for k, (index, before, after) in reversed(list(enumerate(history))):
            index = np.asarray(index)
            before, after = np.asarray(before), np.asarray(after)
            if (index.ndim != 1 or before.shape != index.shape or after.shape != index.shape
                    or not np.issubdtype(index.dtype, np.integer)):
                raise ValueError(f"undo step {k + 1}: its arrays do not match")
            if index.size and (index.min() < 0 or index.max() >= n):
                raise ValueError(f"undo step {k + 1}: sample index out of range")
            if before.size and (before.min() < 0 or before.max() > MAX_GROUPS):
                raise ValueError(f"undo step {k + 1}: group numbers out of range")
            if not np.array_equal(walk[index], after):
                raise ValueError(f"undo step {k + 1} does not lead to the saved groups")
            walk[index] = before
            changes.append(_Change(index.astype(np.intp), before.astype(_DTYPE),
                                   after.astype(_DTYPE)))
        self._groups[:] = current  # in place, so views of ``groups`` follow
        self._undo.clear()
        self._undo.extend(reversed(changes))
        self._redo.clear()
        self.changed.emit(source)
        self.active_group = active

    # ---------------------------------------------------------------- internals
    def _as_mask(self, mask: ArrayLike) -> NDArray[np.bool_]:
        values = np.asarray(mask)
        n = self.n_samples
        if values.dtype == np.bool_:
            if values.shape != (n,):
                raise ValueError(f"selection mask must have shape ({n},), got {values.shape}")
            return values
        if values.size == 0:
            return np.zeros(n, dtype=bool)
        if not np.issubdtype(values.dtype, np.integer) or values.ndim != 1:
            raise ValueError("selection must be a boolean mask or a 1-D array of integer "
                             f"indices, got dtype {values.dtype} and shape {values.shape}")
        if values.min() < -n or values.max() >= n:
            raise ValueError(f"selection index out of range for {n} samples")
        selected = np.zeros(n, dtype=bool)
        selected[values] = True
        return selected

    def _commit(self, new: NDArray[np.int8], source: str) -> bool:
        index = np.flatnonzero(new != self._groups)
        if index.size == 0:
            return False
        change = _Change(index, self._groups[index].copy(), new[index])
        self._groups[index] = change.after  # in place, so views of ``groups`` follow
        if self._undo.maxlen != 0:
            self._undo.append(change)
        self._redo.clear()
        self.changed.emit(source)
        return True


def _check_size(n: int) -> int:
    if isinstance(n, bool) or int(n) != n or n < 0:
        raise ValueError(f"the number of samples must be a non-negative integer, got {n!r}")
    return int(n)


def _check_group(group: int) -> int:
    if isinstance(group, bool) or int(group) != group or not 1 <= group <= MAX_GROUPS:
        raise ValueError(f"group must be an integer in 1..{MAX_GROUPS}, got {group!r}")
    return int(group)
