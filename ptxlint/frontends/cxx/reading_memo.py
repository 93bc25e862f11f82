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
The one exception is the template's source map (one offset per character): a moved template
holds ``MovedOffsets``, the kept arrays and the distance, read by index as they stand and made
into the moved ``Offsets`` only where something reads one whole (rarely: see the class).

Cost: ``recall`` is O(length of the statement) in C (a slice, its hash, one comparison) plus
O(operands + pieces + qualifiers + clobbers) objects made. ``remember`` is a slice and a
dictionary store. A hit costs about two thirds of a read (the objects are most of a read's
cost): over flashinfer's 150-file sample, 65% of plain statements are hits and, with 4,096
entries, the reader ran 31% fewer instructions (callgrind: 8,056 M -> 5,540 M). Leaving the
source maps unmoved then took a further quarter off: the 25,578 plain statements of
flashinfer's include/, csrc/gdn and csrc/cake_fmha (90% hits), replayed through
``_read_plain_here``'s steps by a script, 0.52 s -> 0.39 s of CPU.

One memo per process, least recently used first out, at most ``MEMO_SIZE`` statements. An
entry holds its reading's objects, about 7.4 KB on that sample (30 MB at 4,096 entries, most
of it spans, their offsets and the source maps), so the bound is 2,048 (15 MB): on the sample
it finds 13,709 of the 15,347 hits that 4,096 entries find (unbounded: 15,637). Where
statements rarely repeat it buys little: over the CUDA 13 headers (``check -j 1``) it finds 172
of 3,488 statements (5%).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, SupportsIndex, overload

from ptxlint.lru import Lru
from ptxlint.model import (
    Clobber,
    Constraint,
    Offsets,
    Operand,
    Qualifier,
    Span,
    Template,
    TemplatePiece,
    constraint_start,
    operand_offsets,
    set_constraint_start,
    set_operand_offsets,
    slot_setters,
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
T_TEXT, T_CHAR_STARTS, T_CHAR_ENDS, T_PIECES = slot_setters(
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


# An Offsets array read as one unsigned integer, 8 bytes a character in the machine's order:
# adding ``d * _ones(n)`` adds d to each of its n offsets, and no addition carries into the next
# character's bytes while every offset stays in [0, 2**63).
_ORDER = sys.byteorder
_WIDTH = Offsets("q").itemsize


@functools.lru_cache(maxsize=1024)
def _ones(n: int) -> int:
    return int.from_bytes(Offsets("q", [1]).tobytes() * n, _ORDER)


class MovedOffsets(Sequence[int]):
    """A kept reading's source map (``Template.char_starts``, ``char_ends``) moved by ``d``
    characters, the array itself made only where something reads it whole.

    Moving the two arrays was the biggest part of a recall (two big-integer additions over their
    bytes, about 4 us each for an average template: 40% of a hit), yet on flashinfer's
    include/, csrc/gdn and csrc/cake_fmha only 458 of 23,052 moved templates are read by
    offset at all (a finding's ``Template.source_span``), none of them whole: most repeated
    statements replay the pure rules' outcomes (``rule_memo``), and no other rule reads the map.

    It reads as the ``Offsets`` it stands for: an offset by index without making the array
    (``base[i] + d``: what ``source_span`` and a bisection read), the array for everything else
    (a slice, iteration, its methods and attributes); equal to, hashed and printed as that array,
    and pickled (the result cache's statements) and copied as it, so that nothing stored or
    compared tells the two apart. ``Template`` holds either: its field is a ``Sequence[int]``."""

    __slots__ = ("_base", "_d")

    _base: Offsets  # the kept array, or the moved one once made (then _d is 0)
    _d: int

    def __init__(self, base: Offsets, d: int) -> None:
        self._base = base
        self._d = d

    def offsets(self) -> Offsets:
        """The moved array, made on the first call: O(n) in C, as an eager move was."""
        d = self._d
        if d:
            base = self._base
            n = len(base)
            moved = (int.from_bytes(base, _ORDER) + d * _ones(n)).to_bytes(n * _WIDTH, _ORDER)
            self._base = Offsets("q", moved)  # two threads may both make it: the same array
            self._d = 0
        return self._base

    def __len__(self) -> int:
        return len(self._base)

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...

    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if isinstance(index, int):
            return self._base[index] + self._d  # IndexError as the array raises it
        return self.offsets()[index]

    def __iter__(self) -> Iterator[int]:
        return iter(self.offsets())

    def __reversed__(self) -> Iterator[int]:
        return reversed(self.offsets())

    def __contains__(self, value: object) -> bool:
        return value in self.offsets()

    def index(self, value: Any, start: int = 0, stop: int = sys.maxsize) -> int:
        return self.offsets().index(value, start, stop)

    def count(self, value: Any) -> int:
        return self.offsets().count(value)

    def __eq__(self, other: object) -> bool:
        return self.offsets() == (other.offsets() if isinstance(other, MovedOffsets) else other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __lt__(self, other: object) -> bool:
        return self.offsets() < _plain(other)  # type: ignore[operator]

    def __le__(self, other: object) -> bool:
        return self.offsets() <= _plain(other)  # type: ignore[operator]

    def __gt__(self, other: object) -> bool:
        return self.offsets() > _plain(other)  # type: ignore[operator]

    def __ge__(self, other: object) -> bool:
        return self.offsets() >= _plain(other)  # type: ignore[operator]

    def __add__(self, other: object) -> Any:
        return self.offsets() + _plain(other)  # type: ignore[operator]

    def __radd__(self, other: object) -> Any:
        return _plain(other) + self.offsets()  # type: ignore[operator]

    def __hash__(self) -> int:
        return hash(self.offsets())

    def __repr__(self) -> str:
        return repr(self.offsets())

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[Any, ...]:
        return self.offsets().__reduce_ex__(protocol)  # unpickled as the Offsets it stands for

    def __copy__(self) -> MovedOffsets:
        return self  # never changes what it reads as, as Offsets returns itself

    def __deepcopy__(self, memo: object) -> MovedOffsets:
        return self

    def __getattr__(self, name: str) -> Any:  # the array's own: tobytes, typecode, itemsize...
        if name.startswith("_"):
            raise AttributeError(name)  # not a slot read before it was set, nor a dunder
        return getattr(self.offsets(), name)


def _plain(value: object) -> object:
    return value.offsets() if isinstance(value, MovedOffsets) else value


_MO_BASE, _MO_D = MovedOffsets._base.__set__, MovedOffsets._d.__set__  # type: ignore[attr-defined]


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
    own may have been typed in place since), its source map a ``MovedOffsets``. Inlined: a
    hit's cost is these objects, about 40 setter calls for an average statement."""
    old = raw.template
    template = new(Template)
    T_TEXT(template, old.text)
    starts = new(MovedOffsets)
    _MO_BASE(starts, old.char_starts)
    _MO_D(starts, d)
    T_CHAR_STARTS(template, starts)
    ends = new(MovedOffsets)
    _MO_BASE(ends, old.char_ends)
    _MO_D(ends, d)
    T_CHAR_ENDS(template, ends)
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
