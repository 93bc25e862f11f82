"""Judging one instruction with the grammar, the way the tests of ptxlint/ptx/grammar*.py do:
operands named like the benchmark's registers (``%r3`` a .b32 register, ``%rd1`` a .b64 one...)
get that register class, literals an immediate class, anything else stays unknown."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ptxlint.model import PtxOperand
from ptxlint.ptx import grammar
from ptxlint.ptx.grammar import OperandClass, immediate_class
from ptxlint.ptx.parser import parse_template

Resolver = Callable[[PtxOperand], OperandClass]


def integer_immediate(text: str) -> OperandClass:
    """A literal known only by its integer value (the grammar before literal classes)."""
    return OperandClass("imm", value=grammar.parse_immediate(text))


def register_resolver(
    prefixes: Mapping[str, str], immediate: Callable[[str], OperandClass] = immediate_class
) -> Resolver:
    """Operand classes by name prefix, tried in the mapping's order (``%rd`` before ``%r``)."""

    def resolve(operand: PtxOperand) -> OperandClass:
        if operand.kind == "immediate":
            return immediate(operand.text)
        for prefix, type_ in prefixes.items():
            if operand.text.startswith(prefix) and operand.text[len(prefix):].isdigit():
                return OperandClass("reg", type_)
        return OperandClass("unknown")

    return resolve


def judge(text: str, resolve: Resolver) -> grammar.Verdict:
    """The grammar's verdict on ``text``, a template of exactly one instruction."""
    [instruction] = parse_template(text, True).instructions
    return grammar.check(instruction, resolve)


def vector(prefix: str, n: int) -> str:
    """``{%r0, %r1, ...}``: a vector operand of ``n`` registers named ``prefix``N."""
    return "{" + ", ".join(f"{prefix}{i}" for i in range(n)) + "}"
