"""Which element of a C++ object an operand expression names by a literal position: ``a[2]``,
``frag.x[1]``, ``data[3].w``, ``(uint32_t)v.y``.

Two readers ask it: PTX012 (a walk ``A[0], A[1], A[1], A[3]`` that repeats one element and
skips its neighbour) and the vector element order (:mod:`.vector_order`: a brace list bound to
``v.w, v.x, v.y, v.z``). Both read the expression's tree (``syntax_tree.parse_expression``,
kept per text), where each had its own patterns over the text, which took ``a[2] + b`` for an
element of ``a`` with ``+b`` after it.

What lies before and after the element's position is kept as written, blanks removed (the
parentheses around the whole expression left out), so that the elements of one walk share
both."""

from __future__ import annotations

from functools import lru_cache

import tree_sitter

from ptxlint.frontends.syntax_tree import EXPRESSION_OFFSET, nodes_of_kinds, parse_expression
from ptxlint.value_class import value_class

__all__ = ["MEMBERS", "Element", "member_element", "subscript_element"]

Node = tree_sitter.Node

MEMBERS = "xyzw"  # a CUDA vector's members, in their layout order
_KINDS = frozenset({"subscript_expression", "field_expression"})
_FIELD_ACCESS = frozenset({".", "->"})


@value_class(slots=False)
class Element:
    """One element of an object, named by a literal subscript or a vector member."""

    before: str  # the expression up to the position (``frag.x[``, ``v.``), blanks removed
    index: int  # the subscript's value, or the member's place (``x`` 0 .. ``w`` 3)
    after: str  # the expression after the position (``].w``, ``]``, ``""``), blanks removed
    member: bool  # ``v.x``: a vector member, else a subscript

    @property
    def base(self) -> str:
        """The object: the text before the position, less its ``[`` or member access."""
        if not self.member:
            return self.before[:-1]
        return self.before[:-2] if self.before.endswith("->") else self.before[:-1]

    def spelled(self, index: int) -> str:
        """The same expression naming element ``index`` instead."""
        return f"{self.before}{MEMBERS[index] if self.member else index}{self.after}"


def subscript_element(expression: str) -> Element | None:
    """The element that the subscript ending last in ``expression`` reads, where its index is
    an integer literal (``2``, ``2u``, ``0x2``): the expression is then one element's in a
    walk whose other elements give the same text around their index (``__as_u32(acc[2])``,
    ``prob_stride[2] >> 4``, ``data[2].w``; ``a[1][2]``: element 2 of ``a[1]``)."""
    return _elements(expression)[0]


def member_element(expression: str) -> Element | None:
    """The vector member (``.x`` .. ``.w``, or through ``->``) ``expression`` ends with: the
    outermost member access that ends it (``(uint32_t)v.y``: ``v``'s ``y``)."""
    return _elements(expression)[1]


@lru_cache(maxsize=8192)
def _elements(expression: str) -> tuple[Element | None, Element | None]:
    node = parse_expression(expression)
    while node is not None and node.type == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        node = inner[0] if len(inner) == 1 else None
    if node is None:
        return None, None
    data = expression.encode("utf-8", "surrogatepass")
    start, end = node.start_byte, node.end_byte
    found = nodes_of_kinds(node, _KINDS)
    subscripts = found.get("subscript_expression", [])
    subscript = None
    if subscripts:  # the one whose `]` comes last: no subscript follows its index
        subscript = _subscript(max(subscripts, key=lambda n: n.end_byte), data, start, end)
    member = None
    ending = [n for n in found.get("field_expression", []) if n.end_byte == end]
    if ending:
        member = _member(ending[0], data, start, end)  # the outermost: document order
    return subscript, member


def _subscript(node: Node, data: bytes, start: int, end: int) -> Element | None:
    indices = node.child_by_field_name("indices")
    values = [c for c in indices.named_children if c.type != "comment"] if indices else []
    if len(values) != 1 or values[0].type != "number_literal":
        return None
    value = _integer(_text(data, values[0].start_byte, values[0].end_byte))
    if value is None:
        return None
    return Element(_text(data, start, values[0].start_byte), value,
                   _text(data, values[0].end_byte, end), member=False)


def _member(node: Node, data: bytes, start: int, end: int) -> Element | None:
    field = node.child_by_field_name("field")
    operator = node.child_by_field_name("operator")
    if field is None or operator is None or operator.type not in _FIELD_ACCESS:
        return None
    name = _text(data, field.start_byte, field.end_byte)
    if len(name) != 1 or name not in MEMBERS:
        return None
    return Element(_text(data, start, field.start_byte), MEMBERS.index(name),
                   _text(data, field.end_byte, end), member=True)


def _text(data: bytes, start: int, end: int) -> str:
    """The expression's bytes ``[start, end)`` of its tree, blanks removed."""
    at = EXPRESSION_OFFSET
    return "".join(data[start - at:end - at].decode("utf-8", "replace").split())


def _integer(literal: str) -> int | None:
    """An integer literal's value (its ``u``/``l`` suffixes and ``'`` separators dropped);
    None for a floating-point one."""
    digits = literal.replace("'", "").rstrip("uUlLzZ")
    if digits[:2].lower() in ("0x", "0b"):
        base = 0
    elif digits.startswith("0") and digits != "0":
        base = 8
    else:
        base = 10
    try:
        return int(digits, base)
    except ValueError:
        return None
