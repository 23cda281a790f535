"""Estimator parameters declared once: default, allowed values, help text, one validation.

Each estimator is a dataclass whose fields are made by :func:`parameter` (or
:func:`inherit_parameter`, which reuses another estimator's declaration under a new name).
From that one table follow everything that used to be written by hand in several places:

* ``__init__`` (the dataclass), ``get_params`` / ``set_params`` (scikit-learn's protocol) and a
  ``repr`` that shows the non-default values;
* the numpydoc "Parameters" section of the class docstring;
* the validation at ``fit`` (:meth:`Estimator._validate_params`), with messages that name the
  parameter, the bad value and what is allowed;
* the application's settings (``model.FitParameters``), the command line options (``cli``)
  and the Parameters panel (``gui.panels``), which offer every parameter declared with a
  ``label``.

The constraint types follow scikit-learn's ``_param_validation`` (``Interval``,
``StrOptions``), reduced to what the estimators here need.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

import numpy as np

__all__ = [
    "ArrayLikeValue",
    "Boolean",
    "Estimator",
    "InstanceOf",
    "Interval",
    "Options",
    "ParamSpec",
    "estimator",
    "inherit_parameter",
    "parameter",
]

_SPEC_KEY = "stpca_param_spec"


class Constraint(Protocol):
    """One kind of allowed value; a parameter accepts a value that any constraint accepts."""

    def accepts(self, value: object) -> bool: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class Options:
    """A fixed set of values (strings, or None), with optional display labels.

    Attributes
    ----------
    values : tuple
        The allowed values, in display order.
    labels : tuple of str, optional
        What the application shows for each value (default: the value itself).
    case_insensitive : bool
        Accept strings in any case (R's ``"BIC"`` for ``"bic"``).
    offered : bool
        Whether the application and the command line offer these values (False for a
        library-only value such as ``random_state=None``).
    """

    values: tuple[str | None, ...]
    labels: tuple[str, ...] | None = None
    case_insensitive: bool = False
    offered: bool = True

    def __post_init__(self) -> None:
        if self.labels is not None and len(self.labels) != len(self.values):
            raise ValueError("Options needs one label per value")

    def accepts(self, value: object) -> bool:
        if value is None or isinstance(value, str):
            if self.case_insensitive and isinstance(value, str):
                value = value.lower()
            return value in self.values
        return False

    def describe(self) -> str:
        names = ", ".join(repr(v) for v in self.values)
        return f"one of {names}" if len(self.values) > 1 else names

    def label(self, value: str | None) -> str:
        """The display label of ``value``."""
        if self.labels is None:
            return str(value)
        return self.labels[self.values.index(value)]


@dataclass(frozen=True)
class Interval:
    """Integers or real numbers in a range; ``None`` bounds are unbounded.

    Booleans are never numbers here, and real numbers must be finite.
    """

    kind: type[int] | type[float]
    low: float | None = None
    high: float | None = None
    closed: str = "both"  # "both", "left", "right" or "neither"

    def accepts(self, value: object) -> bool:
        if isinstance(value, bool | np.bool_):
            return False
        if self.kind is int:
            if not isinstance(value, numbers.Integral):
                return False
        elif not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
            return False
        x = float(value)
        if self.low is not None:
            if x < self.low or (x == self.low and self.closed in ("right", "neither")):
                return False
        if self.high is not None:
            if x > self.high or (x == self.high and self.closed in ("left", "neither")):
                return False
        return True

    def describe(self) -> str:
        noun = "an integer" if self.kind is int else "a number"
        low_open = self.closed in ("right", "neither")
        high_open = self.closed in ("left", "neither")
        if self.low is None and self.high is None:
            return noun
        if self.high is None:
            if self.low == 0 and low_open:
                return "a positive integer" if self.kind is int else "a positive number"
            return f"{noun} {'>' if low_open else '>='} {_number(self.low)}"
        if self.low is None:
            return f"{noun} {'<' if high_open else '<='} {_number(self.high)}"
        return (f"{noun} in {'(' if low_open else '['}{_number(self.low)}, "
                f"{_number(self.high)}{')' if high_open else ']'}")


def _number(x: float) -> str:
    """Bounds as people write them: 100000, not 1e+05."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


@dataclass(frozen=True)
class Boolean:
    """True or False (numpy booleans too)."""

    def accepts(self, value: object) -> bool:
        return isinstance(value, bool | np.bool_)

    def describe(self) -> str:
        return "True or False"


@dataclass(frozen=True)
class InstanceOf:
    """Instances of given types, described in words."""

    types: tuple[type, ...]
    description: str

    def accepts(self, value: object) -> bool:
        return isinstance(value, self.types)

    def describe(self) -> str:
        return self.description


@dataclass(frozen=True)
class ArrayLikeValue:
    """An array (its shape is checked where the data are known, in ``fit``)."""

    description: str = "an array"

    def accepts(self, value: object) -> bool:
        return isinstance(value, np.ndarray | list | tuple)

    def describe(self) -> str:
        return self.description


_MISSING = object()


@dataclass(frozen=True)
class ParamSpec:
    """The declaration of one estimator parameter.

    Attributes
    ----------
    name : str
        Attribute and keyword name (filled in by :func:`estimator`).
    default : object
        The library default.
    constraints : tuple
        Allowed values: a value is valid when any constraint accepts it.
    doc : str
        What the parameter does. The first sentence is the command line help and the
        tooltip in the application; the whole text goes into the class docstring.
    label : str
        Name shown in the application; empty for parameters the application and the command
        line do not offer (e.g. array-valued ones).
    user_default : object
        Default offered by the application and the command line when it differs from the
        library's (a fixed seed, so that every run is reproducible).
    cli_flag : str
        Command line option (default ``--`` + the name with dashes).
    advanced : bool
        Shown under "More settings" in the application.
    """

    name: str
    default: Any
    constraints: tuple[Constraint, ...]
    doc: str
    label: str = ""
    user_default: Any = _MISSING
    cli_flag: str = ""
    advanced: bool = False

    @property
    def offered(self) -> bool:
        """Whether the application and the command line offer this parameter."""
        return bool(self.label)

    @property
    def app_default(self) -> Any:
        """The default of the application and the command line."""
        return self.default if self.user_default is _MISSING else self.user_default

    @property
    def flag(self) -> str:
        """The command line option."""
        return self.cli_flag or "--" + self.name.replace("_", "-")

    @property
    def summary(self) -> str:
        """The first sentence of ``doc`` (a sentence ends before a capital or a quote)."""
        first = re.split(r"(?<=[.!?])\s+(?=[A-Z\"])", self.doc.strip(), maxsplit=1)[0]
        return first if first.endswith(".") else first + "."

    def options(self) -> Options | None:
        """The :class:`Options` constraint offered to users, if the parameter has one."""
        return next((c for c in self.constraints if isinstance(c, Options) and c.offered),
                    None)

    def interval(self) -> Interval | None:
        """The :class:`Interval` constraint, if the parameter takes numbers."""
        return next((c for c in self.constraints if isinstance(c, Interval)), None)

    def is_boolean(self) -> bool:
        return any(isinstance(c, Boolean) for c in self.constraints)

    def describe(self, *, typed: bool = False) -> str:
        """The allowed values in words: "'auto' or a positive number".

        With ``typed``, only the values offered to people (named values and numbers).
        """
        constraints = self.constraints
        if typed:
            constraints = tuple(c for c in constraints if isinstance(c, Interval | Boolean) or (
                isinstance(c, Options) and c.offered))
        parts = [c.describe() for c in constraints]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]

    def check(self, value: object, owner: str = "") -> None:
        """Raise ValueError naming this parameter when ``value`` is not allowed."""
        if not any(c.accepts(value) for c in self.constraints):
            where = f"{owner}: " if owner else ""
            shown = f" ({self.label})" if self.label else ""
            raise ValueError(f"{where}{self.name}{shown} must be {self.describe()}; "
                             f"got {value!r}")

    def doc_entry(self) -> str:
        """The numpydoc entry of this parameter."""
        default = "None" if self.default is None else repr(self.default)
        text = textwrap.fill(self.doc, 88, initial_indent="    ", subsequent_indent="    ")
        return f"{self.name} : {self.describe()}, default {default}\n{text}"


