"""Every rule flags exactly the lines its bad fixture marks and nothing in its clean twin."""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path

import pytest

from ptxlint.model import SourceFile
from ptxlint.ptx.versions import version_options
from ptxlint.registry import load_rules
from ptxlint.rule import RuleContext, validate_rule_class
from tests.conftest import FIXTURES, lint_text

RULES_DIR = os.path.join(FIXTURES, "rules")
_EXPECT = re.compile(r"expect:\s*((?:PTX\d{3}[ ,]*)+)")


def _fixture_pairs() -> list[str]:
    ids = sorted({os.path.basename(p).split("_")[0] for p in glob.glob(f"{RULES_DIR}/*_bad.*")})
    return ids


def _fixtures(kind: str) -> list[str]:
    """Every ``PTXnnn_<kind>.cu`` / ``PTXnnn_<kind>.py`` (C++ and Python front ends)."""
    return sorted(os.path.basename(p) for p in glob.glob(f"{RULES_DIR}/PTX*_{kind}.*"))


# A fixture may name the CUDA versions it is linted under, as the configuration would:
# `// min-cuda-version: 12.4` (PTX403).
_VERSIONS = re.compile(r"^//\s*(min-cuda-version|cuda-version):\s*(\S+)", re.M)


def _context(text: str) -> RuleContext:
    found = dict(_VERSIONS.findall(text))
    if not found:
        return RuleContext()
    return RuleContext(options=version_options(found.get("cuda-version"),
                                               found.get("min-cuda-version"), RULES_DIR))


def _expected(text: str, rule_id: str) -> set[int]:
    lines = set()
    for number, line in enumerate(text.splitlines(), 1):
        m = _EXPECT.search(line)
        if m and rule_id in m.group(1):
            lines.add(number)
    return lines


@pytest.mark.parametrize("name", _fixtures("bad"))
def test_bad_fixture_is_flagged_on_marked_lines(name: str) -> None:
    rule_id = name.split("_")[0]
    path = os.path.join(RULES_DIR, name)
    text = Path(path).read_text(encoding="utf-8")
    findings = [f for f in lint_text(text, path, select=(rule_id,), context=_context(text))
                if f.rule == rule_id]
    source = SourceFile(path, text)
    got = {source.line_col(f.span.start).line for f in findings}
    assert got == _expected(text, rule_id), [f.message for f in findings]


@pytest.mark.parametrize("name", _fixtures("clean"))
def test_clean_fixture_is_silent(name: str) -> None:
    rule_id = name.split("_")[0]
    path = os.path.join(RULES_DIR, name)
    text = Path(path).read_text(encoding="utf-8")
    findings = [f for f in lint_text(text, path, select=(rule_id,), context=_context(text))
                if f.rule == rule_id]
    assert findings == [], [f.message for f in findings]


def test_every_rule_has_fixtures_and_docs() -> None:
    have = set(_fixture_pairs())
    loaded = load_rules()
    assert loaded.problems == ()
    for rule in loaded.rules:
        assert validate_rule_class(rule) == []
        assert rule.id in have, f"{rule.id} has no fixtures in fixtures/rules/"
        assert glob.glob(os.path.join(RULES_DIR, f"{rule.id}_clean.*"))
