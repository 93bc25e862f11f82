"""``fact``: an attribute of an analysis object computed on its first read and kept."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

__all__ = ["fact", "known"]

T = TypeVar("T")


class fact(Generic[T]):  # noqa: N801 (a decorator, lower case like property)
    """A fact computed on its first read and kept in the instance: ``functools.cached_property``
    without its lock (Python 3.11's takes one on every first read, and the rules make some
    40,000 first reads on the CUDA headers' asm statements)."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self._compute = compute
        self._name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> fact[T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...
    def __get__(self, instance: object, owner: type | None = None) -> T | fact[T]:
        if instance is None:
            return self
        # stored in the instance's __dict__, which later reads find before this descriptor
        value = instance.__dict__[self._name] = self._compute(instance)
        return value


_UNKNOWN = object()


def known(instance: object, name: str, default: T) -> object | T:
    """The fact ``name`` of ``instance`` where it has been worked out, else ``default``: for a
    reader whose cheapest order of questions depends on what is already known (it asks
    nothing to be worked out)."""
    value = instance.__dict__.get(name, _UNKNOWN)
    return default if value is _UNKNOWN else value
