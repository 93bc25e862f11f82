"""How a template uses one asm operand: the instructions that name it and in which role.

Read by the operand-contract rules (PTX004's fixes, PTX009). Reads the parsed template only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ptxlint.model import AsmStatement, PtxInstruction, PtxOperand

_SPACES = ("shared", "global", "local", "const", "param")

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


@dataclass(frozen=True)
class Use:
    """One place a template's instruction names an asm operand, and whether it is inside an address
    (of which state space)."""

    instruction: PtxInstruction
    space: str | None  # the state space of the address it sits in; None: not an address
    in_address: bool


def _space(modifier: str) -> str | None:
    head = modifier.split("::")[0]
    return head if head in _SPACES else None


def uses(statement: AsmStatement, index: int) -> Iterator[Use]:
    """Every place an instruction of the template names ``%index``."""
    for instruction in statement.ptx.instructions:
        spaces = [s for m in instruction.modifiers if (s := _space(m)) is not None]
        address_number = 0
        for operand in instruction.operands:
            if operand.kind == "address":
                # state spaces in the mnemonic name the address operands in order (dst, src)
                if len(spaces) == 1:
                    space: str | None = spaces[0]
                elif address_number < len(spaces):
                    space = spaces[address_number]
                else:
                    space = None
                address_number += 1
                if _names(operand, index):
                    yield Use(instruction, space, True)
            elif _names(operand, index):
                yield Use(instruction, None, False)


def _names(operand: PtxOperand, index: int) -> bool:
    if operand.kind == "ref":
        return operand.ref == index
    return any(_names(part, index) for part in operand.parts)


def referenced(statement: AsmStatement) -> set[int]:
    """Operand numbers the template mentions with ``%N`` (modifiers such as ``%n1`` included)."""
    return {t.index for t in statement.ptx.percents if t.kind == "ref" and t.index is not None}


def value_types(instruction: PtxInstruction) -> frozenset[str]:
    """The type modifiers (``u32``, ``f64``...) an instruction spells."""
    return frozenset(m for m in instruction.modifiers if m in _ALL_TYPES)
