"""``value_class``: a frozen dataclass whose ``__eq__``, ``__hash__`` and ``__repr__`` are
closures over one field getter rather than methods compiled from source.

What it buys: on Python 3.10-3.12 ``dataclass`` compiles each method it makes on its own
(``exec`` of a generated ``def``). A check of one small file decorates some 40 data classes,
most of them frozen, before it reads a byte of the file; made as closures, the comparison,
hash and repr took the model's import from 14.2 to 10.1 ms (best of 15, Python 3.11), about
30% of each frozen data class's cost. The ``__init__`` and the frozen ``__setattr__`` and
``__delattr__`` stay the decorator's own: an ``__init__`` made of a loop over the fields would
cost every construction, and frozen-ness has no other public spelling. (Python 3.13 compiles
a class's methods in one go; these closures cost it nothing.)

The methods behave as ``dataclass(eq=True)`` makes them: equal when of the same class with
equal compared fields (``NotImplemented`` across classes), hashed on the fields that take part
in hashing (``field(hash=...)``, else ``compare``), shown as ``Name(field=value, ...)`` over
the fields with ``repr=True``. A method the class spells itself is kept. The class is still a
dataclass: ``fields``, ``replace``, ``asdict``, pickling and ``__match_args__`` work on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from operator import attrgetter
from reprlib import recursive_repr
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: object) -> Callable[[Any], Any]:
        return lambda function: function  # only the type checker reads it


_C = TypeVar("_C", bound=type)
_MISSING = object()


def _getter(names: list[str]) -> Callable[[object], tuple[object, ...]]:
    """A function from an instance to the tuple of its ``names`` (``attrgetter`` gives the bare
    value for one name)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda instance: (one(instance),)
    return lambda instance: ()


def _with_value_methods(cls: _C) -> _C:
    every = fields(cls)
    compared = _getter([f.name for f in every if f.compare])
    hashed = _getter([f.name for f in every if (f.compare if f.hash is None else f.hash)])
    shown = [f.name for f in every if f.repr]

    def __eq__(self: object, other: object) -> bool:
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    def __hash__(self: object) -> int:
        return hash(hashed(self))

    def __repr__(self: object) -> str:
        parts = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({parts})"

    made: dict[str, Callable[..., Any]] = {
        "__eq__": __eq__,
        "__hash__": __hash__,
        "__repr__": recursive_repr()(__repr__),
    }
    own = dict(cls.__dict__)
    if own.get("__hash__", _MISSING) is None and "__eq__" in own:
        # as ``dataclass`` reads it: a class that spells ``__eq__`` alone has ``__hash__``
        # None in its namespace, which is no hash of its own
        del own["__hash__"]
    for name, method in made.items():
        if name not in own:
            method.__qualname__ = f"{cls.__qualname__}.{name}"
            setattr(cls, name, method)
    return cls


@overload
def value_class(cls: _C, /) -> _C: ...


@overload
def value_class(*, slots: bool = True) -> Callable[[_C], _C]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def value_class(cls: _C | None = None, /, *, slots: bool = True) -> Any:
    """``@dataclass(frozen=True, slots=slots)`` with the comparison, hash and repr above."""

    def decorate(cls: _C) -> _C:
        made: Any = dataclass(frozen=True, slots=slots, eq=False, repr=False)(cls)
        return _with_value_methods(made)

    return decorate if cls is None else decorate(cls)
