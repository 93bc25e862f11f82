from __future__ import annotations

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from ptxlint.engine import extract_statements, instantiate, lint_source  # noqa: E402
from ptxlint.model import AsmStatement, Finding, SourceFile  # noqa: E402
from ptxlint.registry import load_rules  # noqa: E402
from ptxlint.rule import RuleContext  # noqa: E402
from tests.toolchain_cache import oracle_cache_root  # noqa: E402

FIXTURES = os.path.join(ROOT, "fixtures")


def rule_fixture_statements() -> list[AsmStatement]:
    """Every asm statement of the rules' fixtures (fixtures/rules/PTX*), in path order."""
    import glob

    out: list[AsmStatement] = []
    for path in sorted(glob.glob(os.path.join(FIXTURES, "rules", "PTX*.*"))):
        with open(path, encoding="utf-8") as handle:
            source = SourceFile(path, handle.read())
        out.extend(extract_statements(source).statements)
    return out

# The compiler oracle's verdicts stay where every run (and every worktree) finds them; ptxlint's
# own caches (entry points, Tier 2, verify) go to a folder of this session, so that tests never
# write into the user's cache, and the result cache is off (tests that patch a rule must see it
# run): tests/test_cache.py turns it on where it is the subject.
os.environ["PTXLINT_TEST_CACHE"] = oracle_cache_root()


@pytest.fixture(scope="session", autouse=True)
def _session_cache_dir(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PTXLINT_CACHE_DIR", str(tmp_path_factory.mktemp("ptxlint-cache")))
        patch.setenv("PTXLINT_NO_CACHE", "1")
        yield


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A result cache of this test's own, turned on (the session keeps it off)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("PTXLINT_CACHE_DIR", str(folder))
    monkeypatch.delenv("PTXLINT_NO_CACHE", raising=False)
    return folder


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
