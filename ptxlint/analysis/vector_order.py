"""Which C++ element each element of a memory vector, a register pack or a packed pair is bound
to, and in what order.

PTX ISA, "Vectors" and ``ld``/``st``: a vector access ``ld.v4.u32 {a, b, c, d}, [p]`` moves the
four consecutive elements at ``p``, ``p+4``, ``p+8``, ``p+12``, in that order: the brace list's
element *i* is memory element *i*. CUDA's vector types lay out ``x, y, z, w`` at offsets 0, 1,
2, 3 elements, and an array ``a[k]`` at element *k*. So when every element of a brace list is
bound (through ``%N``) to a member of one C++ vector, or an element of one array, the access
mirrors the C++ object exactly when the brace order is the layout order; a permutation moves
each element into another member (``{v.w, v.x, v.y, v.z}`` rotates the vector).

The other two places PTX orders elements by position are a register pack (``mov.b64 %0,
{a, b}``: a in the low half, ``mov``) and a conversion to a packed pair (``cvt.rn.f16x2.f32
d, a, b``: "the value converted from input a is stored in the upper half", ``cvt``); the
layout order is element 0 in the low bits there too. Their halves may also be two variables
named for their place (``x_lo``, ``x_hi``): the low one belongs in the low half.

:func:`vector_orders` lists, per such operand, the C++ positions its elements are bound to,
lowest element first: memory accesses (``ld``, ``ldu``, ``st``, ``atom``, ``red`` with
``.v2``, ``.v4``, ``.v8``), packs and unpacks, and pairs (``b`` then ``a``). A matrix
fragment (``mma``, ``ldmatrix``) orders its elements by other rules. An element that is not
``base.x``..``w`` or ``base[k]`` with one base for all, or a constraint or expression that
cannot be read, makes the operand unknown and it is left out: silence over guessing.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ptxlint.analysis.file_constants import initialised_constants
from ptxlint.analysis.operand_elements import member_element, subscript_element
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement, PtxInstruction, PtxOperand

__all__ = ["VectorOrder", "vector_orders"]

_MEMORY_VECTORS = frozenset({"ld", "ldu", "st", "atom", "red"})
_VECTOR = frozenset({"v2", "v4", "v8"})


class VectorOrder(NamedTuple):
    """One memory-vector operand whose elements are all elements of one C++ object."""

    instruction: PtxInstruction
    operand: PtxOperand  # the braced vector in the template
    base: str  # the C++ object, as written (whitespace removed)
    positions: tuple[int, ...]  # the C++ element each brace element is bound to
    expressions: tuple[str, ...]  # the bound expressions, in brace order
    # a store from an object the file declares constant (`__constant__`, `constexpr`, `const`
    # with an initializer): its elements are an encoding the author wrote out, in whatever
    # order the stored value needs (CUTLASS stores a double's words from a uint2 as {y, x})
    constant_source: bool = False
    # "memory": a vector load or store; "pack": a `mov` that packs its brace list into one
    # register or unpacks one into it, low bits first; "pair": a `cvt` to a packed pair type
    # (`.f16x2`, `.e4m3x2`...), whose first source is the upper half (``operand`` is it)
    kind: str = "memory"

    @property
    def in_order(self) -> bool:
        return all(p == i for i, p in enumerate(self.positions))


def _element(expression: str) -> tuple[str, int] | None:
    """The object and the position of the element ``expression`` is: a vector member
    (``v.x``..``v.w``), or an element by a literal subscript with nothing after it (``a[2]``)."""
    element = member_element(expression)
    if element is None:
        element = subscript_element(expression)
        if element is None or element.after != "]":
            return None
    return element.base, element.index


# A half named by its place: `lo`, `x_hi`, `low16`, `upper`; the stem is the name without it.
_NAMED_HALF = on_first_use(
    r"(?P<head>(?:.*[^A-Za-z])?)(?P<half>lo|low|lower|hi|high|upper)(?P<tail>(?:[^A-Za-z].*)?)",
    re.IGNORECASE,
)
_LOW_WORDS = frozenset({"lo", "low", "lower"})


def _named_half(expression: str) -> tuple[str, int] | None:
    """A register pack's or pair's half named as low or high (``x_lo``: 0, ``x_hi``: 1), and
    the stem that names the value (``x_*``); None for any other name."""
    text = "".join(expression.split())
    found = _NAMED_HALF().fullmatch(text)
    if found is None:
        return None
    half = found["half"].lower()
    return f"{found['head']}*{found['tail']}", 0 if half in _LOW_WORDS else 1


def _declared_constant(text: str, base: str) -> bool:
    """The file declares ``base`` (a plain name) as a constant with an initializer."""
    return base in initialised_constants(text)


def vector_orders(statement: AsmStatement) -> tuple[VectorOrder, ...]:
    """The operands of the template whose elements are bound element for element to one C++
    vector or array, with the C++ positions they are bound to, lowest element first: memory
    vectors, register packs, and the two sources of a conversion to a packed pair."""
    if not statement.extended or statement.opaque_sections or statement.template.has_holes:
        return ()
    found: list[VectorOrder] = []
    for instruction in statement.ptx.instructions:
        if instruction.opaque:
            continue
        opcode, modifiers = instruction.opcode, instruction.modifiers
        if opcode in _MEMORY_VECTORS and not _VECTOR.isdisjoint(modifiers):
            for operand in instruction.operands:
                if operand.kind == "vector":
                    order = _bound(statement, instruction, operand, operand.parts, "memory")
                    if order is not None:
                        found.append(order)
        elif opcode == "mov" and _VECTOR.isdisjoint(modifiers) and len(instruction.operands) == 2:
            # PTX ISA, mov: "{a, b}" packs a into the low half; a vector-to-vector move is none
            vectors = [o for o in instruction.operands if o.kind == "vector"]
            if len(vectors) == 1:
                order = _bound(statement, instruction, vectors[0], vectors[0].parts, "pack")
                if order is not None:
                    found.append(order)
        elif (opcode == "cvt" and len(instruction.operands) == 3
              and any(_PAIR().fullmatch(m) for m in modifiers)):
            # PTX ISA, cvt: "d = {cvt(a), cvt(b)}": a is the upper half, b the lower
            _, a, b = instruction.operands
            order = _bound(statement, instruction, a, (b, a), "pair")
            if order is not None:
                found.append(order)
    return tuple(found)


# a packed pair type a conversion writes (`.f16x2`, `.bf16x2`, `.e4m3x2`, `.ue8m0x2`...)
_PAIR = on_first_use(r"[a-z0-9]+x2")


def _bound(statement: AsmStatement, instruction: PtxInstruction, operand: PtxOperand,
           parts: tuple[PtxOperand, ...], kind: str) -> VectorOrder | None:
    """``parts`` (lowest element first) bound each to an element of one C++ object."""
    if len(parts) < 2:
        return None
    operands = statement.operands
    bound: list[tuple[str, int]] = []
    expressions: list[str] = []
    for part in parts:
        if part.kind != "ref" or part.ref is None or part.ref >= len(operands):
            return None
        cxx = operands[part.ref]
        if cxx.constraint.opaque:
            return None
        element = _element(cxx.expression)
        if element is None and kind != "memory":
            element = _named_half(cxx.expression)
        if element is None:
            return None
        bound.append(element)
        expressions.append(" ".join(cxx.expression.split()))
    bases = {base for base, _ in bound}
    positions = tuple(position for _, position in bound)
    if len(bases) != 1 or len(set(positions)) != len(positions):
        return None
    base = bases.pop()
    constant = instruction.opcode in ("st", "red") and _declared_constant(
        statement.source.text, base)
    return VectorOrder(instruction, operand, base, positions, tuple(expressions), constant, kind)
