"""The llvmlite and CuTe DSL probe (verify/llvm_probe.py): PTX505's purity differential compiled
by the call's own compiler. The compiles skip with a reason where llvmlite or CuTe DSL is not
installed (PTXLINT_LLVMLITE_PYTHON / PTXLINT_CUTE_PYTHON name another interpreter); their
outcomes are cached in the test cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.cli import _configure, build_parser, run
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.report.run_result import RunResult
from ptxlint.verify import VerifyOptions, llvm_probe, runner, verify
from ptxlint.verify.ptx_probe import NotProbeable
from ptxlint.verify.recipes import LLVM_PURITY, recipe_for
from ptxlint.verify.runner import Compile
from ptxlint.verify.triton_probe import command
from tests.toolchain_cache import oracle_cache_root

LLVMLITE = ('from llvmlite import ir\n\n\n'
            'def clock(builder, fnty):\n'
            '    asm = ir.InlineAsm(fnty, "mov.u32 $0, %clock;", "=r")\n'
            '    return builder.call(asm, [])\n\n\n'
            'def add(builder, fnty, p):\n'
            '    asm = ir.InlineAsm(fnty, "atom.global.add.u32 $0, [$1], 1;", "=r,l")\n'
            '    return builder.call(asm, [p])\n')
CUTE = ('from cutlass._mlir.dialects import llvm\n\n\n'
        'def fence():\n'
        '    llvm.inline_asm(None, [], "fence.acq_rel.gpu;", "", has_side_effects=False)\n')


def statements(code: str, path: str = "k.py"):
    return extract_statements(SourceFile(path, code)).statements


@pytest.fixture(autouse=True)
def cache_dir(monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())


# --------------------------------------------------------------------------- no compiler


def test_llvm_ir_calls_the_asm_with_the_types_its_letters_name():
    _, add = statements(LLVMLITE)
    pure, impure = llvm_probe.llvm_ir(add, False), llvm_probe.llvm_ir(add, True)
    assert 'call i32 asm "atom.global.add.u32 $0, [$1], 1;", "=r,l"(i64 %a0)' in pure
    assert "asm sideeffect" in impure and "sideeffect" not in pure
    assert "define void @ptxlint_probe(i64 %a0)" in pure


def test_llvm_ir_escapes_the_template_as_llvm_strings_do():
    code = LLVMLITE.replace('"mov.u32 $0, %clock;"', '"mov.u32 $0, %clock;\\n\\t// \\"x\\""')
    clock, _ = statements(code)
    assert '"mov.u32 $0, %clock;\\0A\\09// \\22x\\22"' in llvm_probe.llvm_ir(clock, False)


def test_a_constraint_the_probe_cannot_pass_is_not_probeable():
    code = LLVMLITE.replace('"=r,l"', '"=r,m"')
    _, add = statements(code)
    with pytest.raises(NotProbeable):
        llvm_probe.llvm_ir(add, False)


def test_ptx505_on_llvmlite_and_cute_uses_the_purity_probe_and_triton_keeps_its_own(lint):
    for code, path in ((LLVMLITE, "a.py"), (CUTE, "b.py")):
        findings = [f for f in lint(code, path=path) if f.rule == "PTX505"]
        assert findings and all(recipe_for(f.rule, f).probes == (LLVM_PURITY,)
                                for f in findings)


# --------------------------------------------------------------------------- the compilers


def verified(path: Path) -> RunResult:
    args = build_parser().parse_args(["check", str(path), "--select", "PTX505"])
    config, selector, rules, context = _configure(args)
    return verify(run(args.paths, config, selector, rules, context),
                  VerifyOptions(files=(str(path),)))


def _needs(tool: str) -> None:
    python = llvm_probe._python(tool)
    if llvm_probe.version(python, tool) is None:
        pytest.skip(f"{tool} is not installed for {python} (set PTXLINT_{tool.upper()}_PYTHON "
                    "to an interpreter that has it)")


def test_llvmlite_deletes_a_pure_asm_with_its_result_unused(tmp_path):
    _needs("llvmlite")
    path = tmp_path / "k.py"
    path.write_text(LLVMLITE)
    result = verified(path)
    verdicts = [result.verdict(f) for f in result.findings if f.rule == "PTX505"]
    assert len(verdicts) == 2
    for verdict in verdicts:
        assert verdict.status == "confirmed", verdict.evidence
        assert verdict.tool.startswith("llvmlite ") and "LLVM " in verdict.tool
        assert "0 '" in verdict.evidence and "1 when it has side effects" in verdict.evidence


def test_cute_dsl_deletes_a_pure_fence(tmp_path, monkeypatch):
    _needs("cute")
    path = tmp_path / "k.py"
    path.write_text(CUTE)
    result = verified(path)
    [verdict] = [result.verdict(f) for f in result.findings if f.rule == "PTX505"]
    assert verdict.status == "confirmed", verdict.evidence
    assert verdict.tool.startswith("CuTe DSL ") and verdict.arch == "sm_90a"


def test_a_cute_call_is_never_judged_by_llvmlite(tmp_path, monkeypatch):
    """llvmlite's LLVM keeps the pure void fence that CuTe DSL deletes: without CuTe DSL the
    finding stays unverifiable, naming what is missing."""
    _needs("llvmlite")
    monkeypatch.setenv("PTXLINT_CUTE_PYTHON", llvm_probe._python("llvmlite"))
    if llvm_probe.version(llvm_probe._python("cute"), "cute") is not None:
        pytest.skip("the llvmlite interpreter has CuTe DSL too")
    path = tmp_path / "k.py"
    path.write_text(CUTE)
    result = verified(path)
    [verdict] = [result.verdict(f) for f in result.findings if f.rule == "PTX505"]
    assert verdict.status == "unverifiable" and "CuTe DSL" in verdict.evidence
    # and the reason it must be so: the same call as llvmlite writes it keeps the fence
    [statement] = statements(CUTE)
    python = llvm_probe._python("llvmlite")
    job = Compile(command(python, "{dir}/p.py", "{dir}/p.ptx"),
                  (("p.py", llvm_probe.llvmlite_script(statement, False, python)),), ("p.ptx",))
    outcome = runner.run(job, llvm_probe.version(python, "llvmlite") or "llvmlite")
    assert outcome is not None and outcome.returncode == 0, outcome
    assert "fence.acq_rel.gpu" in outcome.output("p.ptx")
