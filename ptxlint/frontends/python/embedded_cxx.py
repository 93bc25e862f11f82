"""CUDA C++ held in Python strings (CuPy RawKernel/RawModule/ElementwiseKernel, cuda.core
Program, PyTorch's load_inline, PyCUDA's SourceModule, Warp's func_native snippets): the
string's value is linted by the C++ front end as a virtual ``.cu`` file, and every position
of the result is mapped back into the ``.py`` file through the string's map."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ptxlint.frontends.cxx.extract import extract
from ptxlint.frontends.extraction import ExtractionResult
from ptxlint.frontends.sourced import Sourced
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
    return out


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
