"""The element type of a packed value, followed from the C++ into the instruction that reads it.

An asm operand is a register of bits: `"r"` carries 32 of them whatever they mean. When the C++
expression bound to it reinterprets a value of a floating-point type (``*(uint32_t*)&h2``,
``reinterpret_cast<unsigned&>(b2)``, ``__half_as_ushort(h)``, ``std::bit_cast``), the bits are
that type's encoding: ``__half2`` holds two f16, ``__nv_bfloat162`` two bf16, ``float`` one f32.
The instruction that reads the register decodes them as its own operand type (PTX ISA: the
type of an instruction's operands is the instruction type, ``fma.rn.bf16x2`` reads two bf16;
``mma``'s A and B fragments are of its ``.atype``/``.btype``). A register holding f16 bits in
a bf16 slot is read as other numbers: 1.0 in f16 (0x3C00) is 0.0078125 in bf16.

:func:`carried_format` names the floating-point format an operand's bits are in, where the C++
says; :func:`slot_formats` the format each ``%N`` of an instruction is read as. Only formats of
the same width are compared by the rule (PTX211); integers and bit types carry anything.
"""

from __future__ import annotations

import math
import re
import struct
from typing import NamedTuple

from ptxlint.frontends.cxx.operand_types import typing_lock
from ptxlint.frontends.cxx.types import file_resolver
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement, CType, Operand, PtxInstruction, PtxOperand
from ptxlint.ptx.instructions import operand_types

__all__ = ["ConstantReading", "base_format", "carried_format", "constant_reading", "resolve_type",
           "slot_formats"]

# C++ types by the floating-point format of their bits (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h).
_FORMATS = {
    "__half": "f16", "half": "f16", "__half2": "f16x2", "half2": "f16x2",
    "__nv_bfloat16": "bf16", "nv_bfloat16": "bf16", "__nv_bfloat162": "bf16x2",
    "nv_bfloat162": "bf16x2", "float": "f32", "double": "f64",
    "__nv_fp8_e4m3": "e4m3", "__nv_fp8_e5m2": "e5m2", "__nv_fp8x2_e4m3": "e4m3x2",
    "__nv_fp8x2_e5m2": "e5m2x2", "__nv_fp8x4_e4m3": "e4m3x4", "__nv_fp8x4_e5m2": "e5m2x4",
}
# Intrinsics whose name fixes the format of the bits they return.
_INTRINSICS = {
    "__half_as_ushort": "f16", "__half_as_short": "f16", "__bfloat16_as_ushort": "bf16",
    "__bfloat16_as_short": "bf16", "__float_as_uint": "f32", "__float_as_int": "f32",
    "__double_as_longlong": "f64",
}
# The PTX operand types that are a floating-point format (the others carry bits or integers).
FLOAT_TYPES = frozenset({
    "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "f32x2", "e4m3", "e5m2", "e4m3x2",
    "e5m2x2", "e4m3x4", "e5m2x4",
})

_INTEGER = r"(?:unsigned(?:\s+int)?|int|uint32_t|int32_t|uint16_t|int16_t|unsigned\s+short|short|" \
           r"uint64_t|int64_t|unsigned\s+long\s+long|long\s+long|uint|ushort|std::uint32_t|" \
           r"std::uint16_t|std::uint64_t|u32|u16|u64|uint2|uint4)"
_CV = r"(?:\s*(?:const|volatile)\s*)*"
_READS = [
    # *(T*)&X, *(T *)(&X), *(const T*)&X
    on_first_use(rf"\*\s*\(\s*{_CV}{_INTEGER}{_CV}\s*\*\s*{_CV}\)\s*\(?\s*&\s*(?P<x>[\w.\[\]>-]+?)\s*\)?"),
    # *reinterpret_cast<T*>(&X), *reinterpret_cast<const T *>(&X)
    on_first_use(rf"\*\s*reinterpret_cast\s*<{_CV}{_INTEGER}{_CV}\s*\*{_CV}>\s*\(\s*&\s*"
                 rf"(?P<x>[\w.\[\]>-]+?)\s*\)"),
    # reinterpret_cast<T&>(X), reinterpret_cast<const T &>(X)
    on_first_use(rf"reinterpret_cast\s*<{_CV}{_INTEGER}{_CV}\s*&\s*>\s*\(\s*(?P<x>[\w.\[\]>-]+?)\s*\)"),
    # std::bit_cast<T>(X), cuda::std::bit_cast<T>(X)
    on_first_use(rf"(?:cuda::)?(?:std::)?bit_cast\s*<\s*{_INTEGER}\s*>\s*\(\s*(?P<x>[\w.\[\]>-]+?)\s*\)"),
]
_INTRINSIC = on_first_use(r"(?P<f>__\w+_as_\w+)\s*\(")


