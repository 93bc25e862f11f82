"""The calls a helper the protocol flows follow makes and they do not follow: a few calls down,
kept at the call of the function that reaches them (:mod:`.function_flow`), where a rule asks
whether one of them may take a step it needs to see (``FunctionFlow.opaque_between``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ptxlint.analysis.function_flow import FileFlows, FunctionFlow

__all__ = ["Opaque"]


@dataclass(eq=False)
class Opaque:
    """The calls a followed helper makes that are not followed (``calls``: callee, how the
    call names it (:func:`.flow_syntax.call_form`), its class (:mod:`.call_classes`), the file
    that reads it, the calling function), and those of the helpers it follows (``inner``):
    shared between every call that reaches them, never copied (CUTLASS's
    numeric_conversion.h: 1.6 million copied entries before)."""

    calls: list[tuple[str, str, str, FileFlows, FunctionFlow]]
    inner: list[Opaque]
    _first: dict[frozenset[str], str | None] = field(default_factory=dict, repr=False)

    @property
    def empty(self) -> bool:
        return not self.calls and not self.inner

    def first(self, kinds: frozenset[str]) -> str | None:
        """The first of these calls that may take a step of ``kinds``, or ``None``."""
        if kinds in self._first:
            return self._first[kinds]
        found = next((name for name, form, klass, files, caller in self.calls
                      if files.may_take(name, kinds, caller, form=form, klass=klass)), None)
        if found is None:
            found = next((n for o in self.inner if (n := o.first(kinds)) is not None), None)
        self._first[kinds] = found
        return found
