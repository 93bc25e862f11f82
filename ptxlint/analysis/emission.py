"""Whether an asm statement is emitted once into the PTX of the function that holds it.

A template's declarations and labels outside ``{ }`` land in the scope of the PTX function
the statement is emitted into, and collide (ptxas: "Duplicate definition") only where that
scope receives them twice. The compiler copies a statement into one PTX function twice where
the C++ function is inlined at two call sites (any ``__device__`` function or lambda) or a loop
around the statement is unrolled. A ``__global__`` function is an entry: it is never inlined
(a launch is no call), and each instantiation of a kernel template is an entry of its own, so
a statement of a kernel outside every loop, lambda and ``goto`` is emitted once into it.
nvcc 13.0 builds two kernels, and two instantiations of one kernel template, that each declare
``.reg .f32 v;`` and ``.shared .b32 s[1024];`` outside braces, with a branch before the
statement, at -O3. Copies an optimizer might make of straight-line code (tail duplication into
the arms of a branch) are not counted: clang marks device asm convergent, which forbids making
it depend on a branch it did not depend on (LLVM LangRef, ``convergent``).

Two statements of one function that declare the same name outside braces collide however
often the function is emitted, wherever a build may compile both: not in the two arms of one
``#if`` (``targets.exclusive_guards``) nor of one ``if constexpr``, which discards one (both
arms of a plain ``if`` are emitted). :func:`earlier_declaring` finds the first such statement
before a statement, which the later one reports (ptxas stops at the second definition); the
earlier one is then declared once where nothing else copies it.
"""

from __future__ import annotations

from ptxlint.analysis.discarded_arms import is_constexpr_if
from ptxlint.analysis.function_flow import FileFlows, FunctionFlow, flows_of
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement
from ptxlint.ptx.scopes import Unscoped
from ptxlint.ptx.targets import exclusive_guards

__all__ = ["declared_once", "earlier_declaring"]


def declared_once(statement: AsmStatement, context: object) -> bool:
    """Whether every name ``statement`` declares or labels outside ``{ }`` reaches the PTX of
    its function once: the statement stands in a ``__global__`` function's own body, in no
    loop, lambda or function with a ``goto``, and no earlier statement of that function
    declares one of those names outside braces too. C++ only (a Python DSL's call may be
    traced at each use); a statement of a ``#define`` body may be expanded anywhere."""
    if "__global__" not in statement.context.function_specifiers:
        return False
    held = _held(statement, context)
    if held is None:
        return False
    flows, function = held
    byte = flows.parsed.to_byte(statement.span.start)
    if not function.kernel or function.loops_at(byte) or function.lambda_at(byte) is not None \
            or function.gotos:
        return False
    return _earlier(statement, context, flows, function) is None


def earlier_declaring(statement: AsmStatement, context: object) -> AsmStatement | None:
    """The first statement before ``statement`` in its function, which a build may compile
    with it, that declares or labels outside braces one of the names ``statement`` declares or
    labels outside braces: the two collide in the function's PTX ("Duplicate definition")."""
    held = _held(statement, context)
    return _earlier(statement, context, *held) if held is not None else None


def _held(statement: AsmStatement,
          context: object) -> tuple[FileFlows, FunctionFlow] | None:
    """The file's flows and the function (its body read) that holds a C++ statement of
    a function body, which declares or labels something outside braces."""
    if analysis_of(statement).unscoped is None or statement.syntax != "gnu" \
            or statement.context.macro is not None:
        return None
    flows = flows_of(context)
    function = flows.function_holding(statement) if flows is not None else None
    if flows is None or function is None or function.recovered:
        return None
    return flows, flows.structured(function)


def _earlier(statement: AsmStatement, context: object, flows: FileFlows,
             function: FunctionFlow) -> AsmStatement | None:
    found = analysis_of(statement).unscoped
    assert found is not None
    names = _names(found)
    byte = flows.parsed.to_byte(statement.span.start)
    # cheapest test first: a generated header holds hundreds of functions, each with its asm
    for other in getattr(context, "file_statements", ()):
        if other.span.start >= statement.span.start:
            break
        if other.source is not statement.source or other.context.macro is not None:
            continue
        at = flows.parsed.to_byte(other.span.start)
        if not function.start <= at < function.end:
            continue
        theirs = analysis_of(other).unscoped
        if theirs is None or names.isdisjoint(_names(theirs)) \
                or _discarded_apart(function, at, byte) \
                or exclusive_guards(other.context.guards, statement.context.guards):
            continue
        return other
    return None


def _discarded_apart(function: FunctionFlow, a: int, b: int) -> bool:
    """``a`` and ``b`` lie in the two arms of one ``if constexpr``, which keeps one arm of each
    instantiation; both arms of a plain ``if`` are emitted into the function (nvcc 13.0 stops
    at the second definition there)."""
    for node, _, then, other in function.ifs:
        if other is not None and is_constexpr_if(node) \
                and (then[0] <= a < then[1] and other[0] <= b < other[1]
                     or then[0] <= b < then[1] and other[0] <= a < other[1]):
            return True
    return False


def _names(found: Unscoped) -> set[str]:
    names = {name for directive in found.declarations for name in found.names(directive)}
    names.update(label.name for label in found.labels)
    return names

