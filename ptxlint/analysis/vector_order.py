"""Which C++ element each element of a memory vector is bound to, and in what order.

PTX ISA, "Vectors" and ``ld``/``st``: a vector access ``ld.v4.u32 {a, b, c, d}, [p]`` moves the
four consecutive elements at ``p``, ``p+4``, ``p+8``, ``p+12``, in that order: the brace list's
element *i* is memory element *i*. CUDA's vector types lay out ``x, y, z, w`` at offsets 0, 1,
2, 3 elements, and an array ``a[k]`` at element *k*. So when every element of a brace list is
bound (through ``%N``) to a member of one C++ vector, or an element of one array, the access
mirrors the C++ object exactly when the brace order is the layout order; a permutation moves
each element into another member (``{v.w, v.x, v.y, v.z}`` rotates the vector).

:func:`vector_orders` lists, per memory-vector operand, the C++ positions its elements are
bound to. Only memory accesses count (``ld``, ``ldu``, ``st``, ``atom``, ``red`` with ``.v2``,
``.v4``, ``.v8``); a register pack (``mov.b64 {lo, hi}``) and a matrix fragment (``mma``,
``ldmatrix``) order their elements by other rules. An element that is not ``base.x``..``w``
or ``base[k]`` with one base for all, or a constraint or expression that cannot be read, makes
the operand unknown and it is left out: silence over guessing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ptxlint.model import AsmStatement, PtxInstruction, PtxOperand

__all__ = ["VectorOrder", "vector_orders"]

_MEMORY_VECTORS = frozenset({"ld", "ldu", "st", "atom", "red"})
_VECTOR = frozenset({"v2", "v4", "v8"})
_MEMBER = re.compile(r"(?P<base>.+?)\s*(?:\.|->)\s*(?P<member>[xyzw])")
_INDEX = re.compile(r"(?P<base>.+?)\s*\[\s*(?P<index>\d+)[uUlL]*\s*\]")
_POSITION = {"x": 0, "y": 1, "z": 2, "w": 3}


@dataclass(frozen=True)
class VectorOrder:
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

    @property
    def in_order(self) -> bool:
        return all(p == i for i, p in enumerate(self.positions))


def _element(expression: str) -> tuple[str, int] | None:
    text = " ".join(expression.split())
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    found = _MEMBER.fullmatch(text)
    if found is not None:
        return found["base"].replace(" ", ""), _POSITION[found["member"]]
    found = _INDEX.fullmatch(text)
    if found is not None:
        return found["base"].replace(" ", ""), int(found["index"])
    return None


def _declared_constant(text: str, base: str) -> bool:
    """The file declares ``base`` (a plain name) as a constant with an initializer."""
    if not re.fullmatch(r"[A-Za-z_]\w*", base):
        return False
    declaration = re.compile(
        rf"\b(?:__constant__|constexpr|const)\b[^;{{}}()]*?\b{re.escape(base)}\s*(?:=|\{{)"
    )
    return declaration.search(text) is not None


def vector_orders(statement: AsmStatement) -> tuple[VectorOrder, ...]:
    """The memory-vector operands of the template bound element for element to one C++
    vector or array, with the C++ positions they are bound to."""
    if not statement.extended or statement.opaque_sections or statement.template.has_holes:
        return ()
    operands = statement.operands
    found: list[VectorOrder] = []
    for instruction in statement.ptx.instructions:
        if (
            instruction.opaque
            or instruction.opcode not in _MEMORY_VECTORS
            or _VECTOR.isdisjoint(instruction.modifiers)
        ):
            continue
        for operand in instruction.operands:
            if operand.kind != "vector" or len(operand.parts) < 2:
                continue
            bound: list[tuple[str, int]] = []
            expressions: list[str] = []
            for part in operand.parts:
                if part.kind != "ref" or part.ref is None or part.ref >= len(operands):
                    break
                cxx = operands[part.ref]
                if cxx.constraint.opaque:
                    break
                element = _element(cxx.expression)
                if element is None:
                    break
                bound.append(element)
                expressions.append(" ".join(cxx.expression.split()))
            else:
                bases = {base for base, _ in bound}
                positions = tuple(position for _, position in bound)
                if len(bases) == 1 and len(set(positions)) == len(positions):
                    base = bases.pop()
                    constant = instruction.opcode in ("st", "red") and _declared_constant(
                        statement.source.text, base)
                    found.append(VectorOrder(instruction, operand, base, positions,
                                             tuple(expressions), constant))
    return tuple(found)
