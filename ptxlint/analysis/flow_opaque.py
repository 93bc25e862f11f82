"""The calls a helper the protocol flows follow makes and they do not follow: a few calls down,
kept at the call of the function that reaches them (:mod:`.function_flow`), where a rule asks
whether one of them may take a step it needs to see (``FunctionFlow.opaque_between``).

Two places take steps no call shows: an asm statement ptxlint cannot read (:func:`unreadable`:
it may be any protocol step), and a declaration of an object, which runs its class's
constructor (the body's ``constructions``, :mod:`.function_shapes`; it counts where a
constructor of the file or the headers the flows read may take a step,
:func:`constructor_may_take`). :func:`may_take` answers for a call, its definitions followed a
few calls deep."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import tree_sitter

from ptxlint.analysis.call_lookup import definitions
from ptxlint.analysis.flow_syntax import local_lambda
from ptxlint.analysis.leaf_helpers import leaf_elsewhere
from ptxlint.analysis.toolkit_calls import HARMLESS_CALLS, toolkit_harmless
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement
from ptxlint.ptx.protocols import CLUSTER_RELEASE

if TYPE_CHECKING:
    from ptxlint.analysis.function_flow import FileFlows, FunctionFlow

__all__ = ["CALL_DEPTH", "Opaque", "constructor_may_take", "constructors_of",
           "may_take", "unreadable"]

Node = tree_sitter.Node
CALL_DEPTH = 3  # how many calls deep may_take reads a helper's callees
# project assertion macros (EP_DEVICE_ASSERT, CUTE_STATIC_ASSERT...): a check, never a step
_ASSERT = on_first_use(r"^[A-Z][A-Z0-9_]*ASSERT[A-Z0-9_]*$")


def unreadable(statement: AsmStatement) -> bool:
    """An asm statement whose steps ptxlint cannot list: its template has a hole (a macro's
    text it does not know), or it holds an instruction it cannot read. It may be a step of
    any protocol."""
    return statement.template.has_holes or any(
        i.opaque for i in statement.ptx.instructions)


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
                or any(may_take(where, callee, kinds, constructor, form=form,
                                    klass=where.class_of(constructor, callee, at, end, form))
                       for at, end, callee, _, form in constructor.raw_calls):
            return True
    return False


def may_take(files: FileFlows, name: str, kinds: frozenset[str],
             caller: FunctionFlow | None = None, depth: int = CALL_DEPTH, form: str | None = None,
             klass: str = "") -> bool:
    """A call of ``name`` may take a protocol step of ``kinds``: it is not a CUDA built-in
    of :data:`HARMLESS_CALLS` or an assertion macro, and either no definition of it is
    found (in the file, or in the headers it includes) and it is not a toolkit function
    known to take none (:func:`toolkit_harmless`), or one's body, or a callee's up to
    ``depth`` calls deep, holds such a step or a call that may; a leaf of a project header
    without asm (:func:`.leaf_helpers.leaf_elsewhere`) takes none. ``form``: how the call
    names it, ``klass`` its class (:func:`.call_lookup.definitions`); memoised in
    ``files.may_take_known``."""
    if name in HARMLESS_CALLS or _ASSERT().match(name) or (
            form != "member" and files.conversion(name) is not None):
        return False
    if form == "plain" and caller is not None:
        local = local_lambda(caller.parameters, caller.definitions, name)
        if local is not None:
            return _lambda_may_take(files, caller, local, kinds, depth)
    key = (name, kinds, depth, form, caller is not None and caller.member, klass)
    known = files.may_take_known.get(key)
    if known is not None:
        return known
    files.may_take_known[key] = False  # a recursive call adds no step of its own
    defined = definitions(files, name, caller, form, klass=klass)
    root = files.root or files
    result = not defined and not toolkit_harmless(name, CLUSTER_RELEASE in kinds) and \
        not leaf_elsewhere(root.path, root.parsed.text, name)
    for helper in defined:
        owner = helper.owner or files
        owner.structured(helper)
        if helper.unreadable or any(s.kind in kinds for s in helper.own_steps) or any(
                constructor_may_take(owner, klass_, kinds) for _, klass_ in
                helper.constructions) or any(
                depth == 0 or may_take(owner, callee, kinds, helper, depth - 1, form,
                                       owner.class_of(helper, callee, at, end, form))
                for at, end, callee, _, form in helper.raw_calls):
            result = True
            break
    files.may_take_known[key] = result
    return result


def _lambda_may_take(files: FileFlows, caller: FunctionFlow, lambda_node: Node,
                     kinds: frozenset[str], depth: int) -> bool:
    """A call of a lambda ``caller`` defines may take a step of ``kinds``: its body (part
    of ``caller``'s) holds one, or a call that may."""
    start, end = lambda_node.start_byte, lambda_node.end_byte
    if any(start <= s.start < end and s.kind in kinds for s in caller.own_steps) or any(
            start <= at < end for at in caller.unreadable):
        return True
    return any(start <= at < end and (depth == 0 or may_take(
        files, callee, kinds, caller, depth - 1, form,
        files.class_of(caller, callee, at, stop, form)))
        for at, stop, callee, _, form in caller.raw_calls)


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
                      if may_take(files, name, kinds, caller, form=form, klass=klass)), None)
        if found is None and self.asm:
            found = "asm"
        if found is None:
            found = next((klass for klass, files in self.constructed
                          if constructor_may_take(files, klass, kinds)), None)
        if found is None:
            found = next((n for o in self.inner if (n := o.first(kinds)) is not None), None)
        self._first[kinds] = found
        return found
