"""How a template uses one asm operand: the instructions that name it and in which role.

Read by the operand-contract rules (PTX004's fixes, PTX009, PTX301's fix). Where the template
names each operand is the template's index (:mod:`ptxlint.analysis.template_refs`).
"""

from __future__ import annotations

from ptxlint.analysis.template_refs import Use, refs_of
from ptxlint.model import AsmStatement, PtxInstruction

__all__ = ["LETTER_TYPES", "Use", "referenced", "uses", "value_types"]

# PTX type modifiers by the register class and width they need, per constraint letter.
LETTER_TYPES: dict[str, frozenset[str]] = {
    "h": frozenset({"u16", "s16", "b16", "f16", "bf16"}),
    "r": frozenset({"u32", "s32", "b32"}),
    "l": frozenset({"u64", "s64", "b64"}),
    "q": frozenset({"b128"}),
    "f": frozenset({"f32"}),
    "d": frozenset({"f64"}),
}
_ALL_TYPES = frozenset().union(*LETTER_TYPES.values()) | {"u8", "s8", "b8", "f16x2", "bf16x2"}


def uses(statement: AsmStatement, index: int) -> tuple[Use, ...]:
    """Every place an instruction of the template names ``%index``, in instruction and operand
    order (the template's index answers every operand from one pass)."""
    return refs_of(statement).uses(index)


def referenced(statement: AsmStatement) -> frozenset[int]:
    """Operand numbers the template mentions with ``%N`` (modifiers such as ``%n1`` included)."""
    return refs_of(statement).referenced


def value_types(instruction: PtxInstruction) -> frozenset[str]:
    """The type modifiers (``u32``, ``f64``...) an instruction spells."""
    return frozenset(m for m in instruction.modifiers if m in _ALL_TYPES)
