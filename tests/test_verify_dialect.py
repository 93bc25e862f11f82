"""PTX513's probe (verify/dialect_probe.py): the call printed by llvmlite's LLVM with and
without ``inteldialect``, each assembled by ptxas. The compiles skip with a reason where
llvmlite or ptxas is missing; their outcomes are cached in the test cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.cli import _configure, build_parser, run
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.report.run_result import RunResult
from ptxlint.verify import VerifyOptions, dialect_probe, llvm_probe, verify
from ptxlint.verify.recipes import LLVM_DIALECT, recipe_for
from ptxlint.verify.runner import Outcome
from tests.toolchain_cache import oracle_cache_root
from tests.toolchain_marks import toolchain

ROOT = Path(__file__).resolve().parent.parent
BAD = (ROOT / "fixtures" / "rules" / "PTX513_bad.py").read_text()
# the same call with a template whose operand ptxas rejects whatever the dialect
BROKEN = BAD.replace("mul.wide.u32 prod, $2, $3;", "mul.wide.u32 prod, $2, 1.5;")
_REJECTED = ("ptxas /tmp/x/probe.ptx, line 21; fatal   : Parsing error near '.intel_syntax': "
             "syntax error\nptxas fatal   : Ptx assembly aborted due to errors\n")


@pytest.fixture(autouse=True)
def cache_dir(monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())


def _outcome(returncode: int, stderr: str = "") -> Outcome:
    return Outcome(returncode, "", stderr)


# --------------------------------------------------------------------------- no compiler


def test_the_ir_marks_the_call_inteldialect_and_keeps_it_with_a_side_effect():
    [statement] = extract_statements(SourceFile("k.py", BAD)).statements
    marked = llvm_probe.llvm_ir(statement, True, intel_dialect=True)
    assert 'call {i32, i32} asm sideeffect inteldialect "' in marked
    assert "inteldialect" not in llvm_probe.llvm_ir(statement, True)


def test_ptx513_takes_the_dialect_probe(lint):
    [finding] = [f for f in lint(BAD, path="k.py") if f.rule == "PTX513"]
    assert recipe_for(finding.rule, finding).probes == (LLVM_DIALECT,)


def test_ptxas_rejecting_a_dialect_line_confirms_and_is_quoted():
    verdict = dialect_probe.judged(_outcome(0), _outcome(255, _REJECTED), "llvmlite 0.45")
    assert verdict.status == "confirmed"
    assert verdict.evidence.startswith("ptxas: Parsing error near '.intel_syntax'")
    assert "/tmp/" not in verdict.evidence


def test_an_assembled_dialect_call_refutes():
    verdict = dialect_probe.judged(_outcome(0), _outcome(0), "llvmlite 0.45")
    assert verdict.status == "refuted"


def test_a_template_broken_either_way_or_another_error_is_unverifiable():
    other = "ptxas /tmp/x/probe.ptx, line 20; error   : Arguments mismatch for instruction 'mul'\n"
    for plain, marked in ((_outcome(255, other), _outcome(255, _REJECTED)),
                          (_outcome(0), _outcome(255, other))):
        verdict = dialect_probe.judged(plain, marked, "llvmlite 0.45")
        assert verdict.status == "unverifiable"
        assert "Arguments mismatch" in verdict.evidence


# --------------------------------------------------------------------------- the compilers


def _verified(path: Path) -> RunResult:
    args = build_parser().parse_args(["check", str(path), "--preview", "--select", "PTX513"])
    config, selector, rules, context = _configure(args)
    return verify(run(args.paths, config, selector, rules, context),
                  VerifyOptions(files=(str(path),)))


def _needs_llvmlite_and_ptxas() -> None:
    if toolchain.ptxas is None:
        pytest.skip("ptxas not found (CUDA Toolkit not found)")
    python = llvm_probe._python("llvmlite")
    if llvm_probe.version(python, "llvmlite") is None:
        pytest.skip(f"llvmlite is not installed for {python} (set PTXLINT_LLVMLITE_PYTHON)")


@pytest.mark.parametrize(("code", "status"), [(BAD, "confirmed"), (BROKEN, "unverifiable")])
def test_ptxas_speaks_on_the_intel_dialect(tmp_path, code, status):
    _needs_llvmlite_and_ptxas()
    path = tmp_path / "k.py"
    path.write_text(code)
    result = _verified(path)
    [verdict] = [result.verdict(f) for f in result.findings if f.rule == "PTX513"]
    assert verdict.status == status, verdict.evidence
    assert verdict.tool.startswith("llvmlite ")
    if status == "confirmed":
        assert "'.intel_syntax'" in verdict.evidence
    else:
        assert "without the dialect either" in verdict.evidence
