"""The calls a helper the protocol flows follow makes and they do not follow: a few calls down,
kept at the call of the function that reaches them (:mod:`.function_flow`), where a rule asks
whether one of them may take a step it needs to see (``FunctionFlow.opaque_between``).

Two places take steps no call shows: an asm statement ptxlint cannot read (:func:`unreadable`:
it may be any protocol step), and a declaration of an object, which runs its class's
constructor (:func:`constructions`; it counts where a constructor of the file or the headers
the flows read may take a step, :func:`constructor_may_take`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import tree_sitter

from ptxlint.model import AsmStatement

if TYPE_CHECKING:
    from ptxlint.analysis.function_flow import FileFlows, FunctionFlow

__all__ = ["Opaque", "constructions", "constructor_may_take", "constructors_of", "unreadable"]

_CLASS_TYPES = frozenset({"type_identifier", "qualified_identifier", "template_type"})


def unreadable(statement: AsmStatement) -> bool:
    """An asm statement whose steps ptxlint cannot list: its template has a hole (a macro's
    text it does not know), or it holds an instruction it cannot read. It may be a step of
    any protocol."""
    return statement.template.has_holes or any(
        i.opaque for i in statement.ptx.instructions)


def constructions(node: tree_sitter.Node) -> list[tuple[int, str]]:
    """The objects the function body ``node`` declares (``T x;``, ``T x(a);``, ``T x{a};``):
    each declarator's first byte and the class it names (its last name, no template
    arguments); a pointer, a reference or a copy of a value (``T x = v;``) runs no
    constructor of its own here."""
    found: list[tuple[int, str]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "declaration":
            kind = current.child_by_field_name("type")
            if kind is not None and kind.type in _CLASS_TYPES and kind.text is not None:
                name = kind.text.decode(errors="replace").split("<", 1)[0]
                name = name.rsplit("::", 1)[-1].strip()
                for declarator in current.children_by_field_name("declarator"):
                    value = declarator.child_by_field_name("value")
                    if declarator.type == "identifier" or (
                            declarator.type == "init_declarator" and value is not None
                            and value.type in ("argument_list", "initializer_list")):
                        found.append((declarator.start_byte, name))
        stack.extend(reversed(current.children))
    found.sort()
    return found


def constructors_of(files: FileFlows, klass: str) -> Iterator[tuple[FileFlows, FunctionFlow]]:
    """The constructors of ``klass`` in the file or the headers its flows read, each with its
    body read (no call followed), and the flows of the file that holds it. None for an
    aggregate, or a library's class the flows do not read."""
    for where in [files, *files.included()]:
        for constructor in where.functions_named(klass):
            if constructor.scope_class == klass:
                yield where, where.structured(constructor)


def constructor_may_take(files: FileFlows, klass: str, kinds: frozenset[str]) -> bool:
    """A constructor of ``klass`` in the file or the headers its flows read takes, or may
    take, a step of ``kinds`` (its own asm, one it cannot read, or a call that may). A class
    with no constructor found takes none: an aggregate, or a library's class it does not
    read."""
    for where, constructor in constructors_of(files, klass):
        if constructor.unreadable or any(s.kind in kinds for s in constructor.own_steps) \
                or any(where.may_take(callee, kinds, constructor, form=form,
                                      klass=where.class_of(constructor, callee, at, end, form))
                       for at, end, callee, _, form in constructor.raw_calls):
            return True
    return False


@dataclass(eq=False)
class Opaque:
    """The calls a followed helper makes that are not followed (``calls``: callee, how the
    call names it (:func:`.flow_syntax.call_form`), its class (:mod:`.call_classes`), the file
    that reads it, the calling function), and those of the helpers it follows (``inner``):
    shared between every call that reaches them, never copied (CUTLASS's
    numeric_conversion.h: 1.6 million copied entries before)."""

    calls: list[tuple[str, str, str, FileFlows, FunctionFlow]]
    inner: list[Opaque]
    asm: bool = False  # a followed helper holds an asm statement ptxlint cannot read
    # the objects followed helpers declare: (class, the file that reads it)
    constructed: list[tuple[str, FileFlows]] = field(default_factory=list)
    _first: dict[frozenset[str], str | None] = field(default_factory=dict, repr=False)

    @property
    def empty(self) -> bool:
        return not self.calls and not self.inner and not self.asm and not self.constructed

    def first(self, kinds: frozenset[str]) -> str | None:
        """The first of these calls that may take a step of ``kinds``, or ``None``."""
        if kinds in self._first:
            return self._first[kinds]
        found = next((name for name, form, klass, files, caller in self.calls
                      if files.may_take(name, kinds, caller, form=form, klass=klass)), None)
        if found is None and self.asm:
            found = "asm"
        if found is None:
            found = next((klass for klass, files in self.constructed
                          if constructor_may_take(files, klass, kinds)), None)
        if found is None:
            found = next((n for o in self.inner if (n := o.first(kinds)) is not None), None)
        self._first[kinds] = found
        return found
