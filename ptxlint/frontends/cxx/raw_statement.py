"""The plain reader's readings (``plain_reader.read_plain``), kept by the statement's text and moved
onto the next statement spelled the same: across flashinfer, whole statements repeat about 4.5
times, mostly in other files (a header copied into many projects' folders).

A plain reading is a function of the statement's text alone, from its keyword to its closing
parenthesis, with every offset relative to its start:
- the reader starts at the keyword and never looks back;
- it stops at the closing parenthesis: each pattern that can consume it ends with it, so no
  character after it is read;
- nothing of the file (its path, its macros, its syntax tree) is read;
- its one absolute offset in text, the "missing ','" problem's message, is never stored: a
  reading with problems or missing commas is read again at each place.

So a reading kept under the text ``text[start:end]`` is exactly what reading at another place
with the same text from its keyword would give, moved by the distance between the two starts
(tests/test_reading_memo.py holds a moved reading to a direct read there, field by field). The
caller's guess of where a statement ends (tree-sitter's ``gnu_asm_expression``) only picks the
key to look up: a wrong guess finds nothing, or finds a reading of that same text.

What is kept is the first reading itself (no file, statement or syntax tree): a recall makes
every object anew and leaves the operands untyped, so that a statement's objects stay its own.
``extract._finish`` types operands in place, the kept reading's too; a move never reads a type.
What a reading leaves to be made when first read (its spans, its template's source map:
``model.set_operand_offsets``, ``set_source_map``) is moved as it is, made where read.

Cost: ``recall`` is O(length of the statement) in C (a slice, its hash, one comparison) plus
O(operands + pieces + qualifiers + clobbers) objects made. ``remember`` is a slice and a
dictionary store. A hit costs about two thirds of a read (the objects are most of a read's
cost): over flashinfer's 150-file sample, 65% of plain statements are hits and, with 4,096
entries, the reader ran 31% fewer instructions (callgrind: 8,056 M -> 5,540 M). Leaving the
source maps unmoved then took a further quarter off: the 25,578 plain statements of
flashinfer's include/, csrc/gdn and csrc/cake_fmha (90% hits), replayed through
``_read_plain_here``'s steps by a script, 0.52 s -> 0.39 s of CPU (on only 458 of 23,052
moved templates is the map read at all).

One memo per process, least recently used first out, at most ``MEMO_SIZE`` statements. An
entry holds its reading's objects, about 7.4 KB on that sample (30 MB at 4,096 entries, most
of it spans, their offsets and the source maps), so the bound is 2,048 (15 MB; less since
spans and maps are made when first read: over flashinfer's 3,922 plain statements a reading
took 7.1 KB, now 5.3 KB). On the sample it finds 13,709 of the 15,347 hits that 4,096 entries
find (unbounded: 15,637). Where statements rarely repeat it buys little: over the CUDA 13
headers (``check -j 1``) it finds 172 of 3,488 statements (5%).
"""

from __future__ import annotations

from dataclasses import dataclass

from ptxlint.lru import Lru
from ptxlint.model import (
    Clobber,
    Constraint,
    Operand,
    Qualifier,
    Span,
    Template,
    TemplatePiece,
    constraint_start,
    operand_offsets,
    set_constraint_start,
    set_operand_offsets,
    set_source_map,
    slot_setters,
    source_map,
)

MEMO_SIZE = 2048


@dataclass
class RawStatement:
    """A statement as read, before its context's verdict and its operands' types. Its
    operands are its own, made for this reading and shared with nothing: ``_finish`` sets
    their types in place (``_with_ctype``)."""

    qualifiers: tuple[Qualifier, ...]
    extended: bool
    template: Template
    operands: tuple[Operand, ...]
    clobbers: tuple[Clobber, ...]
    goto_labels: tuple[str, ...]
    colons: tuple[int, ...]
    open_paren: int
    end: int
    problems: tuple[str, ...]
    opaque_sections: bool
    missing_commas: tuple[tuple[int, int], ...]


# A reading's objects are filled slot by slot (``model.slot_setters``), without the frozen
# dataclasses' __init__: a fifth of the reader's time on CUTLASS's GMMA header. Span's
# __post_init__ check (end >= start) holds by construction where they are made.
new = object.__new__
SPAN_START, SPAN_END = slot_setters(Span, ("start", "end"))
C_TEXT, C_MODIFIERS, C_LETTERS, C_SPAN, C_OPAQUE = slot_setters(
    Constraint, ("text", "modifiers", "letters", "span", "opaque")
)
PIECE_KIND, PIECE_SPAN, PIECE_TEXT_START, PIECE_TEXT_END = slot_setters(
    TemplatePiece, ("kind", "span", "text_start", "text_end")
)
T_TEXT, _T_CHAR_STARTS, _T_CHAR_ENDS, T_PIECES = slot_setters(
    Template, ("text", "char_starts", "char_ends", "pieces")
)
(O_INDEX, O_ROLE, O_CONSTRAINT, O_EXPRESSION, O_EXPRESSION_SPAN, O_SPAN, O_NAME,
 O_CTYPE) = slot_setters(
    Operand,
    ("index", "role", "constraint", "expression", "expression_span", "span", "symbolic_name",
     "ctype"),
)  # fmt: skip
_Q_NAME, _Q_SPAN = slot_setters(Qualifier, ("name", "span"))
_CL_NAME, _CL_SPAN = slot_setters(Clobber, ("name", "span"))


