from __future__ import annotations

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from ptxlint.engine import instantiate, lint_source  # noqa: E402
from ptxlint.model import Finding, SourceFile  # noqa: E402
from ptxlint.registry import load_rules  # noqa: E402
from ptxlint.rule import RuleContext  # noqa: E402

FIXTURES = os.path.join(ROOT, "fixtures")


def lint_text(
    text: str,
    path: str = "test.cu",
    select: tuple[str, ...] | None = None,
    context: RuleContext | None = None,
) -> list[Finding]:
    rules = instantiate(load_rules().rules)
    if select is not None:
        rules = [r for r in rules if r.id in select or r.name in select]
    result = lint_source(SourceFile(path, text), rules, context or RuleContext())
    return result.findings


@pytest.fixture
def lint():
    return lint_text
