"""The PTX layer's memos by spelling give what the unmemoised paths give.

``grammar._written_by_spelling`` answers ``written_positions`` from the instruction's
spelling alone when every form that spells it writes the same operands.
"""

from __future__ import annotations

import random

import pytest

from ptxlint.model import PtxInstruction, PtxOperand
from ptxlint.ptx import grammar
from ptxlint.ptx.effects import _unknown_operand
from ptxlint.ptx.grammar import OperandClass, check, written_positions
from ptxlint.ptx.parser import parse_template

# --------------------------------------------------------------------------- written positions


def _spellings() -> list[str]:
    """A random spelling of every form (some slots left out, some words out of the form), with
    operands of every kind."""
    rng = random.Random(3)
    operands = ["%0", "{%0, %1, %2, %3}", "[%0]", "%0|%1", "_", "p", "1", "%0, %1", ""]
    out = []
    for form in grammar.forms():
        for _ in range(3):
            words = [rng.choice(s.values).word for s in form.slots
                     if not s.optional or rng.random() < 0.5]
            if rng.random() < 0.2:
                words.append(rng.choice(["u32", "f16", "sync", "shared"]))
            count = len(form.operands) + rng.choice([0, 0, 0, -1, 1])
            listed = ", ".join(rng.choice(operands) for _ in range(max(count, 0)))
            out.append(f"{form.opcode}{''.join('.' + w for w in words)} {listed};")
    return out


def _by_check(instruction: PtxInstruction, resolve: grammar.Resolver) -> tuple[int, ...] | None:
    verdict = check(instruction, resolve)
    return None if verdict.form is None else verdict.written


def _register(operand: PtxOperand) -> OperandClass:
    return OperandClass("reg", "b32") if operand.kind == "ref" else OperandClass("unknown")


def test_written_positions_by_spelling_are_the_checked_ones() -> None:
    for text in _spellings():
        for instruction in parse_template(text, True).instructions:
            for resolve in (_unknown_operand, _register):
                assert written_positions(instruction, resolve) == _by_check(
                    instruction, resolve), text


def test_forms_that_disagree_fall_back_to_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """No spelling in the grammar has forms that write different operands today; where one
    does, the operands decide, as ``check`` does."""
    monkeypatch.setattr(grammar, "_written_by_spelling", lambda opcode, modifiers: (False, None))
    for text in _spellings()[::7]:
        for instruction in parse_template(text, True).instructions:
            assert written_positions(instruction, _unknown_operand) == _by_check(
                instruction, _unknown_operand), text
