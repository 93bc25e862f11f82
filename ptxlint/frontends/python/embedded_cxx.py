"""CUDA C++ held in Python strings (CuPy RawKernel/RawModule/ElementwiseKernel, cuda.core
Program, PyTorch's load_inline, PyCUDA's SourceModule, Warp's func_native snippets): the
string's value is linted by the C++ front end as a virtual ``.cu`` file, and every position
of the result is mapped back into the ``.py`` file through the string's map."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from ptxlint.frontends.cxx.extract import extract
from ptxlint.frontends.extraction import ExtractionResult
from ptxlint.frontends.python.pystrings import PY_FSTRING, PY_STRING
from ptxlint.frontends.sourced import Sourced
from ptxlint.frontends.statement_problems import broken_literal, broken_literals
from ptxlint.model import (
    AsmStatement,
    Clobber,
    Constraint,
    Operand,
    Qualifier,
    SourceFile,
    Span,
    Template,
    TemplatePiece,
)


class _Map:
    def __init__(self, sourced: Sourced) -> None:
        self.starts = sourced.starts
        self.ends = sourced.ends
        self.n = len(sourced.text)

    def start(self, offset: int) -> int:
        if self.n == 0:
            return 0
        if offset >= self.n:
            return self.ends[-1]
        return self.starts[max(0, offset)]

    def end(self, offset: int) -> int:
        if self.n == 0:
            return 0
        if offset <= 0:
            return self.starts[0]
        return self.ends[min(offset, self.n) - 1]

    def span(self, span: Span) -> Span:
        start = self.start(span.start)
        if span.end <= span.start:
            return Span(start, start)
        return Span(start, max(start, self.end(span.end)))


def extract_embedded(
    source: SourceFile,
    code: Sourced,
    parse_template: Callable[..., Any],
    type_lookup: Callable[..., Any] | None,
) -> ExtractionResult:
    virtual = SourceFile(source.path + ".cu", code.text)
    inner = extract(virtual, parse_template, type_lookup)
    mapping = _Map(code)
    out = ExtractionResult()
    for statement in inner.statements:
        out.statements.append(_remap_statement(statement, source, mapping))
    out.skipped = [(mapping.start(offset), reason) for offset, reason in inner.skipped]
    out.left_out = [
        _remap_statement(_with_escapes(s, code, source.text), source, mapping)
        for s in inner.left_out
    ]
    return out


def _with_escapes(statement: AsmStatement, code: Sourced, text: str) -> AsmStatement:
    """``statement`` (left out: a literal of its template runs to the end of its line), each
    such literal's problem saying how the Python string spells that line break where an escape
    of a string that is not raw made it (``\\n``: two characters of the source for one of
    the C++ text); a raw string holds an escape as written, so only a line break it holds
    as such breaks its literals."""
    pieces = statement.template.pieces
    problems = list(statement.problems)
    for k, problem in enumerate(problems):
        for piece, _, _ in broken_literals((problem,)):
            end = pieces[piece].span.end  # the line break the literal runs to, if any
            if end < len(code.text) and code.text[end] == "\n":
                start, stop = code.starts[end], code.ends[end]
                if stop - start > 1:
                    problems[k] = broken_literal(piece, text[start:stop],
                                                 _opening(code, start, text))
    return dataclasses.replace(statement, problems=tuple(problems))


_OPENING = re.compile(r"[A-Za-z]*(?:\"\"\"|\'\'\'|\"|\')")


def _opening(code: Sourced, at: int, text: str) -> str:
    """The prefix and opening quotes of the Python string literal whose characters hold source
    offset ``at`` (``f\"\"\"``), or "" (the innermost literal piece of ``code`` around it)."""
    around = [p.span for p in code.pieces if p.kind in (PY_STRING, PY_FSTRING)
              and p.span.start <= at < p.span.end]
    if not around:
        return ""
    span = min(around, key=lambda s: s.end - s.start)
    found = _OPENING.match(text, span.start, span.end)
    return found.group() if found is not None else ""


def _remap_statement(statement: AsmStatement, source: SourceFile, m: _Map) -> AsmStatement:
    template = statement.template
    char_starts = tuple(m.start(s) for s in template.char_starts)
    char_ends = tuple(m.end(e) for e in template.char_ends)
    pieces = tuple(
        TemplatePiece(p.kind, m.span(p.span), p.text_start, p.text_end) for p in template.pieces
    )
    return dataclasses.replace(
        statement,
        source=source,
        span=m.span(statement.span),
        qualifiers=tuple(Qualifier(q.name, m.span(q.span)) for q in statement.qualifiers),
        template=Template(template.text, char_starts, char_ends, pieces),
        operands=tuple(_remap_operand(o, m) for o in statement.operands),
        clobbers=tuple(Clobber(c.name, m.span(c.span)) for c in statement.clobbers),
        colons=tuple(m.start(c) for c in statement.colons),
        open_paren=m.start(statement.open_paren),
        close_paren=m.start(statement.close_paren),
        context=dataclasses.replace(statement.context, embedded_in="python"),
        missing_commas=tuple((m.start(a), m.start(b)) for a, b in statement.missing_commas),
    )


def _remap_operand(operand: Operand, m: _Map) -> Operand:
    c = operand.constraint
    return dataclasses.replace(
        operand,
        constraint=Constraint(c.text, c.modifiers, c.letters, m.span(c.span), c.opaque),
        expression_span=m.span(operand.expression_span),
        span=m.span(operand.span),
    )


def is_embedded(statement: AsmStatement) -> bool:
    return statement.context.embedded_in == "python"
