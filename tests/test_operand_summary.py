"""The statement features found in one pass over the operands and the ``%`` tokens
(ptxlint.analysis.operand_summary): each holds exactly where its definition does, and the engine
calls a rule that needs one only on the statements where it holds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from ptxlint.analysis.operand_summary import SUMMARY_NEEDS, summary_of
from ptxlint.analysis.template_refs import comment_refs
from ptxlint.constraints import VALID_CLOBBERS, VALID_LETTERS
from ptxlint.engine import RulePlan
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import NEEDS, Rule, RuleContext
from tests.conftest import rule_fixture_statements

_STATEMENTS = rule_fixture_statements()


def _known(statement: AsmStatement) -> list[tuple[str, str, str]]:
    return [(o.role, o.constraint.letters, o.constraint.modifiers)
            for o in statement.operands if not o.constraint.opaque]


def _refs(statement: AsmStatement) -> set[int]:
    return {t.index for t in statement.ptx.percents if t.kind == "ref" and t.index is not None}


# Each feature by its definition, operand by operand and token by token.
_DEFINITIONS = {
    "operands": lambda s: bool(s.operands),
    "outputs": lambda s: any(o.role == "output" for o in s.operands),
    "inputs": lambda s: any(o.role == "input" for o in s.operands),
    "write-only-outputs": lambda s: any(
        role == "output" and "=" in modifiers and "+" not in modifiers
        for role, _, modifiers in _known(s)
    ),
    "immediate-operand": lambda s: any(letters == "n" for _, letters, _ in _known(s)),
    "several-letters": lambda s: any(
        len(letters) > 1 and not letters.isdigit() for _, letters, _ in _known(s)
    ),
    "tied-operands": lambda s: any(letters.isdigit() for _, letters, _ in _known(s)),
    "foreign-letters": lambda s: any(
        not letters.isdigit() and any(c not in VALID_LETTERS and not c.isspace() for c in letters)
        for _, letters, _ in _known(s)
    ),
    "foreign-clobbers": lambda s: any(c.name not in VALID_CLOBBERS for c in s.clobbers),
    "misplaced-modifiers": lambda s: any(
        (modifiers and ("n" in letters or "C" in letters))
        or (role == "output" and "=" not in modifiers and "+" not in modifiers)
        or (role == "input" and ("=" in modifiers or "+" in modifiers))
        for role, letters, modifiers in _known(s)
    ),
    "indexed-operands": lambda s: len([o for o in s.operands if "[" in o.expression or (
        o.expression.rstrip()[-2:] in (".x", ".y", ".z", ".w"))]) >= 3,
    "percents": lambda s: bool(s.ptx.percents),
    "unreferenced-operands": lambda s: any(o.index not in _refs(s) for o in s.operands),
    # with the references nvcc reads inside PTX comments (``comment_refs``)
    "stray-references": lambda s: any(
        t.kind == "named" or (t.kind == "ref" and t.index is not None
                              and t.index >= len(s.operands))
        for t in (*s.ptx.percents, *(c for c in comment_refs(s) if not c.modifier))
    ),
    "modified-references": lambda s: any(t.kind == "ref" and t.modifier
                                         for t in (*s.ptx.percents, *comment_refs(s))),
    "percent-escapes": lambda s: any(
        t.kind in ("escape", "trailing", "bare", "bad-dollar")
        or (t.kind == "unique" and s.extended and not s.operands) for t in s.ptx.percents
    ),
}


def test_every_summarized_feature_is_a_need_with_a_definition() -> None:
    assert set(SUMMARY_NEEDS) == set(_DEFINITIONS)
    assert set(SUMMARY_NEEDS) <= set(NEEDS)


def test_each_feature_holds_exactly_where_its_definition_does() -> None:
    for name, definition in _DEFINITIONS.items():
        held = 0
        for statement in _STATEMENTS:
            holds = name in summary_of(statement).holds
            assert holds == bool(definition(statement)), (name, statement.template.text)
            assert NEEDS[name](statement) == holds
            held += holds
        assert 0 < held < len(_STATEMENTS), name  # the fixtures show it both ways


def test_the_referenced_numbers_are_the_templates_refs() -> None:
    for statement in _STATEMENTS:
        assert summary_of(statement).referenced == _refs(statement)


def test_write_only_outputs_is_whether_some_output_has_equals_without_plus() -> None:
    held = 0
    for statement in _STATEMENTS:
        expected = any(
            o.role == "output" and not o.constraint.opaque
            and "=" in o.constraint.modifiers and "+" not in o.constraint.modifiers
            for o in statement.operands
        )
        assert summary_of(statement).write_only_outputs == expected, statement.template.text
        held += expected
    assert 0 < held < len(_STATEMENTS)


class _Counting(Rule):
    id = "PTX999"
    name = "counting"
    severity = Severity.INFO
    summary = docs = ""
    needs: ClassVar[tuple[str, ...]] = ("several-letters", "stray-references")
    seen: ClassVar[list[AsmStatement]] = []

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        self.seen.append(statement)
        return iter(())


def test_the_engine_calls_a_rule_only_where_one_of_its_needs_holds() -> None:
    plan = RulePlan([_Counting()], memo=False)
    context = RuleContext()
    for statement in _STATEMENTS:
        plan.outcomes(statement, context)
    wanted = [
        s for s in _STATEMENTS
        if _DEFINITIONS["several-letters"](s) or _DEFINITIONS["stray-references"](s)
    ]
    assert wanted and _Counting.seen == wanted


def test_immediate_outputs_is_whether_some_output_has_the_letter_n() -> None:
    from ptxlint.engine import extract_statements
    from ptxlint.model import SourceFile

    made = extract_statements(SourceFile("t.cu", (
        '__device__ void f(int a) { asm("mov.u32 %0, 1;" : "=n"(a)); }\n'
        '__device__ void g(int a) { asm("mov.u32 %0, %1;" : "=r"(a) : "n"(4)); }\n'
    ))).statements
    held = 0
    for statement in [*_STATEMENTS, *made]:
        expected = any(
            o.role == "output" and not o.constraint.opaque and o.constraint.letters == "n"
            for o in statement.operands
        )
        assert summary_of(statement).immediate_outputs == expected, statement.template.text
        held += expected
    assert 0 < held < len(_STATEMENTS)


def test_float_operands_is_whether_some_operand_is_f_or_d_as_the_judge_reads_them() -> None:
    from ptxlint.ptx.judge import _ref_classes

    held = 0
    for statement in _STATEMENTS:
        expected = any(
            not o.constraint.opaque and o.constraint.letters in ("f", "d")
            for o in statement.operands
        )
        floats = summary_of(statement).float_operands
        assert floats == expected, statement.template.text
        # the judge's own reading: only such a statement has verdicts that depend on whether
        # nvcc declares "f"/"d" as float or bit registers (PTX206 asks the target only then)
        assert floats == _ref_classes(statement).floats, statement.template.text
        held += expected
    assert 0 < held < len(_STATEMENTS)


def test_the_kinds_of_constraints_read_together_say_what_each_statement_says_alone() -> None:
    # the summary reads a set of constraint kinds once for every statement that spells it: a
    # statement summarized after others with other kinds holds what it holds summarized first
    from ptxlint.analysis import operand_summary

    alone = []
    for statement in _STATEMENTS:
        operand_summary._BY_KINDS.clear()
        alone.append(operand_summary._summarize(statement))
    together = [operand_summary._summarize(s) for s in reversed(_STATEMENTS)][::-1]
    assert together == alone
