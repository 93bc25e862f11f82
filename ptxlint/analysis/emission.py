"""Whether an asm statement is emitted once into the PTX of the function that holds it.

A template's declarations and labels outside ``{ }`` land in the scope of the PTX function
the statement is emitted into, and collide (ptxas: "Duplicate definition") only where that
scope receives them twice. The compiler copies a statement into one PTX function twice where
the C++ function is inlined at two call sites (any ``__device__`` function or lambda) or a loop
around the statement is unrolled. A ``__global__`` function is an entry: it is never inlined
(a launch is no call), and each instantiation of a kernel template is an entry of its own, so
a statement of a kernel outside every loop, lambda and ``goto`` is emitted once into it.
nvcc 13.0 builds two kernels, and two instantiations of one kernel template, that each declare
``.reg .f32 v;`` and ``.shared .b32 s[1024];`` outside braces. Copies an optimizer might make of
straight-line code (tail duplication) are not counted: device asm is a convergent call, which
may not be made to depend on a branch it did not depend on (LLVM LangRef, ``convergent``).

Two statements of one kernel that declare the same name outside braces still collide: such a
statement is not counted as declared once.
"""

from __future__ import annotations

from tree_sitter import Node

from ptxlint.analysis.function_flow import flows_of
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement
from ptxlint.ptx.scopes import Unscoped

__all__ = ["declared_once"]


def declared_once(statement: AsmStatement, context: object) -> bool:
    """Whether every name ``statement`` declares or labels outside ``{ }`` reaches the PTX of
    its function once: the statement stands in a ``__global__`` function's own body, in no
    loop, lambda or function with a ``goto``, and no other statement of that function
    declares one of those names outside braces too. C++ only (a Python DSL's call may be
    traced at each use); a statement of a ``#define`` body may be expanded anywhere."""
    found = analysis_of(statement).unscoped
    if found is None or statement.syntax != "gnu" \
            or statement.context.macro is not None \
            or "__global__" not in statement.context.function_specifiers:
        return False
    flows = flows_of(context)
    if flows is None:
        return False
    byte = flows.parsed.to_byte(statement.span.start)
    function = flows.function_holding(statement)
    if function is None or not function.kernel or function.recovered:
        return False
    flows.structured(function)
    if function.loops_at(byte) or function.lambda_at(byte) is not None \
            or _has_goto(function.node):
        return False
    names = _names(found)
    for other in getattr(context, "file_statements", ()):
        if other is statement or other.source is not statement.source:
            continue
        if not function.start <= flows.parsed.to_byte(other.span.start) < function.end:
            continue
        theirs = analysis_of(other).unscoped
        if theirs is not None and not names.isdisjoint(_names(theirs)):
            return False
    return True


def _names(found: Unscoped) -> set[str]:
    names = {name for directive in found.declarations for name in found.names(directive)}
    names.update(label.name for label in found.labels)
    return names


def _has_goto(node: Node) -> bool:
    """A ``goto`` in the function: a label before it makes a loop no loop statement shows."""
    cursor = node.walk()
    while True:
        if cursor.node is not None and cursor.node.type == "goto_statement":
            return True
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while cursor.goto_parent():
            if cursor.goto_next_sibling():
                break
        else:
            return False
