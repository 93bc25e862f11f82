"""Verdicts on LLVM-syntax asm (Triton, llvmlite): which interpreter compiles the probes, and
what the register LLVM bound an operand to says about a width claim."""

from __future__ import annotations

import os
import sys

from ptxlint.model import Finding
from ptxlint.verify import triton_probe
from ptxlint.verify.recipes import TRITON_WIDTH
from ptxlint.verify.target_choice import DEFAULT_ARCH
from ptxlint.verify.verdict import CONFIRMED, REFUTED, Verdict, unverifiable


def triton_python() -> str:
    """The interpreter whose Triton compiles the probes: PTXLINT_TRITON_PYTHON, else ours."""
    return os.environ.get("PTXLINT_TRITON_PYTHON") or sys.executable


def width_verdict(finding: Finding, ptx: str, tool: str, arch: str = DEFAULT_ARCH) -> Verdict:
    """PTX004 on a Triton call that compiles: the claim is that LLVM binds a value of one width
    to a register of another, which Triton's PTX shows in the register it put for the operand
    (``%r5`` for an int64 result under 'r'); the register of the value's own width refutes it."""
    statement = finding.statement
    assert statement is not None
    operand = next((o for o in statement.operands if o.span == finding.span), None)
    letter = operand.constraint.letters if operand is not None else ""
    ctype = operand.ctype if operand is not None else None
    if operand is None or ctype is None or ctype.size is None or letter not in (
            triton_probe.LETTER_BITS):
        return unverifiable("the finding names no operand of a known type", arch, tool,
                            TRITON_WIDTH)
    registers = triton_probe.operand_registers(ptx, statement, operand.index)
    if not registers:
        return unverifiable(f"{tool} compiles the call, but its asm is not recognisable in the "
                            "PTX", arch, tool, TRITON_WIDTH)
    widths = {triton_probe.register_bits(r) for r in registers}
    bits, width = ctype.size * 8, triton_probe.LETTER_BITS[letter]
    named = f"{statement.ref_prefix}{operand.index}"
    if widths == {width} and width != bits:
        return Verdict(CONFIRMED, tool, arch,
                       f"{tool} compiles the call for {arch} with {named} in {registers[0]}, a "
                       f"{width}-bit register, for the {ctype.spelling} ({bits} bits)",
                       TRITON_WIDTH)
    if widths == {bits}:
        return Verdict(REFUTED, tool, arch,
                       f"{tool} compiles the call for {arch} with {named} in {registers[0]}, a "
                       f"{bits}-bit register", TRITON_WIDTH)
    spelled = ", ".join(sorted(set(registers)))
    return unverifiable(f"{tool} compiles the call with {named} in {spelled}", arch, tool,
                        TRITON_WIDTH)
