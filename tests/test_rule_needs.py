"""A rule's ``needs`` (ptxlint.rule.NEEDS) hold wherever it can say something: the engine skips
the other statements, so a rule must say nothing, and raise nothing, there. Checked on every
statement of the rule fixtures and on copies of them with a feature taken away (no operands,
no outputs, no directives...), which is where a wrong declaration would show."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from ptxlint.engine import NOTHING, RulePlan, instantiate
from ptxlint.model import AsmStatement
from ptxlint.registry import load_rules
from ptxlint.rule import NEEDS, Rule, RuleContext
from tests.conftest import rule_fixture_statements

_RULES = instantiate(load_rules().rules)
_DECLARING = [r for r in _RULES if r.needs]


def _without_features(statement: AsmStatement) -> Iterator[AsmStatement]:
    """The statement, and copies with one feature or another taken away."""
    yield statement
    replace = dataclasses.replace
    ptx = statement.ptx
    yield replace(statement, operands=())
    yield replace(statement, operands=tuple(o for o in statement.operands if o.role != "output"))
    yield replace(statement, operands=tuple(o for o in statement.operands if o.role != "input"))
    yield replace(statement, operands=(), clobbers=())
    yield replace(statement, missing_commas=())
    yield replace(statement, ptx=replace(ptx, directives=()))
    yield replace(statement, ptx=replace(ptx, labels=()))
    yield replace(statement, ptx=replace(ptx, braces=()))
    yield replace(statement, ptx=replace(ptx, percents=()))
    yield replace(statement, ptx=replace(ptx, instructions=()))
    yield replace(statement, operands=tuple(
        o for o in statement.operands if o.constraint.letters != "n"))
    # every instruction runs, in text order: no guard, no branch, nothing that ends the thread
    yield replace(statement, ptx=replace(ptx, instructions=tuple(
        replace(i, predicate=None) for i in ptx.instructions
        if i.opcode not in ("bra", "brx", "ret", "exit", "trap"))))


_CASES = [variant for statement in rule_fixture_statements() for variant in _without_features(statement)]


def test_the_fixtures_reach_every_rule_with_and_without_its_needs() -> None:
    for rule in _DECLARING:
        if rule.needs in (("never",), ("left-out",)):
            continue  # no statement the engine lints has them (asked elsewhere, or never)
        met = [any(NEEDS[n](s) for n in rule.needs) for s in _CASES]
        assert any(met), rule.id
        assert not all(met) or rule.needs == ("llvm",), rule.id


@pytest.mark.parametrize("rule", _DECLARING, ids=lambda r: r.id)
def test_a_rule_says_nothing_where_none_of_its_needs_holds(rule: Rule) -> None:
    context = RuleContext(file_statements=())
    skipped = 0
    for statement in _CASES:
        if any(NEEDS[n](statement) for n in rule.needs):
            continue
        skipped += 1
        context = dataclasses.replace(context, file_statements=(statement,))
        assert list(rule.check(statement, context)) == [], (rule.id, statement.template.text)
    assert skipped, rule.id


def test_the_plan_calls_exactly_the_rules_whose_needs_hold() -> None:
    plan = RulePlan(_RULES, memo=False)  # the variants share their texts
    context = RuleContext()
    for statement in _CASES[:200]:
        row = plan.outcomes(statement, context)
        for rule, outcome in zip(_RULES, row, strict=True):
            if rule.needs and not any(NEEDS[n](statement) for n in rule.needs):
                assert outcome is NOTHING


def test_a_need_this_version_does_not_know_runs_the_rule_everywhere() -> None:
    class Future(Rule):
        id = "PTX999"
        name = "future"
        needs = ("something-new",)

        def check(self, statement, context):  # type: ignore[no-untyped-def]
            yield from ()

    plan = RulePlan([Future()])
    assert plan.masks == [0]
