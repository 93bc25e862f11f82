"""Long templates stay linear: the three places that were quadratic in a template's size give
what their brute-force definitions give, on the rule fixtures and on long generated templates.

- PTX205's ``_runs_together`` (``ptxlint.analysis.glued_pieces``: a bisect over ranges sorted
  by start, with a running maximum of their ends, instead of testing every range for every
  word);
- ``flow._successors`` (each label's target found by a bisect over instruction starts);
- ``judge._registers_of`` (a template's ``.reg`` declarations read once, not per instruction).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ptxlint_rules import ptx205_missing_instruction_separator as ptx205

from ptxlint.analysis import glued_pieces as glued
from ptxlint.engine import extract_statements
from ptxlint.model import AsmStatement, PtxTemplate, SourceFile
from ptxlint.ptx import flow, judge

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rules"


def _statements(path: str, text: str) -> list[AsmStatement]:
    return [s for s in extract_statements(SourceFile(path, text)).statements if s.ptx is not None]


def _generated() -> list[tuple[str, str]]:
    n = 300
    lines = "".join(f'      "L{i}: @p bra L{(i * 7) % n};\\n"\n      "add.u32 r0, r0, %1;"\n' for i in range(n))
    branches = (
        '__device__ unsigned f(unsigned a) {\n  unsigned d;\n  asm volatile("{\\n .reg .u32 r0;\\n'
        ' .reg .pred p;\\n setp.eq.u32 p, %1, 0;\\n mov.u32 r0, %1;\\n"\n'
        f'{lines}      "mov.u32 %0, r0;\\n}}\\n" : "=r"(d) : "r"(a));\n  return d;\n}}\n'
    )
    # run-together pieces: every other line lacks its ';'
    pieces = "".join(f'      "add.u32 r{i % 9}, r{(i + 1) % 9}, %1{";" if i % 2 else ""}"\n' for i in range(n))
    regs = "".join(f'      ".reg .u32 r{i};\\n"\n' for i in range(9))
    together = (
        '__device__ unsigned g(unsigned a) {\n  unsigned d;\n  asm volatile("{\\n"\n'
        f'{regs}{pieces}      "mov.u32 %0, r0;\\n}}\\n" : "=r"(d) : "r"(a));\n  return d;\n}}\n'
    )
    return [("branches.cu", branches), ("together.cu", together)]


def _sources() -> list[tuple[str, str]]:
    fixtures = [
        (str(p), p.read_text(encoding="utf-8"))
        for p in sorted(FIXTURES.glob("PTX*.cu"))
    ]
    return fixtures + _generated()


def _runs_together_by_definition(ptx: PtxTemplate, text: str) -> bool:
    ranges = [(i.opcode_end, i.end) for i in ptx.instructions]
    ranges += [
        (p.start + 1, p.end + 1) for p in ptx.problems if p.kind == "separator"
    ]
    for m in glued._OPCODE_TAIL().finditer(text):
        word = m.group()
        begins = [m.start()] if word == "@" else [m.start() + k for k in glued._opcode_tails(word)]
        for begin in begins:
            first = begin
            while first > 0 and text[first - 1] in glued.BLANK:
                first -= 1
            if any(low <= begin and first < high for low, high in ranges):
                return True
    return False


def _targets_by_definition(ptx: PtxTemplate) -> dict[str, int]:
    n = len(ptx.instructions)
    return {
        label.name: next((i for i, ins in enumerate(ptx.instructions) if ins.start >= label.end), n)
        for label in ptx.labels
    }


@pytest.fixture(scope="module")
def statements() -> list[AsmStatement]:
    found = [s for path, text in _sources() for s in _statements(path, text)]
    assert len(found) > 50
    return found


def test_runs_together_is_its_definition(statements: list[AsmStatement]) -> None:
    answers = set()
    for statement in statements:
        expected = _runs_together_by_definition(statement.ptx, statement.template.text)
        assert glued._runs_together(statement.ptx, statement.template.text) is expected
        answers.add(expected)
    assert answers == {True, False}  # both outcomes were exercised


def test_long_run_together_template_is_reported() -> None:
    (statement,) = _statements(*_generated()[1])
    rule = ptx205.MissingInstructionSeparator()
    from ptxlint.rule import RuleContext

    found = list(rule.check(statement, RuleContext()))
    assert len(found) >= 100  # each piece missing its ';' before the next instruction


def test_label_targets_are_their_definition(statements: list[AsmStatement]) -> None:
    labelled = [s for s in statements if s.ptx.labels]
    assert any(len(s.ptx.labels) >= 300 for s in labelled)
    for statement in labelled:
        successors = flow._successors(statement.ptx)
        expected = _targets_by_definition(statement.ptx)
        if successors is None:
            continue
        for i, ins in enumerate(statement.ptx.instructions):
            if ins.opcode == "bra" and ins.operands:
                assert expected[ins.operands[0].text] in successors[i]


def test_registers_read_once_per_template(statements: list[AsmStatement]) -> None:
    for statement in statements:
        registers, key = judge._registers_of(statement)
        assert registers == judge._declared_registers(statement)
        assert key == tuple(registers.items())
    # the memo answers for the template, never for another one
    a, b = statements[0], statements[-1]
    judge._registers_of(a)
    assert judge._registers_of(b)[0] == judge._declared_registers(b)
