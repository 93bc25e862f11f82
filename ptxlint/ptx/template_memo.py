"""Answers worked out from a parsed template alone, kept for the next statement that spells it.

``parse_template`` hands every statement that spells a template the same ``PtxTemplate``, so
what is a function of the parse (and of a little more: the template's text, which list of
effects) is kept by the parse's identity. The parse is held with its answer: an ``id`` is reused
once its object is freed, and holding it keeps it alive for as long as its entry. Bounded:
cleared when full (templates repeat within a run; a clear costs one recomputation each).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from ptxlint.model import PtxTemplate

V = TypeVar("V")


class TemplateMemo(Generic[V]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: dict[tuple[int, Hashable], tuple[PtxTemplate, V]] = {}

    def of(self, ptx: PtxTemplate, make: Callable[[], V], extra: Hashable = None) -> V:
        """The answer for ``ptx`` (and ``extra``), made by ``make`` the first time."""
        key = (id(ptx), extra)
        entry = self._entries.get(key)
        if entry is not None and entry[0] is ptx:
            return entry[1]
        value = make()
        if len(self._entries) >= self.size:
            self._entries.clear()
        self._entries[key] = (ptx, value)
        return value