def base_format(ptx_type: str) -> str:
    """The element format of a (packed) type: ``bf16x2`` -> ``bf16``."""
    return ptx_type.split("x")[0] if ptx_type[-2:] in ("x2", "x4") else ptx_type


def _format_of(ctype: CType | None) -> str | None:
    if ctype is None:
        return None
    spelling = re.sub(r"\b(?:const|volatile)\b|[&\s]", "", ctype.spelling).lstrip(":")
    return _FORMATS.get(spelling)


def resolve_type(parsed: ParsedSource, expression: str, offset: int) -> CType | None:
    """The C++ type of ``expression`` written at character ``offset`` of the parsed file, or
    None: from the file's type resolver, the one extraction typed the operands with
    (``types.file_resolver``), so its declarations and scope tables are read once for both
    rather than again by a resolver of this module's own."""
    if parsed.text[offset : offset + len(expression)] != expression:
        return None
    try:
        with typing_lock():  # its memos are typing's, which another thread may be filling
            return file_resolver(parsed).resolve(expression, offset)
    except Exception:  # a type is an improvement: unknown on any failure
        return None


def carried_format(operand: Operand, parsed: ParsedSource | None) -> tuple[str, str] | None:
    """The floating-point format the operand's bits are in, and the C++ piece that says so
    (the reinterpreted value, or the intrinsic), or ``None`` where the C++ does not say."""
    expression = operand.expression.strip()
    intrinsic = _INTRINSIC().match(expression)
    if intrinsic is not None and expression.endswith(")"):
        found = _INTRINSICS.get(intrinsic["f"])
        return (found, intrinsic["f"]) if found is not None else None
    if parsed is None or parsed.text is None:
        return None
    for pattern in _READS:
        match = pattern().fullmatch(expression)
        if match is None:
            continue
        inner = match["x"]
        offset = operand.expression_span.start + match.start("x")
        fmt = _format_of(resolve_type(parsed, inner, offset))
        return (fmt, inner) if fmt is not None else None
    return None


def _mma_types(instruction: PtxInstruction) -> tuple[str, ...] | None:
    """``mma``'s d, a, b, c types in operand order (`.f32.bf16.bf16.f32`)."""
    words = [m for m in instruction.modifiers if m in FLOAT_TYPES or m in ("s8", "u8", "s32")]
    return tuple(words) if len(words) == 4 else None


def slot_formats(instruction: PtxInstruction) -> dict[int, str]:
    """For each asm operand (``%N``) the instruction reads as a floating-point value, the PTX
    type it reads it as; empty where the instruction's operand types are not known."""
    found: dict[int, str] = {}
    if instruction.opaque:
        return found
    if instruction.opcode == "mma":
        types = _mma_types(instruction)
        if types is None:
            return found
        for operand, ptx_type in zip(instruction.operands, types, strict=False):
            # a fragment register of 16-bit elements holds two of them (PTX ISA, mma's
            # fragment layouts: ".f16x2 / .bf16x2 registers")
            ptx_type = {"f16": "f16x2", "bf16": "bf16x2"}.get(ptx_type, ptx_type)
            if ptx_type in FLOAT_TYPES:
                for ref in _refs(operand):
                    found.setdefault(ref, ptx_type)
        return found
    known = operand_types(instruction.opcode, instruction.modifiers)
    if known is None:
        return found
    for operand, name in zip(instruction.operands, known.names, strict=False):
        if name in FLOAT_TYPES and operand.kind == "ref" and operand.ref is not None:
            found.setdefault(operand.ref, name)
    return found


