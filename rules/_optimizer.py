"""Shared by PTX101-PTX104: what a statement's template does that the optimizer cannot see,
and the exact edits that fix it. Not a rule module (rules/__init__ collects ``ptx*`` only)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ptxlint.file_traits import spells_volatile_underscores
from ptxlint.model import AsmStatement, Edit, Fix, PtxInstruction, PtxOperand, PtxTemplate, Span
from ptxlint.ptx.effects import lookup, special_register
from ptxlint.ptx.template_memo import TemplateMemo


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
        if ins.opaque:
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
        if ins.opaque:
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


# --------------------------------------------------------------------------- fixes


def volatile_spelling(statement: AsmStatement) -> str:
    """``__volatile__`` where the statement or its file spells it so, else ``volatile``."""
    if statement.keyword != "asm" or spells_volatile_underscores(statement.source):
        return "__volatile__"
    return "volatile"


def add_volatile(statement: AsmStatement) -> Fix | None:
    text = statement.source.text
    start = statement.span.start
    end = start + len(statement.keyword)
    if text[start:end] != statement.keyword:
        return None  # the keyword is not spelled here (a macro)
    word = volatile_spelling(statement)
    return Fix(f"Add '{word}' after '{statement.keyword}'", (Edit(Span(end, end), " " + word),))


def _last_element_end(statement: AsmStatement) -> int:
    ends = [piece.span.end for piece in statement.template.pieces]
    ends += [o.span.end for o in statement.operands]
    ends += [c.span.end for c in statement.clobbers]
    ends += [c + 1 for c in statement.colons]
    return max(ends, default=statement.open_paren + 1)


def add_memory_clobber(statement: AsmStatement) -> Fix | None:
    """Append ``"memory"`` to the clobbers, creating the missing colon sections."""
    if statement.opaque_sections or statement.goto_labels:
        return None
    text = statement.source.text
    colons = statement.colons
    if len(colons) >= 3:
        if statement.clobbers:
            at = statement.clobbers[-1].span.end
            return _fix(Span(at, at), ', "memory"')
        at = colons[2] + 1
        return _fix(Span(at, at), ' "memory"')
    at = _last_element_end(statement)
    # Only blanks may separate the last element from ')': never insert into a comment.
    if text[at : statement.close_paren].strip():
        return None
    if not colons and "%" in statement.template.text:
        return None  # basic -> extended would change what '%' means
    sections = {0: ' ::: "memory"', 1: ' :: "memory"', 2: ' : "memory"'}[len(colons)]
    return _fix(Span(at, at), sections)


def _fix(span: Span, new_text: str) -> Fix:
    return Fix('Add a "memory" clobber', (Edit(span, new_text),))


def make_read_write(statement: AsmStatement, index: int) -> Fix | None:
    """Turn output ``index``'s ``=`` into ``+`` inside its constraint literal."""
    operand = statement.operands[index]
    constraint = operand.constraint
    if constraint.opaque:
        return None
    literal = statement.source.text[constraint.span.start : constraint.span.end]
    if not literal.startswith('"') or literal.count("=") != 1:
        return None
    at = constraint.span.start + literal.index("=")
    return Fix(f"Declare operand %{index} read-write ('+')", (Edit(Span(at, at + 1), "+"),))