class Memo(Lru[str, tuple[str, int, RawStatement]]):
    """Statement text -> (its keyword, where it was read, its reading)."""

    def __init__(self, size: int = MEMO_SIZE) -> None:
        super().__init__(size)


MEMO = Memo()


def recall(text: str, start: int, end: int, keyword: str) -> RawStatement | None:
    """The reading kept for the statement spelled ``text[start:end]`` (its keyword at
    ``start``), moved to ``start``; None where none is kept."""
    entry = MEMO.get(text[start:end])
    if entry is None or entry[0] != keyword:
        return None
    return _moved(entry[2], start - entry[1])


def remember(text: str, start: int, keyword: str, raw: RawStatement) -> None:
    """Keep ``raw``, ``_read_plain``'s reading of the statement at ``start``, under its text;
    not one with problems (their messages hold offsets) or missing commas."""
    if not raw.problems and not raw.missing_commas:
        MEMO.put(text[start : raw.end], (keyword, start, raw))


def _moved(raw: RawStatement, d: int) -> RawStatement:
    """``raw`` moved by ``d`` characters: every object made anew, its operands untyped (``raw``'s
    own may have been typed in place since), what it left to be made moved. Inlined: a
    hit's cost is these objects, about 40 setter calls for an average statement."""
    old = raw.template
    template = new(Template)
    T_TEXT(template, old.text)
    old_map = source_map(old)
    assert old_map is not None  # the plain reader's: its arrays made where read
    set_source_map(template, old_map.moved(d))
    pieces: list[TemplatePiece] = []
    for was_piece in old.pieces:
        span = new(Span)
        SPAN_START(span, was_piece.span.start + d)
        SPAN_END(span, was_piece.span.end + d)
        piece = new(TemplatePiece)
        PIECE_KIND(piece, was_piece.kind)
        PIECE_SPAN(piece, span)
        PIECE_TEXT_START(piece, was_piece.text_start)
        PIECE_TEXT_END(piece, was_piece.text_end)
        pieces.append(piece)
    T_PIECES(template, tuple(pieces))
    operands: list[Operand] = []
    for was_operand in raw.operands:
        # the plain reader's objects, their spans (still to be made, or made since) moved
        was_constraint = was_operand.constraint
        at = constraint_start(was_constraint)
        assert at is not None  # the plain reader made it
        constraint = new(Constraint)
        C_TEXT(constraint, was_constraint.text)
        C_MODIFIERS(constraint, was_constraint.modifiers)
        C_LETTERS(constraint, was_constraint.letters)
        C_OPAQUE(constraint, was_constraint.opaque)
        set_constraint_start(constraint, at + d)
        operand = new(Operand)
        O_INDEX(operand, was_operand.index)
        O_ROLE(operand, was_operand.role)
        O_CONSTRAINT(operand, constraint)
        O_EXPRESSION(operand, was_operand.expression)
        O_NAME(operand, was_operand.symbolic_name)
        O_CTYPE(operand, None)
        start, end, expression_start = operand_offsets(was_operand)
        set_operand_offsets(operand, (start + d, end + d, expression_start + d))
        operands.append(operand)
    qualifiers: list[Qualifier] = []
    for was_qualifier in raw.qualifiers:
        span = new(Span)
        SPAN_START(span, was_qualifier.span.start + d)
        SPAN_END(span, was_qualifier.span.end + d)
        qualifier = new(Qualifier)
        _Q_NAME(qualifier, was_qualifier.name)
        _Q_SPAN(qualifier, span)
        qualifiers.append(qualifier)
    clobbers: list[Clobber] = []
    for was_clobber in raw.clobbers:
        span = new(Span)
        SPAN_START(span, was_clobber.span.start + d)
        SPAN_END(span, was_clobber.span.end + d)
        clobber = new(Clobber)
        _CL_NAME(clobber, was_clobber.name)
        _CL_SPAN(clobber, span)
        clobbers.append(clobber)
    return RawStatement(
        tuple(qualifiers),
        raw.extended,
        template,
        tuple(operands),
        tuple(clobbers),
        raw.goto_labels,
        tuple([colon + d for colon in raw.colons]),
        raw.open_paren + d,
        raw.end + d,
        (),
        raw.opaque_sections,
        (),
    )