def _refs(operand: PtxOperand) -> list[int]:
    if operand.kind == "ref" and operand.ref is not None:
        return [operand.ref]
    return [r for part in operand.parts for r in _refs(part)]


def statement_slots(statement: AsmStatement) -> dict[int, tuple[str, PtxInstruction]]:
    """Each asm operand's first floating-point reading in the template, with its instruction."""
    found: dict[int, tuple[str, PtxInstruction]] = {}
    for instruction in statement.ptx.instructions:
        for ref, ptx_type in slot_formats(instruction).items():
            found.setdefault(ref, (ptx_type, instruction))
    return found


# ---------------------------------------------------------------------------- constants

_LITERAL = on_first_use(
    r"(?:\(\s*(?:const\s+)?[\w:]+\s*\)\s*|static_cast\s*<\s*[\w:]+\s*>\s*)?"
    r"\(?\s*(?P<n>0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?"
)
_HALF_FORMATS = ("f16", "bf16")


def _decode(bits: int, fmt: str) -> float:
    if fmt == "f16":
        return float(struct.unpack("<e", struct.pack("<H", bits))[0])
    return float(struct.unpack("<f", struct.pack("<I", bits << 16))[0])


def _round(value: float) -> bool:
    """A number an author writes as a constant: a multiple of 1/16 up to 2^16 (1.0, 0.5,
    -64, 1024, 1/16), not a tiny or huge power of two that only a misread encoding gives."""
    return math.isfinite(value) and value != 0 and abs(value) <= 65536 and (value * 16).is_integer()


class ConstantReading(NamedTuple):
    """A literal in a 16-bit float slot whose halves are round numbers in another format only."""

    literal: int
    slot: tuple[float, ...]  # the halves as the instruction reads them
    other_format: str
    other: tuple[float, ...]  # the halves in the format they are round in


def constant_reading(expression: str, ptx_type: str) -> ConstantReading | None:
    """For an integer literal bound to an operand the instruction reads as f16/bf16 (or their
    x2 pairs): the other 16-bit format in which every non-zero half is a round number while
    in the slot's format none is; None otherwise (or where the expression is no literal)."""
    want = base_format(ptx_type)
    if want not in _HALF_FORMATS:
        return None
    match = _LITERAL().fullmatch(expression.strip())
    if match is None:
        return None
    value = int(match["n"], 0)
    if not 0 <= value < 1 << 32:
        return None
    halves = [value & 0xFFFF, value >> 16] if ptx_type.endswith("x2") else [value & 0xFFFF]
    if not ptx_type.endswith("x2") and value >> 16:
        return None
    halves = [h for h in halves if h & 0x7FFF]  # zeros read the same in both
    if not halves:
        return None
    other = next(f for f in _HALF_FORMATS if f != want)
    slot = tuple(_decode(h, want) for h in halves)
    others = tuple(_decode(h, other) for h in halves)
    if any(_round(v) for v in slot) or not all(_round(v) for v in others) \
            or all(_rebias(v, want) for v in slot):
        return None
    return ConstantReading(value, slot, other, others)


# The exponent biases of the narrower float formats whose bits code shifts into a 16-bit
# float's fields: f16 and e5m2 (15), e4m3 (7), e3m2 (3), e2m3 and e2m1 (1)
_NARROW_BIASES = (15, 7, 3, 1)
_BIAS = {"f16": 15, "bf16": 127}


def _rebias(value: float, fmt: str) -> bool:
    """``value`` is ±2^(bias of ``fmt`` − bias of a narrower format), or its reciprocal:
    the factor that corrects the exponent of bits shifted into ``fmt``'s fields. flashinfer
    turns e2m1 into bf16 by shifting the f16 bits right by 3 and multiplying by bf16
    0x7780 = 2^112 (127 − 15), which the f16 reading calls 30720; the f16 misreads these
    exempt are 30720 and 61440, no constant anyone writes."""
    if value == 0 or not math.isfinite(value):
        return False
    mantissa, exponent = math.frexp(abs(value))
    shift = abs(exponent - 1)
    return mantissa == 0.5 and shift > 16 and any(
        shift == _BIAS[fmt] - bias for bias in _NARROW_BIASES)
