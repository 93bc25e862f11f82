"""Setters that fill the C++ front end's model objects slot by slot: ``Span``, ``Constraint``,
``TemplatePiece``, ``Template`` and ``Operand``, made by the statement reader
(``frontends.cxx.plain_reader``) and again, mapped back to the file, by a macro use's expansion
(``frontends.cxx.macro_uses.Remap``). Made once here, beside the model, so that both stages fill
the same slots (``slot_setters`` raises at import where a class gained a field).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields

from ptxlint.model import Constraint, MadeOnRead, Operand, Span, Template, TemplatePiece


def slot_setters(cls: type, names: tuple[str, ...]) -> tuple[Callable[[object, object], None], ...]:
    """The setters of the slots ``names`` of the frozen, slotted dataclass ``cls``, for the
    makers that fill an ``object.__new__(cls)`` field by field instead of calling its
    ``__init__`` (which sets each field through ``object.__setattr__``: a third of the time
    of the PTX parser and a fifth of the statement reader's, where they make millions). A
    maker fills every field (but an operand's type, which it may leave empty:
    ``OperandTypes``), so ``names`` must be all of ``cls``'s fields, in order: where a field
    was added, this raises at import, and the makers must learn it. ``__post_init__``
    does not run: a maker makes only values that it would accept."""
    found = tuple(f.name for f in fields(cls))
    if found != names:
        raise RuntimeError(f"{cls.__name__} has fields {found}, its makers fill {names}")
    setters = []
    for name in names:
        field = cls.__dict__[name]
        # a field made on read is filled in its slot, as any other (the wrapper's own setter
        # is a Python call)
        setters.append((field.slot if isinstance(field, MadeOnRead) else field).__set__)
    return tuple(setters)


# A reading's objects are filled slot by slot (``slot_setters``), without the frozen
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
