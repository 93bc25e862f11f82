"""What a statement's template does that the optimizer cannot see: the effects that need
``volatile`` (PTX101, PTX505) and those that need a ``"memory"`` clobber (PTX102, PTX505).

An instruction no PTX form spells (``st.glob.u32``: the root cause PTX204 reports, see
:mod:`ptxlint.analysis.roots`) has no effects here: what it does is unknown until it is spelled
right, and its effects would only echo the typo.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ptxlint.analysis.roots import unknown_spelling
from ptxlint.model import AsmStatement, PtxInstruction, PtxOperand, PtxTemplate
from ptxlint.ptx.effects import lookup, special_register
from ptxlint.ptx.template_memo import TemplateMemo

__all__ = ["Effect", "memory_effects", "side_effects"]


@dataclass(frozen=True)
class Effect:
    """One reason a template is more than a function of its inputs."""

    what: str  # e.g. "'st.global.u32' writes memory", "'%clock' changes while the thread runs"
    start: int  # template offsets of the piece to point at
    end: int
    # Only issues a memory access that another unit performs later (cp.async, wgmma.mma_async):
    # C++ sees it after a separate wait, which is where ordering belongs.
    asynchronous: bool = False


def _specials(operands: tuple[PtxOperand, ...]) -> Iterator[PtxOperand]:
    for operand in operands:
        if operand.kind == "special":
            yield operand
        yield from _specials(operand.parts)


def _mnemonic(instruction: PtxInstruction) -> str:
    return instruction.mnemonic


# Effects by template and list: both lists depend on the template's parse alone, which
# the engine shares between the statements that spell it.
_EFFECTS: TemplateMemo[tuple[Effect, ...]] = TemplateMemo(2048)


def _of_template(
    which: str, ptx: PtxTemplate, compute: Callable[[PtxTemplate], list[Effect]]
) -> list[Effect]:
    return list(_EFFECTS.of(ptx, lambda: tuple(compute(ptx)), which))


def side_effects(statement: AsmStatement) -> list[Effect]:
    """Effects that need ``volatile``: PTX101's list."""
    return _of_template("side", statement.ptx, _side_effects)


def _side_effects(ptx: PtxTemplate) -> list[Effect]:
    found: list[Effect] = []
    for ins in ptx.instructions:
        if ins.opaque or unknown_spelling(ins):
            continue
        effects = lookup(ins.opcode, ins.modifiers)
        if effects is not None and effects.side_effect:
            if effects.collective and not effects.memory:
                why = "depends on the other lanes of the warp"
            elif effects.memory in ("write", "readwrite"):
                why = "writes memory"
            elif effects.orders_memory:
                why = "is a barrier or fence"
            else:
                why = "has a side effect"
            found.append(Effect(f"'{_mnemonic(ins)}' {why}", ins.opcode_start, ins.opcode_end))
        for operand in _specials(ins.operands):
            name, register = special_register(operand.text)
            if register is not None and register.changes:
                found.append(
                    Effect(f"'%{name}' changes while the thread runs", operand.start, operand.end)
                )
    return found


def memory_effects(statement: AsmStatement) -> list[Effect]:
    """Instructions that access C++-visible memory or order it: PTX102's list."""
    return _of_template("memory", statement.ptx, _memory_effects)


def _memory_effects(ptx: PtxTemplate) -> list[Effect]:
    found: list[Effect] = []
    for ins in ptx.instructions:
        if ins.opaque or unknown_spelling(ins):
            continue
        effects = lookup(ins.opcode, ins.modifiers)
        if effects is None:
            continue
        if effects.memory:
            verb = {"read": "reads", "write": "writes", "readwrite": "reads and writes"}[
                effects.memory
            ]
            if effects.orders_memory:
                verb += " and orders"
            found.append(
                Effect(
                    f"'{_mnemonic(ins)}' {verb} memory",
                    ins.opcode_start,
                    ins.opcode_end,
                    asynchronous=effects.asynchronous and not effects.orders_memory,
                )
            )
        elif effects.orders_memory:
            found.append(
                Effect(f"'{_mnemonic(ins)}' orders memory", ins.opcode_start, ins.opcode_end)
            )
    return found
