"""The classes a model file may hold, registered by the classes themselves.

The file format (:mod:`stpca_gui.core.persistence`) rebuilds objects only from registered
classes, by the name written for them, and names no estimator itself: each estimator or
fitted record declares with :func:`model_file_class` that it may be written, so the format
sits below the estimators it stores (glue's saver/loader registry, in one decorator).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

_T = TypeVar("_T", bound=type)

_CLASSES: dict[str, type] = {}
_TOP_LEVEL: dict[str, type] = {}


def model_file_class(*, top_level: bool = False) -> Callable[[_T], _T]:
    """Class decorator: instances of the class may be written to and read from model files.

    Parameters
    ----------
    top_level : bool, keyword-only
        Whether a model file may hold an instance of the class as its whole content (the
        estimators a user saves), rather than only inside one.

    Raises
    ------
    ValueError
        When another class of the same name is already registered (the file names classes
        by their name alone).
    """

    def register(cls: _T) -> _T:
        name = cls.__name__
        known = _CLASSES.get(name)
        if known is not None and known is not cls:
            raise ValueError(f"two model file classes are named {name!r}: "
                             f"{known.__module__} and {cls.__module__}")
        _CLASSES[name] = cls
        if top_level:
            _TOP_LEVEL[name] = cls
        return cls

    return register


def model_file_classes() -> dict[str, type]:
    """The registered classes, by the name written for them (a copy)."""
    return dict(_CLASSES)


def top_level_classes() -> tuple[type, ...]:
    """The classes a model file may hold as its whole content."""
    return tuple(_TOP_LEVEL.values())
