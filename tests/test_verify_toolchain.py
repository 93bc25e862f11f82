"""--verify against the real CUDA toolchain (skipped with a reason where nvcc/ptxas are absent).

One verification run over fixtures/rules/ serves every test; compiles are cached by content hash
in the test cache (tests/toolchain_cache.py), so a second run takes a second.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from ptxlint.cli import _configure, build_parser, run
from ptxlint.fix import apply_edits
from ptxlint.model import Severity
from ptxlint.report import json_format, sarif_format
from ptxlint.report.run_result import RunResult
from ptxlint.verify import TOOLCHAIN_ERROR, VerifyOptions, discover, verify
from ptxlint.verify import cli as verify_cli
from tests.toolchain_cache import oracle_cache_root

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "rules"
# Rules whose claim is "the toolchain rejects this": each error finding must be confirmed.
COMPILER_BACKED = ("PTX001", "PTX003", "PTX004", "PTX006", "PTX007", "PTX201", "PTX204",
                   "PTX205", "PTX206", "PTX213", "PTX401", "PTX402")

# Clean-fixture lines ptxas cannot build for a reason outside the fixture: the verifier probes
# every statement, guards aside, and ptxas 13.0 builds no 32-bit code for sm_75+. Keyed by
# (file, line). Any other toolchain error fails the test.
UNBUILDABLE_BRANCHES: dict[tuple[str, int], str] = {}

toolchain = discover()
pytestmark = pytest.mark.skipif(
    toolchain.ptxas is None or toolchain.nvcc is None or shutil.which("g++") is None,
    reason="needs nvcc, ptxas and a host compiler (CUDA Toolkit not found)",
)


@pytest.fixture(scope="module", autouse=True)
def cache_dir():
    old = os.environ.get("PTXLINT_CACHE_DIR")
    os.environ["PTXLINT_CACHE_DIR"] = oracle_cache_root()
    yield
    if old is None:
        os.environ.pop("PTXLINT_CACHE_DIR", None)
    else:
        os.environ["PTXLINT_CACHE_DIR"] = old


def lint(paths: list[str], *extra: str) -> RunResult:
    args = build_parser().parse_args(["check", *paths, *extra])
    config, selector, rules, context = _configure(args)
    return run(args.paths, config, selector, rules, context)


@pytest.fixture(scope="module")
def fixtures_verified(cache_dir) -> RunResult:
    result = lint([str(FIXTURES)])
    files = tuple(str(p) for p in sorted(FIXTURES.glob("*.cu")))
    return verify(result, VerifyOptions(files=files))


def _line(result: RunResult, finding) -> int:
    return result.sources[finding.path].line_col(finding.span.start).line


def _bad(rule: str) -> Path:
    return FIXTURES / f"{rule}_bad.cu"


@pytest.mark.parametrize("rule", [r for r in COMPILER_BACKED if _bad(r).exists()]
                         or ["none"])
def test_error_findings_of_compiler_backed_rules_are_confirmed(rule, fixtures_verified):
    result = fixtures_verified
    findings = [f for f in result.findings if f.rule == rule and f.path.endswith(f"{rule}_bad.cu")]
    if rule == "none" or not findings:
        pytest.skip(f"no findings of {rule} in its fixture yet")
    checked = 0
    for finding in findings:
        if finding.severity is not Severity.ERROR and rule not in ("PTX201", "PTX202", "PTX402"):
            continue
        line = _line(result, finding)
        verdict = result.verdict(finding)
        assert verdict is not None
        assert verdict.status == "confirmed", f"{rule} line {line}: {verdict}"
        assert verdict.evidence and verdict.tool
        checked += 1
    assert checked


@pytest.mark.parametrize("rule", ["PTX101", "PTX102", "PTX105", "PTX106"])
def test_optimizer_rules_are_confirmed_by_the_differential(rule, fixtures_verified):
    result = fixtures_verified
    verdicts = [result.verdict(f) for f in result.findings
                if f.rule == rule and f.path.endswith(f"{rule}_bad.cu")]
    if not verdicts:
        pytest.skip(f"no {rule} fixture findings")
    confirmed = [v for v in verdicts if v and v.status == "confirmed"]
    assert confirmed, verdicts
    assert all(v.method == "differential" for v in confirmed)
    # the others are honest about it, never "refuted"
    assert all(v and v.status != "refuted" for v in verdicts)


def test_carry_consumer_is_confirmed_where_nvcc_hoists_it(fixtures_verified):
    result = fixtures_verified
    errors = [f for f in result.findings if f.rule == "PTX107" and f.severity is Severity.ERROR]
    verdicts = {_line(result, f): result.verdict(f) for f in errors}
    assert verdicts and all(v is not None and v.method == "carry-placement"
                            for v in verdicts.values())
    # the loop at the end of the fixture: nvcc -O3 hoists the addc above the loop
    confirmed = [n for n, v in verdicts.items() if v is not None and v.status == "confirmed"]
    assert max(verdicts) in confirmed, verdicts
    assert all(v is not None and v.status != "refuted" for v in verdicts.values())


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*_clean.cu")), ids=lambda p: p.name)
def test_clean_fixtures_produce_no_toolchain_errors(path, fixtures_verified):
    errors = [f for f in fixtures_verified.findings
              if f.rule == TOOLCHAIN_ERROR and f.path == str(path)]
    # Clean fixtures are valid PTX: ptxas rejects nothing in them (arch errors aside, since
    # no --arch is given), so any rejection here is a real fixture or verifier bug.
    lines = {_line(fixtures_verified, f): f.message for f in errors}
    unexpected = {n: m for n, m in lines.items() if (path.name, n) not in UNBUILDABLE_BRANCHES}
    assert not unexpected, "; ".join(f"line {n}: {m}" for n, m in unexpected.items())
    if lines:
        pytest.xfail("; ".join(f"line {n}: {UNBUILDABLE_BRANCHES[(path.name, n)]}"
                               for n in lines))


def test_every_finding_gets_a_verdict_and_a_summary(fixtures_verified):
    result = fixtures_verified
    assert all(result.verdict(f) is not None for f in result.findings)
    text = verify_cli.render_text(result)
    assert "  verify: confirmed by ptxas" in text
    summary = text.strip().splitlines()[-1]
    assert re.fullmatch(r"Verification: \d+ confirmed, \d+ refuted, \d+ unverifiable(?: in \d+\.\d+s)?\.", summary)


SEED = (
    "__global__ void copy(const float* input, int buf) {\n"
    "  __shared__ float tile[2][128];\n"
    '  asm volatile("cp.async.cg.shared.global [%0], [%1], 4;\\n" :: '
    '"r"(&tile[buf][threadIdx.x]), "l"(&input[threadIdx.x]));\n'
    "}\n"
)


@pytest.mark.parametrize("variant", ["cg", "ca"])
def test_seed_example_is_confirmed_by_nvcc_and_clean_after_the_fix(tmp_path, variant):
    """The seed: PTX004 (a 64-bit pointer with "r") is confirmed by nvcc's size message. After
    the fix, nvcc's front end is satisfied; ptxas then finds the seed's second defect, which no
    rule predicts: cp.async.cg copies 16 bytes only (the .ca variant copies 4 and is clean)."""
    seed = SEED.replace("cp.async.cg", f"cp.async.{variant}")
    path = tmp_path / "seed.cu"
    path.write_text(seed)
    options = VerifyOptions(arch="sm_90", files=(str(path),))
    result = verify(lint([str(path)]), options)
    size = [f for f in result.findings if f.rule == "PTX004"]
    if not size:
        pytest.skip("PTX004 not present yet")
    verdict = result.verdict(size[0])
    assert verdict is not None and verdict.status == "confirmed"
    assert "does not match type/size implied by constraint 'r'" in verdict.evidence
    fixes = [f.fix for f in size if f.fix is not None]
    if not fixes:
        pytest.skip("PTX004 has no fix yet")
    fixed, _ = apply_edits(seed, fixes)
    path.write_text(fixed)
    after = verify(lint([str(path)]), options)
    errors = [f for f in after.findings if f.severity is Severity.ERROR]
    if variant == "ca":
        assert not errors, errors
    else:
        [error] = errors  # PTX207 predicts it now, and ptxas confirms it
        assert error.rule == "PTX207" and "expected 16" in error.message
        verdict = after.verdict(error)
        assert verdict is not None and verdict.status == "confirmed"
        assert "expected to be 16" in verdict.evidence


def test_json_and_sarif_carry_verdicts(fixtures_verified):
    document = json.loads(json_format.render(fixtures_verified))
    assert all("verification" in f for f in document["findings"])
    statuses = {f["verification"]["status"] for f in document["findings"]}
    assert statuses <= {"confirmed", "refuted", "unverifiable"} and "confirmed" in statuses
    sarif = json.loads(sarif_format.render(fixtures_verified, []))
    results = sarif["runs"][0]["results"]
    assert results and all("verification" in r["properties"] for r in results)


def test_ptxas_rejection_nobody_predicted_becomes_a_toolchain_error(tmp_path):
    # The grammar rules (PTX207) predict this extra operand; with only PTX101 selected nobody
    # does, which keeps the test about verification as the grammar grows.
    path = tmp_path / "k.cu"
    path.write_text('__device__ unsigned f(unsigned a) {\n  unsigned d;\n'
                    '  asm("cvt.u32.u32 %0, %1, 7;" : "=r"(d) : "r"(a));\n  return d;\n}\n')
    result = verify(lint([str(path)], "--select", "PTX101"),
                    VerifyOptions(arch="sm_90", files=(str(path),)))
    [error] = [f for f in result.findings if f.rule == TOOLCHAIN_ERROR]
    assert "Arguments mismatch for instruction 'cvt'" in error.message
    assert result.sources[error.path].line_col(error.span.start).line == 3
