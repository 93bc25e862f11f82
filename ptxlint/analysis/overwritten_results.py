"""Whether an asm statement writes again every result of the one before it, unread.

An asm statement whose template has no effect beyond its outputs (no memory access, ordering,
barrier or changing special register: :func:`.effects.side_effects` is empty) is a function of
its inputs. When a later asm statement of the same block writes each of its outputs again as a
write-only (``=``) output, on every path through its template, and reads none of them, its
results are lost: a non-volatile one is deleted by the compiler, a volatile one runs for
nothing. Shipped, it was a copy of a statement whose output list was not changed
(``"=f"(C[0])`` twice where the second meant ``C[4]``) or an accumulator chain broken (the
second ``mma`` given ``0.f`` where it meant the first's ``C``): the later statement is where the
fix goes, and where PTX109 reports.

Only what the text shows for certain counts. Between the two there is nothing but the first
one's ``;``, blanks, comments, ``#pragma`` lines and other asm statements that name none of the
outputs' variables (read off the file's text between the statements' spans: any other code, a
brace, a label or an ``#if`` line ends the search); each output is a plain place (``x``,
``c[2]``, ``acc.x``, ``c[1].y``: a variable, constant subscripts, members), compared as
written; the later statement's inputs may name another constant element of the same array
(``C[4]`` after ``C[0]``) but nothing else of those variables (``C``, ``C[i]``, ``*C``).
Statements in macros or from their expansions, or under different ``#if`` guards, are not
compared.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ptxlint import file_memos
from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.template_refs import refs_of
from ptxlint.model import AsmStatement

__all__ = ["Overwrite", "overwritten_result", "place_of"]

# A place the text names for certain: a variable, then constant subscripts and members.
_PLACE = re.compile(r"[A-Za-z_]\w*(?:\[\d+[uUlL]*\]|\.[A-Za-z_]\w*)*")
_WORD = re.compile(r"[A-Za-z_]\w*")
# What may lie between two statements of a block that runs nothing: the first one's ``;``,
# blanks, comments and ``#pragma`` lines (each alternative starts with its own byte: the
# match is linear). ``#if`` lines, braces, labels or any other code make them no neighbours.
# How many asm statements between the two are looked through (an unrolled MMA tile's).
_PASSED_OVER = 32
_INERT_TEXT = re.compile(r";?(?:\s|//[^\n]*|/\*.*?\*/|#[ \t]*pragma[^\n]*)*", re.S)


@dataclass(frozen=True)
class Overwrite:
    """The statement whose every result is lost, and the places written again."""

    earlier: AsmStatement
    places: tuple[str, ...]


def place_of(expression: str) -> str | None:
    """The place an operand expression names for certain, spaces and outer parentheses
    removed; None where it names no such place."""
    text = "".join(expression.split())
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    return text if _PLACE.fullmatch(text) else None


def _base(place: str) -> str:
    match = _WORD.match(place)
    return match.group() if match is not None else place


def overwritten_result(statement: AsmStatement, statements: Sequence[AsmStatement]
                       ) -> Overwrite | None:
    """The asm statement before ``statement`` whose every result ``statement`` writes again
    before anything reads them (see the module's docstring), or None. ``statements``: the
    file's, in source order."""
    if _from_macro(statement) or not statement.outputs:
        return None
    text = statement.source.text
    at = _position(statements, statement)
    between: list[AsmStatement] = []  # asm statements passed over, nearest first
    later = statement
    while at > 0 and len(between) < _PASSED_OVER:
        at -= 1
        earlier = statements[at]
        if earlier.source is not statement.source or _from_macro(earlier) \
                or earlier.context.guards != statement.context.guards \
                or _INERT_TEXT.fullmatch(text, earlier.span.end, later.span.start) is None:
            return None  # most statements: the one before is not right before it
        found = _lost(earlier, statement)
        if found is not None:
            bases = {_base(p) for p in found.places}
            if any(_names(o.expression, bases) for s in between for o in s.operands):
                return None  # one between reads or writes them
            return found
        between.append(earlier)
        later = earlier
    return None


def _from_macro(statement: AsmStatement) -> bool:
    """The statement is a macro's body or comes from expanding one: its neighbours in the
    text are not its neighbours in every expansion."""
    return statement.context.macro is not None or statement.context.expansion is not None


def _lost(earlier: AsmStatement, later: AsmStatement) -> Overwrite | None:
    """``earlier``'s results, all written again by ``later`` unread, or None. What the text
    shows is asked first; the statements' analyses (kept per statement for the file) only of
    a pair that passes it."""
    written = _places_of(earlier)
    if not written or _unreadable(earlier) or _unreadable(later):
        return None
    again = _written_again(later, written, {_base(p) for p in written})
    if again is None:
        return None
    analysis = analysis_of(earlier)
    if analysis.side_effects or analysis.memory_effects:
        return None
    flow = analysis_of(later).flow
    # an output written on some paths only may keep the old value: PTX103's finding
    if flow is None or any(index not in flow.definite for index in again):
        return None
    return Overwrite(earlier, written)


def _places_of(statement: AsmStatement) -> tuple[str, ...]:
    """The places of the statement's outputs, or () where one is not a place (or none is
    an output)."""
    places = [place_of(o.expression) for o in statement.operands if o.role == "output"]
    if not places or any(p is None for p in places):
        return ()
    return tuple(p for p in places if p is not None)


def _position(statements: Sequence[AsmStatement], statement: AsmStatement) -> int:
    """``statement``'s index in ``statements``: the engine asks of a file's statements in
    order, so the one after the last one asked, as a rule; else a search."""
    last = _LAST[0] if _LAST and _LAST[0][0] is statements else None
    if last is not None:
        k = last[1] + 1
        if k < len(statements) and statements[k] is statement:
            _LAST[0] = (statements, k)
            return k
    for k, candidate in enumerate(statements):
        if candidate is statement:
            _LAST[:] = [(statements, k)]
            return k
    return 0


# the last statement asked about, as (the file's statements, its index)
_LAST: list[tuple[Sequence[AsmStatement], int]] = []
file_memos.register(_LAST.clear)


def _written_again(later: AsmStatement, written: tuple[str, ...], bases: set[str]
                   ) -> list[int] | None:
    """The outputs of ``later`` that write the places of ``written`` again as write-only
    outputs, where they cover them all and ``later`` reads none of the variables they belong
    to but other constant elements; None otherwise."""
    again: dict[str, int] = {}
    for operand in later.operands:
        place = place_of(operand.expression)
        if operand.role == "output":
            if "+" in operand.constraint.modifiers:
                if _names(operand.expression, bases):
                    return None  # read before it is written
                continue
            if place is not None:
                again.setdefault(place, operand.index)
            elif _names(operand.expression, bases):
                return None
        elif _names(operand.expression, bases) and (place is None or place in written):
            return None  # an input that reads one of the places, or may
    if not all(p in again for p in written):
        return None
    return [again[p] for p in written]


def _unreadable(statement: AsmStatement) -> bool:
    """Part of the statement is a macro ptxlint could not read, its template has none of the
    instructions it shows, or it spells a register with one `%` where it takes two (PTX008's
    ``%clock``, which nvcc passes on as the register): what it reads and writes is not known
    for certain, and its own finding comes first."""
    return (statement.opaque_sections or not statement.ptx.instructions
            or any(i.opaque for i in statement.ptx.instructions)
            or any(o.constraint.opaque for o in statement.operands)
            or any(t.kind in ("bare", "trailing") for t in refs_of(statement).escapes))


def _names(expression: str, bases: set[str]) -> bool:
    return any(word in bases for word in _WORD.findall(expression))
