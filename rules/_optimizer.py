"""Shared by PTX101-PTX106: the exact edits that tell the optimizer what a template does
(``volatile``, a ``"memory"`` clobber, ``+``); the effects themselves are the analysis's
(:mod:`ptxlint.analysis.effects`). Not a rule module (rules/__init__ collects ``ptx*`` only)."""

from __future__ import annotations

from ptxlint.file_traits import spells_volatile_underscores
from ptxlint.model import AsmStatement, Edit, Fix, Operand, Span

# --------------------------------------------------------------------------- fixes


def volatile_spelling(statement: AsmStatement) -> str:
    """``__volatile__`` where the statement or its file spells it so, else ``volatile``."""
    if statement.keyword != "asm" or spells_volatile_underscores(statement.source):
        return "__volatile__"
    return "volatile"


def add_volatile(statement: AsmStatement) -> Fix | None:
    text = statement.source.text
    start = statement.span.start
    end = start + len(statement.keyword)
    if text[start:end] != statement.keyword:
        return None  # the keyword is not spelled here (a macro)
    word = volatile_spelling(statement)
    return Fix(f"Add '{word}' after '{statement.keyword}'", (Edit(Span(end, end), " " + word),))


def _last_element_end(statement: AsmStatement) -> int:
    ends = [piece.span.end for piece in statement.template.pieces]
    ends += [o.span.end for o in statement.operands]
    ends += [c.span.end for c in statement.clobbers]
    ends += [c + 1 for c in statement.colons]
    return max(ends, default=statement.open_paren + 1)


def add_memory_clobber(statement: AsmStatement) -> Fix | None:
    """Append ``"memory"`` to the clobbers, creating the missing colon sections."""
    if statement.opaque_sections or statement.goto_labels:
        return None
    text = statement.source.text
    colons = statement.colons
    if len(colons) >= 3:
        if statement.clobbers:
            at = statement.clobbers[-1].span.end
            return _fix(Span(at, at), ', "memory"')
        at = colons[2] + 1
        return _fix(Span(at, at), ' "memory"')
    at = _last_element_end(statement)
    # Only blanks may separate the last element from ')': never insert into a comment.
    if text[at : statement.close_paren].strip():
        return None
    if not colons and "%" in statement.template.text:
        return None  # basic -> extended would change what '%' means
    sections = {0: ' ::: "memory"', 1: ' :: "memory"', 2: ' : "memory"'}[len(colons)]
    return _fix(Span(at, at), sections)


def _fix(span: Span, new_text: str) -> Fix:
    return Fix('Add a "memory" clobber', (Edit(span, new_text),))


def make_read_write(statement: AsmStatement, index: int) -> Fix | None:
    """Turn output ``index``'s ``=`` into ``+`` inside its constraint literal."""
    operand = statement.operands[index]
    at = equals_in_source(statement, operand)
    source = statement.source.text
    if at is None or not source.startswith('"', operand.constraint.span.start):
        return None
    return Fix(f"Declare operand %{index} read-write ('+')", (Edit(Span(at, at + 1), "+"),))


def equals_in_source(statement: AsmStatement, operand: Operand) -> int | None:
    """The source offset of the one ``=`` of ``operand``'s constraint, where the source spells
    the constraint there (not through a macro, and with that one ``=``): where a fix edits the
    output's modifiers (PTX106's ``+``, PTX108's ``&``)."""
    constraint = operand.constraint
    if constraint.opaque:
        return None
    literal = statement.source.text[constraint.span.start : constraint.span.end]
    if literal.count("=") != 1:
        return None
    return constraint.span.start + literal.index("=")
