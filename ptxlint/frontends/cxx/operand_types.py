"""An asm statement's operand types, worked out when a rule first reads one of them.

Extraction leaves a ``StatementTypes`` in the ``ctype`` slot of each operand that has an
expression (``model.OperandTypes``). The first read of one of them types all of the
statement's operands in one call of the file's resolver (``TypeResolver.resolve_operands``,
or ``resolve`` per operand where the statement is not a node of the file's tree), exactly as
extraction typed them when it typed every statement, and then lets go of the resolver: the
file's tree stays alive only through statements whose types nobody has read yet.

What it buys: typing was half the CPU of a bare parse on the CUDA 13 headers, and most of it
answers questions no rule asks (a rule stops at a cheaper test first, or is not selected).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import tree_sitter

from ptxlint.model import CType, Operand, OperandTypes

# What extraction hands over: ``TypeResolver`` (called as ``resolve``; ``resolve_operands``
# where the statement is its keyword's ancestors) or any callable of that shape.
Lookup = Callable[..., CType | None]
Statement = tree_sitter.Node | Sequence[tree_sitter.Node] | None


class StatementTypes(OperandTypes):
    """The types of the operands ``pairs`` (expression, start offset) of one statement, typed
    at once on first read. ``at``: the offset to type at where an operand's own comes before
    it (an expansion's operands, typed where the macro is invoked). ``statement``: the asm
    keyword's node in the file's tree, or its nearest ancestors (see ``TypeResolver.resolve``)."""

    __slots__ = ("_lookup", "_pairs", "_at", "_statement", "_answers")

    def __init__(
        self, lookup: Lookup, pairs: list[tuple[str, int]], at: int | None, statement: Statement
    ) -> None:
        self._lookup: Lookup | None = lookup
        self._pairs = pairs
        self._at = at
        self._statement = statement
        self._answers: dict[tuple[str, int], CType | None] | None = None

    def type_of(self, operand: Operand) -> CType | None:
        answers = self._answers
        if answers is None:
            answers = self._answers = self._work_out()
            # the resolver holds the file's tree: nothing more is asked of it
            self._lookup = self._statement = None
            self._pairs = []
        return answers.get((operand.expression, operand.expression_span.start))

    def settled(self) -> bool:
        return self._answers is not None

    def _work_out(self) -> dict[tuple[str, int], CType | None]:
        lookup, pairs, at, statement = self._lookup, self._pairs, self._at, self._statement
        assert lookup is not None
        batch = getattr(lookup, "resolve_operands", None)
        if (
            batch is not None
            and at is None
            and statement is not None
            and not isinstance(statement, tree_sitter.Node)
        ):
            try:
                return dict(zip(pairs, batch(pairs, statement), strict=True))
            except Exception:  # then each on its own, where one failure costs only its type
                pass
        return {pair: _typed(lookup, pair, at, statement) for pair in pairs}


def _typed(
    lookup: Lookup, pair: tuple[str, int], at: int | None, statement: Statement
) -> CType | None:
    expression, where = pair
    try:
        if at is not None and not (at <= where):
            where = at
        if statement is not None:
            return lookup(expression, where, statement)
        return lookup(expression, where)
    except Exception:  # a type we cannot work out is unknown, never a crash
        return None


def leave_types(
    operands: tuple[Operand, ...],
    lookup: Lookup,
    at: int | None,
    statement: Statement,
    put: Callable[[object, object], None],
) -> None:
    """Give each operand of one statement that has an expression its type to work out on
    first read (``put``: the setter of ``Operand.ctype``'s slot). Sound because extraction
    types only operands that are its statement's own and new: nothing has read them yet."""
    spelled = [op for op in operands if op.expression]
    if not spelled:
        return
    types = StatementTypes(
        lookup, [(op.expression, op.expression_span.start) for op in spelled], at, statement
    )
    for operand in spelled:
        put(operand, types)
