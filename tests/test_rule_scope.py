"""A rule's ``scope`` (ptxlint.rule.Rule.scope) says what its verdict reads, for the language
server's re-lint after an edit inside one statement (ptxlint.lsp.incremental): a rule whose
scope is "statement" is not asked again about the other statements of the file, so it must not
read them. Checked on every statement of the rule fixtures: such a rule never touches
``RuleContext.file_statements``. PTX213 (a register another statement of the function
declares) and PTX210 (an object another statement packs the other way) read them while they
said "statement": after an edit that removed a declaration the server kept their old verdict
on the other statements."""

from __future__ import annotations

import contextlib
import glob
import os

import pytest

from ptxlint.analysis.cxx_facts import FileFacts
from ptxlint.engine import AskedStatements, extract_statements, instantiate
from ptxlint.model import SourceFile
from ptxlint.registry import load_rules
from ptxlint.rule import Rule, RuleContext
from tests.conftest import FIXTURES

_RULES = instantiate(load_rules().rules)
_STATEMENT_SCOPED = [r for r in _RULES if r.scope == "statement"]


def _fixture_files() -> list[SourceFile]:
    out = []
    for path in sorted(glob.glob(os.path.join(FIXTURES, "rules", "PTX*.*"))):
        with open(path, encoding="utf-8") as handle:
            out.append(SourceFile(path, handle.read()))
    return out


_FILES = _fixture_files()


def test_the_fixtures_hold_statements_with_neighbours() -> None:
    assert sum(len(extract_statements(s).statements) > 1 for s in _FILES) > 50


@pytest.mark.parametrize("rule", _STATEMENT_SCOPED, ids=lambda r: r.id)
def test_a_statement_scoped_rule_reads_no_other_statement(rule: Rule) -> None:
    for source in _FILES:
        extracted = extract_statements(source)
        statements = extracted.statements
        if len(statements) < 2:
            continue
        asked = AskedStatements(statements)
        parsed = extracted.parsed
        context = RuleContext(file_statements=asked, parsed=parsed,
                              cxx=FileFacts(parsed) if parsed is not None else None)
        for statement in statements:
            with contextlib.suppress(Exception):  # a rule's error is another test's subject
                list(rule.check(statement, context))
            assert not asked.asked, (rule.id, source.path, statement.span)
