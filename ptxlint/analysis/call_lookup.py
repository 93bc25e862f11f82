"""Which function definitions a call of a name may reach, for the protocol flows
(:mod:`.function_flow`): C++ name lookup over the linted file, the project headers it
includes and the library summaries, narrowed by the call's form, its number of arguments and
the class it names the method in. It reads the flows' functions only (their ``member``,
``scope_class``, ``owner`` and :meth:`~.function_flow.FunctionFlow.accepts`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ptxlint.analysis.function_flow import FileFlows, FunctionFlow

__all__ = ["definitions"]


def definitions(files: FileFlows, name: str, caller: FunctionFlow | None = None,
                form: str | None = None, count: int | None = None,
                klass: str = "") -> list[FunctionFlow]:
    """The definitions of ``name`` in the file and the project headers it includes (for a
    header, those the linted file includes), else the library summaries, that a call of
    ``form`` may reach: a member call (``x.f()``) a method, a plain one (``f()``) a free
    function, or a method where the caller is one; a qualified one either (a namespace and
    a class look alike). All of the project's at once: a header is no scope, and a call's
    lookup finds every declaration it sees ([basic.lookup]; TK's ``mma_AB`` overloads lie
    in three headers). With ``count``, the call's number of arguments: those a call with
    that many may reach (:meth:`FunctionFlow.accepts`), where one may; where none may (an
    argument a macro spreads over several), all of them. ``klass``: the call's class
    (:mod:`.call_classes`), whose methods, where any is found, are the only candidates; a
    library summary's method is one only where it is of that class. Several classes
    (``A|B``: a type alias that may name either, ``conditional_t<B, A, B>``) are candidates
    only where each has the method: the call may reach any of them, and where one is not
    found the call is opaque (no candidate)."""
    classes = frozenset(klass.split("|")) if klass else frozenset()

    def fits(h: FunctionFlow) -> bool:
        if h is caller:
            return False
        if form == "member":
            return h.member
        if form == "plain":
            return not h.member or (caller is not None and caller.member)
        return True

    def viable(found: list[FunctionFlow]) -> list[FunctionFlow]:
        if count is None or len(found) < 2:
            return found
        return [h for h in found if h.accepts(count)] or found

    def places() -> Iterator[list[FunctionFlow]]:
        yield [h for h in files.functions_named(name) if fits(h)]
        if files.path is None:
            if files.root is not None:
                yield [h for h in definitions(files.root, name, None, form, klass=klass)
                       if fits(h) and h.owner is not files]
            return
        for header in files.included():
            yield [h for h in header.functions_named(name) if fits(h) and (
                not header.library or not h.member or h.scope_class in classes)]

    found = [h for place in places() for h in place]
    project = [h for h in found if h.owner is None or not h.owner.library]
    summaries = [h for h in found if h.owner is not None and h.owner.library]
    if len(classes) > 1:
        each = [viable([h for h in project if h.scope_class == k] or [
            h for h in summaries if h.scope_class == k]) for k in sorted(classes)]
        return [h for found_in in each for h in found_in] if all(each) else []
    classed = ([h for h in project if h.scope_class == klass] or [
        h for h in summaries if h.scope_class == klass]) if klass else []
    return viable(classed or project or summaries)
