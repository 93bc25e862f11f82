"""An asm statement's operand types, worked out when a rule first reads one of them.

Extraction leaves each operand that has an expression to its statement's ``StatementTypes``
(``model.OperandTypes``). The first read of one of their types types all of the statement's
operands in one call of the file's resolver (``TypeResolver.resolve_operands``, or
``resolve`` per operand where the statement is not a node of the file's tree), exactly as
extraction typed them when it typed every statement, and then lets go of the resolver: the
file's tree stays alive only through statements whose types nobody has read yet.

What it buys: typing costs about half the CPU of a bare parse (CUDA 13 headers, CUTLASS's
``include/``), paid only for statements whose types a rule reads (see ``OperandTypes``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence

import tree_sitter

from ptxlint.model import CType, Operand, OperandTypes, expressions

# What extraction hands over: ``TypeResolver`` (called as ``resolve``; ``resolve_operands``
# where the statement is its keyword's ancestors) or any callable of that shape.
Lookup = Callable[..., CType | None]
Statement = tree_sitter.Node | Sequence[tree_sitter.Node] | None


class StatementTypes(OperandTypes):
    """The types of ``operands``, the operands with an expression of one statement, worked out
    at once on first read. ``at``: the offset to type at where an operand's own comes before
    it (an expansion's operands, typed where the macro is invoked). ``statement``: the asm
    keyword's node in the file's tree, or its nearest ancestors (see ``TypeResolver.resolve``).

    Until settled, the operands and this object hold each other: a statement nobody reads the
    types of goes with the file's other cycles (the runner collects them after each file)."""

    __slots__ = ("_lookup", "_operands", "_at", "_statement")

    def __init__(
        self, lookup: Lookup, operands: list[Operand], at: int | None, statement: Statement
    ) -> None:
        self._lookup: Lookup | None = lookup
        self._operands = operands
        self._at = at
        self._statement = statement

    def settle(self) -> None:
        # One statement at a time: a language server's threads may read the same statement,
        # and a reader must not find the work begun by another and its own slot still empty.
        with _SETTLING:
            lookup, operands = self._lookup, self._operands
            if lookup is None:
                return  # settled by another read
            pairs = expressions(operands)
            self.give(operands, _types(lookup, pairs, self._at, self._statement))
            # the resolver holds the file's tree: nothing more is asked of it
            self._lookup = self._statement = None
            self._operands = []


# Held while a statement's types are worked out (see ``settle``); reentrant, as nothing in the
# resolver reads an operand's type, but a plugin's look-up might.
_SETTLING = threading.RLock()


def _fresh_lock() -> None:
    # A child forked while another thread held the lock would wait for it forever: the thread
    # that would release it does not exist there.
    global _SETTLING
    _SETTLING = threading.RLock()


def typing_lock() -> threading.RLock:
    """The lock held while a statement's types are worked out: a reader of the type
    resolver's tables from elsewhere (``analysis.cxx_facts``) holds it too."""
    return _SETTLING


if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    os.register_at_fork(after_in_child=_fresh_lock)


def _types(
    lookup: Lookup, pairs: list[tuple[str, int]], at: int | None, statement: Statement
) -> list[CType | None]:
    batch = getattr(lookup, "resolve_operands", None)
    if (
        batch is not None
        and at is None
        and statement is not None
        and not isinstance(statement, tree_sitter.Node)
    ):
        try:
            return list(batch(pairs, statement))
        except Exception:  # then each on its own, where one failure costs only its type
            pass
    return [_typed(lookup, pair, at, statement) for pair in pairs]


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
    operands: tuple[Operand, ...], lookup: Lookup, at: int | None, statement: Statement
) -> None:
    """Leave the types of one statement's operands that have an expression to be worked out
    on first read. Sound because extraction types only operands that are its statement's own
    and new: nothing has read them yet."""
    spelled = [op for op in operands if op.expression]
    if not spelled:
        return
    StatementTypes(lookup, spelled, at, statement).leave(spelled)
