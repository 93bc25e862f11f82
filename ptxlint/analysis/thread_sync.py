"""Whether anything between two points of a function may order the memory accesses of its
threads for one another: what the protocol rules that need threads to meet (an mbarrier
initialised by one thread and used by all, a release one thread publishes for all) ask
before they speak. Conservative by design: anything that may synchronise counts."""

from __future__ import annotations

from ptxlint.analysis.call_lookup import definitions
from ptxlint.analysis.flow_opaque import CALL_DEPTH, constructors_of
from ptxlint.analysis.function_flow import FileFlows, FunctionFlow
from ptxlint.analysis.toolkit_calls import toolkit_harmless
from ptxlint.model import AsmStatement

__all__ = ["may_order_between"]

# Toolkit calls that synchronise threads (``toolkit_harmless`` takes them for calls that take
# no protocol step, which they are not).
_SYNCHRONISING = frozenset({"__syncthreads", "__syncthreads_count", "__syncthreads_and",
                            "__syncthreads_or", "__syncwarp", "__barrier_sync"})
# Instructions whose presence between two points may order them for the other threads:
# barriers, fences, and the atomics and strong loads of a hand-made flag.
_ORDERING = frozenset({"bar", "barrier", "fence", "membar", "atom", "red"})


def may_order_between(flow: FunctionFlow, start: int, end: int) -> bool:
    """Something between bytes ``start`` and ``end`` may synchronise the threads: a call that
    may (``_call_may_order``), an asm statement with a barrier, fence or atomic, or the
    declaration of an object whose class's constructor may do either
    (``function_shapes.constructions``, as the other protocol rules count one that may take
    their step)."""
    owner = flow.owner
    if any(start < at < end and _call_may_order(owner, flow, name, at, stop, form, CALL_DEPTH)
           for at, stop, name, _, form in flow.raw_calls):
        return True
    to_byte = flow.parsed.to_byte
    if any(start < to_byte(statement.span.start) < end and _orders(statement)
           for statement in flow.statements):
        return True
    return owner is not None and any(start < at < end and _constructor_may_order(owner, klass)
                                     for at, klass in flow.constructions)


def _may_order(name: str) -> bool:
    return name in _SYNCHRONISING or not toolkit_harmless(name, True)


def _call_may_order(files: FileFlows | None, caller: FunctionFlow, name: str, at: int, end: int,
                    form: str, depth: int) -> bool:
    """A call may synchronise: a toolkit call that does, or one of a function ptxlint cannot
    read; a helper the file or its project headers define may only where its body holds an
    asm statement that may or a call that may, ``depth`` calls deep (a TMA store's commit and
    wait helpers order nothing for the other threads)."""
    if name in _SYNCHRONISING:
        return True
    if toolkit_harmless(name, True):
        return False
    if files is None:
        return True
    defined = definitions(files, name, caller, form, klass=files.class_of(caller, name, at, end,
                                                                          form))
    if not defined or depth == 0:
        return True
    for helper in defined:
        owner = helper.owner or files
        owner.structured(helper)
        if helper.unreadable or any(_orders(statement) for statement in helper.statements) \
                or any(_call_may_order(owner, helper, callee, start, stop, how, depth - 1)
                       for start, stop, callee, _, how in helper.raw_calls) \
                or any(_constructor_may_order(owner, klass) for _, klass in helper.constructions):
            return True
    return False


def _orders(statement: AsmStatement) -> bool:
    return any(i.opaque or i.opcode in _ORDERING
               or (i.opcode == "ld" and ("acquire" in i.modifiers or "volatile" in i.modifiers))
               for i in statement.ptx.instructions)


def _constructor_may_order(files: FileFlows, klass: str, seen: frozenset[str] = frozenset()
                           ) -> bool:
    """A constructor of ``klass`` the flows read may synchronise: a call, an asm statement or
    an object it declares that may (a class with no constructor found: none)."""
    if klass in seen:
        return False
    seen = seen | {klass}
    return any(
        any(_may_order(name) for _, _, name, _, _ in constructor.raw_calls)
        or any(_orders(statement) for statement in constructor.statements)
        or any(_constructor_may_order(where, inner, seen)
               for _, inner in constructor.constructions)
        for where, constructor in constructors_of(files, klass))
