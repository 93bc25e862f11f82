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

Only what the text shows for certain counts. The two are items of one block with nothing
between them but comments, ``#pragma`` lines and other asm statements that name none of the
outputs' variables (read off the tree: any other statement, a label or an ``#if`` block ends
the search); each output is a plain place (``x``,
``c[2]``, ``acc.x``, ``c[1].y``: a variable, constant subscripts, members), compared as
written; the later statement's inputs may name another constant element of the same array
(``C[4]`` after ``C[0]``) but nothing else of those variables (``C``, ``C[i]``, ``*C``).
Statements in macros or from their expansions, or under different ``#if`` guards, are not
compared.
"""

from __future__ import annotations

from collections.abc import Sequence

import tree_sitter

from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.template_refs import refs_of
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement
from ptxlint.value_class import value_class

__all__ = ["Overwrite", "overwritten_result", "place_of"]

Node = tree_sitter.Node

# A place the text names for certain: a variable, then constant subscripts and members.
_PLACE = on_first_use(r"[A-Za-z_]\w*(?:\[\d+[uUlL]*\]|\.[A-Za-z_]\w*)*")
_WORD = on_first_use(r"[A-Za-z_]\w*")
# Block items that run nothing: comments and #pragma lines.
_INERT = frozenset({"comment", "preproc_call"})
# How many asm statements between the two are looked through (an unrolled MMA tile's).
_PASSED_OVER = 32


@value_class(slots=False)
class Overwrite:
    """The statement whose every result is lost, and the places written again."""

    earlier: AsmStatement
    places: tuple[str, ...]
    again: tuple[int, ...]  # the later statement's outputs that write them, in that order


def place_of(expression: str) -> str | None:
    """The place an operand expression names for certain, spaces and outer parentheses
    removed; None where it names no such place."""
    text = "".join(expression.split())
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    return text if _PLACE().fullmatch(text) else None


def _base(place: str) -> str:
    match = _WORD().match(place)
    return match.group() if match is not None else place


def overwritten_result(statement: AsmStatement, statements: Sequence[AsmStatement],
                       parsed: ParsedSource) -> Overwrite | None:
    """The asm statement before ``statement`` whose every result ``statement`` writes again
    before anything reads them (see the module's docstring), or None. ``statements``: the
    file's, in source order; ``parsed``: its tree.

    The block items before ``statement`` are read off the tree, and ``statements`` only for
    the one whose outputs its text shows written again: a file linted on a tree that left
    functions out is linted again on the whole tree once a rule reads its statements
    (``engine.AskedStatements``)."""
    if _from_macro(statement) or not statement.outputs:
        return None
    text = statement.source.text
    if text is not parsed.text or not _may_follow_asm(text, statement.span.start):
        return None
    node = _block_item(parsed, statement)
    if node is None:
        return None
    passed: list[str] = []  # the operand texts of the asm statements passed over
    sibling = node.prev_named_sibling
    for _ in range(_PASSED_OVER + 1):
        if sibling is None:
            return None
        if sibling.type in _INERT:
            sibling = sibling.prev_named_sibling
            continue
        asm = _asm_expression(sibling)
        if asm is None:
            return None
        values = _operand_values(parsed, asm)
        places = [place_of(v) for v in values[0]]
        written = tuple(p for p in places if p is not None)
        bases = {_base(p) for p in written}
        if written and len(written) == len(places) \
                and (again := _written_again(statement, written, bases)) is not None:
            if any(_names(v, bases) for v in passed):
                return None  # one between reads or writes them
            earlier = _statement_at(statements, parsed.to_char(asm.start_byte))
            if earlier is None or _from_macro(earlier) \
                    or earlier.context.guards != statement.context.guards:
                return None
            return _lost(earlier, statement, Overwrite(earlier, written, tuple(again)))
        passed.extend(values[0] + values[1])
        sibling = sibling.prev_named_sibling
    return None


def _may_follow_asm(text: str, start: int) -> bool:
    """Whether the text before ``start`` may end a statement: past blanks, a ``;``, a comment
    or a ``#pragma`` line (the tree decides; this spares asking it for the statement that
    opens a block, follows a brace or a label)."""
    head = text[max(0, start - 256):start].rstrip()
    if not head:
        return False
    last_line = head[head.rfind("\n") + 1:].lstrip()
    return head[-1] in ";/" or last_line.startswith("#") or "//" in last_line


def _block_item(parsed: ParsedSource, statement: AsmStatement) -> Node | None:
    """The expression statement of a block that ``statement`` is."""
    start = parsed.to_byte(statement.span.start)
    node = parsed.tree.root_node.descendant_for_byte_range(start, start)
    while node is not None and node.type != "expression_statement":
        if node.type in ("compound_statement", "function_definition", "translation_unit"):
            return None
        node = node.parent
    if node is None or node.parent is None or node.parent.type != "compound_statement":
        return None
    return node if _asm_expression(node) is not None else None


def _asm_expression(node: Node) -> Node | None:
    """The asm expression that block item ``node`` is, where it is one and nothing more."""
    if node.type != "expression_statement" or node.named_child_count != 1:
        return None
    inner = node.named_children[0]
    return inner if inner.type == "gnu_asm_expression" else None


def _operand_values(parsed: ParsedSource, asm: Node) -> tuple[list[str], list[str]]:
    """The texts of an asm expression's output values and input values, as written."""
    found: tuple[list[str], list[str]] = ([], [])
    for k, field in enumerate(("output_operands", "input_operands")):
        operands = asm.child_by_field_name(field)
        for operand in operands.named_children if operands is not None else ():
            value = operand.child_by_field_name("value")
            if value is not None:
                found[k].append(parsed.node_text(value))
    return found


def _statement_at(statements: Sequence[AsmStatement], start: int) -> AsmStatement | None:
    """The statement of ``statements`` (source order) that starts at character ``start``."""
    for candidate in statements:  # (asked only of a pair whose text qualifies: rare)
        if candidate.span.start == start:
            return candidate
        if candidate.span.start > start:
            break
    return None


def _from_macro(statement: AsmStatement) -> bool:
    """The statement is a macro's body or comes from expanding one: its neighbours in the
    text are not its neighbours in every expansion."""
    return statement.context.macro is not None or statement.context.expansion is not None


def _lost(earlier: AsmStatement, later: AsmStatement, found: Overwrite) -> Overwrite | None:
    """``found``, where what the text shows holds for the statements themselves: both are
    read whole, ``earlier`` computes only its outputs, and ``later`` writes each of them on
    every path. The statements' analyses (kept per statement for the file) are made only
    for such a pair."""
    if _unreadable(earlier) or _unreadable(later):
        return None
    analysis = analysis_of(earlier)
    if analysis.side_effects or analysis.memory_effects:
        return None
    later_analysis = analysis_of(later)
    flow = later_analysis.flow
    # an output written on some paths only may keep the old value: PTX103's finding
    if flow is None or any(index not in flow.definite for index in found.again):
        return None
    # an output the template reads before it writes it continues the earlier result: the
    # '=' that should be '+' is the one defect (PTX106's root, ``undefined-read``), and once
    # mended the result is read, not lost
    if any(index in later_analysis.undefined_reads for index in found.again):
        return None
    return found


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
    return any(word in bases for word in _WORD().findall(expression))