def parameter(
    default: Any,
    *constraints: Constraint,
    doc: str,
    label: str = "",
    user_default: Any = _MISSING,
    cli_flag: str = "",
    advanced: bool = False,
) -> Any:
    """Declare an estimator parameter (a dataclass field carrying its :class:`ParamSpec`)."""
    if not constraints:
        raise ValueError("a parameter needs at least one constraint")
    spec = ParamSpec("", default, tuple(constraints), doc, label, user_default, cli_flag,
                     advanced)
    spec.check(default)
    return dataclasses.field(default=default, metadata={_SPEC_KEY: spec})


def inherit_parameter(owner: type, name: str, **changes: Any) -> Any:
    """Reuse ``owner``'s declaration of ``name`` (e.g. a composite estimator offering a
    step's parameter under another name); ``changes`` override fields of the spec."""
    spec = dataclasses.replace(owner.parameter_spec(name), **changes)
    return dataclasses.field(default=spec.default, metadata={_SPEC_KEY: spec})


E = TypeVar("E", bound="Estimator")


class Estimator:
    """Base of the estimators: the scikit-learn parameter protocol on a dataclass."""

    _specs: ClassVar[dict[str, ParamSpec]]

    @classmethod
    def parameter_specs(cls) -> tuple[ParamSpec, ...]:
        """Every parameter's declaration, in signature order."""
        return tuple(cls._specs.values())

    @classmethod
    def parameter_spec(cls, name: str) -> ParamSpec:
        """The declaration of one parameter."""
        try:
            return cls._specs[name]
        except KeyError:
            raise ValueError(f"{cls.__name__} has no parameter {name!r}") from None

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameter names mapped to their values (scikit-learn protocol)."""
        return {name: getattr(self, name) for name in self._specs}

    def set_params(self: E, **params: Any) -> E:
        """Set parameters by name; unknown names are an error. Returns self."""
        for name in params:
            self.parameter_spec(name)
        for name, value in params.items():
            setattr(self, name, value)
        return self

    def _validate_params(self) -> None:
        """Check every parameter against its declaration (called at the start of ``fit``)."""
        for spec in self._specs.values():
            spec.check(getattr(self, spec.name), type(self).__name__)

    def __repr__(self) -> str:
        changed = []
        for spec in self._specs.values():
            value = getattr(self, spec.name)
            same = value is spec.default or (type(value) is type(spec.default)
                                             and _equal(value, spec.default))
            if not same:
                changed.append(f"{spec.name}={_short_repr(value)}")
        return f"{type(self).__name__}({', '.join(changed)})"


def _equal(a: object, b: object) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # arrays
        return False


def _short_repr(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"<array {value.shape}>"
    return repr(value)


def estimator(cls: type[E]) -> type[E]:
    """Class decorator: make ``cls`` a dataclass of its declared parameters and write their
    numpydoc section into its docstring (before "Attributes")."""
    cls = dataclasses.dataclass(eq=False, repr=False)(cls)
    specs: dict[str, ParamSpec] = {}
    for f in dataclasses.fields(cls):
        spec = f.metadata.get(_SPEC_KEY)
        if spec is None:
            raise TypeError(f"{cls.__name__}.{f.name} is not declared with parameter()")
        specs[f.name] = dataclasses.replace(spec, name=f.name)
    cls._specs = specs
    cls.__doc__ = _with_parameters_section(cls.__doc__ or "", specs.values())
    return cls


def _with_parameters_section(doc: str, specs: Iterator[ParamSpec] | Any) -> str:
    lines = doc.rstrip().splitlines()
    indent = "    "
    body = [f"{indent}Parameters", f"{indent}----------"]
    for spec in specs:
        body.extend(indent + line for line in spec.doc_entry().splitlines())
    body.append("")
    for i, line in enumerate(lines):
        if line.strip() == "Attributes":
            return "\n".join([*lines[:i], *body, *lines[i:]]) + "\n"
    return "\n".join([*lines, "", *body]) + "\n"
