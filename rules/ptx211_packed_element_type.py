"""PTX211 packed-element-type-mismatch."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.element_types import (
    ConstantReading,
    base_format,
    carried_format,
    constant_reading,
    statement_slots,
)
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, PtxInstruction, Severity
from ptxlint.rule import Rule, RuleContext

# Formats whose bits are read one way only: f16 and bf16 share a width and nothing else.
_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "e4m3": 8, "e5m2": 8}


class PackedElementTypeMismatch(Rule):
    id = "PTX211"
    name = "packed-element-type-mismatch"
    pure = False  # reads the file's types through the parsed tree
    scope = "statement"
    severity = Severity.ERROR
    needs = ("instructions",)
    summary = "A packed value's element type is not the type the instruction reads it as"
    tags = ("correctness", "types", "operands")
    docs = """\
## What it does
Follows the element type of a floating-point value through the C++ reinterpretation that
hands its bits to an asm operand (`*(uint32_t*)&h2`, `*reinterpret_cast<unsigned*>(&x)`,
`reinterpret_cast<unsigned&>(x)`, `std::bit_cast<uint32_t>(x)`, `__half_as_ushort(h)`,
`__float_as_uint(f)`) into the instruction that reads the register, and flags a reading as
another format of the same width: `__half2` bits in a `.bf16x2` operand, `__nv_bfloat162`
in an `mma ... .f16.f16` A fragment, `float` bits in `.f16x2` (`ptxlint.analysis.
element_types`).

An integer constant in such an operand is judged by the numbers it encodes: when every
non-zero half reads as a round number (a multiple of 1/16 up to 65536: 1.0, 0.5, -64, 1024)
in the other 16-bit format and as none in the instruction's, it is that format's encoding
written for the wrong instruction: `0x3C003C00` (f16 {1, 1}) in a `.bf16` mma fragment is
{2^-7, 2^-7} (`ptxlint.analysis.element_types.constant_reading`). A power of two that
corrects an exponent bias is no misread: bf16 2^112 (`0x7780`) and 2^120 (`0x7B80`) turn
f16/e5m2 and e4m3 bits shifted into bf16's fields into their values.

The operand types come from the instruction: its type for arithmetic (`fma.rn.bf16x2` reads
bf16x2 everywhere), source and destination types for `cvt`, and `mma`'s d/a/b/c types. An
integer or bit-typed operand carries any bits and is never flagged; nor is a value whose C++
type ptxlint cannot resolve.

## Why is this bad?
A register holds bits, and the instruction decodes them in its own type (PTX ISA, "Operand
Type Information"; `mma`'s "The elements of matrix A are of type .atype"). f16 and bf16 are
both 16 bits with different exponent widths: f16's 1.0 (0x3C00) read as bf16 is 0.0078125, and
bf16's 1.0 (0x3F80) read as f16 is 1.875. Nothing reports it: the operand is `"r"`, a 32-bit
register, which both types fit. On an H200 (CUDA 13.0), the example below computes
`fma.rn.bf16x2` of `__half2(1.0)`'s bits times bf16 1.0 and gets 0.0078125; with the
`__nv_bfloat162` it gets 1 (tests/test_packed_element_types.py compiles it with nvcc, and
runs it wherever a GPU is present).

## Example
```cuda
__half2 h2 = __float2half2_rn(1.0f);
asm("fma.rn.bf16x2 %0, %1, %2, %3;"
    : "=r"(d) : "r"(*reinterpret_cast<unsigned*>(&h2)), "r"(b), "r"(c));
```

## Use instead
```cuda
__nv_bfloat162 b2 = __float2bfloat162_rn(1.0f);
asm("fma.rn.bf16x2 %0, %1, %2, %3;"
    : "=r"(d) : "r"(*reinterpret_cast<unsigned*>(&b2)), "r"(b), "r"(c));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if not statement.extended or statement.syntax != "gnu" or statement.opaque_sections:
            return
        slots = statement_slots(statement)
        if not slots or analysis_of(statement).rocm_guarded:
            return
        parsed = context.parsed if getattr(context.parsed, "text", None) is statement.source.text \
            else None
        operands = statement.operands
        # one finding per instruction and format: an mma fragment of four registers filled
        # from one wrong-typed array is one defect
        groups: dict[tuple[int, str, str], list[tuple[int, str]]] = {}
        constants: list[tuple[int, str, PtxInstruction, ConstantReading]] = []
        for index, (ptx_type, instruction) in sorted(slots.items()):
            if index >= len(operands):
                continue
            carried = carried_format(operands[index], parsed)  # type: ignore[arg-type]
            if carried is None:
                reading = constant_reading(operands[index].expression, ptx_type)
                if reading is not None:
                    constants.append((index, ptx_type, instruction, reading))
                continue
            fmt, source = carried
            want, have = base_format(ptx_type), base_format(fmt)
            if want == have or _WIDTH.get(want) != _WIDTH.get(have):
                continue  # the same format, or a width change (another defect)
            key = (statement.ptx.instructions.index(instruction), ptx_type, fmt)
            groups.setdefault(key, []).append((index, source))
        for (position, ptx_type, fmt), found in groups.items():
            instruction = statement.ptx.instructions[position]
            first = operands[found[0][0]]
            want, have = base_format(ptx_type), base_format(fmt)
            if len(found) == 1:
                what = (f"operand {first.index} ('{' '.join(first.expression.split())}') carries "
                        f"the bits of '{found[0][1]}' ({fmt})")
            else:
                listed = ", ".join(str(i) for i, _ in found)
                what = (f"operands {listed} carry the bits of {fmt} values "
                        f"('{found[0][1]}', ...)")
            yield self.finding(
                statement,
                first.span,
                f"{what}, but '{instruction.mnemonic}' reads them as .{ptx_type}: {have} and "
                f"{want} encode numbers differently, so every element is read as another value; "
                "convert the value (cvt) or bind one of the instruction's type",
            )
        # one finding per instruction for its misread constants
        seen: set[int] = set()
        for index, ptx_type, instruction, reading in constants:
            if id(instruction) in seen:
                continue
            seen.add(id(instruction))
            operand = operands[index]
            slot = ", ".join(f"{v:g}" for v in reading.slot)
            other = ", ".join(f"{v:g}" for v in reading.other)
            yield self.finding(
                statement,
                operand.span,
                f"constant {operand.expression.strip()} (0x{reading.literal:08X}) is read by "
                f"'{instruction.mnemonic}' as .{ptx_type} {{{slot}}}, but it is the "
                f"{reading.other_format} encoding of {{{other}}}: the bits of another format; "
                f"write the .{base_format(ptx_type)} encoding of the value meant",
            )
