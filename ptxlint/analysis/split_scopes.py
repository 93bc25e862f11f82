"""Scopes split across asm statements: a ``{`` one statement leaves open and a later statement
of the same function closes (CCCL's ``asm volatile("{ .reg .b128 q;")`` ... ``asm
volatile("}")``; sppark's ``asm("{");`` ... ``asm("}");``).

The statements that spell such a scope must keep their order, or the compiler could move one
out of it: an ``asm volatile`` does, and so does a GNU asm with no outputs, which GCC, clang
and nvcc treat as volatile without the word (an LLVM-syntax call without side effects may
still be dropped). A statement between the two halves is emitted inside the scope, so what it
declares outside its own braces is local to that scope, as if the template had the braces
itself. PTX203 judges the halves (each balances the other); PTX201 and PTX202 read
:func:`inside_split_scope` for the statements between them.

A statement with no instruction at all, only braces and declarations, does nothing by itself:
it is a helper's asm, there to open or close a scope or to declare registers for the asm
statements that run after it in whatever kernel it is inlined into (xmp's ``nestStart()`` is
``asm volatile("{")``, ``nestEnd()`` is ``asm volatile("}")`` and ``declarePredicate()`` is
``asm volatile(".reg .pred %c1;")``). Its partner may then be in another function of the file,
as a macro's may be in another macro: :func:`scope_helper`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ptxlint.model import AsmStatement

__all__ = ["inside_split_scope", "kept_in_order", "scope_helper", "unbalanced"]


def kept_in_order(statement: AsmStatement) -> bool:
    """A volatile asm, or a GNU asm with no outputs (volatile without the word)."""
    return statement.is_volatile or (statement.syntax == "gnu" and not statement.outputs)


def scope_helper(statement: AsmStatement) -> bool:
    """A statement kept in order whose whole template is braces and declarations, no
    instruction: what a helper that opens or closes a scope, or declares registers for the
    statements after its call, is made of."""
    return (kept_in_order(statement) and not statement.ptx.instructions
            and not statement.template.has_holes
            and bool(statement.ptx.braces or statement.ptx.directives))


def unbalanced(statement: AsmStatement) -> tuple[list[int], list[int]]:
    """Template offsets of the ``}`` that close nothing and of the ``{`` never closed."""
    unopened: list[int] = []
    open_stack: list[int] = []
    for brace in statement.ptx.braces:
        if brace.char == "{":
            open_stack.append(brace.offset)
        elif open_stack:
            open_stack.pop()
        else:
            unopened.append(brace.offset)
    return unopened, open_stack


def inside_split_scope(statement: AsmStatement, file_statements: Sequence[AsmStatement]) -> bool:
    """Whether an earlier statement of the same function, kept in order, opens a scope that is
    still open where ``statement`` stands (the braces of the function's statements before it,
    in source order, those of statements that may move or hold holes left out). A scope never
    closed is PTX203's finding, on the statement that opens it."""
    function = statement.context.function
    if function is None:
        return False  # a macro's definition: where it expands decides, not its neighbours
    depth = 0
    for other in file_statements:
        if other is statement:
            return depth > 0
        if other.span.start >= statement.span.start:
            return depth > 0  # file order: nothing after the statement opens its scope
        if (other.context.function != function or other.context.macro != statement.context.macro
                or not other.ptx.braces or other.template.has_holes or not kept_in_order(other)):
            continue
        closes, opens = unbalanced(other)
        depth = max(0, depth - len(closes)) + len(opens)
    return depth > 0
