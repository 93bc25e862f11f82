"""How many bytes a memory access moves, against the C++ object its address points into.

PTX ISA, ``ld``/``st``/``atom``/``red``: the access moves the instruction type's size times the
vector count (``st.global.v2.u32``: 8 bytes; ``.b128``: 16) from the address on. When the
address operand is the address of one named C++ object (``&flag``, ``&s``, an array ``arr``
decayed, through pointer casts such as ``(uint64_t*)&flag``), the object's size bounds what the
access may touch: an access that ends past it moves bytes of whatever lies next (a neighbouring
local, the next struct member, another thread's slot), and neither nvcc nor ptxas says a word
(the operand is just a 64-bit address).

:func:`wide_accesses` lists the accesses of a template that end past the object they address.
Only a whole named object counts, never an element (``&arr[i]`` may start a vectorized access
over its neighbours on purpose), and only where the object's size is known; an offset in the
address (``[%0+4]``) is added. Everything else is unknown and left out.
"""

from __future__ import annotations

from typing import NamedTuple

from ptxlint.analysis.element_types import resolve_type
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement, Operand, PtxInstruction, PtxOperand
from ptxlint.ptx.instructions import type_info
from ptxlint.ptx.operand_classes import parse_immediate

__all__ = ["WideAccess", "wide_accesses"]

_ACCESSES = frozenset({"ld", "ldu", "st", "atom", "red"})
_VECTORS = {"v2": 2, "v4": 4, "v8": 8}
# `&name`, with any pointer casts around it: (T*)&x, reinterpret_cast<T*>(&x), (void*)(&x)
_CAST = (r"(?:\(\s*[\w\s:<>,]+\*\s*\)\s*"
         r"|reinterpret_cast\s*<[^<>]*\*\s*>\s*|static_cast\s*<[^<>]*\*\s*>\s*)")
_ADDRESS_OF = on_first_use(rf"(?:{_CAST})*\(?\s*&\s*(?P<name>[A-Za-z_]\w*)\s*\)?")


class WideAccess(NamedTuple):
    """An access that moves ``end`` bytes from the start of an object of ``size`` bytes."""

    instruction: PtxInstruction
    address: PtxOperand  # the address operand in the template
    operand: Operand  # the asm operand that is the object's address
    name: str  # the object
    spelling: str  # its C++ type
    size: int
    end: int  # offset + access size


def _access_bytes(instruction: PtxInstruction) -> int | None:
    types = [type_info(m) for m in instruction.modifiers]
    known = [t for t in types if t is not None]
    if len(known) != 1:
        return None  # no type, or several (a conversion): not one access size
    count = 1
    for modifier in instruction.modifiers:
        count *= _VECTORS.get(modifier, 1)
    bits = known[0].bits * count
    return bits // 8 if bits % 8 == 0 else None


def _base_and_offset(address: PtxOperand) -> tuple[int, int] | None:
    refs = [p for p in address.parts if p.kind == "ref" and p.ref is not None]
    others = [p for p in address.parts if not (p.kind == "ref" and p.ref is not None)]
    if len(refs) != 1 or len(others) > 1:
        return None
    offset = 0
    if others:
        if others[0].kind != "immediate":
            return None
        value = parse_immediate(others[0].text)
        if value is None:
            return None
        offset = value
    assert refs[0].ref is not None
    return refs[0].ref, offset


def wide_accesses(statement: AsmStatement, parsed: ParsedSource | None) -> tuple[WideAccess, ...]:
    """The accesses of the template that end past the named object they address."""
    if parsed is None or not statement.extended or statement.opaque_sections:
        return ()
    found: list[WideAccess] = []
    operands = statement.operands
    for instruction in statement.ptx.instructions:
        if instruction.opaque or instruction.opcode not in _ACCESSES:
            continue
        address = next((o for o in instruction.operands if o.kind == "address"), None)
        if address is None:
            continue
        located = _base_and_offset(address)
        if located is None or located[0] >= len(operands):
            continue
        index, offset = located
        operand = operands[index]
        expression = operand.expression
        lead = len(expression) - len(expression.lstrip())
        match = _ADDRESS_OF().fullmatch(expression.strip())
        if match is None:
            continue
        size = _access_bytes(instruction)
        if size is None:
            continue
        name = match["name"]
        at = operand.expression_span.start + lead + match.start("name")
        ctype = resolve_type(parsed, name, at)
        if ctype is None or ctype.size is None or ctype.kind == "pointer":
            continue
        if offset + size > ctype.size:
            found.append(WideAccess(instruction, address, operand, name, ctype.spelling,
                                    ctype.size, offset + size))
    return tuple(found)
