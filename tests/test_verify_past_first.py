"""--verify goes past the first error: the blog pipeline's 64-bit pointer with "r" stops nvcc,
and only once PTX004's fix is applied inside the scratch copy does ptxas see the 4-byte
``cp.async.cg`` copy. Skips without nvcc, ptxas and a host compiler; compiles are cached."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ptxlint.cli import _configure, build_parser, run
from ptxlint.report.run_result import RunResult
from ptxlint.verify import TOOLCHAIN_ERROR, VerifyOptions, discover, verify

PIPELINE = Path(__file__).resolve().parent / "data" / "blog_pipeline.cu"

toolchain = discover()
pytestmark = pytest.mark.skipif(
    toolchain.ptxas is None or toolchain.nvcc is None or shutil.which("g++") is None,
    reason="needs nvcc, ptxas and a host compiler (CUDA Toolkit not found)",
)


@pytest.fixture(autouse=True)
def cache_dir(monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", os.environ.get(
        "PTXLINT_TEST_CACHE", os.path.expanduser("~/.cache/ptxlint-tests")))


def verified(*select: str) -> RunResult:
    args = build_parser().parse_args(["check", str(PIPELINE), "--select", ",".join(select)])
    config, selector, rules, context = _configure(args)
    result = run(args.paths, config, selector, rules, context)
    return verify(result, VerifyOptions(files=(str(PIPELINE),)))


def test_lint_reports_both_errors_of_the_blog_pipeline():
    args = build_parser().parse_args(["check", str(PIPELINE), "--select", "PTX004,PTX207"])
    config, selector, rules, context = _configure(args)
    result = run(args.paths, config, selector, rules, context)
    assert sorted(f.rule for f in result.findings) == ["PTX004", "PTX207"]
    [cg] = [f for f in result.findings if f.rule == "PTX207"]
    assert "expected 16" in cg.message


def test_verify_confirms_both_errors():
    result = verified("PTX004", "PTX207")
    statuses = {f.rule: result.verdict(f).status for f in result.findings}
    assert statuses == {"PTX004": "confirmed", "PTX207": "confirmed"}


def test_error_behind_the_first_is_a_toolchain_error_when_no_rule_predicted_it():
    result = verified("PTX004")
    behind = [f for f in result.findings if f.rule == TOOLCHAIN_ERROR]
    assert len(behind) == 1
    assert "once the fix of PTX004 is applied" in behind[0].message
    assert "expected to be 16" in behind[0].message
    verdict = result.verdict(behind[0])
    assert verdict.status == "confirmed" and "after applying the fix of PTX004" in (
        verdict.evidence)
    # the user's file is never touched
    assert '"r"(src)' in PIPELINE.read_text()
