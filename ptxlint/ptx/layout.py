"""How a template is laid out in the source: its string pieces, their quotes, its line breaks.

Fixes that insert text into a template (wrap it in ``{ }``, add a missing ``;``) must write it
the way the file already does: inside the quotes of a plain or raw string literal, with the
file's own spelling of a line break (``\\n\\t`` in a quoted string, a real newline in a raw one).
These helpers answer those questions from the model only; nothing here re-parses C++.
"""

from __future__ import annotations

import bisect
from typing import NamedTuple

from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement, Edit, Span, Template, TemplatePiece

__all__ = [
    "STRING_PIECES",
    "PieceText",
    "literal_content",
    "piece_texts",
    "source_spelling",
    "line_break_spelling",
    "wrap_in_braces",
]

_BLANK = " \t\r\n\f\v"
_PY_QUOTE = on_first_use(r"[A-Za-z]{0,2}(\'\'\'|\"\"\"|\'|\")")


# The kinds of template piece that are string literals (a C++ literal, raw or not; a Python
# string or f-string): PTX205 reports a boundary between two of them.
STRING_PIECES = ("string", "raw", "pystring", "pyfstring")

class PieceText(NamedTuple):
    """A template piece and the range ``[start, end)`` of ``Template.text`` it produced."""

    piece: TemplatePiece
    start: int
    end: int


def piece_texts(template: Template) -> tuple[PieceText, ...]:
    """Each piece with its range in the assembled text, computed from the source map.

    Derived from ``char_starts`` (every template character knows its source offset, and pieces
    appear in source order) rather than trusted from ``TemplatePiece.text_start``, so it holds
    for every piece however the pieces were counted.
    """
    starts = template.char_starts
    if any(b < a for a, b in zip(starts, starts[1:], strict=False)):
        # Pieces out of source order (a Python string built from a constant defined below
        # its use): the assembly's own ranges are the only map.
        return tuple(PieceText(p, p.text_start, p.text_end) for p in template.pieces)
    out: list[PieceText] = []
    for piece in template.pieces:
        lo = bisect.bisect_left(starts, piece.span.start)
        hi = bisect.bisect_left(starts, piece.span.end, lo)
        out.append(PieceText(piece, lo, hi))
    return tuple(out)


def literal_content(source_text: str, piece: TemplatePiece) -> Span | None:
    """The source span between a literal's quotes (``R"d(`` and ``)d"`` for raw strings).

    ``None`` for macros and for literals whose spelling is not the expected shape.
    """
    text = source_text[piece.span.start : piece.span.end]
    if piece.kind == "pystring":  # a Python literal: prefix letters, then one of four quotes
        m = _PY_QUOTE().match(text)
        if m is None or not text.endswith(m.group(1)) or len(text) < m.end() + len(m.group(1)):
            return None
        return Span(piece.span.start + m.end(), piece.span.end - len(m.group(1)))
    quote = text.find('"')
    if quote < 0 or not text.endswith('"') or len(text) < quote + 2:
        return None
    if piece.kind == "string":
        return Span(piece.span.start + quote + 1, piece.span.end - 1)
    if piece.kind == "raw":
        paren = text.find("(", quote)
        if paren < 0:
            return None
        closing = ")" + text[quote + 1 : paren] + '"'
        if not text.endswith(closing) or len(text) - len(closing) < paren + 1:
            return None
        return Span(piece.span.start + paren + 1, piece.span.end - len(closing))
    return None


def source_spelling(statement: AsmStatement, start: int, end: int) -> str:
    """How template characters ``[start, end)`` are written in the source (escapes kept)."""
    template = statement.template
    text = statement.source.text
    return "".join(text[template.char_starts[i] : template.char_ends[i]] for i in range(start, end))


def line_break_spelling(statement: AsmStatement) -> tuple[str, str] | None:
    """The source spelling of the template's first line break and of the indentation after it.

    ``("\\\\n", "\\\\t")`` for ``"...;\\n\\t..."``, ``("\\n", "  ")`` for a raw string indented with
    two spaces; ``None`` when the template has no line break.
    """
    text = statement.template.text
    newline = text.find("\n")
    if newline < 0:
        return None
    indent_end = newline + 1
    while indent_end < len(text) and text[indent_end] in " \t":
        indent_end += 1
    return (
        source_spelling(statement, newline, newline + 1),
        source_spelling(statement, newline + 1, indent_end),
    )


def wrap_in_braces(statement: AsmStatement) -> tuple[Edit, Edit] | None:
    """Edits that put the whole template inside one ``{ }`` scope, in the file's own layout.

    ``{`` goes right after the opening quote of the first piece and ``}`` right before the
    closing quote of the last; both must be plain or raw string literals, each placed in the
    template once (not a separator ``str.join`` repeats, nor a line a loop appends). With line
    breaks in the template the braces get lines of their own (``{\\n\\t`` ... ``\\n\\t}``,
    reusing the file's spelling); without, they are set off by spaces (``{ ... }``).
    """
    pieces = statement.template.pieces
    if not pieces:
        return None
    spans = [p.span for p in pieces]
    if spans.count(pieces[0].span) > 1 or spans.count(pieces[-1].span) > 1:
        # the literal is placed more than once (a loop's line, a join's separator): a brace
        # in it would be repeated with it
        return None
    source_text = statement.source.text
    first = literal_content(source_text, pieces[0])
    last = literal_content(source_text, pieces[-1])
    if first is None or last is None:
        return None
    text = statement.template.text
    layout = line_break_spelling(statement)
    if layout is None:
        opening, closing = "{ ", " }"
    else:
        newline, indent = layout
        head = text[: len(text) - len(text.lstrip(_BLANK))]
        # A template that already starts or ends with a line break gets just the brace there.
        opening = "{" if "\n" in head else "{" + newline + indent
        tail = text[len(text.rstrip(_BLANK)) :]
        closing = "}" if "\n" in tail else newline + "}"
    if text[:1] in _BLANK and layout is None:
        opening = "{"
    if text[-1:] in _BLANK and layout is None:
        closing = "}"
    return (Edit(Span(first.start, first.start), opening), Edit(Span(last.end, last.end), closing))
