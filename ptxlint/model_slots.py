"""Setters that fill the C++ front end's model objects slot by slot: ``Span``, ``Constraint``,
``TemplatePiece``, ``Template`` and ``Operand``, made by the statement reader
(``frontends.cxx.plain_reader``) and again, mapped back to the file, by a macro use's expansion
(``frontends.cxx.macro_uses.Remap``). Made once here, beside the model, so that both stages fill
the same slots (``model.slot_setters`` raises at import where a class gained a field).
"""

from __future__ import annotations

from ptxlint.model import Constraint, Operand, Span, Template, TemplatePiece, slot_setters

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
