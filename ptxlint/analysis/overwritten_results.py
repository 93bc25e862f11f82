"""Whether every result of an asm statement is overwritten before anything reads it.

An asm statement whose template has no effect beyond its outputs (no memory access, ordering,
barrier or changing special register: :func:`.effects.side_effects` is empty) is a function of
its inputs. When the asm statement after it, in the same block, writes each of its outputs
again as a write-only (``=``) output, on every path through its template, and reads none of
them, its results are lost: a
non-volatile one is deleted by the compiler, a volatile one runs for nothing. Shipped, it was a
copy of a statement whose output list was not changed (``"=f"(C[0])`` twice where the second
meant ``C[4]``) or an accumulator chain broken (the second ``mma`` given ``0.f`` where it meant
the first's ``C``).

Only what the text shows for certain counts. The two statements are siblings of one block with
nothing between them but comments, ``#pragma`` lines and other asm statements that name none of
the outputs' variables; each output is a plain place (``x``, ``c[2]``, ``acc.x``, ``c[1].y``:
a variable, constant subscripts, members), compared as written; the later statement's inputs
may name another constant element of the same array (``C[4]`` after ``C[0]``) but nothing else
of those variables (``C``, ``C[i]``, ``*C``). Statements from macro expansions or under
different ``#if`` guards are not compared.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import tree_sitter

from ptxlint.analysis.statement import analysis_of
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import AsmStatement

__all__ = ["Overwrite", "overwritten_by"]

Node = tree_sitter.Node

# A place the text names for certain: a variable, then constant subscripts and members.
_PLACE = re.compile(r"[A-Za-z_]\w*(?:\[\d+[uUlL]*\]|\.[A-Za-z_]\w*)*")
_WORD = re.compile(r"[A-Za-z_]\w*")
# The text after a statement that may lead to another asm statement: the ``;``, blanks,
# comments and ``#pragma`` lines (the tree decides; this only spares asking it).
# Each alternative starts with its own byte (a blank, `/`, `#`): the search is linear.
_FOLLOWED = re.compile(r";?(?:\s|//[^\n]*|/\*.*?\*/|#[ \t]*pragma[^\n]*)*(?:asm|__asm)\b", re.S)
# Siblings that may lie between the two statements: they run nothing.
_INERT = frozenset({"comment", "preproc_call"})


@dataclass(frozen=True)
class Overwrite:
    """The statement that overwrites every result, and the places it writes again."""

    later: AsmStatement
    places: tuple[str, ...]


def _place(expression: str) -> str | None:
    text = "".join(expression.split())
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    return text if _PLACE.fullmatch(text) else None


def _base(place: str) -> str:
    match = _WORD.match(place)
    return match.group() if match is not None else place


def overwritten_by(statement: AsmStatement, parsed: ParsedSource,
                   statements: Sequence[AsmStatement]) -> Overwrite | None:
    """The asm statement after ``statement`` that overwrites every one of its results before
    anything reads them (see the module's docstring), or None. ``statements``: the file's, in
    source order; ``parsed``: its tree."""
    if statement.context.macro is not None \
            or _FOLLOWED.match(parsed.text, statement.span.end) is None:
        return None  # most statements: no asm statement follows (the text says it cheaply)
    node = _statement_node(parsed, statement)
    if node is None:
        return None
    sibling = node.next_named_sibling
    while sibling is not None and sibling.type in _INERT:
        sibling = sibling.next_named_sibling
    if sibling is None or _asm_expression(sibling) is None:
        return None
    outputs = [o for o in statement.operands if o.role == "output"]
    if not outputs or _unreadable(statement):
        return None
    places = [_place(o.expression) for o in outputs]
    if any(p is None for p in places):
        return None
    written = tuple(p for p in places if p is not None)
    analysis = analysis_of(statement)
    if analysis.side_effects or analysis.memory_effects:
        return None
    bases = {_base(p) for p in written}
    while sibling is not None:
        if sibling.type in _INERT:
            sibling = sibling.next_named_sibling
            continue
        later = _asm_at(parsed, sibling, statements)
        if later is None or later.context.macro is not None \
                or later.context.guards != statement.context.guards:
            return None
        if _overwrites(later, written, bases):
            return Overwrite(later, written)
        if any(_names(o.expression, bases) for o in later.operands):
            return None  # reads or writes one of the variables some other way
        sibling = sibling.next_named_sibling
    return None


def _overwrites(later: AsmStatement, written: tuple[str, ...], bases: set[str]) -> bool:
    """``later`` writes every place of ``written`` as a write-only output, and reads none of
    the variables they belong to but other constant elements."""
    if _unreadable(later):
        return False
    flow = analysis_of(later).flow
    if flow is None:
        return False
    again: set[str] = set()
    for operand in later.operands:
        place = _place(operand.expression)
        if operand.role == "output":
            if "+" in operand.constraint.modifiers:
                if _names(operand.expression, bases):
                    return False  # read before it is written
                continue
            if place is not None and operand.index in flow.definite:
                # (written on some paths only, the old value may survive: PTX103's finding)
                again.add(place)
            elif _names(operand.expression, bases):
                return False
        elif _names(operand.expression, bases) and (place is None or place in written):
            return False  # an input that reads one of the places, or may
    return again.issuperset(written)


def _unreadable(statement: AsmStatement) -> bool:
    """Part of the statement is a macro ptxlint could not read, or its template has none of
    the instructions it shows: what it writes is not known."""
    return (statement.opaque_sections or not statement.ptx.instructions
            or any(i.opaque for i in statement.ptx.instructions)
            or any(o.constraint.opaque for o in statement.operands))


def _names(expression: str, bases: set[str]) -> bool:
    return any(word in bases for word in _WORD.findall(expression))


def _statement_node(parsed: ParsedSource, statement: AsmStatement) -> Node | None:
    """The block item that is ``statement`` (its expression statement)."""
    start = parsed.to_byte(statement.span.start)
    node = parsed.tree.root_node.descendant_for_byte_range(start, start)
    while node is not None and node.type != "expression_statement":
        if node.type in ("compound_statement", "function_definition", "translation_unit"):
            return None
        node = node.parent
    if node is None or node.parent is None or node.parent.type != "compound_statement":
        return None
    return node


def _asm_expression(node: Node) -> Node | None:
    """The asm expression that block item ``node`` is, where it is one and nothing more."""
    if node.type != "expression_statement" or node.named_child_count != 1:
        return None
    inner = node.named_children[0]
    return inner if inner.type == "gnu_asm_expression" else None


def _asm_at(parsed: ParsedSource, node: Node, statements: Sequence[AsmStatement]
            ) -> AsmStatement | None:
    """The asm statement that block item ``node`` is, where it is one and nothing more."""
    inner = _asm_expression(node)
    if inner is None:
        return None
    start = parsed.to_char(inner.start_byte)
    end = parsed.to_char(inner.end_byte)
    for candidate in statements:  # (asked only after a statement qualified: rare)
        if start <= candidate.span.start < end:
            return candidate
        if candidate.span.start >= end:
            break
    return None
