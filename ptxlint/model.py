"""The data model every stage shares: source files, asm statements, PTX templates, findings.

All positions are *character offsets into the decoded source text* (``SourceFile.text``), end
exclusive. Lines and columns are derived from offsets by ``SourceFile`` so that every stage speaks
one coordinate system and reporters convert at the edge.
"""

from __future__ import annotations

import bisect
from array import array
from collections import deque
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum
from functools import cached_property
from itertools import repeat, starmap
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from ptxlint.lazy_regex import on_first_use
from ptxlint.value_class import value_class


class Severity(str, Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


@value_class
class Span:
    """A half-open range ``[start, end)`` of character offsets into ``SourceFile.text``."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError(f"span end {self.end} before start {self.start}")

    def contains(self, offset: int) -> bool:
        return self.start <= offset < self.end


_NEW = object.__new__
_SPAN_START = Span.__dict__["start"].__set__
_SPAN_END = Span.__dict__["end"].__set__


def new_span(start: int, end: int) -> Span:
    """``Span(start, end)`` for offsets known to be in order (``__post_init__`` not run)."""
    span = _NEW(Span)
    _SPAN_START(span, start)
    _SPAN_END(span, end)
    return span


# The one line-splitting rule of the model, the reports and the language server: a line ends at
# "\r\n", "\r" or "\n" (the LSP's list; old Mac files end lines with "\r" alone) and nowhere
# else (str.splitlines would also split at form feeds and U+2028, which editors do not).
_LINE_BREAK = on_first_use(r"\r\n|\r|\n")
_LONE_CR = on_first_use(r"\r(?!\n)")


def line_starts(text: str) -> list[int]:
    """Offsets where each line of ``text`` starts (the first is 0)."""
    if "\r" in text:
        return [0, *(m.end() for m in _LINE_BREAK().finditer(text))]
    starts = [0]
    find = text.find
    i = find("\n")
    while i != -1:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


def has_lone_cr(text: str) -> bool:
    """Whether ``text`` has a "\r" not followed by "\n" (a line break of its own)."""
    return "\r" in text and _LONE_CR().search(text) is not None


def unify_line_breaks(text: str) -> str:
    """``text`` with each lone "\r" made "\n": the same length, so every offset stays valid, for
    the parsers (tree-sitter, the lexer, the directive scanner), which end lines at "\n" only
    and would read a CR-only file as one line (a leading ``//`` comment swallowing it all)."""
    return _LONE_CR().sub("\n", text) if "\r" in text else text


@value_class
class LineCol:
    """A position as reports show it: a 1-based line and column of a ``SourceFile``."""

    line: int  # 1-based
    column: int  # 1-based, counted in characters of the line


def line_col_in(text: str, starts: list[int], offset: int) -> tuple[int, int]:
    """The 1-based line and column of ``offset`` (within ``text``) by ``starts``, its index."""
    offset = max(0, min(offset, len(text)))
    line = bisect.bisect_right(starts, offset) - 1
    return line + 1, offset - starts[line] + 1


@dataclass
class SourceFile:
    """A file's decoded text with offset <-> line/column conversion."""

    path: str
    text: str
    decode_errors: bool = False

    @cached_property
    def line_starts(self) -> list[int]:
        return line_starts(self.text)

    def indexed(self) -> tuple[str, list[int]]:
        """The text and its line index (``PackedSource`` unpacks both in one look-up)."""
        return self.text, self.line_starts

    def line_col(self, offset: int) -> LineCol:
        return LineCol(*line_col_in(*self.indexed(), offset))

    def line_text(self, line: int) -> str:
        """The text of 1-based ``line`` without its newline."""
        starts = self.line_starts
        if not 1 <= line <= len(starts):
            return ""
        begin = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[begin:end].rstrip("\r")

    def offset_of(self, line: int, column: int) -> int:
        starts = self.line_starts
        line = max(1, min(line, len(starts)))
        return min(starts[line - 1] + column - 1, len(self.text))


# --------------------------------------------------------------------------- template text

HOLE = "\ufffc"
"""Stands in the assembled template for one opaque piece (a macro whose text is unknown)."""


@value_class
class TemplatePiece:
    """One piece of the template as written: a string literal or an opaque macro."""

    kind: str  # "string" | "raw" | "macro"
    span: Span  # the whole piece in the source, quotes and prefix included
    text_start: int  # where its decoded text starts in Template.text
    text_end: int


if TYPE_CHECKING:
    _IntArray = array[int]
else:
    _IntArray = array


class Offsets(_IntArray):
    """Source offsets, one per template character: 8 bytes each, where a tuple of ints costs
    about 36 (a 14 MB file of 170,000 statements held 200 MB of them). Never mutated, so
    hashable like the tuple it replaces."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self.tobytes())

    def __copy__(self) -> Offsets:
        return self

    def __deepcopy__(self, memo: object) -> Offsets:
        return self


def offsets(values: Sequence[int]) -> Offsets:
    return values if isinstance(values, Offsets) else Offsets("q", values)


class SourceMap:
    """A template's source map still to be made: a front end's subclass holds what makes it
    (``arrays``), and ``Template.char_starts`` and ``char_ends`` are made from it when either
    is first read (``set_source_map``). A maker that also leaves ``Template.pieces`` empty
    gives a map that makes them (``pieces``)."""

    __slots__ = ()

    def arrays(self) -> tuple[Sequence[int], Sequence[int]]:
        """The template's ``char_starts`` and ``char_ends``."""
        raise NotImplementedError

    def pieces(self) -> tuple[TemplatePiece, ...]:
        """The template's ``pieces``, where its maker left them to be made."""
        raise NotImplementedError

    def piece_count(self, kinds: Collection[str]) -> int:
        """How many of ``pieces()`` are of one of ``kinds``; a map may answer without making
        them."""
        return sum(1 for piece in self.pieces() if piece.kind in kinds)


class _TemplateSlots:
    """The slot a ``Template`` holds beside its fields (not a field: never compared, copied or
    pickled): the ``SourceMap`` its source map is made from, where a reader left it to be
    made."""

    __slots__ = ("_map",)


@value_class
class Template(_TemplateSlots):
    """The assembled template string with a source map.

    ``char_starts[i]``/``char_ends[i]`` give the source span of template character ``i``: an escape
    such as ``\\n`` maps to its two source characters, a hole to the whole macro invocation.
    A reader may leave them to be made when first read (``set_source_map``), and ``pieces``
    too where its ``SourceMap`` makes them (``SourceMap.pieces``; ``piece_count`` counts them
    without making them).
    """

    text: str
    char_starts: Sequence[int]  # Offsets, whatever is given
    char_ends: Sequence[int]
    pieces: tuple[TemplatePiece, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "char_starts", offsets(self.char_starts))
        object.__setattr__(self, "char_ends", offsets(self.char_ends))

    if not TYPE_CHECKING:  # hidden from the type checker, which would take any name for it

        def __getattr__(self, name: str) -> Any:
            # Called only where a slot is empty: the source map or the pieces while they are
            # still to be made.
            # (Not ``MadeOnRead``: the arrays are read per character, in loops, and a
            # template's other fields are read little, so their unspecialized reads cost less.)
            if name == "pieces":
                pieces = _T_MAP.__get__(self, Template).pieces()
                _T_PIECES.__set__(self, pieces)
                return pieces
            if name != "char_starts" and name != "char_ends":
                raise AttributeError(name)
            starts, ends = _T_MAP.__get__(self, Template).arrays()
            _T_STARTS.__set__(self, starts)
            _T_ENDS.__set__(self, ends)
            return starts if name == "char_starts" else ends

    @property
    def has_holes(self) -> bool:
        return HOLE in self.text

    def source_span(self, start: int, end: int) -> Span:
        """Source span of template characters ``[start, end)``."""
        n = len(self.text)
        if n == 0:
            anchor = self.pieces[0].span.start if self.pieces else 0
            return Span(anchor, anchor)
        start = max(0, min(start, n - 1))
        end = max(start + 1, min(end, n))
        return Span(self.char_starts[start], max(self.char_starts[start], self.char_ends[end - 1]))


_T_MAP = _TemplateSlots.__dict__["_map"]
_T_STARTS = Template.__dict__["char_starts"]
_T_ENDS = Template.__dict__["char_ends"]
_T_PIECES = Template.__dict__["pieces"]
# Where a reader leaves ``char_starts`` and ``char_ends`` empty: the ``SourceMap`` they are made
# from when first read (``Template.__getattr__``); a maker that fills a template slot by slot
# sets this instead. It buys: a source map is two offsets per template character, read for few
# statements (``source_span``, a fix, hover): a lint makes the maps of 138 of CUTLASS's 3,093
# plain templates (include/), of 424 of the CUDA 13 headers' 3,028.
set_source_map = _T_MAP.__set__


def piece_count(template: Template, kinds: Collection[str]) -> int:
    """How many of ``template.pieces`` are of one of ``kinds``, asked of its ``SourceMap``
    where they are still to be made (``SourceMap.pieces``), so that a count does not make
    them."""
    try:
        pieces = _T_PIECES.__get__(template, Template)
    except AttributeError:
        return _T_MAP.__get__(template, Template).piece_count(kinds)
    return sum(1 for piece in pieces if piece.kind in kinds)


def source_map(template: Template) -> SourceMap | None:
    """The ``SourceMap`` a template's arrays are (or were) made from, or None for a template
    made with them."""
    try:
        return _T_MAP.__get__(template, Template)
    except AttributeError:
        return None


# --------------------------------------------------------------------------- C++ side


@value_class
class CType:
    """What ptxlint knows about an operand's C++ type."""

    spelling: str  # as resolved, e.g. "unsigned int", "float *", "__half"
    kind: str  # "integer" | "bool" | "floating" | "half" | "pointer" | "enum" | "aggregate"
    size: int | None  # bytes on the default target (LP64)
    tier: int = 1  # 1: syntactic, 2: libclang
    # an integer's signedness (None: not an integer, or not known); what a pointer points to
    # (None: not a pointer, or not known). Facts of the spelling, so left out of equality and
    # hashing: a type compares as it did before they were added
    unsigned: bool | None = field(default=None, compare=False)
    pointee: CType | None = field(default=None, compare=False)


class _ConstraintSlots:
    """The slot a ``Constraint`` holds beside its fields: its operand's place (``Place``), which
    says where its one literal starts, from which a reader that leaves ``span`` empty has it
    made when first read (not a field: never compared, copied or pickled)."""

    __slots__ = ("_at",)


@value_class
class Constraint(_ConstraintSlots):
    """An operand's constraint string (``"=&r"``), split into its modifiers and its letters.
    Its ``span`` may be made when first read (``set_constraint_place``)."""

    text: str  # decoded, e.g. "=&r"
    modifiers: str  # in order of appearance, from "=+&"
    letters: str  # everything that is not a modifier
    span: Span  # the string literal (quotes included) or the macro
    opaque: bool = False  # a macro that could not be resolved


class MadeOnRead:
    """A slotted dataclass's field made when first read where its slot was left empty: the
    slot's own descriptor wrapped, ``make(instance)`` called on a read of the empty slot and
    its value kept there. Every read costs a Python call (about 0.1 us), so it is for fields
    that few read; the class's other fields stay plain slot reads. (A ``__getattr__`` on the
    class would spare the lazy field's reads but slow every other's: the interpreter
    specializes attribute reads only on classes without one, 20 ns a read against 5; a
    constraint's letters, modifiers and opaque flag are read 3.7 million times over CUTLASS's
    ``include/``.) Sets and deletes go to the slot: ``__init__``, pickling and
    ``dataclasses.replace`` work as on the plain field.

    A read goes through the slot's descriptor, kept on the class as ``_<field>_made`` too, by
    ``attrgetter``: its own ``__get__`` parses its arguments on every call (whole ``check``:
    CUTLASS's ``include/`` -0.56% instructions, the CUDA 13 headers -0.1%, cachegrind)."""

    __slots__ = ("_slot", "_make", "_read")

    def __init__(self, slot: Any, make: Callable[[Any], object]) -> None:
        self._slot = slot
        self._make = make
        alias = f"_{slot.__name__}_made"
        setattr(slot.__objclass__, alias, slot)
        self._read = attrgetter(alias)

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self
        try:
            return self._read(instance)
        except AttributeError:
            value = self._make(instance)
            self._slot.__set__(instance, value)
            return value

    @property
    def slot(self) -> Any:
        """The slot's own descriptor: what a maker filling the slot sets (``slot_setters``)."""
        return self._slot

    def made(self, instance: object) -> bool:
        """Whether ``instance``'s value is there (given, or made by a read)."""
        try:
            self._read(instance)
        except AttributeError:
            return False
        return True

    def __set__(self, instance: object, value: object) -> None:
        self._slot.__set__(instance, value)

    def __delete__(self, instance: object) -> None:
        self._slot.__delete__(instance)


# Where a reader leaves an operand's spans and its constraint's span to be made when first
# read: the operand's place, ``(offsets, base)``, where ``offsets`` are its span's start and
# end, its expression's start and its constraint literal's start (the opening quote), each
# less ``base``. The operand and its constraint hold the same pair. What it buys: a header
# spells the same operand sections again and again (``plain_reader._KeptSection``); their
# operands share the offsets of its one reading (``zip(offsets, repeat(base))``: a pair an
# operand, where absolute offsets made a tuple and four new integers). ``_KeptSection.made``
# over CUTLASS's ``include/`` (137,000 operands): 0.162-0.179 -> 0.132-0.157 s of CPU (three
# extractions each, alternating); ``read_plain`` there: 2,219 -> 2,023 M instructions.
Place = tuple[tuple[int, int, int, int], int]


_C_AT = _ConstraintSlots.__dict__["_at"]


def _constraint_span(constraint: Constraint) -> Span:
    offsets, base = _C_AT.__get__(constraint, Constraint)
    at = base + offsets[3]
    return new_span(at, at + len(constraint.text) + 2)  # the quotes around the text


Constraint.span = MadeOnRead(Constraint.__dict__["span"], _constraint_span)  # type: ignore[assignment]
# Where a reader leaves ``span`` empty: its operand's ``Place`` (``_constraint_span``). A maker
# that fills a constraint slot by slot (``slot_setters``) sets this instead of ``span``, for a
# constraint spelled as one string literal without escapes.
set_constraint_place: Callable[[Constraint, Place], None] = _C_AT.__set__


class _OperandSlots:
    """The slots an ``Operand`` holds beside its fields (not fields: never compared, copied or
    pickled): its statement's ``OperandTypes`` while its type is still to be worked out, and
    its ``Place`` where a reader leaves ``span`` and ``expression_span`` to be made when first
    read."""

    __slots__ = ("_types", "_at")
    _types: OperandTypes
    _at: Place


@value_class
class Operand(_OperandSlots):
    """A C++ asm operand: its constraint, the expression it binds and where both are in the file."""

    index: int  # the N in %N: outputs first, then inputs
    role: str  # "output" | "input"
    constraint: Constraint
    expression: str  # the C++ expression text, as written
    expression_span: Span
    span: Span  # the whole operand, from [name] or constraint to ")"
    symbolic_name: str | None = None
    # None where unknown. A front end may leave it to be worked out when first read
    # (``OperandTypes``): every reader sees a type or None.
    ctype: CType | None = None

    # ``ctype``, ``span`` and ``expression_span`` are made on read where left empty
    # (``MadeOnRead``, set below).
    if not TYPE_CHECKING:  # hidden from the type checker, which would take any name for it

        def __getstate__(self) -> list[object]:
            # every field, the type worked out on the way; not what would work it out
            return [getattr(self, name) for name in _OPERAND_FIELDS]

        def __setstate__(self, state: list[object]) -> None:
            for name, value in zip(_OPERAND_FIELDS, state, strict=True):
                object.__setattr__(self, name, value)


class OperandTypes:
    """The C++ types of one statement's operands, worked out when one of them is first read
    (a front end's subclass holds what that needs: the file's tree and type resolver).

    Until then each of those operands has its ``ctype`` slot empty and this object in its
    ``_types`` slot (``leave``); the first read of a ``ctype`` (``MadeOnRead``) calls
    ``settle``, which fills every one of the statement's operands (``give``) and must let go
    of the front end. (An operand whose ``ctype`` slot is empty and that was never left to an
    ``OperandTypes``, one the plain reader made and extraction did not type, has None.)
    Whatever reads an operand (``==``, ``hash``, ``repr``, ``dataclasses.replace``, pickle)
    reads its type, so a copy or a pickle carries the answer.

    What it buys: a statement no rule asks about is never typed (``--select`` or
    ``--ignore`` leaving out the rules that read types, or a rule that reads a type only
    past a cheaper test). With every default rule, PTX004, PTX005 and PTX301 read the type of
    every register operand, so every statement is typed. A read of ``ctype`` costs a Python
    call (0.1 us; 564,325 reads over CUTLASS's ``include/``), which an ``Operand.__getattr__``
    filling the empty slot spared, but at the price of every other field's read (no class
    with a ``__getattr__`` has its attribute reads specialized: 20 ns a read against 5, and
    the rules read an operand's other fields 3.6 million times there): the rules' phase over
    CUTLASS takes 0.04 s less with the descriptor."""

    __slots__ = ()

    def settle(self) -> None:
        """Work the types out and ``give`` each operand its own."""
        raise NotImplementedError

    def leave(self, operands: Sequence[Operand]) -> None:
        """Leave the types of ``operands`` (one statement's, that no one has read yet) to
        this object. The operands of one reading are made by one maker: all with their
        ``ctype`` slot filled (``__init__``), or all with it empty (the plain reader's, which
        leaves it for this; the first operand tells which). Each slot is set in a C loop.

        What it buys: the plain reader's operands (CUTLASS's ``include/``: about 143,000)
        no longer have a None set in their ``ctype`` slot by the reader and deleted here,
        and neither this nor ``give`` runs a Python loop an operand."""
        if not operands:
            return
        try:
            _CTYPE_SLOT.__get__(operands[0], Operand)
        except AttributeError:  # made with it empty
            pass
        else:
            _drain(map(_CTYPE_SLOT.__delete__, operands))
        # ``starmap`` over a ``zip``: no argument tuple made a call (plain_reader._starmap)
        _drain(starmap(_TYPES_SLOT.__set__, zip(operands, repeat(self), strict=False)))

    @staticmethod
    def give(operands: Sequence[Operand], ctypes: Sequence[CType | None]) -> None:
        """Set each operand's worked-out type. (Its ``_types`` slot is left as it is: it is
        read only while ``ctype`` is empty, and what it holds was let go of by ``settle``.)"""
        if len(operands) != len(ctypes):
            raise ValueError(f"{len(ctypes)} types for {len(operands)} operands")
        _drain(starmap(_CTYPE_SLOT.__set__, zip(operands, ctypes, strict=True)))


_CTYPE_SLOT = Operand.__dict__["ctype"]
_drain = deque[object](maxlen=0).extend  # runs an iterator of setter calls to its end, in C
_TYPES_SLOT = _OperandSlots.__dict__["_types"]
_O_AT = _OperandSlots.__dict__["_at"]
_O_SPAN = Operand.__dict__["span"]
_O_EXPRESSION_SPAN = Operand.__dict__["expression_span"]
_OPERAND_FIELDS = tuple(f.name for f in fields(Operand))


def _worked_out_type(operand: Operand) -> CType | None:
    try:
        types = _TYPES_SLOT.__get__(operand, Operand)
    except AttributeError:  # made without a type and never left to be worked out: unknown
        return None
    types.settle()  # gives every operand of the statement its own
    return _CTYPE_SLOT.__get__(operand, Operand)


def _operand_span(operand: Operand) -> Span:
    offsets, base = _O_AT.__get__(operand, Operand)
    return new_span(base + offsets[0], base + offsets[1])


def _expression_span(operand: Operand) -> Span:
    offsets, base = _O_AT.__get__(operand, Operand)
    start = base + offsets[2]
    return new_span(start, start + len(operand.expression))


Operand.ctype = MadeOnRead(_CTYPE_SLOT, _worked_out_type)  # type: ignore[assignment]
Operand.span = MadeOnRead(_O_SPAN, _operand_span)  # type: ignore[assignment]
Operand.expression_span = MadeOnRead(_O_EXPRESSION_SPAN, _expression_span)  # type: ignore[assignment]
# Where a reader leaves ``span`` and ``expression_span`` empty: its ``Place`` (``_operand_span``,
# ``_expression_span``); a maker that fills an operand slot by slot sets this instead. It buys:
# the plain reader made five objects an operand, three of them spans. A lint of CUTLASS's
# ``include/`` (143,000 operands) makes 353 operand spans, 1 constraint span and 4,990
# expression spans on reading (typing reads the offset: ``expression_start``); the CUDA 13
# headers' (14,000 operands) 2, 0 and 134. ``read_plain`` over CUTLASS: 0.43 s -> 0.34 s.
set_operand_place: Callable[[Operand, Place], None] = _O_AT.__set__


def expression_start(operand: Operand) -> int:
    """``operand.expression_span.start``, without making the span where it is still to be
    made (typing reads it for every operand)."""
    try:
        offsets, base = _O_AT.__get__(operand, Operand)
    except AttributeError:  # made with its spans
        return operand.expression_span.start
    return base + offsets[2]


def expressions(operands: Sequence[Operand]) -> list[tuple[str, int]]:
    """(``expression``, ``expression_span.start``) of each of ``operands``, without making a
    span still to be made: what typing reads of every operand, in one call a statement."""
    pairs = []
    for operand in operands:
        # a plain attribute read, which the interpreter specializes for a slot: a call of the
        # slot's ``__get__`` parses its arguments (typing's top C function on the GMMA headers)
        try:
            offsets, base = operand._at
        except AttributeError:  # made with its spans
            start = operand.expression_span.start
        else:
            start = base + offsets[2]
        pairs.append((operand.expression, start))
    return pairs


def operand_place(operand: Operand) -> Place | None:
    """The ``Place`` of an operand whose spans are made when first read, or None for one made
    with its spans."""
    try:
        return _O_AT.__get__(operand, Operand)
    except AttributeError:
        return None


def operand_offsets(operand: Operand) -> tuple[int, int, int]:
    """(``span.start``, ``span.end``, ``expression_span.start``) of ``operand``, without
    making a span still to be made."""
    try:
        offsets, base = _O_AT.__get__(operand, Operand)
    except AttributeError:  # made with its spans
        return operand.span.start, operand.span.end, operand.expression_span.start
    return base + offsets[0], base + offsets[1], base + offsets[2]


def constraint_start(constraint: Constraint) -> int | None:
    """Where a constraint whose span is made when first read starts (``set_constraint_place``),
    or None for a constraint made otherwise (its span may be more than one literal, or a
    macro)."""
    try:
        offsets, base = _C_AT.__get__(constraint, Constraint)
    except AttributeError:
        return None
    return base + offsets[3]


def operand_types(operands: Sequence[Operand]) -> tuple[CType | None, ...]:
    """The ``ctype`` of each of ``operands``, worked out where still to be: read from the
    slots in one C loop where every one is there (the rule memo keeps a statement's types
    this way: 32,500 reads over CUTLASS's ``include/``, each a Python call through
    ``MadeOnRead`` when read one by one)."""
    try:
        return tuple(map(_CTYPE_SLOT.__get__, operands))
    except AttributeError:  # one still to be worked out, or made without a type
        return tuple(operand.ctype for operand in operands)


def types_read(operands: Sequence[Operand]) -> bool:
    """Whether what was read of ``operands`` may have included a type, without working one
    out: False only where every operand's type is still to be worked out, or is None for want
    of an expression (then it is None for every operand spelled the same). A None given at
    extraction (a statement left untyped) counts as read: another reading of the same text
    may type it. The rule memo keeps the types of a statement only where its rules may have
    read them."""
    for operand in operands:
        try:
            value = _CTYPE_SLOT.__get__(operand, Operand)
        except AttributeError:
            try:
                _TYPES_SLOT.__get__(operand, Operand)
            except AttributeError:  # made without a type, never left: None, as given
                value = None
            else:
                continue  # still to be worked out
        if value is not None or operand.expression:
            return True
    return False


@value_class
class Clobber:
    """One entry of a statement's clobber list (``"memory"``, ``"cc"``) and where it is written."""

    name: str
    span: Span


@value_class
class Qualifier:
    """A word between ``asm`` and its parenthesis: ``volatile``, ``inline``, ``goto``..."""

    name: str  # volatile, __volatile__, inline, goto, ...
    span: Span


@value_class
class Expansion:
    """The macro invocation a statement was expanded from (``LOAD(u32, global)``)."""

    macro: str  # the macro's name
    invocation: str  # as written, whitespace collapsed
    span: Span  # the invocation in the linted file
    defined_at: str  # "path:line" of the #define
    body: Span | None = None  # the #define, when it is in the linted file
    # the invocation expands to its asm statements and nothing else that runs (``do { ... }
    # while (0)``, braces, semicolons around them): its statements are all it does
    only_asm: bool = False

    def __str__(self) -> str:
        return f"in expansion of {self.invocation}"


@value_class
class GuardMacro:
    """One definition of an object-like macro that a statement's ``#if`` conditions use
    (``#define __CVTA_PTR_64 1`` before ``#if __CVTA_PTR_64``): it holds where every one of
    ``conditions`` holds (those of its own #if blocks that do not also enclose the condition's
    directive)."""

    name: str
    body: str  # the replacement text, tokens joined by spaces ("" for `#define M`)
    conditions: tuple[str, ...] = ()


@value_class
class Context:
    """Where a statement lives, for deciding whether it is device PTX at all."""

    function: str | None = None
    function_specifiers: tuple[str, ...] = ()  # __device__, __global__, __host__, ...
    macro: str | None = None  # the #define whose body holds the statement
    guards: tuple[str, ...] = ()  # #if conditions, outermost first (Python: DSL version tests)
    local_guards: tuple[str, ...] = ()  # the same without file-wide (> 300 lines) #if blocks
    # the file's object-like macros that the guards use, in definition order (a name absent
    # here, or whose definitions may not hold, is unknown to the guards' evaluation)
    guard_macros: tuple[GuardMacro, ...] = ()
    dialect: str = "ptx"  # "ptx" | "host" | "unknown": only "ptx" statements are linted
    dialect_reason: str = ""
    # "python": CUDA C++ held in a Python string (CuPy, cuda.core); positions are in the .py
    # file, and an edit must be written the way the Python literal spells text.
    embedded_in: str = ""
    expansion: Expansion | None = None  # the statement comes from expanding this invocation
    # #if inside the statement (else empty): the conditions of the branches this reading took
    # (also in guards); the %N numbers only another branch names, where it binds these operands
    branch: tuple[str, ...] = ()
    branch_named: frozenset[int] = frozenset()


@value_class
class AsmStatement:
    """One inline asm statement as the rules see it (or a Python call carrying LLVM-syntax inline
    asm): its template and that template read as PTX, its operands and clobbers, and the context
    it sits in."""

    source: SourceFile = field(repr=False, compare=False)
    keyword: str  # asm | __asm__ | __asm
    span: Span  # keyword to closing parenthesis
    qualifiers: tuple[Qualifier, ...]
    extended: bool  # at least one colon
    template: Template
    operands: tuple[Operand, ...]
    clobbers: tuple[Clobber, ...]
    goto_labels: tuple[str, ...]
    colons: tuple[int, ...]  # source offsets of the top-level section colons
    open_paren: int
    close_paren: int
    context: Context
    ptx: PtxTemplate
    problems: tuple[str, ...] = ()  # extraction problems (unterminated, opaque sections...)
    opaque_sections: bool = False  # an operand or clobber section came through a macro
    # `"r"(a) "l"(b)`: (the ")" lacking its comma, the next operand's first token), source offsets
    missing_commas: tuple[tuple[int, int], ...] = ()
    # "gnu": GCC extended asm (%N, %%, "=r"(x) lists, "memory"); "llvm": LLVM inline asm as
    # Triton, CuTe DSL and llvmlite write it ($N, ${N}, $$, ${:uid}, "=r,r,~{memory}").
    syntax: str = "gnu"
    llvm: LlvmCall | None = None  # the call's arguments, for "llvm" statements
    # (outputs, inputs), made on first use: rules ask for them about three times a statement
    _roles: tuple[tuple[Operand, ...], tuple[Operand, ...]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def with_source(self, source: SourceFile) -> AsmStatement:
        """A shallow copy reading ``source`` (the same text, or none: a language-server reply).
        Slot by slot: ``copy.copy`` of a slotted dataclass goes through ``__reduce_ex__`` and
        its field list (7.2 us a statement against 4.1 here; the language server's re-lint
        copies every statement of the file, 736 in CUTLASS's GMMA header)."""
        moved = object.__new__(AsmStatement)
        for slot in _STATEMENT_SLOTS:
            slot.__set__(moved, slot.__get__(self, AsmStatement))
        object.__setattr__(moved, "source", source)
        return moved

    @property
    def is_volatile(self) -> bool:
        if self.llvm is not None:
            return self.llvm.side_effects is True
        return any(q.name in ("volatile", "__volatile__", "__volatile") for q in self.qualifiers)

    @property
    def ref_prefix(self) -> str:
        """How the template spells an operand reference: ``%`` (GNU) or ``$`` (LLVM)."""
        return "$" if self.syntax == "llvm" else "%"

    @property
    def outputs(self) -> tuple[Operand, ...]:
        return (self._roles or self._split_roles())[0]

    @property
    def inputs(self) -> tuple[Operand, ...]:
        return (self._roles or self._split_roles())[1]

    def _split_roles(self) -> tuple[tuple[Operand, ...], tuple[Operand, ...]]:
        operands = self.operands
        roles = (tuple(o for o in operands if o.role == "output"),
                 tuple(o for o in operands if o.role == "input"))
        object.__setattr__(self, "_roles", roles)  # a cache of a frozen value's parts
        return roles

    @property
    def has_memory_clobber(self) -> bool:
        return any(c.name == "memory" for c in self.clobbers)

    @property
    def line(self) -> int:
        return self.source.line_col(self.span.start).line


_STATEMENT_SLOTS = tuple(AsmStatement.__dict__[f.name] for f in fields(AsmStatement))


# --------------------------------------------------------------------------- LLVM-syntax calls
# ConstraintEntry, CallArgument and LlvmCall live in ptxlint/model_llvm.py and are loaded on first
# use (``__getattr__`` at the end of this module): only the Python front end makes them, and a
# C++ file's check never needs them (three frozen slotted classes, about 1.3 ms of CPU at every
# start). ``from ptxlint.model import LlvmCall`` works as before.

if TYPE_CHECKING:
    from ptxlint.model_llvm import CallArgument as CallArgument
    from ptxlint.model_llvm import ConstraintEntry as ConstraintEntry
    from ptxlint.model_llvm import LlvmCall as LlvmCall


# --------------------------------------------------------------------------- PTX side
# Offsets below are positions in Template.text; map them with Template.source_span.


@value_class
class PercentToken:
    """Every ``%`` construct of an extended template, as the C++ front end sees it."""

    # "ref" %0 %n1 | "escape" %% | "unique" %= | "named" %[x] | "bare" %clock | "trailing";
    # LLVM syntax adds "ref" $0 ${0} | "unique" ${:uid} | "dollar" $$ | "bad-dollar" (other $)
    kind: str
    start: int
    end: int
    index: int | None = None  # for "ref"
    modifier: str = ""  # GCC operand modifier letters before the number (%n1 -> "n")
    name: str = ""  # for "named" and "bare"


@value_class
class PtxOperand:
    """One operand of a PTX instruction as written in the template (a register, a ``%N``, an
    address, a vector...), at template offsets."""

    # "ref" | "register" | "special" | "immediate" | "address" | "vector" | "label" | "pair"
    # | "opaque" | "other"
    kind: str
    text: str
    start: int
    end: int
    parts: tuple[PtxOperand, ...] = ()  # address contents, vector elements, pair halves
    negated: bool = False  # !p
    ref: int | None = None  # operand index for a %N reference


@value_class
class PtxPredicate:
    """The guard predicate in front of a PTX instruction: ``@p`` or ``@!p``."""

    register: PtxOperand
    negated: bool
    start: int
    end: int


@value_class
class PtxInstruction:
    """One PTX instruction of a template: its dotted mnemonic, operands and guard, at template
    offsets and the ``{ }`` depth it sits at."""

    opcode: str  # the first word, e.g. "cp"
    modifiers: tuple[str, ...]  # e.g. ("async", "ca", "shared", "global") from ".async.ca..."
    operands: tuple[PtxOperand, ...]
    predicate: PtxPredicate | None
    start: int
    end: int  # after the terminating ';' when present
    opcode_start: int
    opcode_end: int  # end of the full dotted mnemonic
    depth: int  # brace depth
    terminated: bool  # ended with ';'
    opaque: bool = False  # a hole sits inside: say nothing about its spelling

    @property
    def mnemonic(self) -> str:
        return ".".join((self.opcode, *self.modifiers))


@value_class
class PtxDirective:
    """A PTX directive in a template (``.reg .b32 t;``) and the names it declares."""

    name: str  # ".reg", ".pred", ".shared", ...
    text: str
    start: int
    end: int
    depth: int
    declared: tuple[str, ...] = ()  # names declared by .reg/.pred/.shared/.local (with <N> kept)


@value_class
class PtxLabel:
    """A label defined in a template (``DONE:``), a target for ``bra``."""

    name: str
    start: int
    end: int
    depth: int


@value_class
class PtxBrace:
    """A ``{`` or ``}`` of a template, opening or closing a PTX scope block."""

    char: str  # "{" or "}"
    offset: int
    depth: int  # depth after an opening brace / before a closing one


@value_class
class PtxProblem:
    """A piece of a template the PTX parser could not read, with what was wrong; ``kind`` sorts
    it for the rules (PTX205, PTX207), which never read the message for that."""

    message: str
    start: int
    end: int
    kind: str = "syntax"  # | "separator" (no ';' before one) | "operand-list" | "hash-comment"


@value_class
class PtxTemplate:
    """What the PTX parser read from one template; offsets are into ``Template.text``."""

    instructions: tuple[PtxInstruction, ...] = ()
    directives: tuple[PtxDirective, ...] = ()
    labels: tuple[PtxLabel, ...] = ()
    braces: tuple[PtxBrace, ...] = ()
    comments: tuple[tuple[int, int], ...] = ()
    percents: tuple[PercentToken, ...] = ()
    problems: tuple[PtxProblem, ...] = ()


# --------------------------------------------------------------------------- findings


@value_class
class Edit:
    """One text replacement of a fix: the source characters of ``span`` become ``new_text``."""

    span: Span
    new_text: str


@value_class
class Fix:
    """A correction a rule offers for a finding: edits applied together. An unsafe one may change
    what the code does, so ``--fix`` applies it only with ``--unsafe-fixes``."""

    description: str
    edits: tuple[Edit, ...]
    safe: bool = True
    # Why ``--fix`` refused it, where a fix run tried it: its result has an error finding the
    # text had not (``ptxlint.fix``); None where it applies, or where no fix run tried it.
    refused: str | None = None


@value_class
class Finding:
    """What a rule reports about one place in a file, with the fix for it where the rule has one."""

    rule: str  # id, e.g. "PTX001"
    name: str  # kebab-case rule name
    severity: Severity
    path: str
    span: Span
    message: str
    fix: Fix | None = None
    statement: AsmStatement | None = field(default=None, repr=False, compare=False)
    # A finding in a macro expansion is reported at the invocation (``span``); ``spelled_at``
    # keeps the exact characters in the macro's body when they are in this file.
    expansion: Expansion | None = None
    spelled_at: Span | None = None
    branch: tuple[str, ...] = ()  # #if inside the statement: the branch the finding is in
    # Why the statement reaches no build of its file (a dead #if branch, a template nothing
    # instantiates, a helper nothing calls: ptxlint.analysis.latent); "" where it is live
    latent: str = ""


_MODEL_LLVM = frozenset({"ConstraintEntry", "CallArgument", "LlvmCall"})


def __getattr__(name: str) -> object:
    """The LLVM-syntax call classes, imported from ptxlint.model_llvm when first asked for."""
    if name in _MODEL_LLVM:
        from ptxlint import model_llvm

        return getattr(model_llvm, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
